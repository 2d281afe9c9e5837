"""How long creating an event takes, against a client creating and seating the same tables.

    .venv/bin/python benchmarks/bench_event_create.py [--people 44] [--tables 4] [--db URL]

Measured in the same run against one real server (Uvicorn on 127.0.0.1, a temporary SQLite
file by default):

- ``event``: ``POST /api/events`` — the server creates every table and seats everyone
  in-process (one request);
- ``client baseline``: what a client would do without events — ``POST /api/tables`` per table
  and ``POST /api/tables/{code}/join`` per person, one after another.

Prints the median seconds of each over ``--rounds`` and the ratio. On PostgreSQL the run
uses a fresh schema, dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import uvicorn

from bobing.storage import Database
from bobing.web.app import create_app
from bobing.web.serve import bind
from bobing.web.settings import Settings


@contextlib.asynccontextmanager
async def server(db_url: str, schema: str | None) -> AsyncIterator[str]:
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    settings = Settings(db_url=db_url, db_schema=schema)
    config = uvicorn.Config(create_app(settings), log_level="warning", lifespan="on")
    instance = uvicorn.Server(config)
    task = asyncio.create_task(instance.serve(sockets=[sock]))
    for _ in range(600):
        if instance.started:
            break
        await asyncio.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        instance.should_exit = True
        await task


async def run(people: int, tables: int, rounds: int, db: str | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = db or f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
        schema = None if db is None else f"bobing_bench_{uuid.uuid4().hex[:12]}"
        try:
            await measure(url, schema, people, tables, rounds)
        finally:
            if schema is not None:
                database = Database(url, schema=schema)
                await database.drop_schema()
                await database.dispose()


async def measure(url: str, schema: str | None, people: int, tables: int, rounds: int) -> None:
    names = [f"p{i:03d}" for i in range(people)]
    rules = {"preset": "traditional", "max_players": max(12, -(-people // tables))}
    event_times: list[float] = []
    client_times: list[float] = []
    async with server(url, schema) as base, httpx.AsyncClient(base_url=base, timeout=120) as http:
        for _ in range(rounds):
            start = time.perf_counter()
            body = {"name": "bench", "people": names, "tables": tables, "rules": rules}
            (await http.post("/api/events", json=body)).raise_for_status()
            event_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            for number in range(tables):
                created = await http.post("/api/tables", json={"name": "bench", "rules": rules})
                created.raise_for_status()
                code = created.json()["code"]
                for name in names[number::tables]:
                    joined = await http.post(f"/api/tables/{code}/join", json={"name": name})
                    joined.raise_for_status()
            client_times.append(time.perf_counter() - start)
    event, client = statistics.median(event_times), statistics.median(client_times)
    print(f"{people} people at {tables} tables, median of {rounds} ({url.split(':')[0]})")
    print(f"  event (one request)        {event:8.3f} s")
    print(f"  client baseline (requests) {client:8.3f} s")
    print(f"  ratio baseline / event     {client / event:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=44)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    asyncio.run(run(args.people, args.tables, args.rounds, args.db))


if __name__ == "__main__":
    main()
