"""The organiser's customs over REST on a real server, SQLite and PostgreSQL (RULES.md §9.4):
the check-in at the door and the no-shows, per-table start throwers (never server-rolled at a
referee table), a refunded surplus, and next year named by this year's 状元 with donated 会饼."""

from __future__ import annotations

import csv
import io
import zipfile
from typing import Any

import httpx
from test_event_routes import bearer, create, http, throw

__all__ = ["http"]  # the SQLite and PostgreSQL server fixture

ROSTER = [
    {"name": "甲", "paid": True, "elder": True},
    {"name": "乙", "paid": True},
    {"name": "丙", "paid": True, "leader": True},
    {"name": "丁", "paid": True},
    {"name": "戊", "paid": True, "elder": True},
    {"name": "己", "paid": True},
    {"name": "庚", "paid": True},  # paid, then did not come
    {"name": "辛", "paid": False},  # did not pay, did not come
]
PRESENT = ["甲", "乙", "丙", "丁", "戊", "己"]
SET_VALUE = 65 + 80 + 40 + 10 + 9 + 8


async def checked_in_event(http: httpx.AsyncClient) -> tuple[dict[str, Any], dict[str, Any]]:
    """An event that seats the people who came: 6 of 8 check in, then the tables are made."""
    created = await create(
        http,
        people=ROSTER,
        check_in=True,
        start_thrower="elder",
        budget={
            "contribution": 100,
            "fixed_costs": [{"name": "场地", "amount": 1}],
            "surplus": "refund",
        },
    )
    assert created["tables"] == []
    code, token = created["code"], created["organizer_token"]
    url = f"/api/events/{code}/checkin"
    assert (await http.post(url, json={"name": "甲"})).status_code == 401
    unknown = await http.post(url, json={"name": "某人"}, headers=bearer(token))
    assert (unknown.status_code, unknown.json()["code"]) == (422, "unknown_player")
    for name in [*PRESENT, "庚"]:
        answer = await http.post(url, json={"name": name}, headers=bearer(token))
        assert answer.json() == {"name": name, "present": True}
    # a wrong tick undone
    await http.post(url, json={"name": "庚", "present": False}, headers=bearer(token))
    before = (await http.get(f"/api/events/{code}")).json()
    assert before["check_in"] == {"open": True, "present": PRESENT, "no_shows": []}
    assert before["tables"] == [] and before["all_over"] is False
    seated = await http.post(f"/api/events/{code}/seat", headers=bearer(token))
    assert seated.status_code == 201, seated.text
    again = await http.post(f"/api/events/{code}/seat", headers=bearer(token))
    assert (again.status_code, again.json()["code"]) == (409, "already_seated")
    late = await http.post(url, json={"name": "庚"}, headers=bearer(token))
    assert (late.status_code, late.json()["code"]) == (409, "already_seated")
    return created, seated.json()


async def test_check_in_seats_only_the_people_present(http: httpx.AsyncClient) -> None:
    created, seated = await checked_in_event(http)
    tables = seated["tables"]
    assert [t["players"] for t in tables] == [["甲", "乙", "丙"], ["丁", "戊", "己"]]
    # the elder of each table throws its start dice
    assert [t["start_thrower"] for t in tables] == ["甲", "戊"]
    event = (await http.get(f"/api/events/{created['code']}")).json()
    assert event["check_in"]["open"] is False
    assert event["check_in"]["no_shows"] == [{"name": "庚", "paid": 100}, {"name": "辛", "paid": 0}]
    budget = event["budget"]
    # income counts everyone who paid (庚 too), not only the people present
    assert (budget["people"], budget["income"]) == (7, 700)
    assert budget["spent"] == 1 + 2 * SET_VALUE and budget["surplus_use"] == "refund"
    refunds = budget["refunds"]
    assert [r["name"] for r in refunds] == ["甲", "乙", "丙", "丁", "戊", "己", "庚"]
    assert round(sum(r["amount"] * 100 for r in refunds)) == round(budget["surplus"] * 100)
    # RULES.md §10.1: the paid no-show (庚) gets nothing back, and the list says why
    assert refunds[-1] == {"name": "庚", "amount": 0, "no_show": True}
    came = refunds[:-1]
    assert not any(r.get("no_show") for r in came)
    assert max(r["amount"] for r in came) - min(r["amount"] for r in came) <= 0.011
    assert min(r["amount"] for r in came) >= budget["surplus"] // 6
    # the results and both downloads list the no-shows and the refunds
    results = (await http.get(f"/api/events/{created['code']}/results")).json()
    assert results["money"]["no_shows"] == event["check_in"]["no_shows"]
    assert results["money"]["refunds"] == refunds
    desk = await http.get(f"/api/events/{created['code']}/results.csv?lang=zh-Hans")
    rows = list(csv.reader(io.StringIO(desk.text.lstrip("\ufeff"))))
    assert ["已交费未到场"] in rows and ["庚", "100"] in rows and ["退还"] in rows
    book = await http.get(f"/api/events/{created['code']}/results.xlsx?lang=en")
    with zipfile.ZipFile(io.BytesIO(book.content)) as archive:
        workbook = archive.read("xl/workbook.xml").decode()
        money = archive.read("xl/worksheets/sheet4.xml").decode()
    assert 'name="Money"' in workbook
    assert "Paid, did not come" in money and "Refund" in money


async def test_a_referee_table_never_rolls_the_start_dice(http: httpx.AsyncClient) -> None:
    created, seated = await checked_in_event(http)
    code, token = created["code"], created["organizer_token"]
    first = seated["tables"][0]
    # one table's start thrower chosen on the dashboard: a mode or a name at that table
    url = f"/api/events/{code}/tables/2/start_thrower"
    assert (await http.post(url, json={"start_thrower": "己"})).status_code == 401
    chosen = await http.post(url, json={"start_thrower": "己"}, headers=bearer(token))
    assert chosen.json() == {"table": 2, "start_thrower": "己"}
    elsewhere = await http.post(url, json={"start_thrower": "甲"}, headers=bearer(token))
    assert (elsewhere.status_code, elsewhere.json()["code"]) == (422, "invalid_event")
    back = await http.post(url, json={"start_thrower": "elder"}, headers=bearer(token))
    assert back.json()["start_thrower"] == "戊"
    event = (await http.get(f"/api/events/{code}")).json()
    assert [t["start_thrower"] for t in event["tables"]] == ["甲", "戊"]
    typed = await http.post(
        f"/api/tables/{first['code']}/commands",
        json={"type": "start_dice", "thrower": first["start_thrower"], "dice": "66"},
        headers=bearer(first["host_token"]),
    )
    assert typed.status_code == 200, typed.text
    everyone = await http.post(
        f"/api/events/{code}/control", json={"action": "start"}, headers=bearer(token)
    )
    assert [t["status"] for t in everyone.json()["tables"]] == ["playing", "playing"]
    one = (await http.get(f"/api/tables/{first['code']}")).json()
    assert one["start_dice"]["dice"] == [6, 6] and one["start_dice"]["thrower"] == "甲"
    other = (await http.get(f"/api/tables/{seated['tables'][1]['code']}")).json()
    assert other["start_dice"] is None  # nobody typed them: nothing was rolled
    late = await http.post(
        f"/api/events/{code}/tables/1/start_thrower",
        json={"start_thrower": "乙"},
        headers=bearer(token),
    )
    assert (late.status_code, late.json()["code"]) == (409, "not_in_lobby")


async def test_online_tables_roll_for_their_own_start_thrower(http: httpx.AsyncClient) -> None:
    people = [{"name": n, "leader": n in ("乙", "戊")} for n in "甲乙丙丁戊己"]
    created = await create(
        http, people=people, mode="online", start_thrower=["己", "leader"], seating="in_order"
    )
    assert [t["start_thrower"] for t in created["tables"]] == ["乙", "己"]
    await http.post(
        f"/api/events/{created['code']}/control",
        json={"action": "start"},
        headers=bearer(created["organizer_token"]),
    )
    for table in created["tables"]:
        state = (await http.get(f"/api/tables/{table['code']}")).json()
        assert state["start_dice"]["thrower"] == table["start_thrower"]
    bad = await http.post(
        "/api/events", json={"name": "x", "people": ["甲", "乙"], "start_thrower": "elderly"}
    )
    assert (bad.status_code, bad.json()["code"]) == (422, "invalid_event")


async def test_next_year_is_named_by_every_tables_zhuangyuan(http: httpx.AsyncClient) -> None:
    created = await create(http)
    code, token = created["code"], created["organizer_token"]
    for number in (1, 2):
        await http.post(
            f"/api/events/{code}/control",
            json={"action": "start", "table": number},
            headers=bearer(token),
        )
    one, two = created["tables"]
    assert (await throw(http, one, "444444"))["status"] == "over"
    # nothing is named while a table is still playing
    early = (await http.get(f"/api/events/{code}/next")).json()
    assert (early["organizers"], early["donated_sets"], early["start_thrower"]) == ([], [], None)
    await throw(http, two, "123456")
    assert (await throw(http, two, "444444"))["status"] == "over"
    event = (await http.get(f"/api/events/{code}")).json()
    winners = [t["zhuangyuan"]["player"] for t in event["tables"]]
    assert winners == [one["players"][0], two["players"][1]]
    following = (await http.get(f"/api/events/{code}/next")).json()
    assert following["organizers"] == winners
    assert following["start_thrower"] == winners
    assert following["donated_sets"] == [{"name": n, "new_son": False} for n in winners]
    # a family with a new son gives two sets: both tables' 会饼 are donated, costing nothing
    following["donated_sets"][0]["new_son"] = True
    following["budget"] = {"contribution": 50}
    next_year = await create(http, **{**following, "name": "明年博饼", "mode": "online"})
    for table in next_year["tables"]:
        at_table = [w for w in winners if w in table["players"]]
        assert table["start_thrower"] == (at_table[0] if at_table else table["players"][0])
    event = (await http.get(f"/api/events/{next_year['code']}")).json()
    assert event["organizers"] == winners
    budget = event["budget"]
    assert [d["sets"] for d in budget["donated_sets"]] == [2, 1]
    assert budget["prizes"] == 0 and budget["income"] == 50 * 7
    results = (await http.get(f"/api/events/{next_year['code']}/results")).json()
    assert [d["name"] for d in results["money"]["donated_sets"]] == winners
    # a playoff names its 王中王 alone
    assert (await http.get(f"/api/events/{next_year['code']}/next")).json()["organizers"] == []


JUNK = [None, True, -1, 1.5, "x" * 300, [], ["a"], {}, {"a": 1}, [[1]], [{"name": ["x"]}]]


async def test_hostile_customs_are_a_4xx_never_a_500(http: httpx.AsyncClient) -> None:
    good = {"name": "x", "people": ["甲", "乙", "丙", "丁"], "tables": 2}
    for field in ("check_in", "organizers", "donated_sets", "start_thrower", "budget"):
        for junk in [*JUNK, [{"name": "甲", "new_son": 1}], {"surplus": "x"}]:
            response = await http.post("/api/events", json={**good, field: junk})
            assert 200 <= response.status_code < 500, (field, junk, response.text)
    plain = await create(http)
    code, token = plain["code"], plain["organizer_token"]
    no_door = await http.post(
        f"/api/events/{code}/checkin", json={"name": "甲"}, headers=bearer(token)
    )
    assert (no_door.status_code, no_door.json()["code"]) == (409, "no_check_in")
    no_seat = await http.post(f"/api/events/{code}/seat", headers=bearer(token))
    assert (no_seat.status_code, no_seat.json()["code"]) == (409, "no_check_in")
    door = await create(http, check_in=True)
    for junk in JUNK:
        for path, body in [
            (f"/api/events/{door['code']}/checkin", {"name": junk}),
            (f"/api/events/{door['code']}/checkin", {"name": "甲", "present": junk}),
            (f"/api/events/{code}/tables/1/start_thrower", {"start_thrower": junk}),
        ]:
            response = await http.post(
                path,
                json=body,
                headers=bearer(door["organizer_token"] if "checkin" in path else token),
            )
            # present: true is a tick; no start thrower is the first seat
            allowed = body.get("present") is True or ("start_thrower" in body and junk is None)
            assert 400 <= response.status_code < 500 or allowed, (path, junk, response.text)
    # too few people came: the model's sentence, nothing seated
    few = await http.post(
        f"/api/events/{door['code']}/seat", headers=bearer(door["organizer_token"])
    )
    assert (few.status_code, few.json()["code"]) == (422, "invalid_event")
