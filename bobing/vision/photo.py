"""From a photo's bytes to pixels, refusing what is not a photo before it costs anything.

The header is read first (Pillow opens lazily): the format must be JPEG, PNG or WebP and the
declared size at most :data:`MAX_PHOTO_PIXELS`, so a decompression bomb is refused before a
single pixel is decoded. A phone's 12-MP JPEG is decoded at a reduced scale (JPEG's DCT
scaling, ``Image.draft``), which is most of why a 12-MP photo reads in well under a second.
"""

from __future__ import annotations

import io
import re
import warnings

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageOps

from bobing.vision.errors import PhotoError
from bobing.vision.limits import FORMATS, MAX_PHOTO_BYTES, MAX_PHOTO_PIXELS

WORK_SIDE = 640
"""The long side the reader works at: pips stay 6–20 px wide, a photo reads in milliseconds."""

Pixels = npt.NDArray[np.uint8]


def _heic(data: bytes) -> bool:
    # An ISO-BMFF file whose brand is one of HEIF's (an iPhone's photo when not set to JPEG).
    return data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"heim")


def decode_photo(data: bytes, *, work_side: int = WORK_SIDE) -> tuple[Pixels, int, int]:
    """The photo as RGB pixels with its long side at most ``work_side``, and its full size.

    Raises :class:`PhotoError` for an empty file, a file over :data:`MAX_PHOTO_BYTES`, bytes
    that are no image, HEIC, an image over :data:`MAX_PHOTO_PIXELS` or a truncated one.
    The photo is turned upright first (EXIF orientation), as a browser shows it.
    """
    if not data:
        raise PhotoError("the photo is empty", code="photo_empty")
    if len(data) > MAX_PHOTO_BYTES:
        raise PhotoError(
            f"the photo is {len(data)} bytes, more than {MAX_PHOTO_BYTES}",
            code="photo_too_big",
            size=len(data),
            limit=MAX_PHOTO_BYTES,
        )
    if _heic(data):
        raise PhotoError("HEIC photos are not read: choose JPEG", code="photo_heic")
    try:
        with warnings.catch_warnings():
            # Pillow warns (and at twice the limit raises) on huge images: our own limit is
            # checked below, before decoding, so its warning is not needed.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        # Pillow's own guard (at twice its limit) fires while opening: it names the size.
        found = re.search(r"\((\d+) pixels\)", str(exc))
        raise _too_many(int(found.group(1)) if found else MAX_PHOTO_PIXELS + 1) from None
    except (OSError, ValueError, SyntaxError):
        raise PhotoError("the file is not a photo", code="photo_not_image") from None
    if image.format not in FORMATS:
        raise PhotoError(
            f"photos in {image.format} are not read: choose JPEG",
            code="photo_format",
            format=str(image.format),
        )
    width, height = image.size
    if width * height > MAX_PHOTO_PIXELS:
        raise _too_many(width * height)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            if image.format == "JPEG":
                image.draft("RGB", (work_side, work_side))
            image.load()
            upright = ImageOps.exif_transpose(image)
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        raise PhotoError("the photo is damaged or cut short", code="photo_truncated") from None
    if upright is not image and upright.size != image.size:
        width, height = height, width
    rgb = upright.convert("RGB")
    scale = work_side / max(rgb.size)
    if scale < 1:
        size = (max(1, round(rgb.width * scale)), max(1, round(rgb.height * scale)))
        rgb = rgb.resize(size, Image.Resampling.BOX)
    return np.asarray(rgb, dtype=np.uint8), width, height


def _too_many(pixels: int) -> PhotoError:
    return PhotoError(
        f"the photo has {pixels} pixels, more than {MAX_PHOTO_PIXELS}",
        code="photo_too_many_pixels",
        pixels=pixels,
        limit=MAX_PHOTO_PIXELS,
    )
