"""Loading a table with a long log: the latest snapshot and its tail, against the whole log.

    .venv/bin/python benchmarks/bench_load.py [--events 30000] [--every 500] [--db URL]

A table gets ``--events`` host events (pause/resume, as in issue 9), then a snapshot is stored
as the server stores them (every ``--every`` events). Measured in the same run, best of 5:

- ``snapshot + tail``: ``EventStore.load`` (the latest snapshot and the events after it) and
  ``cache.fold`` — what a restart or an evicted table costs now;
- ``whole log`` (the baseline): ``EventStore.load(use_snapshot=False)`` and the same fold.

Default database: a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bobing.realtime.backends import get_broker
from bobing.storage import Append, Database, EventStore
from bobing.tables.cache import fold
from bobing.tables.limits import Limits
from bobing.tables.runtime import snapshot_of
from bobing.tables.service import TableService


async def run(db_url: str, events: int, every: int) -> None:
    db = Database(db_url)
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    await broker.start()
    service = TableService(store, broker, limits=Limits(snapshot_every=every))
    try:
        created = await service.create_table(name="long log")
        code = created.code
        for name in ("甲", "乙"):
            await service.join(code, name)
        head = (await service.runtime(code)).last_seq
        batch = 1000
        while head < events:
            count = min(batch, events - head)
            kinds = [{"type": "paused" if (head + i) % 2 == 0 else "resumed"} for i in range(count)]
            stored = await store.append(Append(code, head, kinds))
            head = stored[-1].seq
        # The snapshot the server would have stored last (at a multiple of --every).
        whole = await store.load(code, use_snapshot=False)
        assert whole is not None
        cut = head - head % every
        prefix = type(whole)(whole.info, whole.seats, whole.events[:cut], cut)
        await store.save_snapshot(code, snapshot_of(fold(prefix)))

        async def timed(use_snapshot: bool) -> float:
            best = float("inf")
            for _ in range(5):
                started = time.perf_counter()
                loaded = await store.load(code, use_snapshot=use_snapshot)
                assert loaded is not None
                fold(loaded)
                best = min(best, time.perf_counter() - started)
            return best

        fast = await timed(True)
        slow = await timed(False)
        print(f"{head} events, snapshot at {cut} (every {every}), {db.dialect}")
        print(f"snapshot + tail   {fast * 1000:8.1f} ms")
        print(f"whole log         {slow * 1000:8.1f} ms")
        print(f"ratio             {slow / fast:8.1f}x")
    finally:
        await store.close()
        await broker.close()
        await db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--every", type=int, default=500)
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bobing-load-") as folder:
        url = args.db or f"sqlite+aiosqlite:///{Path(folder) / 'load.sqlite3'}"
        asyncio.run(run(url, args.events, args.every))


if __name__ == "__main__":
    main()
