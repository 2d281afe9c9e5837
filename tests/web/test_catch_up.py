"""Issue 21: a cached table another instance wrote to catches up from the log's tail.

Two services on one database stand for two server instances. When one commits, the other
hears of it only through the broker's signal (``TableService.signal``, what the hub calls); its
next use of the table must then see exactly the fold of the log. A throw's or a reaction's
events are applied to the cached runtime (one read of the tail, no reload), at once rather than
at the next command; anything that needs the table's row (seats, status) reloads it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bobing.realtime.backends import get_broker
from bobing.storage import Database, EventStore
from bobing.storage.event_store import TableSnapshot
from bobing.tables.protocol import Command
from bobing.tables.runtime import Runtime, snapshot_of
from bobing.tables.service import CATCH_UPS_AT_ONCE, TableService, fold
from bobing.tables.state import state_text
from bobing.tables.tokens import hash_token


def view(runtime: Runtime) -> dict[str, Any]:
    """What a runtime decides from and shows: the state, the game, the bookkeeping."""
    game = runtime.game
    fields = snapshot_of(runtime).data
    return {
        "state": state_text(runtime),
        "game": None if game is None else (game.state, [e.to_json() for e in game.events]),
        "bookkeeping": fields,
        "last_seq": runtime.last_seq,
        "status": runtime.status,
        "seats": runtime.seats,
    }


class CountingStore(EventStore):
    """An event store that counts whole-table loads."""

    loads = 0

    async def load(self, code: str, *, use_snapshot: bool = True) -> TableSnapshot | None:
        self.loads += 1
        return await super().load(code, use_snapshot=use_snapshot)


async def test_the_other_instance_applies_throws_and_reloads_for_the_rest(
    tmp_path: Path,
) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}")
    await db.migrate()
    stores = [CountingStore(db), CountingStore(db)]
    brokers = [get_broker("memory://"), get_broker("memory://")]
    services = [TableService(s, b) for s, b in zip(stores, brokers, strict=True)]
    try:
        one, two = services
        created = await one.create_table(name="两台", mode="online")
        code = created.code
        tokens = {}
        for name in ("甲", "乙", "丙"):
            joined = await one.join(code, name)
            tokens[name] = [hash_token(joined["player_token"])]
        host = [hash_token(created.host_token)]
        await one.execute(code, Command("start", "s", {"starter": "甲"}), host)

        async def the_other_sees_the_log(service: TableService) -> Runtime:
            head = await service.store.last_seq(code)
            assert head is not None
            service.signal(code, head)
            # It catches up at once, in the background: not when its next command comes.
            await asyncio.gather(*service._background)
            runtime = await service.runtime(code)
            loaded = await service.store.load(code, use_snapshot=False)
            service.store.loads -= 1  # type: ignore[attr-defined]  # the check's own load
            assert loaded is not None
            assert view(runtime) == view(fold(loaded))
            return runtime

        # The second instance loads the table once (its seats and the start need the row).
        await the_other_sees_the_log(two)
        assert stores[1].loads == 1

        # Throws alternate between the instances, as when a table's phones are on both.
        for turn in range(1, 13):
            here, there = services[turn % 2], services[(turn + 1) % 2]
            runtime = await here.runtime(code)
            assert runtime.game is not None
            player = runtime.game.next_player
            assert player is not None
            throw = Command("throw", f"t{turn}", {"turn": turn})
            await here.execute(code, throw, tokens[player])
            if turn == 5:
                react = Command("react", "r", {"emoji": "👍"})
                await here.execute(code, react, tokens[player])
            await the_other_sees_the_log(there)
        # Every throw and the reaction were applied from the tail: no more whole loads.
        assert [s.loads for s in stores] == [0, 1]
        # ... and before either instance's next command: the signal started it.
        behind = await one.runtime(code)
        await two.execute(code, Command("react", "r2", {"emoji": "🎉"}), host)
        one.signal(code, behind.last_seq + 1)
        await asyncio.gather(*one._background)
        assert behind.last_seq == await one.store.last_seq(code)
        assert [s.loads for s in stores] == [0, 1]

        # Seats and status live in the table's row: the host's end makes the other reload.
        await one.execute(code, Command("end", "e", {}), host)
        ended = await the_other_sees_the_log(two)
        assert ended.status == "over"
        assert stores[1].loads == 2
    finally:
        for service in services:
            await service.close()
        for store in stores:
            await store.close()
        for broker in brokers:
            await broker.close()
        await db.dispose()


async def test_a_burst_of_signals_reads_a_few_tables_at_a_time(tmp_path: Path) -> None:
    """Each background catch-up holds a pooled connection while it reads: a burst of signals
    must leave connections for the commands (at most CATCH_UPS_AT_ONCE read at once)."""
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}")
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    service = TableService(store, broker)
    reading = most = 0
    events_after = store.events_after

    async def counted(code: str, after: int, limit: int | None = None) -> Any:
        nonlocal reading, most
        reading += 1
        most = max(most, reading)
        try:
            for _ in range(5):
                await asyncio.sleep(0)
            return await events_after(code, after, limit)
        finally:
            reading -= 1

    store.events_after = counted  # type: ignore[method-assign]
    try:
        codes = [(await service.create_table(name=f"桌{i}")).code for i in range(24)]
        for code in codes:
            service.signal(code, 99)  # further than the log: each reads, then reloads
        await asyncio.gather(*service._background)
        assert most == CATCH_UPS_AT_ONCE
    finally:
        await service.close()
        await store.close()
        await broker.close()
        await db.dispose()
