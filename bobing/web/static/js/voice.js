// Big hands called out loud in the player's language (Web Speech API), as the WeChat 博饼
// mini-programs do: "状元插金花！". Silent when the sound is muted or speech is unavailable.

import { lang } from "./i18n.js";
import { muted } from "./sound.js";

/** @type {Record<string, string>} */
const VOICE_LANG = { "zh-Hans": "zh-CN", "zh-Hant": "zh-TW", en: "en-US" };

/**
 * Hands worth calling out: every 状元 hand, the game enders and 对堂.
 * @param {string} hand
 * @param {string | null} tier
 */
export function worthCalling(hand, tier) {
  return (
    tier === "zhuangyuan" ||
    tier === "duitang" ||
    ["liubohong", "liubohei", "biandijin"].includes(hand)
  );
}

/**
 * Say `text` (one utterance at a time: a newer call-out replaces an unfinished one).
 * @param {string | undefined} text
 */
export function say(text) {
  const synth = window.speechSynthesis;
  if (!synth || muted() || typeof window.SpeechSynthesisUtterance !== "function") return false;
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.lang = VOICE_LANG[lang()] || "zh-CN";
  const voice = synth
    .getVoices()
    .find((v) => v.lang && v.lang.replace("_", "-").startsWith(utterance.lang));
  if (voice) utterance.voice = voice;
  utterance.rate = 1.05;
  synth.cancel();
  synth.speak(utterance);
  document.documentElement.dataset.lastCallout = text;
  return true;
}
