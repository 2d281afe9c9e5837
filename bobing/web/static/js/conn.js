// @ts-check
// One WebSocket per table (docs/protocol.md): welcome, events with the state after them, acks
// and errors. Reconnects by itself with backoff and resyncs from the last seq it saw; commands
// carry an id, so a command resent after a drop is applied at most once.

import { FRAME, COMMAND } from "./protocol.js";
import { randomId } from "./dom.js";
import { noteServerTime } from "./clock.js";
import { decodeEvents } from "./frames.js";

export const CONN = Object.freeze({
  CONNECTING: "connecting",
  OPEN: "open",
  RECONNECTING: "reconnecting",
  GONE: "gone",
  CLOSED: "closed",
});

const BACKOFF_MS = [300, 1000, 2000, 4000, 8000, 15000];
/** The subprotocol the server answers with, and the prefix of a token offered beside it
 * (bobing/tables/protocol.py: SUBPROTOCOL, TOKEN_SUBPROTOCOL, SUBPROTOCOL_TOKEN). */
const SUBPROTOCOL = "bobing";
const TOKEN_SUBPROTOCOL = "bobing.token.";
const SUBPROTOCOL_TOKEN = /^[A-Za-z0-9_-]+$/;
const PING_EVERY_MS = 20000;
const PONG_TIMEOUT_MS = 8000;

export class CommandError extends Error {
  /**
   * @param {Record<string, any>} frame
   */
  constructor(frame) {
    super(frame.detail || frame.title || frame.code);
    this.code = frame.code;
    this.status = frame.status;
    this.params = frame.params || {};
    this.title = frame.title || "";
    this.detail = frame.detail || "";
  }
}

export class TableConnection extends EventTarget {
  /**
   * @param {string} code table code
   * @param {{tokens?: string[], after?: number, lang?: string}} options
   */
  constructor(code, { tokens = [], after = 0, lang = "zh-Hans" } = {}) {
    super();
    this.code = code;
    this.tokens = tokens.filter(Boolean);
    this.lastSeq = after;
    this.lang = lang;
    /** @type {string | null} */
    this.status = CONN.CLOSED;
    this.attempt = 0;
    /**
     * @type {never[]}
     */
    this.roles = [];
    this.player = null;
    this.welcomeSeq = 0;
    /** @type {Record<string, any> | null} the state after lastSeq, as the server sent it */
    this.base = null;
    this.pending = new Map();
    this.ws = null;
    this.timer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.stopped = false;
    this.retryAt = 0;
    this._onOnline = () => this.reconnectNow();
    // the phone knows it lost the network: drop the socket now (commands wait in `pending`,
    // the screen says so) rather than when the heartbeat notices
    this._onOffline = () => {
      if (this.ws) this.ws.close();
    };
    this._onVisible = () => {
      if (document.visibilityState === "visible" && this.status === CONN.RECONNECTING)
        this.reconnectNow();
    };
    window.addEventListener("online", this._onOnline);
    window.addEventListener("offline", this._onOffline);
    document.addEventListener("visibilitychange", this._onVisible);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const params = new URLSearchParams();
    params.set("after", String(this.lastSeq));
    params.set("lang", this.lang);
    return `${scheme}//${location.host}/ws/tables/${encodeURIComponent(this.code)}?${params}`;
  }

  /**
   * The subprotocols the handshake offers: `bobing`, which the server names in its answer, and
   * one `bobing.token.<token>` per token (docs/protocol.md). The tokens ride in the handshake's
   * Sec-WebSocket-Protocol header, never in the URL, so no access log holds them. Every token
   * the server hands out is URL-safe base64 behind a letter; anything else is no token of
   * ours (the server would ignore it) and would make the constructor throw, so it is left out.
   */
  protocols() {
    const offered = [SUBPROTOCOL];
    for (const token of this.tokens) {
      const name = TOKEN_SUBPROTOCOL + token;
      if (SUBPROTOCOL_TOKEN.test(token) && !offered.includes(name)) offered.push(name);
    }
    return offered;
  }

  /**
   * @param {string} status
   */
  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.dispatchEvent(
      new CustomEvent("status", {
        detail: { status, attempt: this.attempt, retryAt: this.retryAt },
      }),
    );
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer ?? undefined);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.onmessage = null;
      this.ws.onerror = null;
      try {
        this.ws.close();
      } catch {
        // already closed
      }
    }
    this.setStatus(this.attempt ? CONN.RECONNECTING : CONN.CONNECTING);
    let ws;
    try {
      this.connectedAt = Date.now();
      ws = new WebSocket(this.url(), this.protocols());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onmessage = (msg) => this.onMessage(msg);
    ws.onclose = (ev) => this.onClose(ev);
    ws.onerror = () => {
      // onclose follows and decides what to do
    };
  }

  /**
   * @param {CloseEvent} ev
   */
  onClose(ev) {
    this.stopHeartbeat();
    this.ws = null;
    if (this.stopped) {
      this.setStatus(CONN.CLOSED);
      return;
    }
    if (ev && ev.code === 4404) {
      this.setStatus(CONN.GONE);
      return;
    }
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    const delay = Math.round(base * (1 + Math.random() * 0.3));
    this.attempt += 1;
    this.retryAt = Date.now() + delay;
    this.status = null; // force a status event with the new attempt
    this.setStatus(CONN.RECONNECTING);
    clearTimeout(this.timer ?? undefined);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.stopped || this.status === CONN.OPEN || this.status === CONN.GONE) return;
    clearTimeout(this.timer ?? undefined);
    this.connect();
  }

  /**
   * Reconnect with a new set of tokens (after joining, for example).
   * @param {any[]} tokens
   */
  setTokens(tokens) {
    this.tokens = tokens.filter(Boolean);
    this.attempt = 0;
    this.connect();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer ?? undefined);
    this.stopHeartbeat();
    window.removeEventListener("online", this._onOnline);
    window.removeEventListener("offline", this._onOffline);
    document.removeEventListener("visibilitychange", this._onVisible);
    if (this.ws) {
      try {
        this.ws.close(1000);
      } catch {
        // ignore
      }
    }
    this.setStatus(CONN.CLOSED);
  }

  startHeartbeat() {
    this.stopHeartbeat();
    this.pings = {};
    this.pingTimer = setInterval(() => this.ping(), PING_EVERY_MS);
    this.ping(); // at once too: its pong tells the server's time precisely (countdowns)
  }

  ping() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const id = `ping-${randomId(8)}`;
    this.pings = { ...(this.pings || {}), [id]: Date.now() };
    this.raw({ type: COMMAND.PING, id });
    clearTimeout(this.pongTimer ?? undefined);
    this.pongTimer = setTimeout(() => {
      // no answer: the connection is dead even if the socket has not noticed
      if (this.ws) this.ws.close();
    }, PONG_TIMEOUT_MS);
  }

  stopHeartbeat() {
    clearInterval(this.pingTimer ?? undefined);
    clearTimeout(this.pongTimer ?? undefined);
  }

  /**
   * @param {Record<string, any>} frame
   */
  raw(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  /**
   * @param {MessageEvent<any>} msg
   */
  onMessage(msg) {
    clearTimeout(this.pongTimer ?? undefined);
    let frame;
    try {
      frame = JSON.parse(msg.data);
    } catch {
      return;
    }
    switch (frame.type) {
      case FRAME.WELCOME:
        if (frame.server_time) noteServerTime(frame.server_time, this.connectedAt || null);
        this.attempt = 0;
        this.roles = frame.roles || [];
        this.player = frame.player || null;
        this.welcomeSeq = frame.last_seq || 0;
        this.setStatus(CONN.OPEN);
        this.startHeartbeat();
        this.dispatchEvent(new CustomEvent("welcome", { detail: frame }));
        // commands that were waiting for the connection, or lost with the last one
        for (const entry of this.pending.values()) this.raw(entry.command);
        break;
      case FRAME.EVENTS:
        this.onEvents(frame);
        break;
      case FRAME.ACK: {
        const entry = this.pending.get(frame.id);
        if (entry) {
          this.pending.delete(frame.id);
          entry.resolve(frame);
        }
        break;
      }
      case FRAME.ERROR: {
        const entry = frame.id ? this.pending.get(frame.id) : null;
        if (entry) {
          this.pending.delete(frame.id);
          entry.reject(new CommandError(frame));
        } else {
          this.dispatchEvent(new CustomEvent("servererror", { detail: frame }));
        }
        break;
      }
      case FRAME.PONG: {
        const sentAt = (this.pings || {})[frame.id];
        if (sentAt !== undefined) {
          delete this.pings[frame.id];
          if (frame.server_time) noteServerTime(frame.server_time, sentAt);
        }
        break;
      }
      default:
        break;
    }
  }

  /**
   * @param {import("./protocol.js").EventsFrame} frame
   */
  onEvents(frame) {
    const told = takeEvents(frame, this);
    if (!told) {
      this.attempt = 0;
      this.connect();
      return;
    }
    this.dispatchEvent(new CustomEvent("events", { detail: told }));
  }

  /**
   * Send a command; resolves with its ack, rejects with CommandError. Queued while offline.
   * @param {Record<string, any>} command
   */
  send(command) {
    const full = { id: `c-${randomId(12)}`, ...command };
    return new Promise((resolve, reject) => {
      this.pending.set(full.id, { command: full, resolve, reject });
      if (this.status === CONN.OPEN) this.raw(full);
    });
  }

  /**
   * Forget a queued command (the user gave up on it).
   * @param {any} id
   */
  cancel(id) {
    this.pending.delete(id);
  }
}

/**
 * One read-only socket for many tables (/ws/watch, docs/protocol.md): an event's dashboard or
 * hall follows every table with it instead of one socket each. The reconnect loop, heartbeat
 * and clock are TableConnection's; each table keeps its own last seq, and its frames (the
 * per-table protocol, unchanged inside `{"type": "table", "code", "frame"}`) are told as
 * `events` with the table's `code`.
 */
export class WatchConnection extends TableConnection {
  /** @param {string[]} codes @param {{lang?: string}} options */
  constructor(codes, { lang = "zh-Hans" } = {}) {
    super("", { lang });
    /** @type {Map<string, {lastSeq: number, welcomeSeq: number, base?: Record<string, any> | null}>} */
    this.tables = new Map();
    for (const code of codes) this.tables.set(code, { lastSeq: 0, welcomeSeq: 0 });
  }

  /**
   * Follow these tables too (a playoff that began): reconnects when the set grew.
   * @param {any} codes
   */
  watch(codes) {
    let grew = false;
    for (const code of codes) {
      if (this.tables.has(code)) continue;
      this.tables.set(code, { lastSeq: 0, welcomeSeq: 0 });
      grew = true;
    }
    if (grew && !this.stopped) {
      this.attempt = 0;
      this.connect();
    }
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const params = new URLSearchParams();
    for (const [code, table] of this.tables) params.append("t", `${code}:${table.lastSeq}`);
    params.set("lang", this.lang);
    return `${scheme}//${location.host}/ws/watch?${params}`;
  }

  /**
   * @param {MessageEvent<any>} msg
   */
  onMessage(msg) {
    let frame;
    try {
      frame = JSON.parse(msg.data);
    } catch {
      return;
    }
    if (frame.type !== FRAME.TABLE) {
      super.onMessage(msg);
      return;
    }
    clearTimeout(this.pongTimer ?? undefined);
    const table = this.tables.get(frame.code);
    const inner = frame.frame || {};
    if (!table) return;
    if (inner.type === FRAME.WELCOME) table.welcomeSeq = inner.last_seq || 0;
    else if (inner.type === FRAME.EVENTS) this.onTableEvents(frame.code, table, inner);
    else if (inner.type === FRAME.ERROR)
      this.dispatchEvent(
        new CustomEvent("servererror", { detail: { ...inner, code: frame.code } }),
      );
  }

  /**
   * @param {any} code
   * @param {{lastSeq: number, welcomeSeq: number, base?: Record<string, any> | null}} table
   * @param {import("./protocol.js").EventsFrame} frame
   */
  onTableEvents(code, table, frame) {
    const told = takeEvents(frame, table);
    if (!told) {
      this.attempt = 0;
      this.connect(); // every table resumes from what it has
      return;
    }
    this.dispatchEvent(new CustomEvent("events", { detail: { code, ...told } }));
  }
}

/**
 * One table's `events` frame, decoded against what `table` holds (its last seq and the state
 * after it), which it updates: the new events, the state after them (null for a page of a
 * long resync) and whether they are live (after the welcome). Null when the frame does not
 * follow what the table holds (a gap, a patch on another state, a state ahead of its events):
 * the caller reconnects with `?after=` (the server never skips, but a frame may be lost).
 * @param {import("./protocol.js").EventsFrame} frame
 * @param {{lastSeq: number, welcomeSeq: number, base?: Record<string, any> | null}} table
 */
function takeEvents(frame, table) {
  const decoded = decodeEvents(frame, table.base || null);
  if (!decoded) return null;
  const events = decoded.events.filter((e) => e.seq > table.lastSeq);
  if (events.length && events[0].seq > table.lastSeq + 1) return null;
  if (events.length) table.lastSeq = events[events.length - 1].seq;
  const state = decoded.state;
  if (state && state.last_seq > table.lastSeq && !events.length) return null;
  table.base = decoded.base;
  const live = events.length > 0 && events[0].seq > table.welcomeSeq;
  return { events, state, live };
}
