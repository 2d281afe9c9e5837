// @ts-check
// One catalogue per language (i18n/<lang>.json); t(key, params) fills {name} fields.

import { staticUrl } from "./dom.js";

export const LANGS = ["zh-Hans", "zh-Hant", "en"];
export const DEFAULT_LANG = "zh-Hans";
const STORAGE_KEY = "bobing.lang";

/** @type {Map<string, Record<string, string>>} */
const catalogues = new Map();
let current = DEFAULT_LANG;
/** @type {Set<(lang: string) => void>} */
const listeners = new Set();
/** Work to finish before a new language is shown (e.g. fetching texts the server words). */
/** @type {Set<(lang: string) => unknown>} */
const preparers = new Set();

/**
 * Map a browser language tag (zh-TW, en-GB, zh-CN) to one of LANGS, or null.
 * @param {string | null | undefined} tag
 * @returns {string | null}
 */
export function normalizeLang(tag) {
  if (!tag) return null;
  const lower = String(tag).trim().replace("_", "-").toLowerCase();
  if (lower.startsWith("zh")) {
    return /hant|tw|hk|mo/.test(lower) ? "zh-Hant" : "zh-Hans";
  }
  if (lower.startsWith("en")) return "en";
  return null;
}

/** The language to use: the picker's choice, else the first supported browser language. */
export function detectLang() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved !== null && LANGS.includes(saved)) return saved;
  } catch {
    // storage may be disabled; fall through
  }
  const params = new URLSearchParams(location.search);
  const asked = normalizeLang(params.get("lang"));
  if (asked) return asked;
  for (const tag of navigator.languages || [navigator.language]) {
    const lang = normalizeLang(tag);
    if (lang) return lang;
  }
  return DEFAULT_LANG;
}

/**
 * @param {string} lang
 * @returns {Promise<Record<string, string>>}
 */
async function load(lang) {
  if (!catalogues.has(lang)) {
    // by its hashed name (the one the page preloads, kept by the browser for good)
    const response = await fetch(staticUrl(`/i18n/${lang}.json`));
    if (!response.ok) throw new Error(`catalogue ${lang}: HTTP ${response.status}`);
    catalogues.set(lang, await response.json());
  }
  return /** @type {Record<string, string>} */ (catalogues.get(lang));
}

/**
 * Load `lang` and make it current. English is the fallback for a key a catalogue lacks (none
 * does: tests/e2e/test_catalogues.py), so a Chinese page does not wait for it: it comes when
 * the browser has a moment (the page preloads only its own catalogue).
 * @param {string} lang
 * @param {{remember?: boolean}} [options]
 */
export async function setLang(lang, { remember = false } = {}) {
  if (!LANGS.includes(lang)) lang = DEFAULT_LANG;
  await Promise.all([load(lang), ...[...preparers].map((fn) => fn(lang))]);
  if (!catalogues.has("en")) whenIdle(() => load("en").catch(() => {}));
  current = lang;
  document.documentElement.lang = lang;
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, lang);
    } catch {
      // ignore
    }
  }
  for (const fn of listeners) fn(lang);
}

/**
 * Run `fn` when the browser has a moment (Safari has no requestIdleCallback).
 * @param {() => void} fn
 */
function whenIdle(fn) {
  if (typeof requestIdleCallback === "function") requestIdleCallback(fn, { timeout: 5000 });
  else setTimeout(fn, 1000);
}

export function lang() {
  return current;
}

/**
 * Run `fn(lang)` (async) before a new language is shown; the change waits for it.
 * @param {(lang: string) => unknown} fn
 */
export function beforeLangChange(fn) {
  preparers.add(fn);
  return () => preparers.delete(fn);
}

/** @param {(lang: string) => void} fn */
export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/**
 * Whether `key` exists in the current catalogue or the English one.
 * @param {string} key
 */
export function has(key) {
  return key in (catalogues.get(current) || {}) || key in (catalogues.get("en") || {});
}

/** The message `key` with `{field}`s replaced from `params` (`key.one` when `params.n` is 1 and
 * the catalogue has it); English, then the key, as fallback.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
export function t(key, params) {
  const cat = catalogues.get(current) || {};
  // a count of one has its own sentence where a language needs one ("1 game", "1 cake")
  if (params && params.n === 1 && has(`${key}.one`)) key = `${key}.one`;
  let template = cat[key];
  if (template === undefined) template = (catalogues.get("en") || {})[key];
  if (template === undefined) return key;
  if (!params) return template;
  return template.replace(
    /\{(\w+)\}/g,
    (/** @type {string} */ match, /** @type {string} */ name) =>
      name in params && params[name] !== null && params[name] !== undefined
        ? String(params[name])
        : match,
  );
}

const DIGITS = "零一二三四五六七八九";

/**
 * A small number as people say it: 十二 in Chinese, 12 in English.
 * @param {number} n
 */
export function num(n) {
  if (current === "en" || !Number.isInteger(n) || n < 0 || n > 99) return String(n);
  if (n < 10) return DIGITS[n];
  const tens = Math.floor(n / 10);
  const ones = n % 10;
  return (tens === 1 ? "" : DIGITS[tens]) + "十" + (ones ? DIGITS[ones] : "");
}

/**
 * Join a list with the language's separator (、 or , ).
 * @param {readonly unknown[]} items
 */
export function list(items) {
  return items.join(t("list.sep"));
}
