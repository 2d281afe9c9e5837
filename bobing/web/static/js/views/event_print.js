// The event's paper and its seats: printable table cards (/e/CODE/cards), seat claiming
// (/e/CODE/t/N: scan the table's QR, tap your name), and the results (/e/CODE/results): the
// prize-desk list by table and by name, each table's 状元, the 王中王, CSV and XLSX.

import { h, mount, download } from "../dom.js";
import { t } from "../i18n.js";
import { TIERS } from "../protocol.js";
import { classify, handName, tierName } from "../rulebook.js";
import { qrSvg } from "../qrcode.js";
import { renderTopbar, showError, toast } from "../ui.js";
import { saveTable } from "../device_store.js";
import { eventApi, claimLinkSeat, claimUrl, organizerToken, tableLabel } from "../event.js";
import { eventNav } from "../widgets/event_nav.js";
import { loadInvite, inviteNotice } from "../invite.js";
import { fetchYears, yearsSection } from "../years.js";
import { sessionsResults } from "../programme.js";

/**
 * @param {HTMLElement} main
 */
function loading(main) {
  mount(
    main,
    h(
      "section",
      { class: "center-card loading" },
      h("div", { class: "boot-moon", "aria-hidden": "true" }),
    ),
  );
}

/**
 * The rules in a line: the preset and the cakes per tier.
 * @param {Record<string, any>} ev
 */
export function rulesLine(ev) {
  const prizes = (ev.rules && ev.rules.prizes) || {};
  const counts = TIERS.filter((tier) => prizes[tier]).map(
    (tier) => `${tierName(tier)} ${prizes[tier]}`,
  );
  return t("event.rules_line", {
    preset: t(`preset.${(ev.rules && ev.rules.preset) || "traditional"}`),
    prizes: counts.join(" · "),
  });
}

/**
 * The goods a table's cakes are, by tier: "状元 可爱公仔 · 对堂 洗发水×2、沐浴露×2 …" (the card
 * tells the table what it plays for; the 组长 hands them out).
 * @param {Record<string, any>} ev
 */
export function goodsLine(ev) {
  const prizes = ev.prizes || {};
  const parts = TIERS.filter((tier) => (prizes[tier] || []).length).map(
    (tier) =>
      `${tierName(tier)} ${prizes[tier]
        .map((/** @type {Record<string, any>} */ g) =>
          g.count > 1 ? `${g.name}×${g.count}` : g.name,
        )
        .join(t("list.sep"))}`,
  );
  return parts.join(" · ");
}

export class EventCardsView {
  /** @param {HTMLElement} main @param {{code: string, navigate?: Function}} options */
  constructor(main, { code }) {
    this.main = main;
    this.code = code;
  }

  destroy() {
    document.body.classList.remove("print-page");
  }

  async render() {
    document.body.classList.add("print-page");
    loading(this.main);
    let ev;
    try {
      [ev] = await Promise.all([eventApi.get(this.code), loadInvite()]);
    } catch (err) {
      showError(err);
      return;
    }
    // Each seat's claim QR is the organiser's to print: only its token reads the keys.
    const token = organizerToken(this.code);
    const keys = new Map();
    if (token) {
      try {
        for (const tb of (await eventApi.seats(this.code, token)).tables)
          for (const seat of tb.seats) keys.set(`${tb.number} ${seat.name}`, seat);
      } catch (err) {
        showError(err);
      }
    }
    const seatOf = (/** @type {Record<string, any>} */ tb, /** @type {any} */ name) =>
      keys.get(`${tb.number} ${name}`);
    renderTopbar({ title: ev.name });
    mount(
      this.main,
      h(
        "div",
        { class: "ev-page" },
        h(
          "div",
          { class: "no-print" },
          eventNav(ev.code, "cards"),
          h("h1", { class: "title" }, t("event.cards_title", { name: ev.name })),
          inviteNotice(),
          token ? null : h("p", { class: "hint ev-cards-no-keys" }, t("event.cards_no_keys")),
          h("p", { class: "hint" }, t("event.cards_hint")),
          h(
            "button",
            { type: "button", class: "btn btn-primary", onclick: () => window.print() },
            t("event.print"),
          ),
        ),
        h(
          "div",
          { class: "ev-cards" },
          ev.tables.map((/** @type {Record<string, any>} */ tb) =>
            h(
              "article",
              { class: "ev-card", dataset: { table: tb.number } },
              // on paper the side (the table and its QR) and the body (who sits, who leads,
              // what is played for) stand side by side, so a card keeps to half a page
              h(
                "div",
                { class: "ev-card-side" },
                h("p", { class: "ev-card-event" }, ev.name, ev.date ? ` · ${ev.date}` : ""),
                h("h2", { class: "ev-card-no" }, tableLabel(tb.number)),
                h(
                  "div",
                  { class: "ev-card-qr" },
                  qrSvg(claimUrl(ev.code, tb.number), {
                    label: t("event.qr_label", { table: tableLabel(tb.number) }),
                  }),
                ),
                h("p", { class: "ev-card-scan" }, t(`event.card_scan.${ev.mode}`)),
              ),
              h(
                "div",
                { class: "ev-card-body" },
                h(
                  "ol",
                  { class: "ev-card-names" },
                  tb.players.map((/** @type {import("../dom.js").Child} */ name) => {
                    const seat = seatOf(tb, name);
                    return h(
                      "li",
                      { dataset: { name } },
                      seat
                        ? h(
                            "span",
                            { class: "ev-card-seat-qr" },
                            qrSvg(claimUrl(ev.code, tb.number, seat), {
                              label: t("event.seat_qr_label", { name }),
                            }),
                          )
                        : null,
                      name,
                    );
                  }),
                ),
                tb.leaders && tb.leaders.length
                  ? h(
                      "p",
                      { class: "ev-card-leader" },
                      t("event.card_leader", { names: tb.leaders.join(t("list.sep")) }),
                    )
                  : null,
                h("p", { class: "ev-card-rules" }, rulesLine(ev)),
                tb.start_thrower
                  ? h(
                      "p",
                      { class: "ev-card-thrower" },
                      t(`event.card_thrower.${cardThrower(ev, tb)}`, {
                        name: tb.start_thrower,
                      }),
                    )
                  : null,
                goodsLine(ev) ? h("p", { class: "ev-card-goods" }, goodsLine(ev)) : null,
                h("p", { class: "ev-card-url" }, claimUrl(ev.code, tb.number)),
              ),
            ),
          ),
        ),
      ),
    );
  }
}

export class EventClaimView {
  /**
   * @param {HTMLElement} main
   * @param {{code: string, number: number | string, navigate: (path: string) => void}} options
   */
  constructor(main, { code, number, navigate }) {
    this.main = main;
    this.code = code;
    this.number = number;
    this.navigate = navigate;
    // another seat's QR opened in this same page changes only the fragment: no page load
    this.onHash = () => this.render();
    window.addEventListener("hashchange", this.onHash);
  }

  destroy() {
    window.removeEventListener("hashchange", this.onHash);
  }

  async render() {
    loading(this.main);
    let ev;
    try {
      ev = await eventApi.get(this.code);
    } catch (err) {
      showError(err);
      return;
    }
    const tb = ev.tables.find((/** @type {Record<string, any>} */ x) => x.number === this.number);
    renderTopbar({ title: ev.name });
    if (!tb) {
      mount(
        this.main,
        h(
          "section",
          { class: "center-card" },
          h("p", {}, t("event.no_such_table", { table: this.number })),
        ),
      );
      return;
    }
    const claimed = new Set(tb.claimed);
    // A seat is claimed with its own key (the QR beside the name on the card), or by the
    // organiser on its person's behalf.
    // The key is in the link's fragment (an old card's query is moved there: claimLinkSeat).
    const { name: keyName, key } = claimLinkSeat();
    this.key = key;
    this.token = organizerToken(this.code);
    const may = (/** @type {import("../dom.js").Child} */ name) =>
      this.token || (this.key && name === keyName && !claimed.has(name));
    mount(
      this.main,
      h(
        "section",
        { class: "card ev-claim" },
        h("h1", { class: "card-title" }, t("event.claim_title", { table: tableLabel(tb.number) })),
        h("p", { class: "hint" }, t(`event.claim_hint.${ev.mode}`)),
        this.key || this.token ? null : h("p", { class: "hint" }, t("event.claim_scan_own")),
        h(
          "div",
          { class: "ev-claim-names" },
          tb.players.map((/** @type {import("../dom.js").Child} */ name) =>
            h(
              "button",
              {
                type: "button",
                class: "btn btn-big ev-claim-name",
                disabled: !may(name),
                dataset: { name },
                onclick: () => this.claim(name),
              },
              name,
              claimed.has(name)
                ? h("span", { class: "badge badge-muted" }, t("event.claimed"))
                : null,
            ),
          ),
        ),
        h(
          "p",
          {},
          h("a", { href: `/t/${tb.code}`, "data-link": "", class: "link" }, t("event.just_watch")),
        ),
      ),
    );
  }

  /**
   * @param {any} name
   */
  async claim(name) {
    try {
      const seat = await eventApi.claim(
        this.code,
        this.number,
        name,
        this.token ? null : this.key,
        this.token,
      );
      saveTable(seat.code, { playerToken: seat.player_token, playerName: seat.name });
      // the key is spent: not left in this page's history entry
      history.replaceState(history.state, "", location.pathname);
      toast(t("event.claimed_as", { name }));
      this.navigate(`/t/${seat.code}`);
    } catch (err) {
      showError(err);
    }
  }
}

/**
 * One kind of prize a person takes home, counted by the server (``prize_counts``: the same
 * rows as the CSV and XLSX): "一秀：可乐 ×9（18）".
 * @param {Record<string, any>} prize
 */
function prizeText(prize, count = 1) {
  const tier =
    prize.tier === "wangzhongwang"
      ? t("event.wangzhongwang")
      : prize.tier
        ? tierName(prize.tier)
        : t("event.ranked_prize");
  const name =
    count > 1 ? t("event.times", { name: prize.name || tier, n: count }) : prize.name || tier;
  const value = (Number(prize.value) || 0) * count;
  return value
    ? t("event.prize_line_value", { tier, name, value })
    : t("event.prize_line", { tier, name });
}

/**
 * Which start-dice line a table's card prints: at a referee table the 组长 types the dice in,
 * or, where the roster marks 组长 and the seating left this table without one, whoever keeps
 * the table's phone.
 * @param {Record<string, any>} ev
 * @param {Record<string, any>} tb
 */
function cardThrower(ev, tb) {
  if (ev.mode !== "referee") return "rolled";
  const marked = (ev.people || []).some((/** @type {Record<string, any>} */ p) => p.leader);
  return marked && !(tb.leaders && tb.leaders.length) ? "referee_no_leader" : "referee";
}

/**
 * RULES.md §9.4 at the prize desk: the no-shows with what they paid, each refund, the
 * donated 会饼 (nothing when the event uses none of them).
 * @param {Record<string, any>} money
 */
function moneyCard(money) {
  if (!money) return null;
  const list = (
    /** @type {string} */ key,
    /** @type {string} */ cls,
    /** @type {any[]} */ items,
    /** @type {string} */ line,
  ) =>
    items && items.length
      ? [
          h("h3", { class: "field-label" }, t(key)),
          h(
            "ul",
            { class: cls },
            items.map((/** @type {Record<string, unknown>} */ item) =>
              h("li", {}, t(item.no_show ? "event.budget.refund_no_show" : line, item)),
            ),
          ),
        ]
      : [];
  const parts = [
    money.kitty != null
      ? h("p", { class: "ev-kitty-total" }, t("event.kitty_total", { n: money.kitty }))
      : null,
    ...list("event.no_shows.title", "ev-no-shows", money.no_shows, "event.no_shows.line"),
    ...list("event.budget.refund_title", "ev-refunds", money.refunds, "event.budget.refund_line"),
    ...list(
      "event.new.donated",
      "ev-donated-sets",
      (money.donated_sets || []).map((/** @type {Record<string, any>} */ d) => ({
        name: d.name,
        n: d.sets,
      })),
      "event.budget.donated",
    ),
  ];
  if (!parts.some(Boolean)) return null;
  return h(
    "section",
    { class: "card ev-desk ev-money" },
    h("h2", { class: "sub-title" }, t("event.budget.title")),
    parts,
  );
}

export class EventResultsView {
  /** @param {HTMLElement} main @param {{code: string, navigate?: Function}} options */
  constructor(main, { code }) {
    this.main = main;
    this.code = code;
  }

  destroy() {
    document.body.classList.remove("print-page");
  }

  async render() {
    document.body.classList.add("print-page");
    loading(this.main);
    let res;
    let ev;
    let lineage;
    try {
      [res, ev, lineage] = await Promise.all([
        eventApi.results(this.code),
        eventApi.get(this.code),
        fetchYears(this.code),
      ]);
    } catch (err) {
      showError(err);
      return;
    }
    renderTopbar({ title: res.name });
    const w = res.wangzhongwang;
    // 反向博钱 (RULES.md §9.3): a column of what each person pays into the kitty
    const paying = res.people.some((/** @type {any} */ p) => "pays" in p);
    const ranked = Boolean(ev.rules && ev.rules.award === "ranked");
    const personRow = (/** @type {Record<string, any>} */ p, /** @type {boolean} */ withTable) =>
      h(
        "tr",
        { dataset: { name: p.name } },
        withTable ? h("td", {}, tableLabel(p.table)) : null,
        h("th", { scope: "row" }, p.name),
        h(
          "td",
          { class: "ev-prizes" },
          p.prize_counts.length
            ? h(
                "ul",
                { class: "prize-list" },
                p.prize_counts.map((/** @type {Record<string, any>} */ g) =>
                  h("li", {}, prizeText(g, g.count)),
                ),
              )
            : h("span", { class: "hint" }, t("event.nothing")),
        ),
        h(
          "td",
          { class: "num" },
          String(
            p.prizes.reduce(
              (/** @type {number} */ n, /** @type {Record<string, any>} */ x) =>
                n + (Number(x.value) || 0),
              0,
            ),
          ),
        ),
        paying ? h("td", { class: "num ev-pays" }, String(p.pays || 0)) : null,
        h("td", { class: "ev-tick", "aria-hidden": "true" }, "☐"),
      );
    const head = (/** @type {boolean} */ withTable) =>
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          withTable ? h("th", {}, t("event.col.table")) : null,
          h("th", {}, t("event.col.name")),
          h("th", {}, t("event.col.prizes")),
          h("th", {}, t("event.col.value")),
          paying ? h("th", {}, t("event.col.pays")) : null,
          h("th", {}, t("event.col.handed")),
        ),
      );
    const byTable = res.tables.map((/** @type {Record<string, any>} */ tb) =>
      h(
        "section",
        { class: "card ev-desk", dataset: { table: tb.number } },
        h(
          "h3",
          { class: "sub-title" },
          tableLabel(tb.number),
          " · ",
          tb.zhuangyuan
            ? t(ranked ? "event.table_first" : "event.table_zhuangyuan", {
                player: tb.zhuangyuan.player,
                hand: tb.zhuangyuan.dice
                  ? handName(classify(tb.zhuangyuan.dice, ev.rules))
                  : tierName("zhuangyuan"),
              })
            : t("event.no_winner"),
        ),
        h(
          "div",
          { class: "table-scroll" },
          h(
            "table",
            { class: "results ev-results" },
            head(false),
            h(
              "tbody",
              {},
              res.people
                .filter((/** @type {Record<string, any>} */ p) => p.table === tb.number)
                .map((/** @type {any} */ p) => personRow(p, false)),
            ),
          ),
        ),
        tb.shared && tb.shared.length
          ? h(
              "p",
              { class: "ev-shared" },
              t("event.shared_zhuangyuan", {
                items: tb.shared
                  .map(
                    (/** @type {Record<string, any>} */ u) =>
                      `${u.name || tierName(u.tier)} ×${u.count}`,
                  )
                  .join(t("list.sep")),
                n: tb.shared[0].players,
              }),
            )
          : null,
        tb.kitty != null
          ? h("p", { class: "ev-kitty" }, t("event.table_kitty", { n: tb.kitty }))
          : null,
        tb.unclaimed && tb.unclaimed.length
          ? h(
              "p",
              { class: "hint" },
              t("event.unclaimed", {
                items: tb.unclaimed
                  .map(
                    (/** @type {Record<string, any>} */ u) =>
                      `${u.name || tierName(u.tier)} ×${u.count}`,
                  )
                  .join(t("list.sep")),
              }),
            )
          : null,
      ),
    );
    // the server's name order (bobing/gatherings/collation.py), the downloads' order too
    const byName = new Map(res.people.map((/** @type {Record<string, any>} */ p) => [p.name, p]));
    const sorted = res.by_name.map((/** @type {any} */ name) => byName.get(name));
    mount(
      this.main,
      h(
        "div",
        { class: "ev-page ev-results-page" },
        h("div", { class: "no-print" }, eventNav(res.code, "results")),
        h(
          "header",
          { class: "ev-head" },
          h("h1", { class: "title" }, t("event.results_title", { name: res.name })),
          h(
            "div",
            { class: "btn-row no-print" },
            h(
              "button",
              { type: "button", class: "btn btn-primary btn-small", onclick: () => window.print() },
              t("event.print"),
            ),
            h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost btn-small",
                id: "ev-csv",
                onclick: () => this.download("csv"),
              },
              t("event.download_csv"),
            ),
            h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost btn-small",
                id: "ev-xlsx",
                onclick: () => this.download("xlsx"),
              },
              t("event.download_xlsx"),
            ),
            h(
              "a",
              {
                href: `/e/new?from=${res.code}`,
                "data-link": "",
                class: "btn btn-ghost btn-small",
              },
              t("event.next_year"),
            ),
          ),
        ),
        // a one-table event has no 王中王: no empty card saying so
        w || ev.tables.length > 1
          ? h(
              "section",
              { class: "ceremony ev-results-champion" },
              h("h2", { class: "seal" }, t("event.wangzhongwang")),
              w
                ? [
                    h("p", { class: "winner-name" }, w.player),
                    h("p", { class: "winner-hand" }, handName(classify(w.dice, ev.rules))),
                  ]
                : h("p", { class: "winner-name none" }, t("event.no_champion")),
            )
          : null,
        sessionsResults(res),
        h("h2", { class: "sub-title" }, t("event.by_table")),
        byTable,
        h(
          "section",
          { class: "card ev-desk ev-by-name" },
          h("h2", { class: "sub-title" }, t("event.by_name")),
          h(
            "div",
            { class: "table-scroll" },
            h(
              "table",
              { class: "results ev-results" },
              head(true),
              h(
                "tbody",
                {},
                sorted.map((/** @type {any} */ p) => personRow(p, true)),
              ),
            ),
          ),
        ),
        moneyCard(res.money),
        yearsSection(lineage.years, "card"), // 历届 (RULES.md §10.3)
      ),
    );
  }

  /**
   * @param {string} ext
   */
  async download(ext) {
    try {
      const response = await eventApi.download(this.code, ext);
      download(await response.blob(), `bobing-event-${this.code}.${ext}`);
    } catch (err) {
      showError(err);
    }
  }
}
