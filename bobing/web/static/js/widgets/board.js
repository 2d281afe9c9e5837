// The table's board as the phone and the big screen both draw it: the cakes left per tier, each
// player's cakes, which throw the bowl shows, and why a table plays on for the 状元 alone.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { PHASE, STATUS, TIERS } from "../protocol.js";
import { tierName } from "../rulebook.js";
import { cakes } from "../award.js";

/** @typedef {Record<string, any>} State a table's state as the server sends it (protocol.js
 * TableState; read here field by field, its result and rules as they come) */

/**
 * Which throw the bowl shows: its number and faces (an undone throw's number comes again).
 * @param {{throw?: number, dice?: string | null} | Record<string, any> | null | undefined} thrown
 */
export function shownKey(thrown) {
  return thrown ? `${thrown.throw}:${thrown.dice || "-"}` : "";
}

/** A tier's short name (a column's head). @param {string} tier */
export function tierShort(tier) {
  return t(`tier.short.${tier}`);
}

/** The pool of cakes left per tier (with named prizes). @param {State} state */
export function poolView(state) {
  const pool = (state.result && state.result.pool) || state.rules.prizes || {};
  const total = state.rules.prizes || {};
  const named = state.named_prizes || {};
  return h(
    "ul",
    { class: "pool", "aria-label": t("play.pool") },
    TIERS.filter((tier) => total[tier]).map((tier) =>
      h(
        "li",
        { class: `pool-item tier-${tier}${pool[tier] ? "" : " is-empty"}` },
        h("span", { class: "pool-tier" }, tierName(tier)),
        h(
          "span",
          { class: "pool-count" },
          h("strong", {}, String(pool[tier] ?? 0)),
          h("span", { class: "pool-of" }, `/${total[tier]}`),
        ),
        named[tier] ? h("span", { class: "pool-prize" }, named[tier].name) : null,
      ),
    ),
  );
}

/**
 * The head cells of a table of cakes by tier: the player, each tier's short name (its full
 * name on hover), the total.
 * @param {string[]} tiers
 */
export function tierHeads(tiers) {
  return [
    h("th", { scope: "col" }, t("play.player")),
    tiers.map((tier) =>
      h("th", { scope: "col" }, h("abbr", { title: tierName(tier) }, tierShort(tier))),
    ),
    h("th", { scope: "col" }, t("play.total")),
  ];
}

/**
 * Each player's cakes per tier (a table), the one whose turn it is marked.
 * @param {State} state
 * @param {{me?: string | null}} [options]  `me`: this phone's player, marked too
 */
export function holdingsTable(state, { me = null } = {}) {
  const result = state.result || { holdings: {} };
  const tiers = TIERS.filter((tier) => (state.rules.prizes || {})[tier]);
  const lead = result.zhuangyuan && result.zhuangyuan.player;
  return h(
    "table",
    { class: "holdings" },
    h("caption", { class: "sr-only" }, t("play.holdings")),
    h("thead", {}, h("tr", {}, tierHeads(tiers))),
    h(
      "tbody",
      {},
      (state.players || []).map((/** @type {{seat: number, name: string}} */ p) => {
        const held = (result.holdings || {})[p.name] || {};
        const isNext = state.next === p.name;
        const sitsOut = (state.skipping || []).includes(p.name);
        return h(
          "tr",
          {
            class: [
              isNext ? "is-next" : "",
              p.name === me ? "is-me" : "",
              sitsOut ? "sits-out" : "",
            ].join(" "),
          },
          h(
            "th",
            { scope: "row" },
            h("span", { class: "seat-no small", "aria-hidden": "true" }, String(p.seat)),
            h("span", { class: "holder-name" }, p.name),
            isNext
              ? h("span", { class: "turn-dot", role: "img", "aria-label": t("play.their_turn") })
              : null,
            lead === p.name
              ? h(
                  "span",
                  {
                    class: "crown",
                    title: t("play.leader"),
                    role: "img",
                    "aria-label": t("play.leader"),
                  },
                  "★",
                )
              : null,
            sitsOut
              ? h(
                  "span",
                  { class: "badge badge-muted sits-out-badge", title: t("play.sits_out_hint") },
                  t("play.sits_out"),
                )
              : null,
          ),
          tiers.map((tier) =>
            h("td", { class: held[tier] ? "has" : "zero" }, held[tier] ? String(held[tier]) : "·"),
          ),
          h("td", { class: "total" }, String(cakes(held))),
        );
      }),
    ),
  );
}

/** Why a cake table plays on with nothing left to win but the 状元 (RULES.md §4 step 7, as
 * the server's `only_zhuangyuan_left` says): whose throw ends it, or that this round does. */
/** @param {State} st */
export function onlyZhuangyuanText(st) {
  if (!st.only_zhuangyuan_left || st.closing || st.status === STATUS.OVER) return "";
  if (st.phase !== PHASE.FINAL) return t("play.only_zhuangyuan");
  // 分状元 (RULES.md §9.3): the 状元 is still named, but its cake is the whole table's
  const shared = st.rules && st.rules.zhuangyuan_cake === "shared";
  return t(shared ? "play.only_zhuangyuan_final_shared" : "play.only_zhuangyuan_final");
}
