"""JSON from strangers: the one place the server turns a request body or a WebSocket frame into
Python values, so REST and WebSocket refuse the same odd input with the same clean 400.

``json.loads`` accepts things the rest of the server cannot carry: a lone surrogate escape
(``"\\ud800"``) becomes a ``str`` that no UTF-8 encoder can write back — into the database, a
log line or the error frame quoting it — and thousands of nested arrays exhaust the
interpreter's recursion limit. Both are refused here, before any command sees them.
"""

from __future__ import annotations

import json
from typing import Any

from bobing.tables.problems import ApiError

MAX_DEPTH = 32
"""Nesting deeper than this is refused; the deepest real command (a grab allocation) has 3."""


def loads(data: str | bytes, *, what: str = "message") -> Any:
    """The JSON value of ``data``: ``malformed``, ``too_deep`` or ``bad_text`` (all 400) if not."""
    try:
        value = json.loads(data)
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
            raise ApiError(
                "too_deep",
                f"the {what} is nested more than {MAX_DEPTH} levels deep",
                depth=depth,
                limit=MAX_DEPTH,
            )
        stack.extend((child, depth + 1) for child in children)


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
