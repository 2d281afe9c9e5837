"""Tools of the service-hardening tests: a real ``bobing serve`` process with chosen limits.

Each test starts its own server (``served``) with the ``--limit`` options it is about, on a
fresh SQLite file, in a working directory of its own (so a test can put files where a careless
server would look for them). The clients are the web tests' (``tests/web/webtools.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
if str(HERE.parent / "web") not in sys.path:
    sys.path.insert(0, str(HERE.parent / "web"))

from webtools import TIMEOUT, Client, close_clients  # noqa: E402

__all__ = ["TIMEOUT", "Client", "Served", "open_table", "problem_of", "served"]

NO_LIMITS = (
    "create_per_minute=0",
    "join_per_minute=0",
    "analysis_per_minute=0",
    "preview_per_minute=0",
    "roster_per_minute=0",
    "lookups_per_minute=0",
)
"""Rate limits off: for tests about something else that create many tables."""


@dataclass
class Served:
    """A running server: its URL, an HTTP client, its database file and its process."""

    url: str
    http: httpx.AsyncClient
    db_path: Path
    cwd: Path
    proc: subprocess.Popen[bytes]
    limits: tuple[str, ...]
    log_path: Path
    database: tuple[str, ...] = ()
    """``--db URL --schema S`` of a server on PostgreSQL; empty for the SQLite file."""

    async def restart(self, *, graceful: bool = False) -> None:
        """Kill the process (SIGKILL: a crash; SIGTERM with ``graceful``) and start a new one
        on the same database."""
        if graceful:
            self.proc.terminate()
        else:
            self.proc.kill()
        await asyncio.to_thread(self.proc.wait, TIMEOUT)
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        await close_clients()
        await self.http.aclose()
        self.proc, self.url = await asyncio.to_thread(
            _start, self.db_path, self.cwd, self.limits, self.log_path, self.database
        )
        self.http = httpx.AsyncClient(base_url=self.url, timeout=TIMEOUT)


def _start(
    db_path: Path,
    cwd: Path,
    limits: Iterable[str],
    log_path: Path,
    database: tuple[str, ...] = (),
) -> tuple[subprocess.Popen[bytes], str]:
    bobing = Path(sys.executable).with_name("bobing")
    command = [str(bobing), "serve", "--host", "127.0.0.1", "--port", "0"]
    command += list(database) or ["--db", f"sqlite+aiosqlite:///{db_path}"]
    for option in limits:
        command += ["--limit", option]
    # only the limits the test names (and the suite's worker priority, tests/conftest.py)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("BOBING_LIMIT_") or k == "BOBING_LIMIT_WORKER_NICE"
    }
    env["PYTHONUNBUFFERED"] = "1"
    offset = log_path.stat().st_size if log_path.exists() else 0
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.PIPE, cwd=cwd, env=env
        )
    deadline = time.monotonic() + 2 * TIMEOUT
    while time.monotonic() < deadline:
        output = log_path.read_bytes()[offset:].decode("utf-8", "replace")
        found = re.search(r"serving on (http://\S+)", output)
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            raise RuntimeError("bobing serve exited:\n" + output)
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("bobing serve did not start:\n" + log_path.read_text("utf-8"))


@contextlib.asynccontextmanager
async def served(
    tmp_path: Path, *limits: str, database: tuple[str, ...] = ()
) -> AsyncIterator[Served]:
    """``bobing serve --limit …`` in ``tmp_path/cwd``; stopped (and its clients closed) after.

    ``database``: ``("--db", URL, "--schema", S)`` for PostgreSQL (the caller owns the schema);
    by default a fresh SQLite file.

    The server's standard input is a pipe nobody writes to: a server that read ``/dev/stdin``
    would hang, and the test would see it.
    """
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    db_path = tmp_path / "bobing.sqlite3"
    log_path = tmp_path / "server.log"
    proc, url = await asyncio.to_thread(_start, db_path, cwd, limits, log_path, database)
    server = Served(url, httpx.AsyncClient(base_url=url, timeout=TIMEOUT), db_path, cwd, proc,
                    tuple(limits), log_path, database)  # fmt: skip
    try:
        yield server
    finally:
        await close_clients()
        await server.http.aclose()
        if server.proc.poll() is None:
            server.proc.terminate()
            try:
                await asyncio.to_thread(server.proc.wait, TIMEOUT)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                await asyncio.to_thread(server.proc.wait, TIMEOUT)
        if server.proc.stdin is not None:
            server.proc.stdin.close()
        log = log_path.read_text("utf-8", "replace")
        assert "Traceback" not in log, log


async def open_table(
    http: httpx.AsyncClient, names: Iterable[str] = (), **body: Any
) -> tuple[dict[str, Any], dict[str, str]]:
    """Create a table and seat ``names``; the creation reply and each name's player token."""
    body.setdefault("name", "安全测试")
    response = await http.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    tokens: dict[str, str] = {}
    for name in names:
        joined = await http.post(f"/api/tables/{created['code']}/join", json={"name": name})
        assert joined.status_code == 201, joined.text
        tokens[name] = joined.json()["player_token"]
    return created, tokens


def problem_of(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The RFC 9457 problem of ``response``, checked to have ``status`` and ``code``."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/problem+json")
    problem: dict[str, Any] = response.json()
    assert problem["code"] == code, problem
    assert problem["type"] == f"urn:bobing:problem:{code}"
    assert problem["status"] == status
    return problem
