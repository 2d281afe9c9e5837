"""The whole-game simulation: throw for throw against the engine, in distribution, reproducible."""

from __future__ import annotations

import doctest
import json
import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import given as hypothesis_given
from hypothesis import strategies as st

import bobing.analysis.outcomes as outcomes_module
from bobing.analysis.bell import Bell
from bobing.analysis.outcomes import GAME_ENDINGS
from bobing.analysis.simulate import (
    JUMP,
    OUTCOMES,
    REASONS,
    Distribution,
    GameTrace,
    play_given,
    play_reference,
    simulate,
    simulate_reference,
)
from bobing.engine.dice import SeededDice
from bobing.engine.errors import InputError
from bobing.engine.game import Game, Phase
from bobing.engine.hands import ORDERED_THROWS, TIERS
from bobing.engine.rules import Direction, LiuboheiEffect, RuleSet, load_rules

SMALL = {"duitang": 2, "sanhong": 2, "sijin": 3, "erju": 3, "yixiu": 4}

# Every switch of RULES.md §5 in some combination (ids of the test cases: what they switch).
COMBOS: dict[str, dict[str, Any]] = {
    "traditional": {},
    "modern": {"preset": "modern"},
    "jinhua": {"preset": "jinhua"},
    "chase-nearest": {"chase": {"tiers": ["sanhong", "duitang"], "from": "nearest_before"}},
    "chase-latest-all": {
        "preset": "modern",
        "chase": {"tiers": ["duitang", "sanhong", "sijin", "erju", "yixiu"], "from": "latest"},
    },
    "standing-best": {"standing": "best"},
    "one-more-round": {"end": "one_more_round"},
    "immediate": {"end": "immediate"},
    "tiaohou-void": {"tiaohou": "void"},
    "biandijin-sweep": {"six_ones": "biandijin"},
    "biandijin-zhuangyuan": {
        "six_ones": "biandijin",
        "biandijin": "zhuangyuan",
        "zhuangyuan_order": ["liubohong", "biandijin", "chajinhua", "wuhong", "wuzi", "sihong"],
    },
    "liubohong-zhuangyuan": {"liubohong": "zhuangyuan"},
    "liubohei-ignore": {"liubohei": "ignore"},
    "liubohei-zhuangyuan": {
        "liubohei": "zhuangyuan",
        "zhuangyuan_order": ["liubohong", "chajinhua", "wuhong", "liubohei", "wuzi", "sihong"],
    },
    "chajinhua-no-duitang": {"chajinhua_duitang": "none"},
    "lugu-keeps-duitang": {"chajinhua_lugu": "keeps_duitang"},
    "wuzi-face": {"wuzi_compare": "face_then_kicker"},
    "duitang-patterns": {"duitang_patterns": ["123456", "334455"]},
    "bonus-chase": {
        "sijin_bonus": True,
        "chase": {"tiers": ["yixiu", "erju", "sijin"], "from": "nearest_before"},
    },
    "jinhua-best-chase": {
        "preset": "jinhua",
        "standing": "best",
        "chase": {"tiers": ["duitang"], "from": "latest"},
    },
    "modern-one-more-chase": {
        "preset": "modern",
        "end": "one_more_round",
        "chase": {"tiers": ["duitang", "sanhong"]},
    },
    # RULES.md §8.
    "wuzi-bonus": {"wuzi_bonus": True},
    "wuzi-bonus-chase": {
        "preset": "modern",
        "wuzi_bonus": True,
        "chase": {"tiers": ["yixiu", "erju"], "from": "latest"},
    },
    "liubohong-friendly": {"liubohong": "friendly_end"},
    "liubohong-friendly-at-end": {"liubohong": "friendly_end", "chajinhua_duitang": "at_end"},
    "liubohong-spares": {"liubohong_spares_chajinhua": True},
    "spares-keeps-chase": {
        "liubohong_spares_chajinhua": True,
        "chajinhua_lugu": "keeps_duitang",
        "chase": {"tiers": ["duitang", "sanhong"], "from": "nearest_before"},
    },
    "liubohei-take-one": {"liubohei": "take_one"},
    "take-one-chase": {
        "preset": "modern",
        "liubohei": "take_one",
        "zhuangyuan_order": ["liubohong", "chajinhua", "wuhong", "wuzi", "sihong"],
        "chase": {"tiers": ["duitang", "sanhong", "sijin"], "from": "latest"},
    },
    "chajinhua-at-end": {"chajinhua_duitang": "at_end"},
    "at-end-jinhua-best": {"preset": "jinhua", "chajinhua_duitang": "at_end", "standing": "best"},
    "biandijin-ranked-rest": {
        "six_ones": "biandijin",
        "biandijin": "zhuangyuan_take_remaining_end",
        "zhuangyuan_order": ["liubohong", "chajinhua", "biandijin", "wuhong", "wuzi", "sihong"],
    },
    "everything-new": {
        "preset": "modern",
        "wuzi_bonus": True,
        "sijin_bonus": True,
        "liubohong": "friendly_end",
        "liubohei": "take_one",
        "zhuangyuan_order": ["liubohong", "chajinhua", "biandijin", "wuhong", "wuzi", "sihong"],
        "six_ones": "biandijin",
        "biandijin": "zhuangyuan_take_remaining_end",
        "chajinhua_duitang": "at_end",
        "max_players": 13,
    },
    # RULES.md §9: the §9.1 correction shows wherever chajinhua_lugu is exempt (the default);
    # these reach the rest.
    "pre-1984-order": {"zhuangyuan_order": ["liubohong", "wuhong", "wuzi", "sihong", "chajinhua"]},
    "exempt-take-rest": {"preset": "modern", "chajinhua_lugu": "exempt"},
    "exempt-end-share-best": {"preset": "modern", "chajinhua_lugu": "exempt", "standing": "best"},
    "guard-take-all": {"preset": "jinhua", "liubohong": "take_all_end"},
    "guard-take-all-spares-chase": {
        "preset": "jinhua",
        "liubohong": "take_all_end",
        "chajinhua_lugu": "exempt",
        "chase": {"tiers": ["duitang", "sanhong"], "from": "latest"},
    },
    "guard-friendly": {"preset": "jinhua", "liubohong": "friendly_end"},
    "guard-friendly-sanhong-at-end": {
        "preset": "jinhua",
        "liubohong": "friendly_end_sanhong",
        "chajinhua_duitang": "at_end",
    },
    "friendly-sanhong": {"liubohong": "friendly_end_sanhong"},
    "liubohong-duitang-at-end": {"liubohong": "zhuangyuan", "liubohong_duitang": "at_end"},
    "liubohong-duitang-at-end-chj": {
        "liubohong": "zhuangyuan",
        "liubohong_duitang": "at_end",
        "chajinhua_duitang": "at_end",
    },
    "shared": {"zhuangyuan_cake": "shared"},
    "shared-modern-grab-chase": {
        "preset": "modern",
        "liubohei": "grab_end",
        "zhuangyuan_order": ["liubohong", "chajinhua", "wuhong", "wuzi", "sihong"],
        "zhuangyuan_cake": "shared",
        "chase": {"tiers": ["yixiu", "erju"], "from": "latest"},
    },
    "chase-until-end": {
        "chase": {
            "tiers": ["sanhong", "duitang", "yixiu"],
            "from": "nearest_before",
            "until": "end",
        }
    },
    "chase-until-end-latest-one-more": {
        "preset": "modern",
        "end": "one_more_round",
        "chase": {"tiers": ["erju", "yixiu"], "from": "latest", "until": "end"},
    },
    "money-pay": {
        "money": "pay",
        "values": {
            "zhuangyuan": 100,
            "duitang": 50,
            "sanhong": 20,
            "sijin": 10,
            "erju": 5,
            "yixiu": 1,
        },
    },
}

_INDEX = {throw: i for i, throw in enumerate(ORDERED_THROWS)}
# Throws that exercise the rare paths: both 六勃, 遍地锦, 插金花, 五红, 五子, 四红, 对堂 (and
# an agreed pattern), 三红, 四进 with and without red 4s.
_SPECIAL = [
    _INDEX[tuple(int(c) for c in text)]
    for text in (
        "444444", "111111", "555555", "444411", "444441", "444446", "222224", "333336",
        "444412", "444466", "123456", "334455", "444123", "222241", "333344", "555566",
    )
]  # fmt: skip


def biased_throws(rng: random.Random, count: int, jump: float = 0.05) -> list[int]:
    """Throw indices where rare hands and 跳猴 are common, so every path is taken."""
    out = []
    for _ in range(count):
        r = rng.random()
        if r < jump:
            out.append(JUMP)
        elif r < jump + 0.08:
            out.append(rng.choice(_SPECIAL))
        else:
            out.append(rng.randrange(OUTCOMES))
    return out


def play_engine(
    rules: RuleSet, players: int, throws: Sequence[int], close_after: int = 0
) -> tuple[Any, ...]:
    """Play ``throws`` through the engine; the outcome as seen before any lights-off grab.
    With ``close_after``, time is called right after that throw."""
    names = [f"p{i}" for i in range(players)]
    game = Game(rules, names)
    game.start()
    step = -1 if rules.direction is Direction.COUNTERCLOCKWISE else 1
    order = [game.state.seat_of[names[(k * step) % players]] for k in range(players)]
    given = iter(throws)
    while game.phase not in (Phase.OVER, Phase.GRAB):
        u = next(given)
        if u == JUMP:
            game.throw(None, tiaohou=True)
        else:
            game.throw(ORDERED_THROWS[u])
        if game.state.throws == close_after and game.can_close():
            game.close()
    state = game.state
    held = tuple(tuple(state.held[seat]) for seat in order)
    if game.phase is Phase.GRAB:
        return (state.throws, state.turn, "liubohei", held, None)
    # The seat named 状元 (who holds the cake, unless it is shared: 分状元, RULES.md §9.3).
    winner = -1 if state.winner is None else order.index(state.winner.seat)
    return (state.throws, state.turn, state.ended_by, held, winner)


def outcome(trace: GameTrace, rules: RuleSet) -> tuple[Any, ...]:
    """The same view of a simulated game (holdings before the grab)."""
    grab = trace.ended_by == "liubohei" and rules.liubohei is LiuboheiEffect.GRAB_END
    before = tuple(
        tuple(h - g for h, g in zip(held, grabbed, strict=True))
        for held, grabbed in zip(trace.holdings, trace.grabbed, strict=True)
    )
    return (trace.throws, trace.turns, trace.ended_by, before, None if grab else trace.zhuangyuan)


@pytest.mark.parametrize("prizes", [None, SMALL], ids=["63 cakes", "13 cakes"])
@pytest.mark.parametrize("combo", list(COMBOS), ids=list(COMBOS))
def test_kernel_reference_and_engine_agree_throw_for_throw(
    combo: str, prizes: dict[str, int] | None
) -> None:
    spec = dict(COMBOS[combo])
    if prizes:
        spec["prizes"] = prizes
    rules = load_rules(spec)
    rng = random.Random(f"{combo}/{prizes is None}")
    for players in (2, 5):
        games = 8 if prizes is None else 25
        throws = [biased_throws(rng, 2500) for _ in range(games)]
        kernel = play_given(rules, players, throws)
        for i, given in enumerate(throws):
            engine = play_engine(rules, players, given)
            reference = play_reference(rules, players, throws=given)
            assert outcome(reference, rules) == engine, (combo, players, i)
            assert outcome(kernel[i], rules) == engine, (combo, players, i)
            assert kernel[i].exhausted_first == reference.exhausted_first


CLOSE_COMBOS = ["traditional", "modern", "immediate", "one-more-round", "chase-nearest",
                "chajinhua-at-end", "at-end-jinhua-best", "liubohei-take-one",
                "everything-new", "pre-1984-order", "guard-friendly", "liubohong-duitang-at-end",
                "shared", "chase-until-end"]  # fmt: skip


@pytest.mark.parametrize("combo", CLOSE_COMBOS)
def test_calling_time_agrees_with_the_engine_throw_for_throw(combo: str) -> None:
    rng = random.Random(f"close/{combo}")
    for prizes in (None, SMALL):
        spec = dict(COMBOS[combo]) | ({"prizes": prizes} if prizes else {})
        rules = load_rules(spec)
        for players in (2, 5):
            for close_after in (1, 4, 9, 30, 120):
                throws = [biased_throws(rng, 2500) for _ in range(6)]
                kernel = play_given(rules, players, throws, close_after=close_after)
                for i, given in enumerate(throws):
                    engine = play_engine(rules, players, given, close_after)
                    reference = play_reference(
                        rules, players, throws=given, close_after=close_after
                    )
                    where = (combo, prizes is None, players, close_after, i)
                    assert outcome(reference, rules) == engine, where
                    assert outcome(kernel[i], rules) == engine, where


def test_the_bell_thirty_minutes_at_eight_seconds_a_throw() -> None:
    rules = load_rules("traditional")
    bell = Bell(30, 8)
    assert bell.throws == 225
    timed = simulate(rules, 10, 30_000, seed=8, bell=bell, exact=True)
    free = simulate(rules, 10, 30_000, seed=8)
    assert timed.exact is None and timed.bell == bell
    # The bell only cuts games that would have run past it: the share over before it is the
    # share of untimed games of at most 225 throws (≈ half: a game is ≈ 228 throws).
    before = float(free.throws.counts[: bell.throws + 1].sum()) / free.games
    assert 0.35 < before < 0.65
    assert abs(timed.over_before_bell - before) < 4.5 * math.sqrt(before * (1 - before) / 15_000)
    # No game lasts past the bell's round (plus turns a 跳猴 cost right after it).
    assert timed.throws.max <= bell.throws + 9
    ended = timed.ended_by
    assert set(ended) == set(REASONS) and sum(ended.values()) == pytest.approx(1.0)
    assert ended["closed"] > 0.3 and timed.over_before_bell <= 1 - ended["closed"] + 1e-9
    # Who holds the 状元 then: every seat's chance plus "nobody" make one.
    zy = sum(seat.zhuangyuan_rate for seat in timed.seats)
    assert zy + timed.zhuangyuan_unawarded == pytest.approx(1.0)
    # Nobody at all: no 状元 hand (556 throws in 46 656) in the 225 throws: (1 - 556/46656)**225
    # ≈ 6.7 %, a little less as some of those games end sooner by 六勃黑.
    assert 0.045 < timed.zhuangyuan_unawarded < 0.075
    data = timed.to_json()["bell"]
    assert data["throws"] == 225 and data["minutes"] == 30
    assert data["all_cakes_claimed"] == pytest.approx(1 - ended["closed"], abs=1e-6)
    assert "closed" not in free.ended_by and free.to_json()["bell"] is None


@pytest.mark.parametrize(
    ("minutes", "seconds", "message"),
    [
        (0, 8, "invalid time limit 0"),
        (float("nan"), 8, "invalid time limit nan"),
        (30, 0, "invalid seconds per throw 0"),
        (30, 601, "invalid seconds per throw 601"),
        (0.1, 10, "no time for a single throw"),
    ],
)
def test_a_bad_bell_is_an_input_error(minutes: float, seconds: float, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Bell(minutes, seconds)


def test_the_grab_gives_out_every_unclaimed_cake() -> None:
    rules = load_rules({"prizes": SMALL})
    liubohei = _INDEX[(5, 5, 5, 5, 5, 5)]
    traces = play_given(rules, 4, [[liubohei]] * 200)
    for trace in traces:
        assert trace.ended_by == "liubohei" and trace.throws == 1
        assert trace.holdings == trace.grabbed
        totals = [sum(row[k] for row in trace.holdings) for k in range(6)]
        assert totals == list(rules.prizes)
    # The 状元 cake lands on every seat now and then (uniformly: 50 each expected).
    seats = np.bincount([t.zhuangyuan for t in traces], minlength=4)
    assert seats.min() >= 25


def _engine_games(
    rules: RuleSet, players: int, games: int, seed: int, tiaohou: float
) -> dict[str, list[float]]:
    dice = SeededDice(seed)
    jumps = random.Random(seed + 1)
    grab = random.Random(seed + 2)
    stats: dict[str, list[float]] = {"throws": [], "rounds": [], "seat1": [], "zy1": []}
    for reason in GAME_ENDINGS:
        stats[reason] = []
    names = [f"p{i}" for i in range(players)]
    step = -1 if rules.direction is Direction.COUNTERCLOCKWISE else 1
    first = names[0]
    second = names[step % players]
    for _ in range(games):
        game = Game(rules, names)
        game.start()
        while not game.is_over:
            if game.phase is Phase.GRAB:
                game.grab(rng=grab)
            elif jumps.random() < tiaohou:
                game.throw(None, tiaohou=True)
            else:
                game.throw(dice.roll())
        state = game.state
        stats["throws"].append(state.throws)
        stats["rounds"].append((state.turn - 1) // players + 1)
        stats["seat1"].append(sum(state.held[state.seat_of[first]]))
        stats["zy1"].append(state.held[state.seat_of[second]][0])
        for reason in GAME_ENDINGS:
            stats[reason].append(float(state.ended_by == reason))
    return stats


@pytest.mark.parametrize(
    ("spec", "players", "tiaohou"),
    [
        ({}, 4, 0.0),
        ({"prizes": SMALL, "chase": {"tiers": ["duitang", "sanhong"]}}, 5, 0.0),
        ({"preset": "modern", "prizes": SMALL, "standing": "best"}, 3, 0.0),
        ({"prizes": SMALL, "end": "one_more_round"}, 4, 0.08),
        ({"prizes": SMALL, "end": "immediate", "six_ones": "biandijin"}, 6, 0.05),
    ],
    ids=["traditional", "chase", "modern-best", "one-more-tiaohou", "immediate-biandijin"],
)
def test_distributions_match_seeded_engine_games(
    spec: dict[str, Any], players: int, tiaohou: float
) -> None:
    rules = load_rules(spec)
    games = 150 if "prizes" not in spec else 400
    engine = _engine_games(rules, players, games, seed=2024, tiaohou=tiaohou)
    sim = simulate(rules, players, 40_000, seed=11, tiaohou=tiaohou)
    per_seat = sim.seats
    expected = {
        "throws": (sim.throws.mean, sim.throws.std),
        "rounds": (sim.rounds.mean, sim.rounds.std),
        "seat1": (per_seat[0].cakes_mean, None),
        "zy1": (per_seat[1].zhuangyuan_rate, None),
    }
    for key, (mean, std) in expected.items():
        values = np.array(engine[key], np.float64)
        spread = std if std is not None else max(values.std(), 0.05)
        if key == "zy1":
            spread = math.sqrt(mean * (1 - mean))
        z = (values.mean() - mean) / (spread / math.sqrt(games))
        assert abs(z) < 4.5, (key, values.mean(), mean, z)
    for reason in GAME_ENDINGS:
        p = sim.ended_by[reason]
        observed = float(np.mean(engine[reason]))
        bound = 4.5 * math.sqrt(max(p * (1 - p), 1e-4) / games) + 1e-3
        assert abs(observed - p) < bound, (reason, observed, p)


def test_same_seed_same_result_whatever_the_workers() -> None:
    rules = load_rules("modern")
    one = simulate(rules, 6, 3000, seed=5, workers=1, chunk_size=700)
    two = simulate(rules, 6, 3000, seed=5, workers=2, chunk_size=700)
    assert two.workers == 2
    assert json.dumps(one.to_json()) == json.dumps(two.to_json())
    other = simulate(rules, 6, 3000, seed=6, workers=1, chunk_size=700)
    assert other.to_json()["throws"] != one.to_json()["throws"]


def test_chunks_do_not_change_the_numbers_of_a_seed_only_their_split() -> None:
    rules = load_rules("traditional")
    a = simulate(rules, 4, 2000, seed=1, chunk_size=500)
    b = simulate(rules, 4, 2000, seed=1, chunk_size=500)
    assert a.to_json() == b.to_json()
    assert a.games == 2000 and a.throws.total == 2000


def test_every_cake_ends_somewhere() -> None:
    # Traditional: nothing is shared, so every game gives out the whole set.
    rules = load_rules({"tiaohou": "void"})
    result = simulate(rules, 7, 5000, seed=3, tiaohou=0.1, chunk_size=1200)
    totals = result.tally.seat_tier.sum(axis=0)
    assert list(totals) == [5000 * n for n in rules.prizes]
    assert sum(seat.zhuangyuan_rate for seat in result.seats) == pytest.approx(1.0)


def test_shared_cakes_stay_unowned_under_zhuangyuan_end_share() -> None:
    rules = load_rules("modern")
    liubohei = _INDEX[(2, 2, 2, 2, 2, 2)]
    (trace,) = play_given(rules, 3, [[liubohei]])
    assert trace.ended_by == "liubohei" and trace.zhuangyuan == 0
    assert trace.holdings[0] == (1, 0, 0, 0, 0, 0)


def test_json_has_the_contract_keys() -> None:
    data = simulate(load_rules("traditional"), 5, 500, seed=1).to_json()
    assert {"games", "players", "throws", "rounds", "ended_by", "seats"} <= set(data)
    for key in ("throws", "rounds"):
        assert {"mean", "p50", "p90", "p99", "max"} <= set(data[key])
    assert set(data["ended_by"]) == set(GAME_ENDINGS)
    assert sum(data["ended_by"].values()) == pytest.approx(1.0)
    assert [s["seat"] for s in data["seats"]] == [1, 2, 3, 4, 5]
    for seat in data["seats"]:
        assert {"seat", "cakes_mean", "zhuangyuan_rate", "cakes_by_tier"} <= set(seat)
        assert list(seat["cakes_by_tier"]) == [str(t) for t in TIERS]
        assert seat["cakes_mean"] == pytest.approx(sum(seat["cakes_by_tier"].values()), abs=1e-5)


def test_reference_and_kernel_agree_in_distribution() -> None:
    rules = load_rules({"prizes": SMALL})
    reference = simulate_reference(rules, 4, 1500, seed=9)
    kernel = simulate(rules, 4, 30_000, seed=9)
    se = math.hypot(reference.throws.std / math.sqrt(1500), kernel.throws.std / math.sqrt(30_000))
    assert abs(reference.throws.mean - kernel.throws.mean) < 4.5 * se


def test_matches_the_research_figures() -> None:
    # research §3: N = 10, 六勃黑 a no-op: ≈ 230 throws, median 22 rounds, p90 33,
    # ≈ 9.5 % exhausted before any 状元, ≈ 0.5 % ended by 六勃红.
    result = simulate(load_rules({"liubohei": "ignore"}), 10, 40_000, seed=2)
    assert 220 < result.throws.mean < 240
    assert result.rounds.quantile(0.5) == 22
    assert 32 <= result.rounds.quantile(0.9) <= 34
    assert 0.085 < result.exhausted_first < 0.105
    assert 0.003 < result.ended_by["liubohong"] < 0.007
    # With the grab: ≈ 2.5 % end by 六勃黑.
    grab = simulate(load_rules("traditional"), 10, 40_000, seed=2)
    assert 0.02 < grab.ended_by["liubohei"] < 0.03


def test_the_starter_has_the_edge() -> None:
    result = simulate(load_rules("traditional"), 10, 40_000, seed=4)
    cakes = [seat.cakes_mean for seat in result.seats]
    assert cakes[0] > cakes[-1] + 0.3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 1}, "invalid number of players 1"),
        ({"players": 31}, "invalid number of players 31"),
        ({"tiaohou": 1.0}, "invalid 跳猴 probability 1.0"),
        ({"tiaohou": -0.1}, "invalid 跳猴 probability -0.1"),
        ({"games": 0}, "invalid number of games 0"),
    ],
)
def test_bad_arguments_are_input_errors(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"players": 4, "games": 10} | kwargs
    players, games = args.pop("players"), args.pop("games")
    with pytest.raises(InputError, match=message):
        simulate(load_rules("traditional"), players, games, **args)


def test_distribution_summary() -> None:
    dist = Distribution.of([1, 2, 2, 3, 10])
    assert dist.mean == pytest.approx(3.6)
    assert (dist.quantile(0.5), dist.quantile(0.9), dist.max, dist.min) == (2, 10, 10, 1)
    assert dist.quantile(0.2) == 1 and dist.quantile(0.21) == 2
    merged = dist.merged(Distribution.of([20]))
    assert merged.total == 6 and merged.max == 20


def test_doctests() -> None:
    result = doctest.testmod(outcomes_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# -- Hypothesis: any mix of the §8 switches, any throws, with or without a bell ---------------


@st.composite
def section8_rules(draw: st.DrawFn) -> dict[str, Any]:
    """A valid rule object mixing RULES.md §8's and §9's switches with some of §5's."""
    liubohei = draw(
        st.sampled_from(["grab_end", "zhuangyuan_end_share", "zhuangyuan", "ignore", "take_one"])
    )
    six_ones = draw(st.sampled_from(["liubohei", "biandijin"]))
    biandijin = draw(
        st.sampled_from(["take_remaining_end", "zhuangyuan", "zhuangyuan_take_remaining_end"])
    )
    order = ["liubohong", "chajinhua", "wuhong", "wuzi", "sihong"]
    if liubohei in ("zhuangyuan_end_share", "zhuangyuan"):
        order.insert(draw(st.integers(0, len(order))), "liubohei")
    if six_ones == "biandijin" and biandijin != "take_remaining_end":
        order.insert(draw(st.integers(0, len(order))), "biandijin")
    spec: dict[str, Any] = {
        "preset": draw(st.sampled_from(["traditional", "modern", "jinhua"])),
        "zhuangyuan_order": order,
        "liubohei": liubohei,
        "six_ones": six_ones,
        "biandijin": biandijin,
        "wuzi_bonus": draw(st.booleans()),
        "sijin_bonus": draw(st.booleans()),
        "liubohong": draw(
            st.sampled_from(
                [
                    "take_all_end",
                    "take_remaining_end",
                    "zhuangyuan",
                    "friendly_end",
                    "friendly_end_sanhong",
                ]
            )
        ),
        "zhuangyuan_cake": draw(st.sampled_from(["winner", "shared"])),
        "liubohong_spares_chajinhua": draw(st.booleans()),
        "chajinhua_duitang": draw(st.sampled_from(["immediate", "none", "at_end"])),
        "chajinhua_lugu": draw(st.sampled_from(["exempt", "keeps_duitang"])),
        "standing": draw(st.sampled_from(["latest", "best"])),
        "end": draw(st.sampled_from(["finish_round", "one_more_round", "immediate"])),
        "tiaohou": draw(st.sampled_from(["void", "void_skip_next"])),
        "prizes": {
            "duitang": draw(st.integers(0, 3)),
            "sanhong": draw(st.integers(0, 3)),
            "sijin": draw(st.integers(0, 3)),
            "erju": draw(st.integers(1, 4)),
            "yixiu": draw(st.integers(0, 5)),
        },
        "max_players": 13,
    }
    if draw(st.booleans()):
        tier_ids = ["duitang", "sanhong", "sijin", "erju", "yixiu"]
        tiers = draw(st.lists(st.sampled_from(tier_ids), min_size=1, max_size=5, unique=True))
        source = draw(st.sampled_from(["nearest_before", "latest"]))
        until = draw(st.sampled_from(["others_left", "end"]))
        spec["chase"] = {"tiers": tiers, "from": source, "until": until}
    if spec["liubohong"] == "zhuangyuan":
        spec["liubohong_duitang"] = draw(st.sampled_from(["none", "at_end"]))
    if draw(st.booleans()):  # 反向博钱 changes no play
        spec["money"] = "pay"
        spec["values"] = dict.fromkeys(["zhuangyuan", *spec["prizes"]], 1)
    return spec


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@hypothesis_given(
    spec=section8_rules(),
    players=st.integers(2, 13),
    seed=st.integers(0, 2**32 - 1),
    close_after=st.one_of(st.just(0), st.integers(1, 80)),
)
def test_any_section8_rules_kernel_reference_and_engine_agree(
    spec: dict[str, Any], players: int, seed: int, close_after: int
) -> None:
    rules = load_rules(spec)
    rng = random.Random(seed)
    throws = [biased_throws(rng, 3000, jump=0.06) for _ in range(3)]
    kernel = play_given(rules, players, throws, close_after=close_after)
    for i, given_throws in enumerate(throws):
        engine = play_engine(rules, players, given_throws, close_after)
        reference = play_reference(rules, players, throws=given_throws, close_after=close_after)
        assert outcome(reference, rules) == engine, i
        assert outcome(kernel[i], rules) == engine, i


def test_the_combos_reach_every_value_of_every_switch() -> None:
    """Generated from the switch list: each value of every enum switch (and chase.until) is
    played throw for throw by some combination above, so a new value cannot go untested."""
    from bobing.engine.switches import _ENUM_SWITCHES

    loaded = [load_rules(spec).to_json() for spec in COMBOS.values()]
    for switch, enum in _ENUM_SWITCHES.items():
        if switch in ("award", "start_count"):
            # ranked prizes have their own simulation (tests/analysis/test_ranked.py); the
            # simulator numbers seats from the starter, whoever the start count makes it
            continue
        for value in enum:
            assert any(rules[switch] == str(value) for rules in loaded), (switch, value)
    untils = {(rules["chase"] or {}).get("until", "others_left") for rules in loaded}
    assert untils >= {"others_left", "end"}
