// @ts-check
// What the server says about a rule set (POST /api/rulebook): all 462 throws classified (hand,
// tier, kicker, bonus, name, why, effect, 状元 level), the 状元 order and every switch in words.
// The browser holds no rule of its own: it looks up what the engine computed.

import { api } from "./api.js";
import { t, lang, beforeLangChange } from "./i18n.js";
import { TIERS } from "./protocol.js";

/**
 * @typedef {Record<string, any>} Rules  A complete rule object of RULES.md §5 (RuleSet.to_json).
 * @typedef {{dice: string, hand: string, tier: string | null, kicker: number | null,
 *   bonus: string[], face: number | null, name: string, why: string, effect: string,
 *   rank: number | null}} ThrowInfo  One throw as `bobing classify --json` shows it.
 * @typedef {{value: string | boolean, label: string}} SwitchOption
 * @typedef {{name: string, label: string, value: string | boolean, options: SwitchOption[],
 *   meaning: string, applies: boolean}} SwitchInfo  A switch with a few values, in words.
 * @typedef {{rules: Rules, throws: Record<string, ThrowInfo>, levels: number,
 *   ranking: string[], order: string, switches: SwitchInfo[], lines: [string, string][],
 *   labels: Record<string, string>, meanings: Record<string, string>,
 *   chase: {tiers: string[], from: {value: string, label: string}[],
 *     until: {value: string, label: string}[]}}} Rulebook
 */

/** Rulebooks by language and rule object; a table's phones ask for few rule sets. */
const books = new Map();
/** @type {Map<string, Promise<Rulebook>>} */
const pending = new Map();
/** @type {Set<() => void>} */
const listeners = new Set();
/** Rulebooks a screen asked for before they were here (by key, with their rules): their
 * arrival paints it again. @type {Map<string, Rules>} */
const missed = new Map();
const KEEP = 24;

/**
 * A rule object as one string, whatever the order of its keys.
 * @param {unknown} value
 * @returns {string}
 */
export function ruleKey(value) {
  if (Array.isArray(value)) return `[${value.map(ruleKey).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${ruleKey(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** @param {Rules | string} rules @param {string} language */
function keyOf(rules, language) {
  return `${language} ${ruleKey(rules)}`;
}

/**
 * Fetch (once) the rulebook of `rules` in `language`; a rule object being edited comes back
 * with its 状元 order brought in line with its effects (`book.rules`).
 * @param {Rules | string} rules
 * @param {string} [language]
 * @returns {Promise<Rulebook>}
 */
export function loadRulebook(rules, language = lang()) {
  const key = keyOf(rules, language);
  if (books.has(key)) return Promise.resolve(books.get(key));
  if (!pending.has(key)) {
    const request = api
      .rulebook(rules, language)
      .then((/** @type {Rulebook} */ book) => {
        remember(key, book);
        remember(keyOf(book.rules, language), book);
        if (missed.delete(key)) for (const fn of listeners) fn();
        return book;
      })
      .finally(() => pending.delete(key));
    pending.set(key, request);
  }
  return /** @type {Promise<Rulebook>} */ (pending.get(key));
}

/** @param {string} key @param {Rulebook} book */
function remember(key, book) {
  books.delete(key);
  books.set(key, book);
  while (books.size > KEEP) books.delete(books.keys().next().value);
  saveRecent();
}

// The last few rulebooks are kept on the device too, so a table reloaded without a network
// still names its throws (they are the engine's words for the rules, not table state).
const SAVED = "bobing.rulebooks";
const SAVE = 3;

function saveRecent() {
  try {
    const recent = [...books.entries()].slice(-SAVE);
    localStorage.setItem(SAVED, JSON.stringify(recent));
  } catch {
    // no storage (private mode, full): the network will do
  }
}

try {
  const saved = typeof localStorage === "undefined" ? null : localStorage.getItem(SAVED);
  for (const [key, book] of saved ? JSON.parse(saved) : []) books.set(key, book);
} catch {
  // a damaged entry: start without it
}

/**
 * The rulebook of `rules` if it is here; otherwise null, and it is fetched (then every
 * `onRulebook` listener runs, so the screen paints again).
 * @param {Rules} rules
 * @returns {Rulebook | null}
 */
export function rulebookOf(rules) {
  if (!rules) return null;
  const book = books.get(keyOf(rules, lang()));
  if (book) return book;
  missed.set(keyOf(rules, lang()), rules);
  loadRulebook(rules).catch(() => {});
  return null;
}

// A rulebook asked for without a network is asked for again as soon as the network is back
// (the screen then paints with it, like any late rulebook).
if (typeof window !== "undefined") {
  window.addEventListener("online", () => {
    for (const rules of missed.values()) loadRulebook(rules).catch(() => {});
  });
}

/** Run `fn` when a rulebook a screen asked for arrives. @param {() => void} fn */
export function onRulebook(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// a new language: fetch the rulebooks in use in it before the screens paint again
beforeLangChange(async (language) => {
  const wanted = new Map();
  for (const [key, book] of books) {
    if (!key.startsWith(`${language} `)) wanted.set(ruleKey(book.rules), book.rules);
  }
  const recent = [...wanted.values()].slice(-4);
  await Promise.all(
    recent.map((rules) => loadRulebook(rules, language).catch(() => /** @type {null} */ (null))),
  );
});

/**
 * Six faces as the sorted text the rulebook is keyed by ("444412" → "124444"), or null.
 * @param {string | number[] | null | undefined} value
 * @returns {string | null}
 */
export function diceText(value) {
  const faces = Array.isArray(value)
    ? value.map(Number)
    : String(value || "")
        .split("")
        .map(Number);
  if (faces.length !== 6 || faces.some((f) => !Number.isInteger(f) || f < 1 || f > 6)) return null;
  return faces.sort((a, b) => a - b).join("");
}

/**
 * What six dice are under `rules`, as the server classified them; while the rulebook is on
 * its way, a throw with empty words (the screen paints again when it comes).
 * @param {string | number[]} dice
 * @param {Rules} rules
 * @returns {ThrowInfo}
 */
export function classify(dice, rules) {
  const text = diceText(dice);
  if (!text) throw new Error(`invalid dice ${JSON.stringify(dice)}`);
  const book = rulebookOf(rules);
  if (book) return book.throws[text];
  return {
    dice: text,
    hand: "",
    tier: null,
    kicker: null,
    bonus: [],
    face: null,
    name: "…",
    why: "",
    effect: "",
    rank: null,
  };
}

/** @param {string} tier */
export function tierName(tier) {
  return t(`tier.${tier}`);
}

/** @param {string} hand */
export function handLabel(hand) {
  return t(`hand.${hand}`);
}

/** The name people call a throw: 四红带十二, 五子带六, 状元插金花 … @param {ThrowInfo} c */
export function handName(c) {
  return c.name;
}

/** Why the dice make their hand, in words. @param {ThrowInfo} c */
export function why(c) {
  return c.why;
}

/** What a throw wins under its rules, in words (before any cakes are counted). @param {ThrowInfo} c */
export function effect(c) {
  return c.effect;
}

/**
 * The tier a hand wins under `rules` (状元 hands: zhuangyuan), or null.
 * @param {string} hand
 * @param {Rules} rules
 * @returns {string | null}
 */
export function tierOf(hand, rules) {
  const book = rulebookOf(rules);
  if (!book) return null;
  for (const c of Object.values(book.throws)) if (c.hand === hand) return c.tier;
  return null;
}

/** The 状元 order as one short line: 六勃红 > 状元插金花 > … @param {Rules} rules */
export function orderLine(rules) {
  const book = rulebookOf(rules);
  return book ? book.order : "…";
}

/**
 * Prize counts of a rule object (or an override) by tier, highest first.
 * @param {Rules} rules
 * @param {Record<string, number>} [override]
 */
export function prizeCounts(rules, override) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const tier of TIERS) {
    out[tier] = override && tier in override ? override[tier] : ((rules.prizes || {})[tier] ?? 0);
  }
  return out;
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
