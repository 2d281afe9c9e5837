// Undoing a mistyped throw (referee tables, host only): whether the host may, and the button
// that asks first (the play page's award card and the end screen both show it).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { MODE, STATUS } from "../protocol.js";
import { describeThrow } from "../award.js";
import { icon, showError, confirmDialog } from "../ui.js";
import { isRanked } from "../ranked.js";

/** Whether the host may undo the last throw now (docs/protocol.md, Undoing a throw). */
/** @param {Record<string, any> | null} state  the table's (protocol.js TableState) */
export function canUndo(state) {
  if (!state || state.mode !== MODE.REFEREE || !state.last_throw) return false;
  // a throw made before time was called stays (undoing it would undo the close)
  if (state.closing && state.last_throw.throw <= (state.closing.throw || 0)) return false;
  if (state.status === STATUS.OVER) return state.end_reason === "game_over";
  return state.status === STATUS.PLAYING || state.status === STATUS.PAUSED;
}

/** The host's "undo the last throw" button: asks first, naming the throw it voids. */
/** @param {import("../session.js").TableSession} session */
export function undoButton(session) {
  return h(
    "button",
    {
      type: "button",
      class: "btn btn-ghost undo-btn",
      "data-fk": "undo",
      onclick: () => askUndo(session),
    },
    icon("undo"),
    t("host.undo"),
  );
}

/** @param {import("../session.js").TableSession} session */
async function askUndo(session) {
  const st = session.state;
  /** @type {Record<string, any> | null} */
  const last = st && st.last_throw;
  if (!st || !last) return; // (no state, no last throw)
  // a throw is always described (describeThrow's null is for no throw)
  const d = /** @type {{name: string}} */ (describeThrow(last, st.rules));
  const body = [
    t(isRanked(st) ? "host.undo_body_ranked" : "host.undo_body", {
      n: last.throw,
      player: last.player,
      hand: d.name,
      dice: last.dice || "—",
    }),
  ];
  if (st.status === STATUS.OVER) body.push(t("host.undo_resumes"));
  const yes = await confirmDialog({
    title: t("host.undo_title", { n: last.throw }),
    body: body.join(" "),
    yes: t("host.undo_yes"),
    danger: true,
  });
  if (!yes) return;
  try {
    await session.undo(last.throw);
  } catch (err) {
    showError(err);
  }
}
