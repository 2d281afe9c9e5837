// The organiser's dashboard (/e/CODE): every table live (throws, cakes left, the 状元 leader,
// whose turn), the feed of notable throws across the hall, start / pause / resume / close one
// table or all, the 状元王中王 once every table is over, and the budget.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { classify, handName } from "../rulebook.js";
import { renderTopbar, showError, toast, confirmDialog, copyText, announce } from "../ui.js";
import {
  EventWatcher,
  eventApi,
  rememberCreated,
  organizerToken,
  feedText,
  tableLabel,
  cakesLeft,
} from "../event.js";
import { saveTable, loadTable } from "../device_store.js";
import { limits } from "../limits.js";
import { qrSvg } from "../qrcode.js";
import { sessionPanel } from "../programme.js";
import { loadInvite, forgetInviteWaiter, inviteNotice, publicUrl } from "../invite.js";
import { statusText, leaderLine, eventNav } from "../widgets/event_nav.js";

export class EventDashboardView {
  /**
   * @param {HTMLElement} main
   * @param {{code: string, navigate: (path: string) => void}} options
   */
  constructor(main, { code, navigate }) {
    this.main = main;
    this.code = code;
    this.navigate = navigate;
    this.watcher = new EventWatcher(code);
    this.onUpdate = () => this.paint();
    this.watcher.addEventListener("update", this.onUpdate);
    loadInvite(this.onUpdate);
    this.throws = 1;
    this.feedSeen = 0;
  }

  destroy() {
    forgetInviteWaiter(this.onUpdate);
    this.watcher.removeEventListener("update", this.onUpdate);
    this.watcher.stop();
  }

  render() {
    if (!this.watcher.event && !this.started) {
      this.started = true;
      mount(
        this.main,
        h(
          "section",
          { class: "center-card loading" },
          h("div", { class: "boot-moon", "aria-hidden": "true" }),
        ),
      );
      this.watcher.start();
      return;
    }
    this.paint();
  }

  get token() {
    return organizerToken(this.code);
  }

  /**
   * What closing does: "none" (no table it closes has thrown yet), "now" (each ends at once:
   * nobody has thrown in its round yet, as the server says) or "round" (a round is played out).
   * @param {number | null} table
   */
  closeKind(table) {
    const ev = this.watcher.event;
    if (!ev) return "round";
    const closing = ev.tables.filter(
      (/** @type {Record<string, any>} */ tb) =>
        (table === null || tb.number === table) && tb.status !== "over",
    );
    if (
      closing.every(
        (/** @type {Record<string, any>} */ tb) => tb.status === "lobby" || !tb.throw_count,
      )
    )
      return "none";
    if (
      closing.every(
        (/** @type {Record<string, any>} */ tb) =>
          tb.status === "lobby" || tb.close_at_once === true,
      )
    )
      return "now";
    return "round";
  }

  /**
   * The close dialog's sentence for that kind, in the table's terms (places or cakes).
   * @param {number | null} table
   */
  closeBody(table) {
    const ev = this.watcher.event;
    const ranked = Boolean(ev && ev.rules && ev.rules.award === "ranked");
    const kind = this.closeKind(table);
    if (kind === "none")
      return t(ranked ? "event.confirm_close_now_ranked" : "event.confirm_close_now");
    if (kind === "now")
      return t(ranked ? "event.confirm_close_at_once_ranked" : "event.confirm_close_at_once");
    return t(ranked ? "event.confirm_close_body_ranked" : "event.confirm_close_body");
  }

  /**
   * @param {string} action
   * @param {number | null} [table]
   */
  async act(action, table = null) {
    try {
      if (action === "close") {
        const ok = await confirmDialog({
          title: table
            ? t("event.confirm_close_one", { table: tableLabel(table) })
            : t("event.confirm_close_all"),
          body: this.closeBody(table),
          yes: t("event.action.close"),
          danger: true,
        });
        if (!ok) return;
      }
      const reply = await eventApi.control(this.code, action, table, this.token);
      toast(t("event.done", { action: t(`event.action.${action}`), n: reply.tables.length }));
      this.watcher.refresh();
    } catch (err) {
      showError(err);
    }
  }

  /**
   * One table's start thrower, chosen before its start dice (RULES.md §9.4).
   * @param {any} number
   * @param {any} value
   */
  async chooseThrower(number, value) {
    try {
      await eventApi.startThrower(this.code, number, value, this.token);
      this.watcher.refresh();
    } catch (err) {
      showError(err);
    }
  }

  /**
   * 签到: tick someone as come, or undo a wrong tick (RULES.md §9.4).
   * @param {any} name
   * @param {any} present
   */
  async checkIn(name, present) {
    try {
      await eventApi.checkIn(this.code, name, present, this.token);
      this.watcher.refresh();
    } catch (err) {
      showError(err);
    }
  }

  /** Seat the people present: the tables are made now, their host tokens kept here. */
  async seat() {
    try {
      const seated = await eventApi.seat(this.code, this.token);
      rememberCreated(seated);
      toast(t("event.checkin.seated", { n: seated.tables.length }));
      this.watcher.refresh();
    } catch (err) {
      showError(err);
    }
  }

  /**
   * @param {Record<string, any>} ev
   * @param {boolean} organiser
   */
  checkInCard(ev, organiser) {
    const door = ev.check_in;
    if (!door) return null;
    const present = new Set(door.present);
    const body = [];
    if (door.open) {
      body.push(
        h("p", { class: "hint" }, t("event.checkin.hint")),
        h(
          "p",
          { class: "ev-checkin-count" },
          t("event.checkin.count", { n: door.present.length, total: ev.people.length }),
        ),
        h(
          "ul",
          { class: "ev-checkin-list" },
          ev.people.map((/** @type {Record<string, any>} */ p) =>
            h(
              "li",
              {},
              h(
                "label",
                { class: "ev-check" },
                h("input", {
                  type: "checkbox",
                  class: "ev-checkin",
                  dataset: { name: p.name },
                  checked: present.has(p.name),
                  disabled: !organiser,
                  onchange: (/** @type {{target: HTMLInputElement}} */ e) =>
                    this.checkIn(p.name, e.target.checked),
                }),
                h(
                  "span",
                  {},
                  p.paid === false ? t("event.checkin.unpaid", { name: p.name }) : p.name,
                ),
              ),
            ),
          ),
        ),
      );
      if (organiser)
        body.push(
          h(
            "button",
            {
              type: "button",
              class: "btn btn-primary",
              id: "ev-seat",
              disabled: door.present.length < limits().min_players,
              onclick: () => this.seat(),
            },
            t("event.checkin.seat", { n: door.present.length }),
          ),
        );
    } else {
      body.push(
        h("p", {}, t("event.checkin.count", { n: door.present.length, total: ev.people.length })),
      );
    }
    if (door.no_shows.length)
      body.push(
        h("p", { class: "field-label" }, t("event.no_shows.title")),
        h(
          "ul",
          { class: "ev-no-shows" },
          door.no_shows.map((/** @type {Record<string, unknown> | undefined} */ p) =>
            h("li", {}, t("event.no_shows.line", p)),
          ),
        ),
      );
    return h(
      "section",
      { class: "card ev-checkin-card", "aria-labelledby": "ev-checkin-title" },
      h("h2", { id: "ev-checkin-title", class: "card-title" }, t("event.checkin.title")),
      body,
    );
  }

  async startPlayoff() {
    try {
      const created = await eventApi.playoff(this.code, this.throws, this.token);
      saveTable(created.code, {
        hostToken: created.host_token,
        ...(created.play_token ? { playToken: created.play_token } : {}),
      });
      toast(t("event.playoff_started"));
      this.watcher.refresh();
    } catch (err) {
      showError(err);
    }
  }

  paint() {
    const ev = this.watcher.event;
    if (!ev) {
      const err = this.watcher.error;
      mount(
        this.main,
        h(
          "section",
          { class: "center-card" },
          h("p", {}, err ? err.detail || err.message : t("event.loading")),
        ),
      );
      return;
    }
    renderTopbar({ title: ev.name });
    const organiser = Boolean(this.token);
    const button = (
      /** @type {string} */ action,
      /** @type {number | null} */ table = null,
      cls = "btn-ghost",
    ) =>
      h(
        "button",
        {
          type: "button",
          class: ["btn", "btn-small", cls],
          dataset: { action, table: table || "all" },
          onclick: () => this.act(action, table),
        },
        t(`event.action.${action}`),
      );
    // on all tables, only the actions that apply to one of them (a finished event has none,
    // nor one still at the door: it has no tables yet)
    const has = (/** @type {string} */ status) =>
      ev.tables.some((/** @type {Record<string, any>} */ tb) => tb.status === status);
    const allButtons = !organiser
      ? h("p", { class: "hint" }, t("event.read_only"))
      : ev.all_over
        ? h("p", { class: "hint ev-all-over" }, t("event.all_over"))
        : !ev.tables.length
          ? null
          : h(
              "div",
              { class: "btn-row ev-all" },
              h("span", { class: "field-label" }, t("event.all_tables")),
              has("lobby") ? button("start", null, "btn-primary") : null,
              has("playing") ? button("pause") : null,
              has("paused") ? button("resume") : null,
              button("close", null, "btn-danger-text"),
            );
    const tables = ev.tables.map((/** @type {Record<string, any>} */ tb) => {
      const actions = [];
      if (organiser) {
        if (tb.status === "lobby") actions.push(button("start", tb.number, "btn-primary"));
        if (tb.status === "playing") actions.push(button("pause", tb.number));
        if (tb.status === "paused") actions.push(button("resume", tb.number));
        if (tb.status !== "over") actions.push(button("close", tb.number, "btn-danger-text"));
      }
      const left = cakesLeft(tb.result);
      const ranked = Boolean(ev.rules && ev.rules.award === "ranked");
      return h(
        "article",
        {
          class: ["card", "ev-table", `ev-${tb.status}`],
          dataset: { table: tb.number, status: tb.status },
          "aria-label": tableLabel(tb.number),
        },
        h(
          "header",
          { class: "ev-table-head" },
          h("h2", { class: "ev-table-no" }, tableLabel(tb.number)),
          h(
            "span",
            { class: ["badge", tb.status === "playing" ? "badge-gold" : "badge-muted"] },
            statusText(tb.status),
          ),
        ),
        h(
          "dl",
          { class: "ev-facts" },
          h("dt", {}, t("event.fact.throws")),
          h("dd", { class: "ev-throws" }, String(tb.throw_count)),
          // a ranked table has no cakes to count down
          ranked ? null : h("dt", {}, t("event.fact.cakes_left")),
          ranked ? null : h("dd", { class: "ev-left" }, left === null ? "—" : String(left)),
          h("dt", {}, t("event.fact.next")),
          h("dd", { class: "ev-next" }, tb.next || "—"),
          h("dt", {}, t("event.fact.claimed")),
          h("dd", {}, `${tb.claimed.length}/${tb.players.length}`),
          tb.start_thrower ? h("dt", {}, t("event.fact.start_thrower")) : null,
          tb.start_thrower ? h("dd", { class: "ev-start-thrower" }, tb.start_thrower) : null,
        ),
        organiser && tb.status === "lobby" && tb.start_thrower
          ? h(
              "label",
              { class: "ev-row ev-thrower-choice" },
              h("span", { class: "field-label" }, t("event.choose_thrower")),
              h(
                "select",
                {
                  class: "input ev-thrower-select",
                  dataset: { table: tb.number },
                  onchange: (/** @type {{target: HTMLInputElement}} */ e) =>
                    this.chooseThrower(tb.number, e.target.value),
                },
                ["first_seat", "leader", "elder"].map((opt) =>
                  h("option", { value: opt }, t(`event.new.start_mode.${opt}`)),
                ),
                tb.players.map((/** @type {import("../dom.js").Child} */ p) =>
                  h("option", { value: p, selected: p === tb.start_thrower }, p),
                ),
              ),
            )
          : null,
        h("p", { class: "ev-leader" }, leaderLine(tb, ev.rules)),
        h(
          "div",
          { class: "btn-row" },
          actions,
          h(
            "a",
            { href: `/t/${tb.code}`, "data-link": "", class: "btn btn-ghost btn-small" },
            t("event.open_table"),
          ),
        ),
        organiser && loadTable(tb.code).hostToken && tb.status !== "over"
          ? h(
              "details",
              { class: "ev-leader-link" },
              h("summary", {}, t("event.leader_qr")),
              h("p", { class: "hint" }, t("event.leader_qr_hint")),
              qrSvg(this.leaderLink(tb), {
                label: t("event.leader_qr_label", { table: tableLabel(tb.number) }),
              }),
              h(
                "button",
                {
                  type: "button",
                  class: "btn btn-ghost btn-small",
                  onclick: () => this.copyLeaderLink(tb),
                },
                t("event.copy_leader_link"),
              ),
            )
          : null,
      );
    });
    const feed = this.watcher.feed;
    if (feed.length > this.feedSeen && feed[0].live) announce(feedText(feed[0]));
    this.feedSeen = feed.length;
    const feedCard = h(
      "section",
      { class: "card ev-feed", "aria-labelledby": "ev-feed-title" },
      h("h2", { id: "ev-feed-title", class: "card-title" }, t("event.feed.title")),
      feed.length
        ? h(
            "ol",
            // a scrolling region: reachable and named for the keyboard
            { class: "ev-feed-list", tabindex: "0", "aria-labelledby": "ev-feed-title" },
            feed.map((item) =>
              h("li", { class: "ev-feed-item", dataset: { hand: item.hand } }, feedText(item)),
            ),
          )
        : h("p", { class: "hint" }, t("event.feed.empty")),
    );
    mount(
      this.main,
      h(
        "div",
        { class: "ev-page ev-dashboard" },
        h(
          "header",
          { class: "ev-head" },
          h("h1", { class: "title" }, ev.name),
          h(
            "p",
            { class: "lede" },
            [
              ev.date,
              t("event.code_line", { code: ev.code }),
              t("event.people_line", { n: ev.people.length, tables: ev.tables.length }),
            ]
              .filter(Boolean)
              .join(" · "),
          ),
          eventNav(ev.code, "dashboard"),
          inviteNotice(),
          ev.organizers && ev.organizers.length
            ? h(
                "p",
                { class: "ev-organizers" },
                t("event.organizers", { names: ev.organizers.join(t("list.sep")) }),
              )
            : null,
          allButtons,
          organiser ? this.nextSteps(ev) : null,
          organiser
            ? h(
                "button",
                {
                  type: "button",
                  class: "btn btn-ghost btn-small",
                  onclick: () => this.copyOrganizerLink(),
                },
                t("event.copy_organizer_link"),
              )
            : null,
        ),
        sessionPanel(ev, {
          token: this.token,
          // the new tables' host tokens stay on this device, as on create (the 组长 QR codes)
          onStarted: (started) => {
            rememberCreated({ tables: started.tables });
            this.watcher.refresh();
          },
        }),
        this.checkInCard(ev, organiser),
        h("div", { class: "ev-grid" }, tables),
        h(
          "div",
          { class: "ev-side" },
          // one table has no 王中王 to play
          ev.tables.length > 1 ? this.playoffCard(ev, organiser) : null,
          feedCard,
          this.budgetCard(ev),
        ),
      ),
    );
  }

  /**
   * What comes next after creating the event, until a table starts: (check in,) print the
   * cards, hand out the 组长 QR codes, start.
   * @param {Record<string, any>} ev
   */
  nextSteps(ev) {
    if (
      ev.all_over ||
      ev.tables.some((/** @type {Record<string, any>} */ tb) => tb.status !== "lobby")
    )
      return null;
    const door = ev.check_in && ev.check_in.open;
    const here = ev.tables.some(
      (/** @type {Record<string, any>} */ tb) => loadTable(tb.code).hostToken,
    );
    const label = t("event.leader_qr");
    return h(
      "section",
      { class: "ev-steps", "aria-labelledby": "ev-steps-title" },
      h("h2", { id: "ev-steps-title", class: "field-label" }, t("event.next.title")),
      h(
        "ol",
        { class: "ev-steps-list" },
        door ? h("li", {}, t("event.next.check_in", { label: t("event.checkin.title") })) : null,
        h(
          "li",
          { class: "ev-steps-cards" },
          t("event.next.cards"),
          " ",
          h(
            "a",
            { href: `/e/${ev.code}/cards`, "data-link": "", class: "btn btn-ghost btn-small" },
            t("event.nav.cards"),
            " →",
          ),
        ),
        h(
          "li",
          {},
          here
            ? t("event.next.leader_qr", { label })
            : t("event.next.leader_qr_elsewhere", { label }),
        ),
        h(
          "li",
          {},
          t("event.next.start", {
            all: t("event.all_tables").replace(/[:：]$/, ""),
            start: t("event.action.start"),
          }),
        ),
      ),
    );
  }

  /**
   * The 组长's link: the table with its host token in the fragment (never sent to the server).
   * @param {Record<string, any>} tb
   */
  leaderLink(tb) {
    return publicUrl(`/t/${tb.code}#host=${loadTable(tb.code).hostToken}`);
  }

  /**
   * @param {Record<string, any>} tb
   */
  async copyLeaderLink(tb) {
    await copyText(this.leaderLink(tb));
    toast(t("event.leader_link_copied", { table: tableLabel(tb.number) }));
  }

  async copyOrganizerLink() {
    await copyText(publicUrl(`/e/${this.code}#o=${this.token}`));
    toast(t("event.organizer_link_copied"));
  }

  /**
   * @param {Record<string, any>} ev
   * @param {boolean} organiser
   */
  playoffCard(ev, organiser) {
    const p = ev.playoff;
    const body = [];
    if (p) {
      body.push(
        h(
          "p",
          {},
          t("event.playoff_status", {
            status: statusText(p.status),
            players: p.players.join(t("list.sep")),
          }),
        ),
      );
      const first = p.result && p.result.ranking && p.result.ranking[0];
      if (p.status === "over" && first && first.dice) {
        body.push(
          h(
            "p",
            { class: "ev-champion" },
            t("event.champion", {
              player: first.player,
              hand: handName(classify(first.dice, ev.rules)),
            }),
          ),
        );
      }
      body.push(
        h(
          "a",
          { href: `/t/${p.code}`, "data-link": "", class: "btn btn-ghost btn-small" },
          t("event.open_playoff"),
        ),
      );
    } else if (ev.all_over) {
      body.push(
        h(
          "p",
          {},
          t("event.playoff_field", { players: ev.playoff_field.join(t("list.sep")) || "—" }),
        ),
      );
      if (organiser && ev.playoff_field.length >= limits().min_players) {
        body.push(
          h(
            "div",
            { class: "ev-row" },
            h("label", { for: "ev-throws", class: "field-label" }, t("event.playoff_throws")),
            h("input", {
              id: "ev-throws",
              class: "input input-num",
              type: "number",
              min: 1,
              max: limits().max_playoff_throws,
              value: this.throws,
              oninput: (/** @type {{target: HTMLInputElement}} */ e) =>
                (this.throws = Number(e.target.value) || 1),
            }),
            h(
              "button",
              {
                type: "button",
                class: "btn btn-primary",
                id: "ev-playoff-start",
                onclick: () => this.startPlayoff(),
              },
              t("event.playoff_start"),
            ),
          ),
        );
      }
    } else {
      body.push(h("p", { class: "hint" }, t("event.playoff_wait")));
    }
    return h(
      "section",
      { class: "card ev-playoff", "aria-labelledby": "ev-playoff-title" },
      h("h2", { id: "ev-playoff-title", class: "card-title" }, t("event.playoff_title")),
      body,
    );
  }

  /**
   * @param {Record<string, any>} ev
   */
  budgetCard(ev) {
    const b = ev.budget;
    const row = (/** @type {string} */ key, /** @type {string} */ value) =>
      h(
        "div",
        { class: "ev-money-row" },
        h("span", {}, t(`event.budget.${key}`)),
        h("span", { class: "num" }, String(value)),
      );
    return h(
      "section",
      { class: "card ev-budget", "aria-labelledby": "ev-budget-title" },
      h("h2", { id: "ev-budget-title", class: "card-title" }, t("event.budget.title")),
      row(
        "income",
        t("event.budget.income_line", { n: b.people, each: b.contribution, total: b.income }),
      ),
      b.fixed_costs.map((/** @type {Record<string, any>} */ c) =>
        row("cost", `${c.name} ${c.amount}`),
      ),
      row("prizes", b.prizes),
      (b.donated_sets || []).map((/** @type {Record<string, any>} */ d) =>
        h("p", { class: "ev-donated-set" }, t("event.budget.donated", { name: d.name, n: d.sets })),
      ),
      row("spent", b.spent),
      h(
        "p",
        { class: b.deficit > 0 ? "ev-deficit" : "ev-surplus" },
        b.deficit > 0
          ? t("event.budget.deficit", { n: b.deficit })
          : b.surplus_use === "refund"
            ? t("event.budget.surplus_refund", {
                n: b.surplus,
                people: (b.refunds || []).filter(
                  (/** @type {Record<string, any>} */ r) => !r.no_show,
                ).length,
              })
            : t("event.budget.surplus", { n: b.surplus }),
      ),
      b.refunds && b.refunds.length
        ? h(
            "ul",
            { class: "ev-refunds" },
            b.refunds.map((/** @type {Record<string, unknown>} */ r) =>
              h(
                "li",
                {},
                t(r.no_show ? "event.budget.refund_no_show" : "event.budget.refund_line", r),
              ),
            ),
          )
        : null,
    );
  }
}
