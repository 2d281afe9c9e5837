"""Every refusal of the event model reads in the person's language and quotes the input."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bobing.organizer
from bobing.engine.errors import InputError
from bobing.i18n import LANGS
from bobing.i18n.errors import error_template, localize, render
from bobing.organizer import (
    parse_budget,
    parse_people,
    parse_prize_set,
    read_roster,
    seat_people,
    table_sizes,
)
from bobing.organizer.playoff import check_throws

PACKAGE = Path(bobing.organizer.__file__).parent


def raised_codes() -> set[str]:
    codes: set[str] = set()
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "InputError":
                for keyword in node.keywords:
                    if keyword.arg == "code" and isinstance(keyword.value, ast.Constant):
                        codes.add(str(keyword.value.value))
    return codes


def test_every_code_has_a_template_in_every_language() -> None:
    codes = raised_codes()
    assert len(codes) > 15
    for lang in LANGS:
        missing = sorted(c for c in codes if error_template(c, lang) is None)
        assert not missing, (lang, missing)


BAD: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any], str]] = [
    (parse_people, (["张三", "张三"],), {}, "张三"),
    (parse_people, (["<b>x</b>"],), {}, "<b>x</b>"),
    (parse_people, (["x" * 30],), {}, "30"),
    (read_roster, (b"", "pdf"), {}, "pdf"),
    (read_roster, (b"\n\n", "text"), {}, ""),
    (table_sizes, (44,), {"tables": 3, "size": None, "max_size": 12}, "44"),
    (table_sizes, (44,), {"tables": None, "size": 40, "max_size": 12}, "40"),
    (table_sizes, (44,), {"tables": 0, "size": None, "max_size": 12}, "0"),
    (table_sizes, (44,), {"tables": None, "size": None, "max_size": 12}, ""),
    (seat_people, ([],), {"seating": "vip", "tables": 1, "max_size": 12}, "vip"),
    (parse_prize_set, ({"tianhu": []},), {}, "tianhu"),
    (parse_budget, ({"contribution": -1},), {}, "budget.contribution"),
    (check_throws, (0,), {}, "10"),
]


@pytest.mark.parametrize(("call", "args", "kwargs", "quoted"), BAD)
def test_refusals_are_translated_and_quote_the_input(
    call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], quoted: str
) -> None:
    with pytest.raises(InputError) as caught:
        call(*args, **kwargs)
    error = caught.value
    for lang in ("zh-Hans", "zh-Hant"):
        text = render(error, lang)
        assert text is not None, (lang, error.code, error.params)
        assert text != error.message and quoted in text, text
    assert quoted in localize(error, "en")
