// What the dashboard, the hall and the printed pages say of an event and its tables: a table's
// status and leader in words, and the tabs between an event's pages.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { classify, handName } from "../rulebook.js";

/** A table's status in words. @param {string | null | undefined} status */
export function statusText(status) {
  return t(`event.status.${status || "lobby"}`);
}

/**
 * Who leads at one of the event's tables, and with what.
 * @param {{result?: Record<string, any> | null}} table
 * @param {import("../rulebook.js").Rules} rules
 */
export function leaderLine(table, rules) {
  const z =
    table.result && (table.result.zhuangyuan || (table.result.ranking && table.result.ranking[0]));
  const ranked = Boolean(rules && rules.award === "ranked"); // no 状元 there (RULES.md §8.2)
  if (!z || !z.player || !z.dice) return t(ranked ? "event.no_first" : "event.no_leader");
  const hand = handName(classify(z.dice, rules));
  return t(ranked ? "event.leader_first" : "event.leader", { player: z.player, hand });
}

/**
 * The tabs between an event's pages, the one shown marked.
 * @param {string} code  the event's
 * @param {"dashboard" | "hall" | "cards" | "results"} current
 */
export function eventNav(code, current) {
  const link = (/** @type {string} */ path, /** @type {string} */ key) =>
    h(
      "a",
      {
        href: `/e/${code}${path}`,
        "data-link": "",
        class: ["tab", current === key ? "active" : ""],
        "aria-current": current === key ? "page" : null,
      },
      t(`event.nav.${key}`),
    );
  return h(
    "nav",
    { class: "ev-nav preset-tabs", "aria-label": t("event.nav.label") },
    link("", "dashboard"),
    link("/hall", "hall"),
    link("/cards", "cards"),
    link("/results", "results"),
  );
}
