// Reactions: a few emoji a player (or the host) sends to the whole table. The server keeps
// them as harmless `reaction` entries of the log (one per sender per 1.5 s; never part of the
// game or its record) so a phone that reconnects misses none; only live ones float up here.

import { h, reducedMotion } from "./dom.js";
import { t } from "./i18n.js";
import { COMMAND, EVENT, REACTIONS } from "./protocol.js";
import { errorText, toast } from "./ui.js";

const SHOWN_MS = 2600;
const MAX_FLOATING = 12;

/**
 * The row of emoji buttons (hidden for a device without a token: spectators only watch).
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function reactionBar(session) {
  const bar = h(
    "div",
    { class: "reaction-bar", role: "group", "aria-label": t("react.label") },
    REACTIONS.map((emoji) =>
      h(
        "button",
        {
          type: "button",
          class: "reaction-btn",
          "aria-label": t("react.send", { emoji }),
          title: t("react.send", { emoji }),
          onclick: () => send(session, emoji),
        },
        emoji,
      ),
    ),
  );
  const sync = () => {
    bar.hidden = session.roles.length === 0;
  };
  sync();
  session.addEventListener("update", sync);
  return bar;
}

/**
 * @param {import("./session.js").TableSession & Record<string, any>} session
 * @param {string} emoji
 */
async function send(session, emoji) {
  try {
    await session.send(COMMAND.REACT, { emoji });
  } catch (err) {
    toast(errorText(err), {
      kind: err && err.code === "reaction_too_soon" ? "info" : "error",
      ms: 2000,
    });
  }
}

/** @type {HTMLElement | null} */
let layer = null;

/** @returns {HTMLElement} */
function floatLayer() {
  if (!layer || !layer.isConnected) {
    layer = h("div", { class: "reaction-layer", "aria-live": "polite" });
    document.body.appendChild(/** @type {HTMLElement} */ (layer));
  }
  return /** @type {HTMLElement} */ (layer);
}

/**
 * Show one reaction floating up, with who sent it.
 * @param {Record<string, any>} e
 */
export function showReaction(e) {
  const box = floatLayer();
  while (box.childElementCount >= MAX_FLOATING) /** @type {ChildNode} */ (box.firstChild).remove();
  const who = e.player || t("react.host");
  const left = 10 + Math.random() * 70;
  const item = h(
    "div",
    {
      class: `reaction-float${reducedMotion() ? " still" : ""}`,
      style: { left: `${left.toFixed(1)}%` },
      dataset: { emoji: e.emoji },
    },
    h("span", { class: "reaction-emoji", "aria-hidden": "true" }, e.emoji),
    h("span", { class: "reaction-who" }, who),
    h("span", { class: "sr-only" }, t("react.from", { player: who, emoji: e.emoji })),
  );
  box.appendChild(item);
  setTimeout(() => item.remove(), SHOWN_MS);
}

/**
 * Float every live reaction of a table's session.
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function attachReactions(session) {
  session.addEventListener("update", (/** @type {CustomEvent} */ ev) => {
    if (!ev.detail.live) return;
    for (const e of ev.detail.events) if (e.type === EVENT.REACTION) showReaction(e);
  });
}
