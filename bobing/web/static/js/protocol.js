// @ts-check
// Names of the table server protocol (docs/protocol.md), in one place, and the JSDoc types of
// what the server sends (bobing/tables/state.py, bobing/web/routes/ws.py).

/**
 * A table's state (`GET /api/tables/{code}`, and with every `events` frame).
 * @typedef {object} TableState
 * @property {string} code
 * @property {string} name
 * @property {"online" | "pass_and_play" | "referee"} mode
 * @property {string} created_at
 * @property {boolean} referee_thrower
 * @property {boolean} keep_photos  a referee table keeps each confirmed throw's photo as evidence
 * @property {import("./rulebook.js").Rules} rules  the complete rule object (RULES.md §5)
 * @property {Record<string, {name: string, value?: number}>} named_prizes
 * @property {number | null} time_limit
 * @property {string | null} event  the code of the event the table belongs to (or its playoff)
 * @property {"lobby" | "playing" | "paused" | "over"} status
 * @property {string | null} end_reason
 * @property {{seat: number, name: string}[]} players
 * @property {boolean} lobby_locked
 * @property {{thrower: string, dice: number[], starter: string | null} | null} start_dice
 * @property {string} phase
 * @property {string | null} next  whose turn it is
 * @property {number | null} turn
 * @property {number} throw_count
 * @property {Record<string, any> | null} last_throw
 * @property {string[]} skipping
 * @property {Record<string, any> | null} final_round
 * @property {boolean} only_zhuangyuan_left  every ordinary cake is out; only the 状元 is left
 * @property {boolean | null} close_at_once  calling time now ends at once (null: it cannot)
 * @property {string | null} deadline
 * @property {number | null} time_left
 * @property {{by: string, at: string, throw: number} | null} closing
 * @property {Record<string, any> | null} result
 * @property {number} last_seq
 * @property {Record<string, any> | null} auto_throw
 * @property {Throwers | null} throwers  who may send the next throw (null: nobody now)
 * @property {string | null} rematch
 * @property {{tables: number, playoff_player: string | null, start_thrower?: string | null} | null} event_table
 *   one of an event's tables: how many the event has, who the event names to throw its start
 *   dice, and who goes on from it to the 状元王中王
 * @property {{commitment: string, server_seed: string | null}} fairness
 */

/**
 * Who may throw next: a connection holding one of `roles`, or seated as `player`.
 * @typedef {{roles: string[], player: string | null}} Throwers
 */

/**
 * An entry of the table's log. Engine events add their own fields (a `thrown` has `player`,
 * `dice`, `hand`, `throw`; see docs/protocol.md).
 * @typedef {{seq: number, type: string, at?: string} & Record<string, any>} LogEvent
 */

/**
 * Frames the server sends on the table socket.
 * @typedef {{type: "welcome", code: string, roles: string[], player: string | null,
 *   last_seq: number, server_time: string}} WelcomeFrame
 * @typedef {{type: "events", seq: number, common?: Record<string, any>,
 *   events: Record<string, any>[], state?: TableState, patch?: any[][]}} EventsFrame
 *   (compact on the wire: `frames.js` decodes it into the log's events and the whole state)
 * @typedef {{type: "ack", id: string, seq: number, last_seq: number, duplicate: boolean,
 *   reply?: Record<string, any>}} AckFrame
 * @typedef {{type: "error", id: string | null, code: string, status: number, title: string,
 *   detail: string, params: Record<string, any>}} ErrorFrame
 * @typedef {{type: "pong", id: string, server_time: string}} PongFrame
 * @typedef {WelcomeFrame | EventsFrame | AckFrame | ErrorFrame | PongFrame} ServerFrame
 */

/** Event types of the table's log. */
export const EVENT = Object.freeze({
  TABLE_CREATED: "table_created",
  PLAYER_JOINED: "player_joined",
  PLAYER_REMOVED: "player_removed",
  LOBBY_LOCKED: "lobby_locked",
  SEATS_REORDERED: "seats_reordered",
  START_DICE: "start_dice",
  START_THROWER_NAMED: "start_thrower_named",
  DICE: "dice",
  PAUSED: "paused",
  RESUMED: "resumed",
  ENDED: "ended",
  SEED_REVEALED: "seed_revealed",
  THROW_UNDONE: "throw_undone",
  NONCE_DISPUTED: "nonce_disputed",
  SEAT_HANDED: "seat_handed",
  SEAT_CLAIMED: "seat_claimed",
  AUTO_THROW_SET: "auto_throw_set",
  REMATCH: "rematch",
  REACTION: "reaction",
  DEADLINE_SET: "deadline_set",
  TIME_CALLED: "time_called",
  // the game engine's
  STARTED: "started",
  THROWN: "thrown",
  SKIPPED: "skipped",
  AWARDED: "awarded",
  STANDING: "standing",
  SKIP_NEXT: "skip_next",
  FINAL: "final",
  GRAB_OPEN: "grab_open",
  GAME_OVER: "game_over",
  ZHUANGYUAN: "zhuangyuan",
  NEXT_SET: "next_set",
});

/** Frame types the server sends. */
export const FRAME = Object.freeze({
  WELCOME: "welcome",
  EVENTS: "events",
  ACK: "ack",
  ERROR: "error",
  PONG: "pong",
  /** A table's frame on a watching socket (/ws/watch): `{type, code, frame}`. */
  TABLE: "table",
});

/** Commands a client sends. */
export const COMMAND = Object.freeze({
  THROW: "throw",
  GRAB: "grab",
  REORDER: "reorder",
  REMOVE: "remove",
  LOCK: "lock",
  START_DICE: "start_dice",
  START: "start",
  PAUSE: "pause",
  RESUME: "resume",
  END: "end",
  UNDO: "undo",
  DISPUTE: "dispute",
  HAND_SEAT: "hand_seat",
  CLAIM_SEAT: "claim_seat",
  SET_AUTO_THROW: "set_auto_throw",
  REMATCH: "rematch",
  CLAIM_REMATCH: "claim_rematch",
  REACT: "react",
  AUTH: "auth",
  PING: "ping",
});

export const STATUS = Object.freeze({
  LOBBY: "lobby",
  PLAYING: "playing",
  PAUSED: "paused",
  OVER: "over",
});

export const PHASE = Object.freeze({
  NOT_STARTED: "not_started",
  MAIN: "main",
  FINAL: "final",
  GRAB: "grab",
  OVER: "over",
});

export const MODE = Object.freeze({
  ONLINE: "online",
  PASS_AND_PLAY: "pass_and_play",
  REFEREE: "referee",
});

export const ROLE = Object.freeze({ HOST: "host", PLAY: "play", PLAYER: "player", SEAT: "seat" });

/** The emoji a player may send to the table (the server accepts only these). */
export const REACTIONS = Object.freeze(["👏", "🎉", "😂", "😱", "🥮", "🔥", "👍", "🙏"]);

/** The six tiers, highest first. */
export const TIERS = Object.freeze(["zhuangyuan", "duitang", "sanhong", "sijin", "erju", "yixiu"]);

/** Hands, highest precedence first (RULES.md §1). */
export const HANDS = Object.freeze([
  "liubohong",
  "biandijin",
  "liubohei",
  "chajinhua",
  "wuhong",
  "wuzi",
  "sihong",
  "duitang",
  "sanhong",
  "sijin",
  "erju",
  "yixiu",
  "none",
]);
