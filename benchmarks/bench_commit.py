"""What one commit of a few throws costs, with a table's last activity stamped every commit
(the baseline) or once a minute (``event_store.Stamps``, the store's way).

    .venv/bin/python benchmarks/bench_commit.py [--tables 1000] [--commits 2000] [--rounds 3]
                                                [--db URL]

``--tables`` tables are created; then, ``--rounds`` times and each way in turn, ``--commits``
batches of 1 and of 2 throws (4 events each, the first with its command) are committed through
the store's own batch write (``EventStore._write``), the tables drawn at random, as a server at
1,000 throws/s or at a human pace commits them (a batch of one or two). Printed for each batch
size: the CPU of this process a commit (µs, the median round) and the wall time a commit, both
ways, and their ratios. On PostgreSQL also how many of the heads' updates were HOT (touching no
index), from ``pg_stat_user_tables``. Default database: a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from datetime import timedelta

from bench_event_store import EVENTS, table
from service_here import temporary_database
from sqlalchemy import text

from bobing.storage import Append, Database, EventStore
from bobing.storage.event_store import Stamps

WAYS = {"every commit": timedelta(0), "once a minute": None}
"""The stamp interval of each way (None: the store's own)."""


async def commit_batches(
    store: EventStore, codes: list[str], seqs: dict[str, int], size: int, commits: int, tag: str
) -> tuple[float, float]:
    """Commit ``commits`` batches of ``size`` throws; the CPU and wall seconds a commit."""
    rng = random.Random(tag)
    cpu = wall = 0.0
    for index in range(commits):
        batch = [
            Append(code, seqs[code], EVENTS, command_id=f"{tag}-{index}-{code}")
            for code in rng.sample(codes, size)
        ]
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        outcomes = await store._write(batch)
        cpu += time.process_time() - cpu_start
        wall += time.perf_counter() - wall_start
        for request, stored in zip(batch, outcomes, strict=True):
            assert stored is not None, "a bench table moved on"
            seqs[request.code] += len(EVENTS)
    return cpu / commits, wall / commits


async def hot_share(db: Database) -> tuple[int, int]:
    """PostgreSQL: the heads' updates so far and how many were HOT, read once the writing
    connections have ended (a backend flushes its statistics as it ends)."""
    await db.dispose()
    await asyncio.sleep(1.0)
    async with db.engine.connect() as conn:
        row = (
            await conn.execute(
                text(
                    "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                    "WHERE relname = 'bobing_tables' AND schemaname = :schema"
                ),
                {"schema": db.schema},
            )
        ).one()
    await db.dispose()
    return int(row[0]), int(row[1])


async def main(args: argparse.Namespace) -> None:
    async with temporary_database(args.db) as db:
        stores = {way: EventStore(db) for way in WAYS}
        for way, every in WAYS.items():
            if every is not None:
                stores[way].stamps = Stamps(every)
        codes = [f"C{i:05d}" for i in range(args.tables)]
        seqs = dict.fromkeys(codes, 1)
        results: dict[str, dict[int, list[tuple[float, float]]]] = {
            way: {1: [], 2: []} for way in WAYS
        }
        hot: dict[str, tuple[int, int]] = {}
        try:
            for code in codes:
                await stores["every commit"].create_table(table(code), [{"type": "table_created"}])
            # A server that has run for a while: each store has committed for every table once.
            for store in stores.values():
                for code in codes:
                    await store._write([Append(code, seqs[code], EVENTS)])
                    seqs[code] += len(EVENTS)
            postgres = db.dialect == "postgresql"
            for round_ in range(args.rounds):
                for way, store in stores.items():
                    before = await hot_share(db) if postgres and round_ == 0 else None
                    for size in (1, 2):
                        tag = f"{way}-{round_}-{size}"
                        figures = await commit_batches(store, codes, seqs, size, args.commits, tag)
                        results[way][size].append(figures)
                    if before is not None:
                        after = await hot_share(db)
                        hot[way] = (after[0] - before[0], after[1] - before[1])
        finally:
            for store in stores.values():
                await store.close()
    print(
        f"{db.dialect}: {args.tables} tables, {args.commits} commits a batch size a round, "
        f"{args.rounds} rounds (the median round)"
    )
    for size in (1, 2):
        line = []
        medians = {}
        for way in WAYS:
            cpu = statistics.median(c for c, _ in results[way][size]) * 1e6
            wall = statistics.median(w for _, w in results[way][size]) * 1e6
            medians[way] = (cpu, wall)
            line.append(f"stamped {way}: CPU {cpu:6.1f} µs, wall {wall:6.1f} µs")
        base, ours = medians["every commit"], medians["once a minute"]
        print(f"  batch of {size}: " + "; ".join(line))
        print(
            f"    once a minute ÷ every commit: CPU {ours[0] / base[0]:.2f}, "
            f"wall {ours[1] / base[1]:.2f}"
        )
    for way, (updates, hot_updates) in hot.items():
        print(f"  heads updated (first round), stamped {way}: {updates}, HOT {hot_updates}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--db", default=None, help="database URL (default: temporary SQLite)")
    asyncio.run(main(parser.parse_args()))
