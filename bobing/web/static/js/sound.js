// Sounds synthesized with Web Audio (no audio files): dice rattling on porcelain, a chime for
// a prize, a gong for a 状元 hand. Starts only after a user gesture; mutable.

import { prefs, setPref } from "./device_store.js";

/**
 * @type {AudioContext | null}
 */
let ctx = null;
/**
 * @type {GainNode | null}
 */
let master = null;

function audio() {
  if (ctx) return ctx;
  const Ctor = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
  if (!Ctor) return null;
  ctx = new Ctor();
  master = ctx.createGain();
  master.gain.value = 0.6;
  master.connect(ctx.destination);
  return ctx;
}

/** Call from a click or key handler: browsers only start audio after a gesture. */
export function unlock() {
  if (muted()) return;
  const c = audio();
  if (c && c.state === "suspended") c.resume().catch(() => {});
}

export function muted() {
  return Boolean(prefs().muted);
}

/**
 * @param {boolean} value
 */
export function setMuted(value) {
  setPref("muted", Boolean(value));
  if (!value) unlock();
}

function ready() {
  if (muted() || !ctx || ctx.state !== "running") return null;
  return ctx;
}

/** @type {AudioBuffer | null} */
let noiseBuffer = null;
/**
 * @param {BaseAudioContext} c
 */
function noise(c) {
  if (!noiseBuffer) {
    noiseBuffer = c.createBuffer(1, Math.floor(c.sampleRate * 0.05), c.sampleRate);
    const data = noiseBuffer.getChannelData(0);
    for (let i = 0; i < data.length; i++)
      data[i] = (Math.random() * 2 - 1) * Math.exp(-i / (data.length / 6));
  }
  return noiseBuffer;
}

// One die hitting porcelain: a short filtered noise burst plus a bright ping.
/**
 * @param {BaseAudioContext} c
 * @param {number} at
 * @param {number} strength
 */
function click(c, at, strength) {
  const src = c.createBufferSource();
  src.buffer = noise(c);
  const band = c.createBiquadFilter();
  band.type = "bandpass";
  band.frequency.value = 2500 + Math.random() * 3500;
  band.Q.value = 4;
  const gain = c.createGain();
  gain.gain.value = 0.5 * strength;
  src
    .connect(band)
    .connect(gain)
    .connect(/** @type {GainNode} */ (master)); // made with the context
  src.start(at);

  const ping = c.createOscillator();
  ping.type = "sine";
  ping.frequency.value = 3200 + Math.random() * 2400;
  const pg = c.createGain();
  pg.gain.setValueAtTime(0.05 * strength, at);
  pg.gain.exponentialRampToValueAtTime(0.0001, at + 0.12);
  ping.connect(pg).connect(/** @type {GainNode} */ (master)); // made with the context
  ping.start(at);
  ping.stop(at + 0.13);
}

/** Dice rattling in the bowl for about `seconds`. */
export function rattle(seconds = 0.9) {
  const c = ready();
  if (!c) return;
  const now = c.currentTime;
  const hits = Math.round(seconds * 28);
  for (let i = 0; i < hits; i++) {
    const at = now + Math.random() * seconds;
    const fade = 1 - (at - now) / (seconds * 1.3);
    click(c, at, 0.35 + Math.random() * 0.65 * fade);
  }
}

/** The dice settling: a few last knocks. */
export function settle() {
  const c = ready();
  if (!c) return;
  const now = c.currentTime;
  for (let i = 0; i < 6; i++) click(c, now + i * 0.035 + Math.random() * 0.03, 0.8 - i * 0.1);
}

/**
 * @param {BaseAudioContext} c
 * @param {number} freq
 * @param {number} at
 * @param {number} duration
 * @param {{type?: OscillatorType, volume?: number}} [options]
 */
function tone(c, freq, at, duration, { type = "sine", volume = 0.2 } = {}) {
  const osc = c.createOscillator();
  osc.type = type;
  osc.frequency.value = freq;
  const gain = c.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(volume, at + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + duration);
  osc.connect(gain).connect(/** @type {GainNode} */ (master)); // made with the context
  osc.start(at);
  osc.stop(at + duration + 0.05);
}

/** A prize: a small pentatonic chime (higher tiers ring more notes). */
export function chime(notes = 2) {
  const c = ready();
  if (!c) return;
  const scale = [523.25, 587.33, 659.25, 783.99, 880.0, 1046.5];
  const now = c.currentTime;
  for (let i = 0; i < notes; i++)
    tone(c, scale[i % scale.length], now + i * 0.09, 0.6, { volume: 0.12 });
}

/** A 状元 hand: a gong. */
export function gong() {
  const c = ready();
  if (!c) return;
  const now = c.currentTime;
  for (const [f, v] of [
    [110, 0.3],
    [164.8, 0.14],
    [220, 0.1],
    [329.6, 0.05],
  ]) {
    tone(c, f, now, 2.6, { type: "sine", volume: v });
  }
  chime(5);
}
