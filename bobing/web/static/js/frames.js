// @ts-check
// The `events` frame on the wire (docs/protocol.md, "events"): the browser's decoder of what
// bobing/tables/frames.py encodes, held equal to it by tests/web/test_frames.py.
//
// A frame gives `seq` (its first event's; events in a frame are consecutive) and `common` (the
// fields every event of the frame shares), and each event with the rest. After them comes the
// whole `state` (on joining and resyncing) or a `patch` from the state after event `seq - 1`:
// first what the events say of the state (`impliedState`), then `[key, ..., key, value]`
// entries, each setting a value at a path.

/** A `thrown` event's fields that are the state's `last_throw`. */
export const THROWN_FIELDS = Object.freeze(["throw", "player", "dice", "hand"]);

/**
 * The frame's events as the log has them.
 * @param {import("./protocol.js").EventsFrame} frame
 * @returns {import("./protocol.js").LogEvent[]}
 */
export function expandEvents(frame) {
  const first = frame.seq || 0;
  const common = frame.common || {};
  return (frame.events || []).map((e, i) => ({ seq: first + i, type: e.type, ...common, ...e }));
}

/**
 * `state` with what `events` say of it before any patch: the last seq, and the last `thrown`
 * event as `last_throw`, `throw_count` and `turn`. A new object sharing the rest.
 * @param {Record<string, any>} state
 * @param {import("./protocol.js").LogEvent[]} events
 */
export function impliedState(state, events) {
  if (!events.length) return state;
  /** @type {Record<string, any>} */
  const out = { ...state, last_seq: events[events.length - 1].seq };
  for (const event of events) {
    if (event.type !== "thrown") continue;
    /** @type {Record<string, any>} */
    const last = {};
    for (const key of THROWN_FIELDS) last[key] = event[key] === undefined ? null : event[key];
    out.last_throw = last;
    out.throw_count = event.throw;
    out.turn = event.throw + 1;
  }
  return out;
}

/**
 * Apply a patch's entries to `state`, in place.
 * @param {Record<string, any>} state
 * @param {any[][]} patch
 */
export function applyPatch(state, patch) {
  for (const entry of patch) {
    let target = state;
    for (const step of entry.slice(0, -2)) {
      const inner = target[step];
      target =
        inner !== null && typeof inner === "object" && !Array.isArray(inner)
          ? inner
          : (target[step] = {});
    }
    target[entry[entry.length - 2]] = entry[entry.length - 1];
  }
}

/**
 * Decode an `events` frame against the state held before it (`base`, never handed out:
 * `state` is a copy for the screens). Null when the frame's patch does not follow `base` (a
 * lost frame): the caller resyncs with `?after=`.
 * @param {import("./protocol.js").EventsFrame} frame
 * @param {Record<string, any> | null} base
 * @returns {{events: import("./protocol.js").LogEvent[], base: Record<string, any> | null,
 *   state: import("./protocol.js").TableState | null} | null}
 */
export function decodeEvents(frame, base) {
  const events = expandEvents(frame);
  if (frame.state) return { events, base: structuredClone(frame.state), state: frame.state };
  if (!frame.patch) return { events, base, state: null };
  if (!base || base.last_seq !== frame.seq - 1) return null;
  const next = impliedState(base, events);
  applyPatch(next, frame.patch);
  return {
    events,
    base: next,
    state: /** @type {import("./protocol.js").TableState} */ (structuredClone(next)),
  };
}
