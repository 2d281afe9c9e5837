// Dice and the porcelain bowl. A red pip (faces 1 and 4, as on Chinese dice) is drawn as a
// ringed dot, so it reads without colour too.

import { h, s, reducedMotion, sleep } from "./dom.js";
import { t } from "./i18n.js";

/** @type {Record<number, number[][]>} */
const PIPS = {
  1: [[50, 50]],
  2: [
    [28, 28],
    [72, 72],
  ],
  3: [
    [25, 25],
    [50, 50],
    [75, 75],
  ],
  4: [
    [29, 29],
    [71, 29],
    [29, 71],
    [71, 71],
  ],
  5: [
    [26, 26],
    [74, 26],
    [50, 50],
    [26, 74],
    [74, 74],
  ],
  6: [
    [29, 23],
    [29, 50],
    [29, 77],
    [71, 23],
    [71, 50],
    [71, 77],
  ],
};

/**
 * @param {number} face
 */
export function isRed(face) {
  return face === 1 || face === 4;
}

/**
 * One die face as SVG; `face` 1-6 (0 draws a blank die).
 * @param {number} face
 */
export function dieSvg(face, { label = true } = {}) {
  const red = isRed(face);
  const svg = s("svg", {
    viewBox: "0 0 100 100",
    class: `die${red ? " die-red" : ""}`,
    role: label ? "img" : null,
    "aria-label": label && face ? t("die.face", { face }) : null,
    "aria-hidden": label ? null : "true",
    "data-face": face,
  });
  svg.appendChild(s("rect", { x: 4, y: 4, width: 92, height: 92, rx: 19, class: "die-body" }));
  svg.appendChild(s("rect", { x: 9, y: 7, width: 82, height: 40, rx: 15, class: "die-gloss" }));
  for (const [cx, cy] of PIPS[face] || []) {
    const r = face === 1 ? 14 : 9;
    if (red) {
      svg.appendChild(s("circle", { cx, cy, r, class: "pip pip-red" }));
      // the ring marker: red pips have a pale ring inside, black pips are solid
      svg.appendChild(s("circle", { cx, cy, r: r * 0.55, class: "pip-ring" }));
    } else {
      svg.appendChild(s("circle", { cx, cy, r, class: "pip pip-dark" }));
    }
  }
  return svg;
}

/**
 * A row of small dice, e.g. for the log: "444412" → six little faces.
 * @param {string} dice
 */
export function diceRow(dice, { size = "sm" } = {}) {
  const faces = typeof dice === "string" ? dice.split("").map(Number) : dice;
  return h(
    "span",
    {
      class: `dice-row dice-${size}`,
      role: "img",
      "aria-label": t("die.row", { dice: faces.join(" ") }),
    },
    faces.map((/** @type {any} */ f) => dieSvg(f, { label: false })),
  );
}

// A small seeded generator (mulberry32): every screen lays out throw N's dice the same way.
/**
 * @param {number} seed
 */
function rng(seed) {
  let a = seed >>> 0 || 1;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * @param {number} count
 * @param {number} seed
 */
function layout(count, seed) {
  const r = rng(seed * 7919 + count);
  const spots = [];
  const turn = r() * Math.PI * 2;
  if (count === 2) {
    spots.push([40, 50], [60, 50]);
  } else if (r() < 0.5) {
    for (let i = 0; i < count; i++) {
      const a = turn + (i * 2 * Math.PI) / count;
      spots.push([50 + 19 * Math.cos(a), 50 + 19 * Math.sin(a)]);
    }
  } else {
    spots.push([50, 50]);
    for (let i = 0; i < count - 1; i++) {
      const a = turn + (i * 2 * Math.PI) / (count - 1);
      spots.push([50 + 22 * Math.cos(a), 50 + 22 * Math.sin(a)]);
    }
  }
  return spots.map(([x, y]) => ({
    x: x + (r() - 0.5) * 3,
    y: y + (r() - 0.5) * 3,
    rot: (r() - 0.5) * 70,
  }));
}

/** The bowl with its dice. */
export class Bowl {
  constructor({ big = false } = {}) {
    this.tray = h("div", { class: "bowl-dice" });
    this.stamp = h("div", { class: "bowl-stamp", hidden: true });
    this.el = h(
      "div",
      { class: `bowl${big ? " bowl-big" : ""}` },
      h("div", { class: "bowl-rim", "aria-hidden": "true" }, bowlPattern()),
      h("div", { class: "bowl-well", "aria-hidden": "true" }),
      this.tray,
      this.stamp,
    );
    /** @type {number[]} */
    this.faces = [];
    this.rolling = false;
    this.token = 0;
  }

  /**
   * Show dice at rest (`faces` an array or "444412"; empty shows an empty bowl).
   * @param {string | number[] | null} faces
   * @param {{seed?: number, stamp?: string | null}} [options]
   */
  show(faces, { seed = 1, stamp = null } = {}) {
    this.token += 1;
    this.rolling = false;
    this.el.classList.remove("is-rolling");
    faces = typeof faces === "string" ? faces.split("").map(Number) : faces || [];
    this.faces = faces;
    const spots = layout(faces.length, seed);
    this.tray.replaceChildren(
      ...faces.map((/** @type {number} */ face, /** @type {number} */ i) => {
        const wrap = h("div", { class: "bowl-die" }, dieSvg(face));
        this.place(wrap, spots[i]);
        return wrap;
      }),
    );
    this.setStamp(stamp);
  }

  /**
   * @param {string | null} text
   */
  setStamp(text) {
    this.stamp.hidden = !text;
    this.stamp.textContent = text || "";
  }

  /**
   * @param {Record<string, any>} wrap
   * @param {Record<string, any>} spot
   */
  place(wrap, spot) {
    wrap.style.left = `${spot.x}%`;
    wrap.style.top = `${spot.y}%`;
    wrap.style.transform = `translate(-50%, -50%) rotate(${spot.rot}deg)`;
  }

  /**
   * Tumble the dice until `result` (faces, or a promise of faces; null for a 跳猴) arrives,
   * then settle them. Resolves once they rest.
   * @param {any} result
   * @param {{seed?: number, count?: number, minMs?: number, onSettle?: (() => void) | null,
   *   onShown?: (() => void) | null, quick?: boolean}} [options]
   */
  async roll(
    result,
    { seed = 1, count = 6, minMs = 700, onSettle = null, onShown = null, quick = false } = {},
  ) {
    const token = ++this.token;
    this.setStamp(null);
    if (quick) {
      // a newer throw while the bowl is still busy: show it as soon as it is known (the
      // bowl never falls behind the game); a short pop says the dice changed
      const faces = await result;
      if (token !== this.token) return;
      this.showResult(faces, seed, count);
      if (onShown) onShown();
      if (!reducedMotion())
        this.el.animate([{ transform: "scale(0.97)" }, { transform: "scale(1)" }], {
          duration: 160,
        });
      if (onSettle) onSettle();
      return;
    }
    if (reducedMotion()) {
      const faces = await result;
      if (token !== this.token) return;
      this.showResult(faces, seed, count);
      if (onShown) onShown();
      if (onSettle) onSettle();
      return;
    }
    this.rolling = true;
    this.el.classList.add("is-rolling");
    const r = rng(Date.now() & 0xffff);
    /**
     * @type {any[]}
     */
    const wraps = [];
    for (let i = 0; i < count; i++) {
      const face = 1 + Math.floor(r() * 6);
      const wrap = h("div", { class: "bowl-die" }, dieSvg(face, { label: false }));
      this.place(wrap, { x: 50 + (r() - 0.5) * 40, y: 50 + (r() - 0.5) * 40, rot: r() * 360 });
      wraps.push(wrap);
    }
    this.tray.replaceChildren(...wraps);
    const flicker = setInterval(() => {
      for (const wrap of wraps)
        wrap.replaceChildren(dieSvg(1 + Math.floor(r() * 6), { label: false }));
    }, 90);
    const tumbles = wraps.map((wrap, i) =>
      wrap.animate(
        [
          { transform: `translate(-50%, -50%) translate(0, 0) rotate(0deg)` },
          {
            transform: `translate(-50%, -50%) translate(${(r() - 0.5) * 120}%, ${(r() - 0.5) * 120}%) rotate(${180 + i * 40}deg)`,
          },
          { transform: `translate(-50%, -50%) translate(0, 0) rotate(${360 + i * 60}deg)` },
        ],
        { duration: 420 + i * 35, iterations: Infinity, easing: "ease-in-out" },
      ),
    );
    const [faces] = await Promise.all([result, sleep(minMs)]);
    clearInterval(flicker);
    for (const anim of tumbles) anim.cancel();
    if (token !== this.token) return;
    this.showResult(faces, seed, count);
    // the faces are in the bowl; the landing is still animation (a newer throw cuts it short)
    this.rolling = true;
    this.el.classList.add("is-rolling");
    if (onShown) onShown();
    // the landing: each die drops into its spot
    const landing = Array.from(this.tray.children).map((wrap, i) =>
      wrap
        .animate(
          [
            { opacity: 0.4, transform: `${wrap.style.transform} scale(1.5)` },
            { opacity: 1, transform: `${wrap.style.transform} scale(0.94)`, offset: 0.7 },
            { opacity: 1, transform: `${wrap.style.transform} scale(1)` },
          ],
          { duration: 380, delay: i * 40, easing: "cubic-bezier(.2,.8,.3,1.2)" },
        )
        .finished.catch(() => {}),
    );
    if (onSettle) onSettle();
    await Promise.all(landing);
    if (token !== this.token) return; // a newer roll owns the bowl now
    this.el.classList.remove("is-rolling");
    this.rolling = false;
  }

  /**
   * @param {string | any[] | null | undefined} faces
   * @param {number} seed
   * @param {number} count
   */
  showResult(faces, seed, count) {
    if (faces === null || faces === undefined) {
      this.show([], { seed, stamp: t("tiaohou.short") });
    } else if (faces === "blank") {
      this.show([], { seed });
    } else {
      this.show(faces.length ? faces : new Array(count).fill(0), { seed });
    }
  }
}

function bowlPattern() {
  // the blue-and-white band: a ring of small cloud scrolls around the rim
  const svg = s("svg", { viewBox: "0 0 200 200", class: "bowl-pattern" });
  svg.appendChild(s("circle", { cx: 100, cy: 100, r: 96, class: "rim-outer" }));
  svg.appendChild(s("circle", { cx: 100, cy: 100, r: 88, class: "rim-band" }));
  svg.appendChild(s("circle", { cx: 100, cy: 100, r: 80, class: "rim-inner" }));
  for (let i = 0; i < 24; i++) {
    const a = (i / 24) * Math.PI * 2;
    const x = 100 + 88 * Math.cos(a);
    const y = 100 + 88 * Math.sin(a);
    const deg = (a * 180) / Math.PI + 90;
    svg.appendChild(
      s("path", {
        d: "M -4 1.5 q 2 -5 4 0 q 2 -5 4 0",
        class: "rim-cloud",
        transform: `translate(${x.toFixed(2)} ${y.toFixed(2)}) rotate(${deg.toFixed(1)})`,
      }),
    );
  }
  return svg;
}
