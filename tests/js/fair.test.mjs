// fair.js: the fairness check's hashes and dice, against Node's crypto and the engine's values
// (bobing.engine.fairness.derive_faces).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";

import {
  bytesToHex,
  deriveFaces,
  hexToBytes,
  hmacFallback,
  sha256Fallback,
} from "../../bobing/web/static/js/fair.js";

test("the pure-JS SHA-256 and HMAC agree with Node's", () => {
  const key = new Uint8Array(32).map((_, i) => i);
  for (const text of [
    "",
    "abc",
    "x".repeat(55),
    "y".repeat(56),
    "z".repeat(64),
    "博饼".repeat(100),
  ]) {
    const data = new TextEncoder().encode(text);
    assert.equal(bytesToHex(sha256Fallback(data)), createHash("sha256").update(data).digest("hex"));
    assert.equal(
      bytesToHex(hmacFallback(key, data)),
      createHmac("sha256", Buffer.from(key)).update(data).digest("hex"),
    );
  }
  assert.deepEqual([...hexToBytes("00ff10")], [0, 255, 16]);
});

test("the dice are the engine's", async () => {
  assert.deepEqual(
    await deriveFaces("00".repeat(32), "K7Q2MX", 1, "nonce-1", 6),
    [6, 2, 3, 4, 5, 1],
  );
  assert.deepEqual(await deriveFaces("ab".repeat(32), "ABCDEF", 0, "n", 2), [2, 1]);
});
