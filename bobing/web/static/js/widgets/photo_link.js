// The 📷 beside a throw in a log (the play page's and the end screen's) whose photo a
// keep_photos table kept as evidence (docs/vision.md).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { EVENT } from "../protocol.js";

/**
 * The 📷 link of a throw whose photo the table kept as evidence (keep_photos), or null.
 * @param {import("../session.js").TableSession} session
 * @param {{type: string, throw?: number}} e  an event of the log
 */
export function photoLink(session, e) {
  if (e.type !== EVENT.THROWN || typeof e.throw !== "number") return null;
  const url = session.photoUrl(e.throw);
  if (!url) return null;
  return h(
    "a",
    {
      class: "log-photo",
      href: url,
      target: "_blank",
      rel: "noopener",
      title: t("log.photo", { n: e.throw }),
      "aria-label": t("log.photo", { n: e.throw }),
    },
    "📷",
  );
}
