"""JSON text from an encoder made once: ``json.dumps`` with any argument of its own builds a
new encoder for every call, which is half the cost of a small value's text. The text is
exactly what ``json.dumps`` with the same arguments writes."""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as json_encoder
from typing import Any


def encoder(
    *, sort_keys: bool = False, separators: tuple[str, str] = (",", ":")
) -> Callable[[Any], str]:
    """``json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, separators=separators)``
    as a function, its encoder made now: C's, without the check for circular references
    (values built by this program never have them)."""
    item_separator, key_separator = separators
    plain = json.JSONEncoder(ensure_ascii=False, sort_keys=sort_keys, separators=separators)
    make = getattr(json_encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - a Python without the C accelerator
        return plain.encode
    chunks = make(
        None,
        plain.default,
        json_encoder.encode_basestring,
        None,
        key_separator,
        item_separator,
        sort_keys,
        False,
        True,
    )
    join = "".join

    def encode(value: Any) -> str:
        return join(chunks(value, 0))

    return encode


compact = encoder()
"""``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``: the text of frames, the
log's rows and everything else the server writes."""
