"""The reader's errors: a photo that cannot be read is bad input (one error root)."""

from __future__ import annotations

from bobing.engine.errors import InputError


class PhotoError(InputError):
    """Bytes that are not a photo the reader accepts (not an image, truncated, too large)."""

    code = "invalid_photo"
