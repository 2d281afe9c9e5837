// A finished table's results as the phone's end screen and the big screen both show them: why
// the game ended, and each player's cakes, their value and what they pay.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { TIERS } from "../protocol.js";
import { cakes } from "../award.js";
import { isRanked } from "../ranked.js";
import { tierHeads } from "./board.js";

/** @typedef {Record<string, any>} State a table's state as the server sends it (protocol.js TableState) */

/** Why the game ended, in words. @param {State} state */
export function endReason(state) {
  if (state.end_reason === "host") return t("end.by_host");
  const by = state.result && state.result.ended_by;
  const called = state.closing
    ? t(state.closing.by === "deadline" ? "end.time_up" : "end.host_called")
    : "";
  // a ranked table has no cakes left on it: called time gives the prizes by the places then
  const why = by === "closed" && isRanked(state) ? t("end.by.closed_ranked") : t(`end.by.${by}`);
  if (by === "closed" || (called && by === "exhausted"))
    return [called, why].filter(Boolean).join(t("list.sentence"));
  return by ? t(`end.by.${by}`) : "";
}

/**
 * Value of a player's cakes under the named prizes.
 * @param {Record<string, number> | null | undefined} held  cakes by tier
 * @param {Record<string, {value?: number} | undefined>} named  the named prizes by tier
 */
export function prizeValue(held, named) {
  let value = 0;
  for (const [tier, n] of Object.entries(held || {}))
    value += n * ((named[tier] && named[tier].value) || 0);
  return value;
}

/** Each player's cakes, their value and what they pay. @param {State} state */
export function resultsTable(state) {
  const result = state.result || { holdings: {} };
  const named = state.named_prizes || {};
  const hasValue = Object.values(named).some((p) => p && p.value);
  const tiers = TIERS.filter((tier) => (state.rules.prizes || {})[tier]);
  const z = result.zhuangyuan;
  // RULES.md §9.3: 反向博钱 (who pays what into the kitty) and 分状元, when the rules say so.
  const pays = result.payments ? result.payments.players : null;
  /** @type {{p: {seat: number, name: string}, held: Record<string, number>, total: number, value: number}[]} */
  const rows = (state.players || []).map((/** @type {{seat: number, name: string}} */ p) => {
    const held = (result.holdings || {})[p.name] || {};
    return { p, held, total: cakes(held), value: prizeValue(held, named) };
  });
  return h(
    "div",
    // focusable: a keyboard can scroll a table wider than the phone (axe, issue 20)
    { class: "table-scroll", tabindex: "0" },
    h(
      "table",
      { class: "results" },
      h("caption", { class: "sr-only" }, t("end.results")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          tierHeads(tiers),
          hasValue ? h("th", { scope: "col" }, t("end.value")) : null,
          pays ? h("th", { scope: "col" }, t("end.pays")) : null,
        ),
      ),
      h(
        "tbody",
        {},
        rows.map(({ p, held, total, value }) =>
          h(
            "tr",
            { class: z && z.player === p.name ? "is-winner" : "" },
            h(
              "th",
              { scope: "row" },
              h("span", { class: "seat-no small", "aria-hidden": "true" }, String(p.seat)),
              p.name,
              z && z.player === p.name
                ? h(
                    "span",
                    { class: "crown", role: "img", "aria-label": t("tier.zhuangyuan") },
                    "★",
                  )
                : null,
            ),
            tiers.map((tier) =>
              h(
                "td",
                { class: held[tier] ? "has" : "zero" },
                held[tier] ? String(held[tier]) : "·",
              ),
            ),
            h("td", { class: "total" }, String(total)),
            hasValue ? h("td", { class: "value" }, String(value)) : null,
            pays ? h("td", { class: "pays" }, String(pays[p.name] ?? 0)) : null,
          ),
        ),
      ),
    ),
    result.zhuangyuan_cake === "shared"
      ? h(
          "p",
          { class: "hint" },
          t("result.zhuangyuan_shared", { n: (state.players || []).length }),
        )
      : null,
    result.payments
      ? h(
          "p",
          { class: "hint" },
          t("result.pays", {
            list: Object.entries(pays)
              .map(([player, amount]) => t("result.pays_one", { player, amount }))
              .join(t("list.sep")),
            kitty: result.payments.kitty,
          }),
        )
      : null,
  );
}

/**
 * The results of every set (一二会, RULES.md §10.2), each under its own heading, then what each
 * person takes home over them all (the server's `totals`); one set: the one table.
 * @param {State} state
 */
export function setsResults(state) {
  const result = state.result;
  if (!result || !Array.isArray(result.sets)) return resultsTable(state);
  const all = [...result.sets, result];
  return h(
    "div",
    { class: "set-results" },
    all.map((one, i) =>
      h(
        "div",
        { class: "set-result", "data-set": String(i + 1) },
        h("h3", { class: "set-title" }, t("end.set_n", { n: i + 1 })),
        resultsTable({ ...state, result: one }),
      ),
    ),
    h(
      "div",
      { class: "set-result", "data-set": "total" },
      h("h3", { class: "set-title" }, t("end.sets_total")),
      resultsTable({ ...state, result: { holdings: result.totals || {}, zhuangyuan: null } }),
    ),
  );
}
