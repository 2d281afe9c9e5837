"""The exact game length: against an independent linear solve, and against the simulation."""

from __future__ import annotations

import doctest
import itertools
import math
import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest

import bobing.analysis.markov as markov_module
from bobing.analysis.markov import GameLength, exact_or_none, expected_game_length
from bobing.analysis.simulate import simulate
from bobing.engine.errors import InputError
from bobing.engine.hands import ORDERED_THROWS, TIERS, Hand
from bobing.engine.rules import (
    BiandijinEffect,
    ChajinhuaDuitang,
    End,
    LiuboheiEffect,
    LiubohongEffect,
    RuleSet,
    load_rules,
)

TINY = {"duitang": 1, "sanhong": 1, "sijin": 0, "erju": 1, "yixiu": 2}
BIANDIJIN_RANKED = ["liubohong", "biandijin", "chajinhua", "wuhong", "wuzi", "sihong"]
SMALL = {"duitang": 2, "sanhong": 2, "sijin": 3, "erju": 3, "yixiu": 4}


def _outcomes(rules: RuleSet, tiaohou: float) -> Counter[tuple[Any, ...]]:
    """Probability of each (tiers taken, chajinhua, 状元, ending) straight from the classifier."""
    counts: Counter[tuple[Any, ...]] = Counter()
    for throw in ORDERED_THROWS:
        c = rules.classifier(throw)
        hand = c.hand
        ending = None
        if hand is Hand.LIUBOHONG and rules.liubohong is not LiubohongEffect.ZHUANGYUAN:
            ending = "liubohong"
        if hand is Hand.LIUBOHEI and rules.liubohei in (
            LiuboheiEffect.GRAB_END,
            LiuboheiEffect.ZHUANGYUAN_END_SHARE,
        ):
            ending = "liubohei"
        if hand is Hand.BIANDIJIN and rules.biandijin in (
            BiandijinEffect.TAKE_REMAINING_END,
            BiandijinEffect.ZHUANGYUAN_TAKE_REMAINING_END,
        ):
            ending = "biandijin"
        zy = rules.is_zhuangyuan_hand(hand)
        tier = None if zy else rules.tier_of(hand)
        won = (tier, *c.bonus) if tier else tuple(c.bonus) if zy else ()
        taken = tuple(TIERS.index(t) for t in won)
        if hand is Hand.LIUBOHEI and rules.liubohei is LiuboheiEffect.TAKE_ONE:
            taken = (TAKE_BEST,)
        chj = hand is Hand.CHAJINHUA and rules.chajinhua_duitang is ChajinhuaDuitang.IMMEDIATE
        counts[(taken, chj, zy, ending)] += 1
    probs: Counter[tuple[Any, ...]] = Counter()
    for key, n in counts.items():
        probs[key] = (1 - tiaohou) * n / len(ORDERED_THROWS)
    probs[((), False, False, None)] += tiaohou
    return probs


TAKE_BEST = -1  # 六勃黑 take_one: a cake of the best tier left


def brute_force(rules: RuleSet, players: int, tiaohou: float = 0.0) -> dict[str, float]:
    """Every state spelled out — main play and each turn of the final window — and one dense
    linear solve for expected throws, rounds and the chance of ending by 六勃红."""
    n = players
    outcomes = _outcomes(rules, tiaohou)
    pools = list(itertools.product(*(range(c + 1) for c in rules.prizes[1:])))
    window = {End.FINISH_ROUND: 0, End.ONE_MORE_ROUND: n, End.IMMEDIATE: None}[rules.end]
    states: list[tuple[Any, ...]] = [
        ("main", pool, z, pos) for pool in pools for z in (0, 1) for pos in range(n)
    ]
    states += [("final", pos, left) for pos in range(n) for left in range(1, 2 * n + 1)]
    index = {s: i for i, s in enumerate(states)}
    size = len(states)
    a = np.eye(size)
    rewards = np.zeros((size, 3))

    def final_state(pos: int, left: int) -> int | None:
        return index[("final", pos % n, left)] if left > 0 else None

    for s, i in index.items():
        pos = s[3] if s[0] == "main" else s[1]
        rewards[i, 0] = 1
        rewards[i, 1] = 1 if pos == 0 else 0
        for (taken, chj, zy, ending), p in outcomes.items():
            if ending:
                rewards[i, 2] += p if ending == "liubohong" else 0
                continue
            if s[0] == "final":
                nxt = final_state(pos + 1, s[2] - 1)
                if nxt is not None:
                    a[i, nxt] -= p
                continue
            pool = list(s[1])
            before = sum(pool)
            for t in taken:
                if t == TAKE_BEST:
                    t = next((k + 1 for k in range(5) if pool[k]), 0)
                    if not t:
                        continue
                pool[t - 1] = max(0, pool[t - 1] - 1)
            if chj:
                pool[0] -= min(2, pool[0])
            z = 1 if (s[2] or zy) else 0
            if sum(pool) == 0 and z:
                rest = n - 1 - pos  # the turns left in this round
                if before > 0 and window is None:
                    rest = 0
                elif before > 0:
                    rest += window
                nxt = final_state(pos + 1, rest)
            else:
                nxt = index[("main", tuple(pool), z, (pos + 1) % n)]
            if nxt is not None:
                a[i, nxt] -= p
    values = np.linalg.solve(a, rewards)
    start = index[("main", tuple(rules.prizes[1:]), 0, 0)]
    return {
        "throws": float(values[start, 0]),
        "rounds": float(values[start, 1]),
        "liubohong": float(values[start, 2]),
    }


@pytest.mark.parametrize(
    ("spec", "players", "tiaohou"),
    [
        ({"prizes": TINY}, 3, 0.0),
        ({"prizes": TINY, "end": "one_more_round"}, 2, 0.0),
        ({"prizes": TINY, "end": "immediate"}, 4, 0.0),
        ({"preset": "modern", "prizes": TINY}, 3, 0.15),
        ({"prizes": TINY, "six_ones": "biandijin", "chajinhua_duitang": "none"}, 3, 0.0),
        ({"prizes": {**TINY, "sijin": 1}, "sijin_bonus": True, "liubohong": "zhuangyuan"}, 2, 0.0),
        ({"prizes": TINY, "wuzi_bonus": True, "liubohong": "friendly_end"}, 3, 0.0),
        ({"prizes": TINY, "liubohei": "take_one", "end": "one_more_round"}, 3, 0.0),
        ({"preset": "jinhua", "prizes": TINY, "liubohong": "take_all_end"}, 3, 0.0),
        (
            {
                "prizes": TINY,
                "six_ones": "biandijin",
                "biandijin": "zhuangyuan_take_remaining_end",
                "chajinhua_duitang": "at_end",
                "zhuangyuan_order": BIANDIJIN_RANKED,
            },
            2,
            0.0,
        ),
    ],
    ids=[
        "finish_round",
        "one_more_round",
        "immediate",
        "tiaohou-void",
        "biandijin",
        "bonus",
        "wuzi-bonus-friendly",
        "take-one",
        "guarded-take-all",
        "biandijin-ranked",
    ],
)
def test_chain_equals_an_independent_linear_solve(
    spec: dict[str, Any], players: int, tiaohou: float
) -> None:
    rules = load_rules(spec)
    exact = expected_game_length(rules, players, tiaohou=tiaohou)
    brute = brute_force(rules, players, tiaohou)
    assert exact.throws_mean == pytest.approx(brute["throws"], rel=1e-9)
    assert exact.rounds_mean == pytest.approx(brute["rounds"], rel=1e-9)
    assert exact.ended_by["liubohong"] == pytest.approx(brute["liubohong"], rel=1e-9, abs=1e-15)


def _within_ci(exact: GameLength, spec: Any, players: int, games: int, tiaohou: float) -> None:
    sim = simulate(load_rules(spec), players, games, seed=21, tiaohou=tiaohou)
    for mean, dist in ((exact.throws_mean, sim.throws), (exact.rounds_mean, sim.rounds)):
        half = 4.0 * dist.std / math.sqrt(games)
        assert abs(dist.mean - mean) < half, (mean, dist.mean, half)
    for reason, p in exact.ended_by.items():
        bound = 4.0 * math.sqrt(max(p * (1 - p), 1e-5) / games)
        assert abs(sim.ended_by[reason] - p) < bound, reason
    p = exact.exhausted_before_zhuangyuan
    assert abs(sim.exhausted_first - p) < 4.0 * math.sqrt(p * (1 - p) / games)


def test_default_rules_exact_mean_inside_the_simulations_confidence_interval() -> None:
    exact = expected_game_length(load_rules("traditional"), 10)
    assert exact.states == 3 * 5 * 9 * 17 * 33
    _within_ci(exact, "traditional", 10, 60_000, 0.0)


@pytest.mark.slow  # simulations: left out of dev.py test --quick
@pytest.mark.parametrize(
    ("spec", "players", "tiaohou"),
    [
        ({"preset": "modern", "prizes": SMALL}, 5, 0.0),
        ({"prizes": SMALL, "end": "one_more_round"}, 4, 0.0),
        ({"prizes": SMALL, "end": "immediate", "chase": {"tiers": ["duitang"]}}, 6, 0.0),
        ({"prizes": SMALL, "tiaohou": "void"}, 3, 0.2),
        ({"prizes": SMALL, "six_ones": "biandijin", "standing": "best"}, 7, 0.0),
        # RULES.md §8
        ({"prizes": SMALL, "wuzi_bonus": True, "sijin_bonus": True}, 4, 0.0),
        ({"prizes": SMALL, "liubohei": "take_one", "tiaohou": "void"}, 5, 0.1),
        ({"prizes": SMALL, "liubohong": "friendly_end", "chajinhua_duitang": "at_end"}, 3, 0.0),
        # RULES.md §9: none of its switches changes how long a game lasts, so the chain is exact
        (
            {
                "preset": "jinhua",
                "prizes": SMALL,
                "liubohong": "friendly_end_sanhong",
                "zhuangyuan_cake": "shared",
                "chase": {"tiers": ["yixiu", "erju"], "until": "end"},
                "money": "pay",
                "values": {"zhuangyuan": 9, **dict.fromkeys(SMALL, 1)},
            },
            4,
            0.0,
        ),
        ({"prizes": SMALL, "liubohong": "zhuangyuan", "liubohong_duitang": "at_end"}, 3, 0.0),
        (
            {
                "prizes": SMALL,
                "six_ones": "biandijin",
                "biandijin": "zhuangyuan_take_remaining_end",
                "zhuangyuan_order": BIANDIJIN_RANKED,
            },
            4,
            0.0,
        ),
    ],
)
def test_exact_agrees_with_simulation_under_other_switches(
    spec: dict[str, Any], players: int, tiaohou: float
) -> None:
    exact = expected_game_length(load_rules(spec), players, tiaohou=tiaohou)
    _within_ci(exact, spec, players, 60_000, tiaohou)


# A rule set in which no throw ends the game (六勃红 and 六勃黑 are plain 状元 hands): the
# chain once divided by zero on the state "every cake claimed, a standing exists", which no
# throw ever enters (the right answer came out, with numpy's RuntimeWarning printed).
NO_ENDING = {
    "preset": "traditional",
    "liubohong": "zhuangyuan",
    "liubohei": "zhuangyuan",
    "chajinhua_duitang": "none",
    "zhuangyuan_order": ["chajinhua", "liubohong", "liubohei", "wuhong", "wuzi", "sihong"],
}


def test_rules_where_no_throw_ends_the_game_raise_no_warning() -> None:
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        small = expected_game_length(load_rules({**NO_ENDING, "prizes": TINY}), 3)
        full = expected_game_length(load_rules(NO_ENDING), 4)
    brute = brute_force(load_rules({**NO_ENDING, "prizes": TINY}), 3, 0.0)
    assert small.throws_mean == pytest.approx(brute["throws"], rel=1e-9)
    assert small.rounds_mean == pytest.approx(brute["rounds"], rel=1e-9)
    assert full.ended_by == {"exhausted": 1.0, "liubohong": 0.0, "liubohei": 0.0, "biandijin": 0.0}
    _within_ci(full, NO_ENDING, 4, 40_000, 0.0)


@pytest.mark.slow  # a few seconds: left out of dev.py test --quick
def test_research_figures() -> None:
    # research §3 (六勃黑 a no-op): ≈ 230 throws, ≈ 9.5 % exhausted before any 状元, 0.5 % 六勃红.
    exact = expected_game_length(load_rules({"liubohei": "ignore"}), 10)
    assert 225 < exact.throws_mean < 235
    assert 0.09 < exact.exhausted_before_zhuangyuan < 0.10
    assert exact.ended_by["liubohong"] == pytest.approx(0.005, abs=0.001)
    grab = expected_game_length(load_rules("traditional"), 10)
    assert grab.ended_by["liubohei"] == pytest.approx(0.025, abs=0.002)
    assert sum(grab.ended_by.values()) == pytest.approx(1.0)


def test_more_players_means_more_rounds_not_more_throws() -> None:
    rules = load_rules("traditional")
    six, twelve = expected_game_length(rules, 6), expected_game_length(rules, 12)
    assert six.rounds_mean > 1.8 * twelve.rounds_mean
    assert abs(six.throws_mean - twelve.throws_mean) < 5


def test_unsupported_cases_say_why() -> None:
    with pytest.raises(InputError, match="void_skip_next"):
        expected_game_length(load_rules("traditional"), 6, tiaohou=0.1)
    assert exact_or_none(load_rules("traditional"), 6, tiaohou=0.1) is None
    huge = load_rules({"prizes": {"yixiu": 200, "erju": 100, "sijin": 50}})
    with pytest.raises(InputError, match="too many"):
        expected_game_length(huge, 10)
    with pytest.raises(InputError, match="players"):
        expected_game_length(load_rules("traditional"), 1)


def test_json() -> None:
    data = expected_game_length(load_rules({"prizes": TINY}), 3).to_json()
    assert {"throws_mean", "rounds_mean", "ended_by", "exhausted_before_zhuangyuan"} <= set(data)


def test_doctests() -> None:
    result = doctest.testmod(markov_module)
    assert result.attempted > 0 and result.failed == 0
