"""The dice reader: a photo's bytes in, every die's top face out (docs/vision.md).

No web framework here: the CLI (``bobing read-dice``) and the table route
(``POST /api/tables/{code}/read-dice``) both call :func:`read_dice`.
"""

from __future__ import annotations

from bobing.vision.errors import PhotoError
from bobing.vision.photo import MAX_PHOTO_BYTES, MAX_PHOTO_PIXELS, decode_photo
from bobing.vision.reader import Die, Reading, read_dice, read_image

__all__ = [
    "MAX_PHOTO_BYTES",
    "MAX_PHOTO_PIXELS",
    "Die",
    "PhotoError",
    "Reading",
    "decode_photo",
    "read_dice",
    "read_image",
]
