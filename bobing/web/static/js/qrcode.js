// @ts-check
// QR codes of links, drawn on the server by segno (POST /api/qr): the <svg class="qr"> comes at
// once, its modules when the server answers. The link goes in the body: seat links carry tokens.

import { s } from "./dom.js";
import { api } from "./api.js";

/** @type {Map<string, Promise<{size: number, path: string}>>} */
const drawn = new Map();
const KEEP = 64;

/**
 * The QR code of `text` as an SVG element (filled in when the server has drawn it).
 * @param {string} text
 * @param {{label?: string}} [options]
 * @returns {SVGElement}
 */
export function qrSvg(text, { label = "" } = {}) {
  const background = s("rect", { width: 1, height: 1, class: "qr-bg" });
  const modules = s("path", { class: "qr-fg" });
  const svg = s(
    "svg",
    {
      viewBox: "0 0 1 1",
      class: "qr",
      role: "img",
      "aria-label": label || null,
      // what the code says, readable by a test (and by anyone checking a printed card)
      "data-payload": text,
      "shape-rendering": "crispEdges",
    },
    background,
    modules,
  );
  symbol(text).then(
    ({ size, path }) => {
      svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
      background.setAttribute("width", String(size));
      background.setAttribute("height", String(size));
      modules.setAttribute("d", path);
      svg.dataset.drawn = "";
    },
    () => {}, // offline: the box stays blank; the link beside it still works
  );
  return svg;
}

/** @param {string} text */
function symbol(text) {
  let pending = drawn.get(text);
  if (!pending) {
    pending = api.qr(text);
    drawn.set(text, pending);
    pending.catch(() => drawn.delete(text));
    while (drawn.size > KEEP) drawn.delete(drawn.keys().next().value);
  }
  return pending;
}
