"""Issue 16, low: after PostgreSQL drops the pool's connections the next request still works.

Before the fix the first query on each dropped pooled connection failed (one 503 per instance
after a PostgreSQL restart or ``pg_terminate_backend``); the pool now pings at checkout, in one
round trip (issue 21). The commit pool, one checkout a batch of throws, sends no ping (issue
32): it checks out no connection it knows closed, and runs a batch again on another connection
where PostgreSQL ended the first without running it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from asyncpg import Connection
from asyncpg.transaction import Transaction
from sqlalchemy import text

from bobing.storage import Append, Database, EventStore, Seat
from tests.storage.storetools import table_info


def need_postgres() -> str:
    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("bobing_tests_root_conftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    url: str = module.need_postgres()
    return url


async def end_pooled_connection(db: Database, other: Database, *, commit: bool = False) -> None:
    """End, from ``other``, the one connection ``db``'s pool holds (its commit pool's with
    ``commit``; only that one: the server is shared with other tests)."""
    engine = db.commit_engine if commit else db.engine
    async with engine.connect() as conn:
        pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
    async with other.engine.connect() as conn:
        ended = await conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        assert ended.scalar_one() is True


@contextlib.asynccontextmanager
async def store_and_other() -> AsyncIterator[tuple[Database, EventStore, Database]]:
    """A store on a fresh schema of the test PostgreSQL, and another database handle to end
    its connections from; all dropped and closed after."""
    url = need_postgres()
    db = Database(url, schema=f"bobing_test_{uuid.uuid4().hex[:12]}")
    other = Database(url)
    await db.migrate()
    store = EventStore(db)
    try:
        yield db, store, other
    finally:
        await store.close()
        await db.drop_schema()
        await db.dispose()
        await other.dispose()


def count_round_trips(monkeypatch: pytest.MonkeyPatch, calls: list[str]) -> None:
    """Name in ``calls`` each query asyncpg's connections send, as it is sent (a transaction's
    as BEGIN and ROLLBACK)."""

    def counting(name: str, method: Any) -> Any:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return await method(*args, **kwargs)

        return wrapper

    for name in ("execute", "fetch", "fetchrow", "fetchval"):
        monkeypatch.setattr(Connection, name, counting(name, getattr(Connection, name)))
    monkeypatch.setattr(Transaction, "start", counting("BEGIN", Transaction.start))
    monkeypatch.setattr(Transaction, "rollback", counting("ROLLBACK", Transaction.rollback))


async def test_a_terminated_pooled_connection_is_replaced_at_checkout() -> None:
    async with store_and_other() as (db, store, other):
        await end_pooled_connection(db, other)
        async with db.engine.connect() as conn:
            assert (await conn.execute(text("SELECT 1"))).scalar_one() == 1
        # And through the store, as a request would.
        await end_pooled_connection(db, other)
        assert await store.load("NOSUCH") is None


async def test_a_batch_commits_after_its_pooled_connection_was_terminated() -> None:
    """Both commit paths (one statement; a transaction, for seat changes), whether the pool
    saw the connection close before the checkout or the batch met PostgreSQL's goodbye."""
    async with store_and_other() as (db, store, other):
        await store.create_table(table_info("ABC234"), [{"type": "table_created"}])
        seq = 1
        for seats in (None, [Seat("甲", 1, "t1" * 32)], None, [Seat("乙", 1, "t2" * 32)]):
            await end_pooled_connection(db, other, commit=True)
            stored = await store.append(Append("ABC234", seq, [{"type": "x"}], seats=seats))
            seq = stored[-1].seq
        assert seq == 5
        snapshot = await store.load("ABC234")
        assert snapshot is not None
        assert [e.seq for e in snapshot.events] == [1, 2, 3, 4, 5]
        assert snapshot.seats == (Seat("乙", 1, "t2" * 32),)


async def test_a_commit_takes_one_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch's one statement, and no ping before it (issue 32)."""
    calls: list[str] = []
    async with store_and_other() as (_db, store, _other):
        await store.create_table(table_info("ABC234"), [{"type": "table_created"}])
        await store.append(Append("ABC234", 1, [{"type": "x"}]))  # the pool's connection made
        count_round_trips(monkeypatch, calls)
        await store.append(Append("ABC234", 2, [{"type": "y"}]))
        assert calls == ["fetch"]


async def test_checkout_and_a_read_take_one_round_trip_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 21: under load every round trip is an event-loop turn a pooled connection stays
    out for. The checkout's ping is one query (the driver's own ping wraps it in BEGIN and
    ROLLBACK), and a read runs without a transaction (BEGIN and ROLLBACK are two more)."""
    url = need_postgres()
    db = Database(url)
    calls: list[str] = []

    try:
        async with db.connect() as conn:  # a fresh connection, then pooled
            await conn.execute(text("SELECT 1"))
        count_round_trips(monkeypatch, calls)
        async with db.connect() as conn:
            assert calls == ["execute"]  # the ping
            raw = await conn.get_raw_connection()
            assert (await conn.execute(text("SELECT 2"))).scalar_one() == 2
            assert raw.driver_connection is not None
            assert not raw.driver_connection.is_in_transaction()
        assert "BEGIN" not in calls and "ROLLBACK" not in calls
    finally:
        await db.dispose()
