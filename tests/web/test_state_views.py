"""The state's ``skipping`` and ``final_round`` against what the engine then actually does."""

from __future__ import annotations

import random

import pytest

from bobing.engine.game import Game, Phase
from bobing.engine.rules import rules_from_json
from bobing.tables.state import final_round, skipping

RULES = [
    {"preset": "traditional"},
    {"preset": "traditional", "end": "one_more_round", "direction": "counterclockwise"},
    {"preset": "modern", "end": "immediate"},
    {"preset": "jinhua", "tiaohou": "void_skip_next"},
]
PRIZES = {"zhuangyuan": 1, "duitang": 1, "sanhong": 1, "sijin": 1, "erju": 2, "yixiu": 3}


@pytest.mark.parametrize("spec", RULES)
def test_the_last_thrower_announced_is_the_last_to_throw(spec: dict[str, object]) -> None:
    rules = rules_from_json({**spec, "prizes": PRIZES})
    rng = random.Random(5)
    checked = 0
    for players in (2, 3, 5):
        for _ in range(40):
            game = Game(rules, [f"p{i}" for i in range(players)])
            game.start()
            predicted: dict[str, object] | None = None
            final_from = 0
            throws: list[str] = []
            tiaohou_in_final = False
            while not game.is_over and game.phase is not Phase.GRAB:
                flags = [n for n, f in zip(game.players, game.state.skip, strict=True) if f]
                assert skipping(game) == flags
                view = final_round(game)
                assert (view is None) == (game.phase is not Phase.FINAL)
                if view is not None:
                    assert view["until_turn"] == game.state.final_until
                    assert view["throws_left"] >= 1 and view["last_thrower"] in game.players
                    if predicted is None:
                        predicted, final_from = view, len(throws)
                    if not tiaohou_in_final:
                        assert view["last_thrower"] == predicted["last_thrower"]
                jump = rng.random() < 0.08
                throws.append(str(game.next_player))
                if jump and view is not None:
                    tiaohou_in_final = True
                faces = None if jump else tuple(rng.randint(1, 6) for _ in range(6))
                game.throw(faces, tiaohou=jump)
            assert final_round(game) is None and skipping(game) == []
            exhausted = game.state.ended_by == "exhausted"
            if predicted is not None and not tiaohou_in_final and exhausted:
                # Nobody jumped the monkey during the last round: the prophecy held.
                assert throws[-1] == predicted["last_thrower"]
                assert len(throws) - final_from == predicted["throws_left"]
                checked += 1
    assert checked > 5
