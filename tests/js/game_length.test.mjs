// game_length.js: the /api/game-length question, its numbers in minutes at the server's pace,
// and asking only after a pause with the newest answer kept.
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  LIKELY,
  LatestAfterPause,
  lengthFacts,
  lengthPath,
} from "../../bobing/web/static/js/game_length.js";

test("the question names the players, the rules or the table, and the time limit", () => {
  assert.equal(
    lengthPath({ players: 10, rules: "modern" }),
    "/api/game-length?players=10&rules=modern",
  );
  const rules = { preset: "traditional", prizes: { yixiu: 40 } };
  const path = lengthPath({ players: 11, rules, minutes: 30 });
  const query = new URL(path, "http://x").searchParams;
  assert.deepEqual(JSON.parse(query.get("rules")), rules);
  assert.equal(query.get("minutes"), "30");
  assert.equal(
    lengthPath({ players: 4, table: "ABC123", rules }),
    "/api/game-length?players=4&table=ABC123",
  );
});

const answer = (extra = {}) => ({
  players: 11,
  exact: null,
  simulation: {
    games: 100,
    throws: { mean: 309, p5: 176, p50: 297, p90: 440, p95: 495, p99: 627 },
  },
  seconds_per_throw: 12,
  ...extra,
});

test("minutes come from the server's pace, not a constant of the page", () => {
  const facts = lengthFacts(answer());
  assert.equal(facts.seconds, 12);
  assert.deepEqual(facts.throws, { p50: 297, p5: 176, p95: 495 });
  assert.equal(facts.minutes.p50, (297 * 12) / 60);
  assert.equal(facts.minutes.p95, 99);
  assert.equal(facts.limit, null);
});

test("a time limit most games run past is likely to end the game first", () => {
  const limit = { minutes: 30, seconds_per_throw: 12, throws: 150, runs_past: 0.97 };
  assert.deepEqual(lengthFacts(answer({ time_limit: limit })).limit, {
    minutes: 30,
    throws: 150,
    runsPast: 0.97,
    likely: true,
  });
  const rare = { ...limit, runs_past: LIKELY - 0.01 };
  assert.equal(lengthFacts(answer({ time_limit: rare })).limit.likely, false);
});

test("only the newest question after a pause is asked and answered", async () => {
  const asked = [];
  const answered = [];
  const waiting = [];
  const latest = new LatestAfterPause(
    20,
    (x) => {
      asked.push(x);
      return new Promise((resolve) => waiting.push(() => resolve(x * 10)));
    },
    { onAnswer: (result, x) => answered.push([x, result]) },
  );
  latest.ask(1);
  latest.ask(2);
  await new Promise((r) => setTimeout(r, 40));
  assert.deepEqual(asked, [2]); // 1 was replaced before its pause ended
  latest.ask(3, { now: true });
  assert.deepEqual(asked, [2, 3]);
  waiting[1]();
  waiting[0](); // the answer to 2 comes last: 3 was asked since, so it is dropped
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(answered, [[3, 30]]);
  latest.ask(4);
  latest.cancel();
  await new Promise((r) => setTimeout(r, 40));
  assert.deepEqual(asked, [2, 3]);
});
