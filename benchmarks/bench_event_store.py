"""How fast the event store commits throws, with its group commit against a baseline.

    .venv/bin/python benchmarks/bench_event_store.py [--tables 100] [--appends 20] [--db URL]

Each of ``--tables`` tables appends ``--appends`` times a throw's worth of events (4 events),
all tables at once, each waiting for its previous append (as the server does under a
table's lock). Measured in the same run, on fresh tables:

- ``group commit``: :class:`EventStore.append` (appends waiting together share one
  transaction: one thread hop on SQLite, one UPDATE … RETURNING on PostgreSQL);
- ``one transaction each``: the baseline — every append its own async transaction with an
  optimistic UPDATE and an INSERT, as a straightforward implementation would do.

Prints appends per second for each and the ratio. Default database: a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from service_here import temporary_database
from sqlalchemy import insert, update

from bobing.storage import Append, Database, EventStore, StaleWrite, TableInfo
from bobing.storage.models import EventRow, TableRow

EVENTS = [
    {"type": "dice", "throw": 1, "player": "p1", "nonce": "abc", "source": "server"},
    {"type": "thrown", "throw": 1, "player": "p1", "dice": "442356", "hand": "erju"},
    {
        "type": "awarded",
        "throw": 1,
        "player": "p1",
        "tier": "erju",
        "count": 1,
        "from": None,
        "reason": "hand",
    },
    {"type": "standing", "throw": 1, "player": "p1", "hand": "sihong", "dice": "444412"},
]


def table(code: str) -> TableInfo:
    return TableInfo(
        code=code,
        name="bench",
        mode="online",
        status="playing",
        rules={},
        settings={},
        host_token_hash="h" * 64,
        play_token_hash=None,
        server_seed="0" * 64,
        commitment="c" * 64,
        created_at=datetime.now(UTC),
    )


async def baseline_append(db: Database, request: Append) -> None:
    """One transaction per append: the optimistic UPDATE, then the INSERT."""
    async with db.engine.begin() as conn:
        moved = await conn.execute(
            update(TableRow)
            .where(TableRow.code == request.code, TableRow.last_seq == request.expected_seq)
            .values(last_seq=request.expected_seq + len(request.events), updated_at=request.at)
        )
        if moved.rowcount != 1:
            raise StaleWrite(request.code)
        await conn.execute(
            insert(EventRow),
            [
                {
                    "table_code": request.code,
                    "seq": request.expected_seq + i,
                    "type": e["type"],
                    "data": e,
                    "at": request.at,
                    "command_id": None,
                }
                for i, e in enumerate(request.events, start=1)
            ],
        )


async def run(db: Database, tables: int, appends: int, grouped: bool) -> float:
    store = EventStore(db)
    prefix = uuid.uuid4().hex[:6].upper()
    codes = [f"{prefix}{i:04d}" for i in range(tables)]
    for code in codes:
        await store.create_table(table(code), [{"type": "table_created"}])

    async def one_table(code: str) -> None:
        seq = 1
        for _ in range(appends):
            request = Append(code, seq, EVENTS)
            if grouped:
                await store.append(request)
            else:
                await baseline_append(db, request)
            seq += len(EVENTS)

    start = time.perf_counter()
    await asyncio.gather(*(one_table(code) for code in codes))
    elapsed = time.perf_counter() - start
    await store.close()
    return tables * appends / elapsed


async def main(args: argparse.Namespace) -> None:
    async with temporary_database(args.db) as db:
        best: dict[str, float] = {"group commit": 0.0, "one transaction each": 0.0}
        for _ in range(args.repeat):  # interleaved rounds, best of each
            best["group commit"] = max(
                best["group commit"], await run(db, args.tables, args.appends, True)
            )
            best["one transaction each"] = max(
                best["one transaction each"], await run(db, args.tables, args.appends, False)
            )
    print(f"{db.dialect}: {args.tables} tables x {args.appends} appends of {len(EVENTS)} events")
    for name, rate in best.items():
        print(f"  {name:22} {rate:9.0f} appends/s")
    ratio = best["group commit"] / best["one transaction each"]
    print(f"  group commit / baseline: {ratio:.1f}x")


def parse(argv: Any = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--db", default=None, help="database URL (default: temporary SQLite)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse()))
