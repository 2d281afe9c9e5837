"""What an organiser hit (issue 30), over REST on a real server: the 组长 spread by the seating
and named on the preview, the event's start thrower at a referee table (RULES.md §10.1), and
the money of 分状元 and 反向博钱 at an event."""

from __future__ import annotations

import csv
import io
from typing import Any

import httpx
from test_event_routes import PRIZES, bearer, create, http, throw

__all__ = ["http"]  # the SQLite and PostgreSQL server fixture

LEADERS = ("p3", "p17", "p30", "p41")


def roster(people: int, leaders: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{"name": f"p{i}", "leader": f"p{i}" in leaders} for i in range(people)]


async def test_random_seating_puts_one_leader_at_every_table(http: httpx.AsyncClient) -> None:
    """The issue's evening: 44 people, 4 tables, 4 marked 组长."""
    people = roster(44, LEADERS)
    created = await create(http, people=people, tables=4, seating="random")
    assert [sum(n in LEADERS for n in t["players"]) for t in created["tables"]] == [1, 1, 1, 1]
    event = (await http.get(f"/api/events/{created['code']}")).json()
    assert [len(t["leaders"]) for t in event["tables"]] == [1, 1, 1, 1]
    body = {"name": "x", "people": people, "tables": 4, "prizes": PRIZES, "rules": "traditional"}
    preview = (await http.post("/api/events/preview", json=body)).json()
    assert preview["leaders"] == {"marked": 4, "without": []}
    # two 组长 for four tables: two tables have none, and the preview says which
    short = roster(44, LEADERS[:2])
    preview = (await http.post("/api/events/preview", json={**body, "people": short})).json()
    assert preview["leaders"]["marked"] == 2 and len(preview["leaders"]["without"]) == 2
    # a roster that marks no 组长 says nothing about them
    plain = [f"p{i}" for i in range(44)]
    assert (
        "leaders"
        not in (await http.post("/api/events/preview", json={**body, "people": plain})).json()
    )


async def test_a_referee_tables_start_dice_are_the_named_throwers(
    http: httpx.AsyncClient,
) -> None:
    """RULES.md §10.1: a `start_dice` that names no thrower uses the event's start thrower."""
    people = [{"name": n, "leader": n in ("丙", "己")} for n in "甲乙丙丁戊己"]
    created = await create(http, people=people, start_thrower="leader", seating="in_order")
    one, two = created["tables"]
    assert (one["start_thrower"], two["start_thrower"]) == ("丙", "己")
    state = (await http.get(f"/api/tables/{one['code']}")).json()
    assert state["event_table"]["start_thrower"] == "丙"
    typed = await http.post(
        f"/api/tables/{one['code']}/commands",
        json={"type": "start_dice", "dice": "34"},
        headers=bearer(one["host_token"]),
    )
    assert typed.status_code == 200, typed.text
    state = (await http.get(f"/api/tables/{one['code']}")).json()
    assert state["start_dice"]["thrower"] == "丙"  # not seat 1 (甲)
    # the organiser names another thrower: the table's pad follows
    url = f"/api/events/{created['code']}/tables/2/start_thrower"
    chosen = await http.post(
        url, json={"start_thrower": "丁"}, headers=bearer(created["organizer_token"])
    )
    assert chosen.json() == {"table": 2, "start_thrower": "丁"}
    state = (await http.get(f"/api/tables/{two['code']}")).json()
    assert state["event_table"]["start_thrower"] == "丁"
    await http.post(
        f"/api/tables/{two['code']}/commands",
        json={"type": "start_dice", "dice": "11"},
        headers=bearer(two["host_token"]),
    )
    state = (await http.get(f"/api/tables/{two['code']}")).json()
    assert state["start_dice"]["thrower"] == "丁"
    # the log says who was named, and in which order
    log = (await http.get(f"/api/tables/{two['code']}/events")).json()["events"]
    named = [e["name"] for e in log if e["type"] == "start_thrower_named"]
    assert named == ["己", "丁"]


async def start_all(http: httpx.AsyncClient, created: dict[str, Any]) -> None:
    answer = await http.post(
        f"/api/events/{created['code']}/control",
        json={"action": "start"},
        headers=bearer(created["organizer_token"]),
    )
    assert answer.status_code == 200, answer.text


async def test_shared_zhuangyuan_is_on_the_prize_desk_as_shared(http: httpx.AsyncClient) -> None:
    """分状元 at an event (RULES.md §9.3): the 状元's good is listed as shared by the table,
    not under nobody."""
    rules = {"preset": "traditional", "zhuangyuan_cake": "shared"}
    created = await create(http, rules=rules, tables=1)
    await start_all(http, created)
    (table,) = created["tables"]
    await throw(http, table, "111444")  # 三红 for the first seat
    assert (await throw(http, table, "444444"))["status"] == "over"
    results = (await http.get(f"/api/events/{created['code']}/results")).json()
    (row,) = results["tables"]
    assert row["shared"] == [
        {"tier": "zhuangyuan", "name": "公仔", "count": 1, "value": 65, "players": 7}
    ]
    assert row["unclaimed"] == []
    assert not any(p["tier"] == "zhuangyuan" for e in results["people"] for p in e["prizes"])
    desk = await http.get(f"/api/events/{created['code']}/results.csv?lang=zh-Hans")
    rows = list(csv.reader(io.StringIO(desk.text.lstrip("\ufeff"))))
    assert ["1", "分状元：全桌 7 人共享", "", "状元", "公仔", "1", "65", "65"] in rows


async def test_paying_for_prizes_at_an_event(http: httpx.AsyncClient) -> None:
    """反向博钱 at an event (RULES.md §9.3): the results and results.csv say what each person
    pays (应付) and the kitty's total, over every table."""
    values = {"zhuangyuan": 20, "duitang": 10, "sanhong": 5, "sijin": 3, "erju": 2, "yixiu": 1}
    rules = {"preset": "traditional", "money": "pay", "values": values}
    created = await create(http, rules=rules)
    await start_all(http, created)
    one, two = created["tables"]
    await throw(http, one, "111235")
    assert (await throw(http, one, "444444"))["status"] == "over"  # 六勃红: it takes all
    assert (await throw(http, two, "444444"))["status"] == "over"
    results = (await http.get(f"/api/events/{created['code']}/results")).json()
    pays = {p["name"]: p["pays"] for p in results["people"]}
    state = (await http.get(f"/api/tables/{one['code']}")).json()
    assert {n: pays[n] for n in one["players"]} == state["result"]["payments"]["players"]
    kitties = [t["kitty"] for t in results["tables"]]
    assert results["money"]["kitty"] == sum(kitties) == sum(pays.values()) > 0
    winner = one["players"][1]
    assert pays[winner] == results["tables"][0]["kitty"] > 0
    desk = await http.get(f"/api/events/{created['code']}/results.csv?lang=zh-Hans")
    rows = list(csv.reader(io.StringIO(desk.text.lstrip("\ufeff"))))
    assert rows[0][-1] == "应付"
    first = next(r for r in rows if r[1] == winner)
    assert first[-1] == str(pays[winner])
    assert rows[-1] == ["", "公款合计", "", "", "", "", "", "", str(results["money"]["kitty"])]
