// @ts-check
// The sizes the server holds every form to, the events an undo voids and the characters of a
// table's code (GET /api/limits, from bobing/tables/limits.py). Fetched once a page before the first screen (app.js); the last copy
// is kept for a reload without a network. No module writes one of these numbers itself: a form's
// bounds, hints and errors quote what is here (docs/architecture.md, "Limits").

import { getJson } from "./api.js";

/**
 * The limits by name (bobing/tables/limits.py, SERVED).
 * @typedef {object} Limits
 * @property {number} min_players  the fewest players at a table
 * @property {number} max_players  the most seats any table may have
 * @property {number} default_players  seats unless the rules say otherwise
 * @property {number} max_name_length  a player's name
 * @property {number} max_prize_name  a prize's name
 * @property {number} max_prize_value  one prize's value
 * @property {number} max_rounds  rounds of a ranked session
 * @property {number} max_table_name  a table's name
 * @property {number} max_time_limit  a table's time limit, in minutes
 * @property {number} max_table_prize_lines  lines of a table's ranked prize list
 * @property {number} max_table_prize_count  prizes on one line of it
 * @property {number} max_event_name  an event's name
 * @property {number} max_event_tables  tables in one event
 * @property {number} max_cost_name  a fixed cost's name in an event's budget
 * @property {number} max_roster_bytes  a roster file's size
 * @property {number} max_playoff_throws  throws each at the 状元王中王
 * @property {number} max_sessions  sessions in an evening's programme
 * @property {number} max_session_name  a session's name
 * @property {number} max_session_minutes  a session's length, in minutes
 * @property {number} code_length  characters of a table's code
 * @property {number} analysis_players  the table the odds page answers for unless asked
 */

/** @typedef {{limits: Limits, undo_voids: string[], code_alphabet: string, photo_unsure_below: number}} ServedLimits */

const STORE = "bobing.limits";

/** @type {ServedLimits | null} */
let served = null;
/** @type {Set<string>} */
let voids = new Set();

function keep(/** @type {ServedLimits} */ body) {
  served = body;
  voids = new Set(body.undo_voids);
}

/** Ask the server once a page (a failed request falls back to the copy of an earlier visit). */
export async function loadLimits() {
  if (served) return served.limits;
  try {
    const body = /** @type {ServedLimits} */ (await getJson("/api/limits"));
    keep(body);
    try {
      localStorage.setItem(STORE, JSON.stringify(body));
    } catch {
      // storage full or off: the next offline reload asks again
    }
  } catch (err) {
    let kept;
    try {
      kept = JSON.parse(localStorage.getItem(STORE) || "null");
    } catch {
      kept = null;
    }
    if (!kept || !kept.limits || !kept.code_alphabet) throw err;
    keep(kept);
  }
  return limits();
}

/** The served limits (after `loadLimits`, which app.js awaits before the first screen). */
export function limits() {
  if (!served) throw new Error("limits are not loaded yet (loadLimits)");
  return served.limits;
}

/**
 * Whether a `throw_undone` voids an event of this type between its `from_seq` and itself.
 * @param {string} type
 */
export function undoVoids(type) {
  return voids.has(type);
}

/** The characters a table's code is made of (bobing/tables/tokens.py, CODE_ALPHABET). */
export function codeAlphabet() {
  if (!served) throw new Error("limits are not loaded yet (loadLimits)");
  return served.code_alphabet;
}

/** The confidence under which a die read from a photo is unsure (bobing/vision/limits.py). */
export function photoUnsureBelow() {
  if (!served) throw new Error("limits are not loaded yet (loadLimits)");
  return served.photo_unsure_below;
}
