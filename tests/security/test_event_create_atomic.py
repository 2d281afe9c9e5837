"""Issue 16 and issue 17 bug 4: creating an event is all-or-nothing.

Before: the display-text rule lived twice and only the table's copy refused a name with no
visible character, so a roster with "\\u2800" passed the preview and the create failed after
some tables were made; a 409 for look-alike names left 28 unhostable tables behind. Now the
organizer's rule is the one (the table service uses it), everything is checked before a table
is made, and a create that still fails deletes what it made. Real ``bobing serve`` processes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sectools import NO_LIMITS, problem_of, served


def _tables(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM bobing_tables").fetchone()[0])


def _body(people: list[str]) -> dict[str, object]:
    return {"name": "全有全无", "rules": "traditional", "people": people, "tables": 2,
            "seating": "in_order"}  # fmt: skip


async def test_an_invisible_name_is_refused_at_preview_and_creates_nothing(
    tmp_path: Path,
) -> None:
    people = ["甲", "乙", "丙", "丁", "戊", "\u2800"]
    async with served(tmp_path, *NO_LIMITS) as server:
        preview = await server.http.post("/api/events/preview", json=_body(people))
        problem = problem_of(preview, 422, "invalid_event")
        assert "visible" in problem["detail"] or "看得见" in problem["detail"], problem
        created = await server.http.post("/api/events", json=_body(people))
        problem_of(created, 422, "invalid_event")
        assert _tables(server.db_path) == 0
        # The table service applies the same rule.
        table = await server.http.post("/api/tables", json={"name": "\u2800"})
        problem_of(table, 422, "invalid_name")


async def test_look_alike_names_leave_no_tables_behind(tmp_path: Path) -> None:
    # "A" and "A" + U+200D look the same: they could not sit at one table.
    people = ["A", "A\u200d", "丙", "丁", "戊", "己", "庚", "辛"]
    async with served(tmp_path, *NO_LIMITS) as server:
        created = await server.http.post("/api/events", json=_body(people))
        problem_of(created, 409, "names_look_alike")
        assert _tables(server.db_path) == 0
        assert (
            await server.http.post("/api/events/preview", json=_body(people))
        ).status_code == 409


async def test_a_table_failing_midway_leaves_nothing(tmp_path: Path) -> None:
    """Should a table still fail after the checks (the database, say), the tables already made
    are deleted with their logs and seats: nothing of the event is left."""
    from typing import Any

    import pytest

    from bobing.gatherings.service import GatheringService
    from bobing.realtime.backends import get_broker
    from bobing.storage import Database, EventStore
    from bobing.storage.gatherings import GatheringStore
    from bobing.tables.service import TableService

    db_path = tmp_path / "bobing.sqlite3"
    db = Database(f"sqlite+aiosqlite:///{db_path}")
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    await broker.start()
    tables = TableService(store, broker)
    made = 0
    real = tables.create_table

    async def flaky(**kwargs: Any) -> Any:
        nonlocal made
        made += 1
        if made == 3:
            raise OSError("the disk is full")
        return await real(**kwargs)

    tables.create_table = flaky  # type: ignore[method-assign]
    service = GatheringService(tables, GatheringStore(db))
    try:
        body = _body([f"客{n}" for n in range(12)]) | {"tables": 4}
        with pytest.raises(OSError):
            await service.create(body)
        assert made == 4  # every table was tried (none still running when the rest go)
        assert _tables(db_path) == 0
        with sqlite3.connect(db_path) as conn:
            for table in ("bobing_events", "bobing_seats", "bobing_gatherings"):
                assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
    finally:
        await tables.close()
        await store.close()
        await broker.close()
        await db.dispose()
