"""Prize sets, the budget (the seeds' own figures), the playoff field and who takes home what."""

from __future__ import annotations

import pytest

from bobing.engine.errors import InputError
from bobing.engine.game import Game
from bobing.engine.rules import load_rules, rules_from_json
from bobing.organizer import (
    event_results,
    parse_budget,
    parse_prize_set,
    playoff_field,
    playoff_rules,
    table_winner,
)

CLASS_SET = {
    "zhuangyuan": [{"name": "可爱公仔", "count": 1, "value": 65}],
    "duitang": [
        {"name": "洗发水", "count": 2, "value": 40},
        {"name": "沐浴露", "count": 2, "value": 40},
    ],
    "sanhong": [
        {"name": "精美杯子", "count": 3, "value": 20},
        {"name": "雨伞", "count": 3, "value": 20},
    ],
    "sijin": [{"name": "毛巾", "count": 10, "value": 5}],
    "erju": [{"name": "饼干", "count": 25, "value": 3}],
    "yixiu": [{"name": "可乐", "count": 40, "value": 2}],
}


def test_class_prize_set_counts_and_value() -> None:
    prizes = parse_prize_set(CLASS_SET)
    assert prizes.counts() == {
        "zhuangyuan": 1, "duitang": 4, "sanhong": 6, "sijin": 10, "erju": 25, "yixiu": 40,
    }  # fmt: skip
    assert prizes.value() == 550
    assert [i and i.name for i in prizes.units("duitang", 5)] == [
        "洗发水", "洗发水", "沐浴露", "沐浴露", None,
    ]  # fmt: skip


@pytest.mark.parametrize(
    "bad",
    [
        {"tianhu": []},
        {"yixiu": "cola"},
        {"yixiu": [{"name": "可乐", "count": -1}]},
        {"yixiu": [{"name": "可乐", "count": 1, "value": "2"}]},
        {"yixiu": [{"name": "<i>", "count": 1}]},
        {"yixiu": [{"name": "可乐", "count": 1000}]},
    ],
)
def test_bad_prize_sets(bad: object) -> None:
    with pytest.raises(InputError):
        parse_prize_set(bad)


def test_company_party_deficit_the_organiser_covers() -> None:
    budget = parse_budget(
        {
            "contribution": 200,
            "fixed_costs": [
                {"name": "会餐", "amount": 1088},
                {"name": "红酒白酒", "amount": 208},
                {"name": "小月饼", "amount": 66.6},
            ],
        }
    )
    summary = budget.summary(13, 1270)
    assert (summary.income, summary.spent) == (2600, 2632.6)
    assert (summary.deficit, summary.surplus) == (32.6, 0)


def test_class_event_surplus_to_the_fund() -> None:
    summary = parse_budget({"contribution": 50}).summary(44, 4 * 500)
    assert summary.to_json()["surplus"] == 200
    with pytest.raises(InputError):
        parse_budget({"contribution": -1})


def _played(players: list[str], throws: list[str]) -> Game:
    game = Game(load_rules("traditional"), players)
    game.start(starter=players[0])
    for dice in throws:
        game.throw(dice)
    return game


def test_who_takes_home_what_follows_the_engine() -> None:
    prizes = parse_prize_set(CLASS_SET)
    rules = rules_from_json({"preset": "traditional", "prizes": prizes.counts()})
    game = Game(rules, ["甲", "乙", "丙"])
    game.start(starter="甲")
    throws = ["123456", "123456", "444412", "123456"]
    for dice in throws:
        game.throw(dice)
    game_result = game.result(events=False)
    tables = [{"number": 1, "code": "AAAAAA", "players": ["甲", "乙", "丙"], "result": game_result}]
    out = event_results(tables, prizes)
    by = {p["name"]: p for p in out["people"]}
    held = game_result["holdings"]
    for name in ("甲", "乙", "丙"):
        tiers = [p["tier"] for p in by[name]["prizes"]]
        assert len(tiers) == sum(held[name].values())
    # 对堂 goods go to the holders in seat order, in the order the organiser listed them
    duitang = [
        (p["name"], x["name"]) for p in out["people"] for x in p["prizes"] if x["tier"] == "duitang"
    ]
    assert [n for _, n in duitang] == ["洗发水", "洗发水", "沐浴露", "沐浴露"][: len(duitang)]
    assert out["tables"][0]["zhuangyuan"] is None  # still in progress
    assert out["wangzhongwang"] is None


def test_each_set_hands_over_its_own_prize_set() -> None:
    """一二会 (RULES.md §10.2): a table playing two sets hands over the event's prize set once
    per set; what a person takes home is what they won in both."""
    prizes = parse_prize_set(CLASS_SET)
    rules = rules_from_json({"preset": "traditional", "prizes": prizes.counts(), "sets": 2})
    game = Game(rules, ["甲", "乙", "丙"])
    game.start(starter="甲")
    for dice in ("444444", "235566", "444444"):  # 甲 sweeps set 1; 乙 nothing; 丙 sweeps set 2
        game.throw(dice)
    result = game.result(events=False)
    assert result["status"] == "over" and result["set"] == 2
    tables = [{"number": 1, "code": "AAAAAA", "players": ["甲", "乙", "丙"], "result": result}]
    out = event_results(tables, prizes)
    by = {p["name"]: p for p in out["people"]}
    total = sum(prizes.counts().values())
    assert len(by["甲"]["prizes"]) == total == len(by["丙"]["prizes"])
    assert by["乙"]["prizes"] == []
    assert [p["name"] for p in by["甲"]["prizes"]] == [p["name"] for p in by["丙"]["prizes"]]
    assert out["tables"][0]["zhuangyuan"]["player"] == "丙"  # the last set's 状元
    assert out["tables"][0]["unclaimed"] == []


def test_table_winner_and_playoff_field() -> None:
    over = {
        "status": "over",
        "zhuangyuan": {"player": "乙", "hand": "sihong", "dice": "444455", "throw": 5},
    }
    assert table_winner(over) == {"player": "乙", "hand": "sihong", "dice": "444455", "throw": 5}
    assert table_winner({**over, "status": "in_progress"}) is None
    assert playoff_field(
        [
            over,
            None,
            {"status": "over", "zhuangyuan": None},
            {**over, "zhuangyuan": {"player": "丁"}},
        ]
    ) == ["乙", "丁"]
    rules = playoff_rules({"preset": "traditional", "prizes": {"yixiu": 3}}, throws=2, value=100)
    assert rules["award"] == "ranked" and rules["rounds"] == 2
    assert rules["ranked_prizes"] == [{"name": "状元王中王", "count": 1, "value": 100}]
    with pytest.raises(InputError):
        playoff_rules({}, throws=0)
