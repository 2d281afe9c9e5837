"""Issue 9: an idempotency key belongs to one sender and one command.

The token is checked before the key; a key reused by another sender, or for another command,
is ``command_id_reused`` (409), never an ack; the binding is in the log, so it holds after a
restart (and on another instance). Every test runs on SQLite and on PostgreSQL, whose
writer takes its own path (issue 17: the one-statement append once dropped the binding).
"""

from __future__ import annotations

import importlib.util
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sectools import NO_LIMITS, Client, Served, open_table, problem_of, served

from bobing.storage import Database


def _root_conftest() -> ModuleType:
    # tests/conftest.py is not importable by name (every conftest.py is "conftest").
    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("bobing_tests_root_conftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest) -> AsyncIterator[tuple[str, ...]]:
    """The server's database options: a fresh SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield ()
        return
    url = _root_conftest().need_postgres()
    schema = f"bobing_test_{uuid.uuid4().hex[:12]}"
    try:
        yield ("--db", url, "--schema", schema)
    finally:
        db = Database(url, schema=schema)
        await db.drop_schema()
        await db.dispose()


SMALL = {"zhuangyuan": 1, "duitang": 1, "sanhong": 1, "sijin": 1, "erju": 2, "yixiu": 3}


async def _started(server: Served) -> tuple[str, dict[str, Any], dict[str, str], Client]:
    created, tokens = await open_table(server.http, ["A", "B"], prizes=SMALL)
    code = created["code"]
    host = await Client.connect(server.url, code, [created["host_token"]])
    assert (await host.command("start", starter="A"))["type"] == "ack"
    return code, created, tokens, host


async def _head(server: Served, code: str) -> int:
    state: dict[str, Any] = (await server.http.get(f"/api/tables/{code}")).json()
    return int(state["last_seq"])


async def test_another_senders_key_is_refused_not_acked(
    tmp_path: Path, database: tuple[str, ...]
) -> None:
    async with served(tmp_path, *NO_LIMITS, database=database) as server:
        code, _, tokens, _ = await _started(server)
        a = await Client.connect(server.url, code, [tokens["A"]])
        b = await Client.connect(server.url, code, [tokens["B"]])
        first = await a.command("throw", id="k1", turn=1)
        assert first["type"] == "ack" and first["duplicate"] is False
        head = await _head(server, code)
        # B's own-turn throw with A's key: refused, and B's throw is not lost to it.
        stolen = await b.command("throw", id="k1", turn=2)
        assert stolen["type"] == "error" and stolen["code"] == "command_id_reused", stolen
        assert stolen["status"] == 409 and stolen["params"]["reason"] == "sender"
        assert await _head(server, code) == head
        own = await b.command("throw", id="k2", turn=2)
        assert own["type"] == "ack" and own["duplicate"] is False
        # A's honest retry is still the original ack.
        again = await a.command("throw", id="k1", turn=1)
        assert again["type"] == "ack" and again["duplicate"] is True
        assert again["seq"] == first["seq"]


async def test_a_key_names_one_command(tmp_path: Path, database: tuple[str, ...]) -> None:
    async with served(tmp_path, *NO_LIMITS, database=database) as server:
        code, created, _, host = await _started(server)
        reply = await host.command("pause", id="h1")
        assert reply["type"] == "ack"
        other = await host.command("resume", id="h1")
        assert other["type"] == "error" and other["code"] == "command_id_reused", other
        assert other["params"]["reason"] == "command"
        state = (await server.http.get(f"/api/tables/{code}")).json()
        assert state["status"] == "paused"
        # Over HTTP: the same.
        response = await server.http.post(
            f"/api/tables/{code}/commands",
            json={"type": "end", "id": "h1"},
            headers={"Authorization": f"Bearer {created['host_token']}"},
        )
        problem_of(response, 409, "command_id_reused")
        assert (await server.http.get(f"/api/tables/{code}")).json()["status"] == "paused"


async def test_without_a_token_a_used_key_is_not_acked(
    tmp_path: Path, database: tuple[str, ...]
) -> None:
    async with served(tmp_path, *NO_LIMITS, database=database) as server:
        code, _, tokens, _ = await _started(server)
        a = await Client.connect(server.url, code, [tokens["A"]])
        assert (await a.command("throw", id="k1", turn=1))["type"] == "ack"
        head = await _head(server, code)
        response = await server.http.post(
            f"/api/tables/{code}/commands", json={"type": "throw", "id": "k1", "turn": 1}
        )
        problem_of(response, 403, "forbidden")
        anonymous = await Client.connect(server.url, code)
        reply = await anonymous.command("throw", id="k1", turn=1)
        assert reply["type"] == "error" and reply["code"] == "forbidden"
        # A token of another table is no token here.
        _, other_tokens = await open_table(server.http, ["Z"])
        response = await server.http.post(
            f"/api/tables/{code}/commands",
            json={"type": "throw", "id": "k1", "turn": 1},
            headers={"Authorization": f"Bearer {other_tokens['Z']}"},
        )
        problem_of(response, 401, "invalid_token")
        assert await _head(server, code) == head


async def test_the_binding_survives_a_restart(tmp_path: Path, database: tuple[str, ...]) -> None:
    async with served(tmp_path, *NO_LIMITS, database=database) as server:
        code, _, tokens, _ = await _started(server)
        a = await Client.connect(server.url, code, [tokens["A"]])
        first = await a.command("throw", id="k1", turn=1)
        assert first["type"] == "ack"
        await server.restart()
        head = await _head(server, code)
        b = await Client.connect(server.url, code, [tokens["B"]])
        stolen = await b.command("throw", id="k1", turn=2)
        assert stolen["type"] == "error" and stolen["code"] == "command_id_reused"
        a = await Client.connect(server.url, code, [tokens["A"]])
        again = await a.command("throw", id="k1", turn=1)
        assert again["type"] == "ack" and again["duplicate"] is True
        assert again["seq"] == first["seq"]
        assert await _head(server, code) == head


async def test_an_old_key_beyond_the_memory_is_found_in_the_log(
    tmp_path: Path, database: tuple[str, ...]
) -> None:
    """A runtime remembers the latest 1,024 ids; older ones are found through the log's index."""
    from bobing.tables.runtime import RECENT_COMMANDS

    async with served(tmp_path, *NO_LIMITS, "max_events=0", database=database) as server:
        code, _, tokens, host = await _started(server)
        a = await Client.connect(server.url, code, [tokens["A"]])
        first = await a.command("throw", id="old-1", turn=1)
        assert first["type"] == "ack"
        for i in range(RECENT_COMMANDS // 2 + 1):
            assert (await host.command("pause", id=f"p{i}"))["type"] == "ack"
            assert (await host.command("resume", id=f"r{i}"))["type"] == "ack"
        again = await a.command("throw", id="old-1", turn=1)
        assert again["type"] == "ack" and again["duplicate"] is True
        assert again["seq"] == first["seq"]
        b = await Client.connect(server.url, code, [tokens["B"]])
        stolen = await b.command("throw", id="old-1", turn=2)
        assert stolen["type"] == "error" and stolen["code"] == "command_id_reused"
