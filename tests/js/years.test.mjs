// years.js without a browser: one earlier year in a line, as the hall, the results and next
// year's form show it (历届, RULES.md §10.3). Without a catalogue t() gives each key back.
import { test } from "node:test";
import assert from "node:assert/strict";

const { yearText } = await import("../../bobing/web/static/js/years.js");

const YEAR = {
  code: "ABCDEF",
  name: "2025 中秋",
  date: "2025-10-06",
  champions: ["张三"],
  wangzhongwang: false,
  ranked: false,
  organizers: [],
  donors: [],
};

test("a year names its 状元, its 王中王, or a ranked table's first", () => {
  assert.match(yearText(YEAR), /^2025-10-06 2025 中秋 · event\.years\.zhuangyuan$/);
  assert.match(yearText({ ...YEAR, wangzhongwang: true }), /event\.years\.wangzhongwang$/);
  assert.match(yearText({ ...YEAR, ranked: true }), /event\.years\.first$/);
});

test("a year still playing, one without a winner, and its organisers and 会饼 givers", () => {
  assert.match(yearText({ ...YEAR, champions: null }), /event\.years\.playing$/);
  assert.match(yearText({ ...YEAR, champions: [] }), /event\.years\.no_winner$/);
  const full = yearText({ ...YEAR, organizers: ["甲"], donors: ["王老师"] });
  assert.match(full, /zhuangyuan · event\.organizers · event\.years\.donors$/);
});
