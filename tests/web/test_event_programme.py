"""An evening in sessions over REST (RULES.md §10.2, issue 30): the 2013 party's programme —
会餐 (no game), 博饼 for the 会饼, 状元摇奖 for the 13 ranked prizes — at two tables, the ranked
session ranked event-wide, the prize desk listing every session's prizes, the seed's budget."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
from test_event_routes import BOBING, COMPANY_PRIZES, UNLIMITED, bearer, throw
from webtools import TIMEOUT, running_server

from bobing.organizer.programme import EVENING_2013
from bobing.web.settings import Settings

PEOPLE = [f"员工{i}" for i in range(1, 14)]
EVENING = [s.to_json() for s in EVENING_2013]
BODY: dict[str, Any] = {
    "name": "公司中秋博饼",
    "mode": "referee",
    "people": PEOPLE,
    "tables": 2,
    "seating": "in_order",
    "rules": {
        "preset": "traditional",
        "award": "ranked",
        "ranked_prizes": COMPANY_PRIZES,
        "rounds": 1,
        "max_players": 13,
    },
    "budget": {
        "contribution": 200,
        "fixed_costs": [
            {"name": "会餐", "amount": 1088},
            {"name": "红酒白酒", "amount": 208},
            {"name": "小月饼", "amount": 66.6},
        ],
    },
    "programme": EVENING,
}

# The ranked session, thrown at table 2 first, then table 1 (the server's clock orders equal
# hands: 员工8's 四红 came before 员工1's, 员工9's 对堂 before 员工4's …).
RANKED_2 = ["444456", "123456", "444123", "441235", "412355", "122356"]  # 员工8 … 员工13
RANKED_1 = ["444456", "444411", "555551", "123456", "222235", "441236", "235612"]  # 员工1 … 7
# Hand-worked from §8.2: 插金花, 五子, 四红 (8 then 1), 对堂 (9 then 4), 三红, 四进, 二举
# (11 then 6), 一秀, nothing (13 then 7); the prize list one unit each, best first.
EXPECTED = [
    ("员工2", "漫步者音响", 498),
    ("员工3", "飞利浦电饭煲", 199),
    ("员工8", "行李车", 89),
    ("员工1", "手提锅", 79),
    ("员工9", "手提锅", 79),
    ("员工4", "飞科电吹风", 59),
    ("员工10", "飞科电吹风", 59),
    ("员工5", "蒸蛋器", 49),
    ("员工11", "乐扣四件套", 49),
    ("员工6", "雪莲水壶等", 27),
    ("员工12", "雪莲水壶等", 27),
    ("员工13", "雪莲水壶等", 27),
    ("员工7", "吉祥碗", 29),
]


async def test_the_2013_evening_in_sessions(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'events.sqlite3'}"
    async with (
        running_server(Settings(db_url=url, limits=UNLIMITED)) as server,
        httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as http,
    ):
        preview = (await http.post("/api/events/preview", json=BODY)).json()
        # the seed's own figures: 2600 in; 1362.6 of dinner and wine, 1270 of prizes
        budget = preview["budget"]
        assert (budget["income"], budget["spent"], budget["deficit"]) == (2600, 2632.6, 32.6)
        created = (await http.post("/api/events", json=BODY)).json()
        code, token = created["code"], created["organizer_token"]
        tables = created["tables"]
        assert [t["players"] for t in tables] == [PEOPLE[:7], PEOPLE[7:]]
        event = (await http.get(f"/api/events/{code}")).json()
        assert event["programme"] == EVENING
        assert (event["session"], event["next_session"]) == (1, 2)
        # the first game session (博饼) plays the 会饼: cakes, its 30 minutes the bell
        state = (await http.get(f"/api/tables/{tables[0]['code']}")).json()
        assert state["rules"]["award"] == "cakes" and state["time_limit"] == 30
        start = await http.post(
            f"/api/events/{code}/control", json={"action": "start"}, headers=bearer(token)
        )
        assert start.status_code == 200, start.text
        early = await http.post(f"/api/events/{code}/session", json={}, headers=bearer(token))
        assert (early.status_code, early.json()["code"]) == (409, "session_playing")
        for table in tables:
            await throw(http, table, "412355")  # the first seat's 一秀
        closed = await http.post(
            f"/api/events/{code}/control", json={"action": "close"}, headers=bearer(token)
        )
        assert closed.status_code == 200, closed.text
        for table in tables:
            state = (await http.get(f"/api/tables/{table['code']}")).json()
            while state["status"] != "over":
                state = await throw(http, table, "122356")
        # the 状元摇奖: organiser only, then once
        anyone = await http.post(f"/api/events/{code}/session", json={})
        assert anyone.status_code == 401
        # 员工2 claimed a seat with the card's QR during the 会饼
        seats = (await http.get(f"/api/events/{code}/seats", headers=bearer(token))).json()
        key = next(s["claim_key"] for s in seats["tables"][0]["seats"] if s["name"] == "员工2")
        claim = {"name": "员工2", "key": key}
        first_claim = await http.post(f"/api/events/{code}/tables/1/claim", json=claim)
        assert first_claim.status_code == 201 and first_claim.json()["code"] == tables[0]["code"]
        # two taps at once (the button and "start on time"): one session starts, once
        taps = await asyncio.gather(
            *(
                http.post(f"/api/events/{code}/session", json={"session": 2}, headers=bearer(token))
                for _ in range(2)
            )
        )
        assert sorted(r.status_code for r in taps) == [201, 409], [r.text for r in taps]
        started = next(r for r in taps if r.status_code == 201)
        assert next(r for r in taps if r.status_code == 409).json()["code"] == "no_session"
        ranked = started.json()
        assert (ranked["session"], ranked["name"]) == (2, "状元摇奖")
        again = await http.post(f"/api/events/{code}/session", json={}, headers=bearer(token))
        assert (again.status_code, again.json()["code"]) == (409, "no_session")
        # the seat is claimed again at the new table with the same card
        second_claim = await http.post(f"/api/events/{code}/tables/1/claim", json=claim)
        assert second_claim.status_code == 201, second_claim.text
        assert second_claim.json()["code"] == ranked["tables"][0]["code"]
        new = {t["number"]: t for t in ranked["tables"]}
        assert new[1]["code"] != tables[0]["code"] and new[1]["players"] == PEOPLE[:7]
        state = (await http.get(f"/api/tables/{new[1]['code']}")).json()
        assert state["status"] == "playing" and state["rules"]["award"] == "ranked"
        for dice in RANKED_2:
            await throw(http, new[2], dice)
        for dice in RANKED_1:
            await throw(http, new[1], dice)
        event = (await http.get(f"/api/events/{code}")).json()
        assert event["all_over"] and event["next_session"] is None
        assert [t["code"] for t in event["tables"]] == [new[1]["code"], new[2]["code"]]

        results = (await http.get(f"/api/events/{code}/results")).json()
        sessions = results["sessions"]
        assert [s["name"] for s in sessions] == ["会餐", "博饼", "状元摇奖"]
        assert [s.get("status") for s in sessions] == [None, "over", "over"]
        ranking = sessions[2]["ranking"]
        assert [(r["player"], r["prize"], r["value"]) for r in ranking] == EXPECTED
        assert ranking[2]["at"] < ranking[3]["at"]  # equal 四红: table 2's came first
        people = {p["name"]: p for p in results["people"]}
        # 员工1 takes home a 一秀 cake of the 会饼 and the 手提锅 of the ranked session
        assert people["员工1"]["prizes"] == [
            {"tier": "yixiu", "name": None, "value": 0, "session": 1},
            {"tier": None, "name": "手提锅", "value": 79, "session": 2},
        ]
        ranked_total = sum(
            p["value"]
            for person in results["people"]
            for p in person["prizes"]
            if p["session"] == 2
        )
        assert ranked_total == 1270
        assert all(
            sum(p["session"] == 2 for p in person["prizes"]) == 1 for person in results["people"]
        )
        # the prize desk's CSV lists every session's prizes
        desk = (await http.get(f"/api/events/{code}/results.csv?lang=zh-Hans")).text
        rows = list(csv.reader(io.StringIO(desk.lstrip("\ufeff"))))
        assert rows[0][-1] == "场次"
        mine = [(r[3], r[4], r[5], r[-1]) for r in rows if len(r) > 1 and r[1] == "员工1"]
        assert mine == [("一秀", "一秀", "1", "博饼"), ("名次奖", "手提锅", "1", "状元摇奖")]
        assert sum(float(r[7]) for r in rows[1:] if len(r) > 8 and r[-1] == "状元摇奖") == 1270
        xlsx = await http.get(f"/api/events/{code}/results.xlsx?lang=zh-Hans")
        assert xlsx.status_code == 200 and xlsx.content[:2] == b"PK"
        # the event record keeps the 会饼 session's tables too, and `bobing verify` accepts it
        record = (await http.get(f"/api/events/{code}/record")).json()
        assert [(e["session"], e["number"], e["code"]) for e in record["earlier_sessions"]] == [
            (1, 1, tables[0]["code"]),
            (1, 2, tables[1]["code"]),
        ]
        assert all(e["record"]["throws"] for e in record["earlier_sessions"])
        path = tmp_path / "event.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        verified = subprocess.run(
            [BOBING, "verify", str(path)], capture_output=True, text=True, check=False
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        # … and checks them: a 会饼 table's throw changed afterwards fails the whole event
        first = record["earlier_sessions"][0]["record"]["throws"][0]
        first["dice"] = "444444"
        path.write_text(json.dumps(record), encoding="utf-8")
        tampered = subprocess.run(
            [BOBING, "verify", str(path)], capture_output=True, text=True, check=False
        )
        assert tampered.returncode != 0
        # next year's body keeps the programme
        following = (await http.get(f"/api/events/{code}/next")).json()
        assert following["programme"] == EVENING
        assert "start_on_time" not in following
        ticked = {**BODY, "start_on_time": True}
        again_event = (await http.post("/api/events", json=ticked)).json()
        shown = (await http.get(f"/api/events/{again_event['code']}")).json()
        assert shown["start_on_time"] is True
        assert (await http.get(f"/api/events/{again_event['code']}/next")).json()["start_on_time"]


async def test_a_programme_is_checked_in_the_readers_language(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'events.sqlite3'}"
    async with (
        running_server(Settings(db_url=url, limits=UNLIMITED)) as server,
        httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as http,
    ):
        zh = {"Accept-Language": "zh-Hans"}
        cases = [
            ([{"name": "会餐"}], "至少要有一个博饼环节"),
            ([{"name": "博饼", "game": "dice"}], "玩法只能是"),
            ([{"name": "博饼", "game": "cakes", "starts": "25:00"}], "HH:MM"),
            ([{"name": "博饼", "game": "cakes", "minutes": 0}], "1 到 600"),
            (
                [
                    {"name": "博饼", "game": "cakes", "starts": "19:30"},
                    {"name": "摇奖", "game": "cakes", "starts": "19:00"},
                ],
                "早于",
            ),
            ([{"name": "博饼", "game": "cakes", "where": 1}], "格式不对"),
        ]
        for programme, words in cases:
            body = {**BODY, "programme": programme}
            refused = await http.post("/api/events/preview", json=body, headers=zh)
            assert refused.status_code == 422, programme
            assert words in refused.json()["detail"], refused.json()
        # a ranked session needs the event's ranked prize list
        cakes_only = {**BODY, "rules": "traditional"}
        refused = await http.post("/api/events/preview", json=cakes_only, headers=zh)
        assert refused.status_code == 422 and "名次奖品单" in refused.json()["detail"]
        # without a programme nothing changes: no session keys, no session to start
        plain = {k: v for k, v in BODY.items() if k != "programme"}
        created = (await http.post("/api/events", json=plain)).json()
        event = (await http.get(f"/api/events/{created['code']}")).json()
        assert "programme" not in event and "session" not in event
        none = await http.post(
            f"/api/events/{created['code']}/session",
            json={},
            headers=bearer(created["organizer_token"]),
        )
        assert (none.status_code, none.json()["code"]) == (409, "no_session")
