"""What one photo may be: its bytes and its pixels (standard library only).

Apart from :mod:`bobing.vision.photo` so that the server can hold a request body to the limit
without loading NumPy, Pillow and OpenCV (``bobing.vision`` loads them on first use).
"""

from __future__ import annotations

MAX_PHOTO_BYTES = 8 * 1024 * 1024
"""The largest photo accepted, in bytes (a phone's JPEG is 2–5 MB)."""
MAX_PHOTO_PIXELS = 40_000_000
"""The most pixels a photo may declare (a 12-MP phone photo has 12 million)."""
