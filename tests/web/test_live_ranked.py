"""Ranked tables (RULES.md §8.2) at the live table: 13 seats, the 2013 party's prize list, the
live ranking in the state, the session ending after its rounds, and the exports."""

from __future__ import annotations

import csv
import io
from typing import Any

import httpx
import pytest
from test_undo import same_everywhere, throw
from webtools import Client, create_table, join

from bobing.engine.record import adjudicate
from bobing.engine.switches import MAX_ROUNDS

PEOPLE = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑", "寅"]

PRIZES_2013 = [
    {"name": "一等奖 漫步者音响", "count": 1, "value": 498},
    {"name": "二等奖 飞利浦电饭煲", "count": 1, "value": 199},
    {"name": "三等奖 行李车", "count": 1, "value": 89},
    {"name": "四等奖 手提锅", "count": 2, "value": 79},
    {"name": "五等奖 飞科电吹风", "count": 2, "value": 59},
    {"name": "六等奖 蒸蛋器", "count": 1, "value": 49},
    {"name": "六等奖 乐扣四件套", "count": 1, "value": 49},
    {"name": "七等奖 雪莲水壶／决明子枕头", "count": 3, "value": 27},
    {"name": "安慰奖 博饼工具", "count": 1, "value": 29},
]
"""docs/examples/2013-prizes.csv as a ranked prize list: 13 prizes for 13 people."""

RANKED_2013 = {
    "preset": "traditional",
    "award": "ranked",
    "max_players": 13,
    "ranked_prizes": PRIZES_2013,
}

ROUND = {
    "甲": "444412",  # 四红带三
    "乙": "123456",  # 对堂
    "丙": "444123",  # 三红
    "丁": "222235",  # 四进
    "戊": "441235",  # 二举
    "己": "412235",  # 一秀
    "庚": "112235",  # 无
    "辛": "444456",  # 四红带十一
    "壬": "555552",  # 五子
    "癸": "112236",  # 无
    "子": "336655",  # 无
    "丑": "444666",  # 三红, later than 丙's
    "寅": "111146",  # 四进, later than 丁's
}

EXPECTED = [  # worked by hand from §8.2: rank by best throw, equal throws: the earlier first
    ("壬", "wuzi", "一等奖 漫步者音响"),
    ("辛", "sihong", "二等奖 飞利浦电饭煲"),
    ("甲", "sihong", "三等奖 行李车"),
    ("乙", "duitang", "四等奖 手提锅"),
    ("丙", "sanhong", "四等奖 手提锅"),
    ("丑", "sanhong", "五等奖 飞科电吹风"),
    ("丁", "sijin", "五等奖 飞科电吹风"),
    ("寅", "sijin", "六等奖 蒸蛋器"),
    ("戊", "erju", "六等奖 乐扣四件套"),
    ("己", "yixiu", "七等奖 雪莲水壶／决明子枕头"),
    ("庚", "none", "七等奖 雪莲水壶／决明子枕头"),
    ("癸", "none", "七等奖 雪莲水壶／决明子枕头"),
    ("子", "none", "安慰奖 博饼工具"),
]


async def ranked_table(
    http: httpx.AsyncClient, server: str, **rules: Any
) -> tuple[dict[str, Any], Client]:
    created = await create_table(http, mode="referee", rules={**RANKED_2013, **rules})
    code = created["code"]
    for name in PEOPLE:
        await join(http, code, name)
    full = await http.post(f"/api/tables/{code}/join", json={"name": "卯"})  # a 14th: no seat
    assert full.status_code == 409 and full.json()["code"] == "table_full"
    assert full.json()["params"]["limit"] == 13
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    reply = await host.command("start", starter="甲")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    return created, host


async def test_thirteen_people_ranked_by_best_throw_with_the_2013_prizes(
    http: httpx.AsyncClient, server: str, db_url: str
) -> None:
    created, host = await ranked_table(http, server, rounds=1)
    code = created["code"]
    state = host.state
    assert state is not None
    # Before any throw: everybody listed in play order from the starter, with no throw; the
    # prizes still go by that order (§8.2 gives one per rank).
    assert [r["player"] for r in state["result"]["ranking"]] == PEOPLE
    assert all(r["dice"] is None for r in state["result"]["ranking"])
    assert [r["prize"] for r in state["result"]["ranking"]] == [e[2] for e in EXPECTED]
    for name in PEOPLE[:-1]:
        state = await throw(host, ROUND[name])
    assert state["status"] == "playing"
    assert state["final_round"]["last_thrower"] == "寅"  # the last of the one round
    assert state["result"]["holdings"] == {name: {} for name in PEOPLE}
    assert state["result"]["pool"] == {}
    assert state["result"]["zhuangyuan"] is None
    state = await throw(host, ROUND["寅"])
    assert state["status"] == "over"
    assert state["result"]["ended_by"] == "rounds"
    ranking = state["result"]["ranking"]
    assert [(r["player"], r["hand"], r["prize"]) for r in ranking] == EXPECTED
    assert ranking[0]["dice"] == "555552" and ranking[0]["throw"] == 9
    await same_everywhere(http, db_url, code, [host])
    record = (await http.get(f"/api/tables/{code}/record")).json()
    assert record["ranking"] == ranking
    assert adjudicate(record)["ranking"] == ranking
    text = (await http.get(f"/api/tables/{code}/results.csv")).text
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    assert [(r["rank"], r["player"], r["prize"]) for r in rows[:3]] == [
        ("1", "壬", "一等奖 漫步者音响"),
        ("2", "辛", "二等奖 飞利浦电饭煲"),
        ("3", "甲", "三等奖 行李车"),
    ]
    assert rows[0]["value"] == "498" and rows[0]["best_hand"] == "wuzi"
    assert rows[0]["seat"] == str(PEOPLE.index("壬") + 1)
    assert sum(int(r["value"]) for r in rows) == sum(p["value"] * p["count"] for p in PRIZES_2013)


async def test_a_ranked_close_finishes_the_round_and_gives_out_the_prizes(
    http: httpx.AsyncClient, server: str
) -> None:
    _, host = await ranked_table(http, server)
    await throw(host, ROUND["甲"])
    reply = await host.command("end")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    assert host.state is not None and host.state["closing"]["by"] == "host"
    assert host.state["final_round"]["last_thrower"] == "寅"
    for name in PEOPLE[1:]:
        state = await throw(host, ROUND[name])
    assert state["status"] == "over" and state["result"]["ended_by"] == "closed"
    assert [r["prize"] for r in state["result"]["ranking"]][:2] == [
        "一等奖 漫步者音响",
        "二等奖 飞利浦电饭煲",
    ]


@pytest.mark.parametrize(
    ("prizes", "field"),
    [
        ([{"name": "<b>奖</b>", "count": 1}], "ranked_prizes[0].name"),
        ([{"name": "x" * 41, "count": 1}], "ranked_prizes"),
        ([{"name": "奖", "count": 31}], "ranked_prizes[0].count"),
        ([{"name": f"奖{i}", "count": 1} for i in range(31)], "ranked_prizes"),
        ([{"name": "奖", "count": 1, "value": 10**10}], "ranked_prizes"),
    ],
)
async def test_a_ranked_prize_list_is_checked(
    http: httpx.AsyncClient, prizes: list[dict[str, Any]], field: str
) -> None:
    rules = {"preset": "traditional", "award": "ranked", "ranked_prizes": prizes}
    response = await http.post("/api/tables", json={"name": "排名", "rules": rules})
    assert response.status_code == 422, response.text
    params = response.json()["params"]
    # The engine checks what any rule file must satisfy (key), the server what a page shows.
    assert (params.get("field") or params.get("key", "")).startswith(field), params


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "traditional", "award": "ranked"},
        {"preset": "traditional", "award": "ranked", "ranked_prizes": [{"name": "", "count": 1}]},
        {
            "preset": "traditional",
            "award": "ranked",
            "ranked_prizes": PRIZES_2013,
            "rounds": MAX_ROUNDS + 1,
        },
        {"preset": "traditional", "rounds": 3},
        {"preset": "traditional", "max_players": 31},
    ],
)
async def test_bad_ranked_rules_are_refused(http: httpx.AsyncClient, rules: dict[str, Any]) -> None:
    response = await http.post("/api/tables", json={"name": "排名", "rules": rules})
    assert response.status_code == 422, response.text
    assert response.json()["code"] in ("invalid_rules", "invalid_field", "invalid_name")
