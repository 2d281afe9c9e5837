// 规则与概率: the exact odds of one throw under a preset's (or a table's) rules, how long a
// game takes for a chosen number of players, and the two charts of a seeded simulation.
//   /odds[/PRESET]   a preset        /t/CODE/odds   the table's own rules
// Numbers come from /api/odds and /api/game-length (docs/protocol.md, "Analysis"); the charts
// are SVG images drawn by the server (/api/charts/{length,seats}.svg).

import { h, mount } from "../dom.js";
import { t, lang, num } from "../i18n.js";
import { getJson } from "../api.js";
import { LatestAfterPause, lengthPath, throwMinutes } from "../game_length.js";
import { TIERS } from "../protocol.js";
import { limits } from "../limits.js";
import { handLabel, tierName } from "../rulebook.js";
import { renderTopbar, icon, showError, errorText, announce } from "../ui.js";

const PRESETS = ["traditional", "modern", "jinhua"];
const ENDINGS = ["exhausted", "liubohong", "liubohei", "biandijin"];
const KICKER_HANDS = ["sihong", "wuzi", "wuhong"];

/** How often, and after how long, a chart that failed to load is asked for again: the server
 *  answers ``busy`` (503) while its analysis worker is taken, and an <img> never retries. */
const CHART_RETRIES = 5;
const CHART_RETRY_MS = 1500;

/**
 * An <img>'s error handler: load the same chart again, waiting longer each time.
 * @param {Record<string, any>} event
 */
function retryChart(event) {
  const img = event.currentTarget;
  const tries = Number(img.dataset.tries || 0);
  if (tries >= CHART_RETRIES) return;
  img.dataset.tries = String(tries + 1);
  const src = img.getAttribute("src");
  setTimeout(
    () => {
      if (img.isConnected) img.setAttribute("src", src);
    },
    CHART_RETRY_MS * 2 ** tries,
  );
}

/**
 * @param {Intl.NumberFormatOptions | undefined} options
 */
function numberFormat(options) {
  return new Intl.NumberFormat(lang() === "en" ? "en" : lang(), options);
}

/**
 * 17,400
 * @param {number} n
 */
export function fmtInt(n) {
  return numberFormat({ maximumFractionDigits: 0 }).format(Math.round(n));
}

/**
 * 37.29%, 0.64%, 0.0021% — two decimals, or two significant digits for the rare ones.
 * @param {number} p
 */
export function fmtPct(p) {
  const x = p * 100;
  if (x === 0) return "0%";
  if (x >= 0.1) return `${x.toFixed(2)}%`;
  return `${Number(x.toPrecision(2))}%`;
}

/**
 * A share within a hand: 16.7%
 * @param {number} p
 */
function fmtShare(p) {
  return `${(p * 100).toFixed(1)}%`;
}

/**
 * The N of "1 in N": 2.7, 64.8, 1,555.
 * @param {number | null | undefined} n
 */
export function fmtOneIn(n) {
  if (n === null || n === undefined) return "—";
  return n < 100 ? n.toFixed(1) : fmtInt(n);
}

/**
 * @param {number} throws
 * @param {number} seconds
 */
function minutes(throws, seconds) {
  const m = throwMinutes(throws, seconds);
  return m < 1 ? "<1" : fmtInt(m);
}

// ---- the page ----------------------------------------------------------------------------------

export class OddsView {
  /**
   * @param {HTMLElement} main
   * @param {{session: import("../session.js").TableSession | null, preset: string,
   *   navigate: (path: string) => void}} options
   */
  constructor(main, { session, preset, navigate }) {
    this.main = main;
    this.session = session;
    this.preset = PRESETS.includes(preset) ? preset : "traditional";
    this.navigate = navigate;
    this.odds = null;
    this.length = null;
    this.lengthError = null;
    this.players = null; // chosen by the user, or null for the default
    this.seconds = null; // chosen by the user, or null for the server's pace
    this.loadingOdds = false;
    this.destroyed = false;
    // the newest game-length question only; typing "12" passes through "1": wait for a pause
    this.lengths = new LatestAfterPause(250, (players) => getJson(this.lengthPath(players)), {
      onAnswer: (length) => {
        this.length = length;
        this.lengthError = null;
        this.lengthDone();
      },
      onError: (err) => {
        this.lengthError = err;
        showError(err);
        this.lengthDone();
      },
    });
    this.lengthBox = h("div", { class: "odds-length-body" });
    this.onUpdate = () => {
      if (
        !this.seenState &&
        /** @type {import("../session.js").TableSession} */ (this.session).state
      ) {
        this.seenState = true;
        this.render();
      }
    };
    if (session) session.addEventListener("update", this.onUpdate);
  }

  destroy() {
    this.lengths.cancel();
    this.destroyed = true;
    if (this.session) this.session.removeEventListener("update", this.onUpdate);
  }

  /**
   * The game-length question about `players` at this table or under this preset.
   * @param {any} players
   */
  lengthPath(players) {
    return this.session
      ? lengthPath({ players, table: this.session.code })
      : lengthPath({ players, rules: this.preset });
  }

  /** The seconds a throw takes: the user's, else the pace the server assumes. */
  pace() {
    return this.seconds ?? (this.length && this.length.seconds_per_throw);
  }

  /** `rules=PRESET` or `table=CODE`. */
  source() {
    return this.session ? `table=${encodeURIComponent(this.session.code)}` : `rules=${this.preset}`;
  }

  defaultPlayers() {
    const st = this.session && this.session.state;
    const seated = st && st.players ? st.players.length : 0;
    const { min_players, max_players, analysis_players } = limits();
    return seated >= min_players ? Math.min(seated, max_players) : analysis_players;
  }

  playerCount() {
    return this.players === null ? this.defaultPlayers() : this.players;
  }

  render() {
    const st = this.session && this.session.state;
    const extra = this.session
      ? [
          h(
            "a",
            {
              href: `/t/${this.session.code}`,
              "data-link": "",
              class: "icon-btn",
              "aria-label": t("nav.back_to_table"),
              title: t("nav.back_to_table"),
            },
            icon("back"),
          ),
        ]
      : [
          h(
            "a",
            {
              href: `/rules/${this.preset}`,
              "data-link": "",
              class: "icon-btn",
              "aria-label": t("nav.rules_general"),
              title: t("nav.rules_general"),
            },
            icon("book"),
          ),
        ];
    renderTopbar({
      title: st ? st.name : t("odds.page_title"),
      conn: this.session ? this.session.status : null,
      extra,
    });
    if (!this.odds) {
      mount(
        this.main,
        h("p", { class: "center-card loading", "aria-busy": "true" }, t("odds.computing")),
      );
      this.loadOdds();
      return;
    }
    mount(this.main, this.page(st));
    if (this.length && this.length.players === this.playerCount()) this.paintLength();
    else this.loadLength();
  }

  async loadOdds() {
    if (this.loadingOdds) return;
    this.loadingOdds = true;
    try {
      this.odds = await getJson(`/api/odds?${this.source()}`);
    } catch (err) {
      this.loadingOdds = false;
      showError(err);
      mount(this.main, h("p", { class: "center-card loading", role: "alert" }, errorText(err)));
      return;
    }
    this.loadingOdds = false;
    if (!this.destroyed) this.render();
  }

  loadLength({ speak = false } = {}) {
    this.speak = speak;
    this.lengthBox.setAttribute("aria-busy", "true");
    this.lengthBox.classList.add("is-busy");
    if (!this.length)
      mount(this.lengthBox, h("p", { class: "hint odds-computing" }, t("odds.computing")));
    this.lengths.ask(this.playerCount(), { now: !speak });
  }

  lengthDone() {
    this.lengthBox.removeAttribute("aria-busy");
    this.lengthBox.classList.remove("is-busy");
    const summary = this.paintLength();
    if (this.speak && summary) announce(summary);
  }

  /**
   * @param {any} n
   */
  setPlayers(n) {
    const value = Math.max(
      limits().min_players,
      Math.min(limits().max_players, Math.round(Number(n)) || this.playerCount()),
    );
    this.players = value;
    if (this.playersInput) this.playersInput.value = String(value);
    this.loadLength({ speak: true });
  }

  /**
   * @param {Record<string, any> | null} st
   */
  page(st) {
    const odds = this.odds;
    const presetTabs = this.session
      ? null
      : h(
          "nav",
          { class: "preset-tabs", "aria-label": t("rules.presets") },
          PRESETS.map((p) =>
            h(
              "a",
              {
                href: `/odds/${p}`,
                "data-link": "",
                class: `tab${p === this.preset ? " is-active" : ""}`,
                "aria-current": p === this.preset ? "page" : null,
              },
              t(`preset.${p}`),
            ),
          ),
        );
    const rulesHref = this.session ? `/t/${this.session.code}/rules` : `/rules/${this.preset}`;
    return h(
      "article",
      { class: "odds-page" },
      h("p", { class: "eyebrow" }, t("odds.page_title")),
      h(
        "h1",
        { class: "title" },
        st ? t("odds.of_table", { name: st.name }) : t(`preset.${this.preset}`),
      ),
      presetTabs,
      h(
        "p",
        { class: "lede" },
        t("odds.intro", { total: fmtInt(odds.total) }),
        " ",
        h("a", { href: rulesHref, "data-link": "", class: "lede-link" }, t("odds.read_rules")),
      ),
      h(
        "div",
        { class: "odds-grid" },
        h("div", { class: "odds-col" }, this.tiersCard(), this.handsCard(), this.kickersCard()),
        h("div", { class: "odds-col" }, this.lengthCard(), this.explainCard()),
      ),
    );
  }

  handsCard() {
    const odds = this.odds;
    const zhuangyuan = new Set(
      odds.zhuangyuan.levels.map((/** @type {Record<string, any>} */ level) => level.hand),
    );
    const rows = Object.entries(odds.hand_odds).map(([hand, share]) =>
      h(
        "tr",
        {
          class: zhuangyuan.has(hand) ? "is-zhuangyuan" : hand === "none" ? "is-none" : null,
          dataset: { hand },
        },
        h("th", { scope: "row" }, hand === "none" ? t("odds.none") : handLabel(hand)),
        h("td", { class: "num" }, fmtInt(share.count)),
        h("td", { class: "num pct" }, fmtPct(share.probability)),
        h("td", { class: "num" }, fmtOneIn(share.one_in)),
      ),
    );
    return h(
      "section",
      { class: "card", "aria-labelledby": "o-hands" },
      h("h2", { id: "o-hands", class: "card-title" }, t("odds.hands_title")),
      h("p", { class: "hint" }, t("odds.hands_hint", { total: fmtInt(odds.total) })),
      h(
        "div",
        { class: "table-scroll" },
        h(
          "table",
          { class: "odds-table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, t("odds.col_hand")),
              h("th", { scope: "col", class: "num" }, t("odds.col_count")),
              h("th", { scope: "col", class: "num" }, t("odds.col_chance")),
              h("th", { scope: "col", class: "num" }, t("odds.col_one_in")),
            ),
          ),
          h("tbody", {}, rows),
          h(
            "tfoot",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "row" }, t("odds.total")),
              h("td", { class: "num" }, fmtInt(odds.total)),
              h("td", { class: "num pct" }, "100%"),
              h("td", {}),
            ),
          ),
        ),
      ),
      h(
        "p",
        { class: "hint" },
        h("span", { class: "zy-swatch", "aria-hidden": "true" }),
        t("odds.zhuangyuan_rows"),
      ),
    );
  }

  tiersCard() {
    const odds = this.odds;
    const tiers = TIERS.filter((tier) => odds.tiers[tier]);
    const top = Math.max(...tiers.map((tier) => odds.tiers[tier].probability), 1e-9);
    // a hand that counts for every tier (六勃红 sweeping the table) is said once, below
    const won = tiers
      .filter((tier) => odds.tiers[tier].count)
      .map((tier) => Object.keys(odds.tiers[tier].sources));
    const sweeps =
      won.length > 1 ? won[0].filter((hand) => won.every((hands) => hands.includes(hand))) : [];
    return h(
      "section",
      { class: "card", "aria-labelledby": "o-tiers" },
      h("h2", { id: "o-tiers", class: "card-title" }, t("odds.tiers_title")),
      h("p", { class: "hint" }, t("odds.tiers_hint")),
      h(
        "ul",
        { class: "tier-odds" },
        tiers.map((tier) => {
          const share = odds.tiers[tier];
          // 状元 comes from several hands; another tier from its own hand, plus any sweep or bonus
          const sources = Object.keys(share.sources);
          const extra = sources.filter((hand) => hand !== tier && !sweeps.includes(hand));
          const from =
            tier === "zhuangyuan"
              ? t("odds.from", { hands: sources.map(handLabel).join(t("list.sep")) })
              : extra.length
                ? t("odds.also", { hands: extra.map(handLabel).join(t("list.sep")) })
                : null;
          return h(
            "li",
            { class: `tier-odd tier-${tier}${share.count ? "" : " is-empty"}`, dataset: { tier } },
            h(
              "div",
              { class: "tier-odd-head" },
              h(
                "span",
                { class: "tier-odd-name" },
                tierName(tier),
                t(`tier.${tier}.title`) === tierName(tier)
                  ? null
                  : h("span", { class: "tier-odd-title" }, t(`tier.${tier}.title`)),
              ),
              h("span", { class: "tier-odd-pct" }, fmtPct(share.probability)),
            ),
            h(
              "div",
              { class: "bar", "aria-hidden": "true" },
              h("span", {
                class: "bar-fill",
                style: { width: `${Math.max(0.6, (100 * share.probability) / top).toFixed(2)}%` },
              }),
            ),
            h(
              "p",
              { class: "tier-odd-meta" },
              share.count ? t("odds.one_in", { n: fmtOneIn(share.one_in) }) : t("odds.never"),
              from && share.count ? ` · ${from}` : null,
            ),
          );
        }),
      ),
      sweeps.length
        ? h(
            "p",
            { class: "hint" },
            t("odds.sweep", { hands: sweeps.map(handLabel).join(t("list.sep")) }),
          )
        : null,
    );
  }

  kickersCard() {
    const odds = this.odds;
    // the 状元 order, best first, as the server ranked it
    const order = [
      ...new Set(
        odds.zhuangyuan.levels.map((/** @type {Record<string, any>} */ level) => level.hand),
      ),
    ];
    const hands = Object.keys(odds.kickers).sort((a, b) => {
      const ia = order.indexOf(a);
      const ib = order.indexOf(b);
      return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
    });
    const groups = hands.map((hand) => {
      const entries = Object.entries(odds.kickers[hand])
        .map(([k, n]) => [Number(k), n])
        .sort((a, b) => b[0] - a[0]);
      const total = entries.reduce((sum, [, n]) => sum + n, 0);
      const top = Math.max(...entries.map(([, n]) => n));
      const label = (/** @type {number} */ k) =>
        KICKER_HANDS.includes(hand)
          ? t(`hand.${hand}.kicker`, { kicker: num(k) })
          : t("odds.kicker_face", { face: k });
      return h(
        "div",
        { class: "kicker-group", dataset: { hand } },
        h(
          "h3",
          { class: "sub-title" },
          handLabel(hand),
          h(
            "span",
            { class: "kicker-total" },
            t("odds.kicker_total", { count: fmtInt(total), n: fmtOneIn(odds.total / total) }),
          ),
        ),
        h(
          "ol",
          { class: "kicker-list" },
          entries.map(([k, n]) =>
            h(
              "li",
              { class: "kicker-row" },
              h("span", { class: "kicker-name" }, label(k)),
              h(
                "span",
                { class: "bar small", "aria-hidden": "true" },
                h("span", {
                  class: "bar-fill gold",
                  style: { width: `${((100 * n) / top).toFixed(2)}%` },
                }),
              ),
              h(
                "span",
                { class: "kicker-count" },
                t(n === 1 ? "odds.kicker_share_one" : "odds.kicker_share", {
                  share: fmtShare(n / total),
                  n: fmtInt(n),
                }),
              ),
            ),
          ),
        ),
      );
    });
    return h(
      "section",
      { class: "card", "aria-labelledby": "o-kickers" },
      h("h2", { id: "o-kickers", class: "card-title" }, t("odds.kickers_title")),
      h(
        "p",
        { class: "hint" },
        t("odds.kickers_hint", {
          count: fmtInt(odds.zhuangyuan.count),
          n: fmtOneIn(odds.zhuangyuan.one_in),
        }),
      ),
      groups.length ? groups : h("p", {}, t("odds.no_kickers")),
    );
  }

  lengthCard() {
    const players = this.playerCount();
    this.playersInput = h("input", {
      id: "odds-players",
      class: "input input-num",
      type: "number",
      inputmode: "numeric",
      min: limits().min_players,
      max: limits().max_players,
      value: String(players),
      onchange: (/** @type {{target: HTMLInputElement}} */ ev) => this.setPlayers(ev.target.value),
    });
    const seconds = (this.secondsInput = h("input", {
      id: "odds-seconds",
      class: "input input-num",
      type: "number",
      inputmode: "numeric",
      min: 1,
      max: 120,
      value: this.pace() ? String(this.pace()) : "",
      onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
        const value = Math.max(
          1,
          Math.min(120, Math.round(Number(ev.target.value)) || this.pace()),
        );
        ev.target.value = String(value);
        this.seconds = value;
        this.paintLength();
      },
    }));
    const step = (/** @type {number} */ delta, /** @type {string} */ key) =>
      h(
        "button",
        {
          type: "button",
          class: "icon-btn small stepper",
          "aria-label": t(key),
          title: t(key),
          onclick: () => this.setPlayers(this.playerCount() + delta),
        },
        delta < 0 ? "−" : "+",
      );
    return h(
      "section",
      { class: "card length-card", "aria-labelledby": "o-length" },
      h("h2", { id: "o-length", class: "card-title" }, t("odds.length_title")),
      h(
        "div",
        { class: "length-controls" },
        h(
          "div",
          { class: "length-field" },
          h("label", { for: "odds-players", class: "field-label" }, t("odds.players")),
          h(
            "div",
            { class: "stepper-row" },
            step(-1, "odds.players_less"),
            this.playersInput,
            step(1, "odds.players_more"),
          ),
        ),
        h(
          "div",
          { class: "length-field" },
          h("label", { for: "odds-seconds", class: "field-label" }, t("odds.seconds")),
          seconds,
        ),
      ),
      this.lengthBox,
    );
  }

  /** Draw the game-length numbers and charts; returns the summary sentence. */
  paintLength() {
    const data = this.length;
    if (!data) {
      if (this.lengthError)
        mount(
          this.lengthBox,
          h("p", { class: "hint", role: "alert" }, errorText(this.lengthError)),
        );
      return null;
    }
    const sim = data.simulation;
    const exact = data.exact;
    const secs = this.pace();
    if (this.secondsInput && this.seconds === null) this.secondsInput.value = String(secs);
    const meanThrows = exact ? exact.throws_mean : sim.throws.mean;
    const meanRounds = exact ? exact.rounds_mean : sim.rounds.mean;
    const ended = exact ? exact.ended_by : sim.ended_by;
    const first = exact ? exact.exhausted_before_zhuangyuan : sim.exhausted_before_zhuangyuan;
    const tile = (
      /** @type {string} */ cls,
      /** @type {import("../dom.js").Child} */ label,
      /** @type {import("../dom.js").Child} */ value,
      /** @type {import("../dom.js").Child} */ sub,
    ) =>
      h(
        "div",
        { class: `stat ${cls}` },
        h("span", { class: "stat-label" }, label),
        h("strong", { class: "stat-value" }, value),
        h("span", { class: "stat-sub" }, sub),
      );
    const endings = ENDINGS.filter((reason) => ended[reason] > 0).map((reason) =>
      h(
        "li",
        { dataset: { reason } },
        h("span", {}, reason === "exhausted" ? t("odds.ended_exhausted") : handLabel(reason)),
        h("strong", {}, fmtPct(ended[reason])),
      ),
    );
    const seats = sim.seats;
    const zy = seats.map((/** @type {Record<string, any>} */ seat) => seat.zhuangyuan_rate);
    const query = `players=${data.players}&${this.source()}&lang=${encodeURIComponent(lang())}`;
    const figure = (
      /** @type {string} */ kind,
      /** @type {string} */ alt,
      /** @type {import("../dom.js").Child} */ caption,
    ) => {
      const src = `/api/charts/${kind}.svg?${query}`;
      return h(
        "figure",
        { class: "chart" },
        // a phone shows the chart small: a tap opens it on its own, to zoom
        h(
          "a",
          {
            href: src,
            target: "_blank",
            rel: "noopener",
            class: "chart-link",
            title: t("odds.chart_open"),
          },
          h("img", {
            src,
            alt,
            width: 700,
            height: 420,
            decoding: "async",
            class: `chart-img chart-${kind}`,
            onerror: retryChart,
          }),
        ),
        h("figcaption", { class: "hint" }, caption),
      );
    };
    const summary = t("odds.length_summary", {
      players: data.players,
      seconds: secs,
      mean: minutes(meanThrows, secs),
      median: minutes(sim.throws.p50, secs),
      low: minutes(sim.throws.p5, secs),
      high: minutes(sim.throws.p95, secs),
      p99: minutes(sim.throws.p99, secs),
    });
    mount(
      this.lengthBox,
      h(
        "div",
        { class: "stats" },
        tile(
          "stat-mean",
          t("odds.mean"),
          t("odds.throws_n", { n: meanThrows.toFixed(1) }),
          t("odds.minutes_n", { n: minutes(meanThrows, secs) }),
        ),
        tile(
          "stat-rounds",
          t("odds.rounds"),
          t("odds.rounds_n", { n: meanRounds.toFixed(1) }),
          t("odds.per_round", { n: ((data.players * secs) / 60).toFixed(1) }),
        ),
        tile(
          "stat-median",
          t("odds.median"),
          t("odds.throws_n", { n: fmtInt(sim.throws.p50) }),
          t("odds.minutes_n", { n: minutes(sim.throws.p50, secs) }),
        ),
        tile(
          "stat-range",
          t("odds.range90"),
          t("odds.range_throws", { a: fmtInt(sim.throws.p5), b: fmtInt(sim.throws.p95) }),
          t("odds.range_minutes", {
            a: minutes(sim.throws.p5, secs),
            b: minutes(sim.throws.p95, secs),
          }),
        ),
      ),
      h("p", { class: "length-summary" }, summary),
      h("h3", { class: "sub-title" }, t("odds.ended_title")),
      h("ul", { class: "endings" }, endings),
      first > 0 ? h("p", { class: "hint" }, t("odds.exhausted_first", { p: fmtPct(first) })) : null,
      figure(
        "length",
        t("odds.chart_length_alt", { players: data.players, mean: meanThrows.toFixed(1) }),
        `${t("odds.chart_length_caption")} ${t("odds.chart_open")}`,
      ),
      figure(
        "seats",
        t("odds.chart_seats_alt", { players: data.players }),
        t("odds.chart_seats_caption", {
          first: seats[0].cakes_mean.toFixed(2),
          last: seats[seats.length - 1].cakes_mean.toFixed(2),
          low: fmtPct(Math.min(...zy)),
          high: fmtPct(Math.max(...zy)),
        }),
      ),
      h(
        "p",
        { class: "hint method" },
        exact
          ? t("odds.method", { games: fmtInt(sim.games) })
          : t("odds.method_sim", { games: fmtInt(sim.games) }),
      ),
    );
    return summary;
  }

  explainCard() {
    const odds = this.odds;
    const yixiu = odds.hand_odds.yixiu;
    const zy = odds.zhuangyuan;
    return h(
      "section",
      { class: "card explain-card", "aria-labelledby": "o-explain" },
      h("h2", { id: "o-explain", class: "card-title" }, t("odds.explain_title")),
      h(
        "p",
        {},
        t("odds.explain_one_in", {
          total: fmtInt(odds.total),
          n: yixiu ? fmtOneIn(yixiu.one_in) : "—",
        }),
      ),
      h("p", {}, t("odds.explain_memory", { n: fmtOneIn(zy.one_in) })),
      h("p", {}, t("odds.explain_length")),
      h("p", {}, t("odds.explain_seats")),
    );
  }
}
