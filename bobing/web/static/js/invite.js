// Where other phones can open this server (GET /api/invite): a host who opened
// http://127.0.0.1:8000 still invites with the LAN address, and is warned when the server
// listens only on this machine (no phone could open the link).

import { getJson } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/**
 * @type {{ base: any; loopback_only: any; } | null}
 */
let info = null;
/**
 * @type {Promise<void> | null}
 */
let pending = null;
const waiting = new Set();

/**
 * Fetch the invite address once; `onReady` runs when it arrives (for a repaint).
 * @param {{ (): void; (): void; (): void; (): void; } | undefined} [onReady]
 */
export function loadInvite(onReady) {
  if (onReady && !info) waiting.add(onReady);
  if (!pending) {
    pending = getJson("/api/invite")
      .then((value) => {
        info = value;
        for (const fn of waiting) fn(info);
        waiting.clear();
      })
      .catch(() => {
        pending = null; // try again next time; meanwhile the page's own address is used
      });
  }
  return pending;
}

/**
 * Stop waiting for the invite address (a screen that went away).
 * @param {Record<string, any>} fn
 */
export function forgetInviteWaiter(fn) {
  waiting.delete(fn);
}

/** The base URL for invite links and QR codes. */
export function inviteBase() {
  return (info && info.base) || location.origin;
}

/** Whether only this machine can reach the server (null while unknown). */
export function loopbackOnly() {
  return info ? Boolean(info.loopback_only) : null;
}

/**
 * A link on the public base: `publicUrl("/e/ABC/t/1")` → "http://192.168.1.5:8000/e/ABC/t/1".
 * @param {string} path
 */
export function publicUrl(path) {
  return `${inviteBase()}${path}`;
}

/** The address a table's invite (its QR code, its link) sends a guest to. @param {string} code */
export function inviteUrl(code) {
  return `${inviteBase()}/t/${code}`;
}

/** Whether this page was opened by a loopback address (127.0.0.1, ::1, localhost). */
export function openedOnLoopback() {
  const name = location.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "::1" ||
    /^127\.\d+\.\d+\.\d+$/.test(name)
  );
}

/**
 * What a screen that shows or prints links says about their address, or null when there is
 * nothing to say: opened on loopback, its links carry the public base instead; when only this
 * machine can reach the server, no phone can open them at all.
 */
export function inviteNotice() {
  if (loopbackOnly()) {
    return h(
      "p",
      { class: "invite-warning", role: "alert", dataset: { invite: "loopback-only" } },
      h("span", { "aria-hidden": "true" }, "⚠ "),
      t("lobby.loopback_only"),
    );
  }
  if (!openedOnLoopback() || !info) return null;
  return h(
    "p",
    { class: "invite-note", role: "status", dataset: { invite: "public" } },
    t("invite.public_base", { here: location.origin, base: inviteBase() }),
  );
}
