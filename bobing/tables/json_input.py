"""JSON from strangers: the one place the server turns a request body or a WebSocket frame into
Python values, so REST and WebSocket refuse the same odd input with the same clean 400.

``json.loads`` accepts things the rest of the server cannot carry: a lone surrogate escape
(``"\\ud800"``) becomes a ``str`` that no UTF-8 encoder can write back — into the database, a
log line or the error frame quoting it — and thousands of nested arrays exhaust the
interpreter's recursion limit. It also reads ``NaN``, ``Infinity`` and ``1e400`` (an overflow
to infinity) as floats no rule, amount or count can mean, and integers of any length, whose
arithmetic and formatting then cost what the sender chose (a 4,000-digit prize value). All are
refused here, before any command sees them.
"""

from __future__ import annotations

import json
import math
from typing import Any

from bobing.tables.problems import ApiError

MAX_DEPTH = 32
"""Nesting deeper than this is refused; the deepest real command (a grab allocation) has 3."""
MAX_INTEGER_DIGITS = 30
"""Longer integers are refused (``bad_number``): the largest any field allows (a prize value of
10**9, a sequence number) has 10 digits; 30 leaves room and stays far from float overflow."""


def _bad_number(text: str, what: str) -> ApiError:
    shown = text if len(text) <= 20 else text[:20] + "…"
    return ApiError(
        "bad_number",
        f"the {what} holds the number {shown}, which is not a finite number of at most "
        f"{MAX_INTEGER_DIGITS} digits",
        value=shown,
        limit=MAX_INTEGER_DIGITS,
    )


def _decoder(what: str) -> json.JSONDecoder:
    """The decoder that refuses what the server cannot carry, naming ``what`` (built once per
    name: a table server decodes every frame, and building a decoder costs more than using it)."""
    decoder = _DECODERS.get(what)
    if decoder is not None:
        return decoder

    def constant(text: str) -> Any:
        raise _bad_number(text, what)

    def integer(text: str) -> int:
        if len(text) - text.startswith("-") > MAX_INTEGER_DIGITS:
            raise _bad_number(text, what)
        return int(text)

    def real(text: str) -> float:
        number = float(text)
        if not math.isfinite(number):
            raise _bad_number(text, what)
        return number

    decoder = json.JSONDecoder(parse_constant=constant, parse_int=integer, parse_float=real)
    if len(_DECODERS) < 64:  # the names are the server's own few; never a stranger's
        _DECODERS[what] = decoder
    return decoder


_DECODERS: dict[str, json.JSONDecoder] = {}


def loads(data: str | bytes, *, what: str = "message") -> Any:
    """The JSON value of ``data``: ``malformed``, ``too_deep``, ``bad_text`` or ``bad_number``
    (all 400) if not."""
    try:
        # what json.loads does, with a decoder built once
        if isinstance(data, str):
            text = data
            if text.startswith("\ufeff"):
                raise ValueError("unexpected UTF-8 BOM")
        else:
            text = data.decode(json.detect_encoding(data), "surrogatepass")
        value = _decoder(what).decode(text)
    except RecursionError:
        raise ApiError(
            "too_deep", f"the {what} is nested too deeply", depth=None, limit=MAX_DEPTH
        ) from None
    except (ValueError, UnicodeDecodeError):
        raise ApiError("malformed", f"the {what} is not valid JSON") from None
    # A surrogate can only come from a \u escape (decoded text never holds one).
    escapes = b"\\u" in data if isinstance(data, bytes) else "\\u" in data
    check(value, escapes=escapes, what=what)
    return value


def check(value: Any, *, escapes: bool = True, what: str = "message") -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and (with ``escapes``) lone surrogates."""
    if not escapes:
        _check_depth(value, what)
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[Any] = list(item.values())
            if escapes:
                children.extend(item.keys())
        elif isinstance(item, list):
            children = item
        else:
            if escapes and isinstance(item, str):
                _text(item, what)
            continue
        if depth > MAX_DEPTH:
            raise _too_deep(what, depth)
        stack.extend((child, depth + 1) for child in children)


def _check_depth(value: Any, what: str) -> None:
    """:func:`check` without text to check: only the containers are walked (a command is one
    flat object, so this is one pass over its values)."""
    if not isinstance(value, (dict, list)):
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep(what, depth)
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))


def _text(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = f"\\u{ord(text[exc.start]):04x}"
        raise ApiError(
            "bad_text",
            f"the {what} holds a lone surrogate {code}: not Unicode text",
            char=code,
        ) from None


def _too_deep(what: str, depth: int) -> ApiError:
    """The refusal of input nested past :data:`MAX_DEPTH` (both walks give the same one)."""
    return ApiError(
        "too_deep",
        f"the {what} is nested more than {MAX_DEPTH} levels deep",
        depth=depth,
        limit=MAX_DEPTH,
    )
