// The big screen's room-filling parts: the last throws, and the 状元 race (every time the
// standing 状元 changed hands, newest first).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { EVENT } from "./protocol.js";
import { diceRow } from "./dice.js";
import { classify, handName } from "./rulebook.js";
import { describeThrow } from "./award.js";

/**
 * The last `n` throws that stand, newest first.
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function recentThrows(session, n = 6) {
  const st = /** @type {import("./protocol.js").TableState} */ (session.state); // drawn with it
  const throws = session.throws().slice(-n).reverse();
  return h(
    "section",
    { class: "card tv-recent", "aria-labelledby": "tv-recent-title" },
    h("h2", { id: "tv-recent-title", class: "card-title" }, t("tv.recent")),
    throws.length
      ? h(
          "ol",
          { class: "tv-recent-list" },
          throws.map((/** @type {Record<string, any>} */ e) =>
            h(
              "li",
              {},
              h("span", { class: "tv-recent-no" }, String(e.throw)),
              h("span", { class: "tv-recent-who" }, e.player),
              e.dice ? diceRow(e.dice, { size: "sm" }) : h("span", { class: "hint" }, t("tiaohou")),
              h("span", { class: "tv-recent-hand" }, describeThrow(e, st.rules).name),
            ),
          ),
        )
      : h("p", { class: "hint" }, t("play.no_throw_yet")),
  );
}

/**
 * The 状元 race: who held the 状元 standing, with which hand, newest first.
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function zhuangyuanRace(session, n = 5) {
  const st = /** @type {import("./protocol.js").TableState} */ (session.state); // drawn with it
  const steps = session.events
    .filter(
      (/** @type {Record<string, any>} */ e) => e.type === EVENT.STANDING && !session.isVoided(e),
    )
    .slice(-n)
    .reverse();
  return h(
    "section",
    { class: "card tv-race", "aria-labelledby": "tv-race-title" },
    h("h2", { id: "tv-race-title", class: "card-title" }, t("tv.race")),
    steps.length
      ? h(
          "ol",
          { class: "tv-race-list" },
          steps.map((/** @type {Record<string, any>} */ e, /** @type {number} */ i) =>
            h(
              "li",
              { class: i === 0 ? "is-leading" : "" },
              h("span", { class: "tv-race-who" }, e.player),
              h("span", { class: "tv-race-hand" }, handName(classify(e.dice, st.rules))),
              diceRow(e.dice, { size: "sm" }),
              h("span", { class: "hint" }, t("play.at_throw", { n: e.throw })),
            ),
          ),
        )
      : h("p", { class: "hint" }, t("play.no_leader")),
  );
}
