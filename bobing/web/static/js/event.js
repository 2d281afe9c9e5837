// An event as the organiser's screens follow it: GET /api/events/CODE for the plan and every
// table's state, plus one read-only WebSocket for every table (and the playoff) for live throws
// (/ws/watch: one socket per screen, however many tables).
// The feed collects the notable throws across the hall ("3 号桌 张三 博出 状元插金花！").

import { call, ApiError } from "./api.js";
import { WatchConnection } from "./conn.js";
import { lang, t } from "./i18n.js";
import { EVENT } from "./protocol.js";
import { describeThrow } from "./award.js";
import { saveTable, loadEvent, saveEvent } from "./device_store.js";
import { showError, toast } from "./ui.js";
import { publicUrl } from "./invite.js";

const REFRESH_MS = 400;
/** A new playoff or a seat claim makes no table frame: the event is read again this often. */
const POLL_MS = 4000;
const MAX_FEED = 40;
/** Hands worth announcing to the whole hall. */
export const NOTABLE = new Set([
  "duitang",
  "sihong",
  "wuzi",
  "wuhong",
  "chajinhua",
  "liubohei",
  "biandijin",
  "liubohong",
]);

/**
 * The organiser's token for this event on this device, or null.
 * @param {string} code
 */
export function organizerToken(code) {
  return loadEvent(code).organizerToken || null;
}

/**
 * Remember what POST /api/events returned: the organiser's and every host's token.
 * @param {Record<string, any>} created
 */
export function rememberCreated(created) {
  // POST …/seat (after the check-in) returns the tables only: the organiser's token stays.
  if (created.organizer_token) saveEvent(created.code, { organizerToken: created.organizer_token });
  for (const table of created.tables) {
    saveTable(table.code, {
      hostToken: table.host_token,
      ...(table.play_token ? { playToken: table.play_token } : {}),
    });
  }
}

/**
 * The claim page of a table; with a seat's name and claim key, the link that claims it: both
 * in the fragment (`#name=…&key=…`), which a browser never sends, so no server or proxy log
 * holds the key (docs/security.md).
 * @param {any} eventCode
 * @param {any} number
 * @param {{name: string, claim_key?: string | null} | null} [seat]
 */
export function claimUrl(eventCode, number, seat = null) {
  const base = publicUrl(`/e/${eventCode}/t/${number}`);
  if (!seat || !seat.claim_key) return base;
  const fragment = new URLSearchParams({ name: seat.name, key: seat.claim_key });
  return `${base}#${fragment}`;
}

/**
 * The seat a claim link names, `{name, key}` (nulls when it names none): from the fragment, or
 * from the query of a card printed before the key moved there (`?name=…&key=…`, still
 * honoured). An old card's query is moved into the fragment at once (history.replaceState),
 * so the key is not sent again, by a reload or anything else; the fragment stays, so a reload
 * still claims.
 */
export function claimLinkSeat() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("key")) return { name: hash.get("name"), key: hash.get("key") };
  const query = new URLSearchParams(location.search);
  const key = query.get("key");
  if (!key) return { name: null, key: null };
  const name = query.get("name");
  query.delete("key");
  query.delete("name");
  const rest = query.toString();
  const fragment = new URLSearchParams(name ? { name, key } : { key });
  history.replaceState(
    history.state,
    "",
    `${location.pathname}${rest ? `?${rest}` : ""}#${fragment}`,
  );
  return { name, key };
}

/**
 * @param {any} number
 */
export function tableLabel(number) {
  return t("event.table_n", { n: number });
}

/**
 * Cakes still in a table's pool.
 * @param {Record<string, any>} result
 */
export function cakesLeft(result) {
  if (!result || !result.pool) return null;
  return Object.values(result.pool).reduce((n, c) => n + c, 0);
}

export const eventApi = {
  create: (/** @type {any} */ body) => call("POST", "/api/events", { body }),
  preview: (/** @type {any} */ body) => call("POST", "/api/events/preview", { body }),
  get: (/** @type {string | number | boolean} */ code) =>
    call("GET", `/api/events/${encodeURIComponent(code)}`),
  control: (
    /** @type {string | number | boolean} */ code,
    /** @type {any} */ action,
    /** @type {any} */ table,
    /** @type {any} */ token,
  ) =>
    call("POST", `/api/events/${encodeURIComponent(code)}/control`, {
      body: table ? { action, table } : { action },
      token,
    }),
  playoff: (
    /** @type {string | number | boolean} */ code,
    /** @type {any} */ throws,
    /** @type {any} */ token,
  ) => call("POST", `/api/events/${encodeURIComponent(code)}/playoff`, { body: { throws }, token }),
  claim: (
    /** @type {string | number | boolean} */ code,
    /** @type {any} */ number,
    /** @type {any} */ name,
    /** @type {any} */ key,
    /** @type {any} */ token,
  ) =>
    call("POST", `/api/events/${encodeURIComponent(code)}/tables/${number}/claim`, {
      body: key ? { name, key } : { name },
      token,
    }),
  seats: (/** @type {string | number | boolean} */ code, /** @type {any} */ token) =>
    call("GET", `/api/events/${encodeURIComponent(code)}/seats`, { token }),
  release: (
    /** @type {string | number | boolean} */ code,
    /** @type {any} */ number,
    /** @type {any} */ name,
    /** @type {any} */ token,
  ) =>
    call("POST", `/api/events/${encodeURIComponent(code)}/tables/${number}/release`, {
      body: { name },
      token,
    }),
  checkIn: (
    /** @type {string | number | boolean} */ code,
    /** @type {any} */ name,
    /** @type {any} */ present,
    /** @type {any} */ token,
  ) =>
    call("POST", `/api/events/${encodeURIComponent(code)}/checkin`, {
      body: { name, present },
      token,
    }),
  startThrower: (
    /** @type {string | number | boolean} */ code,
    /** @type {any} */ number,
    /** @type {any} */ value,
    /** @type {any} */ token,
  ) =>
    call("POST", `/api/events/${encodeURIComponent(code)}/tables/${number}/start_thrower`, {
      body: { start_thrower: value },
      token,
    }),
  seat: (/** @type {string | number | boolean} */ code, /** @type {any} */ token) =>
    call("POST", `/api/events/${encodeURIComponent(code)}/seat`, { token }),
  results: (/** @type {string | number | boolean} */ code) =>
    call("GET", `/api/events/${encodeURIComponent(code)}/results`),
  next: (/** @type {string | number | boolean} */ code) =>
    call("GET", `/api/events/${encodeURIComponent(code)}/next`),
  roster: (/** @type {any} */ file, /** @type {any} */ format) =>
    call("POST", `/api/events/roster?format=${format}`, { bytes: file }),
  download: (/** @type {string | number | boolean} */ code, /** @type {any} */ ext) =>
    call(
      "GET",
      `/api/events/${encodeURIComponent(code)}/results.${ext}?lang=${encodeURIComponent(lang())}`,
      { raw: true },
    ),
};

/** Follows one event: `update` events carry nothing; read `.event` and `.feed`. */
export class EventWatcher extends EventTarget {
  /**
   * @param {string} code
   */
  constructor(code) {
    super();
    this.code = code;
    this.event = null;
    this.error = null;
    /**
     * @type {any[]}
     */
    this.feed = [];
    this.socket = null;
    this.numbers = new Map();
    this.timer = null;
    this.stopped = false;
    this.seen = new Set();
  }

  async start() {
    this.poll = setInterval(() => this.refresh(), POLL_MS);
    await this.refresh();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer ?? undefined);
    clearInterval(this.poll);
    if (this.socket) this.socket.close();
    this.socket = null;
  }

  /** Fetch the event again soon (several table frames at once make one request). */
  soon() {
    clearTimeout(this.timer ?? undefined);
    this.timer = setTimeout(() => this.refresh(), REFRESH_MS);
  }

  async refresh() {
    if (this.stopped) return;
    /** @type {string | null} */
    let text = null;
    try {
      const event = await eventApi.get(this.code);
      text = JSON.stringify(event) + this.feed.length;
      this.event = event;
      this.error = null;
    } catch (err) {
      this.error = err instanceof ApiError ? err : new ApiError({ detail: String(err) }, 0);
    }
    if (this.event) this.follow();
    // a screen repaints only when something changed (a repaint would take the focus away)
    if (text !== null && text === this.lastText) return;
    /** @type {string | null} */
    this.lastText = text;
    this.dispatchEvent(new CustomEvent("update"));
  }

  follow() {
    /** @type {[string, number][]} */
    const codes = this.event.tables.map((/** @type {Record<string, any>} */ tb) => [
      tb.code,
      tb.number,
    ]);
    if (this.event.playoff) codes.push([this.event.playoff.code, 0]);
    for (const [code, number] of codes) this.numbers.set(code, number);
    if (!this.socket) {
      this.socket = new WatchConnection(
        codes.map(([code]) => code),
        { lang: lang() },
      );
      this.socket.addEventListener("events", (/** @type {CustomEvent} */ ev) =>
        this.onFrame(this.numbers.get(ev.detail.code), ev.detail),
      );
      this.socket.connect();
    } else {
      this.socket.watch(codes.map(([code]) => code));
    }
  }

  /**
   * @param {any} number
   * @param {{events: import("./protocol.js").LogEvent[], state: import("./protocol.js").TableState | null, live: boolean}} frame
   */
  onFrame(number, { events, state, live }) {
    const rules = (state && state.rules) || (this.event && this.event.rules) || {};
    let notable = false;
    for (const e of events) {
      if (e.type !== EVENT.THROWN || !e.hand || !NOTABLE.has(e.hand)) continue;
      const key = `${number}:${e.seq}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.feed.unshift({
        table: number,
        player: e.player,
        hand: e.hand,
        // named when shown: the rules' rulebook may arrive after the frame
        event: e,
        rules,
        dice: e.dice,
        live,
        key,
        seq: e.seq,
      });
      notable = true;
    }
    // an undone throw leaves the feed (its dice event starts at the undo's from_seq; a screen
    // opened later reads both in one frame)
    for (const undo of events) {
      if (undo.type !== EVENT.THROW_UNDONE) continue;
      const before = this.feed.length;
      this.feed = this.feed.filter(
        (item) => item.table !== number || item.seq < undo.from_seq || item.seq > undo.seq,
      );
      if (this.feed.length !== before) notable = true;
    }
    if (this.feed.length > MAX_FEED) this.feed.length = MAX_FEED;
    if (events.length || notable) this.soon();
  }
}

/**
 * The feed line of one notable throw.
 * @param {Record<string, any>} item
 */
export function feedText(item) {
  const where = item.table === 0 ? t("event.playoff_short") : tableLabel(item.table);
  const d = describeThrow(item.event, item.rules);
  return t("event.feed.line", { table: where, player: item.player, hand: d ? d.name : item.hand });
}

/**
 * An error toast; the event model's refusals carry their own specific sentence (in the
 * reader's language, quoting the input) in `detail`, better than the generic one.
 * @param {Record<string, any>} err
 */
export function showEventError(err) {
  if (err && err.code === "invalid_event" && err.detail)
    toast(err.detail, { kind: "error", ms: 10000 });
  else showError(err);
}
