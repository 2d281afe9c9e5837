"""What taking and keeping a table's snapshot costs the server: as JSON text encoded once,
against the parsed copy the store encodes again (the baseline).

    .venv/bin/python benchmarks/bench_snapshot.py [--throws 200] [--snapshots 50] [--rounds 5]
                                                  [--db URL]

A table of ten plays ``--throws`` throws through the table service (the game as a server has
it after that many). Then, ``--rounds`` times and each way in turn, ``--snapshots`` snapshots
are taken of it and kept (``EventStore.save_snapshot``), each newer than the last:

- ``encoded``: ``runtime.encoded_fold`` — the fold's JSON text, written as it is (what the
  server does every ``snapshot_every`` events);
- ``parsed`` (the baseline): ``runtime.snapshot_of`` — the same text parsed back into a copy,
  which the store encodes again.

Printed: the CPU of this process a snapshot, taken and kept (ms, the median round), the
snapshot's size, and the ratio. Default database: a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable

from service_here import temporary_service

from bobing.storage import Database, EventStore
from bobing.storage.event_store import EncodedFold, FoldSnapshot
from bobing.tables.protocol import Command
from bobing.tables.runtime import Runtime, encoded_fold, snapshot_of
from bobing.tables.service import TableService
from bobing.tables.tokens import hash_token

PLAYERS = 10


def shifted(
    take: Callable[[Runtime], EncodedFold | FoldSnapshot], step: int
) -> Callable[[Runtime], EncodedFold | FoldSnapshot]:
    """``take``, its snapshot numbered ``step`` past the runtime's head (so each is newer)."""

    def taken(runtime: Runtime) -> EncodedFold | FoldSnapshot:
        snapshot = take(runtime)
        if isinstance(snapshot, EncodedFold):
            return EncodedFold(snapshot.seq + step, snapshot.text)
        return FoldSnapshot(snapshot.seq + step, snapshot.data)

    return taken


async def played(service: TableService, throws: int) -> Runtime:
    """A table of ten after ``throws`` throws (fewer if its game ends first)."""
    created = await service.create_table(name="snapshot", mode="online")
    tokens: dict[str, tuple[str, ...]] = {}
    for seat in range(PLAYERS):
        joined = await service.join(created.code, f"p{seat}")
        tokens[f"p{seat}"] = (hash_token(joined["player_token"]),)
    host = [hash_token(created.host_token)]
    await service.execute(created.code, Command("start", "s", {"starter": "p0"}), host)
    runtime = await service.runtime(created.code)
    for index in range(throws):
        game = runtime.game
        if game is None or game.next_player is None:
            break
        turn = {"turn": game.throw_count + 1}
        await service.execute(
            created.code, Command("throw", f"t{index}", turn), tokens[game.next_player]
        )
    return runtime


async def main(args: argparse.Namespace) -> None:
    async with temporary_service(TableService) as service:
        store: EventStore = service.store
        if args.db:  # the game is played on SQLite; its snapshots are kept on --db
            db = Database(args.db)
            await db.migrate()
            store = EventStore(db)
        runtime = await played(service, args.throws)
        if store is not service.store:
            loaded = await service.store.load(runtime.code)
            assert loaded is not None
            await store.create_table(loaded.info, [{"type": "table_created"}])
        ways = {"encoded": encoded_fold, "parsed": snapshot_of}
        spent: dict[str, list[float]] = {way: [] for way in ways}
        step = 0
        for _ in range(args.rounds):
            for way, take in ways.items():
                cpu = 0.0
                for _ in range(args.snapshots):
                    step += 1
                    start = time.process_time()
                    kept = await store.save_snapshot(runtime.code, shifted(take, step)(runtime))
                    cpu += time.process_time() - start
                    assert kept, "a snapshot newer than the last was not kept"
                spent[way].append(cpu / args.snapshots)
        size = len(encoded_fold(runtime).text)
        if store is not service.store:
            await store.delete_tables([runtime.code])
            await store.close()
            await store.db.dispose()
    game = runtime.game
    print(
        f"{store.db.dialect}: a snapshot after {0 if game is None else game.throw_count} throws "
        f"({runtime.last_seq} events, {size:,} bytes), {args.snapshots} a round, {args.rounds} "
        "rounds (the median round)"
    )
    medians = {way: statistics.median(values) * 1e3 for way, values in spent.items()}
    for way, value in medians.items():
        print(f"  {way:8} {value:6.2f} ms CPU a snapshot taken and kept")
    print(f"  encoded ÷ parsed: {medians['encoded'] / medians['parsed']:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throws", type=int, default=200)
    parser.add_argument("--snapshots", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--db", default=None, help="where the snapshots are kept (default: SQLite)")
    asyncio.run(main(parser.parse_args()))
