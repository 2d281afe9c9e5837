// @ts-check
// What a device remembers per table (localStorage): its tokens and the last state and events it
// saw, so a reload shows the same screen at once and resyncs from the last seq; and per event,
// the organiser's token.

const PREFIX = "bobing.t.";
const EVENT_PREFIX = "bobing.e.";
const RECENT = "bobing.recent";
const PREFS = "bobing.prefs";
const MAX_RECENT = 12;

/**
 * @param {string} key
 * @param {Record<string, any>} fallback
 */
function read(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : fallback;
  } catch {
    return fallback;
  }
}

/**
 * @param {string} key
 * @param {any} value
 */
function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {string} code
 */
export function normalizeCode(code) {
  return String(code || "")
    .trim()
    .toUpperCase();
}

/**
 * Everything this device knows about table `code` ({} when nothing).
 * @param {any} code
 */
export function loadTable(code) {
  return read(PREFIX + normalizeCode(code), {});
}

/**
 * Merge `patch` into the table's saved data.
 * @param {string} code
 * @param {Record<string, any>} patch
 */
export function saveTable(code, patch) {
  code = normalizeCode(code);
  const data = { ...loadTable(code), ...patch, code, savedAt: Date.now() };
  if (!write(PREFIX + code, data)) {
    // over quota: keep tokens and state, let the event log be refetched
    const { events: _dropped, ...rest } = data;
    write(PREFIX + code, { ...rest, lastSeq: data.state ? data.state.last_seq : 0 });
  }
  return data;
}

/**
 * @param {any} code
 */
export function forgetTable(code) {
  try {
    localStorage.removeItem(PREFIX + normalizeCode(code));
  } catch {
    // ignore
  }
}

/** Tables this device has created or joined, newest first. */
export function recentTables() {
  return read(RECENT, []);
}

/**
 * @param {string} code
 * @param {any} name
 */
export function rememberRecent(code, name) {
  code = normalizeCode(code);
  const list = recentTables().filter(
    (/** @type {Record<string, any>} */ item) => item.code !== code,
  );
  list.unshift({ code, name, at: Date.now() });
  const kept = list.slice(0, MAX_RECENT);
  write(RECENT, kept);
  prune(new Set(kept.map((/** @type {Record<string, any>} */ item) => item.code)));
}

/**
 * Forget tables that are neither recent nor touched for a month.
 * @param {Set<any>} keep
 */
function prune(keep) {
  const month = 30 * 24 * 3600 * 1000;
  try {
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(PREFIX) || keep.has(key.slice(PREFIX.length))) continue;
      const data = read(key, {});
      if (!data.savedAt || Date.now() - data.savedAt > month) localStorage.removeItem(key);
    }
  } catch {
    // storage unavailable: nothing to prune
  }
}

export function prefs() {
  // shake is undefined until someone turns it off: on by default (play.js)
  return read(PREFS, { muted: false });
}

/**
 * @param {string} key
 * @param {boolean} value
 */
export function setPref(key, value) {
  write(PREFS, { ...prefs(), [key]: value });
}

/**
 * What this device knows about event `code` (the organiser's token), {} when nothing.
 * @param {string} code
 */
export function loadEvent(code) {
  return read(EVENT_PREFIX + code, {});
}

/**
 * Remember `patch` for event `code` (over quota: the organiser keeps the token shown at creation).
 * @param {string} code
 * @param {Record<string, any>} patch
 */
export function saveEvent(code, patch) {
  const data = { ...loadEvent(code), ...patch };
  write(EVENT_PREFIX + code, data);
  return data;
}
