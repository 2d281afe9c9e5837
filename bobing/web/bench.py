"""``bobing bench server``: T tables x N players over real WebSockets against a real server.

Each table plays a closed loop: the player whose turn it is throws, and the next throw is
sent as soon as the throw's events have reached every player at the table. Latency is the
time from sending the throw to the moment the last of the table's N sockets received its
``thrown`` event. The server runs as a separate ``bobing serve`` process (its own core), unless
``--url`` points at one already running.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bobing.engine.errors import InputError
from bobing.web.serve import loop_factory

BENCH_RULES: dict[str, Any] = {
    # Nothing ends the game during a run: both 六勃 are plain 状元 hands, and 999 cakes a tier.
    "preset": "modern",
    "liubohong": "zhuangyuan",
    "liubohei": "zhuangyuan",
    "prizes": {
        "zhuangyuan": 1,
        **dict.fromkeys(("duitang", "sanhong", "sijin", "erju", "yixiu"), 999),
    },
}
WARMUP_SECONDS = 1.0
_THROWN = re.compile(r'"type":"thrown","at":"[^"]*","throw":(\d+)')


@dataclass
class TableRun:
    """One table's closed loop."""

    code: str
    sockets: dict[str, Any] = field(default_factory=dict)
    pending: dict[int, list[float]] = field(default_factory=dict)  # throw -> [t0, left, last]
    next_player: str | None = None
    turn: int = 1
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (sent, ms)
    failed: str | None = None


def run_bench(
    *,
    tables: int,
    players: int,
    seconds: float,
    db: str | None = None,
    url: str | None = None,
) -> dict[str, Any]:
    """Run the benchmark and return its measurements."""
    with contextlib.ExitStack() as stack:
        db_label = "external server"
        pid: int | None = None
        if url is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="bobing-bench-"))
            db = db or f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
            db_label = "postgresql" if db.startswith("postgres") else "sqlite"
            schema = None
            if db_label == "postgresql":
                # A schema of its own, dropped afterwards: reruns start clean.
                schema = f"bobing_bench_{os.getpid()}_{int(time.time())}"
                stack.callback(_drop_schema, db, schema)
            url, pid = stack.enter_context(_server(db, Path(folder), schema))
        try:
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                result = runner.run(_bench(url.rstrip("/"), tables, players, seconds, pid))
        except (OSError, TimeoutError) as exc:
            raise InputError(f"benchmark against {url} failed: {exc}") from None
        except Exception as exc:
            if type(exc).__module__.split(".")[0] == "websockets":
                raise InputError(f"benchmark against {url} failed: {exc}") from None
            raise
        result["db"] = db_label
        return result


@contextlib.contextmanager
def _server(db: str, folder: Path, schema: str | None = None) -> Any:
    bobing = Path(sys.executable).with_name("bobing")
    # Every simulated phone connects from 127.0.0.1: lift the per-address connection cap.
    command = [str(bobing), "serve", "--host", "127.0.0.1", "--port", "0", "--db", db]
    command += ["--max-connections-per-address", "0"]
    # Every bench table comes from this one address: the per-address limits would stop it.
    for name in ("create_per_minute", "join_per_minute", "open_tables_per_address"):
        command += ["--limit", f"{name}=0"]
    if schema is not None:
        command += ["--schema", schema]
    log = (folder / "server.log").open("w")
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        assert proc.stdout is not None
        found = None
        for line in proc.stdout:
            match = re.search(r"serving on (http://\S+)", line)
            if match:
                found = match.group(1)
            if "Ctrl+C" in line:
                break
        if found is None:
            log.flush()
            raise InputError(
                "the benchmark server did not start: "
                + (folder / "server.log").read_text()[-500:].strip()
            )
        yield found, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()
        log.close()


def _drop_schema(db: str, schema: str) -> None:
    from bobing.storage.db import Database

    async def drop() -> None:
        database = Database(db, schema=schema)
        try:
            await database.drop_schema()
        finally:
            await database.dispose()

    asyncio.run(drop())


def _cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process (Linux /proc), for the server's cost per throw."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _bench(
    base: str, tables: int, players: int, seconds: float, pid: int | None = None
) -> dict[str, Any]:
    import websockets

    http = _Http(base)
    runs = await _gather_limited(
        [_setup_table(http, websockets, base, i, players) for i in range(tables)], 20
    )
    # The client's own collector pauses would count as latency: freeze the set-up heap.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)
    readers = [
        asyncio.create_task(_reader(run, name, ws, index == 0))
        for run in runs
        for index, (name, ws) in enumerate(run.sockets.items())
    ]
    start = time.perf_counter()
    measure_from = start + WARMUP_SECONDS
    stop_at = measure_from + seconds
    drivers = [asyncio.create_task(_drive(run, stop_at)) for run in runs]
    await asyncio.sleep(max(0.0, measure_from - time.perf_counter()))
    cpu_start, own_start = _cpu_seconds(pid), time.process_time()
    await asyncio.sleep(max(0.0, stop_at - time.perf_counter()))
    cpu_end, own_end = _cpu_seconds(pid), time.process_time()
    await asyncio.gather(*drivers)
    for task in readers:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    await _gather_limited([ws.close() for run in runs for ws in run.sockets.values()], 100)
    failures = [run.failed for run in runs if run.failed]
    if failures:
        raise InputError(f"benchmark failed at {len(failures)} tables: {failures[0]}")
    window = [ms for run in runs for sent, ms in run.latencies if measure_from <= sent < stop_at]
    window.sort()
    count = len(window)

    def pct(p: float) -> float:
        return round(window[min(count - 1, int(p * count))], 2) if count else 0.0

    server_cpu = None if cpu_start is None or cpu_end is None or not count else cpu_end - cpu_start
    return {
        "server_cpu_ms_per_throw": None
        if server_cpu is None
        else round(server_cpu / count * 1000, 3),
        "server_cpu_cores": None if server_cpu is None else round(server_cpu / seconds, 2),
        "client_cpu_ms_per_throw": round((own_end - own_start) / count * 1000, 3)
        if count
        else None,
        "throws_per_s": round(count / seconds, 1),
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "p90_ms": pct(0.90),
        "max_ms": round(window[-1], 2) if count else 0.0,
        "tables": tables,
        "players": players,
        "connections": tables * players,
        "throws": count,
        "seconds": seconds,
    }


class _Http:
    """A minimal JSON-over-HTTP client on the standard library, for the set-up requests.

    The benchmark measures WebSocket throws; its few hundred REST calls (create, join, start)
    need no connection pool, so ``urllib`` in worker threads does, and a plain install (no
    dev extras) can run ``bobing bench server``. Proxies are ignored: the server is local or
    named by ``--url``.
    """

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    async def request(
        self, method: str, path: str, body: Any = None, *, token: str | None = None
    ) -> tuple[int, Any]:
        """Send one request; return the status and the decoded JSON body (text if not JSON)."""
        return await asyncio.to_thread(self._request, method, path, body, token)

    def _request(self, method: str, path: str, body: Any, token: str | None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with self.opener.open(request, timeout=60) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode("utf-8", "replace")


async def _gather_limited(coros: list[Any], limit: int) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coro: Any) -> Any:
        async with gate:
            return await coro

    return list(await asyncio.gather(*(one(c) for c in coros)))


async def _setup_table(
    http: _Http, websockets: Any, base: str, index: int, players: int
) -> TableRun:
    status, created = await http.request(
        "POST",
        "/api/tables",
        {"name": f"bench {index}", "mode": "online", "rules": BENCH_RULES},
    )
    if status != 201:
        raise InputError(f"could not create a bench table: {str(created)[:300]}")
    code = created["code"]
    run = TableRun(code)
    tokens = {}
    for seat in range(players):
        name = f"p{seat + 1}"
        status, joined = await http.request("POST", f"/api/tables/{code}/join", {"name": name})
        if status != 201:
            raise InputError(f"could not join bench table {code}: {str(joined)[:300]}")
        tokens[name] = joined["player_token"]
    ws_base = base.replace("http://", "ws://").replace("https://", "wss://")
    for name, token in tokens.items():
        ws = await websockets.connect(f"{ws_base}/ws/tables/{code}?token={token}", max_size=None)
        await ws.recv()  # welcome
        await ws.recv()  # the backlog and state
        run.sockets[name] = ws
    status, reply = await http.request(
        "POST", f"/api/tables/{code}/commands", {"type": "start"}, token=created["host_token"]
    )
    if status != 200:
        raise InputError(f"could not start bench table {code}: {str(reply)[:300]}")
    _, state = await http.request("GET", f"/api/tables/{code}")
    run.next_player = state["next"]
    run.turn = state["turn"]
    # Drain the 'started' frame every socket receives.
    for ws in run.sockets.values():
        await ws.recv()
    return run


async def _reader(run: TableRun, name: str, ws: Any, observer: bool) -> None:
    async for message in ws:
        if message.startswith('{"type":"ack"'):
            continue
        if message.startswith('{"type":"error"'):
            run.failed = message[:300]
            run.ready.set()
            continue
        found = _THROWN.search(message)
        if found is None:
            continue
        throw = int(found.group(1))
        now = time.perf_counter()
        entry = run.pending.get(throw)
        if entry is None:
            continue
        if observer:
            state = json.loads(message)["state"]
            run.next_player = state["next"]
            run.turn = state["turn"]
        entry[1] -= 1
        entry[2] = max(entry[2], now)
        if entry[1] == 0:
            del run.pending[throw]
            run.latencies.append((entry[0], (entry[2] - entry[0]) * 1000))
            run.ready.set()


async def _drive(run: TableRun, stop_at: float) -> None:
    players = len(run.sockets)
    while time.perf_counter() < stop_at and run.failed is None:
        player = run.next_player
        if player is None:
            run.failed = f"table {run.code} has no next player (game over?)"
            return
        throw = run.turn
        run.ready.clear()
        run.pending[throw] = [time.perf_counter(), players, 0.0]
        await run.sockets[player].send(
            json.dumps({"type": "throw", "turn": throw, "nonce": f"{run.code}-{throw}"})
        )
        try:
            await asyncio.wait_for(run.ready.wait(), 30)
        except TimeoutError:
            run.failed = f"table {run.code}: throw {throw} did not reach every player in 30 s"
            return
