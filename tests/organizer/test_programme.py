"""The programme of an evening (RULES.md §10.2): sessions checked, a ranked session ranked
event-wide (equal hands: the earlier throw by the server's clock), every session's prizes
counted in the budget."""

from __future__ import annotations

import pytest

from bobing.engine.errors import InputError
from bobing.engine.presets import TRADITIONAL
from bobing.engine.switches import RankedPrize
from bobing.organizer.programme import (
    EVENING_2013,
    event_ranking,
    parse_programme,
    programme_prize_cost,
    session_rules,
)


def test_the_2013_evening_reads_back() -> None:
    sessions = parse_programme([s.to_json() for s in EVENING_2013], ranked_list=True)
    assert sessions == EVENING_2013
    assert [(s.name, s.starts, s.minutes, s.game) for s in sessions] == [
        ("会餐", "18:00", 60, "none"),
        ("博饼", "19:00", 30, "cakes"),
        ("状元摇奖", "19:30", 30, "ranked"),
    ]
    assert parse_programme(None, ranked_list=False) == ()


@pytest.mark.parametrize(
    ("programme", "code"),
    [
        ("会餐", "programme_not_list"),
        ([{"name": "x", "game": "cakes"}] * 13, "programme_not_list"),
        ([{"name": "会餐"}], "programme_no_game"),
        ([{"name": "摇奖", "game": "ranked"}], "programme_no_ranked_list"),
        ([{"name": "博饼", "game": "cakes", "starts": "7pm"}], "session_bad_starts"),
        ([{"name": "博饼", "game": "cakes", "minutes": True}], "session_bad_minutes"),
        ([{"name": "博饼", "game": "cakes", "minutes": 601}], "session_bad_minutes"),
        ([{"name": "博饼", "game": "all"}], "session_bad_game"),
        ([["博饼"]], "session_not_object"),
        ([{"name": "", "game": "cakes"}], "empty_text"),
    ],
)
def test_bad_programmes_are_refused(programme: object, code: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_programme(programme, ranked_list=False)
    assert caught.value.code == code


def test_session_rules_switch_the_award() -> None:
    ranked = {
        "preset": "traditional",
        "award": "ranked",
        "rounds": 1,
        "ranked_prizes": [{"name": "a"}],
    }
    assert session_rules(ranked, "cakes") == {"preset": "traditional", "award": "cakes"}
    assert session_rules(ranked, "ranked") == ranked


def test_a_ranked_session_is_ranked_across_tables_by_hand_then_clock() -> None:
    tables = [
        {
            "number": 1,
            "players": ["甲", "乙", "丙"],
            "ranking": [
                {"player": "乙", "hand": "sihong", "dice": "444456", "throw": 2},
                {"player": "甲", "hand": "yixiu", "dice": "412355", "throw": 1},
                {"player": "丙", "hand": None, "dice": None, "throw": None},
            ],
            "times": {1: "2026-09-19T19:30:01+00:00", 2: "2026-09-19T19:30:09+00:00"},
        },
        {
            "number": 2,
            "players": ["丁", "戊"],
            "ranking": [
                {"player": "丁", "hand": "sihong", "dice": "444465", "throw": 1},
                {"player": "戊", "hand": "duitang", "dice": "123456", "throw": 2},
            ],
            "times": {1: "2026-09-19T19:30:05+00:00", 2: "2026-09-19T19:30:06+00:00"},
        },
    ]
    prizes = (RankedPrize("一等奖", 1, 498), RankedPrize("二等奖", 2, 199))
    ranking = event_ranking(TRADITIONAL, tables, prizes)
    # 丁's 四红 (5+6) equals 乙's and came 4 s earlier; 丙 threw nothing: last
    assert [(r["player"], r["table"], r["prize"]) for r in ranking] == [
        ("丁", 2, "一等奖"),
        ("乙", 1, "二等奖"),
        ("戊", 2, "二等奖"),
        ("甲", 1, None),
        ("丙", 1, None),
    ]
    assert ranking[0]["at"] == "2026-09-19T19:30:05+00:00" and ranking[4]["hand"] is None
    later = [{**tables[1], "times": {1: "2026-09-19T19:31:00+00:00"}}, tables[0]]
    assert event_ranking(TRADITIONAL, later, prizes)[0]["player"] == "乙"


def test_every_sessions_prizes_are_counted() -> None:
    # 2 tables: the 会饼 at both (300 a set), the ranked list (1270) once
    assert programme_prize_cost(EVENING_2013, 300, 2, 1270, 0) == 1870
    # one table's set was given: it costs nothing
    assert programme_prize_cost(EVENING_2013, 300, 2, 1270, 1) == 1570
    two_cakes = (*EVENING_2013[:2], EVENING_2013[1])
    assert programme_prize_cost(two_cakes, 300, 2, 1270, 0) == 1200
