"""A photo kept as a throw's evidence (a ``keep_photos`` table): read, and re-encoded small.

The upload itself is not kept: it may be 8 MB, and a phone's JPEG carries EXIF (where and when
it was taken, the phone's make). What is kept is the photo as the reader saw it, upright, its
long side at most :data:`KEPT_PHOTO_SIDE`, as a fresh JPEG with no metadata and at most
:data:`MAX_KEPT_PHOTO_BYTES` (the quality steps down until it fits).
"""

from __future__ import annotations

import io

from PIL import Image

from bobing.vision.limits import KEPT_PHOTO_SIDE, MAX_KEPT_PHOTO_BYTES
from bobing.vision.photo import decode_photo
from bobing.vision.reader import Reading, read_dice

QUALITIES = (82, 70, 55, 40, 25)
"""JPEG qualities tried in turn until the photo fits :data:`MAX_KEPT_PHOTO_BYTES`."""


def kept_jpeg(data: bytes) -> bytes:
    """The photo of ``data`` as the JPEG to keep; ``PhotoError`` as :func:`decode_photo`."""
    rgb, _, _ = decode_photo(data, work_side=KEPT_PHOTO_SIDE)
    image = Image.fromarray(rgb, "RGB")
    while True:
        for quality in QUALITIES:
            buffer = io.BytesIO()
            image.save(buffer, "JPEG", quality=quality, optimize=True)
            if buffer.tell() <= MAX_KEPT_PHOTO_BYTES:
                return buffer.getvalue()
        # Noise no quality squeezes in (a photo of static): halve the size and try again.
        image = image.resize((max(1, image.width // 2), max(1, image.height // 2)))


def read_and_keep(data: bytes) -> tuple[Reading, bytes]:
    """The dice of the photo (as :func:`read_dice`) and the JPEG to keep of it."""
    reading = read_dice(data)
    return reading, kept_jpeg(data)
