"""Classification: golden vectors, full enumeration, and an independent reference classifier."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bobing.engine import DiceError, Hand, RuleSet, Tier, classify, load_rules, parse_dice
from bobing.engine.dice import dice_text
from bobing.engine.hands import MULTISETS, ORDERED_THROWS, classify_multiset
from bobing.engine.presets import PRESETS

GOLDEN = json.loads((Path(__file__).parent.parent / "golden" / "hands.json").read_text("utf-8"))

# -- the reference: each hand an exclusive predicate over face counts (RULES.md §2) ----------


HANDS = (
    "liubohong",
    "biandijin",
    "liubohei",
    "chajinhua",
    "wuhong",
    "wuzi",
    "sihong",
    "duitang",
    "sanhong",
    "sijin",
    "erju",
    "yixiu",
    "none",
)


def predicates(
    dice: Sequence[int], *, six_ones: str = "liubohei", patterns: Sequence[str] = ("123456",)
) -> dict[str, bool]:
    """For each hand id, whether the dice are that hand (exactly one should be true)."""
    c = Counter(dice)
    fours = c[4]
    others = max((n for face, n in c.items() if face != 4), default=0)
    in_pattern = "".join(sorted(str(d) for d in dice)) in {"".join(sorted(p)) for p in patterns}
    big = fours >= 4 or others >= 5  # a 状元-class or six-of-a-kind shape, decided before patterns
    return {
        "liubohong": fours == 6,
        "biandijin": c[1] == 6 and six_ones == "biandijin",
        "liubohei": others == 6 and not (c[1] == 6 and six_ones == "biandijin"),
        "chajinhua": fours == 4 and c[1] == 2,
        "wuhong": fours == 5,
        "wuzi": others == 5,
        "sihong": fours == 4 and c[1] != 2,
        "duitang": in_pattern and not big,
        "sanhong": fours == 3 and not in_pattern,
        "sijin": others == 4 and fours <= 2 and not in_pattern,
        "erju": fours == 2 and others <= 3 and not in_pattern,
        "yixiu": fours == 1 and others <= 3 and not in_pattern,
        "none": fours == 0 and others <= 3 and not in_pattern,
    }


def reference_classify(
    dice: Sequence[int],
    *,
    six_ones: str = "liubohei",
    patterns: Sequence[str] = ("123456",),
    sijin_bonus: bool = False,
) -> dict[str, Any]:
    """``{"hand", "kicker", "bonus"}`` for six dice, computed from face counts only."""
    matches = [h for h, ok in predicates(dice, six_ones=six_ones, patterns=patterns).items() if ok]
    if len(matches) != 1:
        raise AssertionError(f"{dice}: {len(matches)} hands match: {matches}")
    hand = matches[0]
    c = Counter(dice)
    kicker: int | None = None
    bonus: list[str] = []
    if hand == "sihong":
        kicker = sum(d for d in dice if d != 4)
    elif hand in ("wuhong", "wuzi"):
        kicker = next(face for face, n in c.items() if n == 1)
    elif hand == "liubohei":
        kicker = dice[0]
    elif hand == "sijin" and sijin_bonus and c[4] in (1, 2):
        bonus = ["yixiu"] if c[4] == 1 else ["erju"]
    return {"hand": hand, "kicker": kicker, "bonus": bonus}


def engine_result(rules: RuleSet, dice: Sequence[int]) -> dict[str, Any]:
    c = rules.classifier(tuple(dice))
    tier = rules.tier_of(c.hand)
    return {
        "hand": str(c.hand),
        "tier": None if tier is None else str(tier),
        "kicker": c.kicker,
        "bonus": [str(b) for b in c.bonus],
    }


def reference_for(rules: RuleSet, dice: Sequence[int]) -> dict[str, Any]:
    return reference_classify(
        dice,
        six_ones=str(rules.six_ones),
        patterns=rules.duitang_patterns,
        sijin_bonus=rules.sijin_bonus,
    )


VARIANTS: list[RuleSet] = [
    *PRESETS.values(),
    load_rules({"preset": "traditional", "six_ones": "biandijin"}),
    load_rules({"preset": "traditional", "sijin_bonus": True}),
    load_rules({"preset": "modern", "duitang_patterns": ["123456", "334455", "112233"]}),
    load_rules({"preset": "modern", "duitang_patterns": ["444123", "111123", "124444"]}),
    load_rules(
        {
            "preset": "modern",
            "six_ones": "biandijin",
            "biandijin": "zhuangyuan",
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
]

# -- golden vectors --------------------------------------------------------------------------

VECTOR_CASES = [
    pytest.param(v["dice"], preset, expected, id=f"{v['dice']}-{preset}")
    for v in GOLDEN["vectors"]
    for preset, expected in v["expect"].items()
]


def test_golden_covers_every_hand_and_preset() -> None:
    hands = {e["hand"] for v in GOLDEN["vectors"] for e in v["expect"].values()}
    hands |= {v["expect"]["hand"] for rf in GOLDEN["rule_files"] for v in rf["vectors"]}
    assert hands == {str(h) for h in Hand}
    refs = {v["ref"] for v in GOLDEN["vectors"] if v["ref"]}
    assert refs == {f"T{i}" for i in range(1, 26)}
    assert {p for v in GOLDEN["vectors"] for p in v["expect"]} == set(PRESETS)


@pytest.mark.parametrize(("dice", "preset", "expected"), VECTOR_CASES)
def test_golden_vector(dice: str, preset: str, expected: dict[str, Any]) -> None:
    rules = PRESETS[preset]
    throw = parse_dice(dice)
    # Every distinct order of the dice gives the same answer.
    for order in set(itertools.permutations(throw)):
        assert engine_result(rules, order) == expected, order
    assert engine_result(rules, throw) == reference_for(rules, throw) | {"tier": expected["tier"]}


@pytest.mark.parametrize("case", GOLDEN["rule_files"], ids=lambda rf: rf["about"][:40])
def test_golden_rule_file_vectors(case: dict[str, Any]) -> None:
    rules = load_rules(case["rules"])
    for vector in case["vectors"]:
        throw = parse_dice(vector["dice"])
        for order in set(itertools.permutations(throw)):
            assert engine_result(rules, order) == vector["expect"], (vector["dice"], order)


def test_classify_accepts_every_spelling() -> None:
    expected = classify("444412")
    spellings = ("4 4 4 4 1 2", "4,4,4,4,1,2", " 441244 ", "4，4，4，4，1，2", (4, 4, 4, 4, 1, 2))
    for spelling in spellings:
        assert classify(spelling) == expected
    assert classify([2, 1, 4, 4, 4, 4]) == expected


@pytest.mark.parametrize("bad", ["44441", "4444121", "444417", "444410", "abcdef", "", "4 4 x 4"])
def test_classify_rejects_bad_dice(bad: str) -> None:
    with pytest.raises(DiceError) as info:
        classify(bad)
    assert isinstance(info.value, ValueError)
    if bad.strip():
        assert repr(bad) in str(info.value)


# -- full enumeration ------------------------------------------------------------------------

# RULES.md §2, over the 46656 ordered throws with the default patterns and six_ones=liubohei.
RULES_COUNTS = {
    "liubohong": 1,
    "liubohei": 5,
    "chajinhua": 15,
    "wuhong": 30,
    "wuzi": 150,
    "sihong": 360,
    "duitang": 720,
    "sanhong": 2500,
    "sijin": 1875,
    "erju": 9300,
    "yixiu": 17400,
    "none": 14300,
}


def test_ordered_throws_and_multisets() -> None:
    assert len(ORDERED_THROWS) == 6**6 == len(set(ORDERED_THROWS))
    assert len(MULTISETS) == 462 == len({tuple(sorted(t)) for t in ORDERED_THROWS})


@pytest.mark.parametrize("preset", list(PRESETS))
def test_full_enumeration_counts(preset: str) -> None:
    rules = PRESETS[preset]
    counts = Counter(str(rules.classifier(t).hand) for t in ORDERED_THROWS)
    assert counts == RULES_COUNTS
    assert sum(counts.values()) == 46656


@pytest.mark.slow  # a few seconds: left out of dev.py test --quick
def test_full_enumeration_agrees_with_reference_for_every_variant() -> None:
    for rules in VARIANTS:
        for throw in ORDERED_THROWS:
            got = rules.classifier(throw)
            want = reference_for(rules, throw)
            assert (str(got.hand), got.kicker, [str(b) for b in got.bonus]) == (
                want["hand"],
                want["kicker"],
                want["bonus"],
            ), (rules.overrides(), throw)


def test_sijin_split_and_bonus_counts() -> None:
    # research §4: 四进 1875 = 1200 without a 4 + 600 with one (四进带一秀) + 75 with two.
    split = Counter(t.count(4) for t in ORDERED_THROWS if classify(t).hand is Hand.SIJIN)
    assert split == {0: 1200, 1: 600, 2: 75}
    modern = PRESETS["modern"]
    bonus = Counter(modern.classifier(t).bonus for t in ORDERED_THROWS)
    assert bonus[(Tier.YIXIU,)] == 600
    assert bonus[(Tier.ERJU,)] == 75
    assert sum(bonus.values()) - bonus[()] == 675


def test_kicker_distributions() -> None:
    # research §4, in ordered throws.
    kickers: dict[Hand, Counter[int]] = {h: Counter() for h in Hand}
    for throw in ORDERED_THROWS:
        c = classify(throw)
        if c.kicker is not None:
            kickers[c.hand][c.kicker] += 1
    assert kickers[Hand.SIHONG] == dict(
        zip(range(3, 13), (30, 45, 30, 45, 60, 60, 30, 15, 30, 15), strict=True)
    )
    assert kickers[Hand.WUHONG] == {1: 6, 2: 6, 3: 6, 5: 6, 6: 6}
    assert kickers[Hand.WUZI] == {1: 24, 2: 24, 3: 24, 4: 30, 5: 24, 6: 24}
    assert kickers[Hand.LIUBOHEI] == {1: 1, 2: 1, 3: 1, 5: 1, 6: 1}
    wuzi_faces = Counter(classify(t).face for t in ORDERED_THROWS if classify(t).hand is Hand.WUZI)
    assert wuzi_faces == {1: 30, 2: 30, 3: 30, 5: 30, 6: 30}


def test_variant_counts() -> None:
    biandijin = load_rules({"six_ones": "biandijin"})
    counts = Counter(str(biandijin.classifier(t).hand) for t in ORDERED_THROWS)
    assert counts == RULES_COUNTS | {"biandijin": 1, "liubohei": 4}
    # research §4: exactly 334455 and exactly 112233 each have 90 orders.
    patterns = load_rules({"duitang_patterns": ["123456", "334455", "112233"]})
    counts = Counter(str(patterns.classifier(t).hand) for t in ORDERED_THROWS)
    assert counts == RULES_COUNTS | {"duitang": 900, "erju": 9210, "none": 14210}


def test_classifier_table_matches_direct_classification() -> None:
    for rules in VARIANTS:
        table = rules.classifier.multisets
        assert len(table) == 462
        for ms, c in table.items():
            assert c.dice == ms
            assert c == classify_multiset(
                ms,
                six_ones=str(rules.six_ones),
                duitang_patterns=frozenset(
                    tuple(int(ch) for ch in p)  # type: ignore[misc]
                    for p in rules.duitang_patterns
                ),
                sijin_bonus=rules.sijin_bonus,
            )


# -- properties ------------------------------------------------------------------------------

dice_lists = st.lists(st.integers(1, 6), min_size=6, max_size=6)


@settings(deadline=None)  # wall-clock limits make tests flaky on a busy machine
@given(dice=dice_lists, rules=st.sampled_from(VARIANTS), data=st.data())
def test_dice_order_never_matters(dice: list[int], rules: RuleSet, data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(dice))
    assert rules.classifier(tuple(dice)) == rules.classifier(tuple(shuffled))
    assert rules.classify(dice_text(shuffled)) == rules.classify(dice)


@settings(deadline=None)  # wall-clock limits make tests flaky on a busy machine
@given(dice=dice_lists, rules=st.sampled_from(VARIANTS))
def test_every_throw_gets_exactly_one_hand(dice: list[int], rules: RuleSet) -> None:
    matches = predicates(dice, six_ones=str(rules.six_ones), patterns=rules.duitang_patterns)
    assert sum(matches.values()) == 1
    assert matches[str(rules.classifier(tuple(dice)).hand)]


@settings(deadline=None)  # wall-clock limits make tests flaky on a busy machine
@given(dice=dice_lists, rules=st.sampled_from(VARIANTS))
def test_classify_agrees_with_reference(dice: list[int], rules: RuleSet) -> None:
    got = engine_result(rules, dice)
    want = reference_for(rules, dice)
    assert {k: got[k] for k in want} == want
    tier = got["tier"]
    if want["hand"] in ("duitang", "sanhong", "sijin", "erju", "yixiu"):
        assert tier == want["hand"]
    elif want["hand"] == "none":
        assert tier is None
    else:
        assert (tier == "zhuangyuan") == (Hand(want["hand"]) in rules.zhuangyuan_order)


@settings(deadline=None)  # wall-clock limits make tests flaky on a busy machine
@given(dice=dice_lists)
def test_classification_is_the_sorted_multiset(dice: list[int]) -> None:
    c = classify(dice)
    assert c.dice == tuple(sorted(dice))
    assert c.dice_text == "".join(map(str, sorted(dice)))
