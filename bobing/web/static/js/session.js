// @ts-check
// A table as this device follows it: tokens, the event log, the latest state, the connection.
// Everything is saved per table, so a reload shows the same screen at once and resyncs.

import { api } from "./api.js";
import { TableConnection, CONN } from "./conn.js";
import { lang } from "./i18n.js";
import { EVENT, MODE, ROLE, COMMAND } from "./protocol.js";
import { undoVoids } from "./limits.js";
import { loadTable, saveTable, rememberRecent } from "./device_store.js";
import { nonceVerdict } from "./fair.js";
import { loadRulebook } from "./rulebook.js";
import { need } from "./dom.js";

const SAVE_DELAY_MS = 150;

export class TableSession extends EventTarget {
  /**
   * @param {string} code
   */
  constructor(code) {
    super();
    this.code = code;
    const saved = loadTable(code);
    this.saved = saved;
    /** @type {import("./protocol.js").TableState | null} */
    this.state = saved.state || null;
    /** @type {import("./protocol.js").LogEvent[]} */
    this.events = Array.isArray(saved.events) ? saved.events : [];
    this.lastSeq = this.events.length ? this.events[this.events.length - 1].seq : 0;
    if (this.state && this.lastSeq < (this.state.last_seq || 0)) {
      // the saved log was dropped (storage quota): fetch it again from the start
      this.events = [];
      this.lastSeq = 0;
    }
    this.voided = new Set();
    this.markVoided(this.events);
    /**
     * @type {string[]}
     */
    this.roles = [];
    this.me = saved.playerName || null;
    /** @type {string} */
    this.status = CONN.CONNECTING;
    this.attempt = 0;
    this.gone = false;
    this.conn = null;
    this.saveTimer = null;
    this.throwWaiters = new Map();
    this.outages = 0; // connections lost so far: a throw acked after one was sent late
    // The thrower's half of the fairness proof (docs/fairness.md): the nonce this device sent
    // for each throw it made, and every throw whose dice event did not carry it.
    this.sent = saved.sent && typeof saved.sent === "object" ? saved.sent : {};
    this.nonceAlerts = Array.isArray(saved.nonceAlerts) ? saved.nonceAlerts : [];
    /**
     * @type {any[]}
     */
    this.nonceChecks = [];
  }

  // ---- tokens and roles ----------------------------------------------------------------------

  tokens() {
    const s = loadTable(this.code);
    return [s.hostToken, s.playToken, s.playerToken].filter(Boolean);
  }

  get hostToken() {
    return loadTable(this.code).hostToken || null;
  }

  get playToken() {
    return loadTable(this.code).playToken || null;
  }

  isHost() {
    return this.roles.includes(ROLE.HOST) || Boolean(this.hostToken && !this.connected);
  }

  get connected() {
    return this.status === CONN.OPEN;
  }

  /** Whether this device may throw now: the state says who may (`throwers`), not this file. */
  canThrow() {
    const who = this.state && this.state.throwers;
    if (!who) return false;
    if (this.roles.some((role) => who.roles.includes(role))) return true;
    return Boolean(who.player && this.roles.includes(ROLE.PLAYER) && this.me === who.player);
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  start() {
    const conn = new TableConnection(this.code, {
      tokens: this.tokens(),
      after: this.lastSeq,
      lang: lang(),
    });
    this.conn = conn;
    this.conn.addEventListener("status", (/** @type {CustomEvent} */ ev) => {
      this.status = ev.detail.status;
      // Open means welcomed: the roles come with the status, not a moment after it, or a screen
      // painted between the two would take this host for a guest (the lobby swapped its name
      // box for a hint, and the keys being typed into it were lost).
      if (this.status === CONN.OPEN) this.roles = conn.roles;
      this.attempt = ev.detail.attempt;
      if (this.status === CONN.RECONNECTING) this.outages += 1;
      if (this.status === CONN.GONE) this.gone = true;
      this.dispatchEvent(new CustomEvent("conn", { detail: ev.detail }));
      this.emit({ events: [], live: false });
    });
    this.conn.addEventListener("welcome", (/** @type {CustomEvent} */ ev) => {
      this.roles = ev.detail.roles || [];
      if (ev.detail.player) {
        this.me = ev.detail.player;
        saveTable(this.code, { playerName: this.me });
      } else if (
        !this.roles.includes(ROLE.PLAYER) &&
        this.me &&
        !loadTable(this.code).playerToken
      ) {
        this.me = null;
      }
      this.emit({ events: [], live: false });
    });
    this.conn.addEventListener("events", (/** @type {CustomEvent} */ ev) =>
      this.onEvents(ev.detail),
    );
    this.conn.addEventListener("servererror", (/** @type {CustomEvent} */ ev) => {
      this.dispatchEvent(new CustomEvent("servererror", { detail: ev.detail }));
    });
    this.conn.connect();
  }

  close() {
    if (this.conn) this.conn.close();
    this.flushSave();
  }

  /** @param {{events: import("./protocol.js").LogEvent[], state: import("./protocol.js").TableState, live: boolean}} frame */
  onEvents({ events, state, live }) {
    if (events.length) {
      this.events = this.events.concat(events);
      this.lastSeq = events[events.length - 1].seq;
      this.markVoided(events);
    }
    if (state) {
      this.state = state;
      if (state.rules) loadRulebook(state.rules).catch(() => {}); // before a screen needs it
      rememberRecent(this.code, state.name);
    }
    if (this.nonceChecks.length) this.checkNonces();
    for (const e of events) {
      if (e.type === EVENT.THROWN && this.throwWaiters.has(e.throw)) {
        this.throwWaiters.get(e.throw).resolve(e);
        this.throwWaiters.delete(e.throw);
      }
    }
    this.scheduleSave();
    this.emit({ events, live });
  }

  /**
   * @param {Record<string, any>} detail
   */
  emit(detail) {
    this.dispatchEvent(new CustomEvent("update", { detail }));
  }

  scheduleSave() {
    clearTimeout(this.saveTimer ?? undefined);
    this.saveTimer = setTimeout(() => this.flushSave(), SAVE_DELAY_MS);
  }

  flushSave() {
    clearTimeout(this.saveTimer ?? undefined);
    if (!this.state) return;
    /** @type {Record<string, any>} */
    const patch = {
      state: this.state,
      events: this.events,
      sent: this.sent,
      nonceAlerts: this.nonceAlerts,
    };
    const first = this.events.find((e) => e.type === EVENT.TABLE_CREATED);
    if (first && first.commitment) patch.commitment = first.commitment;
    saveTable(this.code, patch);
  }

  /** The commitment this device saw before the first throw (from the log), if any. */
  seenCommitment() {
    const first = this.events.find((e) => e.type === EVENT.TABLE_CREATED);
    return (first && first.commitment) || loadTable(this.code).commitment || null;
  }

  // ---- commands ----------------------------------------------------------------------------

  /**
   * @param {string} type
   */
  send(type, fields = {}) {
    return need(this.conn, "the table's connection").send({ type, ...fields });
  }

  /**
   * Throw for the current turn; resolves with the `thrown` event of that throw.
   * @param {Record<string, any>} [fields]
   */
  throwDice(fields = {}) {
    const turn = need(this.state, "the table's state").turn;
    const waiter = /** @type {{resolve: (value: any) => void, reject: (err: any) => void}} */ ({});
    const promise = new Promise((resolve, reject) => {
      waiter.resolve = resolve;
      waiter.reject = reject;
    });
    this.throwWaiters.set(turn, waiter);
    const outages = this.connected ? this.outages : -1;
    this.send(COMMAND.THROW, { turn, ...fields }).then(
      (ack) => {
        if (fields.nonce) this.expectNonce(ack, turn, fields.nonce);
        if (outages !== this.outages) {
          // sent (or resent) over a connection that dropped: the server counted it once
          this.dispatchEvent(new CustomEvent("delivered", { detail: { turn } }));
        }
      },
      (err) => {
        this.throwWaiters.delete(turn);
        waiter.reject(err);
      },
    );
    return promise;
  }

  // ---- the thrower checks its nonce ----------------------------------------------------------

  /**
   * The ack of our throw names its first event (`seq`): that `dice` event must carry our nonce.
   * @param {Record<string, any>} ack
   * @param {number | null} turn
   * @param {any} nonce
   */
  expectNonce(ack, turn, nonce) {
    if (!ack || typeof ack.seq !== "number") return;
    this.nonceChecks.push({ seq: ack.seq, turn, nonce });
    this.checkNonces();
  }

  checkNonces() {
    this.nonceChecks = this.nonceChecks.filter((check) => {
      const event = this.eventAt(check.seq);
      if (!event) return true; // the events frame is still on its way
      const verdict = nonceVerdict(event, check.turn, check.nonce);
      if (check.turn > 0) this.sent[check.turn] = check.nonce;
      if (!verdict.ok)
        this.flagNonce({
          throw: check.turn,
          sent: check.nonce,
          nonce: verdict.nonce,
          seq: check.seq,
        });
      return false;
    });
    this.scheduleSave();
  }

  /**
   * @param {number} seq
   */
  eventAt(seq) {
    for (let i = this.events.length - 1; i >= 0; i--) {
      if (this.events[i].seq === seq) return this.events[i];
      if (this.events[i].seq < seq) break;
    }
    return null;
  }

  /**
   * @param {Record<string, any>} alert
   */
  flagNonce(alert) {
    if (this.nonceAlerts.some((/** @type {Record<string, any>} */ a) => a.throw === alert.throw))
      return;
    this.nonceAlerts.push(alert);
    this.flushSave();
    this.dispatchEvent(new CustomEvent("nonce", { detail: alert }));
    // Tell the table through the log (docs/fairness.md): a server that drops this too is
    // still caught by this phone's warning and by `bobing verify --seen`. (The start dice are
    // not a throw: they stay this phone's warning.)
    if (alert.throw > 0)
      this.send(COMMAND.DISPUTE, { throw: alert.throw, nonce: alert.sent }).catch((err) =>
        console.warn(err),
      );
  }

  /** The throws some thrower's device disputed, as the log tells everyone. */
  disputes() {
    return this.events.filter((e) => e.type === EVENT.NONCE_DISPUTED);
  }

  /**
   * What this device saw, for `bobing verify RECORD --seen FILE` (docs/fairness.md): the
   * commitment it saw before the first throw, and every server-dice throw it saw (with the
   * nonce it sent for the ones it threw).
   */
  seenReport() {
    const nonces = new Map();
    const throws = [];
    for (const e of this.events) {
      if (this.voided.has(e.seq)) continue;
      if (e.type === EVENT.DICE && e.source === "server") nonces.set(e.throw, e.nonce);
      else if (e.type === EVENT.THROWN && nonces.has(e.throw)) {
        /** @type {Record<string, any>} */
        const item = { throw: e.throw, nonce: nonces.get(e.throw), dice: e.dice };
        if (this.sent[e.throw] !== undefined) item.sent = this.sent[e.throw];
        throws.push(item);
      }
    }
    return { table_id: this.code, commitment: this.seenCommitment(), throws };
  }

  /**
   * @param {string} name
   */
  async join(name) {
    // The host's token lets the host seat players while the lobby is locked.
    const seat = await api.join(this.code, name, this.hostToken || undefined);
    // pass-and-play and referee hosts seat everyone from their device: keep the host's identity
    const hostSeatsOthers = this.hostToken && this.state && this.state.mode !== MODE.ONLINE;
    if (!hostSeatsOthers) {
      saveTable(this.code, { playerToken: seat.player_token, playerName: seat.name });
      this.me = seat.name;
      need(this.conn, "the table's connection").setTokens(this.tokens());
    }
    return seat;
  }

  /**
   * Seat someone without a phone at an online table (host only): the seat is theirs, the host's
   * device stands in for every throw of theirs, and remembers them as phone-less.
   * @param {string} name
   */
  async addPhoneless(name) {
    const seat = await api.join(this.code, name, this.hostToken || undefined);
    const known = loadTable(this.code).phoneless || [];
    saveTable(this.code, {
      phoneless: [...known.filter((/** @type {any} */ n) => n !== seat.name), seat.name],
    });
    return seat;
  }

  /**
   * Whether this device seated `name` as someone without a phone.
   * @param {any} name
   */
  isPhoneless(name) {
    return (loadTable(this.code).phoneless || []).includes(name);
  }

  /**
   * Undo the last throw (referee tables, host only); `n` is the throw the host saw as last.
   * @param {any} n
   */
  undo(n) {
    return this.send(COMMAND.UNDO, { throw: n });
  }

  // ---- derived views of the log ------------------------------------------------------------

  /**
   * Note the events that `throw_undone` events among `events` void (docs/protocol.md).
   * @param {import("./protocol.js").LogEvent[]} events
   */
  markVoided(events) {
    for (const undo of events) {
      if (undo.type !== EVENT.THROW_UNDONE) continue;
      for (let i = this.events.length - 1; i >= 0; i--) {
        const e = this.events[i];
        if (e.seq < undo.from_seq) break;
        if (e.seq < undo.seq && undoVoids(e.type)) this.voided.add(e.seq);
      }
    }
  }

  /**
   * Whether an event of the log belongs to a throw that was undone.
   * @param {Record<string, any>} e
   */
  isVoided(e) {
    return this.voided.has(e.seq);
  }

  /**
   * Everything that happened on throw `n` (as it stands): the thrown event and what followed.
   * @param {any} n
   */
  throwDetails(n) {
    /** @type {Record<string, any>} */
    const out = {
      thrown: null,
      awards: [],
      standing: null,
      skipNext: false,
      final: null,
      gameOver: null,
      grab: false,
    };
    for (const e of this.events) {
      if (e.throw !== n || this.voided.has(e.seq)) continue;
      if (e.type === EVENT.THROWN) out.thrown = e;
      else if (e.type === EVENT.AWARDED) out.awards.push(e);
      else if (e.type === EVENT.STANDING) out.standing = e;
      else if (e.type === EVENT.SKIP_NEXT) out.skipNext = true;
      else if (e.type === EVENT.FINAL) out.final = e;
      else if (e.type === EVENT.GAME_OVER) out.gameOver = e;
      else if (e.type === EVENT.GRAB_OPEN) out.grab = true;
    }
    return out;
  }

  throws() {
    return this.events.filter((e) => e.type === EVENT.THROWN && !this.voided.has(e.seq));
  }

  /**
   * Where the photo kept as throw ``n``'s evidence is shown (a keep_photos table), or null.
   * @param {number} n
   * @returns {string | null}
   */
  photoUrl(n) {
    for (const e of this.events) {
      if (e.type === EVENT.DICE && e.throw === n && e.photo && !this.voided.has(e.seq))
        return `/api/tables/${encodeURIComponent(this.code)}/photos/${e.seq}`;
    }
    return null;
  }
}
