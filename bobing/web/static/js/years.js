// @ts-check
// 历届 (RULES.md §10.3): the years' lineage as GET /api/events/CODE/years gives it. An event
// made from last year's /next keeps a link to it; the hall, the results and next year's form
// show every earlier year: its date, 状元 (or 王中王), organisers and who gave its 会饼.

import { call } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/**
 * @typedef {{code: string, name: string, date: string | null, champions: string[] | null,
 *   wangzhongwang: boolean, ranked: boolean, organizers: string[], donors: string[]}} Year
 */

/**
 * This event's row and every earlier year's, last year first.
 * @param {string} code
 * @returns {Promise<{year: Year, years: Year[]}>}
 */
export function fetchYears(code) {
  return call("GET", `/api/events/${encodeURIComponent(code)}/years`);
}

/**
 * One year in a line: "2025-10-06 2025 中秋 · 王中王 张三 · 组织者：甲、乙 · 会饼：王老师".
 * @param {Year} year
 */
export function yearText(year) {
  const names = (/** @type {string[]} */ list) => list.join(t("list.sep"));
  const champion =
    year.champions === null
      ? t("event.years.playing")
      : year.champions.length
        ? t(
            year.wangzhongwang
              ? "event.years.wangzhongwang"
              : year.ranked // a ranked table has no 状元 (RULES.md §8.2)
                ? "event.years.first"
                : "event.years.zhuangyuan",
            { names: names(year.champions) },
          )
        : t("event.years.no_winner");
  return [
    [year.date, year.name].filter(Boolean).join(" "),
    champion,
    year.organizers.length ? t("event.organizers", { names: names(year.organizers) }) : null,
    year.donors.length ? t("event.years.donors", { names: names(year.donors) }) : null,
  ]
    .filter(Boolean)
    .join(" · ");
}

/**
 * The years as a list under the heading 历届, or null when there are none.
 * @param {Year[]} years
 * @param {string} [extraClass]
 */
export function yearsSection(years, extraClass = "") {
  if (!years.length) return null;
  return h(
    "section",
    { class: ["ev-years", extraClass] },
    h("h2", { class: "sub-title ev-years-title" }, t("event.years.title")),
    h(
      "ol",
      { class: "ev-years-list" },
      years.map((year) => h("li", { dataset: { code: year.code } }, yearText(year))),
    ),
  );
}
