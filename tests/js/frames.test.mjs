// frames.js: the browser's decoder of the `events` frame (docs/protocol.md). The Python
// encoder's frames of a whole game are decoded alike in tests/web/test_frames.py.
import { test } from "node:test";
import assert from "node:assert/strict";

import { decodeEvents, expandEvents } from "../../bobing/web/static/js/frames.js";

const STATE = {
  last_seq: 5,
  next: "甲",
  turn: 1,
  throw_count: 0,
  last_throw: null,
  result: { pool: { yixiu: 32 }, holdings: { 甲: {}, 乙: {} } },
};

const THROW = {
  type: "events",
  seq: 6,
  common: { at: "2026-10-06T12:00:00.000Z", throw: 1, player: "甲" },
  events: [
    { type: "dice", nonce: "n-1", source: "server" },
    { type: "thrown", dice: "412356", hand: "yixiu" },
    { type: "awarded", tier: "yixiu", count: 1, from: null, reason: "hand" },
  ],
  patch: [
    ["next", "乙"],
    ["result", "pool", "yixiu", 31],
    ["result", "holdings", "甲", "yixiu", 1],
  ],
};

test("compact events expand to the log's", () => {
  const events = expandEvents(THROW);
  assert.deepEqual(
    events.map((e) => [e.seq, e.type, e.throw, e.player, e.at]),
    [6, 7, 8].map((seq, i) => [
      seq,
      ["dice", "thrown", "awarded"][i],
      1,
      "甲",
      "2026-10-06T12:00:00.000Z",
    ]),
  );
  assert.equal(events[1].dice, "412356");
});

test("a patch applies after what the events imply", () => {
  const full = decodeEvents({ type: "events", seq: 1, events: [], state: STATE }, null);
  const decoded = decodeEvents(THROW, full.base);
  assert.ok(decoded);
  assert.deepEqual(decoded.state, {
    last_seq: 8,
    next: "乙",
    turn: 2,
    throw_count: 1,
    last_throw: { throw: 1, player: "甲", dice: "412356", hand: "yixiu" },
    result: { pool: { yixiu: 31 }, holdings: { 甲: { yixiu: 1 }, 乙: {} } },
  });
  // the screens get a copy: changing it does not change what the next patch applies to
  decoded.state.result.pool.yixiu = 0;
  assert.equal(decoded.base.result.pool.yixiu, 31);
  // the state first sent is untouched too
  assert.equal(STATE.result.pool.yixiu, 32);
});

test("a patch on another state, or none, asks for a resync", () => {
  assert.equal(decodeEvents(THROW, { ...STATE, last_seq: 4 }), null);
  assert.equal(decodeEvents(THROW, null), null);
});

test("a page of a long resync carries events only", () => {
  const page = { type: "events", seq: 1, events: [{ type: "paused", at: "x" }] };
  const decoded = decodeEvents(page, STATE);
  assert.ok(decoded);
  assert.equal(decoded.state, null);
  assert.equal(decoded.base, STATE);
  assert.deepEqual(decoded.events, [{ seq: 1, type: "paused", at: "x" }]);
});
