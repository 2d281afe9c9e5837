"""Issue 16, low: after PostgreSQL drops the pool's connections the next request still works.

Before the fix the first query on each dropped pooled connection failed (one 503 per instance
after a PostgreSQL restart or ``pg_terminate_backend``); the pool now pings at checkout.
"""

from __future__ import annotations

import importlib.util
import uuid
from pathlib import Path

from sqlalchemy import text

from bobing.storage import Database, EventStore


def need_postgres() -> str:
    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("bobing_tests_root_conftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    url: str = module.need_postgres()
    return url


async def end_pooled_connection(db: Database, other: Database) -> None:
    """End, from ``other``, the one connection ``db``'s pool holds (only that one: the
    server is shared with other tests)."""
    async with db.engine.connect() as conn:
        pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
    async with other.engine.connect() as conn:
        ended = await conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        assert ended.scalar_one() is True


async def test_a_terminated_pooled_connection_is_replaced_at_checkout() -> None:
    url = need_postgres()
    db = Database(url, schema=f"bobing_test_{uuid.uuid4().hex[:12]}")
    other = Database(url)
    await db.migrate()
    store = EventStore(db)
    try:
        await end_pooled_connection(db, other)
        async with db.engine.connect() as conn:
            assert (await conn.execute(text("SELECT 1"))).scalar_one() == 1
        # And through the store, as a request would.
        await end_pooled_connection(db, other)
        assert await store.load("NOSUCH") is None
    finally:
        await store.close()
        await db.drop_schema()
        await db.dispose()
        await other.dispose()
