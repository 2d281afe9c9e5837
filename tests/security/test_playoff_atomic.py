"""The 状元王中王 is made whole or not at all (issue 19): its table opens seated, locked and
started, and a playoff that cannot be stored (a second request won the race, or the database
failed) leaves no table behind."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bobing.gatherings.service import GatheringService
from bobing.realtime.backends import get_broker
from bobing.storage import Database, EventStore
from bobing.storage.gatherings import GatheringStore
from bobing.tables.problems import ApiError
from bobing.tables.protocol import Command
from bobing.tables.service import TableService
from bobing.tables.tokens import hash_token

BODY = {"name": "王中王", "rules": "traditional", "mode": "referee", "tables": 2,
        "people": ["甲", "乙", "丙", "丁", "戊", "己"], "seating": "in_order"}  # fmt: skip


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GatheringService]:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}")
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    await broker.start()
    tables = TableService(store, broker)
    try:
        yield GatheringService(tables, GatheringStore(db))
    finally:
        await tables.close()
        await store.close()
        await broker.close()
        await db.dispose()


def _tables(tmp_path: Path) -> list[str]:
    with sqlite3.connect(tmp_path / "bobing.sqlite3") as conn:
        return [row[0] for row in conn.execute("SELECT code FROM bobing_tables")]


async def _all_over(service: GatheringService) -> tuple[str, str, list[str]]:
    """An event whose two tables each ended with a 六勃红: its code, token and winners."""
    created = await service.create(BODY)
    code, token = created["code"], created["organizer_token"]
    await service.control(code, f"Bearer {token}", "start")
    winners = []
    for table in created["tables"]:
        runtime = await service.tables.runtime(table["code"])
        assert runtime.game is not None
        winners.append(runtime.game.next_player)
        throw = Command("throw", None, {"turn": 1, "dice": "444444"})
        await service.tables.execute(table["code"], throw, [hash_token(table["host_token"])])
    return code, token, winners


async def test_the_playoff_opens_seated_locked_and_started(
    service: GatheringService, tmp_path: Path
) -> None:
    code, token, winners = await _all_over(service)
    playoff = await service.playoff(code, f"Bearer {token}", 1)
    runtime = await service.tables.fresh_runtime(playoff["code"])
    assert runtime.names == winners == playoff["players"]
    assert (runtime.status, runtime.locked, runtime.info.gathering) == ("playing", True, code)
    assert runtime.game is not None and runtime.game.next_player == winners[0]
    with pytest.raises(ApiError) as refused:
        await service.tables.join(playoff["code"], "路人")
    assert refused.value.code == "not_in_lobby"


@pytest.mark.parametrize("failure", ["lost_the_race", "database"])
async def test_a_playoff_that_cannot_be_stored_leaves_no_table(
    service: GatheringService, tmp_path: Path, failure: str
) -> None:
    code, token, _ = await _all_over(service)
    before = _tables(tmp_path)

    async def set_playoff(event: str, record: dict[str, Any]) -> bool:
        if failure == "database":
            raise OSError("the disk is full")
        return False  # another request stored its playoff first

    service.store.set_playoff = set_playoff  # type: ignore[method-assign]
    with pytest.raises((ApiError, OSError)) as failed:
        await service.playoff(code, f"Bearer {token}", 1)
    if failure == "lost_the_race":
        assert isinstance(failed.value, ApiError) and failed.value.code == "playoff_exists"
    assert _tables(tmp_path) == before
