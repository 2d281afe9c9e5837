"""Issue 9: loading a table does not replay its whole log.

Every ``snapshot_every`` events the fold is stored (``bobing_snapshots``); a load is the latest
snapshot plus the events after it. The property that makes this safe: for every cut of every
log, folding the snapshot taken at the cut and then the rest equals folding the whole log.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sectools import Client, open_table, served

from bobing.realtime.backends import get_broker
from bobing.storage import Database, EventStore
from bobing.storage.event_store import TableSnapshot
from bobing.tables.limits import Limits
from bobing.tables.problems import ApiError
from bobing.tables.protocol import Command
from bobing.tables.runtime import Runtime, snapshot_of
from bobing.tables.service import TableService, fold
from bobing.tables.state import state_text
from bobing.tables.tokens import hash_token

NAMES = ["甲", "乙", "丙", "丁", "戊"]
SMALL = {"zhuangyuan": 1, "duitang": 1, "sanhong": 2, "sijin": 2, "erju": 3, "yixiu": 4}


def view(runtime: Runtime) -> dict[str, Any]:
    """Everything a fold decides."""
    return {
        "state": state_text(runtime),
        "game": None if runtime.game is None else [e.to_json() for e in runtime.game.events],
        "start_dice": runtime.start_dice,
        "fair_throws": runtime.fair_throws,
        "last_throw": runtime.last_throw,
        "end_reason": runtime.end_reason,
        "seed_revealed": runtime.seed_revealed,
        "throw_seqs": runtime.throw_seqs,
        "photos": runtime.photos,
        "commands": runtime.commands,
        "locked": runtime.locked,
        "removed": runtime.removed,
        "last_seq": runtime.last_seq,
        "status": runtime.status,
    }


async def _play(service: TableService, rng: random.Random) -> str:
    """A random referee game through the real service: lobby moves, throws, undos, pauses."""
    # Some with a time limit: the clock's deadline and pauses are folded too.
    time_limit = rng.choice([None, 30])
    # Some keep photos (issue 31): which throws have one is folded too.
    keep_photos = rng.random() < 0.5
    created = await service.create_table(
        name="快照", mode="referee", prizes=SMALL, time_limit=time_limit, keep_photos=keep_photos
    )
    code = created.code
    host = [hash_token(created.host_token)]
    ids = iter(range(10**6))

    async def send(kind: str, **args: Any) -> None:
        command = Command(kind, f"c{next(ids)}" if rng.random() < 0.8 else None, args)
        # A random move may be refused: the log stays as it was.
        with contextlib.suppress(ApiError):
            await service.execute(code, command, host)

    seated = rng.sample(NAMES, rng.randint(2, 5))
    for name in seated:
        await service.join(code, name)
    for _ in range(rng.randint(0, 4)):
        move = rng.choice(["lock", "unlock", "remove", "start_dice", "reorder"])
        runtime = await service.runtime(code)
        if move in ("lock", "unlock"):
            await send("lock", locked=move == "lock")
        elif move == "remove" and len(runtime.names) > 2:
            await send("remove", player=rng.choice(runtime.names))
        elif move == "start_dice":
            await send("start_dice", dice=[rng.randint(1, 6), rng.randint(1, 6)])
        elif move == "reorder":
            await send("reorder", players=rng.sample(runtime.names, len(runtime.names)))
    await send("start")
    for _ in range(rng.randint(5, 120)):
        runtime = await service.runtime(code)
        if runtime.over:
            break
        roll = rng.random()
        if runtime.game is not None and str(runtime.game.phase) == "grab":
            await send("grab", random=True)
        elif roll < 0.08:
            await send("undo")
        elif roll < 0.12:
            await send("pause")
            await send("resume")
        elif roll < 0.14:
            await send("throw", tiaohou=True)
        elif roll < 0.15:
            await send("end")
        elif keep_photos and roll < 0.5:
            photo_id = await service.keep_photo(code, b"\xff\xd8 a photo")
            await send("throw", dice=[rng.randint(1, 6) for _ in range(6)], photo_id=photo_id)
        else:
            await send("throw", dice=[rng.randint(1, 6) for _ in range(6)])
    return code


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), every=st.integers(1, 40))
# Found by this test: a removed player's start dice were dropped in memory but not by the fold.
@example(seed=21128, every=1)
def test_folding_a_snapshot_and_its_tail_equals_folding_the_log(
    tmp_path_factory: Any, seed: int, every: int
) -> None:
    asyncio.run(_property(tmp_path_factory.mktemp("snap"), seed, every))


async def _property(folder: Path, seed: int, every: int) -> None:
    db = Database(f"sqlite+aiosqlite:///{folder / 'bobing.sqlite3'}")
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    await broker.start()
    service = TableService(store, broker, limits=Limits(snapshot_every=every))
    try:
        code = await _play(service, random.Random(seed))
        await service.close()  # the snapshots being written are written
        loaded = await store.load(code)
        assert loaded is not None
        events = tuple(await store.events_after(code, 0))
        whole = TableSnapshot(loaded.info, loaded.seats, events, loaded.last_seq)
        expected = view(fold(whole))
        # What a restart does: the stored snapshot plus its tail.
        if loaded.last_seq >= every:
            assert loaded.fold is not None
            assert [e.seq for e in loaded.events] == [
                e.seq for e in events if e.seq > loaded.fold.seq
            ]
        assert view(fold(loaded)) == expected
        # Every cut of the log.
        for cut in range(len(events) + 1):
            prefix = TableSnapshot(loaded.info, loaded.seats, events[:cut], cut)
            snapshot = snapshot_of(fold(prefix))
            rest = TableSnapshot(
                loaded.info, loaded.seats, events[cut:], loaded.last_seq, fold=snapshot
            )
            assert view(fold(rest)) == expected, cut
    finally:
        await store.close()
        await broker.close()
        await db.dispose()


async def test_a_restart_loads_the_snapshot_and_the_tail(tmp_path: Path) -> None:
    async with served(tmp_path, "snapshot_every=25") as server:
        created, tokens = await open_table(server.http, ["甲", "乙"])
        code = created["code"]
        host = await Client.connect(server.url, code, [created["host_token"]])
        assert (await host.command("start"))["type"] == "ack"
        for i in range(60):
            assert (await host.command("pause" if i % 2 == 0 else "resume"))["type"] == "ack"
        before = (await server.http.get(f"/api/tables/{code}")).json()
        await server.restart()
        after = (await server.http.get(f"/api/tables/{code}")).json()
        assert after == before
        events = (await server.http.get(f"/api/tables/{code}/events")).json()["events"]
        assert [e["seq"] for e in events] == list(range(1, before["last_seq"] + 1))
        # The game goes on from the loaded fold.
        player = await Client.connect(server.url, code, [tokens[after["next"]]])
        reply = await player.command("throw", turn=1)
        assert reply["type"] == "ack", reply
    with sqlite3.connect(server.db_path) as conn:
        row = conn.execute(
            "SELECT seq FROM bobing_snapshots WHERE table_code = ?", (code,)
        ).fetchone()
    assert row is not None and before["last_seq"] - 25 < row[0] <= before["last_seq"]


async def test_a_snapshot_this_version_cannot_read_is_ignored(tmp_path: Path) -> None:
    from bobing.storage.event_store import FoldSnapshot

    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}")
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    await broker.start()
    service = TableService(store, broker)
    try:
        created = await service.create_table(name="旧快照")
        for name in ("甲", "乙"):
            await service.join(created.code, name)
        before = state_text(await service.runtime(created.code))
        head = (await service.runtime(created.code)).last_seq
        assert await store.save_snapshot(created.code, FoldSnapshot(head, {"version": 99}))
        # An older snapshot does not replace a newer one.
        assert not await store.save_snapshot(created.code, FoldSnapshot(head - 1, {}))
        service.evict(created.code)
        assert state_text(await service.runtime(created.code)) == before
    finally:
        await store.close()
        await broker.close()
        await db.dispose()


# -- issue 16: a snapshot written in the background while the next throws are committed -------


async def _throw_racing(
    service: TableService, tables: list[tuple[str, str, dict[str, str]]], rng: random.Random
) -> None:
    """Throws at every table at once, in a random interleaving: each snapshot's background
    write runs while later throws of its table are being committed."""

    async def one(code: str, tokens: dict[str, str]) -> None:
        for _ in range(rng.randint(1, 12)):
            runtime = await service.runtime(code)
            if runtime.over or runtime.game is None:
                return
            player = runtime.game.next_player
            assert player is not None
            command = Command("throw", None, {"turn": runtime.game.throw_count + 1})
            # Two copies of the same turn race: one wins, the other is turn_taken.
            racers = [service.execute(code, command, [hash_token(tokens[player])])]
            if rng.random() < 0.3:
                racers.append(service.execute(code, command, [hash_token(tokens[player])]))
            await asyncio.gather(*racers, return_exceptions=True)
            if rng.random() < 0.5:
                await asyncio.sleep(0)

    await asyncio.gather(*(one(code, tokens) for code, _, tokens in tables))


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), every=st.integers(1, 6), count=st.integers(1, 4))
@example(seed=1, every=1, count=3)
def test_snapshots_at_every_cut_while_throws_race_keep_every_record_verifiable(
    tmp_path_factory: Any, seed: int, every: int, count: int
) -> None:
    """Issue 16: a snapshot shared the live ``fair_throws`` list, so a throw committed before the
    background write ended up in the snapshot *and* in its tail: after a restart the record
    listed it twice and ``bobing verify`` failed an honest game."""
    asyncio.run(_racing_property(tmp_path_factory.mktemp("race"), seed, every, count))


async def _racing_property(folder: Path, seed: int, every: int, count: int) -> None:
    from bobing.engine.fairness import verify
    from bobing.tables.export import record_of

    rng = random.Random(seed)
    url = f"sqlite+aiosqlite:///{folder / 'bobing.sqlite3'}"
    db = Database(url)
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    await broker.start()
    limits = Limits(snapshot_every=every, max_events=0)
    service = TableService(store, broker, limits=limits)
    tables: list[tuple[str, str, dict[str, str]]] = []
    try:
        for _ in range(count):
            created = await service.create_table(name="竞速", mode="online", prizes=SMALL)
            tokens = {}
            for name in rng.sample(NAMES, rng.randint(2, 4)):
                tokens[name] = (await service.join(created.code, name))["player_token"]
            host = hash_token(created.host_token)
            await service.execute(created.code, Command("start", None, {}), [host])
            tables.append((created.code, host, tokens))
        await _throw_racing(service, tables, rng)
        await service.close()  # a clean shutdown: the snapshots being written are written
        # The restart: a new service on the same database folds snapshot + tail.
        service = TableService(store, broker, limits=limits)
        for code, host, tokens in tables:
            runtime = await service.runtime(code)
            throws = [f["throw"] for f in runtime.fair_throws]
            assert throws == sorted(set(throws)), (code, throws)
            if not runtime.over:
                await service.execute(code, Command("end", None, {}), [host])
            # Time called: the round is played out, then the seed is revealed.
            while not (runtime := await service.runtime(code)).over:
                assert runtime.game is not None and runtime.game.next_player is not None
                token = hash_token(tokens[runtime.game.next_player])
                await service.execute(code, Command("throw", None, {}), [token])
            record = record_of(runtime)
            assert record["fairness"]["server_seed"] is not None
            verify(record)  # raises RecordError on a throw listed twice
    finally:
        await service.close()
        await store.close()
        await broker.close()
        await db.dispose()
