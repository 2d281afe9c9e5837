// Fireworks of paper for a 状元 hand and for the ceremony: a short burst drawn on one canvas.
// Nothing moves under prefers-reduced-motion.

import { reducedMotion } from "./dom.js";

const COLOURS = ["#f6d37c", "#e9b54a", "#c62d2f", "#ff7a5c", "#fff3cf", "#3a6fc8"];
const DURATION_MS = 2600;

/**
 * @type {{ cancel: any; } | null}
 */
let running = null;

/** One burst of confetti from the top of the screen (returns false when motion is reduced). */
export function confetti({ pieces = 140 } = {}) {
  if (reducedMotion()) return false;
  if (running) running.cancel();
  const canvas = document.createElement("canvas");
  canvas.className = "confetti";
  canvas.setAttribute("aria-hidden", "true");
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  canvas.width = window.innerWidth * dpr;
  canvas.height = window.innerHeight * dpr;
  document.body.appendChild(canvas);
  const ctx = canvas.getContext("2d");
  if (!ctx) {
    canvas.remove();
    return false;
  }
  ctx.scale(dpr, dpr);
  const w = window.innerWidth;
  const bits = Array.from({ length: pieces }, () => ({
    x: w / 2 + (Math.random() - 0.5) * w * 0.3,
    y: -10 - Math.random() * 40,
    vx: (Math.random() - 0.5) * 9,
    vy: 2 + Math.random() * 6,
    r: Math.random() * Math.PI,
    vr: (Math.random() - 0.5) * 0.3,
    s: 5 + Math.random() * 7,
    c: COLOURS[Math.floor(Math.random() * COLOURS.length)],
  }));
  const start = performance.now();
  let frame = 0;
  const stop = () => {
    cancelAnimationFrame(frame);
    canvas.remove();
    running = null;
  };
  const step = (/** @type {number} */ now) => {
    const age = now - start;
    ctx.clearRect(0, 0, w, window.innerHeight);
    ctx.globalAlpha = Math.max(0, 1 - age / DURATION_MS);
    for (const b of bits) {
      b.x += b.vx;
      b.y += b.vy;
      b.vy += 0.12;
      b.vx *= 0.99;
      b.r += b.vr;
      ctx.save();
      ctx.translate(b.x, b.y);
      ctx.rotate(b.r);
      ctx.fillStyle = b.c;
      ctx.fillRect(-b.s / 2, -b.s / 4, b.s, b.s / 2);
      ctx.restore();
    }
    if (age < DURATION_MS) frame = requestAnimationFrame(step);
    else stop();
  };
  frame = requestAnimationFrame(step);
  running = { cancel: stop };
  document.documentElement.dataset.confetti = String(
    Number(document.documentElement.dataset.confetti || 0) + 1,
  );
  return true;
}
