"""Issue 17, bug 2: a plan decides on a copy; the runtime changes only after the commit.

A command refused at the store (here ``log_full``) must leave the cached runtime exactly the
fold of the log: once, the throw's plan moved the cached game on, the cache showed two throws
against one in the log, and the host's end then called time "after throw 2".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bobing.realtime.backends import get_broker
from bobing.storage import Database, EventStore
from bobing.tables.limits import Limits
from bobing.tables.problems import ApiError
from bobing.tables.protocol import Command
from bobing.tables.runtime import Runtime
from bobing.tables.service import TableService, fold
from bobing.tables.state import state_text
from bobing.tables.tokens import hash_token


def view(runtime: Runtime) -> dict[str, Any]:
    """What a runtime decides from: the game, the state clients see, the bookkeeping."""
    game = runtime.game
    return {
        "state": state_text(runtime),
        "game": None if game is None else (game.state, [e.to_json() for e in game.events]),
        "fair_throws": runtime.fair_throws,
        "last_throw": runtime.last_throw,
        "throw_seqs": runtime.throw_seqs,
        "last_seq": runtime.last_seq,
        "status": runtime.status,
        "seats": runtime.seats,
    }


async def test_a_refused_throw_leaves_the_runtime_the_fold_of_the_log(tmp_path: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}")
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    await broker.start()
    service = TableService(store, broker, limits=Limits(max_events=9))
    try:
        # A referee table: the faces are given, so the events each throw makes are known.
        created = await service.create_table(name="满桌", mode="referee")
        code = created.code
        host = [hash_token(created.host_token)]
        for name in ("甲", "乙"):
            await service.join(code, name)
        await service.execute(code, Command("start", "s", {"starter": "甲"}), host)
        yixiu = {"dice": [4, 1, 2, 3, 5, 5]}  # dice, thrown, awarded: three events
        await service.execute(code, Command("throw", "t1", {"turn": 1, **yixiu}), host)
        assert (await service.runtime(code)).last_seq == 7
        with pytest.raises(ApiError) as refused:
            await service.execute(code, Command("throw", "t2", {"turn": 2, **yixiu}), host)
        assert refused.value.code == "log_full"
        cached = await service.runtime(code)
        loaded = await store.load(code, use_snapshot=False)
        assert loaded is not None
        assert view(cached) == view(fold(loaded))
        assert cached.game is not None and cached.game.throw_count == 1
        # The host can still end the game; time is called after the throw in the log.
        await service.execute(code, Command("end", "e", {}), host)
        events = await store.events_after(code, 0)
        called = [e.data for e in events if e.type == "time_called"]
        assert [c["throw"] for c in called] == [1]
        assert [e.data["throw"] for e in events if e.type == "thrown"] == [1]
    finally:
        await service.close()
        await store.close()
        await broker.close()
        await db.dispose()
