"""Bad photos made on the spot: a PNG bomb, a photo over 40 MP, a truncated JPEG, HEIC…"""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image


def png_header_only(width: int, height: int) -> bytes:
    """A 1-bit grey PNG of ``width`` × ``height`` whose pixels are all zero: a few kilobytes that
    decode to ``width * height`` pixels (a decompression bomb when both are large)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" * (1 + (width + 7) // 8)
    compressor = zlib.compressobj(9)
    idat = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def jpeg(
    width: int = 640, height: int = 480, colour: tuple[int, int, int] = (200, 180, 150)
) -> bytes:
    """A plain JPEG (a table with no dice)."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "JPEG")
    return out.getvalue()


HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64
"""The first bytes of an iPhone's HEIC photo."""
