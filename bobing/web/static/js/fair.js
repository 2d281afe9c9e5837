// @ts-check
// Checking the provably fair dice in the browser (docs/fairness.md):
//   commitment = SHA-256(seed bytes)
//   block k    = HMAC-SHA256(seed bytes, "bobing-dice-v1" 0 table_id 0 throw 0 nonce || k as u32be)
//   faces      = bytes b < 252 in order → b % 6 + 1 (bytes ≥ 252 skipped)
// Web Crypto does the hashing; where it is missing (a page served over plain http from a LAN
// address is not a secure context) a small SHA-256 written out below takes over.

const DOMAIN = "bobing-dice-v1";
const ACCEPT_BELOW = 252;
const enc = new TextEncoder();

/**
 * @param {string} hex
 */
export function hexToBytes(hex) {
  if (typeof hex !== "string" || !/^([0-9a-f]{2})*$/.test(hex)) throw new Error(`not hex: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * @param {ArrayBuffer | Uint8Array<ArrayBuffer>} bytes
 */
export function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * @param {Uint8Array<ArrayBuffer>[]} parts
 */
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// ---- a fallback SHA-256 / HMAC for pages without crypto.subtle ------------------------------

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/**
 * @param {Uint8Array<ArrayBuffer>} data
 */
export function sha256Fallback(data) {
  const bytes = new Uint8Array(data);
  const bitLen = bytes.length * 8;
  const padded = new Uint8Array(((bytes.length + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLen / 0x100000000));
  view.setUint32(padded.length - 4, bitLen >>> 0);
  const H = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const W = new Uint32Array(64);
  const rotr = (/** @type {number} */ x, /** @type {number} */ n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) W[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(W[i - 15], 7) ^ rotr(W[i - 15], 18) ^ (W[i - 15] >>> 3);
      const s1 = rotr(W[i - 2], 17) ^ rotr(W[i - 2], 19) ^ (W[i - 2] >>> 10);
      W[i] = (W[i - 16] + s0 + W[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = H;
    for (let i = 0; i < 64; i++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[i] + W[i]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    H[0] += a;
    H[1] += b;
    H[2] += c;
    H[3] += d;
    H[4] += e;
    H[5] += f;
    H[6] += g;
    H[7] += hh;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setUint32(i * 4, H[i]);
  return out;
}

/**
 * @param {Uint8Array<ArrayBuffer>} key
 * @param {Uint8Array<ArrayBuffer>} message
 */
export function hmacFallback(key, message) {
  let k = key.length > 64 ? sha256Fallback(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  const ipad = block.map((b) => b ^ 0x36);
  const opad = block.map((b) => b ^ 0x5c);
  return sha256Fallback(concat(opad, sha256Fallback(concat(ipad, message))));
}

// ---- the construction -------------------------------------------------------------------------

function subtle() {
  return (globalThis.crypto && globalThis.crypto.subtle) || null;
}

/** Whether the browser's own Web Crypto is used (else the fallback). */
export function usesWebCrypto() {
  return Boolean(subtle());
}

/**
 * @param {Uint8Array<ArrayBuffer>} bytes
 */
export async function sha256Hex(bytes) {
  const sub = subtle();
  if (sub) return bytesToHex(await sub.digest("SHA-256", bytes));
  return bytesToHex(sha256Fallback(bytes));
}

/**
 * @param {Uint8Array<ArrayBuffer>} seedBytes
 */
async function hmacSigner(seedBytes) {
  const sub = subtle();
  if (sub) {
    const key = await sub.importKey("raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    return async (/** @type {Uint8Array<ArrayBuffer>} */ msg) =>
      new Uint8Array(await sub.sign("HMAC", key, msg));
  }
  return async (/** @type {Uint8Array<ArrayBuffer>} */ msg) => hmacFallback(seedBytes, msg);
}

/**
 * The HMAC message of one throw, before the block counter.
 * @param {string | undefined} tableId
 * @param {any} throwNumber
 * @param {string | undefined} nonce
 */
export function message(tableId, throwNumber, nonce) {
  return concat(
    enc.encode(DOMAIN),
    new Uint8Array([0]),
    enc.encode(tableId),
    new Uint8Array([0]),
    enc.encode(String(throwNumber)),
    new Uint8Array([0]),
    enc.encode(nonce),
  );
}

/**
 * @param {(msg: Uint8Array<ArrayBuffer>) => Promise<Uint8Array<ArrayBuffer>>} sign
 * @param {any} tableId
 * @param {number} throwNumber
 * @param {string} nonce
 * @param {number} count
 */
async function facesWith(sign, tableId, throwNumber, nonce, count) {
  const base = message(tableId, throwNumber, nonce);
  const faces = [];
  for (let block = 0; faces.length < count; block++) {
    const counter = new Uint8Array(4);
    new DataView(counter.buffer).setUint32(0, block);
    const digest = await sign(concat(base, counter));
    for (const b of digest) {
      if (b < ACCEPT_BELOW) {
        faces.push((b % 6) + 1);
        if (faces.length === count) break;
      }
    }
  }
  return faces;
}

/**
 * The faces of one throw (throw 0 = the two start dice).
 * @param {any} seedHex
 * @param {any} tableId
 * @param {any} throwNumber
 * @param {any} nonce
 */
export async function deriveFaces(seedHex, tableId, throwNumber, nonce, count = 6) {
  const sign = await hmacSigner(hexToBytes(seedHex));
  return facesWith(sign, tableId, throwNumber, nonce, count);
}

/**
 * @param {Record<string, any>} entry
 */
function recordedDice(entry) {
  if (typeof entry === "string") return entry;
  if (entry && typeof entry === "object") {
    if (entry.tiaohou) return null;
    if (typeof entry.dice === "string") return entry.dice;
    if (Array.isArray(entry.dice)) return entry.dice.join("");
  }
  return null;
}

/**
 * Check a game record's fairness block like `bobing verify` (docs/fairness.md): the seed against
 * the commitment (and against the one this device saw before the first throw, if given); at a
 * server-dice table every throw must have an entry and derive from the seed, and so must the
 * start dice (reported apart: they are not a throw). A referee table's dice are real dice.
 * A dispute (a thrower's device reporting the server ignored its nonce) fails the record.
 * Returns {ok, referee, commitmentOk, earlyCommitmentOk, start, checks: [{throw, nonce, expected,
 * recorded, ok, missing}], disputes}.
 * @param {Record<string, any>} record
 * @param {{seenCommitment?: string | null}} [options]
 */
export async function verifyRecord(record, { seenCommitment = null } = {}) {
  const fair = record && record.fairness;
  if (!fair || typeof fair !== "object") throw new Error("no fairness block");
  const seed = fair.server_seed;
  if (typeof seed !== "string" || !/^[0-9a-f]{64}$/.test(seed))
    throw new Error("seed not revealed");
  const tableId = fair.table_id;
  const commitmentOk = (await sha256Hex(hexToBytes(seed))) === fair.commitment;
  const earlyCommitmentOk = seenCommitment ? seenCommitment === fair.commitment : null;
  const mode = record.table ? record.table.mode : undefined;
  const knownMode = mode === undefined || ["online", "pass_and_play", "referee"].includes(mode);
  const referee = mode === "referee";
  const named = Array.isArray(fair.throws) ? fair.throws : [];
  if (referee) {
    // real dice: nothing to derive; an entry here would itself be a forgery
    const ok = commitmentOk && earlyCommitmentOk !== false && !named.length;
    return {
      ok,
      referee,
      commitmentOk,
      earlyCommitmentOk,
      start: /** @type {Record<string, any> | null} */ (null),
      checks: /** @type {Record<string, any>[]} */ ([]),
    };
  }
  const disputes = Array.isArray(fair.disputes) ? fair.disputes : [];
  const sign = await hmacSigner(hexToBytes(seed));
  let start = null;
  const recordStart =
    record.start && Array.isArray(record.start.dice) ? record.start.dice.join("") : null;
  if (fair.start && fair.start.nonce !== null && fair.start.nonce !== undefined) {
    const expected = (await facesWith(sign, tableId, 0, String(fair.start.nonce), 2)).join("");
    const own = (fair.start.dice || []).join("");
    const recorded = recordStart !== null ? recordStart : own;
    // the record's start and the fairness block's must be the same two dice by the same thrower
    const same =
      recordStart === null || (own === recordStart && fair.start.thrower === record.start.thrower);
    start = {
      throw: 0,
      nonce: String(fair.start.nonce),
      expected,
      recorded,
      ok: same && expected === recorded,
    };
  } else if (recordStart !== null) {
    start = {
      throw: 0,
      nonce: null,
      expected: null,
      recorded: recordStart,
      ok: false,
      missing: true,
    };
  }
  // a close ({"close": true}, RULES.md §8.1) is not a throw and has no number
  const throws = (Array.isArray(record.throws) ? record.throws : []).filter(
    (/** @type {Record<string, any>} */ e) => !(e && typeof e === "object" && e.close === true),
  );
  const nonces = new Map();
  let extra = false;
  for (const item of named) {
    if (
      !item ||
      !Number.isInteger(item.throw) ||
      item.throw < 1 ||
      item.throw > throws.length ||
      nonces.has(item.throw)
    )
      extra = true;
    else nonces.set(item.throw, String(item.nonce));
  }
  /** @type {Record<string, any>[]} */
  const checks = [];
  for (let number = 1; number <= throws.length; number++) {
    const recorded = recordedDice(throws[number - 1]);
    if (!nonces.has(number)) {
      checks.push({
        throw: number,
        nonce: null,
        expected: null,
        recorded,
        ok: false,
        missing: true,
      });
      continue;
    }
    const nonce = nonces.get(number);
    const expected = (await facesWith(sign, tableId, number, nonce, 6)).join("");
    checks.push({ throw: number, nonce, expected, recorded, ok: expected === recorded });
  }
  const ok =
    knownMode &&
    commitmentOk &&
    earlyCommitmentOk !== false &&
    !extra &&
    !disputes.length &&
    (!start || start.ok) &&
    checks.every((c) => c.ok);
  return { ok, referee, commitmentOk, earlyCommitmentOk, start, checks, disputes };
}

/**
 * The thrower's check: `event` is the first event of our acknowledged throw `turn` (0: the start
 * dice), sent with `nonce`. Honest servers answer with a `dice` event of that throw carrying that nonce; any
 * other answer means the server rolled with randomness of its own choosing.
 * Returns {ok, nonce} (nonce: what the server used, or null when it is not a dice event).
 * @param {import("./protocol").LogEvent} event
 * @param {number} turn
 * @param {any} nonce
 */
export function nonceVerdict(event, turn, nonce) {
  // throw 0 is the two start dice, whose event is `start_dice`
  const isDice =
    Boolean(event) &&
    (turn === 0 ? event.type === "start_dice" : event.type === "dice" && event.throw === turn);
  const used = isDice ? event.nonce : null;
  return { ok: isDice && used === nonce, nonce: used };
}
