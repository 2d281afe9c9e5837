"""Display text an organiser types: trimmed, NFC, no markup or control characters, bounded."""

from __future__ import annotations

import unicodedata
from typing import Any

from bobing.engine.errors import InputError

MARKUP = frozenset("<>&\"'")


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
