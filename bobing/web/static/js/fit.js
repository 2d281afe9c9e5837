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
 * What a tile's text needs: `ems`, how tall it is in em of the tile's font, and `frame`, the
 * tile's borders (across and down, in px).
 * @typedef {{ems: number, frame: number}} TileText
 */

/**
 * A tile's text before the hall has measured it (`tileText`): events.css's number (1.5em ×
 * 1.15), three lines of 1.25, the dice row (1.3) and the 0.15em margins come to 7.54 em with
 * WenQuanYi and 7.65 with Noto CJK, whose ascent, descent and x-height (the dice row sits on
 * the line's middle) differ: hence the measuring.
 * @type {TileText}
 */
const TILE_TEXT = { ems: 7.6, frame: 4 };
/** About how many characters a tile's text line holds. */
const TILE_CHARS = 12;

/**
 * What the tiles' text needs: the tallest of `bodies` (the tiles' text) in em of its own
 * font, and the borders of their tiles. That is what the line heights, margins and the fonts
 * this machine draws with really take, so a tile's text fits with Noto CJK as with WenQuanYi
 * (issue 33); the ratio does not depend on the font size, so it is measured at whatever size
 * the tiles have. `unwrapped` lays each line out on one line for the measure (the text's own
 * need, before a grid is chosen); without it, lines wrapped by the grid count as they are.
 * @param {Iterable<HTMLElement>} bodies
 * @param {{unwrapped?: boolean}} [options]
 * @returns {TileText}
 */
export function tileText(bodies, { unwrapped = false } = {}) {
  const all = [...bodies];
  if (unwrapped) for (const body of all) body.style.setProperty("white-space", "nowrap");
  let ems = 0;
  let frame = 0;
  for (const body of all) {
    const font = parseFloat(getComputedStyle(body).fontSize);
    if (!(font > 0)) continue;
    ems = Math.max(ems, body.getBoundingClientRect().height / font);
    const tile = body.parentElement;
    if (tile) frame = Math.max(frame, tile.offsetWidth - tile.clientWidth);
  }
  if (unwrapped) for (const body of all) body.style.removeProperty("white-space");
  return ems ? { ems, frame } : TILE_TEXT;
}

/**
 * One tile of `width` × `height` whose text needs `text` (`tileText`): the QR beside the text
 * ("row") or above it ("col"), whichever gives the larger balance of QR size and text size.
 * @param {number} width
 * @param {number} height
 * @param {TileText} [text]
 */
export function tileMetrics(width, height, text = TILE_TEXT) {
  const pad = Math.max(4, Math.min(width, height) * 0.05);
  const { ems } = text;
  const chars = TILE_CHARS;
  const w = width - text.frame;
  const h = height - text.frame;
  // A QR about nine lines of text tall balances scanning from the room and reading: each
  // layout's QR is the largest up to that balance (and up to its share of the tile), and the
  // text gets what is left of the tile, as tall as it measures.
  const fontRowMax = Math.min((h - 2 * pad) / ems, (w - 3 * pad) / (chars + 9));
  const qrRow = Math.min(h - 2 * pad, w * 0.48, w - 3 * pad - chars * fontRowMax);
  const fontRow = Math.min((h - 2 * pad) / ems, (w - qrRow - 3 * pad) / chars);
  const fontColMax = Math.min((h - 3 * pad) / (ems + 9), (w - 2 * pad) / chars);
  const qrCol = Math.min(w - 2 * pad, h * 0.56, h - 3 * pad - ems * fontColMax);
  const fontCol = Math.min((h - qrCol - 3 * pad) / ems, (w - 2 * pad) / chars);
  const row = Math.min(qrRow, fontRow * 9);
  const col = Math.min(qrCol, fontCol * 9);
  return row >= col
    ? { layout: /** @type {const} */ ("row"), qr: qrRow, font: fontRow, pad, score: row }
    : { layout: /** @type {const} */ ("col"), qr: qrCol, font: fontCol, pad, score: col };
}

/**
 * The grid for `n` tiles in a `width` × `height` box with `gap` between tiles: the column
 * count whose tiles score best (fewer empty cells on a tie), for tiles whose text needs `text`
 * (`tileText`).
 * @param {number} n
 * @param {number} width
 * @param {number} height
 * @param {number} gap
 * @param {TileText} [text]
 * @returns {TileGrid}
 */
export function tileGrid(n, width, height, gap, text = TILE_TEXT) {
  let best = null;
  for (let cols = 1; cols <= Math.max(1, n); cols++) {
    const rows = Math.ceil(n / cols);
    const w = (width - gap * (cols - 1)) / cols;
    const h = (height - gap * (rows - 1)) / rows;
    if (w <= 0 || h <= 0) continue;
    const m = tileMetrics(w, h, text);
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
  const fits = (/** @type {number} */ z) => {
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
