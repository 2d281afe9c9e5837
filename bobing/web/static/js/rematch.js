// Play again with the same people: the host opens a rematch (same seats, rules and prizes);
// every phone of the old table moves to the new one, a seated phone with its own seat there.
// The old table's log names the new code (`rematch`); each seat fetches its new token over its
// own socket (`claim_rematch`), so no token is ever broadcast.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { COMMAND, ROLE, STATUS } from "./protocol.js";
import { icon, showError, toast, announce } from "./ui.js";
import { loadTable, saveTable } from "./device_store.js";

/**
 * @param {any} code
 */
function target(code) {
  return document.body.dataset.route === "tv" ? `/t/${code}/tv` : `/t/${code}`;
}

/**
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
async function claimSeat(session) {
  const ack = await session.send(COMMAND.CLAIM_REMATCH, {});
  const reply = ack.reply || {};
  saveTable(reply.code, {
    playerToken: reply.player_token,
    playerName: reply.player,
    rematchOf: session.code,
  });
  return reply.code;
}

/**
 * Move this device to the rematch (claiming its seat first when it has one).
 * @param {import("./session.js").TableSession & Record<string, any>} session
 * @param {(path: string) => void} navigate
 */
export async function followRematch(session, navigate) {
  const st = session.state;
  if (!st || !st.rematch || session.followingRematch) return;
  session.followingRematch = true;
  const code = st.rematch;
  saveTable(session.code, { followedRematch: code });
  try {
    if (session.roles.includes(ROLE.PLAYER)) await claimSeat(session);
    else saveTable(code, { rematchOf: session.code });
  } catch (err) {
    showError(err);
  }
  toast(t("rematch.moved", { code }));
  announce(t("rematch.moved", { code }));
  navigate(target(code));
}

/**
 * Follow a table's rematch when it is announced (or was, while this phone was away).
 * @param {import("./session.js").TableSession & Record<string, any>} session
 * @param {any} navigate
 */
export function attachRematch(session, navigate) {
  session.addEventListener("update", (/** @type {CustomEvent} */ ev) => {
    const st = session.state;
    if (!st || !st.rematch || session.followingRematch || st.status !== STATUS.OVER) return;
    if (session.hostToken && !ev.detail.live && loadTable(session.code).followedRematch) return;
    const seated = session.roles.includes(ROLE.PLAYER);
    const fresh =
      ev.detail.live || (seated && loadTable(session.code).followedRematch !== st.rematch);
    if (fresh && !session.rematchStarting) followRematch(session, navigate);
  });
}

/**
 * The end screen's rematch card: the host's button, or a link once it exists.
 * @param {import("./session.js").TableSession & Record<string, any>} session
 * @param {(path: string) => void} navigate
 */
export function rematchCard(session, navigate) {
  const st = /** @type {import("./protocol.js").TableState} */ (session.state); // over: it came
  if (st.rematch) {
    return h(
      "section",
      { class: "card rematch-card" },
      h("p", {}, t("rematch.exists", { code: st.rematch })),
      h(
        "button",
        {
          type: "button",
          class: "btn btn-primary",
          onclick: () => followRematch(session, navigate),
        },
        icon("play"),
        t("rematch.go", { code: st.rematch }),
      ),
    );
  }
  if (!session.isHost()) return h("p", { class: "hint rematch-wait" }, t("rematch.wait"));
  return h(
    "section",
    { class: "card rematch-card" },
    h("p", { class: "hint" }, t("rematch.hint", { n: (st.players || []).length })),
    h(
      "button",
      {
        type: "button",
        class: "btn btn-primary btn-block rematch-btn",
        "data-fk": "rematch",
        onclick: async (/** @type {Record<string, any>} */ ev) => {
          ev.currentTarget.disabled = true;
          session.rematchStarting = true;
          try {
            const ack = await session.send(COMMAND.REMATCH, {});
            const reply = ack.reply || {};
            saveTable(reply.code, {
              hostToken: reply.host_token,
              playToken: reply.play_token || undefined,
              rematchOf: session.code,
            });
            saveTable(session.code, { followedRematch: reply.code });
            session.followingRematch = true;
            if (session.roles.includes(ROLE.PLAYER)) await claimSeat(session);
            navigate(`/t/${reply.code}`);
          } catch (err) {
            session.rematchStarting = false;
            showError(err);
            ev.currentTarget.disabled = false;
          }
        },
      },
      icon("play"),
      t("rematch.start"),
    ),
  );
}
