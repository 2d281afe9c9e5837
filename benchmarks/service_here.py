"""A table service in this process for the benchmarks: SQLite in a temporary folder, the
in-process broker; everything closed when the block ends. (Imported by its sibling scripts:
``python benchmarks/X.py`` puts this folder first on the path.)"""

from __future__ import annotations

import contextlib
import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TypeVar

from bobing.realtime.backends import get_broker
from bobing.storage import Database, EventStore
from bobing.tables.protocol import Command
from bobing.tables.service import TableService
from bobing.tables.tokens import hash_token

S = TypeVar("S", bound=TableService)


@contextlib.asynccontextmanager
async def temporary_database(url: str | None = None) -> AsyncIterator[Database]:
    """A migrated database until the block ends: ``url`` in a schema of its own (PostgreSQL,
    dropped after), or without one a SQLite file in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="bobing-bench-") as folder:
        url = url or f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
        schema = f"bench_{uuid.uuid4().hex[:8]}" if url.startswith("postgres") else None
        db = Database(url, schema=schema)
        await db.migrate()
        try:
            yield db
        finally:
            if schema is not None:
                await db.drop_schema()
            await db.dispose()


@contextlib.asynccontextmanager
async def temporary_service(kind: type[S]) -> AsyncIterator[S]:
    """A ``kind`` (a :class:`TableService`, or a class of it that records) until the block ends."""
    with tempfile.TemporaryDirectory(prefix="bobing-bench-") as folder:
        db = Database(f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}")
        await db.migrate()
        store = EventStore(db)
        broker = get_broker("memory://")
        await broker.start()
        service = kind(store, broker)
        try:
            yield service
        finally:
            await service.close()
            await store.close()
            await broker.close()
            await db.dispose()


async def play(
    service: TableService, code: str, host: list[str], players: int, throws: int
) -> None:
    """Seat ``players`` (玩家1…), start, and throw ``throws`` times (fewer if the game ends),
    each player with their own token and a nonce of the throw's number (the same game each
    run)."""
    tokens = {}
    for seat in range(players):
        name = f"玩家{seat + 1}"
        tokens[name] = [hash_token((await service.join(code, name))["player_token"])]
    await service.execute(code, Command("start", "s", {}), host)
    for turn in range(1, throws + 1):
        runtime = await service.runtime(code)
        if runtime.game is None or runtime.game.next_player is None:
            break
        player = runtime.game.next_player
        args = {"turn": turn, "nonce": f"n-{turn:06d}"}
        await service.execute(code, Command("throw", f"t{turn}", args), tokens[player])
