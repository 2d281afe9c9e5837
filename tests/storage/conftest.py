"""Storage tests run against SQLite and against the real PostgreSQL (a fresh schema each)."""

from __future__ import annotations

import importlib.util
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType

import pytest

from bobing.storage import Database, EventStore


def _root_conftest() -> ModuleType:
    # tests/conftest.py is not importable by name (every conftest.py is "conftest").
    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("bobing_tests_root_conftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


need_postgres = _root_conftest().need_postgres


@pytest.fixture(params=["sqlite", "postgresql"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        database = Database(f"sqlite+aiosqlite:///{tmp_path / 'store.sqlite3'}")
    else:
        url = need_postgres()
        database = Database(url, schema=f"bobing_test_{uuid.uuid4().hex[:12]}")
    await database.migrate()
    try:
        yield database
    finally:
        if database.dialect == "postgresql":
            await database.drop_schema()
        await database.dispose()


@pytest.fixture
async def store(db: Database) -> AsyncIterator[EventStore]:
    events = EventStore(db)
    try:
        yield events
    finally:
        await events.close()
