"""Errors in the reader's language: catalogues, localize(), and the CLI's error line."""

from __future__ import annotations

import ast
import doctest
import json
import os
import string
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bobing.engine
import bobing.i18n
import bobing.i18n.errors
from bobing.cli import error_lang, error_line
from bobing.engine import errors as engine_errors
from bobing.engine.dice import GivenDice, parse_dice
from bobing.engine.errors import (
    BobingError,
    DiceError,
    IllegalAction,
    InputError,
    RecordError,
    RulesError,
)
from bobing.engine.game import Game, apply, validate_players
from bobing.engine.presets import TRADITIONAL, find_preset
from bobing.engine.record import judge_record, load_record, parse_record
from bobing.engine.rules import allowed_values, load_rules
from bobing.i18n import LANGS, catalogue, parse_lang
from bobing.i18n.errors import error_template, localize, render
from tests.cli.clitools import run as run_cli

ROOT = Path(bobing.i18n.__file__).parent
ENGINE = Path(bobing.engine.__file__).parent
CHINESE = ("zh-Hans", "zh-Hant")
# The engine modules where every raise names a specific code (others keep class defaults).
SPECIFIC = (
    "dice.py",
    "rules.py",
    "switches.py",
    "presets.py",
    "hands.py",
    "ranking.py",
    "ranked.py",
    "record.py",
    "record_format.py",
    "game.py",
    "state.py",
)


def load(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((ROOT / lang / "errors.json").read_text(encoding="utf-8"))
    return data


def roots(template: str) -> set[str]:
    return {
        name.split(".")[0].split("[")[0]
        for _, name, _, _ in string.Formatter().parse(template)
        if name
    }


def error_classes() -> list[type[BobingError]]:
    return [
        cls
        for cls in vars(engine_errors).values()
        if isinstance(cls, type) and issubclass(cls, BobingError)
    ]


ERROR_NAMES = {cls.__name__ for cls in error_classes()}


def raise_calls(path: Path) -> list[ast.Call]:
    """Every ``SomeError(...)`` call of a bobing error class in a source file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ERROR_NAMES
    ]


def codes_in(call: ast.Call) -> set[str]:
    """The code strings a call may pass (``code="x"`` or ``code="a" if ... else "b"``)."""
    found: set[str] = set()
    for keyword in call.keywords:
        if keyword.arg == "code":
            for node in ast.walk(keyword.value):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.add(node.value)
    return found


def engine_codes() -> set[str]:
    codes = {cls.code for cls in error_classes()}
    for path in sorted(ENGINE.glob("*.py")):
        for call in raise_calls(path):
            codes |= codes_in(call)
    return codes


# -- catalogues ------------------------------------------------------------------------------


def test_the_three_catalogues_have_the_same_keys() -> None:
    keys = {lang: set(load(lang)) for lang in LANGS}
    assert keys["zh-Hans"] == keys["en"], keys["zh-Hans"] ^ keys["en"]
    assert keys["zh-Hant"] == keys["en"], keys["zh-Hant"] ^ keys["en"]


def test_every_engine_code_has_a_message_in_every_language() -> None:
    codes = engine_codes()
    assert {"invalid_dice", "dice_too_few", "record_throw", "not_your_turn"} <= codes
    for lang in LANGS:
        missing = sorted(c for c in codes if error_template(c, lang) is None)
        assert not missing, (lang, missing)


@pytest.mark.parametrize("name", SPECIFIC)
def test_every_raise_in_the_engine_names_a_specific_code(name: str) -> None:
    generic = {cls.code for cls in error_classes()}
    for call in raise_calls(ENGINE / name):
        codes = codes_in(call)
        assert codes, f"{name}:{call.lineno}: no code="
        assert not codes & generic, f"{name}:{call.lineno}: generic code {codes}"


def test_templates_are_well_formed_and_chinese_is_chinese() -> None:
    english = load("en")
    for lang in LANGS:
        for key, template in load(lang).items():
            assert template.strip(), (lang, key)
            fields = roots(template)  # raises on a malformed template
            if lang in CHINESE:
                assert any("\u4e00" <= ch <= "\u9fff" for ch in template), (lang, key)
                # Only codes whose English is the raised message itself may show it.
                if "message" in fields:
                    assert "message" in roots(english[key]), (lang, key)


# -- localize --------------------------------------------------------------------------------


def caught(action: Callable[[], object]) -> BobingError:
    try:
        action()
    except BobingError as exc:
        return exc
    raise AssertionError("no BobingError raised")


def started(players: tuple[str, ...] = ("甲", "乙")) -> Game:
    game = Game(TRADITIONAL, list(players))
    game.start()
    return game


def in_grab() -> Game:
    game = started()
    game.throw("123455")
    game.throw("555555")
    assert game.phase == "grab"
    return game


def record(**fields: Any) -> dict[str, Any]:
    return {"players": ["甲", "乙"], **fields}


def bad_file(tmp: Path, name: str, data: bytes) -> str:
    path = tmp / name
    path.write_bytes(data)
    return str(path)


# (what to do, a fragment every language must quote)
def closed_twice() -> None:
    game = Game(TRADITIONAL, ["甲", "乙"])
    game.start()
    game.throw("123456")
    game.close()
    game.close()


def over_then_closed() -> None:
    game = Game(TRADITIONAL, ["甲", "乙"])
    game.start()
    game.close()
    game.close()


RANKED_ONE: dict[str, Any] = {"award": "ranked", "ranked_prizes": [{"name": "一等奖"}]}
PRICES = {"zhuangyuan": 100, "duitang": 50, "sanhong": 20, "sijin": 10, "erju": 5, "yixiu": 2}

CORPUS: dict[str, tuple[Callable[[Path], object], str]] = {
    "no_dice_given": (lambda _: parse_dice("  "), "444412"),
    "dice_not_face": (lambda _: parse_dice("44441x"), "'x'"),
    "dice_not_face_seq": (lambda _: parse_dice([1, 2, "3", 4, 5, 6]), "'3'"),  # type: ignore[list-item]
    "dice_too_few": (lambda _: parse_dice("44441"), "'44441'"),
    "dice_too_many": (lambda _: parse_dice("4444123"), "'4444123'"),
    "dice_face_range": (lambda _: parse_dice("444417"), "'444417'"),
    "given_dice_exhausted": (lambda _: GivenDice([]).roll(), ""),
    "given_dice_invalid": (lambda _: GivenDice([(1, 2)]).roll(), "(1, 2)"),
    "not_zhuangyuan_hand": (
        lambda _: TRADITIONAL.zhuangyuan_key(TRADITIONAL.classify("112233")),
        "none",
    ),
    "unknown_switch": (lambda _: allowed_values("lights"), "'lights'"),
    "order_duplicate": (
        lambda _: load_rules(
            {
                "zhuangyuan_order": [
                    "liubohong",
                    "liubohong",
                    "chajinhua",
                    "wuhong",
                    "wuzi",
                    "sihong",
                ]
            }
        ),
        "liubohong",
    ),
    "order_missing_hand": (
        lambda _: load_rules({"zhuangyuan_order": ["liubohong", "chajinhua", "wuhong", "wuzi"]}),
        "sihong",
    ),
    "order_missing_hands": (
        lambda _: load_rules({"zhuangyuan_order": ["liubohong", "chajinhua", "wuhong"]}),
        "wuzi",
    ),
    "order_extra": (
        lambda _: load_rules(
            {
                "liubohei": "ignore",
                "six_ones": "liubohei",
                "zhuangyuan_order": [
                    "liubohong",
                    "biandijin",
                    "liubohei",
                    "chajinhua",
                    "wuhong",
                    "wuzi",
                    "sihong",
                ],
            }
        ),
        "biandijin",
    ),
    "order_extra_biandijin": (
        lambda _: load_rules(
            {
                "six_ones": "biandijin",
                "biandijin": "take_remaining_end",
                "zhuangyuan_order": [
                    "liubohong",
                    "biandijin",
                    "liubohei",
                    "chajinhua",
                    "wuhong",
                    "wuzi",
                    "sihong",
                ],
            }
        ),
        "biandijin",
    ),
    "chase_no_tiers": (lambda _: load_rules({"chase": {"tiers": []}}), "chase.tiers"),
    "zhuangyuan_prize_not_one": (lambda _: load_rules({"prizes": {"zhuangyuan": 2}}), "2"),
    "invalid_switch_value": (lambda _: load_rules({"tiaohou": "maybe"}), "'maybe'"),
    "invalid_switch_value_bool": (lambda _: load_rules({"sijin_bonus": "yes"}), "'yes'"),
    "invalid_switch_value_from": (
        lambda _: load_rules({"chase": {"from": "earliest"}}),
        "'earliest'",
    ),
    "order_not_list": (lambda _: load_rules({"zhuangyuan_order": "sihong"}), "'sihong'"),
    "order_invalid_hand": (lambda _: load_rules({"zhuangyuan_order": ["sixreds"]}), "'sixreds'"),
    "chase_not_object": (lambda _: load_rules({"chase": "duitang"}), "'duitang'"),
    "chase_unknown_key": (lambda _: load_rules({"chase": {"to": "x"}}), "'to'"),
    "chase_tiers_not_list": (lambda _: load_rules({"chase": {"tiers": "duitang"}}), "'duitang'"),
    "chase_invalid_tier": (lambda _: load_rules({"chase": {"tiers": ["gold"]}}), "'gold'"),
    "patterns_not_list": (lambda _: load_rules({"duitang_patterns": "123456"}), "'123456'"),
    "invalid_pattern": (lambda _: load_rules({"duitang_patterns": ["12345"]}), "'12345'"),
    "prizes_not_object": (lambda _: load_rules({"prizes": [1]}), "[1]"),
    "prizes_unknown_tier": (lambda _: load_rules({"prizes": {"gold": 1}}), "'gold'"),
    "prizes_invalid_count": (lambda _: load_rules({"prizes": {"yixiu": -1}}), "-1"),
    "rules_not_object": (lambda _: bobing.engine.rules_from_json(3), "int"),
    "invalid_whole_number": (lambda _: load_rules({"max_players": 31}), "31"),
    "invalid_switch_value_bool_new": (lambda _: load_rules({"wuzi_bonus": "yes"}), "'yes'"),
    "ranked_prizes_not_list": (
        lambda _: load_rules({"award": "ranked", "ranked_prizes": "一等奖"}),
        "'一等奖'",
    ),
    "ranked_prize_not_object": (
        lambda _: load_rules({"award": "ranked", "ranked_prizes": ["一等奖"]}),
        "'一等奖'",
    ),
    "ranked_prize_unknown_key": (
        lambda _: load_rules({"award": "ranked", "ranked_prizes": [{"name": "a", "price": 1}]}),
        "'price'",
    ),
    "ranked_prize_bad_name": (
        lambda _: load_rules({"award": "ranked", "ranked_prizes": [{"name": ""}]}),
        "''",
    ),
    "ranked_prize_bad_count": (
        lambda _: load_rules({"award": "ranked", "ranked_prizes": [{"name": "a", "count": 0}]}),
        "0",
    ),
    "ranked_prize_bad_value": (
        lambda _: load_rules({"award": "ranked", "ranked_prizes": [{"name": "a", "value": -5}]}),
        "-5",
    ),
    "ranked_prizes_missing": (lambda _: load_rules({"award": "ranked"}), "ranked_prizes"),
    "ranked_prizes_without_ranked": (
        lambda _: load_rules({"ranked_prizes": [{"name": "a"}]}),
        "ranked_prizes",
    ),
    "rounds_without_ranked": (lambda _: load_rules({"rounds": 3}), "rounds"),
    # RULES.md §10.2: 一二会 plays the cakes again; a ranked table has no second set to play for
    "sets_with_ranked": (lambda _: load_rules({**RANKED_ONE, "sets": 2}), "sets"),
    # RULES.md §9.3: each self-contradiction names both switches (see SECTION9_PAIRS).
    "liubohong_duitang_without_zhuangyuan": (
        lambda _: load_rules({"liubohong_duitang": "at_end"}),
        "take_all_end",
    ),
    "shared_without_cakes": (
        lambda _: load_rules({**RANKED_ONE, "zhuangyuan_cake": "shared"}),
        "award",
    ),
    "values_without_pay": (lambda _: load_rules({"values": PRICES}), "money"),
    "values_with_ranked": (
        lambda _: load_rules({**RANKED_ONE, "money": "pay", "values": PRICES}),
        "ranked_prizes",
    ),
    "pay_without_prize_values": (
        lambda _: load_rules({**RANKED_ONE, "money": "pay"}),
        "一等奖",
    ),
    "pay_without_values": (lambda _: load_rules({"money": "pay"}), "values"),
    "values_missing_tiers": (
        lambda _: load_rules({"money": "pay", "values": {"zhuangyuan": 100}}),
        "duitang",
    ),
    "values_not_object": (lambda _: load_rules({"money": "pay", "values": [1]}), "[1]"),
    "values_unknown_tier": (
        lambda _: load_rules({"money": "pay", "values": {"gold": 1}}),
        "'gold'",
    ),
    "values_bad_value": (
        lambda _: load_rules({"money": "pay", "values": {"yixiu": -1}}),
        "-1",
    ),
    "close_entry_invalid": (
        lambda _: judge_record(record(throws=[{"close": "yes"}])),
        "'close': 'yes'",
    ),
    "close_after_end": (
        lambda _: judge_record(record(rules="modern", throws=["444444", {"close": True}])),
        "1",
    ),
    "close_twice": (
        lambda _: judge_record(record(throws=["123456", {"close": True}, {"close": True}])),
        "1",
    ),
    "close_during_grab": (
        lambda _: judge_record(record(throws=["123455", "555555", {"close": True}])),
        "2",
    ),
    "already_closed": (lambda _: closed_twice(), ""),
    "close_game_over": (lambda _: over_then_closed(), ""),
    "players_over_max": (lambda _: Game(TRADITIONAL, [f"p{i}" for i in range(13)]), "max_players"),
    "preset_not_name": (lambda _: load_rules({"preset": 3}), "3"),
    "unknown_rule_switch": (lambda _: load_rules({"six-ones": "x"}), "'six-ones'"),
    "rule_file_unreadable": (lambda tmp: load_rules(tmp / "missing.json"), "missing.json"),
    "rule_file_not_utf8": (
        lambda tmp: load_rules(bad_file(tmp, "latin.json", b'{"preset": "\xe9"}')),
        "latin.json",
    ),
    "rule_file_not_json": (
        lambda tmp: load_rules(bad_file(tmp, "syntax.json", b"{oops")),
        "syntax.json",
    ),
    "rule_file_too_deep": (
        lambda tmp: load_rules(bad_file(tmp, "deep.json", b"[" * 100_000)),
        "deep.json",
    ),
    "rule_file_not_object": (
        lambda tmp: load_rules(bad_file(tmp, "array.json", b"[]")),
        "array.json",
    ),
    "unknown_preset": (lambda _: find_preset("xiamen"), "'xiamen'"),
    "record_unreadable": (lambda tmp: load_record(tmp / "gone.json"), "gone.json"),
    "record_not_utf8": (lambda tmp: load_record(bad_file(tmp, "r.json", b"\xff{")), "r.json"),
    "record_not_json": (lambda _: parse_record("{oops", "game.json"), "'game.json'"),
    "record_too_deep": (lambda _: parse_record("[" * 100_000, "deep.json"), "'deep.json'"),
    "record_not_object": (lambda _: parse_record("[]"), "list"),
    "record_not_mapping": (lambda _: judge_record([]), "list"),  # type: ignore[arg-type]
    "throw_unknown_key": (lambda _: judge_record(record(throws=[{"face": 1}])), "'face'"),
    "throw_player_not_name": (
        lambda _: judge_record(record(throws=[{"dice": "123456", "player": 1}])),
        "1",
    ),
    "throw_tiaohou_not_bool": (
        lambda _: judge_record(record(throws=[{"tiaohou": "yes"}])),
        "tiaohou",
    ),
    "throw_tiaohou_with_dice": (
        lambda _: judge_record(record(throws=[{"tiaohou": True, "dice": "123456"}])),
        "1",
    ),
    "throw_no_dice": (lambda _: judge_record(record(throws=[{"player": "甲"}])), "dice"),
    "throw_not_dice": (lambda _: judge_record(record(throws=[444412])), "444412"),
    "throw_dice_list": (lambda _: judge_record(record(throws=[{"dice": [4, 4, 4]}])), "[4, 4, 4]"),
    "throw_dice_not_text": (lambda _: judge_record(record(throws=[{"dice": 444412}])), "444412"),
    "throw_dice_length": (lambda _: judge_record(record(throws=["4444"])), "'4444'"),
    "throw_dice_face": (lambda _: judge_record(record(throws=["444417"])), "'444417'"),
    "start_not_object": (lambda _: judge_record(record(start="甲")), "start"),
    "start_unknown_key": (lambda _: judge_record(record(start={"first": "甲"})), "'first'"),
    "start_starter_and_dice": (
        lambda _: judge_record(record(start={"starter": "甲", "dice": [1, 2]})),
        "start",
    ),
    "start_needs_thrower_and_dice": (
        lambda _: judge_record(record(start={"thrower": "甲"})),
        "thrower",
    ),
    "start_dice_invalid": (
        lambda _: judge_record(record(start={"thrower": "甲", "dice": [0, 7]})),
        "[0, 7]",
    ),
    "record_rules": (lambda _: judge_record(record(rules="xiamen")), "'xiamen'"),
    "record_no_players": (lambda _: judge_record({}), "players"),
    "players_not_list": (lambda _: judge_record({"players": "甲乙"}), "players"),
    "record_players": (lambda _: judge_record({"players": ["甲"]}), "1"),
    "record_start": (lambda _: judge_record(record(start={"starter": "戊"})), "'戊'"),
    "throws_not_list": (lambda _: judge_record(record(throws="123456")), "throws"),
    "throw_after_end": (
        lambda _: judge_record(record(rules="modern", throws=["444444", "123456"])),
        "2",
    ),
    "throw_during_grab": (
        lambda _: judge_record(record(throws=["123455", "555555", "123456"])),
        "3",
    ),
    "record_throw": (
        lambda _: judge_record(record(throws=[{"dice": "123456", "player": "戊"}])),
        "'戊'",
    ),
    "grab_not_object": (
        lambda _: judge_record(record(throws=["123455", "555555"], grab=[])),
        "grab",
    ),
    "grab_without_grab": (lambda _: judge_record(record(throws=["123456"], grab={})), "grab"),
    "seed_not_integer": (lambda _: judge_record(record(seed="7")), "'7'"),
    "players_not_list_game": (lambda _: validate_players("甲乙"), "players"),
    "player_count": (lambda _: validate_players(["甲"]), "1"),
    "bad_name": (lambda _: validate_players(["甲", " 乙 "]), "' 乙 '"),
    "bad_name_empty": (lambda _: validate_players(["甲", ""]), "''"),
    "bad_name_type": (lambda _: Game(TRADITIONAL, ["甲", "乙"]).start(starter=1), "1"),  # type: ignore[arg-type]
    "duplicate_name": (lambda _: validate_players(["甲", "甲"]), "'甲'"),
    "unknown_event": (lambda _: apply(started().state, "thrown"), "'thrown'"),  # type: ignore[arg-type]
    "already_started": (lambda _: started().start(), ""),
    "stale_draft": (lambda _: _stale_draft(), ""),
    "start_both_ways": (
        lambda _: Game(TRADITIONAL, ["甲", "乙"]).start(starter="甲", thrower="乙", dice=(1, 2)),
        "",
    ),
    "unknown_player": (lambda _: Game(TRADITIONAL, ["甲", "乙"]).start(starter="戊"), "'戊'"),
    "start_incomplete": (lambda _: Game(TRADITIONAL, ["甲", "乙"]).start(thrower="甲"), ""),
    "bad_start_dice": (
        lambda _: Game(TRADITIONAL, ["甲", "乙"]).start(thrower="甲", dice=(0, 7)),
        "[0, 7]",
    ),
    "tiaohou_with_dice": (lambda _: started().throw("123456", tiaohou=True), ""),
    "no_dice": (lambda _: started().throw(None), ""),
    "not_started": (lambda _: Game(TRADITIONAL, ["甲", "乙"]).throw("123456"), ""),
    "grab_pending": (lambda _: in_grab().throw("123456"), ""),
    "game_over": (lambda _: _over().throw("123456"), ""),
    "not_your_turn": (lambda _: started().throw("123456", player="乙"), "乙"),
    "no_grab": (lambda _: started().grab({}), ""),
    "grab_unknown_player": (lambda _: in_grab().grab({"戊": {}}), "'戊'"),
    "grab_counts_not_object": (lambda _: in_grab().grab({"甲": 3}), "甲"),  # type: ignore[dict-item]
    "grab_unknown_tier": (lambda _: in_grab().grab({"甲": {"gold": 1}}), "'gold'"),
    "grab_invalid_count": (lambda _: in_grab().grab({"甲": {"yixiu": -1}}), "-1"),
    "grab_wrong_total": (
        lambda _: in_grab().grab(
            {"甲": {"zhuangyuan": 1, "duitang": 2, "sanhong": 4, "sijin": 8, "erju": 16}, "乙": {}}
        ),
        "31",
    ),
    "unknown_lang": (lambda _: parse_lang("klingon"), "'klingon'"),
}
# Raise sites no input reaches (kept as guards in the engine).
UNREACHABLE = {"not_zhuangyuan_throw", "why_not_zhuangyuan", "chase_tier_not_allowed"}


def _stale_draft() -> None:
    game = started()
    draft = game.draft()
    game.throw("123456")
    game.adopt(draft)


def _over() -> Game:
    game = Game(find_preset("modern"), ["甲", "乙"])
    game.start()
    game.throw("444444")
    assert game.is_over
    return game


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[BobingError, str]]:
    tmp = tmp_path_factory.mktemp("bad")
    return {
        name: (caught(lambda a=action: a(tmp)), quote)  # type: ignore[misc]
        for name, (action, quote) in CORPUS.items()
    }


def test_the_corpus_reaches_every_engine_code(
    corpus: dict[str, tuple[BobingError, str]],
) -> None:
    seen: set[str] = set()
    todo = [exc for exc, _ in corpus.values()]
    while todo:  # the errors and the errors inside them (inner, reasons)
        exc = todo.pop()
        seen.add(exc.code)
        for value in exc.params.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, BobingError):
                    todo.append(item)
    generic = {cls.code for cls in error_classes()}
    fairness = {  # engine/fairness.py, where errors keep their English detail for now
        "invalid_seed",
        "invalid_nonce",
        "invalid_table_id",
        "invalid_throw_number",
        "fairness_mismatch",
    }
    expected = engine_codes() - generic - UNREACHABLE - fairness
    assert not expected - seen, sorted(expected - seen)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_error_reads_in_every_language(
    corpus: dict[str, tuple[BobingError, str]], name: str
) -> None:
    exc, quote = corpus[name]
    assert localize(exc, "en") == str(exc), exc.code
    for lang in CHINESE:
        text = render(exc, lang)
        assert text is not None, (lang, exc.code, exc.params)
        assert text == localize(exc, lang)
        assert text != str(exc) and any("\u4e00" <= ch <= "\u9fff" for ch in text), text
        assert quote in text, (lang, text)


def test_the_examples_people_see() -> None:
    dice = caught(lambda: parse_dice("44441"))
    assert localize(dice, "zh-Hans") == "骰子 '44441' 无效：只有 5 颗，一掷必须正好 6 颗"
    assert localize(dice, "zh-TW") == "骰子 '44441' 無效：只有 5 顆，一擲必須正好 6 顆"
    assert localize(dice) == localize(dice, "zh-Hans")
    nested = caught(
        lambda: judge_record(record(throws=["123456", {"dice": "123456", "player": "甲"}]))
    )
    assert nested.code == "record_throw" and nested.params["throw"] == 2
    assert isinstance(nested.params["inner"], IllegalAction)
    assert str(nested) == "throw 2: it is 乙's turn, not 甲's"
    assert localize(nested, "zh-Hans") == "第 2 掷：现在该 乙 掷，不是 甲"
    assert localize(nested, "zh-Hant") == "第 2 擲：現在該 乙 擲，不是 甲"
    start = caught(lambda: judge_record(record(start={"starter": "戊"})))
    assert localize(start, "zh-Hans") == "起手：没有叫 '戊' 的玩家"
    extra = caught(lambda: load_rules({**CORPUS_ORDER_EXTRA}))
    assert localize(extra, "zh-Hans") == (
        "zhuangyuan_order 不能列出 biandijin、liubohei："
        "six_ones 设为 liubohei，不会出现遍地锦；liubohei 设为 ignore，六勃黑不算状元"
    )
    grab = caught(lambda: in_grab().grab({"甲": {"zhuangyuan": 1}}))
    assert localize(grab, "zh-Hans") == "抢饼必须正好分完剩下的饼：对堂剩 2 个，却分了 0 个"
    missing = caught(lambda: load_record("/no/such/game.json"))
    assert localize(missing, "zh-Hans") == "无法读取记录 '/no/such/game.json'：没有这个文件或目录"
    assert localize(missing, "zh-Hant") == "無法讀取記錄 '/no/such/game.json'：沒有這個檔案或目錄"
    odd = RecordError("m", code="record_unreadable", path="x", reason="Odd failure", errno=-1)
    assert localize(odd, "zh-Hans") == "无法读取记录 'x'：Odd failure"
    allowed = caught(lambda: load_rules({"tiaohou": "maybe"}))
    assert localize(allowed, "zh-Hans") == "tiaohou 的值 'maybe' 无效；可选：void、void_skip_next"


CORPUS_ORDER_EXTRA = {
    "liubohei": "ignore",
    "six_ones": "liubohei",
    "zhuangyuan_order": [
        "liubohong",
        "biandijin",
        "liubohei",
        "chajinhua",
        "wuhong",
        "wuzi",
        "sihong",
    ],
}


def test_generic_codes_show_the_english_detail_under_a_translated_heading() -> None:
    plain = InputError("invalid --seed -4: a whole number of at least 0")
    assert localize(plain, "en") == "invalid --seed -4: a whole number of at least 0"
    assert localize(plain, "zh-Hans") == "输入无效：invalid --seed -4: a whole number of at least 0"
    assert localize(IllegalAction("nope"), "zh-Hant") == "現在不能這樣做：nope"
    assert localize(RecordError("bad"), "zh-Hans") == "记录无效：bad"
    assert localize(RulesError("bad"), "zh-Hans") == "规则无效：bad"


def test_falls_back_to_the_english_message() -> None:
    # No template for the code:
    assert localize(InputError("odd thing 'x'", code="no_such_code"), "zh-Hans") == "odd thing 'x'"
    # The template needs a field the error does not carry:
    short = DiceError("invalid dice '1': 1 dice given, a throw has exactly 6", code="dice_too_few")
    assert render(short, "zh-Hans") is None
    assert localize(short, "zh-Hans") == str(short)
    # A value the template cannot format ("{allowed:、}" joins a list, not a string):
    odd = RulesError("m", code="invalid_switch_value", key="k", value="v", allowed="abc")
    assert localize(odd, "zh-Hans") == "m"
    assert localize(odd, "en") == "invalid value 'v' for k; allowed: abc"
    # Not a bobing error at all:
    assert localize(ValueError("plain"), "zh-Hans") == "plain"


def test_unknown_languages_read_english_and_tags_are_normalized() -> None:
    exc = caught(lambda: parse_dice("44441"))
    assert localize(exc, "fr") == str(exc)
    assert localize(exc, "zh_Hant") == localize(exc, "zh-TW") == localize(exc, "zh-HK")
    assert localize(exc, "zh-CN") == localize(exc, "zh-Hans")


def test_the_module_examples() -> None:
    result = doctest.testmod(bobing.i18n.errors)
    assert result.attempted > 0 and result.failed == 0


def test_catalogue_is_merged_into_t() -> None:
    for lang in LANGS:
        assert "error.dice_too_few" in catalogue(lang)
        assert "errors.line" in catalogue(lang)


# -- the CLI ---------------------------------------------------------------------------------


@pytest.fixture
def no_lang(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("BOBING_LANG", raising=False)
    monkeypatch.setenv("COLUMNS", "100")
    return monkeypatch


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (
            ["classify", "44441"],
            None,
            "bobing: 错误：骰子 '44441' 无效：只有 5 颗，一掷必须正好 6 颗\n",
        ),
        (
            ["classify", "44441", "--lang", "zh-Hant"],
            None,
            "bobing: 錯誤：骰子 '44441' 無效：只有 5 顆，一擲必須正好 6 顆\n",
        ),
        (
            ["classify", "--lang=zh-TW", "44441"],
            "en",
            "bobing: 錯誤：骰子 '44441' 無效：只有 5 顆，一擲必須正好 6 顆\n",
        ),
        (
            ["classify", "44441"],
            "zh-TW",
            "bobing: 錯誤：骰子 '44441' 無效：只有 5 顆，一擲必須正好 6 顆\n",
        ),
        (
            ["classify", "44441", "--lang", "en"],
            "zh-Hant",
            "bobing: error: invalid dice '44441': 5 dice given, a throw has exactly 6\n",
        ),
        (
            ["classify", "444412", "--lang", "xx"],
            None,
            "bobing: 错误：未知的语言 'xx'；可选：zh-Hans、zh-Hant、en\n",
        ),
        (["classify", "444412", "--rules", "nope"], None, "bobing: 错误：未知的预设 'nope'；"),
        (["odds", "--rules", "{}", "--lang", "zh-Hant"], None, "bobing: 錯誤："),
    ],
)
def test_cli_errors_in_the_chosen_language(
    capsys: pytest.CaptureFixture[str],
    no_lang: pytest.MonkeyPatch,
    args: list[str],
    env: str | None,
    expected: str,
) -> None:
    if env is not None:
        no_lang.setenv("BOBING_LANG", env)
    code, out, err = run_cli(capsys, no_lang, *args)
    assert (code, out) == (2, "")
    assert err.startswith(expected), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_console_script_reports_in_chinese_by_default() -> None:
    bobing = Path(sys.executable).parent / "bobing"
    environ = {k: v for k, v in os.environ.items() if k != "BOBING_LANG"}
    done = subprocess.run(
        [str(bobing), "classify", "44441"], capture_output=True, text=True, encoding="utf-8",
        env=environ, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "bobing: 错误：骰子 '44441' 无效：只有 5 颗，一掷必须正好 6 颗\n"


@pytest.mark.parametrize(
    ("argv", "env", "lang"),
    [
        ([], None, "zh-Hans"),
        ([], "en", "en"),
        (["classify", "--lang", "en"], None, "en"),
        (["classify", "--lang=zh-TW"], "en", "zh-Hant"),
        (["--lang", "en", "x", "--lang", "zh-Hant"], None, "zh-Hant"),  # the last one wins
        (["--lang", "klingon"], "zh-TW", "zh-Hant"),  # unknown: the error itself; use the env
        (["--lang"], "en", "en"),
        (["--", "--lang", "en"], None, "zh-Hans"),
    ],
)
def test_error_lang(
    no_lang: pytest.MonkeyPatch, argv: list[str], env: str | None, lang: str
) -> None:
    if env is not None:
        no_lang.setenv("BOBING_LANG", env)
    assert error_lang(argv) == lang


def test_error_line_for_command_modules() -> None:
    exc = caught(lambda: parse_dice("1"))
    assert error_line(exc, "en") == "bobing: error: " + str(exc)
    assert error_line(exc, "zh-Hant").startswith("bobing: 錯誤：骰子 '1' 無效")


SECTION9_PAIRS = {
    "liubohong_duitang_without_zhuangyuan": ("liubohong_duitang", "liubohong"),
    "shared_without_cakes": ("zhuangyuan_cake", "award"),
    "values_without_pay": ("values", "money"),
    "values_with_ranked": ("values", "award"),
    "pay_without_prize_values": ("money", "ranked_prizes"),
    "pay_without_values": ("money", "values"),
    "values_missing_tiers": ("money", "values"),
}


@pytest.mark.parametrize("code", sorted(SECTION9_PAIRS))
def test_section9_contradictions_name_both_switches_in_every_language(
    corpus: dict[str, tuple[BobingError, str]], code: str
) -> None:
    exc, _ = corpus[code]
    assert exc.code == code
    for lang in LANGS:
        text = localize(exc, lang)
        for switch in SECTION9_PAIRS[code]:
            assert switch in text, (lang, switch, text)
