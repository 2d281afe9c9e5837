"""The game engine (RULES.md §4): commands as verify/can/do triples, turn order, effects."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from bobing.engine.dice import GivenDice, SeededDice, SystemDice
from bobing.engine.errors import DiceError, IllegalAction, InputError, RecordError
from bobing.engine.events import (
    Awarded,
    FinalStarted,
    GameOver,
    Skipped,
    StandingSet,
    Started,
    Thrown,
    ZhuangyuanWon,
)
from bobing.engine.game import Game, GameState, Phase, apply, fold, new_state
from bobing.engine.hands import TIERS
from bobing.engine.presets import JINHUA, MODERN, TRADITIONAL
from bobing.engine.rules import RuleSet, load_rules

NAMES = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑"]


def rules(**switches: Any) -> RuleSet:
    return load_rules({"preset": "traditional", **switches})


def started(ruleset: RuleSet = TRADITIONAL, n: int = 3, **start: Any) -> Game:
    game = Game(ruleset, NAMES[:n])
    game.start(**start)
    return game


def play(game: Game, *throws: str | None) -> None:
    for dice in throws:
        game.throw(dice, tiaohou=dice is None)


def conserved(state: GameState) -> bool:
    """Every cake is in the pool or in exactly one player's hands."""
    for index in range(len(TIERS)):
        held = sum(row[index] for row in state.held)
        if state.pool[index] < 0 or any(row[index] < 0 for row in state.held):
            return False
        if state.pool[index] + held != state.rules.prizes[index]:
            return False
    return True


# -- seats, start, turns ----------------------------------------------------------------------


@pytest.mark.parametrize("size", range(2, 13))
@pytest.mark.parametrize("ruleset", [TRADITIONAL, MODERN, rules(start_count="from_next")])
def test_two_dice_start_counts_in_play_direction(size: int, ruleset: RuleSet) -> None:
    step = -1 if str(ruleset.direction) == "counterclockwise" else 1
    first = 1 if str(ruleset.start_count) == "from_thrower" else 0
    for thrower in range(size):
        for a in range(1, 7):
            for b in range(1, 7):
                game = Game(ruleset, NAMES[:size])
                (event,) = game.start(thrower=NAMES[thrower], dice=(a, b))
                expected = (thrower + step * (a + b - first)) % size
                assert event == Started(NAMES[expected], NAMES[thrower], (a, b))
                assert game.next_player == NAMES[expected]
                assert game.state.ender == (expected - step) % size


def test_research_s6_ten_players_three_plus_four() -> None:
    game = Game(TRADITIONAL, NAMES[:10])
    game.start(thrower="甲", dice=(3, 4))
    assert (game.state.starter, game.state.ender) == (6, 5)
    game = Game(rules(start_count="from_next"), NAMES[:10])
    game.start(thrower="甲", dice=[3, 4])
    assert game.state.starter == 7


def test_turns_go_round_in_play_direction() -> None:
    order = []
    game = started(TRADITIONAL, 4, starter="丙")
    for _ in range(8):
        order.append(game.next_player)
        game.throw("235566")
    assert order == ["丙", "丁", "甲", "乙"] * 2
    assert game.state.round == 3
    order = []
    game = started(MODERN, 4, starter="丙")
    for _ in range(4):
        order.append(game.next_player)
        game.throw("235566")
    assert order == ["丙", "乙", "甲", "丁"]


def test_default_start_is_the_first_listed_player() -> None:
    game = started(n=2)
    assert game.events == [Started("甲")]
    assert game.phase is Phase.MAIN


@pytest.mark.parametrize(
    ("kwargs", "error", "code"),
    [
        ({"starter": "戊"}, InputError, "unknown_player"),
        ({"thrower": "戊", "dice": (1, 2)}, InputError, "unknown_player"),
        ({"starter": "甲", "thrower": "乙", "dice": (1, 2)}, InputError, "start_both_ways"),
        ({"thrower": "甲"}, InputError, "start_incomplete"),
        ({"dice": (1, 2)}, InputError, "start_incomplete"),
        ({"thrower": "甲", "dice": (0, 2)}, InputError, "bad_start_dice"),
        ({"thrower": "甲", "dice": (1, 2, 3)}, InputError, "bad_start_dice"),
        ({"thrower": "甲", "dice": (True, 2)}, InputError, "bad_start_dice"),
        ({"starter": 1}, InputError, "bad_name"),
    ],
)
def test_verify_start_raises_specific_errors(
    kwargs: dict[str, Any], error: type[Exception], code: str
) -> None:
    game = Game(TRADITIONAL, NAMES[:3])
    with pytest.raises(error) as info:
        game.verify_start(**kwargs)
    assert getattr(info.value, "code", None) == code
    assert not game.can_start(**kwargs)
    with pytest.raises(error):
        game.start(**kwargs)
    assert game.events == [] and game.phase is Phase.NOT_STARTED


def test_a_game_starts_once() -> None:
    game = started()
    assert not game.can_start()
    with pytest.raises(IllegalAction, match="already started"):
        game.start()


@pytest.mark.parametrize(
    ("players", "needle"),
    [
        (["甲"], "2 to 12"),
        (NAMES + ["寅"], "13 players, but max_players is 12"),
        ([f"p{i}" for i in range(31)], "2 to 12 players, not 31"),
        (["甲", "甲"], "duplicate player name '甲'"),
        (["甲", " 乙"], "' 乙'"),
        (["甲", ""], "''"),
        (["甲", "x" * 25], "24"),
        ("甲乙", "list"),
    ],
)
def test_seat_lists_are_validated(players: Any, needle: str) -> None:
    with pytest.raises(InputError) as info:
        Game(TRADITIONAL, players)
    assert needle in str(info.value)


def test_max_players_seats_up_to_thirty() -> None:
    """The 2013 party sat 13 (seed 000); 30 is the hard ceiling."""
    thirteen = [f"p{i}" for i in range(13)]
    assert Game(replace(TRADITIONAL, max_players=13), thirteen).players == tuple(thirteen)
    thirty = [f"p{i}" for i in range(30)]
    assert len(Game(replace(TRADITIONAL, max_players=30), thirty).players) == 30
    with pytest.raises(InputError, match="not 31"):
        Game(replace(TRADITIONAL, max_players=30), [*thirty, "x"])
    with pytest.raises(InputError, match="14 players, but max_players is 13"):
        Game(replace(TRADITIONAL, max_players=13), [*thirteen, "x"])


# -- throws -----------------------------------------------------------------------------------


def test_verify_can_and_throw() -> None:
    game = Game(TRADITIONAL, NAMES[:3])
    with pytest.raises(IllegalAction) as info:
        game.verify_throw(dice="444412")
    assert info.value.code == "not_started"
    game.start()
    assert game.can_throw("甲", "444412")
    assert not game.can_throw("乙", "444412")
    with pytest.raises(IllegalAction) as info:
        game.verify_throw("乙", "444412")
    assert info.value.code == "not_your_turn"
    assert info.value.params == {"current": "甲", "player": "乙"}
    with pytest.raises(InputError) as info2:
        game.verify_throw("戊", "444412")
    assert info2.value.code == "unknown_player"
    with pytest.raises(DiceError, match="'44441'"):
        game.verify_throw(dice="44441")
    with pytest.raises(DiceError, match="7 is not a face"):
        game.verify_throw(dice=(4, 4, 4, 4, 1, 7))
    with pytest.raises(InputError, match="跳猴 has no dice"):
        game.verify_throw(dice="444412", tiaohou=True)
    with pytest.raises(InputError, match="six dice"):
        game.verify_throw()
    assert game.events == [Started("甲")]  # verifying changes nothing
    events = game.throw("4 4 4 4 1 2", player="甲")
    assert events == [Thrown(1, "甲", "444412", "sihong"), StandingSet(1, "甲", "sihong", "444412")]
    assert game.events[-2:] == events
    assert game.throw_count == 1 and game.next_player == "乙"


def test_faces_keep_the_order_thrown() -> None:
    game = started()
    (thrown, _) = game.throw([2, 4, 4, 6, 4, 4])
    assert isinstance(thrown, Thrown) and thrown.dice == "244644"


def test_injected_dice_sources() -> None:
    one, two = started(), started()
    for _ in range(20):
        one.roll(SeededDice(5))
        two.roll(SeededDice(5))
    assert one.events == two.events
    seeded = Game(TRADITIONAL, NAMES[:4])
    seeded.roll_start(SeededDice(9))
    again = Game(TRADITIONAL, NAMES[:4])
    again.roll_start(SeededDice(9))
    assert seeded.events == again.events
    assert seeded.events[0].thrower == "甲"  # type: ignore[attr-defined]
    given = started()
    given.roll(GivenDice([(4, 4, 4, 4, 1, 2)]))
    assert given.events[-1] == StandingSet(1, "甲", "sihong", "444412")
    with pytest.raises(DiceError, match="no more given dice"):
        given.roll(GivenDice([]))
    system = started()
    for _ in range(30):
        system.roll(SystemDice())
    assert system.throw_count == 30


def test_rolling_out_of_turn_draws_no_dice() -> None:
    source = GivenDice([(4, 4, 4, 4, 1, 2)])
    game = started()
    with pytest.raises(IllegalAction):
        game.roll(source, player="乙")
    game.roll(source, player="甲")  # the faces were not consumed by the refused roll
    assert game.throw_count == 1


def test_ordinary_tiers_are_taken_at_once_without_downgrade() -> None:
    game = started(rules(prizes={"sanhong": 1}))
    play(game, "444123", "444561", "123455")
    assert game.state.holdings("甲") == {"sanhong": 1}
    assert game.state.holdings("乙") == {}  # no 三红 left, and no 四进/二举 instead
    assert game.state.holdings("丙") == {"yixiu": 1}


def test_tiaohou_void_skip_next() -> None:
    game = started()
    events = game.throw(None, tiaohou=True)
    assert [e.type for e in events] == ["thrown", "skip_next"]
    play(game, "235566", "235566")
    assert isinstance(game.events[-1], Skipped)
    assert game.next_player == "乙" and game.state.turn == 4
    plain = started(rules(tiaohou="void"))
    plain.throw(None, tiaohou=True)
    play(plain, "235566", "235566")
    assert plain.next_player == "甲"


def test_two_players_both_skipping_never_loop() -> None:
    game = started(n=2)
    play(game, None, None)
    assert game.next_player == "甲"  # both lost one turn: round 2 is skipped entirely
    assert [e.type for e in game.events[-2:]] == ["skipped", "skipped"]


def test_liubohong_take_all_end_takes_even_chajinhua_cakes() -> None:
    game = started()
    play(game, "444411", "444444")
    assert game.is_over and game.state.ended_by == "liubohong"
    assert game.state.holdings("乙") == TRADITIONAL.prize_map
    assert game.state.holdings("甲") == {}
    assert conserved(game.state)


def test_jinhua_chajinhua_outranks_a_liubohong_that_takes_the_remaining_cakes() -> None:
    game = started(JINHUA)
    play(game, "444411", "444444")  # counterclockwise: 甲 then 丙
    assert game.is_over
    assert game.result()["zhuangyuan"]["player"] == "甲"
    assert game.state.holdings("丙")["yixiu"] == 32


def test_grab_given_and_random() -> None:
    game = started()
    play(game, "555555")
    assert game.phase is Phase.GRAB and game.next_player is None
    with pytest.raises(IllegalAction, match="grab"):
        game.throw("444412")
    left = dict(zip((str(t) for t in TIERS), game.state.pool, strict=True))
    bad = {"甲": {**left, "yixiu": 31}}
    assert not game.can_grab(bad)
    with pytest.raises(RecordError, match="32 yixiu left, 31 allocated"):
        game.grab(bad)
    assert game.can_grab({"乙": left})
    game.grab({"乙": left})
    assert game.is_over and game.result()["zhuangyuan"] == {
        "player": "乙",
        "hand": None,
        "dice": None,
        "throw": None,
    }
    with pytest.raises(IllegalAction, match="no lights-off grab"):
        game.grab(rng=random.Random(1))
    assert not game.can_grab({"乙": left})


def test_random_grab_is_reproducible_and_roughly_uniform() -> None:
    shares: Counter[str] = Counter()
    for seed in range(200):
        game = started()
        play(game, "555555")
        game.grab(rng=random.Random(seed))
        assert conserved(game.state) and sum(game.state.pool) == 0
        for name in game.players:
            shares[name] += sum(game.state.holdings(name).values())
        again = started()
        play(again, "555555")
        again.grab(rng=random.Random(seed))
        assert again.events == game.events
    total = sum(shares.values())
    assert total == 200 * 63
    for name in NAMES[:3]:
        assert abs(shares[name] / total - 1 / 3) < 0.02, shares


def test_liubohei_under_modern_ends_the_game_and_shares_the_rest() -> None:
    game = started(MODERN)
    play(game, "123455", "666666")
    assert game.is_over and game.state.ended_by == "liubohei"
    assert game.state.pool[1:] == (2, 4, 8, 16, 31)
    assert game.result()["zhuangyuan"]["player"] == "丙"


def test_final_phase_and_the_end() -> None:
    game = started(rules(prizes={"duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}), 4)
    play(game, "444412", "123455")
    assert game.phase is Phase.FINAL
    assert isinstance(game.events[-1], FinalStarted) and game.events[-1].until_turn == 3
    play(game, "235566")
    assert game.phase is Phase.FINAL and game.next_player == "丁"
    play(game, "444466")
    assert game.is_over and game.next_player is None
    assert isinstance(game.events[-2], GameOver)
    assert game.events[-1] == ZhuangyuanWon("丁", "sihong", "444466", 4)
    with pytest.raises(IllegalAction) as info:
        game.throw("444412")
    assert info.value.code == "game_over"
    assert game.result()["round"] == 1


def test_final_phase_entered_on_the_enders_throw_ends_at_once() -> None:
    game = started(rules(prizes={"duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}))
    play(game, "444412", "235566", "123455")
    assert game.is_over


def test_skipped_last_turn_of_the_final_round_still_ends_the_game() -> None:
    game = started(rules(prizes={"duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}))
    play(game, "444412", "235566", None, "123455")  # 丙 跳猴; 甲 takes the last cake
    assert game.phase is Phase.FINAL
    play(game, "235566")  # 乙; 丙's turn is lost, and it was the last of the round
    assert game.is_over
    assert isinstance(game.events[-3], Skipped)


def test_best_standing_keeps_the_earlier_equal_throw() -> None:
    game = started(rules(standing="best"))
    play(game, "444435", "235566", "235566", "444453")
    assert game.state.standings[0] is not None and game.state.standings[0].throw == 1
    latest = started()
    play(latest, "444435", "235566", "235566", "444453")
    assert latest.state.standings[0] is not None and latest.state.standings[0].throw == 4


def test_chase_counterclockwise_goes_backwards_against_play() -> None:
    ruleset = load_rules({"preset": "modern", "chase": {"tiers": ["duitang"]}})
    game = started(ruleset, 5)  # 甲 戊 丁 丙 乙
    play(game, "123456", "235566", "235566", "654321", "235566", "235566", "123456")
    # 戊 throws 对堂 with none left; backwards against play from 戊: 甲 holds one.
    assert game.events[-1] == Awarded(7, "戊", "duitang", 1, "甲", "chase")


def test_chase_takes_the_newest_cake_and_the_taker_becomes_its_newest_holder() -> None:
    ruleset = rules(chase={"tiers": ["duitang"], "from": "latest"}, prizes={"duitang": 2})
    game = started(ruleset, 3)
    play(game, "123456", "123456", "123456")  # 丙 takes from 乙 (the latest taker)
    assert game.events[-1] == Awarded(3, "丙", "duitang", 1, "乙", "chase")
    play(game, "123456")  # 甲 takes from 丙, the newest holder now
    assert game.events[-1] == Awarded(4, "甲", "duitang", 1, "丙", "chase")
    assert game.state.holdings("甲") == {"duitang": 2}


def test_apply_is_pure_and_replay_reproduces_the_state() -> None:
    game = started(TRADITIONAL, 4)
    dice = SeededDice(3)
    while not game.is_over:
        if game.phase is Phase.GRAB:
            game.grab(rng=random.Random(3))
        else:
            game.roll(dice)
    state = new_state(TRADITIONAL, NAMES[:4])
    before = state
    for event in game.events:
        after = apply(state, event)
        assert conserved(after)
        state = after
    assert before == new_state(TRADITIONAL, NAMES[:4])
    assert state == game.state
    assert fold(new_state(TRADITIONAL, NAMES[:4]), game.events) == game.state
    assert Game.replay(TRADITIONAL, NAMES[:4], game.events).result() == game.result()


def test_apply_rejects_a_foreign_event() -> None:
    with pytest.raises(InputError, match="cannot apply"):
        apply(new_state(TRADITIONAL, NAMES[:2]), object())  # type: ignore[arg-type]


def test_result_object() -> None:
    game = started()
    result = game.result()
    assert result["status"] == "in_progress" and result["ended_by"] is None
    assert result["next"] == "甲" and result["zhuangyuan"] is None
    assert result["holdings"] == {"甲": {}, "乙": {}, "丙": {}}
    assert result["pool"] == {str(t): n for t, n in TRADITIONAL.prize_map.items()}
    play(game, "444412", "123456")
    result = game.result()
    assert result["zhuangyuan"] == {"player": "甲", "hand": "sihong", "dice": "444412", "throw": 1}
    assert result["holdings"]["乙"] == {"duitang": 1}
    assert "zhuangyuan" not in result["holdings"]["甲"]  # only once awarded


def test_a_twelve_player_game_ends() -> None:
    game = started(TRADITIONAL, 12)
    dice = SeededDice(12)
    for _ in range(20_000):
        if game.is_over:
            break
        if game.phase is Phase.GRAB:
            game.grab(rng=random.Random(0))
        else:
            game.roll(dice)
    assert game.is_over and conserved(game.state)


def test_a_copy_goes_on_without_changing_the_game() -> None:
    game = started()
    game.throw("444412")
    state, events = game.state, list(game.events)
    draft = game.copy()
    draft.throw("123456")
    assert game.state is state and game.events == events
    assert draft.throw_count == 2 and game.throw_count == 1
    assert draft.events[: len(events)] == events and len(draft.events) > len(events)
    assert draft.rules is game.rules


def test_a_draft_holds_only_its_moves_until_the_game_adopts_it() -> None:
    game = started()
    game.throw("444412")
    state, events = game.state, list(game.events)
    draft = game.draft()
    new = draft.throw("123456")
    assert game.state is state and game.events == events  # untouched until adopted
    assert draft.events == new and draft.throw_count == 2
    mirror = game.copy()
    mirror.throw("123456")
    game.adopt(draft)
    assert game.state is draft.state and game.events == mirror.events
    assert Game.replay(game.rules, game.players, game.events).state == game.state


def test_a_draft_of_another_point_of_the_game_is_refused() -> None:
    game = started()
    stale = game.draft()
    game.throw("444412")
    stale.throw("123456")
    with pytest.raises(IllegalAction, match="another point"):
        game.adopt(stale)
    assert game.throw_count == 1
    with pytest.raises(IllegalAction, match="another point"):
        game.adopt(game.copy())  # a copy is not a draft


# -- 一二会: several sets at one table (RULES.md §10.2) --------------------------------------


def _two_sets() -> Game:
    """Set 1 ends in a lights-off grab settled at random, set 2 is played to its end."""
    rules = load_rules({"preset": "traditional", "sets": 2})
    game = Game(rules, ["甲", "乙", "丙"])
    game.start(starter="乙")
    game.throw("123456")  # 乙: 对堂
    game.throw("333333")  # 丙: 六勃黑, lights off
    game.grab(rng=random.Random(5))
    return game


def test_a_set_over_starts_the_next_with_the_player_after_the_last_thrower() -> None:
    game = _two_sets()
    assert game.state.set_number == 2
    assert game.next_player == "甲"  # after 丙, who threw last
    assert game.events[-1].type == "next_set"
    assert game.state.pool == tuple(game.rules.prizes)
    assert all(sum(row) == 0 for row in game.state.held)
    first = game.state.done[0]
    assert sum(first.pool) == 0 and sum(map(sum, first.held)) == game.rules.total_cakes


def test_two_sets_conserve_the_cakes_and_sum_what_each_takes_home() -> None:
    game = _two_sets()
    game.throw("444444")  # 甲: 六勃红 under take_all_end ends set 2 and the evening
    assert game.is_over and game.state.set_number == 2
    totals = game.state.totals()
    assert sum(map(sum, totals)) == 2 * game.rules.total_cakes
    assert totals[0][0] >= 1  # 甲's 状元 cake of set 2, whatever the grab gave in set 1
    result = game.result()
    assert result["set"] == 2 and len(result["sets"]) == 1
    assert result["sets"][0]["ended_by"] == "liubohei"
    assert result["events"][0]["type"] == "next_set"


def test_a_two_set_record_round_trips_and_replays() -> None:
    game = _two_sets()
    game.throw("235566")
    record = game.to_record()
    assert isinstance(record["grab"], dict)  # one grab: written as before
    again = Game.from_record(record)
    assert again.result() == game.result()
    assert Game.replay(game.rules, game.players, game.events).state == game.state


def test_one_set_adds_no_key_and_time_called_starts_no_next_set() -> None:
    one = Game(load_rules("traditional"), ["甲", "乙"])
    one.start()
    assert "set" not in one.result() and "sets" not in one.result()
    two = Game(load_rules({"preset": "traditional", "sets": 2}), ["甲", "乙"])
    two.start()
    two.throw("444412")
    two.close()
    two.throw("123456")
    assert two.is_over and two.result()["set"] == 1 and two.result()["sets"] == []


@pytest.mark.parametrize("preset", ["traditional", "modern"])
def test_seeded_three_set_evenings_conserve_every_set_and_replay(preset: str) -> None:
    """Whole evenings of three sets from seeded dice (grabs at random): every finished set gave
    out all its cakes or left them in its own pool, each set began with the player after the
    last thrower, and the record and the events rebuild the same evening."""
    rules = load_rules({"preset": preset, "sets": 3})
    for seed in range(12):
        game = Game(rules, ["甲", "乙", "丙", "丁"])
        dice = SeededDice(seed)
        game.roll_start(dice)
        chooser = random.Random(seed)
        while not game.is_over:
            if game.phase is Phase.GRAB:
                game.grab(rng=chooser)
            else:
                game.roll(dice)
        state = game.state
        assert state.set_number == 3 and len(state.done) == 2
        for done in (*state.done, state):
            held = [sum(row[i] for row in done.held) for i in range(len(TIERS))]
            assert [a + b for a, b in zip(held, done.pool, strict=True)] == list(rules.prizes)
        starts = [e for e in game.events if e.type == "next_set"]
        assert [e.number for e in starts] == [2, 3]
        for event, done in zip(starts, state.done, strict=True):
            assert done.thrown_turn is not None
            last = done.seat_at(done.thrown_turn)
            assert event.starter == done.players[(last + done.step) % len(done.players)]
        again = Game.from_record(game.to_record(seed=seed))
        assert again.result() == game.result()
        assert Game.replay(rules, game.players, game.events).state == state
