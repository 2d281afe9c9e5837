// Words for what happened: a throw's name and why, the cakes it moved, log lines.

import { t, num, list } from "./i18n.js";
import { classify, handName, why, tierName, tierOf } from "./rulebook.js";
import { EVENT } from "./protocol.js";
import { rankedLines } from "./ranked.js";

/**
 * What describeThrow says of a throw.
 * @typedef {{name: string, why: string, hand: string | null, dice: number[] | string | null,
 *   tiaohou: boolean, c: any}} ThrowDescription
 */

/**
 * {name, why, hand, dice, tiaohou} of a `thrown` event under the table's rules.
 * @overload
 * @param {Record<string, any>} thrown
 * @param {import("./rulebook.js").Rules} rules
 * @returns {ThrowDescription}
 */
/**
 * null for no event.
 * @overload
 * @param {Record<string, any> | null | undefined} thrown
 * @param {import("./rulebook.js").Rules} rules
 * @returns {ThrowDescription | null}
 */
/**
 * @param {Record<string, any> | null | undefined} thrown
 * @param {import("./rulebook.js").Rules} rules
 * @returns {ThrowDescription | null}
 */
export function describeThrow(thrown, rules) {
  if (!thrown) return null;
  if (!thrown.dice) {
    return {
      name: t("tiaohou"),
      why: t("why.tiaohou"),
      hand: null,
      dice: null,
      tiaohou: true,
      c: null,
    };
  }
  const c = classify(thrown.dice, rules);
  return {
    name: handName(c),
    why: why(c),
    hand: thrown.hand || c.hand,
    dice: thrown.dice,
    tiaohou: false,
    c,
  };
}

/**
 * @param {number} n
 */
function count(n) {
  return t("count.cakes", { n: num(n) });
}

/**
 * Sentences for the cakes and standings one throw produced (from `throwDetails`).
 * @param {Record<string, any>} details
 * @param {import("./protocol.js").TableState} state
 */
export function awardLines(details, state) {
  /**
   * @type {string[]}
   */
  const lines = [];
  const thrown = details.thrown;
  if (!thrown) return lines;
  const rules = state.rules;
  if (!thrown.dice) {
    lines.push(t("award.tiaohou"));
    if (details.skipNext) lines.push(t("award.skip_next", { player: thrown.player }));
    return lines;
  }
  if (rules.award === "ranked") return rankedLines(thrown, state);
  const sweep = details.awards.filter(
    (/** @type {Record<string, any>} */ a) => a.reason === "sweep",
  );
  if (sweep.length) {
    const total = sweep.reduce(
      (/** @type {any} */ n, /** @type {Record<string, any>} */ a) => n + a.count,
      0,
    );
    const fromOthers = sweep
      .filter((/** @type {Record<string, any>} */ a) => a.from)
      .reduce((/** @type {any} */ n, /** @type {Record<string, any>} */ a) => n + a.count, 0);
    lines.push(t(fromOthers ? "award.sweep_all" : "award.sweep", { n: num(total) }));
  }
  for (const a of details.awards) {
    if (a.reason === "sweep" || a.reason === "grab") continue;
    const tier = tierName(a.tier);
    if (a.reason === "chase")
      lines.push(t("award.chase", { tier, from: a.from, n: count(a.count) }));
    else if (a.reason === "chajinhua")
      lines.push(t("award.chajinhua", { tier, n: count(a.count) }));
    else if (a.reason === "bonus") lines.push(t("award.bonus", { tier, n: count(a.count) }));
    else lines.push(t("award.hand", { tier, n: count(a.count) }));
  }
  if (details.standing) {
    const lead = state.result && state.result.zhuangyuan;
    const leads = lead && lead.player === thrown.player && lead.throw === thrown.throw;
    lines.push(t(leads ? "award.standing_lead" : "award.standing", { player: thrown.player }));
  }
  const hand = thrown.hand;
  const tier = hand ? tierOf(hand, rules) : null;
  if (!details.awards.length && !details.standing && !details.grab) {
    if (tier && tier !== "zhuangyuan") lines.push(t("award.exhausted", { tier: tierName(tier) }));
    else if (hand === "liubohei" && rules.liubohei === "ignore") lines.push(t("award.ignored"));
    else if (!tier) lines.push(t("award.nothing"));
  }
  if (details.grab) lines.push(t("award.grab_open"));
  if (details.final) {
    const fin = state.final_round;
    lines.push(
      fin && fin.last_thrower
        ? t("award.final_until", { player: fin.last_thrower })
        : t("award.final"),
    );
  }
  return lines;
}

/**
 * 一二会 (RULES.md §10.2): "第 2 局 / 共 2 局" while a table plays several sets; "" with one.
 * @param {Record<string, any>} state
 */
export function setLabel(state) {
  const sets = (state.rules && state.rules.sets) || 1;
  if (sets < 2) return "";
  const n = (state.result && state.result.set) || 1;
  return t("play.set_of", { n, sets });
}

/**
 * One line of the log for an event (null for events the log does not show).
 * @param {Record<string, any>} e
 * @param {import("./rulebook.js").Rules} rules
 */
export function logLine(e, rules) {
  switch (e.type) {
    case EVENT.TABLE_CREATED:
      return t("log.created", { name: e.name });
    case EVENT.PLAYER_JOINED:
      return t("log.joined", { player: e.name, seat: e.seat });
    case EVENT.PLAYER_REMOVED:
      return t("log.removed", { player: e.name });
    case EVENT.LOBBY_LOCKED:
      return t(e.locked ? "lobby.locked_now" : "lobby.unlocked_now");
    case EVENT.SEATS_REORDERED:
      return t("log.reordered", { players: list(e.players) });
    case EVENT.START_DICE:
      return t("log.start_dice", {
        player: e.thrower,
        a: e.dice[0],
        b: e.dice[1],
        sum: e.dice[0] + e.dice[1],
      });
    case EVENT.STARTED:
      return t("log.started", { player: e.starter });
    case EVENT.THROWN: {
      const d = describeThrow(e, rules);
      return t("log.thrown", { n: e.throw, player: e.player, hand: d.name });
    }
    case EVENT.SKIPPED:
      return t("log.skipped", { player: e.player });
    case EVENT.AWARDED:
      if (e.reason === "grab")
        return t("log.grabbed", { player: e.player, tier: tierName(e.tier), n: count(e.count) });
      if (e.reason === "sweep") return null;
      if (e.from)
        return t("log.awarded_from", {
          player: e.player,
          tier: tierName(e.tier),
          n: count(e.count),
          from: e.from,
        });
      return t("log.awarded", { player: e.player, tier: tierName(e.tier), n: count(e.count) });
    case EVENT.STANDING:
      return t("log.standing", { player: e.player, hand: handName(classify(e.dice, rules)) });
    case EVENT.SKIP_NEXT:
      return t("log.skip_next", { player: e.player });
    case EVENT.FINAL:
      return t("log.final");
    case EVENT.GRAB_OPEN:
      return t("log.grab_open");
    case EVENT.GAME_OVER:
      return t(`log.game_over.${e.ended_by}`);
    case EVENT.ZHUANGYUAN:
      return t("log.zhuangyuan", { player: e.player });
    case EVENT.NEXT_SET:
      return t("log.next_set", { n: e.number, player: e.starter });
    case EVENT.PAUSED:
      return t("log.paused");
    case EVENT.RESUMED:
      return t("log.resumed");
    case EVENT.ENDED:
      return e.reason === "host" ? t("log.ended_host") : null;
    case EVENT.TIME_CALLED:
      return t(e.by === "deadline" ? "log.time_up" : "log.time_called");
    case EVENT.SEED_REVEALED:
      return t("log.seed_revealed");
    case EVENT.THROW_UNDONE:
      return t("log.undone", { n: e.throw, player: e.player, hand: describeThrow(e, rules).name });
    case EVENT.NONCE_DISPUTED:
      return t("log.nonce_disputed", {
        n: e.throw,
        player: e.player,
        sent: e.sent,
        nonce: e.nonce,
      });
    case EVENT.DICE:
      if (e.stand_in === "host") return t("log.stand_in_host", { player: e.player, n: e.throw });
      if (e.stand_in === "auto") return t("log.stand_in_auto", { player: e.player, n: e.throw });
      return null;
    case EVENT.SEAT_HANDED:
      return t("log.seat_handed", { player: e.player });
    case EVENT.SEAT_CLAIMED:
      return e.from
        ? t("log.seat_claimed_rematch", { player: e.player })
        : t("log.seat_claimed", { player: e.player });
    case EVENT.AUTO_THROW_SET:
      return e.seconds ? t("log.auto_throw_on", { s: e.seconds }) : t("log.auto_throw_off");
    case EVENT.REMATCH:
      return t("log.rematch", { code: e.code });
    default:
      return null;
  }
}

/**
 * The 状元 standing as words: "甲 · 四红带三".
 * @param {Record<string, any> | null} result
 * @param {import("./rulebook.js").Rules} rules
 */
export function leaderText(result, rules) {
  const z = result && result.zhuangyuan;
  if (!z) return null;
  if (!z.dice) return t("leader.grabbed", { player: z.player });
  return t("leader.line", { player: z.player, hand: handName(classify(z.dice, rules)) });
}

/**
 * Total cakes a player holds.
 * @param {any} holdings
 */
export function cakes(holdings) {
  return Object.values(holdings || {}).reduce((n, c) => n + c, 0);
}
