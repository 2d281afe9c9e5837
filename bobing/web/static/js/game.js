// Game knowledge the screens need: classification (RULES.md §2), names, the 状元 order (§3)
// and the rule switches in words. The server decides; this only explains.

import { num, t, list } from "./i18n.js";
import { RANKABLE, TIERS } from "./protocol.js";

const ALWAYS_ZHUANGYUAN = ["chajinhua", "wuhong", "wuzi", "sihong"];
const ORDINARY_TIER = {
  duitang: "duitang",
  sanhong: "sanhong",
  sijin: "sijin",
  erju: "erju",
  yixiu: "yixiu",
};

/** Parse "444412" or [4,4,4,4,1,2] into six faces, or null. */
export function parseDice(value) {
  const faces = Array.isArray(value)
    ? value.map(Number)
    : String(value || "")
        .split("")
        .map(Number);
  if (faces.length !== 6 || faces.some((f) => !Number.isInteger(f) || f < 1 || f > 6)) return null;
  return faces;
}

/** What six dice are under `rules` (RULES.md §2, first match wins). */
export function classify(dice, rules = {}) {
  const faces = parseDice(dice);
  if (!faces) throw new Error(`invalid dice ${JSON.stringify(dice)}`);
  const sorted = [...faces].sort((a, b) => a - b);
  const count = [0, 0, 0, 0, 0, 0, 0];
  for (const f of sorted) count[f] += 1;
  const fours = count[4];
  let topFace = 1;
  for (let f = 1; f <= 6; f++) if (count[f] >= count[topFace]) topFace = f;
  const top = count[topFace];
  const text = sorted.join("");
  const odd = sorted.filter((f) => f !== topFace);
  const base = { dice: sorted, text, kicker: null, face: null, bonus: [] };
  const patterns = (rules.duitang_patterns || ["123456"]).map((p) => p.split("").sort().join(""));
  if (fours === 6) return { ...base, hand: "liubohong" };
  if (count[1] === 6 && rules.six_ones === "biandijin") return { ...base, hand: "biandijin" };
  if (top === 6) return { ...base, hand: "liubohei", kicker: topFace, face: topFace };
  if (fours === 4 && count[1] === 2) return { ...base, hand: "chajinhua", face: 4 };
  if (fours === 5) return { ...base, hand: "wuhong", kicker: odd[0], face: 4 };
  if (top === 5) return { ...base, hand: "wuzi", kicker: odd[0], face: topFace };
  if (fours === 4) return { ...base, hand: "sihong", kicker: odd[0] + odd[1], face: 4 };
  if (patterns.includes(text)) return { ...base, hand: "duitang" };
  if (fours === 3) return { ...base, hand: "sanhong" };
  if (top === 4) {
    let bonus = [];
    if (rules.sijin_bonus && fours === 1) bonus = ["yixiu"];
    else if (rules.sijin_bonus && fours === 2) bonus = ["erju"];
    return { ...base, hand: "sijin", bonus, face: topFace };
  }
  if (fours === 2) return { ...base, hand: "erju" };
  if (fours === 1) return { ...base, hand: "yixiu" };
  return { ...base, hand: "none" };
}

/** Every multiset of six dice (462), ascending. */
export function multisets() {
  const out = [];
  const rec = (start, acc) => {
    if (acc.length === 6) {
      out.push(acc.slice());
      return;
    }
    for (let f = start; f <= 6; f++) {
      acc.push(f);
      rec(f, acc);
      acc.pop();
    }
  };
  rec(1, []);
  return out;
}

export function tierName(tier) {
  return t(`tier.${tier}`);
}

export function handLabel(hand) {
  return t(`hand.${hand}`);
}

/** The name people call a throw: 四红带十二, 五子带六, 状元插金花 … */
export function handName(c) {
  if (["sihong", "wuzi", "wuhong"].includes(c.hand) && c.kicker !== null) {
    return t(`hand.${c.hand}.kicker`, { kicker: num(c.kicker) });
  }
  if (c.hand === "sijin" && c.bonus.length) {
    return t("hand.sijin.bonus", { bonus: tierName(c.bonus[0]) });
  }
  return handLabel(c.hand);
}

/** Why the dice make their hand, in words. */
export function why(c) {
  const fours = c.dice.filter((f) => f === 4).length;
  if (c.hand === "sijin" && c.bonus.length) {
    return t("why.sijin.bonus", { face: c.face, fours, bonus: tierName(c.bonus[0]) });
  }
  return t(`why.${c.hand}`, { face: c.face, kicker: c.kicker, pattern: c.text, fours });
}

/** The hands whose effect makes them 状元 hands under `rules` (as the engine checks). */
export function requiredZhuangyuanHands(rules) {
  const required = new Set([...ALWAYS_ZHUANGYUAN, "liubohong"]);
  if (["zhuangyuan_end_share", "zhuangyuan"].includes(rules.liubohei)) required.add("liubohei");
  if (
    rules.six_ones === "biandijin" &&
    ["zhuangyuan", "zhuangyuan_take_remaining_end"].includes(rules.biandijin)
  )
    required.add("biandijin");
  return required;
}

/** Put `order` in line with the effects: add newly required hands, drop ones no longer allowed. */
export function fixOrder(rules) {
  const required = requiredZhuangyuanHands(rules);
  const order = (rules.zhuangyuan_order || []).filter(
    (h, i, a) => required.has(h) && a.indexOf(h) === i,
  );
  for (const hand of RANKABLE) {
    if (required.has(hand) && !order.includes(hand)) {
      // a new 状元 hand goes just below the six-of-a-kind hands above it in RANKABLE order
      const index = order.findIndex((h) => RANKABLE.indexOf(h) > RANKABLE.indexOf(hand));
      order.splice(index < 0 ? order.length : index, 0, hand);
    }
  }
  return order;
}

export function isZhuangyuanHand(hand, rules) {
  return (rules.zhuangyuan_order || []).includes(hand);
}

/** The tier a hand wins: 状元 hands → zhuangyuan, ordinary hands their own, else null. */
export function tierOf(hand, rules) {
  if (isZhuangyuanHand(hand, rules)) return "zhuangyuan";
  return ORDINARY_TIER[hand] || null;
}

/** Sort key of a 状元 hand (larger is better), as the engine's RuleSet.zhuangyuan_key. */
export function zhuangyuanKey(c, rules) {
  const order = rules.zhuangyuan_order;
  const level = order.length - order.indexOf(c.hand);
  if (c.hand === "wuzi" && rules.wuzi_compare === "face_then_kicker") {
    return [level, c.face || 0, c.kicker || 0];
  }
  return [level, c.kicker || 0, 0];
}

function cmpKey(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Every 状元 multiset grouped into levels of equal rank, best first. */
export function zhuangyuanLevels(rules) {
  const hands = multisets()
    .map((m) => classify(m, rules))
    .filter((c) => isZhuangyuanHand(c.hand, rules));
  hands.sort(
    (a, b) =>
      cmpKey(zhuangyuanKey(b, rules), zhuangyuanKey(a, rules)) || (a.text < b.text ? -1 : 1),
  );
  const levels = [];
  let last = null;
  for (const c of hands) {
    const key = zhuangyuanKey(c, rules);
    if (!last || cmpKey(key, last) !== 0) {
      levels.push([]);
      last = key;
    }
    levels[levels.length - 1].push(c);
  }
  return levels;
}

/** 1-based level of a 状元 hand and the number of levels. */
export function zhuangyuanLevel(c, rules) {
  const levels = zhuangyuanLevels(rules);
  const key = zhuangyuanKey(c, rules);
  const index = levels.findIndex((level) => cmpKey(zhuangyuanKey(level[0], rules), key) === 0);
  return { level: index + 1, levels: levels.length };
}

/** The 状元 order in words, one line per hand, best first. */
export function rankingLines(rules) {
  const levels = zhuangyuanLevels(rules);
  return rules.zhuangyuan_order.map((hand) => {
    const mine = levels.map((level) => level[0]).filter((c) => c.hand === hand);
    const name = handLabel(hand);
    if (["liubohong", "chajinhua", "biandijin"].includes(hand) || !mine.length) {
      return t("rank.plain", { name, dice: mine.length ? mine[0].text : "" });
    }
    if (hand === "wuzi" && rules.wuzi_compare === "face_then_kicker") {
      const faces = [];
      for (const c of mine) if (!faces.includes(c.face)) faces.push(c.face);
      return t("rank.wuzi.face_then_kicker", { name, faces: faces.join(" > ") });
    }
    const seq = mine.map((c) => c.kicker).join(" > ");
    const key = hand === "wuzi" ? "rank.wuzi.kicker" : `rank.${hand}`;
    return t(key, { name, seq });
  });
}

/** The 状元 order as one short line: 六勃红 > 状元插金花 > 五红 > 五子登科 > 四红. */
export function orderLine(rules) {
  return rules.zhuangyuan_order.map(handLabel).join(" > ");
}

/** What a throw wins under `rules`, in words (before any cakes are counted). */
export function effect(c, rules) {
  if (["liubohong", "liubohei", "biandijin"].includes(c.hand)) {
    const value = rules[c.hand];
    if (value !== "zhuangyuan") return t(`rule.${c.hand}.${value}`);
  }
  if (isZhuangyuanHand(c.hand, rules)) {
    const { level, levels } = zhuangyuanLevel(c, rules);
    let text = t("effect.zhuangyuan", { level, levels });
    if (c.hand === "chajinhua" && rules.chajinhua_duitang === "immediate") {
      text += t("effect.chajinhua.duitang");
    }
    return text;
  }
  const tier = tierOf(c.hand, rules);
  if (!tier) return t("effect.none");
  if (c.bonus.length)
    return t("effect.tier.bonus", { tier: tierName(tier), bonus: tierName(c.bonus[0]) });
  return t("effect.tier", { tier: tierName(tier) });
}

/** Every switch of a rule object as [label, meaning] lines. */
export function switchLines(rules) {
  const lines = [];
  lines.push([t("switch.zhuangyuan_order"), orderLine(rules)]);
  const simple = [
    "wuzi_compare",
    "wuzi_bonus",
    "sijin_bonus",
    "chajinhua_duitang",
    "chajinhua_lugu",
    "standing",
    "liubohong",
    "liubohong_spares_chajinhua",
    "liubohei",
    "six_ones",
    "biandijin",
    "tiaohou",
    "direction",
    "start_count",
    "end",
    "award",
    "liubohong_duitang",
    "zhuangyuan_cake",
    "money",
  ];
  for (const name of simple) {
    if (!(name in rules)) continue;
    if (name === "biandijin" && rules.six_ones !== "biandijin") continue;
    if (name === "liubohong_spares_chajinhua" && rules.liubohong !== "take_all_end") continue;
    if (name === "liubohong_duitang" && rules.liubohong !== "zhuangyuan") continue;
    lines.push([t(`switch.${name}`), t(`rule.${name}.${rules[name]}`)]);
  }
  if (rules.money === "pay" && rules.values) {
    const priced = Object.entries(rules.values).map(([tier, v]) => `${tierName(tier)} ${v}`);
    lines.push([t("home.values_label"), list(priced)]);
  }
  if (rules.award === "ranked") {
    lines.push([
      t("switch.rounds"),
      rules.rounds ? t("rule.rounds", { n: rules.rounds }) : t("rule.rounds.null"),
    ]);
  }
  if (rules.max_players)
    lines.push([t("switch.max_players"), t("rule.max_players", { n: rules.max_players })]);
  if (rules.chase) {
    lines.push([
      t("switch.chase"),
      t("rule.chase.on", {
        tiers: list(rules.chase.tiers.map(tierName)),
        source: t(`rule.chase.from.${rules.chase.from}`),
      }) + (rules.chase.until === "end" ? t("rule.chase.until.end") : ""),
    ]);
  } else {
    lines.push([t("switch.chase"), t("rule.chase.null")]);
  }
  lines.push([
    t("switch.duitang_patterns"),
    t("rule.duitang_patterns", { patterns: rules.duitang_patterns.join(" ") }),
  ]);
  return lines;
}

/** Prize counts of a rule object (or an override) by tier, highest first. */
export function prizeCounts(rules, override) {
  const out = {};
  for (const tier of TIERS) {
    out[tier] = override && tier in override ? override[tier] : ((rules.prizes || {})[tier] ?? 0);
  }
  return out;
}

/** Who starts after `thrower` threw `dice` (RULES.md §4): count a+b players in play direction. */
export function starterFromDice(players, thrower, dice, rules) {
  const n = players.length;
  if (!n || !dice) return null;
  const from = players.indexOf(thrower);
  if (from < 0) return null;
  const step = rules.direction === "counterclockwise" ? -1 : 1;
  const total = dice[0] + dice[1];
  const offset = rules.start_count === "from_next" ? total : total - 1;
  return players[(((from + step * offset) % n) + n) % n];
}

/** Example throws for the rules page: every hand, from the top down. */
export const EXAMPLE_THROWS = Object.freeze([
  "444444",
  "111111",
  "666666",
  "444411",
  "444445",
  "222226",
  "444466",
  "444412",
  "123456",
  "444253",
  "333315",
  "333314",
  "555544",
  "446513",
  "412553",
  "235561",
]);

export function exampleThrows(rules) {
  return EXAMPLE_THROWS.map((text) => classify(text, rules));
}
