"""Are these dice fair? (RULES.md §10.3): the counts, the chi-square p-value and the verdict."""

from __future__ import annotations

import random

import pytest

from bobing.analysis.dice_check import (
    MIN_THROWS,
    NONE,
    DiceCheck,
    Verdict,
    check_dice,
    check_record,
    chi2_sf,
)
from bobing.engine.errors import RecordError

# 5 % and 1 % points of the chi-square distribution (any statistics table), by degrees of freedom
CRITICAL = {1: (3.8415, 6.6349), 2: (5.9915, 9.2103), 3: (7.8147, 11.3449), 5: (11.0705, 15.0863),
            6: (12.5916, 16.8119)}  # fmt: skip


@pytest.mark.parametrize("k", sorted(CRITICAL))
def test_p_values_match_the_tables(k: int) -> None:
    five, one = CRITICAL[k]
    assert chi2_sf(five, k) == pytest.approx(0.05, abs=1e-5)
    assert chi2_sf(one, k) == pytest.approx(0.01, abs=1e-5)


def test_p_of_a_perfect_count_is_one() -> None:
    check = check_dice(["123456"] * MIN_THROWS)
    assert check.chi2 == 0 and check.p == 1.0 and check.verdict is Verdict.FAIR


def throws(weights: list[float], count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return ["".join(map(str, rng.choices(range(1, 7), weights, k=6))) for _ in range(count)]


def test_seeded_fair_dice_are_fair() -> None:
    check = check_dice(throws([1] * 6, 600))
    assert check.dice == 3600 and sum(check.faces) == 3600
    assert check.verdict is Verdict.FAIR and check.p is not None and check.p >= 0.01
    assert check.sentence("en").startswith("these dice look fair (p = ")
    assert check.sentence("en").endswith(", 3,600 dice)")


def test_a_loaded_die_is_suspect_and_named() -> None:
    check = check_dice(throws([3, 3, 3, 5, 3, 3], 600))  # face 4 at 1/4
    assert check.verdict is Verdict.SUSPECT and check.p is not None and check.p < 0.01
    assert check.odd_face == (4, True)
    assert check.sentence("en") == "4 shows more often than fair dice would (p < 0.001)"
    assert check.sentence("zh-Hans") == "4 点出现得比公平的骰子多（p < 0.001）"


def test_a_missing_face_is_named_as_less() -> None:
    check = check_dice(throws([1, 1, 1, 1, 1, 0.5], 300))
    assert check.verdict is Verdict.SUSPECT and check.odd_face == (6, False)


def test_below_sixty_throws_there_are_too_few() -> None:
    loaded = throws([0, 0, 0, 1, 0, 0], MIN_THROWS - 1)  # nothing but 4s, still too few to tell
    assert check_dice(loaded).verdict is Verdict.TOO_FEW
    assert check_dice(throws([1] * 6, 30)).verdict is Verdict.TOO_FEW
    assert check_dice(throws([1] * 6, MIN_THROWS)).verdict is not Verdict.TOO_FEW
    assert NONE.to_json() == {
        "faces": dict.fromkeys("123456", 0), "dice": 0, "chi2": None, "p": None,
        "verdict": "too_few",
    }  # fmt: skip


def test_a_tiaohou_has_no_faces_and_counts_as_no_throw() -> None:
    entries = ["444412", {"tiaohou": True}, {"close": True}, {"dice": [1, 1, 1, 1, 1, 1]}]
    check = check_record({"players": ["甲"], "throws": entries})
    assert check == DiceCheck((7, 1, 0, 4, 0, 0), 2)


def test_counts_add_up() -> None:
    a, b = check_dice(["111111"]), check_dice(["222222", None])
    assert a + b == DiceCheck((6, 6, 0, 0, 0, 0), 2) and a + NONE == a


def test_a_bad_throw_is_an_error_naming_it() -> None:
    with pytest.raises(RecordError, match="throw 2"):
        check_record({"players": ["甲"], "throws": ["444412", "44441"]})
