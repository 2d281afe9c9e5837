"""Game records (RULES.md §6): reading, validation with specific errors, writing, re-judging."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bobing.engine.errors import RecordError, RulesError
from bobing.engine.game import Game
from bobing.engine.presets import MODERN, TRADITIONAL
from bobing.engine.record import (
    adjudicate,
    judge_record,
    load_record,
    parse_record,
    play_record,
    record_of,
)
from bobing.engine.rules import load_rules

RECORDS = Path(__file__).parent.parent / "golden" / "records"
SMALL = {"duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}


def base(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "rules": "traditional",
        "players": ["甲", "乙", "丙"],
        "throws": ["444412", "123456", {"tiaohou": True}, {"player": "甲", "dice": "441266"}],
    }
    record.update(changes)
    return record


def test_the_rules_md_example_record() -> None:
    record: dict[str, Any] = {
        "rules": {"preset": "modern", "chase": {"tiers": ["duitang"], "from": "latest"}},
        "players": ["甲", "乙", "丙"],
        "start": {"thrower": "甲", "dice": [3, 4]},
        "seed": 7,
        "throws": [
            "444412",
            {"dice": "123456"},
            {"tiaohou": True},
            {"player": "乙", "dice": "441266"},
        ],
    }
    # Counterclockwise, seven counted from 甲: 甲 丙 乙 甲 丙 乙 甲, so 甲 starts and play goes
    # 甲 丙 乙 甲: the example's fourth throw is 甲's (it only illustrates the format).
    with pytest.raises(RecordError, match="throw 4: it is 甲's turn, not 乙's"):
        adjudicate(record)
    record["throws"][3]["player"] = "甲"
    result = adjudicate(record)
    assert result["status"] == "in_progress"
    assert result["zhuangyuan"] == {"player": "甲", "hand": "sihong", "dice": "444412", "throw": 1}
    assert result["holdings"] == {"甲": {"erju": 1}, "乙": {}, "丙": {"duitang": 1}}
    assert result["next"] == "丙"


def test_result_has_exactly_the_documented_keys() -> None:
    result = adjudicate(base())
    assert set(result) >= {"status", "ended_by", "next", "zhuangyuan", "holdings", "pool", "events"}
    assert result["pool"] == {
        "zhuangyuan": 1,
        "duitang": 1,
        "sanhong": 4,
        "sijin": 8,
        "erju": 15,
        "yixiu": 32,
    }
    assert result["events"][0]["type"] == "started"
    assert all("type" in e for e in result["events"])
    json.dumps(result)  # plain JSON data


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"throws": ["44441"]}, "throw 1"),
        ({"throws": ["444412", "4444123"]}, "throw 2"),
        ({"throws": ["444412", "123456", "444402"]}, "throw 3"),
        ({"throws": ["444417"]}, "throw 1"),
        ({"throws": ["44441x"]}, "throw 1"),
        ({"throws": [444412]}, "throw 1"),
        ({"throws": [[4, 4, 4, 4, 1, 2]]}, "throw 1"),
        ({"throws": [{"dice": [4, 4, 4, 4, 1]}]}, "throw 1"),
        ({"throws": [{"dice": [44, 4, 4, 1, 2]}]}, "throw 1"),
        ({"throws": [{"dice": [4, 4, 4, 4, 1, "2"]}]}, "throw 1"),
        ({"throws": [{"dice": [4, 4, 4, 4, 1, 7]}]}, "throw 1"),
        ({"throws": [{"dice": "444412", "tiaohou": True}]}, "throw 1"),
        ({"throws": [{"dice": "444412", "who": "甲"}]}, "'who'"),
        ({"throws": [{}]}, "throw 1"),
        ({"throws": [{"tiaohou": "yes"}]}, "throw 1"),
        ({"throws": ["444412", {"player": "甲", "dice": "123456"}]}, "throw 2"),
        ({"throws": ["444412", {"player": "戊", "dice": "123456"}]}, "throw 2"),
        ({"throws": [{"player": 3, "dice": "123456"}]}, "throw 1"),
        ({"throws": "444412"}, "throws"),
        ({"players": ["甲", "乙", "甲"]}, "duplicate"),
        ({"players": ["甲"]}, "players"),
        ({"players": "甲乙丙"}, "players"),
        ({"players": ["甲", "", "丙"]}, "players"),
        ({"players": [f"p{i}" for i in range(13)]}, "players"),
        ({"rules": "nosuch"}, "'nosuch'"),
        ({"rules": {"preset": "traditional", "colour": "red"}}, "'colour'"),
        ({"rules": {"preset": "traditional", "end": "never"}}, "'never'"),
        ({"rules": 5}, "rules"),
        ({"start": {"starter": "戊"}}, "start"),
        ({"start": {"starter": ["甲"]}}, "start"),
        ({"start": {"thrower": {"x": 1}, "dice": [1, 2]}}, "start"),
        ({"start": {"thrower": "甲", "dice": [0, 7]}}, "start.dice"),
        ({"start": {"thrower": "甲"}}, "start"),
        ({"start": "甲"}, "start"),
        ({"seed": "7"}, "seed"),
        ({"seed": True}, "seed"),
        ({"grab": {"甲": {"yixiu": 1}}}, "grab"),
    ],
)
def test_bad_records_name_the_throw_or_key(changes: dict[str, Any], needle: str) -> None:
    with pytest.raises(RecordError) as info:
        adjudicate(base(**changes))
    assert needle in str(info.value)


def test_dice_may_be_a_list_of_faces() -> None:
    assert adjudicate(base(throws=[{"dice": [4, 4, 4, 4, 1, 2]}]))["zhuangyuan"]["dice"] == "444412"


def test_missing_players_is_an_error() -> None:
    record = base()
    del record["players"]
    with pytest.raises(RecordError, match="players"):
        adjudicate(record)


def test_a_throw_after_the_game_is_over_is_an_error() -> None:
    record = {
        "rules": {"preset": "traditional", "prizes": SMALL},
        "players": ["甲", "乙"],
        "throws": ["444412", "123455", "235566"],
    }
    with pytest.raises(RecordError, match=r"throw 3: the game is already over"):
        adjudicate(record)


def test_throws_after_an_unsettled_grab_are_an_error_but_a_missing_grab_is_random() -> None:
    record = {"players": ["甲", "乙"], "seed": 3, "throws": ["555555"]}
    first = adjudicate(record)
    assert first["status"] == "over" and first["ended_by"] == "liubohei"
    assert adjudicate(record) == first  # the seed decides the grab
    assert adjudicate({**record, "seed": 4})["holdings"] != first["holdings"]
    with pytest.raises(RecordError, match="throw 2"):
        adjudicate({**record, "throws": ["555555", "123456"]})


@pytest.mark.parametrize(
    ("grab", "needle"),
    [
        ({"甲": {"zhuangyuan": 1, "yixiu": 31}}, "1 yixiu left"),  # one cake short... see below
        ({"甲": {"zhuangyuan": 1}}, "allocate exactly"),
        ({"甲": {"zhuangyuan": 2}, "乙": {}}, "allocate exactly"),
        ({"戊": {"zhuangyuan": 1}}, "'戊'"),
        ({"甲": {"mooncake": 1}}, "'mooncake'"),
        ({"甲": {"zhuangyuan": -1}}, "-1"),
        ({"甲": {"zhuangyuan": "1"}}, "'1'"),
        ({"甲": []}, "grab"),
        (["甲"], "grab"),
    ],
)
def test_a_grab_must_allocate_exactly_the_unclaimed_cakes(grab: Any, needle: str) -> None:
    record = {"players": ["甲", "乙"], "throws": ["123455", "555555"], "grab": grab}
    # After 甲's 一秀, 31 yixiu are left, so 31 is right and the first case must fail elsewhere:
    if needle == "1 yixiu left":
        grab["甲"].update({"duitang": 2, "sanhong": 4, "sijin": 8, "erju": 16, "yixiu": 30})
        needle = "31 yixiu left, 30 allocated"
    with pytest.raises(RecordError) as info:
        adjudicate(record)
    assert needle in str(info.value)
    assert info.value.params.get("key") == "grab"


def test_a_valid_grab_is_applied() -> None:
    everything = {"duitang": 2, "sanhong": 4, "sijin": 8, "erju": 16}
    record = {
        "players": ["甲", "乙"],
        "throws": ["123455", "555555"],
        "grab": {"甲": {"zhuangyuan": 1, "yixiu": 31}, "乙": everything},
    }
    result = adjudicate(record)
    assert result["holdings"]["甲"] == {"zhuangyuan": 1, "yixiu": 32}
    assert result["holdings"]["乙"] == everything
    assert result["zhuangyuan"] == {"player": "甲", "hand": None, "dice": None, "throw": None}


def test_parse_record_reports_bad_json_without_a_traceback() -> None:
    with pytest.raises(RecordError, match=r"not valid JSON: .* line 1"):
        parse_record('{"players": [', "<stdin>")
    with pytest.raises(RecordError, match="JSON object"):
        parse_record("[1, 2]")
    with pytest.raises(RecordError, match="nested too deeply"):
        parse_record("[" * 100000 + "]" * 100000)


def test_load_record_errors(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read record"):
        load_record(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{")
    with pytest.raises(RecordError, match="not UTF-8"):
        load_record(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(base(), ensure_ascii=False), encoding="utf-8")
    assert load_record(good) == base()


def test_record_round_trip_keeps_rules_start_seed_and_throws() -> None:
    rules = load_rules({"preset": "modern", "chase": {"tiers": ["duitang"], "from": "latest"}})
    game = Game(rules, ["甲", "乙", "丙"])
    game.start(thrower="乙", dice=(2, 5))
    for dice in ("444412", "123456", None, "441266", "654321"):
        game.throw(dice, tiaohou=dice is None)
    record = game.to_record(seed=11)
    chase = {"tiers": ["duitang"], "from": "latest"}
    assert record["rules"] == {"preset": "modern", "chase": chase}
    assert record["start"] == {"thrower": "乙", "dice": [2, 5]}
    assert record["seed"] == 11
    assert record["throws"][2] == {"player": record["throws"][2]["player"], "tiaohou": True}
    again = Game.from_record(json.loads(json.dumps(record)))
    assert again.events == game.events
    assert again.result() == game.result()


def test_a_plain_preset_record_names_the_preset() -> None:
    game = Game(TRADITIONAL, ["甲", "乙"])
    game.start()
    assert record_of(game)["rules"] == "traditional"
    assert record_of(game)["start"] == {"starter": "甲"}
    assert "seed" not in record_of(game)


def test_golden_records_are_valid_and_round_trip() -> None:
    files = sorted(RECORDS.glob("*.json"))
    assert files
    for path in files:
        record = load_record(path)
        game = play_record(record)
        assert Game.from_record(game.to_record()).result() == game.result(), path.name


def test_rejudging_keeps_each_players_throws() -> None:
    # Traditional: 甲 跳猴 and loses a turn. Modern play goes counterclockwise, no lost turn.
    record = {
        "rules": "traditional",
        "players": ["甲", "乙", "丙"],
        "throws": [{"tiaohou": True}, "123455", "441235", "444412", "654321", "235566", "111222"],
    }
    original = [(e.player, e.dice) for e in play_record(record).events if e.type == "thrown"]  # type: ignore[attr-defined]
    assert original[3] == ("乙", "444412")
    judged = judge_record(record, MODERN)
    assert judged.rejudged
    thrown = [(e.player, e.dice) for e in judged.game.events if e.type == "thrown"]  # type: ignore[attr-defined]
    assert thrown == [
        ("甲", None),
        ("丙", "441235"),
        ("乙", "123455"),
        ("甲", "235566"),
        ("丙", "654321"),
        ("乙", "444412"),
    ]
    assert judged.unused_throws == 1  # 乙's 111222: 甲 has no throw left for the next turn
    assert judged.game.next_player == "甲"


def test_rejudging_stops_when_a_player_has_no_throw_left_or_the_game_ends() -> None:
    record = {
        "rules": "traditional",
        "players": ["甲", "乙", "丙"],
        "throws": ["123455", "235566", "235566", "123455"],
    }
    judged = judge_record(record, MODERN)  # 甲 丙 乙 甲 丙: 丙 has no second throw
    assert judged.game.next_player == "丙"
    assert judged.unused_throws == 0
    small = load_rules({"preset": "traditional", "prizes": SMALL, "end": "immediate"})
    ended = adjudicate({**record, "throws": ["444412", "123455", "235566", "235566"]}, small)
    assert ended["status"] == "over"
    assert ended["unused_throws"] == 2
    assert ended["rejudged"] is True


def test_a_record_without_rules_is_played_under_the_given_rules() -> None:
    record = {
        "players": ["甲", "乙", "丙"],
        "throws": ["444412", {"player": "丙", "dice": "123456"}],
    }
    with pytest.raises(RecordError, match="throw 2"):
        adjudicate(record)  # traditional: 乙 throws second
    result = adjudicate(record, "modern")
    assert "rejudged" not in result
    assert result["holdings"]["丙"] == {"duitang": 1}


def test_rejudging_under_the_same_rules_is_plain_judging() -> None:
    assert adjudicate(base(), "traditional") == adjudicate(base())
    with pytest.raises(RulesError, match="'nosuch'"):
        adjudicate(base(), "nosuch")


def test_rejudging_still_rejects_a_bad_record() -> None:
    with pytest.raises(RecordError, match="throw 1"):
        adjudicate(base(throws=["4444"]), "modern")


def test_rejudged_grab_uses_the_records_seed() -> None:
    record = {
        "rules": {"preset": "traditional", "liubohei": "ignore"},
        "players": ["甲", "乙"],
        "seed": 5,
        "throws": ["123455", "555555"],
    }
    once = adjudicate(record, "traditional")
    assert once["ended_by"] == "liubohei"
    assert once == adjudicate(record, "traditional")
    game = Game(TRADITIONAL, ["甲", "乙"])
    game.start()
    game.throw("123455")
    game.throw("555555")
    game.grab(rng=random.Random(5))
    assert once["holdings"] == game.result()["holdings"]


# -- RULES.md §8: closes, max_players, ranked records ------------------------------------------


@pytest.mark.parametrize(
    ("throws", "code", "needle"),
    [
        (
            ["123456", {"close": True}, {"close": True}],
            "close_twice",
            "close after throw 1: time was already called",
        ),
        (
            ["444412", "123456", "235566", {"close": True}, "444466"],
            "throw_after_end",
            "throw 4: the game is already over (1 throw(s) after the end)",
        ),
        (
            ["444412", {"close": True}, "123456", "235566", "444466", {"close": True}],
            "throw_after_end",
            "throw 4: the game is already over (1 throw(s) after the end)",
        ),
        (
            [{"close": True}, {"close": True}],
            "close_after_end",
            "close after throw 0: the game is already over",
        ),
        (
            ["123455", "555555", {"close": True}],
            "close_during_grab",
            "close after throw 2: the lights-off grab must be settled first",
        ),
        ([{"close": False}], "close_entry_invalid", "{'close': False}"),
        ([{"close": True, "player": "甲"}], "close_entry_invalid", "'player'"),
    ],
)
def test_bad_closes_name_the_place_and_reason(throws: list[Any], code: str, needle: str) -> None:
    with pytest.raises(RecordError) as info:
        adjudicate(base(throws=throws))
    assert info.value.code == code
    assert needle in str(info.value)


def test_a_closed_record_round_trips_with_its_close() -> None:
    record = base(throws=["444412", "123456", {"close": True}, "235566"])
    game = play_record(record)
    written = record_of(game)
    assert written["throws"] == [
        {"player": "甲", "dice": "444412"},
        {"player": "乙", "dice": "123456"},
        {"close": True},
        {"player": "丙", "dice": "235566"},
    ]
    assert Game.from_record(json.loads(json.dumps(written))).result() == game.result()


def test_rejudging_keeps_the_close_after_the_same_throw() -> None:
    record = base(throws=["444412", "123456", {"close": True}, "235566"])
    # Under end = immediate the close after throw 2 stops the game at once: 丙's throw is unused.
    judged = judge_record(record, load_rules({"preset": "traditional", "end": "immediate"}))
    assert judged.game.state.ended_by == "closed"
    assert judged.unused_throws == 1
    assert judged.game.throw_count == 2


def test_more_players_than_max_players_is_an_error_naming_the_key() -> None:
    thirteen = [f"p{i}" for i in range(13)]
    with pytest.raises(RecordError, match="players: 13 players, but max_players is 12"):
        adjudicate({"players": thirteen, "throws": []})
    result = adjudicate(
        {
            "rules": {"preset": "traditional", "max_players": 13},
            "players": thirteen,
            "throws": ["444412"],
        }
    )
    assert result["next"] == "p1"


def test_ranked_record_output_has_the_ranking_and_no_cakes() -> None:
    record = {
        "rules": {
            "preset": "modern",
            "award": "ranked",
            "rounds": 1,
            "ranked_prizes": [{"name": "一等奖", "count": 1, "value": 498}],
        },
        "players": ["甲", "乙"],
        "throws": ["444444", "123456"],
    }
    result = adjudicate(record)
    # 六勃红 does not end a ranked session: both throw, then the round limit ends it.
    assert result["status"] == "over" and result["ended_by"] == "rounds"
    assert result["ranking"] == [
        {"player": "甲", "hand": "liubohong", "dice": "444444", "throw": 1, "prize": "一等奖"},
        {"player": "乙", "hand": "duitang", "dice": "123456", "throw": 2, "prize": None},
    ]
    assert result["pool"] == {} and result["holdings"] == {"甲": {}, "乙": {}}
    assert result["zhuangyuan"] is None
