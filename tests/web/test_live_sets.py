"""一二会 (RULES.md §10.2) at the live table, over REST: a referee table with ``sets`` = 2 goes
on into set 2 when set 1's 状元 is decided, says so in its state, and ends after set 2; its
record judges the same and its results CSV lists each set and each person's sum."""

from __future__ import annotations

import csv
import io
from typing import Any

import httpx
from webtools import command_over_http, create_table, join

from bobing.engine.record import adjudicate

RULES = {"preset": "traditional", "sets": 2}


async def _state(http: httpx.AsyncClient, code: str) -> dict[str, Any]:
    state: dict[str, Any] = (await http.get(f"/api/tables/{code}")).json()
    return state


async def test_a_two_set_table_plays_both_sets_to_the_end(http: httpx.AsyncClient) -> None:
    created = await create_table(http, mode="referee", rules=RULES)
    code, host = created["code"], created["host_token"]
    for name in ("甲", "乙", "丙"):
        await join(http, code, name)
    await command_over_http(http, code, host, {"type": "start", "starter": "甲"})
    state = await _state(http, code)
    assert state["result"]["set"] == 1 and state["result"]["sets"] == []
    for turn, dice in enumerate(("123456", "444444"), start=1):  # 甲 对堂; 乙 六勃红 takes all
        await command_over_http(http, code, host, {"type": "throw", "turn": turn, "dice": dice})
    state = await _state(http, code)
    # Set 1 is over, and the table plays on: set 2, a full pool, 丙 (after 乙) first.
    assert state["status"] == "playing" and state["next"] == "丙"
    result = state["result"]
    assert result["set"] == 2 and result["status"] == "in_progress"
    assert result["pool"] == {
        "zhuangyuan": 1,
        "duitang": 2,
        "sanhong": 4,
        "sijin": 8,
        "erju": 16,
        "yixiu": 32,
    }
    (first,) = result["sets"]
    assert first["zhuangyuan"]["player"] == "乙" and first["ended_by"] == "liubohong"
    assert sum(first["holdings"]["乙"].values()) == 63
    assert result["totals"]["乙"]["yixiu"] == 32 and result["totals"]["甲"] == {}
    for turn, dice in enumerate(("235566", "444444"), start=3):  # 丙 nothing; 甲 六勃红
        await command_over_http(http, code, host, {"type": "throw", "turn": turn, "dice": dice})
    state = await _state(http, code)
    assert state["status"] == "over"
    result = state["result"]
    assert result["set"] == 2 and result["zhuangyuan"]["player"] == "甲"
    assert sum(result["totals"]["甲"].values()) == 63 == sum(result["totals"]["乙"].values())
    record = (await http.get(f"/api/tables/{code}/record")).json()
    judged = adjudicate(record)
    assert judged["set"] == 2 and judged["holdings"] == result["holdings"]
    assert [s["holdings"] for s in judged["sets"]] == [first["holdings"]]
    plain = (await http.get(f"/api/tables/{code}/results.csv")).text.lstrip("\ufeff")
    rows = list(csv.reader(io.StringIO(plain)))
    assert rows[0][:3] == ["set", "seat", "player"]
    by = {(row[0], row[2]): row for row in rows[1:]}
    cakes = rows[0].index("cakes")
    assert by[("1", "乙")][cakes] == "63" and by[("2", "乙")][cakes] == "0"
    assert by[("2", "甲")][cakes] == "63" and by[("total", "甲")][cakes] == "63"
    assert by[("1", "乙")][-1] == "liubohong" and by[("total", "乙")][-1] == ""
    assert len(rows) == 1 + 3 * 3
    chinese = (await http.get(f"/api/tables/{code}/results.csv?lang=zh-Hans")).text
    head, *body = list(csv.reader(io.StringIO(chinese.lstrip("\ufeff"))))
    assert head[0] == "局" and body[-1][0] == "合计"


async def test_sets_with_ranked_is_refused_in_the_users_language(
    http: httpx.AsyncClient,
) -> None:
    rules = {**RULES, "award": "ranked", "ranked_prizes": [{"name": "一等奖"}]}
    response = await http.post(
        "/api/tables?lang=zh-Hans", json={"name": "桌", "mode": "referee", "rules": rules}
    )
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["title"] == "规则无效" and "sets_with_ranked" in response.text
    assert 'sets 2 needs award "cakes"' in problem["detail"]
    assert "Traceback" not in response.text


async def test_who_pays_what_is_summed_over_the_sets(http: httpx.AsyncClient) -> None:
    """反向博钱 with 一二会: each set's rows say what its cakes cost, the total rows the sum."""
    values = {"zhuangyuan": 10, "duitang": 2, "sanhong": 1, "sijin": 1, "erju": 1, "yixiu": 1}
    rules = {**RULES, "money": "pay", "values": values}
    created = await create_table(http, mode="referee", rules=rules)
    code, host = created["code"], created["host_token"]
    for name in ("甲", "乙", "丙"):
        await join(http, code, name)
    await command_over_http(http, code, host, {"type": "start", "starter": "甲"})
    for turn, dice in enumerate(("444444", "235566", "235566", "444444"), start=1):
        await command_over_http(http, code, host, {"type": "throw", "turn": turn, "dice": dice})
    state = await _state(http, code)
    assert state["status"] == "over"
    # 甲 swept set 1 (10 + 2×2 + 4 + 8 + 16 + 32 = 74); set 2 began with 乙: 乙, 丙, then 甲 swept
    assert state["result"]["sets"][0]["payments"]["players"]["甲"] == 74
    assert state["result"]["payments"]["players"]["甲"] == 74
    plain = (await http.get(f"/api/tables/{code}/results.csv")).text.lstrip("\ufeff")
    rows = list(csv.reader(io.StringIO(plain)))
    assert rows[0][0] == "set" and rows[0][-1] == "pays"
    by = {(row[0], row[2]): row for row in rows[1:] if row[0]}
    assert by[("1", "甲")][-1] == "74" and by[("2", "甲")][-1] == "74"
    assert by[("total", "甲")][-1] == "148" and by[("total", "乙")][-1] == "0"
    assert rows[-1][1] == "kitty" and rows[-1][-1] == "148"


async def test_undoing_the_throw_that_ended_set_1_goes_back_into_set_1(
    http: httpx.AsyncClient,
) -> None:
    """A referee's undo of the 六勃红 that ended set 1 voids the next set's start with it."""
    created = await create_table(http, mode="referee", rules=RULES)
    code, host = created["code"], created["host_token"]
    for name in ("甲", "乙"):
        await join(http, code, name)
    await command_over_http(http, code, host, {"type": "start", "starter": "甲"})
    await command_over_http(http, code, host, {"type": "throw", "turn": 1, "dice": "123456"})
    await command_over_http(http, code, host, {"type": "throw", "turn": 2, "dice": "444444"})
    assert (await _state(http, code))["result"]["set"] == 2
    await command_over_http(http, code, host, {"type": "undo", "throw": 2})
    state = await _state(http, code)
    assert state["status"] == "playing" and state["next"] == "乙" and state["turn"] == 2
    result = state["result"]
    assert result["set"] == 1 and result["sets"] == []
    assert result["holdings"] == {"甲": {"duitang": 1}, "乙": {}}
    await command_over_http(http, code, host, {"type": "throw", "turn": 2, "dice": "235566"})
    record = (await http.get(f"/api/tables/{code}/record")).json()
    assert adjudicate(record)["set"] == 1
