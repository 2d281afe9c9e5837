"""The event planner: prize lists, costs and shares, tables, and the 2013 example."""

from __future__ import annotations

import doctest
from decimal import Decimal
from pathlib import Path

import pytest

import bobing.analysis.planner as planner_module
import bobing.analysis.prizes as prizes_module
from bobing.analysis.planner import (
    PrizeList,
    parse_prizes,
    parse_ranked_prizes,
    plan,
    read_prizes,
    read_ranked_prizes,
    split_tables,
    tier_from_text,
)
from bobing.analysis.ranked import RankedResult
from bobing.engine.errors import InputError
from bobing.engine.hands import Tier
from bobing.engine.rules import load_rules

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "2013-prizes.csv"
HEADER = "name,tier,count,unit price\n"


def test_the_2013_prize_list() -> None:
    prizes = read_prizes(EXAMPLE)
    # seed 000: thirteen prizes, one per person, 1270 yuan in all.
    assert sum(prizes.counts) == 13
    assert prizes.counts == (1, 2, 2, 2, 2, 4)
    assert prizes.cost == Decimal("1270")
    assert prizes.items[0].name == "漫步者音响" and prizes.items[0].unit_price == 498


def test_the_2013_event_budget() -> None:
    # 1270 yuan of prizes + 1088 dinner + 208 drinks + 66.6 small mooncakes = 2632.6 yuan.
    result = plan(
        load_rules("traditional"),
        13,
        prizes=read_prizes(EXAMPLE),
        extra_cost="1362.6",
        games=2000,
    )
    assert result.total_cost == Decimal("2632.6")
    assert result.per_person == Decimal("202.51")
    assert result.rules.prizes == (1, 2, 2, 2, 2, 4)
    data = result.to_json()
    assert data["prizes"]["set_cost"] == 1270.0
    assert data["total_cost"] == 2632.6 and data["per_person"] == 202.51
    # Every prize is won by someone, so the average player takes home 1270 / 13 yuan.
    assert data["value_per_player"] == pytest.approx(1270 / 13, abs=0.01)
    assert data["cakes_per_player"]["mean"] == pytest.approx(1.0, abs=1e-6)
    minutes = data["minutes"]
    assert minutes["p5"] < minutes["p50"] < minutes["p95"]
    # Fewer prizes than the 63-cake set: a much shorter game than the full set's ≈ 38 min.
    assert 10 < minutes["p50"] < 35


def test_a_fixed_contribution_reports_the_deficit_or_the_surplus() -> None:
    # seed 000: 200 yuan each, 2632.6 spent, "超出者由组织者消化": 32.6 yuan over.
    rules = load_rules("traditional")
    prizes = read_prizes(EXAMPLE)
    party = plan(rules, 13, prizes=prizes, extra_cost="1362.6", contribution="200", games=500)
    assert party.collected == Decimal("2600")
    assert party.balance == Decimal("-32.6")
    assert party.to_json()["contribution"] == {
        "per_person": 200.0,
        "collected": 2600.0,
        "balance": -32.6,
    }
    # A class of 40 at 4 tables, 50 yuan each, prizes only: the rest goes to the class fund.
    small = parse_prizes(HEADER + "a,状元,1,100\nb,对堂,2,40\nc,一秀,10,5\n")
    fund = plan(rules, 40, tables=4, prizes=small, contribution="50 元", games=500)
    assert fund.total_cost == 4 * Decimal(230)
    assert fund.balance == 40 * 50 - 4 * 230 > 0
    # Without a contribution the plan is AA and says nothing about a balance.
    aa = plan(rules, 13, prizes=prizes, games=500)
    assert aa.balance is None and aa.to_json()["contribution"] is None


def test_the_2013_party_ranked_one_prize_each() -> None:
    # seed 000: "只能取得博到之最高奖项，不是均中均得，人均一份" — the same 13 prizes, ranked.
    ranked = read_ranked_prizes(EXAMPLE)
    assert [p.count for p in ranked] == [1, 1, 1, 2, 2, 1, 1, 3, 1]
    assert ranked[0].name == "漫步者音响" and ranked[0].value == 498
    rules = load_rules("traditional")
    party = plan(
        rules, 13, ranked_prizes=ranked, rounds=3, extra_cost="1362.6", contribution=200,
        games=3000, seconds_per_throw=10,
    )  # fmt: skip
    assert party.ranked and party.rules.rounds == 3
    assert party.prize_cost == Decimal(1270) and party.balance == Decimal("-32.6")
    # Everyone takes exactly one prize: the mean value is the list's value over 13 people.
    assert party.value_per_player == pytest.approx(1270 / 13)
    assert party.unawarded == 0
    # 3 rounds of 13 at 10 s: 39 throws, 6.5 minutes, always.
    assert party.minutes.p50 == pytest.approx(6.5)
    data = party.to_json()
    assert data["award"] == "ranked" and data["cakes_per_player"] is None
    assert data["prizes"]["set_cost"] == 1270.0 and data["prizes"]["unawarded"] == 0
    seats = data["tables"][0]["seats"]
    assert sum(seat["expected_value"] for seat in seats) == pytest.approx(1270, abs=0.01)
    # The starter's edge: equal best throws go to the earlier one.
    assert seats[0]["expected_value"] > seats[-1]["expected_value"]
    # Two tables of 7 and 6 play for a set each: 13 prizes for 7 leave 6 over, for 6 leave 7.
    two = plan(rules, 13, tables=2, ranked_prizes=ranked, rounds=2, games=500)
    assert two.unawarded == 13 and two.prize_cost == Decimal(2540)


def test_ranked_rules_from_a_rule_file_and_bad_combinations() -> None:
    ranked = load_rules(
        {"award": "ranked", "rounds": 2, "ranked_prizes": [{"name": "状元王", "value": 100}]}
    )
    final = plan(ranked, 8, games=500)
    assert final.ranked and final.prize_cost == 100
    assert final.value_per_player == pytest.approx(100 / 8)
    assert plan(ranked, 8, games=500, rounds=5).rules.rounds == 5
    traditional = load_rules("traditional")
    cakes = parse_prizes(HEADER + "a,状元,1,100\nb,一秀,5,10\n")
    with pytest.raises(InputError, match="needs the number of rounds"):
        plan(traditional, 8, ranked_prizes=read_ranked_prizes(EXAMPLE), games=500)
    with pytest.raises(InputError, match="rounds only apply to ranked prizes"):
        plan(traditional, 8, rounds=3, games=500)
    with pytest.raises(InputError, match="not by tier"):
        plan(ranked, 8, prizes=cakes, games=500)
    with pytest.raises(InputError, match="invalid number of rounds 0"):
        plan(ranked, 8, rounds=0, games=500)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name,count\n", "missing: unit price"),
        ("name,count,value\n", "lists no prizes"),
        ("name,count,value\na,0,5\n", "line 2: invalid count '0': at least 1"),
        ("name,count,value\n,1,5\n", "line 2: the prize has no name"),
        ("name,count,value\n" + "x" * 41 + ",1,5\n", "name must be text of 1-40"),
    ],
)
def test_bad_ranked_lists(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_ranked_prizes(text, "ranked.csv")


def test_a_time_limit_for_the_game() -> None:
    # seed 000 gave the game 30 minutes (19:00-19:30); at 10 s a throw that is 180 throws.
    rules = load_rules("traditional")
    prizes = read_prizes(EXAMPLE)
    timed = plan(rules, 13, prizes=prizes, minutes=30, games=3000, seed=1)
    free = plan(rules, 13, prizes=prizes, games=3000, seed=1)
    assert timed.bell is not None and timed.bell.throws == 180
    over = timed.over_before_bell
    assert over is not None and free.over_before_bell is None
    # The share over before the bell is the untimed games' share of at most 180 throws.
    counts = free.tables[0].result.throws.counts
    untimed = float(counts[:181].sum()) / counts.sum()
    assert abs(over - untimed) < 4.5 * (untimed * (1 - untimed) / 1500) ** 0.5
    assert timed.minutes.p95 <= 30 + 13 * 10 / 60  # at most the round of the bell
    data = timed.to_json()
    assert data["bell"]["throws"] == 180 and data["tables"][0]["bell"]["throws"] == 180
    # Two tables: both must beat the bell (independent games).
    two = plan(rules, 26, tables=2, minutes=30, seconds_per_throw=8, games=2000, seed=2)
    single = two.tables[0].result
    assert not isinstance(single, RankedResult)
    assert two.over_before_bell == pytest.approx(single.over_before_bell**2)
    # A ranked session needs no rounds when time is called.
    ranked = plan(rules, 13, ranked_prizes=read_ranked_prizes(EXAMPLE), minutes=30, games=500)
    # 180 throws end in the 14th round of 13, which is finished: 182 throws, 30⅓ minutes.
    assert ranked.rules.rounds is None and ranked.minutes.p50 == pytest.approx(182 / 6)


def test_prizes_only_aa_share() -> None:
    result = plan(load_rules("traditional"), 13, prizes=read_prizes(EXAMPLE), games=500)
    assert result.per_person == Decimal("97.69")


def test_tables_each_play_their_own_set() -> None:
    prizes = parse_prizes(HEADER + "a,状元,1,100\nb,一秀,5,10\n")
    result = plan(load_rules("traditional"), 13, tables=2, prizes=prizes, games=1000)
    assert [t.players for t in result.tables] == [7, 6]
    assert result.prize_cost == Decimal("300")
    assert result.per_person == Decimal("23.08")
    # The event lasts as long as its slowest table.
    assert result.minutes.p50 >= max(t.minutes.p50 for t in result.tables) - 1e-9
    assert len(result.to_json()["tables"]) == 2


def test_time_scales_with_seconds_per_throw() -> None:
    rules = load_rules("traditional")
    fast = plan(rules, 8, seconds_per_throw=5, games=1000, seed=3)
    slow = plan(rules, 8, seconds_per_throw=10, games=1000, seed=3)
    assert slow.minutes.p50 == pytest.approx(2 * fast.minutes.p50)
    assert fast.prizes is None and fast.total_cost == 0
    cakes = fast.cakes_per_player
    assert sum(cakes.values()) == pytest.approx(63 / 8)


@pytest.mark.parametrize(
    ("text", "tier"),
    [
        ("yixiu", Tier.YIXIU),
        ("一秀", Tier.YIXIU),
        ("秀才", Tier.YIXIU),
        ("二舉", Tier.ERJU),
        ("举人", Tier.ERJU),
        ("四進", Tier.SIJIN),
        ("探花", Tier.SANHONG),
        ("對堂", Tier.DUITANG),
        ("榜眼", Tier.DUITANG),
        (" 狀元 ", Tier.ZHUANGYUAN),
        ("Duitang", Tier.DUITANG),
    ],
)
def test_tiers_by_id_or_name(text: str, tier: Tier) -> None:
    assert tier_from_text(text) is tier


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is empty"),
        ("name,tier,count\n", "missing: unit price"),
        (HEADER, "lists no prizes"),
        (HEADER + "a,状元,1,100\nb,五等奖,1,10\n", "line 3: unknown tier '五等奖'"),
        (HEADER + "a,状元,one,100\n", "line 2: invalid count 'one'"),
        (HEADER + "a,状元,1,cheap\n", "line 2: invalid unit price 'cheap'"),
        (HEADER + "a,状元,1,-5\n", "invalid unit price '-5'"),
        (HEADER + ",状元,1,5\n", "line 2: the prize has no name"),
    ],
)
def test_bad_prize_lists_name_the_line_and_value(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_prizes(text, "prizes.csv")


def test_the_zhuangyuan_prize_is_exactly_one() -> None:
    rules = load_rules("traditional")
    none = parse_prizes(HEADER + "b,一秀,5,10\n")
    two = parse_prizes(HEADER + "a,状元,2,100\nb,一秀,5,10\n")
    only = parse_prizes(HEADER + "a,状元,1,100\n")
    for prizes, message in (
        (none, "has 0 zhuangyuan"),
        (two, "has 2 zhuangyuan"),
        (only, "no prize"),
    ):
        with pytest.raises(InputError, match=message):
            prizes.apply_to(rules)


def test_chinese_headers_prices_with_units_bom_and_gb18030(tmp_path: Path) -> None:
    text = "奖品,档次,数量,单价\n音响,状元,1,498元\n锅,三红,2,¥79.5\n"
    assert parse_prizes("\ufeff" + text).cost == Decimal("657")
    path = tmp_path / "gbk.csv"
    path.write_bytes(text.encode("gb18030"))
    assert read_prizes(path).counts == (1, 0, 2, 0, 0, 0)
    with pytest.raises(InputError, match="cannot read prize list"):
        read_prizes(tmp_path / "missing.csv")


def test_split_tables() -> None:
    assert split_tables(13, 1) == [13]
    assert split_tables(25, 3) == [9, 8, 8]
    with pytest.raises(InputError, match="cannot fill 3 tables"):
        split_tables(5, 3)
    with pytest.raises(InputError, match="--tables 2"):
        split_tables(40, 1)
    with pytest.raises(InputError, match="number of tables 0"):
        split_tables(10, 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seconds_per_throw": 0}, "seconds per throw"),
        ({"extra_cost": "lots"}, "extra cost 'lots'"),
        ({"extra_cost": "-1"}, "extra cost '-1'"),
        ({"games": 10}, "at least 100"),
        ({"contribution": "a lot"}, "contribution 'a lot': a number"),
        ({"contribution": "-200"}, "contribution '-200'"),
        ({"contribution": "1e12"}, "contribution '1e12'"),
    ],
)
def test_bad_plan_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        plan(load_rules("traditional"), 8, **kwargs)  # type: ignore[arg-type]


def test_prize_list_json() -> None:
    prizes = PrizeList(parse_prizes(HEADER + "a,状元,1,9.99\nb,一秀,3,1.5\n").items)
    data = prizes.to_json()
    assert data["counts"]["yixiu"] == 3 and data["set_cost"] == 14.49


def test_doctests() -> None:
    for module in (planner_module, prizes_module):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_money_pay_expects_what_each_person_pays_into_the_kitty() -> None:
    # RULES.md §9.3 反向博钱: each person pays the values of what they win; 分状元 costs nobody.
    values = {"zhuangyuan": 100, "duitang": 20, "sanhong": 10, "sijin": 5, "erju": 2, "yixiu": 1}
    pay = load_rules({"money": "pay", "values": values})
    event = plan(pay, 12, tables=2, games=2000, seed=1)
    cakes = event.cakes_per_player
    expected = sum(cakes[tier] * values[str(tier)] for tier in cakes)
    assert event.pays_per_player == pytest.approx(expected)
    assert event.to_json()["pays"]["kitty"] == pytest.approx(expected * 12, abs=0.01)
    shared = plan(load_rules({"money": "pay", "values": values, "zhuangyuan_cake": "shared"}),
                  12, tables=2, games=2000, seed=1)  # fmt: skip
    assert shared.pays_per_player == pytest.approx(expected - cakes[Tier.ZHUANGYUAN] * 100)
    receive = plan(load_rules("traditional"), 12, tables=2, games=2000, seed=1)
    assert receive.pays_per_player is None and "pays" not in receive.to_json()
