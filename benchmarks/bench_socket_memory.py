"""What a table's socket keeps on the server, in Python objects, against the bare relay's.

    .venv/bin/python benchmarks/bench_socket_memory.py [--tables 50] [--top 12]

The server as ``bobing serve`` runs it (Uvicorn with its guarded protocols and options, uvloop,
SQLite in a temporary folder) and the floor's bare relay (``bobing.bench.relay``, the baseline)
run in this process, one after the other. On each, ``--tables`` tables of ten phones are made
(on the server created, joined and started over HTTP), then a client process opens every
phone's socket and holds it open. What was allocated meanwhile and is still held after a
collection (``tracemalloc``) is divided by the sockets: printed for each, the bytes a socket,
the ratio to the relay's, and the files that allocated the most of it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import json
import sys
import tempfile
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import uvicorn

from bobing.bench.relay import Relay
from bobing.process.loop import loop_factory
from bobing.tables.limits import Limits
from bobing.tables.protocol import offered_subprotocols
from bobing.web.app import create_app
from bobing.web.limits_transport import TransportLimits
from bobing.web.serve import bind, uvicorn_options
from bobing.web.settings import Settings

PLAYERS = 10
PHONES = r"""
import asyncio, json, sys
import websockets

async def main():
    phones = []
    for url, protocols in json.loads(sys.stdin.readline()):
        phones.append(
            await websockets.connect(url, subprotocols=protocols or None, compression=None)
        )
    # the welcome (the server), or ready once the table's phones are all in (the relay)
    await asyncio.wait_for(asyncio.gather(*(ws.recv() for ws in phones)), 60)
    print("open", flush=True)
    sys.stdin.readline()  # held until told
    await asyncio.gather(*(ws.close() for ws in phones))

asyncio.run(main())
"""
"""The client process: opens every socket it is given, says so, holds them until told."""


@contextlib.asynccontextmanager
async def server(folder: str) -> AsyncIterator[str]:
    """``bobing serve``'s app and Uvicorn options on a free port, with no limit in the way of
    one client opening every table."""
    off = {f.name: 0 for f in dataclasses.fields(Limits) if f.name.endswith("per_minute")}
    settings = Settings(
        db_url=f"sqlite+aiosqlite:///{Path(folder) / 'memory.sqlite3'}",
        transport=TransportLimits(max_connections_per_address=0),
        limits=dataclasses.replace(Limits(), **off, open_tables_per_address=0),
        analysis_processes=False,
    )
    sock = bind("127.0.0.1", 0)
    app = create_app(settings)
    uvi = uvicorn.Server(uvicorn.Config(app, **uvicorn_options(settings)))
    task = asyncio.create_task(uvi.serve(sockets=[sock]))
    while not uvi.started:
        await asyncio.sleep(0.02)
    try:
        yield f"127.0.0.1:{sock.getsockname()[1]}"
    finally:
        uvi.should_exit = True
        await task
        sock.close()


async def server_phones(address: str, tables: int) -> list[tuple[str, list[str]]]:
    """Each phone of ``tables`` started tables: its socket's URL and subprotocols (its token)."""
    phones = []
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=30) as http:
        for index in range(tables):
            made = (await http.post("/api/tables", json={"name": f"桌{index}"})).json()
            code = made["code"]
            for seat in range(PLAYERS):
                joined = await http.post(f"/api/tables/{code}/join", json={"name": f"p{seat}"})
                offered = offered_subprotocols([joined.json()["player_token"]])
                phones.append((f"ws://{address}/ws/tables/{code}", offered))
            started = await http.post(
                f"/api/tables/{code}/commands",
                json={"type": "start", "starter": "p0"},
                headers={"Authorization": f"Bearer {made['host_token']}"},
            )
            started.raise_for_status()
    return phones


@contextlib.asynccontextmanager
async def relay() -> AsyncIterator[str]:
    """The floor's bare relay, as ``python -m bobing.bench.relay`` serves it."""
    from websockets.asyncio.server import serve

    async with serve(Relay().handle, "127.0.0.1", 0, compression=None, max_size=4096) as running:
        host, port = next(iter(running.sockets)).getsockname()[:2]
        yield f"{host}:{port}"


def relay_phones(address: str, tables: int) -> list[tuple[str, list[str]]]:
    """Each phone of ``tables`` relay tables: its socket's URL (no subprotocols)."""
    return [
        (f"ws://{address}/relay/T{index}?name=p{seat}&players={PLAYERS}", [])
        for index in range(tables)
        for seat in range(PLAYERS)
    ]


async def held(phones: list[tuple[str, list[str]]], top: int) -> tuple[float, list[str]]:
    """Open ``phones`` from a client process; the bytes a socket keeps, and the top files."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    client = await asyncio.create_subprocess_exec(
        sys.executable, "-c", PHONES, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert client.stdin is not None and client.stdout is not None
    client.stdin.write(json.dumps(phones).encode() + b"\n")
    await client.stdin.drain()
    if await client.stdout.readline() != b"open\n":
        raise SystemExit("the client process could not open every socket")
    await asyncio.sleep(0.5)  # the last welcomes written, the server at rest
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    client.stdin.write(b"\n")
    await client.stdin.drain()
    await client.wait()
    count = len(phones)
    stats = after.compare_to(before, "filename")
    total = sum(s.size_diff for s in stats) / count
    lines = [
        f"  {s.size_diff / count:7.0f} B  {s.count_diff / count:5.1f} objects  "
        f"{_short(s.traceback[0].filename)}"
        for s in stats[:top]
    ]
    return total, lines


def _short(filename: str) -> str:
    """A file's name from its package on (``asyncio/queues.py``, ``bobing/web/hub.py``)."""
    for marker in ("site-packages/", "/bobing/", "/lib/python3."):
        if marker in filename:
            tail = filename.partition(marker)[2]
            if marker == "/bobing/":
                return "bobing/" + tail
            return tail.partition("/")[2] if marker.endswith(".") else tail
    return filename


async def main(tables: int, top: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bobing-bench-") as folder:
        async with server(folder) as address:
            ours, ours_lines = await held(await server_phones(address, tables), top)
    async with relay() as address:
        floor, floor_lines = await held(relay_phones(address, tables), top)
    sockets = tables * PLAYERS
    print(f"{tables} tables of {PLAYERS}: {sockets} sockets each, Python objects still held")
    print(f"server: {ours:,.0f} B a socket")
    print("\n".join(ours_lines))
    print(f"bare relay: {floor:,.0f} B a socket")
    print("\n".join(floor_lines))
    print(f"server ÷ relay: {ours / floor:.2f}×")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(main(args.tables, args.top))
