// Ranked tables (RULES.md §8.2, award = ranked): one prize per person, by their best throw.
// The live leaderboard (best throw and the prize it holds now), the prize list, the results
// table and the prize-giving ceremony (lowest prize first, the top prize last). The server's
// `result.ranking` decides everything; this only shows it.

import { h, mount, sleep, reducedMotion, enterOnce } from "./dom.js";
import { t, num } from "./i18n.js";
import { diceRow } from "./dice.js";
import { classify, handName } from "./rulebook.js";
import { announce } from "./ui.js";
import { chime, gong } from "./sound.js";

/**
 * Whether a table plays ranked prizes.
 * @param {import("./protocol.js").TableState | Record<string, any>} state
 */
export function isRanked(state) {
  return Boolean(state && state.rules && state.rules.award === "ranked");
}

/**
 * The prize list one unit per entry, best first: [{name, value, index}] (RULES.md §8.2).
 * @param {import("./rulebook.js").Rules} rules
 */
export function prizeUnits(rules) {
  const units = [];
  for (const prize of (rules && rules.ranked_prizes) || []) {
    for (let i = 0; i < prize.count; i++)
      units.push({ name: prize.name, value: prize.value ?? null, index: units.length });
  }
  return units;
}

/**
 * The ranking with each row's prize unit (value included), in rank order.
 * @param {Record<string, any>} state  a table's state, or {rules, result}
 */
export function rankingRows(state) {
  const units = prizeUnits(state.rules);
  const ranking = (state.result && state.result.ranking) || [];
  return ranking.map((/** @type {Record<string, any>} */ row, /** @type {number} */ i) => ({
    ...row,
    rank: i + 1,
    unit: row.prize ? units[i] || null : null,
  }));
}

/**
 * A throw's name for the leaderboard: 四红带三, 二举, 无 …; "—" for no counted throw.
 * @param {Record<string, any>} row
 * @param {import("./rulebook.js").Rules} rules
 */
export function bestName(row, rules) {
  if (!row.dice) return t("ranked.no_throw");
  return handName(classify(row.dice, rules));
}

/**
 * @param {import("./protocol.js").TableState} state
 * @param {Record<string, any>} row
 * @param {string | null} me
 */
function rowBadges(state, row, me) {
  const isNext = state.next === row.player;
  const sitsOut = (state.skipping || []).includes(row.player);
  return [
    isNext
      ? h("span", { class: "turn-dot", role: "img", "aria-label": t("play.their_turn") })
      : null,
    row.player === me ? h("span", { class: "badge" }, t("lobby.you")) : null,
    sitsOut
      ? h(
          "span",
          { class: "badge badge-muted sits-out-badge", title: t("play.sits_out_hint") },
          t("play.sits_out"),
        )
      : null,
  ];
}

/**
 * The live leaderboard: rank, player, best throw, the prize it holds now.
 * @param {import("./protocol.js").TableState} state
 * @param {{me?: string | null, compact?: boolean}} [options]
 */
export function leaderboard(state, { me = null, compact = false } = {}) {
  const rows = rankingRows(state);
  return h(
    "ol",
    { class: `ranking${compact ? " ranking-compact" : ""}`, "aria-label": t("ranked.leaderboard") },
    rows.map((/** @type {Record<string, any>} */ row) =>
      h(
        "li",
        {
          class: [
            "rank-row",
            state.next === row.player ? "is-next" : "",
            row.player === me ? "is-me" : "",
            row.unit ? "has-prize" : "",
            row.dice ? "" : "no-throw",
          ].join(" "),
          "data-player": row.player,
        },
        h(
          "span",
          { class: "rank-no", "aria-label": t("ranked.rank", { n: row.rank }) },
          String(row.rank),
        ),
        h(
          "span",
          { class: "rank-who" },
          h("span", { class: "rank-name" }, row.player),
          rowBadges(state, row, me),
        ),
        h(
          "span",
          { class: "rank-best" },
          row.dice ? diceRow(row.dice, { size: "rank" }) : null,
          h("span", { class: "rank-hand" }, bestName(row, state.rules)),
          row.throw
            ? h("span", { class: "hint rank-throw" }, t("play.at_throw", { n: row.throw }))
            : null,
        ),
        h("span", { class: "rank-prize" }, row.unit ? row.unit.name : t("ranked.no_prize")),
      ),
    ),
  );
}

/**
 * The prize list (best first) with how many of each and who holds them now.
 * @param {Record<string, any>} state  a table's state, or {rules}
 */
export function prizeList(state) {
  const holders = new Map();
  for (const row of rankingRows(state)) {
    if (row.unit) holders.set(row.unit.index, row.player);
  }
  const out = [];
  let index = 0;
  for (const prize of state.rules.ranked_prizes || []) {
    const who = [];
    for (let i = 0; i < prize.count; i++, index++)
      if (holders.has(index)) who.push(holders.get(index));
    out.push(
      h(
        "li",
        { class: "ranked-prize" },
        h("span", { class: "ranked-prize-name" }, prize.name),
        prize.count > 1 ? h("span", { class: "pool-of" }, ` ×${prize.count}`) : null,
        prize.value
          ? h(
              "span",
              { class: "hint" },
              ` · ${t("end.value")} ${t("money.yuan", { n: prize.value })}`,
            )
          : null,
        h(
          "span",
          { class: "ranked-prize-who" },
          who.length ? who.join(t("list.sep")) : t("ranked.unclaimed"),
        ),
      ),
    );
  }
  return h("ul", { class: "ranked-prizes", "aria-label": t("ranked.prizes") }, out);
}

/**
 * A sentence for the lobby and the rules summary: N prizes, the top one, rounds.
 * @param {import("./protocol.js").TableState} state
 */
export function rankedSummary(state) {
  const rules = state.rules;
  const units = prizeUnits(rules);
  const parts = [t("ranked.summary", { n: units.length, top: units.length ? units[0].name : "—" })];
  if (rules.rounds) parts.push(t("ranked.rounds", { n: num(rules.rounds) }));
  return parts.join(t("list.sentence"));
}

/**
 * The results of a ranked table: rank, player, best throw, prize, value.
 * @param {import("./protocol.js").TableState} state
 */
export function rankingTable(state) {
  const rows = rankingRows(state);
  const hasValue = rows.some(
    (/** @type {Record<string, any>} */ row) => row.unit && row.unit.value,
  );
  return h(
    "div",
    { class: "table-scroll" },
    h(
      "table",
      { class: "results ranking-results" },
      h("caption", { class: "sr-only" }, t("end.results")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("ranked.rank_col")),
          h("th", { scope: "col" }, t("play.player")),
          h("th", { scope: "col" }, t("ranked.best")),
          h("th", { scope: "col" }, t("ranked.prize")),
          hasValue ? h("th", { scope: "col" }, t("end.value")) : null,
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((/** @type {Record<string, any>} */ row) =>
          h(
            "tr",
            { class: row.rank === 1 && row.unit ? "is-winner" : "" },
            h("td", { class: "rank-no" }, String(row.rank)),
            h("th", { scope: "row" }, row.player),
            h(
              "td",
              { class: "rank-best" },
              row.dice ? diceRow(row.dice, { size: "xs" }) : null,
              " ",
              bestName(row, state.rules),
            ),
            h("td", { class: "rank-prize" }, row.unit ? row.unit.name : "—"),
            hasValue
              ? h(
                  "td",
                  { class: "value" },
                  row.unit && row.unit.value ? t("money.yuan", { n: row.unit.value }) : "",
                )
              : null,
          ),
        ),
      ),
    ),
  );
}

/**
 * The prize-giving ceremony: every awarded prize, the lowest first and the top prize last.
 * Live, the prizes are called one by one (a tap on "all at once" skips ahead); after a reload
 * or with reduced motion they are all shown.
 */
export class PrizeCeremony {
  /**
   * @param {import("./protocol.js").TableState} state
   */
  constructor(state, { live = false, big = false } = {}) {
    this.state = state;
    this.rows = rankingRows(state)
      .filter((/** @type {Record<string, any>} */ row) => row.unit)
      .reverse();
    this.items = this.rows.map((/** @type {any} */ row, /** @type {number} */ i) =>
      this.item(row, i === this.rows.length - 1),
    );
    this.reason = h("p", { class: "end-reason" });
    this.skip = h(
      "button",
      {
        type: "button",
        class: "btn btn-ghost btn-small ceremony-skip",
        onclick: () => this.showAll(),
      },
      t("ranked.show_all"),
    );
    this.el = h(
      "section",
      {
        class: `ceremony prize-ceremony${big ? " tv-ceremony" : ""}`,
        "aria-labelledby": "prize-ceremony-title",
      },
      h(
        "div",
        { class: "lanterns", "aria-hidden": "true" },
        h("span", { class: "lantern l1" }),
        h("span", { class: "lantern l2" }),
      ),
      h("p", { class: "eyebrow" }, state.name),
      // its screen is painted again on every update: the seal rises in once
      enterOnce(h("h1", { id: "prize-ceremony-title", class: "seal" }, t("ranked.ceremony"))),
      this.rows.length
        ? h("ol", { class: "prize-calls", reversed: true }, this.items)
        : h("p", { class: "winner-name none" }, t("ranked.nobody")),
      this.rows.length && live && !reducedMotion() ? this.skip : null,
      this.reason,
    );
    this.cancelled = false;
    if (live && !reducedMotion()) this.play();
    else this.showAll(false);
  }

  /**
   * @param {Record<string, any>} row
   * @param {boolean} top
   */
  item(row, top) {
    return h(
      "li",
      { class: `prize-call${top ? " is-top" : ""}`, "data-rank": String(row.rank) },
      h("span", { class: "prize-call-prize" }, row.unit.name),
      h("span", { class: "prize-call-who" }, row.player),
      h(
        "span",
        { class: "prize-call-best" },
        row.dice ? diceRow(row.dice, { size: top ? "md" : "xs" }) : null,
        " ",
        bestName(row, this.state.rules),
      ),
    );
  }

  async play() {
    await sleep(600); // the ceremony is on the screen before the first prize is called
    for (let i = 0; i < this.items.length && !this.cancelled; i++) {
      const top = i === this.items.length - 1;
      if (top) await sleep(900); // a breath before the top prize
      if (this.cancelled) return;
      this.reveal(i, true);
      await sleep(top ? 0 : 1100);
    }
    this.skip.hidden = true;
  }

  /**
   * Say why the session ended (under the prizes).
   * @param {string} text
   */
  setReason(text) {
    this.reason.textContent = text;
  }

  /**
   * @param {number} i
   * @param {boolean} sound
   */
  reveal(i, sound) {
    const el = this.items[i];
    if (el.classList.contains("is-shown")) return;
    el.classList.add("is-shown");
    const row = this.rows[i];
    announce(t("ranked.call", { prize: row.unit.name, player: row.player }));
    if (sound) (i === this.items.length - 1 ? gong : chime)(2);
  }

  showAll(sound = true) {
    this.cancelled = true;
    for (let i = 0; i < this.items.length; i++) {
      if (!this.items[i].classList.contains("is-shown")) this.items[i].classList.add("is-shown");
    }
    this.skip.hidden = true;
    if (sound && this.items.length) gong();
  }

  destroy() {
    this.cancelled = true;
  }
}

/**
 * Replace the content of `box` with the leaderboard card (play view and big screen).
 * @param {any} box
 * @param {import("./protocol.js").TableState} state
 * @param {{me?: string | null, compact?: boolean}} [options]
 */
export function paintLeaderboard(box, state, { me = null, compact = false } = {}) {
  mount(
    box,
    h("h2", { class: "card-title" }, t("ranked.leaderboard")),
    state.rules.rounds
      ? h(
          "p",
          { class: "hint ranked-rounds" },
          t("ranked.round_of", {
            n: (state.result && state.result.round) || 1,
            of: state.rules.rounds,
          }),
        )
      : null,
    leaderboard(state, { me, compact }),
  );
}

/**
 * What one throw did at a ranked table: a new best (and the prize it holds now), or not.
 * @param {Record<string, any>} thrown
 * @param {import("./protocol.js").TableState} state
 */
export function rankedLines(thrown, state) {
  const row = rankingRows(state).find(
    (/** @type {Record<string, any>} */ r) => r.player === thrown.player,
  );
  if (!row) return [];
  if (row.throw === thrown.throw) {
    return [
      row.unit
        ? t("ranked.new_best_prize", { player: row.player, rank: row.rank, prize: row.unit.name })
        : t("ranked.new_best", { player: row.player, rank: row.rank }),
    ];
  }
  return [t("ranked.not_better", { player: row.player, best: bestName(row, state.rules) })];
}
