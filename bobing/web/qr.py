"""QR codes of invite and seat links, drawn by segno (the maintained encoder) for the browser.

The browser gets the symbol as one SVG path (``M x,y h1 v1 h-1 z`` per dark module) inside a
quiet zone of four modules, and paints it with its own colours.
"""

from __future__ import annotations

from dataclasses import dataclass

import segno

QUIET_ZONE = 4
"""Modules of light border around the symbol (ISO/IEC 18004)."""
MAX_QR_TEXT = 2048
"""The longest text a QR code is drawn for (a link with tokens is about 200 characters)."""


@dataclass(frozen=True, slots=True)
class QrPath:
    """A QR symbol as an SVG path: ``size`` modules square, quiet zone included."""

    size: int
    path: str


def qr_path(text: str, error: str = "m") -> QrPath:
    """The smallest QR code of ``text`` at error level ``error`` as one SVG path.

    >>> code = qr_path("https://bobing.example/t/K7Q2MX")
    >>> code.size, code.path.startswith("M4,4h1v1h-1z")
    (37, True)
    """
    qr = segno.make(text, error=error, micro=False)
    parts: list[str] = []
    for y, row in enumerate(qr.matrix):
        for x, dark in enumerate(row):
            if dark:
                parts.append(f"M{x + QUIET_ZONE},{y + QUIET_ZONE}h1v1h-1z")
    return QrPath(len(qr.matrix) + 2 * QUIET_ZONE, "".join(parts))
