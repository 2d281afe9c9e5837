"""Fixtures of the web tests: a real server per test on a fresh SQLite file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from webtools import TIMEOUT, close_clients, running_server

from bobing.web.settings import Settings


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    """Every WebSocket client a test opened is closed when it ends, passed or failed."""
    yield
    await close_clients()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}"


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[str]:
    async with running_server(Settings(db_url=db_url)) as url:
        yield url


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as client:
        yield client
