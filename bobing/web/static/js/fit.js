// @ts-check
// Sizing for screens nobody scrolls (the hall on a projector, the table's TV): how a grid of
// tiles or a list of rows is laid out in the box it has, and the font that fills it. Pure
// arithmetic on the box's size and on what the text measures in em, so every screen size (720p
// to 4K), every count (1 to 30) and every font gets the largest layout that fits instead of a
// fixed one.

/**
 * @typedef {{cols: number, rows: number, width: number, height: number,
 *   layout: "row" | "col", qr: number, font: number, pad: number}} TileGrid
 */

/**
 * How tall a tile's text is, in em of the tile's font, before the hall has measured it
 * (`tileTextEms`): events.css's number (1.5em × 1.15), three lines of 1.25, the dice row (1.3)
 * and the 0.15em margins come to 7.54 with WenQuanYi and 7.65 with Noto CJK, whose ascent,
 * descent and x-height (the dice row sits on the line's middle) differ: hence the measuring.
 */
const TILE_TEXT_EMS = 7.6;
/** About how many characters a tile's text line holds. */
const TILE_CHARS = 12;

/**
 * How tall the tallest of `bodies` (the tiles' text) is, in em of its own font, each line laid
 * out unwrapped: what the line heights, margins and the fonts this machine draws with really
 * need, so a tile's text fits in the tile with Noto CJK as with WenQuanYi (issue 33). The
 * ratio does not depend on the font size, so it is measured at whatever size the tiles have.
 * @param {Iterable<HTMLElement>} bodies
 */
export function tileTextEms(bodies) {
  const all = [...bodies];
  for (const body of all) body.style.setProperty("white-space", "nowrap");
  let ems = 0;
  for (const body of all) {
    const font = parseFloat(getComputedStyle(body).fontSize);
    if (font > 0) ems = Math.max(ems, body.getBoundingClientRect().height / font);
  }
  for (const body of all) body.style.removeProperty("white-space");
  return ems || TILE_TEXT_EMS;
}

/**
 * One tile of `width` × `height`: the QR beside the text ("row") or above it ("col"),
 * whichever gives the larger balance of QR size and text size. `textEms` is how tall the
 * tile's text is in em (`tileTextEms`).
 * @param {number} width
 * @param {number} height
 * @param {number} [textEms]
 */
export function tileMetrics(width, height, textEms = TILE_TEXT_EMS) {
  const pad = Math.max(4, Math.min(width, height) * 0.05);
  // A QR about nine lines of text tall balances scanning from the room and reading: each
  // layout's QR is the largest up to that balance (and up to its share of the tile), and the
  // text gets what is left of the tile, as tall as it measures.
  const acrossRow = (width - 3 * pad) / (TILE_CHARS + 9);
  const fontRowMax = Math.min((height - 2 * pad) / textEms, acrossRow);
  const qrRow = Math.min(height - 2 * pad, width * 0.48, width - 3 * pad - TILE_CHARS * fontRowMax);
  const fontRow = Math.min((height - 2 * pad) / textEms, (width - qrRow - 3 * pad) / TILE_CHARS);
  const fontColMax = Math.min((height - 3 * pad) / (textEms + 9), (width - 2 * pad) / TILE_CHARS);
  const qrCol = Math.min(width - 2 * pad, height * 0.56, height - 3 * pad - textEms * fontColMax);
  const fontCol = Math.min((height - qrCol - 3 * pad) / textEms, (width - 2 * pad) / TILE_CHARS);
  const row = Math.min(qrRow, fontRow * 9);
  const col = Math.min(qrCol, fontCol * 9);
  return row >= col
    ? { layout: /** @type {const} */ ("row"), qr: qrRow, font: fontRow, pad, score: row }
    : { layout: /** @type {const} */ ("col"), qr: qrCol, font: fontCol, pad, score: col };
}

/**
 * The grid for `n` tiles in a `width` × `height` box with `gap` between tiles: the column
 * count whose tiles score best (fewer empty cells on a tie). `textEms`: how tall a tile's text
 * is in em (`tileTextEms`).
 * @param {number} n
 * @param {number} width
 * @param {number} height
 * @param {number} gap
 * @param {number} [textEms]
 * @returns {TileGrid}
 */
export function tileGrid(n, width, height, gap, textEms = TILE_TEXT_EMS) {
  let best = null;
  for (let cols = 1; cols <= Math.max(1, n); cols++) {
    const rows = Math.ceil(n / cols);
    const w = (width - gap * (cols - 1)) / cols;
    const h = (height - gap * (rows - 1)) / rows;
    if (w <= 0 || h <= 0) continue;
    const m = tileMetrics(w, h, textEms);
    const empty = cols * rows - n;
    if (!best || m.score > best.score + 0.5 || (m.score > best.score - 0.5 && empty < best.empty))
      best = { cols, rows, width: w, height: h, empty, ...m };
  }
  if (!best) return { cols: 1, rows: n, width, height, layout: "row", qr: 0, font: 1, pad: 0 };
  const { cols, rows, layout, qr, font, pad } = best;
  return {
    cols,
    rows,
    width: best.width,
    height: best.height,
    layout,
    qr: Math.floor(qr),
    font: Math.max(1, Math.floor(font * 10) / 10),
    pad: Math.floor(pad),
  };
}

/**
 * A list of `n` rows, each about `chars` characters wide, in a `width` × `height` box: the
 * column count and font size that make it largest (capped at `maxFont`).
 * @param {number} n
 * @param {number} width
 * @param {number} height
 * @param {{chars?: number, lineHeight?: number, maxCols?: number, maxFont?: number,
 *   gap?: number}} [options]
 */
export function listGrid(
  n,
  width,
  height,
  { chars = 18, lineHeight = 1.5, maxCols = 4, maxFont = Infinity, gap = 0.04 } = {},
) {
  let best = { cols: 1, rows: Math.max(1, n), font: 1 };
  for (let cols = 1; cols <= maxCols; cols++) {
    const rows = Math.max(1, Math.ceil(n / cols));
    const colWidth = (width * (1 - gap * (cols - 1))) / cols;
    const font = Math.min(height / (rows * lineHeight), colWidth / chars, maxFont);
    if (font > best.font + 0.5) best = { cols, rows, font };
    if (rows === 1) break;
  }
  return { ...best, font: Math.max(1, Math.floor(best.font * 10) / 10) };
}

/**
 * Scale `el` (CSS zoom) so that it ends above the bottom of the window: a TV's end screen
 * with 30 rows is read, not scrolled. Sets `data-fitted="yes"` once laid out.
 * @param {HTMLElement} el
 * @param {{floor?: number, margin?: number}} [options]
 */
export function fitToScreen(el, { floor = 0.35, margin = 8 } = {}) {
  el.style.removeProperty("zoom");
  let zoom = 1;
  const first = el.getBoundingClientRect();
  // what the page has below the element (the main area's padding, a footer) stays below it
  const below = Math.max(
    0,
    document.documentElement.scrollHeight - (first.bottom + window.scrollY),
  );
  const fits = (z) => {
    if (z === 1) el.style.removeProperty("zoom");
    else el.style.setProperty("zoom", String(z));
    const box = el.getBoundingClientRect();
    return box.height <= window.innerHeight - (box.top + window.scrollY) - below - margin + 0.5;
  };
  // zooming out makes the content wider, which reflows it shorter: the largest zoom that fits
  // is found by halving (eight layouts at most, once per end screen)
  if (!fits(1)) {
    let lo = floor;
    let hi = 1;
    for (let round = 0; round < 8; round++) {
      const mid = Math.round(((lo + hi) / 2) * 1000) / 1000;
      if (fits(mid)) lo = mid;
      else hi = mid;
    }
    zoom = lo;
    fits(zoom);
  }
  el.dataset.fitted = "yes";
  return zoom;
}
