"""Display text (the one rule, for an organiser's roster and every name at a table): trimmed,
NFC, no markup or control characters, at least one visible character, bounded."""

from __future__ import annotations

import unicodedata
from typing import Any

from bobing.engine.errors import InputError

MARKUP = frozenset("<>&\"'")


def _ranges(*spans: tuple[int, int]) -> frozenset[str]:
    return frozenset(chr(c) for lo, hi in spans for c in range(lo, hi + 1))


DEFAULT_IGNORABLE = _ranges(
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): drawn as nothing."""

BLANK = DEFAULT_IGNORABLE | frozenset("\u2800")
"""Characters that show nothing: the ignorables and the blank Braille pattern."""


def name_key(name: str) -> str:
    """What a name looks like: NFKC, without default-ignorables, spaces collapsed.

    Two names with one key cannot sit at one table (``A`` and ``A`` + U+200D look the same).

    >>> name_key("A\u200d") == name_key("Ａ")
    True
    """
    folded = unicodedata.normalize("NFKC", name)
    return " ".join("".join(c for c in folded if c not in DEFAULT_IGNORABLE).split())


def display_text(value: Any, *, key: str, limit: int) -> str:
    """``value`` as a clean display text, or an :class:`InputError` naming ``key``."""
    if not isinstance(value, str):
        raise InputError(f"{key} must be text, not {value!r}"[:200], code="not_text", key=key)
    text = unicodedata.normalize("NFC", value.strip())
    if not text:
        raise InputError(f"{key} is empty", code="empty_text", key=key)
    bad = sorted({c for c in text if c in MARKUP or _control(c)})
    if bad:
        shown = "".join(c if c.isprintable() else repr(c) for c in bad)
        raise InputError(
            f"invalid {key} {text[:80]!r}: characters {shown!r} are not allowed",
            code="bad_text",
            key=key,
            text=text[:80],
            characters=shown,
        )
    if all(c in BLANK or c.isspace() or unicodedata.category(c) in ("Mn", "Me") for c in text):
        raise InputError(
            f"invalid {key} {text[:80]!r}: it has no visible character",
            code="invisible_text",
            key=key,
            text=text[:80],
            characters="".join(f"U+{ord(c):04X}" for c in sorted(set(text)))[:80],
        )
    if len(text) > limit:
        raise InputError(
            f"{key} {text[:80]!r} has {len(text)} characters; at most {limit}",
            code="text_too_long",
            key=key,
            text=text[:80],
            length=len(text),
            limit=limit,
        )
    return text


def _control(char: str) -> bool:
    category = unicodedata.category(char)
    if category == "Cf":
        return char != "\u200d"  # the zero-width joiner builds emoji
    return category in ("Cc", "Cs", "Co", "Cn") or char in "\u2028\u2029"


def amount(value: Any, *, key: str, limit: float) -> float | int:
    """A money amount 0..limit (a whole number stays an int)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or value != value
        or not 0 <= value <= limit
    ):
        raise InputError(
            f"{key} must be a number from 0 to {limit:g}, not {value!r}"[:200],
            code="bad_amount",
            key=key,
            limit=limit,
        )
    return value
