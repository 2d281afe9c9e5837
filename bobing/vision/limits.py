"""What one photo may be (its bytes, its pixels) and when a die read from it is unsure
(standard library only).

Apart from :mod:`bobing.vision.photo` so that the server can hold a request body to the limit
without loading NumPy, Pillow and OpenCV (``bobing.vision`` loads them on first use).
"""

from __future__ import annotations

FORMATS = ("JPEG", "PNG", "WEBP")
"""The formats read; others (HEIC, GIF, ...) are refused naming the format (the server's
media types ``image/jpeg``, ``image/png``, ``image/webp`` are these)."""
MAX_PHOTO_BYTES = 8 * 1024 * 1024
"""The largest photo accepted, in bytes (a phone's JPEG is 2–5 MB)."""
MAX_PHOTO_PIXELS = 40_000_000
"""The most pixels a photo may declare (a 12-MP phone photo has 12 million)."""
UNSURE = 0.75
"""Below this confidence a die is marked unsure (the pad asks the referee to look); served to
the browser as ``photo_unsure_below`` (``GET /api/limits``)."""
KEPT_PHOTO_SIDE = 1280
"""The long side of a photo kept as a throw's evidence (``keep_photos``): re-encoded as JPEG at
this size, the dice and the bowl stay plain to see in a fraction of the upload's bytes."""
MAX_KEPT_PHOTO_BYTES = 400 * 1024
"""The most bytes one kept photo may take (JPEG quality steps down until it fits)."""
KEPT_MEDIA_TYPE = "image/jpeg"
"""What a kept photo is, whatever was uploaded."""
