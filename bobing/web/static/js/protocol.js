// Names of the table server protocol (docs/protocol.md), in one place.

/** Event types of the table's log. */
export const EVENT = Object.freeze({
  TABLE_CREATED: "table_created",
  PLAYER_JOINED: "player_joined",
  PLAYER_REMOVED: "player_removed",
  LOBBY_LOCKED: "lobby_locked",
  SEATS_REORDERED: "seats_reordered",
  START_DICE: "start_dice",
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

export const ROLE = Object.freeze({ HOST: "host", PLAY: "play", PLAYER: "player" });

/** Event types that a `throw_undone` voids between its `from_seq` and itself. */
export const VOIDABLE = Object.freeze(
  new Set([
    "dice",
    "started",
    "thrown",
    "skipped",
    "awarded",
    "standing",
    "skip_next",
    "final",
    "grab_open",
    "game_over",
    "zhuangyuan",
    "ended",
  ]),
);

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

/** Hands that may stand in a 状元 order. */
export const RANKABLE = Object.freeze([
  "liubohong",
  "biandijin",
  "liubohei",
  "chajinhua",
  "wuhong",
  "wuzi",
  "sihong",
]);

/** Every rule switch with its allowed values (RULES.md §5); lists and objects are edited apart. */
export const SWITCH_VALUES = Object.freeze({
  wuzi_compare: ["kicker", "face_then_kicker"],
  sijin_bonus: [false, true],
  wuzi_bonus: [false, true],
  chajinhua_duitang: ["immediate", "none", "at_end"],
  chajinhua_lugu: ["exempt", "keeps_duitang"],
  standing: ["latest", "best"],
  liubohong: ["take_all_end", "take_remaining_end", "zhuangyuan", "friendly_end"],
  liubohong_spares_chajinhua: [false, true],
  liubohei: ["grab_end", "zhuangyuan_end_share", "zhuangyuan", "ignore", "take_one"],
  six_ones: ["liubohei", "biandijin"],
  biandijin: ["take_remaining_end", "zhuangyuan", "zhuangyuan_take_remaining_end"],
  tiaohou: ["void_skip_next", "void"],
  direction: ["clockwise", "counterclockwise"],
  start_count: ["from_thrower", "from_next"],
  end: ["finish_round", "one_more_round", "immediate"],
});

export const CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
/** Seats at a table unless its rules' max_players says otherwise (RULES.md §8: 2-30). */
export const MAX_PLAYERS = 12;
export const NAME_MAX = 24;
export const TABLE_NAME_MAX = 40;
