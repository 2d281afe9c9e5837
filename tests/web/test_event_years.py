"""历届 over REST (RULES.md §10.3): an event made from last year's ``/next`` keeps the link, and
``GET /api/events/{code}/years`` names every earlier year — its date, 状元 or 王中王, organisers
and who gave its 会饼 — following the links back, last year first."""

from __future__ import annotations

from typing import Any

import httpx
from test_event_routes import BOTH_DATABASES, bearer, create, http, throw

__all__ = ["http"]  # the SQLite and PostgreSQL server fixture


async def play_out(http: httpx.AsyncClient, created: dict[str, Any]) -> list[str]:
    """Start every table and end it: table 1's first seat and table 2's second seat are 状元."""
    await http.post(
        f"/api/events/{created['code']}/control",
        json={"action": "start"},
        headers=bearer(created["organizer_token"]),
    )
    one, two = created["tables"]
    assert (await throw(http, one, "444444"))["status"] == "over"
    await throw(http, two, "123456")
    assert (await throw(http, two, "444444"))["status"] == "over"
    return [one["players"][0], two["players"][1]]


@BOTH_DATABASES
async def test_three_years_of_one_family(http: httpx.AsyncClient) -> None:
    first = await create(http, name="2024 中秋")
    winners = await play_out(http, first)
    following = (await http.get(f"/api/events/{first['code']}/next")).json()
    assert following["previous"] == first["code"]
    second = await create(http, **{**following, "name": "2025 中秋", "date": "2025-10-06"})
    assert (await http.get(f"/api/events/{second['code']}")).json()["previous"] == first["code"]
    await play_out(http, second)
    playoff = await http.post(
        f"/api/events/{second['code']}/playoff",
        json={"throws": 1},
        headers=bearer(second["organizer_token"]),
    )
    assert playoff.status_code == 201, playoff.text
    field = playoff.json()["players"]
    table = {"code": playoff.json()["code"], "host_token": playoff.json()["host_token"]}
    await throw(http, table, "444411")  # the first of the field: 状元插金花
    assert (await throw(http, table, "444456"))["status"] == "over"
    third = await create(
        http, **{**(await http.get(f"/api/events/{second['code']}/next")).json(), "name": "2026"}
    )

    answer = (await http.get(f"/api/events/{third['code']}/years")).json()
    assert answer["year"]["code"] == third["code"]
    assert answer["year"]["champions"] is None  # not played yet
    assert answer["year"]["organizers"] == [field[0]]
    last, eldest = answer["years"]
    assert last == {
        "code": second["code"],
        "name": "2025 中秋",
        "date": "2025-10-06",
        "champions": [field[0]],
        "wangzhongwang": True,
        "ranked": False,
        "organizers": winners,
        "donors": winners,
    }
    made = (await http.get(f"/api/events/{first['code']}")).json()["created_at"][:10]
    assert eldest == {
        "code": first["code"],
        "name": "2024 中秋",
        "date": made,  # no date of its own: the day it was made
        "champions": winners,
        "wangzhongwang": False,
        "ranked": False,
        "organizers": [],
        "donors": [],
    }
    # the first year has none before it; its own row is the one its successors show
    alone = (await http.get(f"/api/events/{first['code']}/years")).json()
    assert alone == {"year": eldest, "years": []}


async def test_a_link_to_no_event_is_refused(http: httpx.AsyncClient) -> None:
    answer = await http.post(
        "/api/events",
        json={"name": "x", "people": ["甲", "乙"], "tables": 1, "previous": "ZZZZZZ"},
        headers={"Accept-Language": "zh-Hans"},
    )
    assert (answer.status_code, answer.json()["code"]) == (404, "event_not_found"), answer.text
    assert "ZZZZZZ" in answer.json()["detail"]
    missing = await http.get("/api/events/ZZZZZZ/years")
    assert (missing.status_code, missing.json()["code"]) == (404, "event_not_found")
