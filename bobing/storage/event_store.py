"""The event log: append with optimistic concurrency and idempotency, read from a sequence number.

Appends go through a small group-commit writer: the appends waiting at one moment (from many
tables) share one transaction. Each append still succeeds or fails on its own: its table row
is updated only if ``last_seq`` still has the value the writer read (else :class:`StaleWrite`),
and the primary key (table_code, seq) and the unique (table_code, command_id) are the backstop
when several server instances write to one PostgreSQL database.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple, TypeVar

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import delete, func, insert, or_, select, text
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bobing.engine.json_text import compact
from bobing.storage.db import COMMIT_WRITERS, Database
from bobing.storage.errors import CodeTaken as CodeTaken  # re-exported: the store raises them
from bobing.storage.errors import StaleWrite as StaleWrite
from bobing.storage.errors import StoreError as StoreError
from bobing.storage.models import EventRow, PhotoRow, SeatRow, SnapshotRow, TableRow

T = TypeVar("T")


def utcnow() -> datetime:
    """Now, in UTC, to the millisecond (truncated)."""
    return at_millisecond(time.time_ns() // 1_000_000)


def at_millisecond(millis: int) -> datetime:
    """The moment ``millis`` milliseconds after the epoch, in UTC. ``millis / 1000`` is within
    a quarter microsecond of it (for any year before 2200), and ``fromtimestamp`` rounds to the
    microsecond: exact, in a third of the time of ``datetime.now`` and ``replace``."""
    return datetime.fromtimestamp(millis / 1000, UTC)


@functools.lru_cache(maxsize=1024)
def iso(moment: datetime) -> str:
    """``2025-10-06T12:00:00.123Z``. (Remembered: the events of one commit, and the states
    and frames built from them, share their moment.)"""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _aware(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class StoredEvent(NamedTuple):
    """One committed event; ``data`` holds its JSON including ``type``. (A named tuple: as
    immutable as a frozen dataclass, and made in a quarter of the time — a throw makes four.)"""

    seq: int
    type: str
    data: dict[str, Any]
    at: datetime
    command_id: str | None = None
    sender: str | None = None
    """The sender's token hash (only beside a ``command_id``; never sent to clients)."""
    digest: str | None = None
    """A digest of the command (only beside a ``command_id``; never sent to clients)."""

    def to_json(self) -> dict[str, Any]:
        """``{"seq", "type", "at", ...fields}`` as clients see it."""
        out: dict[str, Any] = {"seq": self.seq, "type": self.type, "at": iso(self.at), **self.data}
        out["type"] = self.type  # the column's, in its place, whatever ``data`` says
        return out


@dataclass(frozen=True, slots=True)
class Seat:
    """A seated name, its position (1-based) and the hash of its player token."""

    name: str
    seat: int
    token_hash: str


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A table's settings and secrets as stored."""

    code: str
    name: str
    mode: str
    status: str
    rules: dict[str, Any]
    settings: dict[str, Any]
    host_token_hash: str
    play_token_hash: str | None
    server_seed: str
    commitment: str
    created_at: datetime
    creator: str | None = None
    """A hash of the creating address (the open-table quota); None for old tables."""
    gathering: str | None = None
    """The event's code for a table of an event (the open-event quota), else None."""


@dataclass(frozen=True, slots=True)
class FoldSnapshot:
    """A stored fold of a table's log as of event ``seq`` (what the web layer's runtime keeps);
    ``data`` is the web layer's JSON, opaque to the store."""

    seq: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EncodedFold:
    """A fold to keep (:meth:`EventStore.save_snapshot`) as the JSON text of its data, encoded
    once where it was taken: the store writes the text as it is, and what is kept is loaded as
    a :class:`FoldSnapshot` like any other."""

    seq: int
    text: str


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """Everything stored about a table: settings, seats in order, and its log as the latest
    fold snapshot (if any) plus the events after it (all events when there is none)."""

    info: TableInfo
    seats: tuple[Seat, ...]
    events: tuple[StoredEvent, ...]
    last_seq: int
    fold: FoldSnapshot | None = None
    """The latest snapshot; ``events`` are exactly those after ``fold.seq``."""


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """Where a command id was used: the first seq it produced, its sender and its digest."""

    seq: int
    sender: str | None
    digest: str | None


@dataclass(slots=True)
class Append:
    """Events to add after ``expected_seq``; optional new status and a full seat list."""

    code: str
    expected_seq: int
    events: Sequence[dict[str, Any]]
    command_id: str | None = None
    status: str | None = None
    seats: Sequence[Seat] | None = None
    at: datetime = field(default_factory=utcnow)
    sender: str | None = None
    """Stored with ``command_id``: the sender's token hash."""
    digest: str | None = None
    """Stored with ``command_id``: a digest of the command."""


COMMIT_WINDOW = 0.001
"""Seconds the appends of other tables have to join a batch: at a human pace they rarely wait
for one another, and each batch costs one commit (and on SQLite or PostgreSQL the same fixed
work around it) whatever its size. A throw waits at most this much longer, and only while
appends keep coming (:data:`QUIET`)."""
QUIET = 0.01
"""A writer whose previous batch began longer ago than this commits at once: nobody is about
to join (a table alone, a quiet server), so waiting would only add latency."""


STAMP_EVERY = timedelta(minutes=1)
"""How far behind a table's last activity its ``updated_at`` may be. Only the retention sweep
reads it, in days; moving it costs a commit an index entry (status, updated_at), so a throw
moves it only when the store's last stamp of that table is this old (:class:`Stamps`)."""


class Stamps:
    """When this store last moved each table's ``updated_at``, so that a commit moves it only
    when it is :data:`STAMP_EVERY` old, or the status changes (the sweep measures "over since"
    from it). Another instance's stamps are not known here: a table busy on several is stamped
    by each, at most once a ``every``."""

    def __init__(self, every: timedelta = STAMP_EVERY) -> None:
        self.every = every
        self._last: dict[str, datetime] = {}
        self._pruned = datetime.min.replace(tzinfo=UTC)

    def __len__(self) -> int:
        """How many tables' stamps it holds (those of the last ``every``, about)."""
        return len(self._last)

    def due(self, request: Append) -> bool:
        """Whether ``request``'s commit moves its table's ``updated_at``."""
        if request.status is not None:
            return True
        last = self._last.get(request.code)
        return last is None or _aware(request.at) - last >= self.every

    def made(
        self, requests: Sequence[Append], due: Sequence[bool], outcomes: Sequence[object]
    ) -> None:
        """Note the stamps a committed batch made (``outcomes``: None where a table moved on,
        so its head was not written); forget the ones old enough to be due anyway."""
        newest = self._pruned
        for request, stamped, outcome in zip(requests, due, outcomes, strict=True):
            if stamped and outcome is not None:
                at = self._last[request.code] = _aware(request.at)
                newest = max(newest, at)
        if newest - self._pruned >= self.every:
            self._last = {code: at for code, at in self._last.items() if newest - at < self.every}
            self._pruned = newest


class EventStore:
    """Reads and writes tables and their logs."""

    def __init__(
        self,
        db: Database,
        *,
        max_batch: int = 256,
        window: float = COMMIT_WINDOW,
        quiet: float = QUIET,
    ) -> None:
        self.db = db
        self.max_batch = max_batch
        self.window = window
        """Seconds a writer waits, after the first append of a batch, for more to join it."""
        self._gathering = asyncio.Lock()
        self.quiet = quiet
        """A writer whose previous batch began longer ago than this commits at once."""
        self._last_batch = float("-inf")
        self._queue: asyncio.Queue[tuple[Append, asyncio.Future[list[StoredEvent]]]] = (
            asyncio.Queue()
        )
        self._writers: list[asyncio.Task[None]] = []
        # One writer for SQLite (it has a single write lock anyway); a few for PostgreSQL.
        self._writer_count = 1 if db.dialect == "sqlite" else COMMIT_WRITERS
        self._sqlite_binds: _SqliteBinds | None = None
        self.stamps = Stamps()
        """When this store last moved each table's ``updated_at``."""

    def _binds(self) -> _SqliteBinds:
        if self._sqlite_binds is None:
            self._sqlite_binds = _SqliteBinds.of(self.db.engine.dialect)
        return self._sqlite_binds

    # -- tables ---------------------------------------------------------------------------

    async def create_table(
        self, info: TableInfo, events: Sequence[dict[str, Any]]
    ) -> list[StoredEvent]:
        """Insert a new table with its first events; :class:`CodeTaken` if the code exists."""
        at = info.created_at
        stored = _stored(Append(info.code, 0, events, at=at))
        try:
            async with self.db.engine.begin() as conn:
                await conn.execute(
                    insert(TableRow).values(
                        code=info.code,
                        name=info.name,
                        mode=info.mode,
                        status=info.status,
                        rules=info.rules,
                        settings=info.settings,
                        host_token_hash=info.host_token_hash,
                        play_token_hash=info.play_token_hash,
                        server_seed=info.server_seed,
                        commitment=info.commitment,
                        last_seq=len(stored),
                        created_at=at,
                        updated_at=at,
                        creator=info.creator,
                        gathering=info.gathering,
                    )
                )
                if stored:
                    await conn.execute(insert(EventRow), [_event_row(info.code, e) for e in stored])
        except IntegrityError:
            raise CodeTaken(info.code) from None
        return stored

    async def load(self, code: str, *, use_snapshot: bool = True) -> TableSnapshot | None:
        """A table with its seats, its latest fold snapshot and the events after it, or None.

        ``use_snapshot=False``: no snapshot, the whole log (for a snapshot that cannot be read).
        """
        async with self.db.connect() as conn:
            row = (
                await conn.execute(select(TableRow.__table__).where(TableRow.code == code))
            ).first()
            if row is None:
                return None
            seats = (
                await conn.execute(
                    select(SeatRow.name, SeatRow.seat, SeatRow.token_hash)
                    .where(SeatRow.table_code == code)
                    .order_by(SeatRow.seat)
                )
            ).all()
            stored = (
                (
                    await conn.execute(
                        select(SnapshotRow.seq, SnapshotRow.data).where(
                            SnapshotRow.table_code == code
                        )
                    )
                ).first()
                if use_snapshot
                else None
            )
            fold = None if stored is None else FoldSnapshot(int(stored.seq), stored.data)
            events = await _events(conn, code, 0 if fold is None else fold.seq, None)
        m = row._mapping
        info = TableInfo(
            code=m["code"],
            name=m["name"],
            mode=m["mode"],
            status=m["status"],
            rules=m["rules"],
            settings=m["settings"],
            host_token_hash=m["host_token_hash"],
            play_token_hash=m["play_token_hash"],
            server_seed=m["server_seed"],
            commitment=m["commitment"],
            created_at=_aware(m["created_at"]),
            creator=m["creator"],
            gathering=m["gathering"],
        )
        return TableSnapshot(
            info=info,
            seats=tuple(Seat(s.name, s.seat, s.token_hash) for s in seats),
            events=tuple(events),
            last_seq=int(m["last_seq"]),
            fold=fold,
        )

    async def save_snapshot(self, code: str, snapshot: FoldSnapshot | EncodedFold) -> bool:
        """Keep ``snapshot`` as the table's latest unless a newer one is stored; True if kept.

        One row per table: loading needs only the latest, and the events after it.
        """
        if isinstance(snapshot, FoldSnapshot):
            snapshot = EncodedFold(snapshot.seq, compact(snapshot.data))
        if self.db.dialect == "sqlite":
            # On the writer's own connection, like the appends: through the async engine it
            # took the write lock from another connection, and the appends meanwhile found it
            # busy and went the slow way (the writer thread, waiting for the lock).
            request = (self._binds(), code, snapshot)
            return await self.db.run_sync_write(_save_snapshot_sync, request)
        # Straight to the driver, one statement (as the appends): through SQLAlchemy a snapshot
        # cost a transaction of three round trips, and the data encoded again. On the readers'
        # pool: the commit pool's few connections are the writers'.
        async with self.db.engine.connect() as conn:
            raw = await conn.get_raw_connection()
            driver: Any = raw.driver_connection
            try:
                status = await driver.execute(
                    _SAVE_SNAPSHOT_PG, code, snapshot.seq, snapshot.text, utcnow()
                )
            except asyncpg.IntegrityConstraintViolationError:
                return False  # the table was swept meanwhile
        return str(status).endswith(" 1")  # "INSERT 0 1", or 0 where a newer one is kept

    async def open_gatherings(self, creator: str) -> int:
        """How many events created from ``creator`` have a table that is not over."""
        async with self.db.connect() as conn:
            value = (
                await conn.execute(
                    select(func.count(func.distinct(TableRow.gathering))).where(
                        TableRow.creator == creator,
                        TableRow.gathering.is_not(None),
                        TableRow.status != "over",
                    )
                )
            ).scalar_one()
        return int(value)

    async def open_tables(self, creator: str) -> int:
        """How many tables created from ``creator`` are not over (an event's tables aside:
        they count as one event, :meth:`open_gatherings`)."""
        async with self.db.connect() as conn:
            value = (
                await conn.execute(
                    select(func.count())
                    .select_from(TableRow)
                    .where(
                        TableRow.creator == creator,
                        TableRow.status != "over",
                        TableRow.gathering.is_(None),
                    )
                )
            ).scalar_one()
        return int(value)

    async def sweep(
        self, *, over_before: datetime, idle_before: datetime, batch: int = 200
    ) -> list[str]:
        """Delete tables over since ``over_before`` or untouched since ``idle_before``.

        At most ``batch`` tables per call (a short transaction); returns their codes.
        """
        async with self.db.engine.begin() as conn:
            codes = [
                str(c)
                for c in (
                    await conn.execute(
                        select(TableRow.code)
                        .where(
                            or_(
                                (TableRow.status == "over") & (TableRow.updated_at < over_before),
                                (TableRow.status != "over") & (TableRow.updated_at < idle_before),
                            )
                        )
                        .limit(batch)
                    )
                ).scalars()
            ]
            if codes:
                await _delete_tables(conn, codes)
        return codes

    async def delete_tables(self, codes: list[str]) -> None:
        """Delete these tables with their log, seats and snapshot, in one transaction (what a
        failed event creation made: nothing of it is left)."""
        if codes:
            async with self.db.engine.begin() as conn:
                await _delete_tables(conn, codes)

    async def tables_with_status(self, status: str) -> list[tuple[str, dict[str, Any]]]:
        """``(code, settings)`` of every table in ``status`` (e.g. the games in play)."""
        async with self.db.connect() as conn:
            rows = (
                await conn.execute(
                    select(TableRow.code, TableRow.settings).where(TableRow.status == status)
                )
            ).all()
        return [(row.code, dict(row.settings or {})) for row in rows]

    async def last_seq(self, code: str) -> int | None:
        """The table's log head, or None for an unknown table."""
        async with self.db.connect() as conn:
            value = (
                await conn.execute(select(TableRow.last_seq).where(TableRow.code == code))
            ).scalar_one_or_none()
        return None if value is None else int(value)

    async def events_after(
        self, code: str, after: int, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``seq > after``, oldest first, at most ``limit``."""
        async with self.db.connect() as conn:
            return await _events(conn, code, after, limit)

    async def command_seq(self, code: str, command_id: str) -> int | None:
        """The first seq of the events a command produced, if it was applied."""
        found = await self.command(code, command_id)
        return None if found is None else found.seq

    async def command(self, code: str, command_id: str) -> CommandRecord | None:
        """Where a command id was used at a table (seq, sender, digest), if it was."""
        async with self.db.connect() as conn:
            row = (
                await conn.execute(
                    select(EventRow.seq, EventRow.sender, EventRow.digest).where(
                        EventRow.table_code == code, EventRow.command_id == command_id
                    )
                )
            ).first()
        return None if row is None else CommandRecord(int(row.seq), row.sender, row.digest)

    # -- appends --------------------------------------------------------------------------

    async def append(self, request: Append) -> list[StoredEvent]:
        """Commit ``request`` and return its stored events; :class:`StaleWrite` if the log moved."""
        if not self._writers:
            self._writers = [
                asyncio.create_task(self._writer(), name=f"bobing-writer-{i}")
                for i in range(self._writer_count)
            ]
        future: asyncio.Future[list[StoredEvent]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((request, future))
        return await future

    async def close(self) -> None:
        """Stop the writers (pending appends fail)."""
        for task in self._writers:
            task.cancel()
        for task in self._writers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._writers = []
        while not self._queue.empty():
            _, future = self._queue.get_nowait()
            if not future.done():
                future.set_exception(StoreError("the store is closed"))

    async def _writer(self) -> None:
        while True:
            async with self._gathering:  # one writer gathers at a time: the others write
                batch = [await self._queue.get()]
                now = asyncio.get_running_loop().time()
                busy, self._last_batch = now - self._last_batch < self.quiet, now
                if busy and self.window > 0:
                    try:
                        await asyncio.sleep(self.window)
                    except asyncio.CancelledError:
                        self._queue.put_nowait(batch[0])  # close() fails it with the rest
                        raise
                while len(batch) < self.max_batch and not self._queue.empty():
                    batch.append(self._queue.get_nowait())
            live = [(r, f) for r, f in batch if not f.done()]
            requests = [r for r, _ in live]
            try:
                try:
                    outcomes = await self._write(requests)
                except IntegrityError:
                    # Someone else wrote one of these seqs or command ids: settle each alone.
                    outcomes = []
                    for request in requests:
                        try:
                            outcomes.extend(await self._write([request]))
                        except IntegrityError:
                            outcomes.append(None)
            except asyncio.CancelledError:
                for _, future in live:
                    if not future.done():
                        future.set_exception(StoreError("the store is closed"))
                raise
            except Exception as exc:
                for _, future in live:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (request, future), stored in zip(live, outcomes, strict=True):
                if future.done():
                    continue
                if stored is None:
                    future.set_exception(StaleWrite(request.code))
                else:
                    future.set_result(stored)

    async def _write(self, requests: list[Append]) -> list[list[StoredEvent] | None]:
        """One transaction for the batch; None marks a request whose table moved on."""
        seen: set[str] = set()
        first: list[Append] = []
        for request in requests:
            if request.code not in seen:
                seen.add(request.code)
                first.append(request)
        if len(first) < len(requests):
            # Two appends for one table in one batch: the later one is stale by definition.
            written = dict(zip(map(id, first), await self._write(first), strict=True))
            return [written.get(id(r)) for r in requests]
        due = [self.stamps.due(r) for r in requests]
        if self.db.dialect == "sqlite":
            # SQLite has one writer at a time anyway: the whole batch runs in the database's
            # own thread with a plain connection, so it costs the event loop one wake-up
            # instead of one per statement (which, with a thousand busy sockets, adds up).
            outcomes = await self.db.run_sync_write(
                _write_batch_sync, (self._binds(), requests, due)
            )
        elif all(r.seats is None for r in requests):
            outcomes = await self._write_postgres_one_statement(requests, due)
        else:
            outcomes = await self._write_postgres_transaction(requests)
            due = [True] * len(requests)
        self.stamps.made(requests, due, outcomes)
        return outcomes

    async def _write_postgres_one_statement(
        self, requests: list[Append], due: list[bool]
    ) -> list[list[StoredEvent] | None]:
        """The common batch (no seat changes) as one statement: one round trip, no BEGIN/COMMIT.

        A data-modifying CTE moves the heads still where each writer read them and inserts
        only the events of the tables it moved; one statement is one transaction. Round trips
        are what a busy database makes a commit wait for (every throw is such a batch).
        """
        stored = [_stored(r) for r in requests]
        heads: list[list[Any]] = []
        rows: list[list[Any]] = []
        for request, events, stamped in zip(requests, stored, due, strict=True):
            code, seq, at = request.code, request.expected_seq, _aware(request.at).isoformat()
            # no new updated_at (null) leaves the row's indexes as they are: a HOT update
            heads.append([code, seq, seq + len(events), request.status, at if stamped else None])
            # In the order of EVENT_COLUMNS; the data as itself (a JSON value in the JSON).
            rows.extend(
                [code, e.seq, e.type, e.data, at, e.command_id, e.sender, e.digest] for e in events
            )
        # Two JSON texts, not an array a column: asyncpg looks at every element of an array
        # it binds (an isinstance check against an abstract class each, and every time's
        # offset), which cost half a batch's time on the event loop; the database parses
        # JSON in C.
        bound = (compact(heads), compact(rows))

        async def move_and_append(conn: AsyncConnection) -> Any:
            # Straight to the driver (asyncpg): outside a transaction one statement commits
            # on its own, and SQLAlchemy's adaption (the greenlet, the compiled text, the
            # result) is most of a batch's cost on the event loop.
            raw = await conn.get_raw_connection()
            driver: Any = raw.driver_connection
            try:
                return await driver.fetch(_MOVE_AND_APPEND, *bound)
            except asyncpg.IntegrityConstraintViolationError as exc:
                raise IntegrityError(_MOVE_AND_APPEND, None, exc) from None

        won = {row[0] for row in await self._committing(move_and_append)}
        return [e if r.code in won else None for r, e in zip(requests, stored, strict=True)]

    async def _write_postgres_transaction(
        self, requests: list[Append]
    ) -> list[list[StoredEvent] | None]:
        # One UPDATE for the whole batch; RETURNING names the tables whose head was still
        # where the writer read it (optimistic concurrency across server instances).
        return await self._committing(functools.partial(_write_transaction, requests))

    async def _committing(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """``work`` on a connection of the commit pool, and once more on another where
        PostgreSQL ended the first without running it (a restart, ``pg_terminate_backend``):
        the pool checks out no connection it knows closed, but sends no ping to find out."""
        for attempt in (1, 2):
            async with self.db.commit_engine.connect() as conn:
                try:
                    return await work(conn)
                except Exception as exc:
                    if attempt == 2 or not _ended_unrun(exc):
                        raise
                    await conn.invalidate()
        raise AssertionError("unreachable: the second attempt returns or raises")


async def _write_transaction(
    requests: list[Append], conn: AsyncConnection
) -> list[list[StoredEvent] | None]:
    """A batch with seat changes, in one transaction on ``conn``."""
    async with conn.begin():
        moved = await conn.execute(
            text(
                "UPDATE bobing_tables AS t SET last_seq = v.new_seq, updated_at = v.at, "
                "status = COALESCE(v.status, t.status) "
                "FROM (SELECT unnest(CAST(:codes AS VARCHAR[])) AS code, "
                "unnest(CAST(:olds AS INTEGER[])) AS old_seq, "
                "unnest(CAST(:news AS INTEGER[])) AS new_seq, "
                "unnest(CAST(:statuses AS VARCHAR[])) AS status, "
                "unnest(CAST(:ats AS TIMESTAMPTZ[])) AS at) AS v "
                "WHERE t.code = v.code AND t.last_seq = v.old_seq RETURNING t.code"
            ),
            {
                "codes": [r.code for r in requests],
                "olds": [r.expected_seq for r in requests],
                "news": [r.expected_seq + len(r.events) for r in requests],
                "statuses": [r.status for r in requests],
                "ats": [r.at for r in requests],
            },
        )
        won = {row[0] for row in moved}
        outcomes, rows = _outcomes(requests, won)
        for request, stored in zip(requests, outcomes, strict=True):
            if stored is not None and request.seats is not None:
                await _replace_seats(conn, request)
        if rows:
            await conn.execute(insert(EventRow), rows)
    return outcomes


_UNRUN = frozenset({"57P01", "57P02"})
"""SQLSTATEs of a connection PostgreSQL ended before its statement ran or committed
(admin_shutdown, crash_shutdown)."""


def _ended_unrun(exc: BaseException) -> bool:
    """Whether ``exc`` (from asyncpg, or SQLAlchemy's wrapping of it) says the statement never
    ran: PostgreSQL ended the connection instead (:data:`_UNRUN`), or the driver would not send
    it, the connection being closed or still busy with the goodbye PostgreSQL sent while it sat
    in the pool. Running it again on another connection is then safe."""
    error: BaseException | None = exc
    for _ in range(4):  # SQLAlchemy's error, its DBAPI adaption, asyncpg's error
        if error is None:
            return False
        if getattr(error, "sqlstate", None) in _UNRUN or isinstance(
            error, asyncpg.InterfaceError | asyncpg.InternalClientError
        ):
            return True
        error = getattr(error, "orig", None) or error.__cause__
    return False


def _stored(request: Append) -> list[StoredEvent]:
    """The events ``request`` appends, numbered after its ``expected_seq``: the one place an
    event gets its seq, time and command binding (the id, the sender and the digest ride on
    the first event only), for every database path."""
    bound = request.command_id is not None
    return [
        StoredEvent(
            request.expected_seq + i,
            str(data["type"]),
            dict(data),
            request.at,
            request.command_id if i == 1 else None,
            request.sender if i == 1 and bound else None,
            request.digest if i == 1 and bound else None,
        )
        for i, data in enumerate(request.events, start=1)
    ]


def _outcomes(
    requests: list[Append], won: set[str]
) -> tuple[list[list[StoredEvent] | None], list[dict[str, Any]]]:
    outcomes: list[list[StoredEvent] | None] = []
    rows: list[dict[str, Any]] = []
    for request in requests:
        if request.code not in won:
            outcomes.append(None)
            continue
        stored = _stored(request)
        rows.extend(_event_row(request.code, e) for e in stored)
        outcomes.append(stored)
    return outcomes, rows


def _seat_rows(request: Append) -> list[dict[str, Any]]:
    return [
        {"table_code": request.code, "name": s.name, "seat": s.seat, "token_hash": s.token_hash}
        for s in request.seats or ()
    ]


async def _replace_seats(conn: AsyncConnection, request: Append) -> None:
    await conn.execute(delete(SeatRow).where(SeatRow.table_code == request.code))
    if request.seats:
        await conn.execute(insert(SeatRow), _seat_rows(request))


EVENT_COLUMNS = ("table_code", "seq", "type", "data", "at", "command_id", "sender", "digest")
"""Every column of an event row, in the order each writer binds them (:func:`_event_row`)."""

_MOVE_AND_APPEND = (
    "WITH v AS (SELECT h->>0 AS code, CAST(h->>1 AS INTEGER) AS old_seq, "
    "CAST(h->>2 AS INTEGER) AS new_seq, h->>3 AS status, CAST(h->>4 AS TIMESTAMPTZ) AS at "
    "FROM jsonb_array_elements(CAST(CAST($1 AS TEXT) AS JSONB)) AS h), "
    "moved AS (UPDATE bobing_tables AS t SET last_seq = v.new_seq, "
    "updated_at = COALESCE(v.at, t.updated_at), "
    "status = COALESCE(v.status, t.status) FROM v "
    "WHERE t.code = v.code AND t.last_seq = v.old_seq RETURNING t.code), "
    f"appended AS (INSERT INTO bobing_events ({', '.join(EVENT_COLUMNS)}) "
    "SELECT e->>0, CAST(e->>1 AS INTEGER), e->>2, e->3, CAST(e->>4 AS TIMESTAMPTZ), "
    "e->>5, e->>6, e->>7 "
    "FROM jsonb_array_elements(CAST(CAST($2 AS TEXT) AS JSONB)) AS e "
    "WHERE e->>0 IN (SELECT code FROM moved)) "
    "SELECT code FROM moved"
)
"""PostgreSQL: move the heads of a batch and append the events of the tables moved."""

# SQLite: a NULL bound to a statement costs the driver as much as a short row (``None`` is
# not a type it binds without looking for an adapter), so what is NULL is left out of the
# statement instead: a head without a new status, an event without a command (most of a
# throw's events; the command rides on the first). About half the time of binding them.
_UPDATE_HEAD = (
    "UPDATE bobing_tables SET last_seq = ?, updated_at = ? WHERE code = ? AND last_seq = ?"
)
_MOVE_HEAD = "UPDATE bobing_tables SET last_seq = ? WHERE code = ? AND last_seq = ?"
"""The head moved without a new ``updated_at`` (:class:`Stamps`): its index left alone."""
_UPDATE_HEAD_STATUS = (
    "UPDATE bobing_tables SET last_seq = ?, updated_at = ?, status = ? "
    "WHERE code = ? AND last_seq = ?"
)
_INSERT_EVENTS = (
    f"INSERT INTO bobing_events ({', '.join(EVENT_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in EVENT_COLUMNS)})"
)
PLAIN_EVENT_COLUMNS = EVENT_COLUMNS[:5]
"""An event row's columns without the command's (NULL but on a command's first event)."""
_INSERT_PLAIN_EVENTS = (
    f"INSERT INTO bobing_events ({', '.join(PLAIN_EVENT_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in PLAIN_EVENT_COLUMNS)})"
)


_DELETE_SEATS = "DELETE FROM bobing_seats WHERE table_code = ?"
_INSERT_SEAT = "INSERT INTO bobing_seats (table_code, name, seat, token_hash) VALUES (?, ?, ?, ?)"


def _processor(dialect: Dialect, column: Any) -> Callable[[Any], Any]:
    """The dialect's bind processor of a column type (how SQLAlchemy itself stores values)."""
    process = column.type.dialect_impl(dialect).bind_processor(dialect)
    return process if process is not None else _same


@dataclass(frozen=True, slots=True)
class _SqliteBinds:
    """SQLite: how the writer binds the values SQLAlchemy would convert (a time, JSON).

    Every time the writer stores (an event's ``at``, a table's ``updated_at``, a snapshot's
    ``at``) is a column of one type (:data:`MOMENT_COLUMNS`), so one processor binds them
    all, and a request's one moment is bound once for its head and its events."""

    moment: Callable[[Any], Any]
    data: Callable[[Any], Any]

    @classmethod
    def of(cls, dialect: Dialect) -> _SqliteBinds:
        events = EventRow.__table__.c
        return cls(_processor(dialect, events.at), _processor(dialect, events.data))


MOMENT_COLUMNS = (
    EventRow.__table__.c.at,
    TableRow.__table__.c.updated_at,
    SnapshotRow.__table__.c.at,
)
"""The columns the SQLite writer binds with :attr:`_SqliteBinds.moment`: one type (held so by
``tests/storage/test_sqlite_binds.py``)."""


_SAVE_SNAPSHOT_SQL = (
    "INSERT INTO bobing_snapshots (table_code, seq, data, at) VALUES ({}, {}, {}, {}) "
    "ON CONFLICT (table_code) DO UPDATE SET seq = excluded.seq, data = excluded.data, "
    "at = excluded.at WHERE excluded.seq > bobing_snapshots.seq"
)
"""A table's snapshot, kept unless the one stored is as new: one statement."""
_SAVE_SNAPSHOT = _SAVE_SNAPSHOT_SQL.format("?", "?", "?", "?")
_SAVE_SNAPSHOT_PG = _SAVE_SNAPSHOT_SQL.format(
    "$1", "$2", "CAST(CAST($3 AS TEXT) AS JSONB)", "CAST($4 AS TIMESTAMPTZ)"
)


def _save_snapshot_sync(
    conn: sqlite3.Connection, request: tuple[_SqliteBinds, str, EncodedFold]
) -> bool:
    """SQLite: :meth:`EventStore.save_snapshot` in the writer's transaction (a JSON column is
    its text)."""
    binds, code, snapshot = request
    try:
        cursor = conn.execute(
            _SAVE_SNAPSHOT, (code, snapshot.seq, snapshot.text, binds.moment(utcnow()))
        )
    except sqlite3.IntegrityError:
        return False  # the table was swept meanwhile
    return cursor.rowcount == 1


def _write_batch_sync(
    conn: sqlite3.Connection, batch: tuple[_SqliteBinds, list[Append], list[bool]]
) -> list[list[StoredEvent] | None]:
    """SQLite: the batch in the writer's transaction (:meth:`Database.run_sync_write`).

    Every statement goes straight to the DB-API cursor (values converted by the column
    types' own processors, so SQLAlchemy reads them back as usual); this is the server's
    busiest loop.
    """
    binds, requests, due = batch
    cursor = conn.cursor()
    outcomes: list[list[StoredEvent] | None] = []
    commands: list[tuple[Any, ...]] = []  # rows in the order of EVENT_COLUMNS
    plain: list[tuple[Any, ...]] = []  # rows in the order of PLAIN_EVENT_COLUMNS
    try:
        for request, stamped in zip(requests, due, strict=True):
            at = binds.moment(request.at)
            seq, code = request.expected_seq, request.code
            if not stamped:
                cursor.execute(_MOVE_HEAD, (seq + len(request.events), code, seq))
            elif request.status is None:
                cursor.execute(_UPDATE_HEAD, (seq + len(request.events), at, code, seq))
            else:
                cursor.execute(
                    _UPDATE_HEAD_STATUS,
                    (seq + len(request.events), at, request.status, code, seq),
                )
            if cursor.rowcount != 1:
                outcomes.append(None)
                continue
            if request.seats is not None:
                cursor.execute(_DELETE_SEATS, (code,))
                cursor.executemany(
                    _INSERT_SEAT, [(code, s.name, s.seat, s.token_hash) for s in request.seats]
                )
            stored = _stored(request)
            outcomes.append(stored)
            for e in stored:
                row = (code, e.seq, e.type, binds.data(e.data), at)
                if e.command_id is None:
                    plain.append(row)
                else:
                    commands.append((*row, e.command_id, e.sender, e.digest))
        if commands:
            cursor.executemany(_INSERT_EVENTS, commands)
        if plain:
            cursor.executemany(_INSERT_PLAIN_EVENTS, plain)
    except sqlite3.IntegrityError as exc:
        raise IntegrityError(_INSERT_EVENTS, None, exc) from None
    finally:
        cursor.close()
    return outcomes


def _same(value: Any) -> Any:
    return value


def _event_row(code: str, event: StoredEvent) -> dict[str, Any]:
    """The one row of ``bobing_events`` for ``event`` (keys: :data:`EVENT_COLUMNS`)."""
    return {
        "table_code": code,
        "seq": event.seq,
        "type": event.type,
        "data": event.data,
        "at": event.at,
        "command_id": event.command_id,
        "sender": event.sender,
        "digest": event.digest,
    }


async def _events(
    conn: AsyncConnection, code: str, after: int, limit: int | None
) -> list[StoredEvent]:
    query = (
        select(
            EventRow.seq,
            EventRow.type,
            EventRow.data,
            EventRow.at,
            EventRow.command_id,
            EventRow.sender,
            EventRow.digest,
        )
        .where(EventRow.table_code == code, EventRow.seq > after)
        .order_by(EventRow.seq)
    )
    if limit is not None:
        query = query.limit(limit)
    rows = (await conn.execute(query)).all()
    return [
        StoredEvent(int(r.seq), r.type, r.data, _aware(r.at), r.command_id, r.sender, r.digest)
        for r in rows
    ]


async def _delete_tables(conn: AsyncConnection, codes: list[str]) -> None:
    for model in (PhotoRow, SnapshotRow, EventRow, SeatRow):
        await conn.execute(delete(model).where(model.table_code.in_(codes)))
    await conn.execute(delete(TableRow).where(TableRow.code.in_(codes)))
