// 关灯抢饼 (the grab phase): the referee's form that shares out the cakes left, at random or as
// they were grabbed (views/play.js shows it in place of the throw button).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { COMMAND, TIERS } from "./protocol.js";
import { tierName } from "./rulebook.js";
import { showError, toast } from "./ui.js";

/**
 * The referee's form for the grab: the cakes left, shared out at random or by hand.
 * @param {import("./session.js").TableSession} session  a table in its grab phase (it has a state)
 */
export function grabCard(session) {
  const st = /** @type {Record<string, any>} */ (session.state);
  const pool = (st.result && st.result.pool) || {};
  /** @type {string[]} */
  const players = st.players.map((/** @type {{name: string}} */ p) => p.name);
  const tiers = TIERS.filter((tier) => pool[tier]);
  /** @type {Record<string, HTMLInputElement>} each box, by `player|tier` */
  const inputs = {};
  const rows = players.map((name) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, name),
      tiers.map((tier) => {
        const input = /** @type {HTMLInputElement} */ (
          h("input", {
            type: "number",
            min: 0,
            max: pool[tier],
            value: 0,
            class: "input input-num",
            "aria-label": t("grab.input", { player: name, tier: tierName(tier) }),
          })
        );
        inputs[`${name}|${tier}`] = input;
        return h("td", {}, input);
      }),
    ),
  );
  const submit = async (/** @type {boolean} */ random) => {
    let fields;
    if (random) {
      fields = { random: true };
    } else {
      /** @type {Record<string, Record<string, number>>} */
      const allocation = {};
      for (const name of players) {
        for (const tier of tiers) {
          const n = Number(inputs[`${name}|${tier}`].value || 0);
          if (n > 0) {
            allocation[name] = allocation[name] || {};
            allocation[name][tier] = n;
          }
        }
      }
      for (const tier of tiers) {
        const sum = players.reduce(
          (n, name) => n + Number(inputs[`${name}|${tier}`].value || 0),
          0,
        );
        if (sum !== pool[tier]) {
          toast(t("grab.mismatch", { tier: tierName(tier), sum, left: pool[tier] }), {
            kind: "error",
          });
          return;
        }
      }
      fields = { allocation };
    }
    try {
      await session.send(COMMAND.GRAB, fields);
    } catch (err) {
      showError(err);
    }
  };
  return h(
    "section",
    { class: "card grab-card" },
    h("h3", { class: "card-title" }, t("grab.title")),
    h(
      "p",
      {},
      t("grab.hint", {
        left: tiers.map((tier) => `${tierName(tier)} ${pool[tier]}`).join(" · "),
      }),
    ),
    h(
      "button",
      { type: "button", class: "btn btn-primary btn-block", onclick: () => submit(true) },
      t("grab.random"),
    ),
    h(
      "details",
      { class: "grab-manual" },
      h("summary", {}, t("grab.manual")),
      h(
        "div",
        { class: "table-scroll" },
        h(
          "table",
          { class: "grab-table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", {}, ""),
              tiers.map((tier) => h("th", { scope: "col" }, tierName(tier))),
            ),
          ),
          h("tbody", {}, rows),
        ),
      ),
      h(
        "button",
        { type: "button", class: "btn btn-ghost btn-block", onclick: () => submit(false) },
        t("grab.confirm"),
      ),
    ),
  );
}
