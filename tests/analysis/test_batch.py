"""``classify_many`` equals the engine's ``classify`` and ``tier_of`` on every ordered throw.

The rule sets are generated from the switch list (every value of every enum and boolean switch
on every preset, plus the combinations a single switch cannot make valid alone), not picked by
hand, so a new switch value is covered the day it is added.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from bobing.analysis.batch import NONE, classify_many, throw_index
from bobing.engine.errors import DiceError, RulesError
from bobing.engine.hands import HANDS, TIERS
from bobing.engine.presets import PRESETS
from bobing.engine.rules import RuleSet, rules_from_json
from bobing.engine.switches import SWITCHES, allowed_values

ALL = np.array(list(itertools.product(range(1, 7), repeat=6)), dtype=np.int8)

EXTRA: list[dict[str, Any]] = [
    {"duitang_patterns": ["123456", "334455", "112233"]},
    {"six_ones": "biandijin", "biandijin": "zhuangyuan",
     "zhuangyuan_order": ["liubohong", "biandijin", "chajinhua", "wuhong", "wuzi", "sihong"]},
    {"six_ones": "biandijin", "biandijin": "zhuangyuan_take_remaining_end",
     "zhuangyuan_order": ["liubohong", "chajinhua", "biandijin", "wuhong", "wuzi", "sihong"]},
    {"liubohei": "zhuangyuan",
     "zhuangyuan_order": ["liubohong", "liubohei", "chajinhua", "wuhong", "wuzi", "sihong"]},
    {"sijin_bonus": True, "wuzi_bonus": True},
]  # fmt: skip


def _variants() -> dict[tuple[object, ...], RuleSet]:
    """Distinct rule sets by what classification depends on, from every switch value."""
    found: dict[tuple[object, ...], RuleSet] = {}
    for preset in PRESETS:
        candidates: list[dict[str, Any]] = [{}, *EXTRA]
        for switch in SWITCHES:
            values = allowed_values(switch)
            if values in (["true", "false"],):
                candidates += [{switch: True}, {switch: False}]
            elif all(v.isidentifier() for v in values) and switch not in (
                "zhuangyuan_order",
                "prizes",
            ):
                candidates += [{switch: v} for v in values]
        for overrides in candidates:
            try:
                rules = rules_from_json({"preset": preset, **overrides})
            except RulesError:
                continue  # a value that contradicts the preset alone (EXTRA covers it)
            key = (rules.classifier, tuple(rules.zhuangyuan_order))
            found.setdefault(key, rules)
    return found


VARIANTS = _variants()


def test_the_variants_reach_every_classification_switch() -> None:
    classifiers = {key[0] for key in VARIANTS}
    assert len(classifiers) >= 6  # six_ones × bonus switches × patterns
    assert len(VARIANTS) > len(classifiers)  # and several 状元 orders


# Ids by position (the variants come in a fixed order): a hash would differ from process to
# process, and the parallel run's workers must collect the same tests.
@pytest.mark.parametrize("key", list(VARIANTS), ids=[f"v{i}" for i in range(len(VARIANTS))])
def test_every_throw_equals_the_engine(key: tuple[object, ...]) -> None:
    rules = VARIANTS[key]
    out = classify_many(ALL, rules)
    assert len(out) == len(ALL) == 46_656
    for i, throw in enumerate(ALL.tolist()):
        c = rules.classify(tuple(throw))
        tier = rules.tier_of(c.hand)
        assert HANDS[out.hand[i]] is c.hand, throw
        assert out.tier[i] == (NONE if tier is None else TIERS.index(tier)), throw
        assert out.kicker[i] == (NONE if c.kicker is None else c.kicker), throw
        assert out.bonus[i] == (TIERS.index(c.bonus[0]) if c.bonus else NONE), throw


def test_counts_match_rules_md() -> None:
    out = classify_many(ALL, PRESETS["traditional"])
    counts = {str(h): int((out.hand == HANDS.index(h)).sum()) for h in HANDS}
    assert counts["liubohong"] == 1 and counts["chajinhua"] == 15 and counts["sihong"] == 360
    assert counts["duitang"] == 720 and counts["yixiu"] == 17_400 and counts["none"] == 14_300


def test_order_and_index() -> None:
    dice = np.array([[6, 6, 6, 6, 6, 6], [1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 2]])
    assert throw_index(dice).tolist() == [46_655, 0, 1]
    assert classify_many(np.empty((0, 6), dtype=np.int64), PRESETS["modern"]).hand.shape == (0,)


@pytest.mark.parametrize(
    ("dice", "code"),
    [
        ([[1, 2, 3, 4, 5]], "bad_shape"),
        ([1, 2, 3, 4, 5, 6], "bad_shape"),
        ([[1, 2, 3, 4, 5, 7]], "bad_face"),
        ([[0, 2, 3, 4, 5, 6]], "bad_face"),
        ([[1.0, 2, 3, 4, 5, 6]], "bad_dtype"),
    ],
)
def test_bad_arrays_are_refused(dice: object, code: str) -> None:
    with pytest.raises(DiceError) as caught:
        classify_many(dice, PRESETS["traditional"])  # type: ignore[arg-type]
    assert caught.value.code == code
