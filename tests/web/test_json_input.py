"""``json_input.loads``: the one reader of strangers' JSON, its decoder built once per name,
answers text and bytes alike, and refuses each odd input with its own code."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bobing.tables import json_input
from bobing.tables.problems import ApiError
from bobing.tables.protocol import decode_frame

GOOD = [
    '{"type":"throw","turn":3,"nonce":"K7Q2MX-3"}',
    '{"a":[1,2.5,{"b":null}],"c":true,"d":"骰子"}',
    "[]",
    "-12",
    '"\\u00e9"',
]


@pytest.mark.parametrize("text", GOOD)
def test_same_values_as_json_for_text_and_bytes(text: str) -> None:
    expected = json.loads(text)
    assert json_input.loads(text) == expected
    assert json_input.loads(text.encode("utf-8")) == expected
    assert json_input.loads(text.encode("utf-16")) == expected  # json.loads detects it too


def code_of(data: Any, what: str = "frame") -> str:
    with pytest.raises(ApiError) as caught:
        json_input.loads(data, what=what)
    return caught.value.code


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ("\ufeff{}", "malformed"),
        (b"\xff\xfe\xff", "malformed"),
        ("{", "malformed"),
        ('{"a":NaN}', "bad_number"),
        ('{"a":1e400}', "bad_number"),
        ('{"a":' + "9" * 31 + "}", "bad_number"),
        ('{"a":"\\ud800"}', "bad_text"),
        (b'{"\\udfff":1}', "bad_text"),
        ("[" * 33 + "]" * 33, "too_deep"),
        ('{"a":' * 33 + "1" + "}" * 33, "too_deep"),
        ("[" * 33 + '"\\u00e9"' + "]" * 33, "too_deep"),
        ("[" * 100_000 + "]" * 100_000, "too_deep"),
    ],
)
def test_refusals(data: Any, code: str) -> None:
    assert code_of(data) == code


def test_bytes_may_start_with_a_bom() -> None:
    assert json_input.loads(b"\xef\xbb\xbf{}") == {}  # as json.loads reads bytes


def test_the_deepest_allowed_passes() -> None:
    assert json_input.loads("[" * 32 + "1" + "]" * 32) is not None
    assert json_input.loads('{"a":' * 31 + "[1]" + "}" * 31) is not None


def test_each_name_keeps_its_messages() -> None:
    for what in ("frame", "request body", "frame"):
        with pytest.raises(ApiError) as caught:
            json_input.loads('{"a":NaN}', what=what)
        assert f"the {what} holds the number NaN" in caught.value.message


def test_frame_size_counts_utf8_bytes() -> None:
    ascii_frame = '{"type":"ping","id":"' + "a" * 10 + '"}'
    assert decode_frame(ascii_frame, len(ascii_frame))["type"] == "ping"
    with pytest.raises(ApiError) as caught:
        decode_frame(ascii_frame, len(ascii_frame) - 1)
    assert caught.value.code == "too_large"
    wide = '{"type":"ping","x":"骰"}'
    size = len(wide.encode("utf-8"))
    assert decode_frame(wide, size)["x"] == "骰"
    with pytest.raises(ApiError) as caught:
        decode_frame(wide, size - 1)
    assert caught.value.params["size"] == size
