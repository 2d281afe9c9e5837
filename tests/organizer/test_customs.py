"""The organiser's customs (RULES.md §9.4): roster columns, start throwers, refunds that sum
exactly, donated prize sets and who next year names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bobing.engine.errors import InputError
from bobing.organizer import Person, parse_budget, parse_people, read_roster
from bobing.organizer.budget import prize_cost
from bobing.organizer.customs import (
    DonatedSet,
    champions,
    parse_donated_sets,
    parse_start_thrower,
    refund_shares,
    table_start_thrower,
)
from bobing.organizer.xlsx import write_xlsx


def test_roster_paid_elder_and_leader_columns() -> None:
    text = "姓名,组别,已交费,长辈,组长\n张三,一组,是,,\n李四,一组,,✓,\n王五,二组,50,,1\n"
    text += "赵六,二组,否,,\n"
    people = read_roster(text.encode(), "csv")
    assert [(p.name, p.group, p.paid, p.elder, p.leader) for p in people] == [
        ("张三", "一组", True, False, False),
        ("李四", "一组", False, True, False),
        ("王五", "二组", True, False, True),
        ("赵六", "二组", False, False, False),
    ]
    assert people[1].to_json() == {"name": "李四", "group": "一组", "paid": False, "elder": True}
    # round trip through the create body
    assert parse_people([p.to_json() for p in people]) == people
    workbook = write_xlsx([("s", [["name", "paid", "elder"], ["A", "yes", ""], ["B", "", "x"]])])
    rows = read_roster(workbook, "xlsx")
    assert [(p.paid, p.elder) for p in rows] == [(True, False), (False, True)]


def test_a_roster_without_the_columns_reads_as_before() -> None:
    people = read_roster("name,group\n甲,一\n乙,二\n".encode(), "csv")
    assert all(p.paid is None and not p.elder and not p.leader for p in people)
    assert people[0].to_json() == {"name": "甲", "group": "一"}
    with pytest.raises(InputError) as caught:
        parse_people([{"name": "甲", "paid": "yes"}])
    assert caught.value.code == "bad_people"


def test_start_thrower_per_table() -> None:
    table_1 = [Person("甲"), Person("乙", elder=True), Person("丙", leader=True)]
    table_2 = [Person("丁"), Person("戊")]
    cases = {
        None: ["甲", "丁"],
        "first_seat": ["甲", "丁"],
        "leader": ["丙", "丁"],  # nobody marked at table 2: its first seat
        "elder": ["乙", "丁"],
        "戊": ["甲", "戊"],  # a named person throws at their own table only
    }
    for value, expected in cases.items():
        assert [table_start_thrower(value, t) for t in (table_1, table_2)] == expected
    # last year's 状元 at their own tables, the elders elsewhere
    value = ["戊", "elder"]
    assert [table_start_thrower(value, t) for t in (table_1, table_2)] == ["乙", "戊"]
    roster = [*table_1, *table_2]
    assert parse_start_thrower(value, roster) == value
    assert parse_start_thrower("leader", roster) == "leader"
    for bad in ("己", ["leader", "elder"], [], 5, ["甲", None]):
        with pytest.raises(InputError) as caught:
            parse_start_thrower(bad, roster)
        assert caught.value.code == "bad_start_thrower"


def test_refund_shares_sum_exactly() -> None:
    shares = refund_shares(100, ["甲", "乙", "丙"])
    assert shares == [
        {"name": "甲", "amount": 33.34},
        {"name": "乙", "amount": 33.33},
        {"name": "丙", "amount": 33.33},
    ]
    assert refund_shares(90, ["甲", "乙", "丙"])[0] == {"name": "甲", "amount": 30}
    assert refund_shares(5, []) == []


@given(
    st.integers(min_value=1, max_value=10_000_000),
    st.integers(min_value=1, max_value=600),
)
def test_refund_shares_are_equal_to_the_fen_and_sum_to_the_surplus(fen: int, n: int) -> None:
    names = [str(i) for i in range(n)]
    shares = [round(s["amount"] * 100) for s in refund_shares(fen / 100, names)]
    assert sum(shares) == fen
    assert max(shares) - min(shares) <= 1


def test_budget_refunds_the_surplus_to_the_payers() -> None:
    budget = parse_budget({"contribution": 50, "surplus": "refund"})
    summary = budget.summary(3, 50, payers=["甲", "乙", "丙"]).to_json()
    assert summary["surplus"] == 100 and summary["surplus_use"] == "refund"
    assert sum(r["amount"] for r in summary["refunds"]) == pytest.approx(100)
    assert budget.to_json() == {"contribution": 50, "fixed_costs": [], "surplus": "refund"}
    # a deficit is the organiser's: nothing to refund
    short = budget.summary(3, 500, payers=["甲", "乙", "丙"]).to_json()
    assert short["refunds"] == [] and short["deficit"] == 350
    # the fund keeps it, as before
    kept = parse_budget({"contribution": 50}).summary(3, 50, payers=["甲", "乙", "丙"]).to_json()
    assert kept["refunds"] == [] and kept["surplus_use"] == "fund"
    with pytest.raises(InputError) as caught:
        parse_budget({"surplus": "party"})
    assert caught.value.code == "bad_surplus"


def test_a_paid_no_show_is_not_refunded() -> None:
    """RULES.md §10.1 (000: 交费后未能参加者不可退费): the surplus is shared by who paid and
    came; the no-show is listed with 0 and why."""
    budget = parse_budget({"contribution": 50, "surplus": "refund"})
    summary = budget.summary(3, 50, payers=["甲", "乙", "丙"], came=["甲", "丙"]).to_json()
    assert summary["refunds"] == [
        {"name": "甲", "amount": 50},
        {"name": "乙", "amount": 0, "no_show": True},
        {"name": "丙", "amount": 50},
    ]


def test_donated_prize_sets_cost_nothing() -> None:
    donated = parse_donated_sets([{"name": "甲", "new_son": True}, {"name": "乙"}])
    assert [d.sets for d in donated] == [2, 1]
    assert prize_cost(550, 4, 100, donated) == 550 + 100
    assert prize_cost(550, 2, 0, donated) == 0  # more sets than tables save no more
    assert prize_cost(550, 4, 0) == 2200
    summary = parse_budget({"contribution": 50}).summary(44, 550, donated=donated).to_json()
    assert summary["donated_sets"] == [
        {"name": "甲", "new_son": True, "sets": 2},
        {"name": "乙", "new_son": False, "sets": 1},
    ]
    assert DonatedSet("丙").to_json()["sets"] == 1
    for bad in ("甲", [{"name": "甲", "new_son": "yes"}], [{"who": "甲"}]):
        with pytest.raises(InputError) as caught:
            parse_donated_sets(bad)
        assert caught.value.code == "bad_donated_sets"


def test_champions_are_named_once_everything_is_over() -> None:
    over = [
        {"status": "over", "zhuangyuan": {"player": "甲"}},
        {"status": "over", "zhuangyuan": {"player": "丁"}},
    ]
    assert champions(over, None) == ["甲", "丁"]
    assert champions(over, {"status": "over", "winner": "丁"}) == ["丁"]
    assert champions(over, {"status": "playing", "winner": None}) is None
    assert champions([{"status": "playing", "zhuangyuan": None}, over[1]], None) is None
