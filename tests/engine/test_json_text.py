"""bobing.engine.json_text: the encoders made once write exactly what ``json.dumps`` writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bobing.engine.json_text import compact, encoder

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=20,
)

DIGEST_TEXT = encoder(sort_keys=True, separators=(", ", ": "))


@given(JSON_VALUES)
def test_compact_is_json_dumps_without_spaces_or_escapes(value: Any) -> None:
    assert compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@given(JSON_VALUES)
def test_sorted_keys_and_spaces_are_json_dumps_with_them(value: Any) -> None:
    expected = json.dumps(value, ensure_ascii=False, sort_keys=True)
    assert DIGEST_TEXT(value) == expected


def test_a_name_is_written_as_itself_and_a_quote_escaped() -> None:
    assert compact({"名": '甲"\n'}) == '{"名":"甲\\"\\n"}'
    assert DIGEST_TEXT({"b": 1, "a": [1, 2]}) == '{"a": [1, 2], "b": 1}'
