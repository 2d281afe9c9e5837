"""Events over REST on a real server, SQLite and PostgreSQL: create, read, control, claims,
the playoff, results and their downloads, the event record, next year."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtools import TIMEOUT, root_conftest, running_server

from bobing.engine.fairness import verify_record
from bobing.organizer.xlsx import read_xlsx, write_xlsx
from bobing.storage import Database
from bobing.tables.limits import Limits
from bobing.web.settings import Settings

UNLIMITED = Limits(
    create_per_minute=0, join_per_minute=0, open_tables_per_address=0, open_events_per_address=0
)

BOBING = str(Path(sys.executable).with_name("bobing"))
ENGLISH = dict(os.environ, BOBING_LANG="en")
PEOPLE = ["甲", "乙", "丙", "丁", "戊", "己", "庚"]
PRIZES = {
    "zhuangyuan": [{"name": "公仔", "count": 1, "value": 65}],
    "duitang": [
        {"name": "洗发水", "count": 1, "value": 40},
        {"name": "沐浴露", "count": 1, "value": 40},
    ],
    "sanhong": [{"name": "杯子", "count": 2, "value": 20}],
    "sijin": [{"name": "毛巾", "count": 2, "value": 5}],
    "erju": [{"name": "饼干", "count": 3, "value": 3}],
    "yixiu": [{"name": "可乐", "count": 4, "value": 2}],
}


BOTH_DATABASES = pytest.mark.parametrize("http", ["sqlite", "postgresql"], indirect=True)
"""For the tests that store an event's every part (its tables, seats, claims, playoff and
record) on both databases; the event store's own tests (tests/storage) cover both in full, so
the others run on SQLite alone."""


@pytest.fixture
async def http(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A server of the test's own on SQLite, or on PostgreSQL where :data:`BOTH_DATABASES`."""
    schema = None
    if getattr(request, "param", "sqlite") == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'events.sqlite3'}"
    else:
        url = root_conftest().need_postgres()
        schema = f"bobing_ev_{uuid.uuid4().hex[:12]}"
    try:
        async with (
            running_server(Settings(db_url=url, db_schema=schema, limits=UNLIMITED)) as server,
            httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as client,
        ):
            yield client
    finally:
        if schema is not None:
            database = Database(url, schema=schema)
            await database.drop_schema()
            await database.dispose()


async def create(http: httpx.AsyncClient, **overrides: Any) -> dict[str, Any]:
    body = {
        "name": "中秋博饼",
        "rules": "traditional",
        "mode": "referee",
        "people": PEOPLE,
        "tables": 2,
        "seating": "in_order",
        "prizes": PRIZES,
        **overrides,
    }
    response = await http.post("/api/events", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def throw(http: httpx.AsyncClient, table: dict[str, Any], dice: str) -> dict[str, Any]:
    state = (await http.get(f"/api/tables/{table['code']}")).json()
    response = await http.post(
        f"/api/tables/{table['code']}/commands",
        json={"type": "throw", "turn": state["turn"], "dice": dice},
        headers=bearer(table["host_token"]),
    )
    assert response.status_code == 200, response.text
    after: dict[str, Any] = (await http.get(f"/api/tables/{table['code']}")).json()
    return after


@BOTH_DATABASES
async def test_create_seats_in_order_and_reads_back(http: httpx.AsyncClient) -> None:
    created = await create(http)
    assert set(created) == {"code", "organizer_token", "tables"}
    assert [t["number"] for t in created["tables"]] == [1, 2]
    assert [t["players"] for t in created["tables"]] == [PEOPLE[:4], PEOPLE[4:]]
    for table in created["tables"]:
        state = (await http.get(f"/api/tables/{table['code']}")).json()
        assert [p["name"] for p in state["players"]] == table["players"]
        assert state["mode"] == "referee"
        assert state["event"] == created["code"]  # its screens link back to the event
        # the prize set's counts are the table's prizes
        assert state["rules"]["prizes"]["duitang"] == 2
        assert state["named_prizes"]["duitang"]["name"] == "洗发水 / 沐浴露"
    event = (await http.get(f"/api/events/{created['code'].lower()}")).json()
    assert event["code"] == created["code"]
    assert [(t["number"], t["code"], t["status"], t["result"]) for t in event["tables"]] == [
        (t["number"], t["code"], "lobby", None) for t in created["tables"]
    ]
    assert event["playoff"] is None
    assert event["prize_set_value"] == 65 + 80 + 40 + 10 + 9 + 8
    secrets = [created["organizer_token"], *(t["host_token"] for t in created["tables"])]
    assert not any(secret in json.dumps(event) for secret in secrets)
    missing = await http.get("/api/events/ZZZZZZ")
    assert missing.status_code == 404 and missing.json()["code"] == "event_not_found"


async def test_an_event_can_keep_each_throws_photo(http: httpx.AsyncClient) -> None:
    """``keep_photos`` on an event reaches every referee table it makes (docs/vision.md), is
    shown on the event and carried to next year's; other modes refuse it."""
    created = await create(http, keep_photos=True)
    for table in created["tables"]:
        state = (await http.get(f"/api/tables/{table['code']}")).json()
        assert state["keep_photos"] is True, table["number"]
    event = (await http.get(f"/api/events/{created['code']}")).json()
    assert event["keep_photos"] is True
    plain = await create(http)
    state = (await http.get(f"/api/tables/{plain['tables'][0]['code']}")).json()
    assert state["keep_photos"] is False
    assert (await http.get(f"/api/events/{plain['code']}")).json()["keep_photos"] is False
    for body in ({"mode": "online", "keep_photos": True}, {"keep_photos": "yes"}):
        response = await http.post(
            "/api/events",
            json={"name": "中秋", "people": PEOPLE, "tables": 2, "prizes": PRIZES, **body},
        )
        assert response.status_code == 422, response.text
        assert response.json()["params"]["field"] == "keep_photos"


async def test_bad_events_are_refused_in_the_readers_language(http: httpx.AsyncClient) -> None:
    bad = {
        "name": "x",
        "people": ["甲", "乙", "甲"],
        "tables": 1,
    }
    response = await http.post("/api/events", json=bad, headers={"Accept-Language": "zh-Hans"})
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "invalid_event" and "“甲”在名单里出现了两次" in problem["detail"]
    for body, code in [
        ({**bad, "people": ["甲", "乙"], "seating": "vip"}, "invalid_event"),
        ({**bad, "people": PEOPLE, "tables": 5}, "invalid_event"),
        ({**bad, "people": ["甲", "乙"], "prizes": {"tianhu": []}}, "invalid_event"),
        ({**bad, "people": ["甲", "乙"], "mode": "tv"}, "invalid_field"),
        ({**bad, "people": ["甲", "乙"], "budget": {"contribution": -5}}, "invalid_event"),
        ({**bad, "people": ["甲", "乙"], "unknown": 1}, "invalid_field"),
    ]:
        response = await http.post("/api/events", json=body)
        assert (response.status_code, response.json()["code"]) == (422, code), body
    huge = {**bad, "people": [f"p{i}" for i in range(20000)]}
    assert (await http.post("/api/events", json=huge)).status_code == 413


async def test_preview_says_what_create_would_make(http: httpx.AsyncClient) -> None:
    body = {
        "name": "班级博饼",
        "people": [f"同学{i}" for i in range(45)],
        "tables": 4,
        "prizes": PRIZES,
        "budget": {"contribution": 50, "fixed_costs": [{"name": "场地", "amount": 100}]},
    }
    preview = (await http.post("/api/events/preview", json=body)).json()
    assert preview["tables"] == [12, 11, 11, 11]
    assert preview["prize_set_value"] == 212
    # the rules every table gets, its cakes from the goods: what /api/game-length is asked
    counts = {tier: sum(good["count"] for good in goods) for tier, goods in PRIZES.items()}
    assert preview["rules"]["prizes"] == {**preview["rules"]["prizes"], **counts}
    assert preview["budget"]["balance"] == 45 * 50 - 100 - 4 * 212
    refused = await http.post("/api/events/preview", json={**body, "tables": 2})
    assert (refused.status_code, refused.json()["code"]) == (422, "invalid_event")
    assert (await http.get("/api/events/ZZZZZZ")).status_code == 404  # nothing was created


async def test_roster_upload(http: httpx.AsyncClient) -> None:
    csv_body = "姓名,部门\n张三,销售\n李四,研发\n".encode("gb18030")
    got = await http.post("/api/events/roster?format=csv", content=csv_body)
    assert got.json() == {
        "people": [{"name": "张三", "group": "销售"}, {"name": "李四", "group": "研发"}]
    }
    xlsx = write_xlsx([("S", [["Name"], ["Ann"], ["Bo"]])])
    got = await http.post("/api/events/roster?format=xlsx", content=xlsx)
    assert [p["name"] for p in got.json()["people"]] == ["Ann", "Bo"]
    broken = await http.post("/api/events/roster?format=xlsx", content=b"PK nope")
    assert (broken.status_code, broken.json()["code"]) == (422, "invalid_event")
    large = await http.post("/api/events/roster?format=text", content=b"a\n" * 600_000)
    assert large.status_code == 413


async def test_organiser_controls_tables_and_only_the_organiser(http: httpx.AsyncClient) -> None:
    created = await create(http)
    code, token = created["code"], created["organizer_token"]
    url = f"/api/events/{code}/control"
    assert (await http.post(url, json={"action": "start"})).status_code == 401
    wrong = await http.post(
        url, json={"action": "start"}, headers=bearer(created["tables"][0]["host_token"])
    )
    assert (wrong.status_code, wrong.json()["code"]) == (403, "forbidden")
    one = await http.post(url, json={"action": "start", "table": 2}, headers=bearer(token))
    assert one.json()["tables"] == [{"number": 2, "status": "playing"}]
    everyone = await http.post(url, json={"action": "start"}, headers=bearer(token))
    assert everyone.json()["tables"] == [{"number": 1, "status": "playing"}]
    paused = await http.post(url, json={"action": "pause"}, headers=bearer(token))
    assert [t["status"] for t in paused.json()["tables"]] == ["paused", "paused"]
    again = await http.post(url, json={"action": "pause", "table": 1}, headers=bearer(token))
    assert again.status_code == 409
    await http.post(url, json={"action": "resume"}, headers=bearer(token))
    closed = await http.post(url, json={"action": "close", "table": 1}, headers=bearer(token))
    assert closed.json()["tables"] == [{"number": 1, "status": "over"}]
    event = (await http.get(f"/api/events/{code}")).json()
    assert [t["status"] for t in event["tables"]] == ["over", "playing"]
    bad = await http.post(url, json={"action": "start", "table": 9}, headers=bearer(token))
    assert bad.status_code == 422
    bad = await http.post(url, json={"action": "dance"}, headers=bearer(token))
    assert bad.status_code == 422


@BOTH_DATABASES
async def test_seat_claims(http: httpx.AsyncClient) -> None:
    created = await create(http, mode="online")
    code, table = created["code"], created["tables"][1]
    url = f"/api/events/{code}/tables/2/claim"
    seats = await http.get(f"/api/events/{code}/seats", headers=bearer(created["organizer_token"]))
    key = {s["name"]: s["claim_key"] for s in seats.json()["tables"][1]["seats"]}["戊"]
    claimed = await http.post(url, json={"name": "戊", "key": key})
    assert claimed.status_code == 201
    token = claimed.json()["player_token"]
    assert claimed.json()["code"] == table["code"]
    # the token is 戊's seat: it is known at the table, and is not the host's
    start = await http.post(
        f"/api/tables/{table['code']}/commands", json={"type": "start"}, headers=bearer(token)
    )
    assert (start.status_code, start.json()["code"]) == (403, "forbidden")
    twice = await http.post(url, json={"name": "戊", "key": key})
    assert (twice.status_code, twice.json()["code"]) == (409, "seat_claimed")
    assert (await http.post(url, json={"name": "甲"})).status_code == 422  # 甲 sits at table 1
    release = f"/api/events/{code}/tables/2/release"
    assert (await http.post(release, json={"name": "戊"})).status_code == 401
    freed = await http.post(
        release, json={"name": "戊"}, headers=bearer(created["organizer_token"])
    )
    assert freed.json()["released"] is True
    # issue 29: the release gave the seat a new key; the old card's is refused
    stale = await http.post(url, json={"name": "戊", "key": key})
    assert (stale.status_code, stale.json()["code"]) == (403, "claim_key_replaced")
    again = await http.post(url, json={"name": "戊", "key": freed.json()["claim_key"]})
    # issue 16: a release revokes the seat's token; the new claim gets a new one
    assert again.json()["player_token"] != token
    event = (await http.get(f"/api/events/{code}")).json()
    assert event["tables"][1]["claimed"] == ["戊"]


async def play_to_the_end(http: httpx.AsyncClient, created: dict[str, Any]) -> list[str]:
    """Table 1 opens with a 六勃红 (over at once); table 2: a 对堂, a 四红, then a 六勃红.
    The start dice decide who throws first; returns the two winners."""
    token = created["organizer_token"]
    for number in (1, 2):
        await http.post(
            f"/api/events/{created['code']}/control",
            json={"action": "start", "table": number},
            headers=bearer(token),
        )
    one, two = created["tables"]
    first = (await http.get(f"/api/tables/{one['code']}")).json()["next"]
    assert (await throw(http, one, "444444"))["status"] == "over"
    await throw(http, two, "123456")
    await throw(http, two, "444456")
    last = (await http.get(f"/api/tables/{two['code']}")).json()["next"]
    assert (await throw(http, two, "444444"))["status"] == "over"
    return [first, last]


async def test_an_events_table_names_it_and_who_goes_on(http: httpx.AsyncClient) -> None:
    """A table's state names its event and, once over, who goes on to the 状元王中王 (its end
    screen links back instead of a rematch); each table says whether closing ends it at once
    (issue 19 minors)."""
    created = await create(http)
    code, token = created["code"], created["organizer_token"]
    one, two = created["tables"]
    state = (await http.get(f"/api/tables/{one['code']}")).json()
    assert state["event"] == code
    assert state["event_table"] == {"tables": 2, "playoff_player": None, "start_thrower": "甲"}
    assert state["close_at_once"] is None and state["only_zhuangyuan_left"] is False
    await http.post(
        f"/api/events/{code}/control",
        json={"action": "start", "table": 2},
        headers=bearer(token),
    )
    assert (await http.get(f"/api/tables/{two['code']}")).json()["close_at_once"] is True
    assert (await throw(http, two, "123456"))["close_at_once"] is False  # a round under way
    event = (await http.get(f"/api/events/{code}")).json()
    assert [t["close_at_once"] for t in event["tables"]] == [None, False]
    w1, w2 = await play_to_the_end(http, created)
    for table, winner in ((one, w1), (two, w2)):
        state = (await http.get(f"/api/tables/{table['code']}")).json()
        assert state["event_table"] == {
            "tables": 2,
            "playoff_player": winner,
            "start_thrower": table["start_thrower"],
        }
        assert state["close_at_once"] is None
    single = await create(http, tables=1)
    await http.post(
        f"/api/events/{single['code']}/control",
        json={"action": "start"},
        headers=bearer(single["organizer_token"]),
    )
    (alone,) = single["tables"]
    over = await throw(http, alone, "444444")
    assert over["status"] == "over"  # one table: no 王中王, nobody goes on
    assert over["event_table"] == {
        "tables": 1,
        "playoff_player": None,
        "start_thrower": alone["start_thrower"],
    }
    # its 组长 cannot open a rematch outside the event (the end screen offers none either)
    rematch = await http.post(
        f"/api/tables/{alone['code']}/commands",
        json={"type": "rematch", "id": "again-1"},
        headers={**bearer(alone["host_token"]), "Accept-Language": "zh-CN"},
    )
    assert rematch.status_code == 409, rematch.text
    problem = rematch.json()
    assert problem["code"] == "event_table" and problem["params"]["event"] == single["code"]
    assert "组织者" in problem["detail"]
    plain = await http.post("/api/tables", json={"name": "家里"})
    assert plain.status_code == 201, plain.text
    state = (await http.get(f"/api/tables/{plain.json()['code']}")).json()
    assert state["event"] is None and state["event_table"] is None


@BOTH_DATABASES
async def test_results_playoff_and_record(http: httpx.AsyncClient, tmp_path: Path) -> None:
    created = await create(
        http, budget={"contribution": 50, "fixed_costs": [{"name": "场地", "amount": 20}]}
    )
    code, token = created["code"], created["organizer_token"]
    playoff_url = f"/api/events/{code}/playoff"
    early = await http.post(playoff_url, json={"throws": 1}, headers=bearer(token))
    assert (early.status_code, early.json()["code"]) == (409, "tables_playing")
    w1, w2 = await play_to_the_end(http, created)
    assert (await http.post(playoff_url, json={"throws": 1})).status_code == 401
    assert (
        await http.post(playoff_url, json={"throws": 1}, headers=bearer("o_nope"))
    ).status_code == 403
    assert (
        await http.post(playoff_url, json={"throws": 0}, headers=bearer(token))
    ).status_code == 422

    results = (await http.get(f"/api/events/{code}/results")).json()
    assert set(results) >= {"people", "tables", "wangzhongwang"}
    by_name = {p["name"]: p for p in results["people"]}
    assert [p["name"] for p in results["people"]] == PEOPLE
    # the by-name list in pinyin order (bing, ding, geng, ji, jia, wu, yi), the downloads' too
    assert results["by_name"] == ["丙", "丁", "庚", "己", "甲", "戊", "乙"]
    assert by_name[w1]["table"] == 1
    # 六勃红 takes every cake of the table (traditional: take_all_end)
    assert len(by_name[w1]["prizes"]) == 1 + 2 + 2 + 2 + 3 + 4
    assert {"tier": "zhuangyuan", "name": "公仔", "value": 65} in by_name[w1]["prizes"]
    assert all(by_name[n]["prizes"] == [] for n in PEOPLE[:4] if n != w1)
    assert [t["zhuangyuan"]["player"] for t in results["tables"]] == [w1, w2]
    assert results["wangzhongwang"] is None
    event = (await http.get(f"/api/events/{code}")).json()
    assert event["all_over"] and event["playoff_field"] == [w1, w2]
    assert event["budget"]["income"] == 350 and event["budget"]["balance"] == 350 - 20 - 2 * 212

    started = await http.post(playoff_url, json={"throws": 1}, headers=bearer(token))
    assert started.status_code == 201, started.text
    playoff = started.json()
    assert playoff["players"] == [w1, w2] and playoff["code"] and playoff["host_token"]
    again = await http.post(playoff_url, json={"throws": 1}, headers=bearer(token))
    assert (again.status_code, again.json()["code"]) == (409, "playoff_exists")
    ply = {"code": playoff["code"], "host_token": playoff["host_token"]}
    # the playoff table opens with the winners seated in table order, locked and started: the
    # first table's 状元 throws first, nobody else sits down, nobody starts it again
    state = (await http.get(f"/api/tables/{ply['code']}")).json()
    assert [p["name"] for p in state["players"]] == [w1, w2]
    assert (state["status"], state["lobby_locked"], state["next"]) == ("playing", True, w1)
    assert state["event"] == code
    crasher = await http.post(f"/api/tables/{ply['code']}/join", json={"name": "路人"})
    assert (crasher.status_code, crasher.json()["code"]) == (409, "not_in_lobby")
    start = await http.post(
        f"/api/tables/{ply['code']}/commands",
        json={"type": "start", "starter": w1},
        headers=bearer(ply["host_token"]),
    )
    assert (start.status_code, start.json()["code"]) == (409, "not_in_lobby")
    await throw(http, ply, "444411")  # w1: 状元插金花
    assert (await throw(http, ply, "444456"))["status"] == "over"  # w2: 四红
    event = (await http.get(f"/api/events/{code}")).json()
    assert event["playoff"]["code"] == ply["code"] and event["playoff"]["status"] == "over"
    results = (await http.get(f"/api/events/{code}/results")).json()
    by_name = {p["name"]: p for p in results["people"]}
    assert results["wangzhongwang"] == {
        "player": w1, "hand": "chajinhua", "dice": "444411", "throw": 1,
    }  # fmt: skip
    assert by_name[w1]["prizes"][-1] == {
        "tier": "wangzhongwang", "name": "状元王中王", "value": 0,
    }  # fmt: skip

    desk = await http.get(f"/api/events/{code}/results.csv?lang=zh-Hans")
    rows = list(csv.reader(io.StringIO(desk.content.decode("utf-8-sig"))))
    assert rows[0] == ["桌号", "姓名", "组别", "奖级", "奖品", "数量", "单价", "价值"]
    assert ["1", w1, "", "状元", "公仔", "1", "65", "65"] in rows
    loser = next(n for n in PEOPLE[:4] if n != w1)
    assert ["1", loser, "", "", "（今年空手而归）", "0", "0", "0"] in rows
    book = await http.get(f"/api/events/{code}/results.xlsx?lang=en")
    assert book.headers["content-type"].startswith("application/vnd.openxmlformats")
    sheet = read_xlsx(book.content)
    assert sheet[0] == ["Table", "Name", "Group", "Tier", "Prize", "Count", "Unit value", "Value"]
    assert len(sheet) == len(rows)
    # a 六勃红's whole table is counted: one row per kind of good, not one per cake
    assert ["1", w1, "", "一秀", "可乐", "4", "2", "8"] in rows

    record = (await http.get(f"/api/events/{code}/record")).json()
    assert [t["code"] for t in record["tables"]] == [t["code"] for t in created["tables"]]
    for table in record["tables"]:
        verify_record(table["record"])
    verify_record(record["playoff"]["record"])
    path = tmp_path / "event.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    checked = subprocess.run(
        [BOBING, "verify", str(path)], capture_output=True, text=True, env=ENGLISH
    )
    assert checked.returncode == 0, checked.stderr
    assert "2 tables and the playoff" in checked.stdout
    as_json = subprocess.run(
        [BOBING, "verify", "--json", str(path)], capture_output=True, text=True, env=ENGLISH
    )
    summary = json.loads(as_json.stdout)
    assert summary["ok"] and summary["event"]["code"] == code
    assert [(t["number"], t["winner"]) for t in summary["tables"]] == [(1, w1), (2, w2), (0, w1)]
    seed = record["tables"][1]["record"]["fairness"]["server_seed"]
    record["tables"][1]["record"]["fairness"]["server_seed"] = "0" * len(seed)
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    tampered = subprocess.run(
        [BOBING, "verify", str(path)], capture_output=True, text=True, env=ENGLISH
    )
    assert tampered.returncode != 0 and "table 2" in tampered.stderr, tampered.stderr
    record["tables"][1]["record"]["fairness"]["server_seed"] = seed
    record["playoff"]["record"]["players"].reverse()  # not the table winners in table order
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    refused = subprocess.run(
        [BOBING, "verify", str(path)], capture_output=True, text=True, env=ENGLISH
    )
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert w1 in refused.stderr and w2 in refused.stderr

    following = (await http.get(f"/api/events/{code}/next")).json()
    assert following["start_thrower"] == w1 and following["previous"] == code
    assert [p["name"] for p in following["people"]] == PEOPLE
    next_year = await create(http, **{**following, "name": "明年博饼"})
    table = next(t for t in next_year["tables"] if w1 in t["players"])
    # a referee table: its 组长 types the real start dice last year's 状元 threw (RULES.md §9.4)
    typed = await http.post(
        f"/api/tables/{table['code']}/commands",
        json={"type": "start_dice", "thrower": table["start_thrower"], "dice": "34"},
        headers=bearer(table["host_token"]),
    )
    assert typed.status_code == 200, typed.text
    await http.post(
        f"/api/events/{next_year['code']}/control",
        json={"action": "start"},
        headers=bearer(next_year["organizer_token"]),
    )
    state = (await http.get(f"/api/tables/{table['code']}")).json()
    assert state["start_dice"]["thrower"] == w1


COMPANY_PRIZES = [
    {"name": "漫步者音响", "count": 1, "value": 498},
    {"name": "飞利浦电饭煲", "count": 1, "value": 199},
    {"name": "行李车", "count": 1, "value": 89},
    {"name": "手提锅", "count": 2, "value": 79},
    {"name": "飞科电吹风", "count": 2, "value": 59},
    {"name": "蒸蛋器", "count": 1, "value": 49},
    {"name": "乐扣四件套", "count": 1, "value": 49},
    {"name": "雪莲水壶等", "count": 3, "value": 27},
    {"name": "吉祥碗", "count": 1, "value": 29},
]


async def test_company_party_ranked_at_one_table_of_thirteen(http: httpx.AsyncClient) -> None:
    """The 2013 party: 13 people, one prize each by their best throw, 200 each, 1270 of prizes."""
    people = [f"员工{i}" for i in range(1, 14)]
    created = await create(
        http,
        name="公司中秋博饼",
        mode="pass_and_play",
        time_limit=30,
        people=people,
        tables=1,
        prizes=None,
        rules={
            "preset": "traditional",
            "award": "ranked",
            "ranked_prizes": COMPANY_PRIZES,
            "rounds": 1,
            "max_players": 13,
        },
        budget={
            "contribution": 200,
            "fixed_costs": [
                {"name": "会餐", "amount": 1088},
                {"name": "红酒白酒", "amount": 208},
                {"name": "小月饼", "amount": 66.6},
            ],
        },
    )
    (table,) = created["tables"]
    assert table["players"] == people and table["play_token"]
    # the party's 30-minute slot: every table of the event carries the time limit
    state = (await http.get(f"/api/tables/{table['code']}")).json()
    assert state["time_limit"] == 30
    token = created["organizer_token"]
    await http.post(
        f"/api/events/{created['code']}/control", json={"action": "start"}, headers=bearer(token)
    )
    for _ in range(13):  # one round: the server rolls every throw
        state = (await http.get(f"/api/tables/{table['code']}")).json()
        reply = await http.post(
            f"/api/tables/{table['code']}/commands",
            json={"type": "throw", "turn": state["turn"]},
            headers=bearer(table["play_token"]),
        )
        assert reply.status_code == 200, reply.text
    event = (await http.get(f"/api/events/{created['code']}")).json()
    assert event["tables"][0]["status"] == "over"
    budget = event["budget"]
    # the seed's own figures: 2600 in, 2632.6 out, the organiser covers 32.6
    assert (budget["income"], budget["spent"], budget["deficit"]) == (2600, 2632.6, 32.6)
    results = (await http.get(f"/api/events/{created['code']}/results")).json()
    held = [p["prizes"] for p in results["people"]]
    assert all(len(prizes) == 1 for prizes in held)
    assert sum(p[0]["value"] for p in held) == 1270
    ranking = event["tables"][0]["result"]["ranking"]
    first = next(p for p in results["people"] if p["name"] == ranking[0]["player"])
    assert first["prizes"] == [{"tier": None, "name": "漫步者音响", "value": 498}]
    lonely = await http.post(
        f"/api/events/{created['code']}/playoff", json={"throws": 1}, headers=bearer(token)
    )
    assert (lonely.status_code, lonely.json()["code"]) == (409, "playoff_too_small")


JUNK = [None, True, -1, 1.5, "x" * 300, [], ["a"], {}, {"a": 1}, [[1]], [{"name": ["x"]}]]


async def test_hostile_input_is_a_4xx_never_a_500(http: httpx.AsyncClient) -> None:
    good = {"name": "x", "people": ["甲", "乙", "丙", "丁"], "tables": 2}
    fields = ["name", "date", "rules", "mode", "people", "tables", "table_size", "seating",
              "prizes", "budget", "playoff_prize", "start_thrower", "previous"]  # fmt: skip
    for field in fields:
        for junk in JUNK:
            response = await http.post("/api/events", json={**good, field: junk})
            assert 200 <= response.status_code < 500, (field, junk, response.text)
    created = await create(http)
    code, token = created["code"], created["organizer_token"]
    for junk in JUNK:
        for path, body in [
            (f"/api/events/{code}/tables/1/claim", {"name": junk}),
            (f"/api/events/{code}/control", {"action": junk}),
            (f"/api/events/{code}/control", {"action": "pause", "table": junk}),
            (f"/api/events/{code}/playoff", {"throws": junk}),
            (f"/api/events/{code}/tables/1/release", {"name": junk}),
        ]:
            response = await http.post(path, json=body, headers=bearer(token))
            allowed = body.get("table", 0) is None  # no table: every table
            assert 400 <= response.status_code < 500 or allowed, (path, junk, response.text)
    # a client never makes the server read a file as rules
    for rules in ("/etc/hostname", "../pyproject.json", "x.json"):
        response = await http.post("/api/events", json={**good, "rules": rules})
        assert (response.status_code, response.json()["code"]) == (422, "invalid_rules")
    for path in ("/api/events/" + "Z" * 200, "/api/events/%00/results", "/api/events/x/record"):
        assert (await http.get(path)).status_code in (404, 422)


async def test_creating_events_and_guessing_claim_keys_are_rate_limited(tmp_path: Path) -> None:
    """Creating is limited; a claim with the right key never is (issue 29: nobody behind the
    guests' address can keep them out), a wrong key is a miss."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'limits.sqlite3'}"
    limits = Limits(create_per_minute=1, join_per_minute=1, misses_per_minute=1, tarpit_seconds=0)
    async with (
        running_server(Settings(db_url=url, limits=limits)) as server,
        httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as http,
    ):
        event = await create(http)
        body = {"name": "x", "rules": "traditional", "people": PEOPLE, "tables": 2}
        refused = await http.post("/api/events", json=body)
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        first, second = event["tables"][0]["players"][:2]
        code = event["code"]
        seats = await http.get(
            f"/api/events/{code}/seats", headers=bearer(event["organizer_token"])
        )
        key = {s["name"]: s["claim_key"] for s in seats.json()["tables"][0]["seats"]}
        claim = f"/api/events/{code}/tables/1/claim"
        wrong = await http.post(claim, json={"name": first, "key": key[second]})
        assert wrong.status_code == 403, wrong.text
        wrong = await http.post(claim, json={"name": first, "key": key[second]})
        assert wrong.status_code == 429, wrong.text
        for name in (first, second):
            claimed = await http.post(claim, json={"name": name, "key": key[name]})
            assert claimed.status_code == 201, claimed.text
