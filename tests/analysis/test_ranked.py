"""Ranked sessions (RULES.md §8.2): throw for throw against the engine, and in distribution."""

from __future__ import annotations

import doctest
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import given as hypothesis_given
from hypothesis import strategies as st

import bobing.analysis.ranked as ranked_module
from bobing.analysis.bell import Bell
from bobing.analysis.outcomes import JUMP, OUTCOMES
from bobing.analysis.ranked import (
    RANKED_ENDINGS,
    RankedTrace,
    play_given_ranked,
    rank_table,
    simulate_ranked,
)
from bobing.engine.errors import InputError
from bobing.engine.game import Game, Phase
from bobing.engine.hands import ORDERED_THROWS
from bobing.engine.ranked import rank_key
from bobing.engine.rules import Direction, RuleSet, load_rules

PRIZES_2013 = [
    {"name": "一等奖", "count": 1, "value": 498},
    {"name": "二等奖", "count": 1, "value": 199},
    {"name": "三等奖", "count": 1, "value": 89},
    {"name": "四等奖", "count": 2, "value": 79},
    {"name": "五等奖", "count": 2, "value": 59},
    {"name": "六等奖", "count": 2, "value": 49},
    {"name": "七等奖", "count": 3, "value": 27},
    {"name": "安慰奖", "count": 1, "value": 29},
]
RANKED = {"award": "ranked", "ranked_prizes": PRIZES_2013, "max_players": 13}

SESSIONS: dict[str, dict[str, Any]] = {
    "traditional-3-rounds": {**RANKED, "rounds": 3},
    "modern-2-rounds": {**RANKED, "preset": "modern", "rounds": 2},
    "few-prizes": {"award": "ranked", "ranked_prizes": [{"name": "状元王", "count": 1}],
                   "max_players": 13,
                   "rounds": 4},
    "biandijin-listed": {
        **RANKED,
        "rounds": 2,
        "six_ones": "biandijin",
        "biandijin": "zhuangyuan",
        "zhuangyuan_order": ["liubohong", "biandijin", "chajinhua", "wuhong", "wuzi", "sihong"],
    },
    "liubohei-listed-immediate": {
        **RANKED,
        "preset": "jinhua",
        "rounds": 3,
        "end": "immediate",
        "wuzi_compare": "face_then_kicker",
    },
}  # fmt: skip

_INDEX = {throw: i for i, throw in enumerate(ORDERED_THROWS)}
_SPECIAL = [
    _INDEX[tuple(int(c) for c in text)]
    for text in ("444444", "111111", "555555", "222222", "444411", "444441", "444446", "222224",
                 "333336", "444412", "444466", "444435", "123456", "444123", "222241")
]  # fmt: skip


def biased(rng: random.Random, count: int, jump: float = 0.08) -> list[int]:
    """Throw indices with many 跳猴, equal throws and rare hands, so ties and skips happen."""
    out = []
    for _ in range(count):
        r = rng.random()
        if r < jump:
            out.append(JUMP)
        elif r < jump + 0.15:
            out.append(rng.choice(_SPECIAL))
        else:
            out.append(rng.randrange(OUTCOMES))
    return out


def play_engine(
    rules: RuleSet, players: int, throws: Sequence[int], close_after: int = 0
) -> RankedTrace:
    names = [f"p{i}" for i in range(players)]
    game = Game(rules, names)
    game.start()
    step = -1 if rules.direction is Direction.COUNTERCLOCKWISE else 1
    seat_of = {names[(k * step) % players]: k for k in range(players)}  # play order from p0
    given = iter(throws)
    while game.phase is not Phase.OVER:
        u = next(given)
        if u == JUMP:
            game.throw(None, tiaohou=True)
        else:
            game.throw(ORDERED_THROWS[u])
        if game.state.throws == close_after and game.can_close():
            game.close()
    state = game.state
    ranking = tuple((seat_of[e.player], e.hand, e.throw, e.prize) for e in game.ranking())
    assert state.ended_by is not None
    return RankedTrace(state.throws, state.turn, state.ended_by, ranking)


@pytest.mark.parametrize("session", list(SESSIONS))
def test_sessions_agree_with_the_engine_throw_for_throw(session: str) -> None:
    rules = load_rules(SESSIONS[session])
    rng = random.Random(session)
    for players in (2, 5, 13):
        for close_after in (0, 1, 7, 20):
            throws = [biased(rng, 200) for _ in range(12)]
            sim = play_given_ranked(rules, players, throws, close_after=close_after)
            for i, given in enumerate(throws):
                engine = play_engine(rules, players, given, close_after)
                assert sim[i] == engine, (session, players, close_after, i)


def test_a_session_without_rounds_ends_only_by_the_bell() -> None:
    rules = load_rules({**RANKED})
    rng = random.Random(5)
    throws = [biased(rng, 400) for _ in range(20)]
    for close_after in (1, 13, 50):
        for i, trace in enumerate(play_given_ranked(rules, 6, throws, close_after=close_after)):
            assert trace == play_engine(rules, 6, throws[i], close_after)
            assert trace.ended_by == "closed"
    with pytest.raises(InputError, match="only ends when time is called"):
        simulate_ranked(rules, 6, 100, seed=1)
    with pytest.raises(InputError, match="too long to simulate"):
        simulate_ranked(rules, 6, 10, seed=1, bell=Bell(1440, 0.01))
    with pytest.raises(InputError, match="play for cakes"):
        simulate_ranked(load_rules("traditional"), 6, 100, seed=1)


def test_the_rank_table_orders_throws_as_the_engine_does() -> None:
    rules = load_rules({**RANKED, "rounds": 1})
    table, _ = rank_table(rules)
    rng = random.Random(3)
    for _ in range(3000):
        a, b = rng.randrange(OUTCOMES), rng.randrange(OUTCOMES)
        ka = rank_key(rules, rules.classify(ORDERED_THROWS[a]))
        kb = rank_key(rules, rules.classify(ORDERED_THROWS[b]))
        assert (table[a] > table[b]) == (ka > kb) and (table[a] == table[b]) == (ka == kb)
    assert table[JUMP] == 0 and table[:OUTCOMES].min() == 1


def test_the_2013_party() -> None:
    # 13 people, 13 prizes, 3 rounds: everyone gets exactly one prize.
    rules = load_rules({**RANKED, "rounds": 3})
    result = simulate_ranked(rules, 13, 20_000, seed=2013)
    chances = result.prize_chances()
    assert chances.shape == (13, 8)
    assert np.allclose(chances.sum(axis=1), 1.0)
    assert np.allclose(chances.sum(axis=0), [p["count"] for p in PRIZES_2013])
    # Seats are nearly fair: each throws three times; only the ties (the earlier throw wins)
    # favour the starter a little.
    first = result.tally.first / result.games
    assert first.sum() == pytest.approx(1.0)
    assert abs(first[0] - 1 / 13) < 0.015 and abs(first[-1] - 1 / 13) < 0.015
    value = result.expected_value()
    assert value is not None and sum(value) == pytest.approx(1270, abs=1e-6)
    # Thirty-nine throws: the best is usually a 状元 hand (四红 or better, ≈ 1 in 87 each)
    # or a 对堂 … the winning hand's distribution sums to one.
    winning = result.hands_at(0)
    assert sum(winning.values()) == pytest.approx(1.0)
    assert max(winning, key=lambda h: winning[h]) in {"sihong", "duitang", "sanhong"}
    data = result.to_json()
    assert data["award"] == "ranked" and data["ended_by"] == {"rounds": 1.0, "closed": 0.0}
    assert data["throws"]["mean"] == 39 and len(data["seats"]) == 13
    assert [len(d) > 0 for d in data["hands_by_prize"]] == [True] * 8


def test_fewer_players_than_prizes_and_the_bell() -> None:
    rules = load_rules({**RANKED, "rounds": 5, "tiaohou": "void"})
    result = simulate_ranked(rules, 4, 5000, seed=1, tiaohou=0.1, bell=Bell(2, 10))
    chances = result.prize_chances()
    # Four players take the four best prizes; the rest stay unawarded.
    assert np.allclose(chances[:, :4].sum(axis=0), [1, 1, 1, 1])
    assert np.allclose(chances[:, 4:], 0)
    # 12 throws fit in 2 minutes at 10 s: the bell comes in round 3, before round 5 is over.
    assert result.ended_by["closed"] == 1.0
    assert result.throws.max <= 12 + 3


def test_same_seed_same_result() -> None:
    rules = load_rules({**RANKED, "rounds": 2})
    a = simulate_ranked(rules, 7, 3000, seed=9, chunk_size=1000)
    b = simulate_ranked(rules, 7, 3000, seed=9, chunk_size=1000)
    c = simulate_ranked(rules, 7, 3000, seed=10, chunk_size=1000)
    assert a.to_json() == b.to_json() and a.to_json() != c.to_json()
    assert set(a.ended_by) == set(RANKED_ENDINGS)


def test_doctests() -> None:
    result = doctest.testmod(ranked_module)
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@hypothesis_given(
    preset=st.sampled_from(["traditional", "modern", "jinhua"]),
    extra=st.fixed_dictionaries(
        {
            "end": st.sampled_from(["finish_round", "one_more_round", "immediate"]),
            "tiaohou": st.sampled_from(["void", "void_skip_next"]),
            "wuzi_compare": st.sampled_from(["kicker", "face_then_kicker"]),
        }
    ),
    counts=st.lists(st.integers(1, 3), min_size=1, max_size=6),
    rounds=st.one_of(st.none(), st.integers(1, 4)),
    players=st.integers(2, 13),
    close_after=st.integers(0, 40),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_ranked_session_agrees_with_the_engine(
    preset: str,
    extra: dict[str, str],
    counts: list[int],
    rounds: int | None,
    players: int,
    close_after: int,
    seed: int,
) -> None:
    if rounds is None and close_after == 0:
        close_after = 1 + seed % 40  # without rounds only the bell ends a session
    prizes = [{"name": f"第{i + 1}名", "count": c, "value": 10 * (6 - i)} for i, c in
              enumerate(counts)]  # fmt: skip
    spec = {"preset": preset, **extra, "award": "ranked", "ranked_prizes": prizes,
            "rounds": rounds, "max_players": 13}  # fmt: skip
    rules = load_rules(spec)
    rng = random.Random(seed)
    throws = [biased(rng, 260) for _ in range(3)]
    sim = play_given_ranked(rules, players, throws, close_after=close_after)
    for i, given_throws in enumerate(throws):
        assert sim[i] == play_engine(rules, players, given_throws, close_after), i
