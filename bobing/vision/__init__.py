"""The dice reader: a photo's bytes in, every die's top face out (docs/vision.md).

No web framework here: the CLI (``bobing read-dice``) and the table route
(``POST /api/tables/{code}/read-dice``) both call :func:`read_dice`. The names below are
loaded on first use, so importing :mod:`bobing.vision.limits` (the server does, for the size
of a request body) does not load NumPy, Pillow and OpenCV.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bobing.vision.errors import PhotoError
from bobing.vision.limits import MAX_PHOTO_BYTES, MAX_PHOTO_PIXELS

if TYPE_CHECKING:
    from bobing.vision.evidence import kept_jpeg, read_and_keep
    from bobing.vision.photo import decode_photo
    from bobing.vision.reader import Die, Reading, read_dice, read_image

__all__ = [
    "MAX_PHOTO_BYTES",
    "MAX_PHOTO_PIXELS",
    "Die",
    "PhotoError",
    "Reading",
    "decode_photo",
    "kept_jpeg",
    "read_and_keep",
    "read_dice",
    "read_image",
]

_LAZY = {
    "decode_photo": "bobing.vision.photo",
    "kept_jpeg": "bobing.vision.evidence",
    "read_and_keep": "bobing.vision.evidence",
    "Die": "bobing.vision.reader",
    "Reading": "bobing.vision.reader",
    "read_dice": "bobing.vision.reader",
    "read_image": "bobing.vision.reader",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bobing.vision' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
