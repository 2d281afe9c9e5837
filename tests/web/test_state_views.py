"""The state's ``skipping`` and ``final_round`` against what the engine then actually does."""

from __future__ import annotations

import random

import pytest

from bobing.engine.game import Game, Phase
from bobing.engine.rules import rules_from_json
from bobing.tables.state import close_at_once, final_round, skipping

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


@pytest.mark.parametrize("spec", RULES)
def test_close_at_once_says_what_a_close_then_does(spec: dict[str, object]) -> None:
    """The state's ``close_at_once`` (the host's close dialog) against a close made there: the
    game is over at once exactly when it said so, whatever turn of the round it is."""
    rules = rules_from_json({**spec, "prizes": PRIZES})
    rng = random.Random(11)
    seen = set()
    for players in (2, 3, 4):
        for _ in range(15):
            game = Game(rules, [f"p{i}" for i in range(players)])
            assert close_at_once(game) is None  # not started: time cannot be called
            game.start()
            while not game.is_over and game.phase is not Phase.GRAB:
                said = close_at_once(game)
                assert said is not None
                trial = Game.replay(rules, game.players, game.events)
                trial.close()
                assert trial.is_over is said, (spec, game.state.turn, game.throw_count)
                seen.add(said)
                jump = rng.random() < 0.1
                faces = None if jump else tuple(rng.randint(1, 6) for _ in range(6))
                game.throw(faces, tiaohou=jump)
            assert close_at_once(game) is None
    assert seen == {True, False} if spec.get("end") != "immediate" else seen == {True}


def test_only_the_zhuangyuan_left_once_the_ordinary_cakes_are_out() -> None:
    """A family's game after the last ordinary cake: no standing yet, the game plays on with
    the state saying only the 状元 is left; a 状元 hand turns it into the last round."""
    prizes = {"zhuangyuan": 1, "duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}
    rules = rules_from_json({"preset": "traditional", "prizes": prizes})
    game = Game(rules, ["甲", "乙", "丙"])
    game.start()
    assert not game.state.only_zhuangyuan_left
    game.throw((4, 1, 2, 2, 5, 6))  # 甲: 一秀, the last ordinary cake
    assert game.state.only_zhuangyuan_left and game.phase is Phase.MAIN
    for _ in range(6):  # nothing won, the game goes on
        game.throw((1, 2, 3, 5, 6, 6))
        assert game.state.only_zhuangyuan_left and not game.is_over
    game.throw((4, 4, 4, 4, 1, 2))  # 乙 (throw 8): 四红, the last round: 丙 throws last
    assert game.state.only_zhuangyuan_left and game.phase is Phase.FINAL
    game.throw((1, 2, 3, 5, 6, 6))
    assert game.is_over and not game.state.only_zhuangyuan_left


def test_a_ranked_table_never_says_only_the_zhuangyuan_is_left() -> None:
    rules = rules_from_json(
        {"preset": "traditional", "award": "ranked", "ranked_prizes": [{"name": "一等奖"}]}
    )
    game = Game(rules, ["甲", "乙"])
    game.start()
    for _ in range(4):
        game.throw((4, 1, 2, 3, 5, 6))
        assert not game.state.only_zhuangyuan_left
