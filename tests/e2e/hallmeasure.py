"""Measuring a screen nobody scrolls (the hall, the TV's end): what share of the viewport its
content covers, the smallest text, text that overflows its box or the screen, the QR codes.

"Cut" is judged by the ink a person sees, not by the font's ascent and descent: those differ
from font to font (issue 33: Noto CJK's reach above a line box that WenQuanYi's fit), so the
check gives one answer whichever CJK fonts a machine has."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

MEASURE = """
([rootSel, boxSel, areaSel, qrSel, skipSel]) => {
  const root = document.querySelector(rootSel);
  if (!root) return null;
  const vw = innerWidth, vh = innerHeight;
  const out = {minFont: Infinity, smallest: "", cut: [], texts: 0};
  const pen = document.createElement("canvas").getContext("2d");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el.getClientRects().length || el.closest(".sr-only,[hidden]")) continue;
    if (skipSel && el.closest(skipSel)) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden") continue;
    out.texts++;
    // computed sizes leave CSS zoom out (a screen scaled to fit): multiply it back in
    let zoom = 1;
    for (let a = el; a; a = a.parentElement) zoom *= parseFloat(getComputedStyle(a).zoom) || 1;
    const size = parseFloat(style.fontSize) * zoom;
    if (size < out.minFont) { out.minFont = size; out.smallest = node.textContent.trim(); }
    // The bounds the text must stay in: the screen, its box, and every ancestor that clips.
    const bound = {left: 0, top: 0, right: vw, bottom: vh};
    const within = (r) => {
      bound.left = Math.max(bound.left, r.left); bound.top = Math.max(bound.top, r.top);
      bound.right = Math.min(bound.right, r.right); bound.bottom = Math.min(bound.bottom, r.bottom);
    };
    const box = boxSel ? el.closest(boxSel) : null;
    if (box) within(box.getBoundingClientRect());
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      const clipsX = s.overflowX !== "visible", clipsY = s.overflowY !== "visible";
      if (!clipsX && !clipsY) continue;
      const r = a.getBoundingClientRect();  // its padding box: the border box less the borders
      const left = r.left + a.clientLeft, top = r.top + a.clientTop;
      within({left: clipsX ? left : -Infinity, right: clipsX ? left + a.clientWidth : Infinity,
        top: clipsY ? top : -Infinity, bottom: clipsY ? top + a.clientHeight : Infinity});
    }
    // A text's client rects are as tall as its font's ascent plus descent, which differ from
    // font to font (Noto CJK's reach well above its line box, WenQuanYi's hardly): what a
    // person sees cut is the ink, so narrow each rect to the ink's top and bottom, measured
    // with the same font. Across, the advance holds the ink of upright text.
    pen.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const m = pen.measureText(node.textContent);
    const em = m.fontBoundingBoxAscent + m.fontBoundingBoxDescent;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (!r.width) continue;
      const baseline = r.top + (r.height * m.fontBoundingBoxAscent) / em;
      const top = baseline - (r.height * m.actualBoundingBoxAscent) / em;
      const bottom = baseline + (r.height * m.actualBoundingBoxDescent) / em;
      const outside = r.left < bound.left - 1 || top < bound.top - 1 ||
        r.right > bound.right + 1 || bottom > bound.bottom + 1;
      if (outside) out.cut.push(node.textContent.trim().slice(0, 40));
    }
  }
  let area = 0;
  for (const el of root.querySelectorAll(areaSel)) {
    const r = el.getBoundingClientRect();
    area += Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)) *
      Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
  }
  out.covered = area / (vw * vh);
  const qrs = [...root.querySelectorAll(qrSel)].map(q => q.getBoundingClientRect().width);
  out.qrMin = qrs.length ? Math.min(...qrs) : null;
  out.qrCount = qrs.length;
  out.scrolls = document.documentElement.scrollHeight > vh + 1 ||
    document.documentElement.scrollWidth > vw + 1;
  return out;
}
"""


def measure(
    page: Page,
    root: str,
    *,
    box: str | None = None,
    area: str,
    qr: str = ".qr",
    skip: str | None = None,
) -> dict[str, Any]:
    """The measures of the screen under ``root``: ``minFont`` (px) and its ``smallest`` text,
    ``cut`` (texts whose ink leaves their ``box``, an ancestor that clips, or the viewport),
    ``covered`` (the share of the viewport the ``area`` elements cover), ``qrMin`` (px),
    ``scrolls``; texts inside ``skip`` are left out."""
    result: dict[str, Any] = page.evaluate(MEASURE, [root, box, area, qr, skip])
    return result
