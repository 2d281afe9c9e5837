"""Measuring a screen nobody scrolls (the hall, the TV's end): what share of the viewport its
content covers, the smallest text, text that overflows its box or the screen, the QR codes."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

MEASURE = """
([rootSel, boxSel, areaSel, qrSel, skipSel]) => {
  const root = document.querySelector(rootSel);
  if (!root) return null;
  const vw = innerWidth, vh = innerHeight;
  const out = {minFont: Infinity, smallest: "", cut: [], texts: 0};
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
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = boxSel ? el.closest(boxSel) : null;
    const b = box ? box.getBoundingClientRect() : {left: 0, top: 0, right: vw, bottom: vh};
    for (const r of range.getClientRects()) {
      if (!r.width) continue;
      const outside = r.left < Math.max(0, b.left) - 1 || r.top < Math.max(0, b.top) - 1 ||
        r.right > Math.min(vw, b.right) + 1 || r.bottom > Math.min(vh, b.bottom) + 1;
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
    ``cut`` (texts outside their ``box`` or the viewport), ``covered`` (the share of the
    viewport the ``area`` elements cover), ``qrMin`` (px), ``scrolls``; texts inside ``skip``
    are left out."""
    result: dict[str, Any] = page.evaluate(MEASURE, [root, box, area, qr, skip])
    return result
