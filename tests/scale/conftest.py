"""Fixtures of the multi-instance tests: real ``bobing serve`` processes on the real
PostgreSQL (a fresh schema per test) and Redis, clients on real WebSockets."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))

from scaletools import Cluster, Instance, PrivateRedis
from webtools import close_clients, root_conftest

from bobing.storage.db import Database

_root = root_conftest()


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    await close_clients()


@pytest.fixture
def postgres_url() -> str:
    return str(_root.need_postgres())


@pytest.fixture
def redis_url() -> str:
    return str(_root.need_redis())


@pytest.fixture
async def schema(postgres_url: str) -> AsyncIterator[str]:
    name = f"bobing_scale_{uuid.uuid4().hex[:12]}"
    yield name
    database = Database(postgres_url, schema=name)
    try:
        await database.drop_schema()
    finally:
        await database.dispose()


@pytest.fixture
def cluster(postgres_url: str, schema: str, tmp_path: Path) -> Iterator[Cluster]:
    """``cluster(n, broker_url)``: n started instances sharing one database schema."""
    started: list[Instance] = []

    def make(count: int, broker: str, limits: tuple[str, ...] = ()) -> list[Instance]:
        made = []
        for _ in range(count):
            name = "abcdefgh"[len(started)]
            instance = Instance(name, postgres_url, schema, broker, tmp_path, limits=limits)
            started.append(instance)
            instance.start()
            made.append(instance)
        return made

    yield make
    for instance in started:
        instance.stop()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(_root.need_redis_server(), tmp_path)
    server.start()
    yield server
    server.stop()
