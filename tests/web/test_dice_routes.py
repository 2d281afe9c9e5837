"""Are these dice fair? (RULES.md §10.3) over REST: a referee table's check and the event's,
on a real server and SQLite; the numbers are those of ``bobing dice-check`` on the records."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtools import TIMEOUT, create_table, running_server

from bobing.analysis.dice_check import MIN_THROWS, check_record
from bobing.tables.limits import Limits
from bobing.web.settings import Settings

UNLIMITED = Limits(
    create_per_minute=0, join_per_minute=0, open_tables_per_address=0, open_events_per_address=0
)
NOTHING = "112356"  # no 4, no hand: a throw that never ends a game, with no 4 at all


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'dice.sqlite3'}"
    async with (
        running_server(Settings(db_url=url, limits=UNLIMITED)) as server,
        httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as client,
    ):
        yield client


async def throw(http: httpx.AsyncClient, table: dict[str, Any], dice: str) -> None:
    state = (await http.get(f"/api/tables/{table['code']}")).json()
    assert state["status"] == "playing"
    response = await http.post(
        f"/api/tables/{table['code']}/commands",
        json={"type": "throw", "turn": state["turn"], "dice": dice},
        headers={"Authorization": f"Bearer {table['host_token']}"},
    )
    assert response.status_code == 200, response.text


async def test_referee_tables_and_the_event_say_whether_the_dice_look_fair(
    http: httpx.AsyncClient,
) -> None:
    body = {
        "name": "中秋博饼",
        "rules": "traditional",
        "mode": "referee",
        "people": ["甲", "乙", "丙", "丁", "戊", "己"],
        "tables": 2,
        "seating": "in_order",
    }
    created = (await http.post("/api/events", json=body)).json()
    code, token = created["code"], created["organizer_token"]
    await http.post(
        f"/api/events/{code}/control",
        json={"action": "start"},
        headers={"Authorization": f"Bearer {token}"},
    )
    one, two = created["tables"]
    for _ in range(MIN_THROWS):
        await throw(http, one, NOTHING)
    for dice in ("123456", "444412", "235566"):
        await throw(http, two, dice)

    checks = []
    for table in (one, two):
        record = (await http.get(f"/api/tables/{table['code']}/record")).json()
        got = (await http.get(f"/api/tables/{table['code']}/dice")).json()
        assert got == {"real_dice": True, **check_record(record).report("zh-Hans")}
        checks.append(check_record(record))
    first = (await http.get(f"/api/tables/{one['code']}/dice?lang=en")).json()
    assert first["verdict"] == "suspect" and first["throws"] == MIN_THROWS
    assert first["faces"] == {"1": 120, "2": 60, "3": 60, "4": 0, "5": 60, "6": 60}
    assert first["text"] == "1 shows more often than fair dice would (p < 0.001)"
    second = (await http.get(f"/api/tables/{two['code']}/dice")).json()
    assert second["verdict"] == "too_few" and second["dice"] == 18
    assert second["text"] == "掷数太少，还看不出（3 掷；至少要 60 掷）"

    results = (
        await http.get(f"/api/events/{code}/results", headers={"Accept-Language": "en"})
    ).json()
    whole = checks[0] + checks[1]
    assert results["dice"] == {
        "event": whole.report("en"),
        "tables": [
            {"number": 1, **checks[0].report("en")},
            {"number": 2, **checks[1].report("en")},
        ],
    }
    assert results["dice"]["event"]["throws"] == MIN_THROWS + 3


async def test_server_dice_are_not_real_dice(http: httpx.AsyncClient) -> None:
    table = await create_table(http, mode="pass_and_play")
    got = (await http.get(f"/api/tables/{table['code']}/dice")).json()
    assert got["real_dice"] is False and got["verdict"] == "too_few" and got["dice"] == 0
    missing = await http.get("/api/tables/ZZZZZZ/dice")
    assert missing.status_code == 404
    event = {"name": "x", "mode": "pass_and_play", "people": ["甲", "乙"], "tables": 1}
    created = (await http.post("/api/events", json=event)).json()
    results = (await http.get(f"/api/events/{created['code']}/results")).json()
    assert results["dice"] == {"event": None, "tables": []}
