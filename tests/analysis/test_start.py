"""The two-dice start: listed players' seats, from the engine's own count."""

from __future__ import annotations

import doctest
import math
import random

import numpy as np
import pytest

import bobing.analysis.start as start_module
from bobing.analysis.ranked import simulate_ranked
from bobing.analysis.simulate import simulate
from bobing.analysis.start import listed_seat_weights
from bobing.engine.dice import SeededDice
from bobing.engine.errors import InputError
from bobing.engine.game import Game, Phase
from bobing.engine.rules import load_rules


@pytest.mark.parametrize("spec", ["traditional", "modern", {"start_count": "from_next"}])
@pytest.mark.parametrize("players", [2, 3, 7, 10, 13])
def test_weights_are_a_doubly_stochastic_mixture(spec: object, players: int) -> None:
    weights = listed_seat_weights(load_rules(spec), players)
    assert weights.shape == (players, players)
    assert np.allclose(weights.sum(axis=0), 1) and np.allclose(weights.sum(axis=1), 1)


def test_seven_is_the_likeliest_count() -> None:
    # Ten players, clockwise, the thrower counted as #1: a+b = 7 (6 ways in 36) makes the 7th
    # listed player the starter; a+b = 2 (1 way) the 2nd, a+b = 11 (2 ways) the 1st.
    weights = listed_seat_weights(load_rules("traditional"), 10)
    starts = weights[:, 0] * 36
    assert starts.round(9).tolist() == [2, 2, 2, 3, 4, 5, 6, 5, 4, 3]
    # Counter-clockwise (modern), the count runs the other way round the list.
    modern = listed_seat_weights(load_rules("modern"), 10)[:, 0] * 36
    assert modern.round(9).tolist() == [2, 3, 4, 5, 6, 5, 4, 3, 2, 2]


@pytest.mark.slow  # a few seconds: left out of dev.py test --quick
def test_listed_players_by_the_dice_against_engine_games() -> None:
    rules = load_rules({"prizes": {"duitang": 1, "sanhong": 2, "sijin": 2, "erju": 3, "yixiu": 4}})
    players, games = 4, 600
    names = [f"p{i}" for i in range(players)]
    dice, start_dice, grab = SeededDice(5), SeededDice(6), random.Random(7)
    cakes = np.zeros((games, players))
    for g in range(games):
        game = Game(rules, names)
        game.roll_start(start_dice)
        while not game.is_over:
            if game.phase is Phase.GRAB:
                game.grab(rng=grab)
            else:
                game.throw(dice.roll())
        cakes[g] = [sum(game.state.held[game.state.seat_of[n]]) for n in names]
    sim = simulate(rules, players, 40_000, seed=3, start="dice")
    expected = [seat.cakes_mean for seat in sim.seats]
    assert sum(expected) == pytest.approx(sum(rules.prizes))
    for j in range(players):
        se = cakes[:, j].std() / math.sqrt(games)
        assert abs(cakes[:, j].mean() - expected[j]) < 4.5 * se + 0.02, j
    # The mixture is exactly the weights applied to the seats from the starter.
    first = simulate(rules, players, 40_000, seed=3)
    per = np.array([[s.cakes_by_tier[t] for t in s.cakes_by_tier] for s in first.seats])
    mixed = listed_seat_weights(rules, players) @ per
    assert np.allclose(mixed.sum(axis=1), expected)
    assert sim.to_json()["start"] == "dice" and first.to_json()["start"] == "first"


def test_ranked_sessions_by_listed_player_and_a_bad_start() -> None:
    rules = load_rules(
        {"award": "ranked", "rounds": 2, "ranked_prizes": [{"name": "a"}, {"name": "b"}]}
    )
    dice = simulate_ranked(rules, 5, 3000, seed=1, start="dice")
    first = simulate_ranked(rules, 5, 3000, seed=1)
    weights = listed_seat_weights(rules, 5)
    assert np.allclose(dice.prize_chances(), weights @ first.prize_chances())
    assert np.allclose(dice.first, weights @ first.first)
    with pytest.raises(InputError, match="invalid start 'nope'"):
        simulate(rules, 5, 10, start="nope")


def test_doctests() -> None:
    result = doctest.testmod(start_module)
    assert result.attempted > 0 and result.failed == 0
