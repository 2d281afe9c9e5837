"""The event store on SQLite and PostgreSQL: appends, optimistic concurrency, idempotency."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from bobing.storage import (
    Append,
    CodeTaken,
    Database,
    EventStore,
    Seat,
    StaleWrite,
    StoredEvent,
    StoreError,
    TableInfo,
)
from bobing.storage.db import MIGRATIONS
from bobing.storage.event_store import STAMP_EVERY, EncodedFold, FoldSnapshot, Stamps
from bobing.storage.models import TableRow
from tests.storage.storetools import table_info


def info(code: str = "ABC234") -> TableInfo:
    return table_info(code)


async def test_create_and_load(store: EventStore) -> None:
    stored = await store.create_table(info(), [{"type": "table_created", "name": "桌"}])
    assert [e.seq for e in stored] == [1]
    snapshot = await store.load("ABC234")
    assert snapshot is not None
    assert snapshot.info == info()
    assert snapshot.last_seq == 1
    assert snapshot.events[0].data == {"type": "table_created", "name": "桌"}
    assert snapshot.events[0].at == info().created_at
    assert await store.load("NOPE99") is None
    with pytest.raises(CodeTaken):
        await store.create_table(info(), [])


async def test_append_is_ordered_and_optimistic(store: EventStore) -> None:
    await store.create_table(info(), [{"type": "table_created"}])
    first = await store.append(
        Append("ABC234", 1, [{"type": "a", "n": 1}, {"type": "b"}], command_id="cmd-1")
    )
    assert [(e.seq, e.type, e.command_id) for e in first] == [(2, "a", "cmd-1"), (3, "b", None)]
    # A writer that read the log before it grew loses, and nothing of it is stored.
    with pytest.raises(StaleWrite):
        await store.append(Append("ABC234", 1, [{"type": "late"}]))
    assert await store.last_seq("ABC234") == 3
    assert await store.command_seq("ABC234", "cmd-1") == 2
    assert await store.command_seq("ABC234", "other") is None
    page = await store.events_after("ABC234", 1, 1)
    assert [e.seq for e in page] == [2]
    assert [e.to_json()["n"] for e in page] == [1]
    # Status and seats change with the append that moves the head.
    seats = [Seat("甲", 1, "t1" * 32), Seat("乙", 2, "t2" * 32)]
    await store.append(Append("ABC234", 3, [{"type": "joined"}], status="playing", seats=seats))
    snapshot = await store.load("ABC234")
    assert snapshot is not None
    assert snapshot.info.status == "playing"
    assert snapshot.seats == tuple(seats)
    assert [e.seq for e in snapshot.events] == [1, 2, 3, 4]
    # An append without a status keeps the table's.
    await store.append(Append("ABC234", 4, [{"type": "c"}, {"type": "d"}], command_id="cmd-2"))
    snapshot = await store.load("ABC234")
    assert snapshot is not None
    assert snapshot.info.status == "playing" and snapshot.last_seq == 6
    assert [(e.seq, e.command_id) for e in snapshot.events[-2:]] == [(5, "cmd-2"), (6, None)]
    # What an event holds comes back as it went in: its data, its moment to the microsecond.
    data = {"type": "e", "名": "甲\n乙", "n": [1, 2.5, {"x": None, "y": True}]}
    at = datetime(2026, 9, 17, 12, 0, 0, 123456, tzinfo=UTC)
    (appended,) = await store.append(Append("ABC234", 6, [data], at=at))
    snapshot = await store.load("ABC234")
    assert snapshot is not None
    assert snapshot.events[-1] == appended
    assert (appended.data, appended.at) == (data, at)
    # A moment without a zone is UTC, as everything stored is, whatever the session's zone.
    naive = datetime(2026, 9, 17, 20, 30, 0, 5000)
    await store.append(Append("ABC234", 7, [{"type": "f"}], at=naive))
    snapshot = await store.load("ABC234")
    assert snapshot is not None
    assert snapshot.events[-1].at == naive.replace(tzinfo=UTC)


async def test_last_activity_moves_with_a_new_status_at_once_else_once_a_minute(
    db: Database, store: EventStore
) -> None:
    """``updated_at`` (the retention sweep's clock) costs a commit an index entry: a throw
    moves it only once the last stamp is a minute old; a new status, or a table this store
    has not stamped, moves it at once; a write that lost stamps nothing."""

    async def updated(code: str = "ABC234") -> datetime:
        async with db.connect() as conn:
            query = select(TableRow.updated_at).where(TableRow.code == code)
            value: datetime = (await conn.execute(query)).scalar_one()
        return value if value.tzinfo else value.replace(tzinfo=UTC)  # SQLite's are naive UTC

    await store.create_table(info(), [{"type": "table_created"}])
    t0 = datetime(2026, 9, 17, 20, 0, tzinfo=UTC)
    second, every = timedelta(seconds=1), STAMP_EVERY
    await store.append(Append("ABC234", 1, [{"type": "a"}], at=t0))
    assert await updated() == t0
    await store.append(Append("ABC234", 2, [{"type": "b"}], at=t0 + every - second))
    assert await updated() == t0
    await store.append(Append("ABC234", 3, [{"type": "c"}], status="over", at=t0 + every))
    assert await updated() == t0 + every
    await store.append(Append("ABC234", 4, [{"type": "d"}], at=t0 + 2 * every - second))
    assert await updated() == t0 + every
    with pytest.raises(StaleWrite):
        await store.append(Append("ABC234", 1, [{"type": "late"}], at=t0 + 2 * every))
    await store.append(Append("ABC234", 5, [{"type": "e"}], at=t0 + 2 * every + second))
    assert await updated() == t0 + 2 * every + second
    assert await store.last_seq("ABC234") == 6
    # the sweep goes by the last stamp
    stamped, idle = t0 + 2 * every + second, t0 + timedelta(days=1)
    assert await store.sweep(over_before=stamped, idle_before=idle) == []
    assert await store.sweep(over_before=stamped + second, idle_before=idle) == ["ABC234"]
    # another store (a restarted server, another instance) stamps its first commit
    await store.create_table(info("XYZ234"), [{"type": "table_created"}])
    await store.append(Append("XYZ234", 1, [{"type": "a"}], at=t0))
    other = EventStore(db)
    try:
        await other.append(Append("XYZ234", 2, [{"type": "b"}], at=t0 + second))
    finally:
        await other.close()
    assert await updated("XYZ234") == t0 + second


def test_stamps_forget_what_is_due_anyway() -> None:
    stamps = Stamps(timedelta(minutes=1))
    t0 = datetime(2026, 9, 17, 20, 0, tzinfo=UTC)
    many = [Append(f"T{i:05d}", 1, [{"type": "a"}], at=t0) for i in range(500)]
    assert all(stamps.due(request) for request in many)
    stamps.made(many, [True] * 500, [[]] * 499 + [None])  # the last table had moved on
    assert len(stamps) == 499
    assert not stamps.due(many[0]) and stamps.due(many[-1])
    later = Append("T00000", 2, [{"type": "b"}], at=t0 + timedelta(seconds=61))
    assert stamps.due(later)
    stamps.made([later], [True], [[]])
    assert len(stamps) == 1
    assert not stamps.due(Append("T00000", 3, [{"type": "c"}], at=t0 + timedelta(seconds=90)))
    assert stamps.due(Append("T00001", 2, [{"type": "b"}], at=t0 + timedelta(seconds=62)))


async def test_racing_appends_exactly_one_wins(store: EventStore) -> None:
    await store.create_table(info(), [{"type": "table_created"}])
    results = await asyncio.gather(
        *(store.append(Append("ABC234", 1, [{"type": "throw", "by": i}])) for i in range(8)),
        return_exceptions=True,
    )
    won = [r for r in results if not isinstance(r, BaseException)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and len(lost) == 7
    assert all(isinstance(r, StaleWrite) for r in lost)
    assert await store.last_seq("ABC234") == 2


async def test_many_tables_share_a_batch(store: EventStore) -> None:
    codes = [f"T{i:05d}" for i in range(30)]
    for code in codes:
        await store.create_table(info(code), [{"type": "table_created"}])
    await asyncio.gather(
        *(store.append(Append(code, 1, [{"type": "x"}, {"type": "y"}])) for code in codes)
    )
    for code in codes:
        assert await store.last_seq(code) == 3


async def test_the_database_refuses_duplicates(db: Database, store: EventStore) -> None:
    """Even a writer that skips the optimistic check cannot reuse a seq or a command id."""
    await store.create_table(info(), [{"type": "table_created"}])
    await store.append(Append("ABC234", 1, [{"type": "a"}], command_id="once"))
    insert = text(
        "INSERT INTO bobing_events (table_code, seq, type, data, at, command_id) "
        "VALUES (:code, :seq, 'x', '{}', :at, :cid)"
    )
    at = datetime(2025, 10, 6, tzinfo=UTC)
    for seq, cid in ((2, None), (9, "once")):
        with pytest.raises(IntegrityError):
            async with db.engine.begin() as conn:
                await conn.execute(insert, {"code": "ABC234", "seq": seq, "at": at, "cid": cid})


async def test_migrations_are_idempotent(db: Database) -> None:
    await db.migrate()
    await db.migrate()
    assert await db.ping()
    async with db.connect() as conn:
        version = (
            await conn.execute(text("SELECT version_num FROM bobing_alembic_version"))
        ).scalar()
    assert version == _head_revision()


def _head_revision() -> str:

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


async def test_closed_store_fails_pending_appends(db: Database) -> None:
    store = EventStore(db)
    await store.create_table(info(), [{"type": "table_created"}])
    await store.append(Append("ABC234", 1, [{"type": "a"}]))
    await store.close()
    assert await store.last_seq("ABC234") == 2


async def test_tables_with_status_lists_the_games_in_play(store: EventStore) -> None:
    """What the server re-arms clocks from at start-up: the tables in play, with settings."""
    for code in ("ABC234", "DEF567", "GHJ892"):
        await store.create_table(info(code), [{"type": "table_created"}])
    for code, status in (("ABC234", "playing"), ("GHJ892", "over")):
        await store.append(Append(code, 1, [{"type": "started"}], status=status))
    assert await store.tables_with_status("playing") == [("ABC234", {"named_prizes": {}})]
    assert sorted(c for c, _ in await store.tables_with_status("lobby")) == ["DEF567"]


async def test_every_write_path_stores_the_command_binding(store: EventStore) -> None:
    """Issue 17: the id, sender and digest are stored by every path that writes events — on
    PostgreSQL a batch without seat changes is one statement, one with seats a transaction;
    on SQLite one synchronous batch — and read back by ``command``, ``load`` and
    ``events_after``."""
    await store.create_table(info(), [{"type": "table_created"}])
    seats = [Seat("甲", 1, "t1" * 32)]
    plain = Append("ABC234", 1, [{"type": "a"}, {"type": "b"}], command_id="k1",
                   sender="s1" * 32, digest="d1" * 32)  # fmt: skip
    seated = Append("ABC234", 3, [{"type": "joined"}], command_id="k2", seats=seats,
                    sender="s2" * 32, digest="d2" * 32)  # fmt: skip
    for request in (plain, seated):
        stored = await store.append(request)
        assert (stored[0].sender, stored[0].digest) == (request.sender, request.digest)
    for request in (plain, seated):
        assert request.command_id is not None
        found = await store.command("ABC234", request.command_id)
        assert found is not None
        assert (found.sender, found.digest) == (request.sender, request.digest)
    events = await store.events_after("ABC234", 1)
    assert [(e.command_id, e.sender, e.digest) for e in events] == [
        ("k1", "s1" * 32, "d1" * 32),
        (None, None, None),
        ("k2", "s2" * 32, "d2" * 32),
    ]
    snapshot = await store.load("ABC234")
    assert snapshot is not None
    assert [e.sender for e in snapshot.events[1:]] == ["s1" * 32, None, "s2" * 32]


async def test_commits_do_not_wait_for_a_connection_behind_reads(store: EventStore) -> None:
    """Issue 21: the writers commit on a pool of their own (PostgreSQL), so reads holding
    every connection of the main pool (a burst of catch-ups, say) do not hold up a throw."""
    db = store.db
    if db.dialect != "postgresql":
        pytest.skip("SQLite commits in its own writer thread")
    await store.create_table(info(), [{"type": "table_created"}])
    pool = db.engine.sync_engine.pool
    held = []
    try:
        for _ in range(pool.size() + pool._max_overflow):  # type: ignore[attr-defined]
            held.append(await db.connect().__aenter__())
        stored = await store.append(
            Append("ABC234", 1, [{"type": "throw"}, {"type": "thrown"}, {"type": "awarded"}])
        )
        assert [e.seq for e in stored] == [2, 3, 4]
        # Both appends (one statement, and with seats one transaction) take that way.
        seats = [Seat("甲", 1, "t" * 64)]
        stored = await store.append(Append("ABC234", 4, [{"type": "joined"}], seats=seats))
        assert [e.seq for e in stored] == [5]
    finally:
        for conn in held:
            await conn.__aexit__(None, None, None)


async def test_appends_queued_together_share_one_write_and_settle_alone(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: the appends of several tables waiting at one moment go to the database as one
    batch (one transaction), and each still gets its own outcome: the stale one fails alone."""
    for code in ("ABC234", "DEF567", "GHJ892"):
        await store.create_table(info(code), [{"type": "table_created"}])
    await store.append(Append("GHJ892", 1, [{"type": "moved"}]))
    batches: list[list[str]] = []
    write = store._write

    async def counting(requests: list[Append]) -> list[list[StoredEvent] | None]:
        batches.append([r.code for r in requests])
        return await write(requests)

    monkeypatch.setattr(store, "_write", counting)
    results = await asyncio.gather(
        store.append(Append("ABC234", 1, [{"type": "throw"}, {"type": "thrown"}])),
        store.append(Append("GHJ892", 1, [{"type": "late"}])),
        store.append(Append("DEF567", 1, [{"type": "throw"}])),
        return_exceptions=True,
    )
    assert batches == [["ABC234", "GHJ892", "DEF567"]]
    first, stale, third = results
    assert isinstance(first, list) and [e.seq for e in first] == [2, 3]
    assert isinstance(stale, StaleWrite)
    assert isinstance(third, list) and [e.seq for e in third] == [2]
    assert [await store.last_seq(c) for c in ("ABC234", "DEF567", "GHJ892")] == [3, 2, 2]
    assert [e.type for e in await store.events_after("GHJ892", 0)] == ["table_created", "moved"]


async def test_sqlite_append_waits_for_a_lock_held_elsewhere(
    db: Database, store: EventStore
) -> None:
    """SQLite: the writer commits on the event loop only when the write lock is free at once;
    while another connection holds it (a table being created, say) the append waits for it in
    the writer thread, and the loop goes on meanwhile."""
    if db.dialect != "sqlite":
        pytest.skip("the SQLite writer")
    await store.create_table(info(), [{"type": "table_created"}])
    await store.append(Append("ABC234", 1, [{"type": "a"}]))  # the writer is open
    async with db.engine.begin() as conn:
        await conn.execute(text("UPDATE bobing_tables SET name = 'held' WHERE code = 'ABC234'"))
        pending = asyncio.ensure_future(store.append(Append("ABC234", 2, [{"type": "b"}])))
        await asyncio.sleep(0.2)
        assert not pending.done()
    stored = await asyncio.wait_for(pending, 10)
    assert [e.seq for e in stored] == [3]
    snapshot = await store.load("ABC234")
    assert snapshot is not None and snapshot.info.name == "held"
    assert [e.type for e in snapshot.events] == ["table_created", "a", "b"]


async def test_a_batch_the_database_refuses_is_settled_append_by_append(
    store: EventStore,
) -> None:
    """A command id already used at a table (another instance wrote it) makes the database
    refuse the whole batch; each append is then written alone, and only that one fails."""
    for code in ("ABC234", "DEF567"):
        await store.create_table(info(code), [{"type": "table_created"}])
    await store.append(Append("ABC234", 1, [{"type": "a"}], command_id="used"))
    reused, fine = await asyncio.gather(
        store.append(Append("ABC234", 2, [{"type": "b"}], command_id="used")),
        store.append(Append("DEF567", 1, [{"type": "c"}], command_id="used")),
        return_exceptions=True,
    )
    assert isinstance(reused, StaleWrite)
    assert isinstance(fine, list) and [e.seq for e in fine] == [2]
    assert [await store.last_seq(c) for c in ("ABC234", "DEF567")] == [2, 2]


async def test_appends_within_the_window_share_a_batch(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: while appends keep coming, one that arrives as the writer waits for its
    window joins the batch (one commit for both); closing the store during a window fails
    what waits. After a quiet spell the first append commits at once."""
    store = EventStore(db, window=0.05, quiet=60)
    for code in ("ABC234", "DEF567"):
        await store.create_table(info(code), [{"type": "table_created"}])
    quiet = EventStore(db, window=60, quiet=0)
    await asyncio.wait_for(quiet.append(Append("ABC234", 1, [{"type": "alone"}])), 10)
    await quiet.close()
    await store.append(Append("DEF567", 1, [{"type": "alone"}]))  # the first: at once
    batches: list[list[str]] = []
    write = store._write

    async def counting(requests: list[Append]) -> list[list[StoredEvent] | None]:
        batches.append([r.code for r in requests])
        return await write(requests)

    monkeypatch.setattr(store, "_write", counting)
    first = asyncio.ensure_future(store.append(Append("ABC234", 2, [{"type": "a"}])))
    await asyncio.sleep(0.01)
    second = await store.append(Append("DEF567", 2, [{"type": "b"}]))
    assert [e.seq for e in await first] == [3] and [e.seq for e in second] == [3]
    assert batches == [["ABC234", "DEF567"]]
    waiting = asyncio.ensure_future(store.append(Append("ABC234", 3, [{"type": "c"}])))
    await asyncio.sleep(0.01)
    await store.close()
    with pytest.raises(StoreError):
        await waiting
    assert await store.last_seq("ABC234") == 3


async def test_a_snapshot_is_kept_only_when_newer_than_the_one_stored(store: EventStore) -> None:
    """On SQLite it is written on the appends' own connection, in one statement; on either
    database an older or equal snapshot leaves the stored one, and a table that is gone keeps
    none."""
    await store.create_table(info(), [{"type": "table_created"}])
    await store.append(Append("ABC234", 1, [{"type": "a"}, {"type": "b"}]))
    assert await store.save_snapshot("ABC234", FoldSnapshot(2, {"n": "二"}))
    assert not await store.save_snapshot("ABC234", FoldSnapshot(2, {"n": "same"}))
    assert not await store.save_snapshot("ABC234", FoldSnapshot(1, {"n": "older"}))
    loaded = await store.load("ABC234")
    assert loaded is not None and loaded.fold == FoldSnapshot(2, {"n": "二"})
    assert [e.seq for e in loaded.events] == [3]
    assert await store.save_snapshot("ABC234", FoldSnapshot(3, {"n": "三"}))
    loaded = await store.load("ABC234")
    assert loaded is not None and loaded.fold == FoldSnapshot(3, {"n": "三"})
    assert loaded.events == ()
    assert not await store.save_snapshot("GONE23", FoldSnapshot(1, {}))
    assert await store.load("GONE23") is None


async def test_a_snapshot_kept_as_its_text_loads_as_any_other(store: EventStore) -> None:
    """An :class:`EncodedFold` (the text ``tables.runtime.encoded_fold`` makes) is written as
    it is and read back as the data it encodes, under the same newer-only rule."""
    await store.create_table(info(), [{"type": "table_created"}])
    await store.append(Append("ABC234", 1, [{"type": "a"}, {"type": "b"}]))
    data = {"名": "甲\n乙", "n": [1, 2.5, {"x": None, "y": True}], "s": '"q"'}
    assert await store.save_snapshot("ABC234", EncodedFold(2, json.dumps(data)))
    loaded = await store.load("ABC234")
    assert loaded is not None and loaded.fold == FoldSnapshot(2, data)
    assert not await store.save_snapshot("ABC234", EncodedFold(1, json.dumps({"n": "older"})))
    assert await store.save_snapshot("ABC234", EncodedFold(3, json.dumps({"n": "三"})))
    loaded = await store.load("ABC234")
    assert loaded is not None and loaded.fold == FoldSnapshot(3, {"n": "三"})
    assert not await store.save_snapshot("GONE23", EncodedFold(1, "{}"))
