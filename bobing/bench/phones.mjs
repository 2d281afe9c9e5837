// @ts-check
// The phones of `bobing bench server --client node` (bobing/bench/client.py): the same tables,
// sockets and throwing loop as the Python client, on Node's built-in WebSocket (no npm
// package), so a client that is not Python measures the server and the floor relay.
//
// The parent writes one JSON line to stdin, the plan:
//   {"relay": bool, "pace": s, "seed": n, "tables": [{"code", "phones": [{"name", "url",
//   "protocols"}]}]}  (tables created, joined and started over REST by the parent)
// and this process connects every phone, then prints {"ready": true}. The parent answers with
// the window on its monotonic clock, {"now", "start", "measure_from", "stop_at"}; this process
// plays it and prints {"part": {...}} (the fields of client.py's Part), or {"error": "..."}.

import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { decodeEvents } from "../web/static/js/frames.js";

const THROW = /"throw":(\d+)/;
const THROW_TIMEOUT_MS = 30_000;
const CONNECTING = 32;

/** Seconds on this process's monotonic clock. */
const clock = () => performance.now() / 1000;

/**
 * @typedef {{name: string, url: string, protocols: string[]}} PhonePlan
 * @typedef {{code: string, phones: PhonePlan[]}} TablePlan
 * @typedef {{relay: boolean, pace: number, seed: number, tables: TablePlan[]}} Plan
 */

/** A seeded uniform [0, 1) generator (mulberry32): tables' phases differ, runs repeat. */
function generator(/** @type {number} */ seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const traffic = { measuring: false, bytes: 0, frames: 0 };

class Table {
  constructor(/** @type {string} */ code) {
    this.code = code;
    /** @type {Map<string, WebSocket>} */
    this.sockets = new Map();
    /** @type {Map<number, {t0: number, left: number, last: number}>} */
    this.pending = new Map();
    /** @type {string | null} */
    this.next = null;
    this.turn = 1;
    /** @type {Record<string, any> | null} */
    this.base = null;
    /** @type {[number, number][]} (sent, ms) */
    this.latencies = [];
    /** @type {string | null} */
    this.failed = null;
    /** @type {() => void} */
    this.ready = () => {};
  }

  /** What the observer (the first phone) learns of the state from a frame. */
  follow(/** @type {Record<string, any> | null} */ state) {
    if (state) {
      this.next = state.next;
      this.turn = state.turn;
    }
  }

  /** One frame to one phone (the reader of client.py's _reader and _thrown). */
  receive(/** @type {string} */ data, /** @type {boolean} */ observer) {
    if (traffic.measuring) {
      traffic.bytes += Buffer.byteLength(data);
      traffic.frames += 1;
    }
    if (data.startsWith('{"type":"ack"')) return;
    if (data.startsWith('{"type":"error"')) {
      this.failed = data.slice(0, 300);
      this.ready();
      return;
    }
    if (!observer && !data.includes('"thrown"')) return;
    /** @type {number | null} */
    let thrown;
    if (!observer) {
      const found = THROW.exec(data);
      thrown = found ? Number(found[1]) : null;
    } else {
      const frame = JSON.parse(data);
      if (frame.type === "thrown") {
        thrown = frame.throw; // the relay's frame
        this.follow(frame.state);
      } else {
        const decoded = decodeEvents(frame, this.base);
        if (!decoded) {
          this.failed = `table ${this.code}: a patch that does not follow seq ${this.base?.last_seq}`;
          this.ready();
          return;
        }
        this.base = decoded.base;
        this.follow(decoded.base);
        const event = decoded.events.find((e) => e.type === "thrown");
        thrown = event ? event.throw : null;
      }
    }
    const entry = thrown === null ? undefined : this.pending.get(thrown);
    if (!entry) return;
    const now = clock();
    entry.left -= 1;
    entry.last = Math.max(entry.last, now);
    if (entry.left === 0) {
      this.pending.delete(/** @type {number} */ (thrown));
      this.latencies.push([entry.t0, (entry.last - entry.t0) * 1000]);
      this.ready();
    }
  }
}

/**
 * A phone's socket once open, with the frames it receives queued until `play` hands them on.
 * @param {PhonePlan} phone
 * @returns {Promise<{ws: WebSocket, recv: () => Promise<string>, play: (f: (d: string) => void) => void}>}
 */
function connect(phone) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(phone.url, phone.protocols);
    /** @type {string[]} */
    const queue = [];
    /** @type {((d: string) => void) | null} */
    let waiter = null;
    /** @type {((d: string) => void) | null} */
    let handler = null;
    ws.onmessage = (event) => {
      const data = /** @type {string} */ (event.data);
      if (handler) handler(data);
      else if (waiter) {
        const w = waiter;
        waiter = null;
        w(data);
      } else queue.push(data);
    };
    ws.onerror = () => reject(new Error(`could not connect a phone to ${phone.url}`));
    ws.onopen = () =>
      resolve({
        ws,
        recv: () =>
          queue.length
            ? Promise.resolve(/** @type {string} */ (queue.shift()))
            : new Promise((r) => (waiter = r)),
        play: (f) => {
          handler = f;
          for (const data of queue.splice(0)) f(data);
        },
      });
  });
}

/** Connect a table's phones; the observer's state (or the relay's "ready") says whose turn. */
async function setUp(/** @type {TablePlan} */ plan, /** @type {boolean} */ relay) {
  const table = new Table(plan.code);
  const phones = [];
  for (const phone of plan.phones) {
    const open = await connect(phone);
    if (!relay) {
      await open.recv(); // welcome
      const backlog = await open.recv(); // the backlog and the state
      if (!phones.length) {
        const decoded = decodeEvents(JSON.parse(backlog), null);
        table.base = decoded ? decoded.base : null;
        table.follow(table.base);
      }
    }
    table.sockets.set(phone.name, open.ws);
    phones.push(open);
  }
  if (relay) {
    for (const open of phones) {
      const ready = JSON.parse(await open.recv());
      table.next = ready.next;
      table.turn = ready.turn;
    }
  }
  phones.forEach((open, index) => open.play((data) => table.receive(data, index === 0)));
  return table;
}

/** Items mapped `limit` at a time. */
async function limited(
  /** @type {any[]} */ items,
  /** @type {number} */ limit,
  /** @type {(x: any) => Promise<any>} */ f,
) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** One table's loop (client.py's _drive). */
async function drive(
  /** @type {Table} */ table,
  /** @type {number} */ stopAt,
  /** @type {number} */ pace,
  /** @type {() => number} */ rng,
) {
  const players = table.sockets.size;
  if (pace) await sleep(rng() * pace * 1000);
  let slot = clock();
  while (clock() < stopAt && table.failed === null) {
    const player = table.next;
    const socket = player === null ? undefined : table.sockets.get(player);
    if (!socket) {
      table.failed = `table ${table.code} has no next player (game over?)`;
      return;
    }
    const turn = table.turn;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const done = new Promise((resolve) => {
      table.ready = () => resolve(true);
      timer = setTimeout(() => resolve(false), THROW_TIMEOUT_MS);
    });
    table.pending.set(turn, { t0: clock(), left: players, last: 0 });
    socket.send(JSON.stringify({ type: "throw", turn, nonce: `${table.code}-${turn}` }));
    const arrived = await done;
    clearTimeout(timer);
    if (!arrived) {
      table.failed = `table ${table.code}: throw ${turn} did not reach every player in 30 s`;
      return;
    }
    if (pace) {
      slot += pace * (0.8 + 0.4 * rng());
      const delay = slot - clock();
      if (delay > 0) await sleep(delay * 1000);
      else slot = clock(); // behind: go on now rather than bursting to catch up
    }
  }
}

/** Write one line to the parent; resolves once it is written (a pipe's write is async). */
function say(/** @type {object} */ message) {
  return new Promise((resolve) => process.stdout.write(JSON.stringify(message) + "\n", resolve));
}

async function main() {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const line = async () => {
    const got = await lines.next();
    if (got.done) throw new Error("the parent closed the plan's pipe");
    return JSON.parse(got.value);
  };
  /** @type {Plan} */
  const plan = await line();
  const setupStarted = clock();
  const tables = await limited(plan.tables, CONNECTING, (t) => setUp(t, plan.relay));
  const setupSeconds = clock() - setupStarted;
  await say({ ready: true });
  const go = await line();
  const offset = go.now - clock(); // the parent's clock minus this one's
  const [start, measureFrom, stopAt] = [go.start, go.measure_from, go.stop_at].map(
    (t) => t - offset,
  );
  const rng = generator(plan.seed * 7919 + tables.length);
  await sleep(Math.max(0, start - clock()) * 1000);
  traffic.measuring = true;
  const drivers = tables.map((t) => drive(t, stopAt, plan.pace, rng));
  await sleep(Math.max(0, measureFrom - clock()) * 1000);
  const cpuStart = process.cpuUsage();
  await sleep(Math.max(0, stopAt - clock()) * 1000);
  const cpu = process.cpuUsage(cpuStart);
  const rss = Math.round((process.memoryUsage.rss() / 1048576) * 10) / 10;
  await Promise.all(drivers);
  await sleep(200); // the last acks
  traffic.measuring = false;
  const closed = tables.flatMap((t) =>
    [...t.sockets.values()].map(
      (ws) =>
        new Promise((resolve) => {
          ws.onclose = resolve;
          ws.close();
        }),
    ),
  );
  await Promise.race([Promise.all(closed), sleep(5000)]);
  await say({
    part: {
      window: tables.flatMap((t) =>
        t.latencies.filter(([sent]) => measureFrom <= sent && sent < stopAt).map(([, ms]) => ms),
      ),
      completed: tables.reduce((n, t) => n + t.latencies.length, 0),
      bytes_in: traffic.bytes,
      frames_in: traffic.frames,
      cpu_seconds: (cpu.user + cpu.system) / 1e6,
      rss_mb: rss,
      setup_seconds: setupSeconds,
      failures: tables.filter((t) => t.failed !== null).map((t) => t.failed),
    },
  });
  process.exit(0);
}

main().catch(async (error) => {
  await say({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
