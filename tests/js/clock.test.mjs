// clock.js: the server's clock from `server_time` samples, the quickest round trip winning.
import { test } from "node:test";
import assert from "node:assert/strict";

import { noteServerTime, serverOffset } from "../../bobing/web/static/js/clock.js";

test("the quickest round trip sets the offset", () => {
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  noteServerTime(new Date(t0 + 5000).toISOString(), t0 - 400, t0 + 400); // rtt 800, offset 5000
  assert.equal(serverOffset(), 5000);
  noteServerTime(new Date(t0 + 3010).toISOString(), t0 - 10, t0 + 10); // rtt 20: more precise
  assert.equal(serverOffset(), 3010);
  noteServerTime(new Date(t0 + 9000).toISOString(), t0 - 500, t0 + 500); // slower: ignored
  assert.equal(serverOffset(), 3010);
  noteServerTime("not a time", t0, t0);
  assert.equal(serverOffset(), 3010);
});
