// Where other phones can open this server (GET /api/invite): a host who opened
// http://127.0.0.1:8000 still invites with the LAN address, and is warned when the server
// listens only on this machine (no phone could open the link).

import { getJson } from "./api.js";

let info = null;
let pending = null;
const waiting = new Set();

/** Fetch the invite address once; `onReady` runs when it arrives (for a repaint). */
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

/** Stop waiting for the invite address (a screen that went away). */
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
