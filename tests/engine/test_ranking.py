"""The 状元 order: golden comparisons, pinned digests, and total-order properties."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bobing.engine import Classification, Hand, RulesError, RuleSet, load_rules
from bobing.engine.hands import MULTISETS
from bobing.engine.presets import PRESETS
from bobing.engine.ranking import (
    compare_zhuangyuan,
    ranking_digest,
    ranking_text,
    zhuangyuan_level,
    zhuangyuan_ranking,
)

GOLDEN = json.loads((Path(__file__).parent.parent / "golden" / "hands.json").read_text("utf-8"))

VARIANTS: list[RuleSet] = [
    *PRESETS.values(),
    load_rules({"preset": "traditional", "wuzi_compare": "face_then_kicker"}),
    load_rules({"preset": "modern", "wuzi_compare": "face_then_kicker"}),
    load_rules(
        {
            "preset": "jinhua",
            "six_ones": "biandijin",
            "biandijin": "zhuangyuan",
            "zhuangyuan_order": [
                "biandijin",
                "chajinhua",
                "liubohong",
                "liubohei",
                "wuhong",
                "wuzi",
                "sihong",
            ],
        }
    ),
    load_rules(
        {
            "preset": "traditional",
            "liubohei": "zhuangyuan",
            "zhuangyuan_order": ["sihong", "wuzi", "wuhong", "chajinhua", "liubohei", "liubohong"],
        }
    ),
]


def zhuangyuan_hands(rules: RuleSet) -> list[Classification]:
    return [c for ms in MULTISETS if rules.is_zhuangyuan_hand((c := rules.classify(ms)).hand)]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_ranking_digest_is_pinned(preset: str) -> None:
    rules = PRESETS[preset]
    pinned = GOLDEN["ranking"][preset]
    assert len(zhuangyuan_ranking(rules)) == pinned["levels"]
    digest = hashlib.sha256(ranking_text(rules).encode("ascii")).hexdigest()
    assert digest == ranking_digest(rules) == pinned["sha256"]


def test_traditional_ranking_reads_as_research_r10() -> None:
    # research §1 R10: 23 levels, 六勃红 on top, 四红带三 at the bottom, ties within a level.
    lines = ranking_text(PRESETS["traditional"]).splitlines()
    assert lines[:7] == ["444444", "114444", "444446", "444445", "344444", "244444", "144444"]
    assert lines[7] == "111116 222226 333336 555556"
    assert lines[10] == "111113 222223 355555 366666"
    assert lines[13:] == [
        "444466",
        "444456",
        "444455",
        "344446",
        "244446 344445",
        "144446 244445",
        "144445 334444",
        "234444",
        "134444 224444",
        "124444",
    ]


def test_level_counts() -> None:
    assert [len(zhuangyuan_ranking(r)) for r in PRESETS.values()] == [23, 28, 28]
    # face_then_kicker: 25 五子 levels (5 faces × 5 odd dice) instead of 6.
    assert len(zhuangyuan_ranking(VARIANTS[3])) == 23 - 6 + 25


@pytest.mark.parametrize("case", GOLDEN["comparisons"], ids=lambda c: f"{c['a']}-{c['b']}")
def test_golden_comparisons(case: dict[str, Any]) -> None:
    rules = load_rules(case["rules"])
    a, b = rules.classify(case["a"]), rules.classify(case["b"])
    want = {">": 1, "=": 0, "<": -1}[case["expect"]]
    assert compare_zhuangyuan(rules, a, b) == want
    assert compare_zhuangyuan(rules, b, a) == -want
    level_a, level_b = zhuangyuan_level(rules, a), zhuangyuan_level(rules, b)
    assert (level_a < level_b, level_a == level_b) == (want == 1, want == 0)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: json.dumps(r.overrides()))
def test_ranking_partitions_the_zhuangyuan_hands(rules: RuleSet) -> None:
    levels = zhuangyuan_ranking(rules)
    flat = [c for level in levels for c in level]
    assert sorted(c.dice for c in flat) == sorted(c.dice for c in zhuangyuan_hands(rules))
    assert len({c.dice for c in flat}) == len(flat)
    keys = [rules.zhuangyuan_key(level[0]) for level in levels]
    assert keys == sorted(set(keys), reverse=True)
    for index, level in enumerate(levels, start=1):
        assert {rules.zhuangyuan_key(c) for c in level} == {keys[index - 1]}
        assert all(zhuangyuan_level(rules, c) == index for c in level)
    # Hands appear in zhuangyuan_order's order, each in one consecutive run.
    runs = [
        level[0].hand
        for i, level in enumerate(levels)
        if i == 0 or levels[i - 1][0].hand is not level[0].hand
    ]
    assert runs == [h for h in rules.zhuangyuan_order if any(c.hand is h for c in flat)]


def test_not_a_zhuangyuan_hand_is_an_error() -> None:
    rules = PRESETS["traditional"]
    for dice in ("555555", "123456", "444123"):
        with pytest.raises(RulesError, match="not a 状元 hand"):
            zhuangyuan_level(rules, rules.classify(dice))
    assert rules.is_zhuangyuan_hand(Hand.LIUBOHEI) is False
    assert PRESETS["modern"].is_zhuangyuan_hand(Hand.LIUBOHEI) is True


# -- properties: a total order consistent with zhuangyuan_order ------------------------------


@st.composite
def three_hands(draw: st.DrawFn) -> tuple[RuleSet, Classification, Classification, Classification]:
    rules = draw(st.sampled_from(VARIANTS))
    pool = zhuangyuan_hands(rules)
    a, b, c = (draw(st.sampled_from(pool)) for _ in range(3))
    return rules, a, b, c


@settings(deadline=None)  # wall-clock limits make tests flaky on a busy machine
@given(three_hands())
def test_total_order(case: tuple[RuleSet, Classification, Classification, Classification]) -> None:
    rules, a, b, c = case
    ab, ba = compare_zhuangyuan(rules, a, b), compare_zhuangyuan(rules, b, a)
    assert ab == -ba  # antisymmetric, and exactly one of <, =, > holds
    assert compare_zhuangyuan(rules, a, a) == 0
    if ab >= 0 and compare_zhuangyuan(rules, b, c) >= 0:
        assert compare_zhuangyuan(rules, a, c) >= 0  # transitive
    if ab == 0:
        assert compare_zhuangyuan(rules, a, c) == compare_zhuangyuan(rules, b, c)


@settings(deadline=None)  # wall-clock limits make tests flaky on a busy machine
@given(three_hands())
def test_consistent_with_zhuangyuan_order(
    case: tuple[RuleSet, Classification, Classification, Classification],
) -> None:
    rules, a, b, _ = case
    ia, ib = rules.zhuangyuan_order.index(a.hand), rules.zhuangyuan_order.index(b.hand)
    if ia != ib:
        assert compare_zhuangyuan(rules, a, b) == (1 if ia < ib else -1)
        return
    # Same hand: the kicker (or, for face_then_kicker 五子, the face first) decides.
    if a.hand is Hand.WUZI and str(rules.wuzi_compare) == "face_then_kicker":
        want = (a.face or 0, a.kicker or 0), (b.face or 0, b.kicker or 0)
    else:
        want = (a.kicker or 0, 0), (b.kicker or 0, 0)
    assert compare_zhuangyuan(rules, a, b) == (want[0] > want[1]) - (want[0] < want[1])
