"""Issue 16: an event's tables no longer skip the open-table quota.

Before: tables made by ``POST /api/events`` carried no creator, so one address held 600 open
tables at the default limits. Now every address may have ``open_events_per_address`` (3) events
open at once, an event's tables counting as that one event: a 30-table evening fits, ten
4-table events do not. A real ``bobing serve`` with the rate limits off.
"""

from __future__ import annotations

from pathlib import Path

from sectools import NO_LIMITS, problem_of, served


def _body(tables: int) -> dict[str, object]:
    people = [f"客{n:03d}" for n in range(tables * 2)]
    return {"name": "配额", "rules": "traditional", "people": people, "tables": tables}


async def test_open_events_per_address(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        big = await server.http.post("/api/events", json=_body(30))
        assert big.status_code == 201, big.text
        events = [big.json()]
        for _ in range(2):
            small = await server.http.post("/api/events", json=_body(4))
            assert small.status_code == 201, small.text
            events.append(small.json())
        refused = await server.http.post("/api/events", json=_body(4))
        problem = problem_of(refused, 429, "too_many_events")
        assert problem["params"]["limit"] == 3
        # An event's tables are not counted as tables: a table of its own still opens.
        table = await server.http.post("/api/tables", json={"name": "独桌"})
        assert table.status_code == 201, table.text
        # Ending an event frees its place.
        last = events[-1]
        closed = await server.http.post(
            f"/api/events/{last['code']}/control",
            json={"action": "close"},
            headers={"Authorization": f"Bearer {last['organizer_token']}"},
        )
        assert closed.status_code == 200, closed.text
        again = await server.http.post("/api/events", json=_body(4))
        assert again.status_code == 201, again.text


async def test_the_event_quota_is_a_limit(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS, "open_events_per_address=1") as server:
        assert (await server.http.post("/api/events", json=_body(2))).status_code == 201
        refused = await server.http.post("/api/events", json=_body(2))
        problem_of(refused, 429, "too_many_events")
