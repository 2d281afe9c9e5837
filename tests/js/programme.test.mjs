// programme.js: where the evening is (the session now, the next one) from the tables and the
// clock, and a session's times as the run-sheet prints them (RULES.md §10.2).
import { test } from "node:test";
import assert from "node:assert/strict";

import { sessionTimes, whereNow } from "../../bobing/web/static/js/programme.js";

const EVENING = [
  { name: "会餐", starts: "18:00", minutes: 60, game: "none" },
  { name: "博饼", starts: "19:00", minutes: 30, game: "cakes" },
  { name: "状元摇奖", starts: "19:30", minutes: 30, game: "ranked" },
  { name: "颁奖", starts: "20:00", minutes: null, game: "none" },
];
const at = (hhmm) => new Date(`2013-09-19T${hhmm}:00`);
const event = (session, ...statuses) => ({
  programme: EVENING,
  session,
  tables: statuses.map((status) => ({ status })),
});

test("a session's times: its start and end, or what it has", () => {
  assert.equal(sessionTimes(EVENING[0]), "18:00–19:00");
  assert.equal(
    sessionTimes({ name: "夜宵", starts: "23:30", minutes: 45, game: "none" }),
    "23:30–00:15",
  );
  assert.equal(sessionTimes(EVENING[3]), "20:00");
  assert.equal(sessionTimes({ name: "x", starts: null, minutes: null, game: "cakes" }), "");
});

test("before the first game: the clock's slot, then the game the tables wait for", () => {
  assert.deepEqual(whereNow(event(1, "lobby", "lobby"), at("17:30")), { now: -1, next: 1 });
  assert.deepEqual(whereNow(event(1, "lobby", "lobby"), at("18:20")), { now: 0, next: 1 });
  // late: the dinner's slot lasts until the organiser starts the tables
  assert.deepEqual(whereNow(event(1, "lobby", "lobby"), at("19:10")), { now: 0, next: 1 });
});

test("a game on at any table is the session now, whatever the clock", () => {
  assert.deepEqual(whereNow(event(1, "playing", "lobby"), at("18:10")), { now: 1, next: 2 });
  assert.deepEqual(whereNow(event(2, "over", "paused"), at("19:40")), { now: 2, next: 3 });
});

test("between games and after the last: the next session, the slot whose time has come", () => {
  assert.deepEqual(whereNow(event(1, "over", "over"), at("19:28")), { now: -1, next: 2 });
  assert.deepEqual(whereNow(event(2, "over", "over"), at("19:58")), { now: -1, next: 3 });
  assert.deepEqual(whereNow(event(2, "over", "over"), at("20:05")), { now: 3, next: -1 });
});
