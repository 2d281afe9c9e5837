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
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bobing.storage.db import Database
from bobing.storage.models import EventRow, SeatRow, TableRow


class StoreError(Exception):
    """Base of the storage layer's own outcomes (not user errors)."""


class StaleWrite(StoreError):
    """The table's log moved on since it was read: reload and decide again."""


class CodeTaken(StoreError):
    """A new table's code is already in use."""


def utcnow() -> datetime:
    """Now, in UTC, to the millisecond."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def iso(moment: datetime) -> str:
    """``2025-10-06T12:00:00.123Z``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _aware(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One committed event; ``data`` holds its JSON including ``type``."""

    seq: int
    type: str
    data: dict[str, Any]
    at: datetime
    command_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"seq", "type", "at", ...fields}`` as clients see it."""
        out: dict[str, Any] = {"seq": self.seq, "type": self.type, "at": iso(self.at)}
        for key, value in self.data.items():
            if key != "type":
                out[key] = value
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


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """Everything stored about a table: settings, seats in order, the whole log."""

    info: TableInfo
    seats: tuple[Seat, ...]
    events: tuple[StoredEvent, ...]
    last_seq: int


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


class EventStore:
    """Reads and writes tables and their logs."""

    def __init__(self, db: Database, *, max_batch: int = 256) -> None:
        self.db = db
        self.max_batch = max_batch
        self._queue: asyncio.Queue[tuple[Append, asyncio.Future[list[StoredEvent]]]] = (
            asyncio.Queue()
        )
        self._writers: list[asyncio.Task[None]] = []
        # One writer for SQLite (it has a single write lock anyway); a few for PostgreSQL.
        self._writer_count = 1 if db.dialect == "sqlite" else 4

    # -- tables ---------------------------------------------------------------------------

    async def create_table(
        self, info: TableInfo, events: Sequence[dict[str, Any]]
    ) -> list[StoredEvent]:
        """Insert a new table with its first events; :class:`CodeTaken` if the code exists."""
        at = info.created_at
        stored = [
            StoredEvent(seq, str(data["type"]), dict(data), at)
            for seq, data in enumerate(events, start=1)
        ]
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
                    )
                )
                if stored:
                    await conn.execute(insert(EventRow), [_event_row(info.code, e) for e in stored])
        except IntegrityError:
            raise CodeTaken(info.code) from None
        return stored

    async def load(self, code: str) -> TableSnapshot | None:
        """A table with its seats and its whole log, or None."""
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
            events = await _events(conn, code, 0, None)
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
        )
        return TableSnapshot(
            info=info,
            seats=tuple(Seat(s.name, s.seat, s.token_hash) for s in seats),
            events=tuple(events),
            last_seq=int(m["last_seq"]),
        )

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
        async with self.db.connect() as conn:
            value = (
                await conn.execute(
                    select(EventRow.seq).where(
                        EventRow.table_code == code, EventRow.command_id == command_id
                    )
                )
            ).scalar_one_or_none()
        return None if value is None else int(value)

    # -- appends --------------------------------------------------------------------------

    async def append(self, request: Append) -> list[StoredEvent]:
        """Commit ``request`` and return its stored events; :class:`StaleWrite` if the log moved."""
        if not self._writers:
            self._writers = [
                asyncio.create_task(self._writer(), name=f"bobing-writer-{i}")
                for i in range(self._writer_count)
            ]
        future: asyncio.Future[list[StoredEvent]] = asyncio.get_running_loop().create_future()
        await self._queue.put((request, future))
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
            batch = [await self._queue.get()]
            while len(batch) < self.max_batch and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            live = [(r, f) for r, f in batch if not f.done()]
            try:
                await self._write_batch(live)
            except IntegrityError:
                # Someone else wrote one of these seqs or command ids: settle each on its own.
                for item in live:
                    try:
                        await self._write_batch([item])
                    except IntegrityError:
                        if not item[1].done():
                            item[1].set_exception(StaleWrite(item[0].code))
                    except Exception as exc:
                        if not item[1].done():
                            item[1].set_exception(exc)
            except asyncio.CancelledError:
                for _, future in live:
                    if not future.done():
                        future.set_exception(StoreError("the store is closed"))
                raise
            except Exception as exc:
                for _, future in live:
                    if not future.done():
                        future.set_exception(exc)

    async def _write_batch(
        self, batch: list[tuple[Append, asyncio.Future[list[StoredEvent]]]]
    ) -> None:
        results: list[tuple[asyncio.Future[list[StoredEvent]], list[StoredEvent] | None]] = []
        rows: list[dict[str, Any]] = []
        async with self.db.engine.begin() as conn:
            for request, future in batch:
                new_seq = request.expected_seq + len(request.events)
                values: dict[str, Any] = {"last_seq": new_seq, "updated_at": request.at}
                if request.status is not None:
                    values["status"] = request.status
                outcome = await conn.execute(
                    update(TableRow)
                    .where(TableRow.code == request.code)
                    .where(TableRow.last_seq == request.expected_seq)
                    .values(**values)
                )
                if outcome.rowcount != 1:
                    results.append((future, None))
                    continue
                if request.seats is not None:
                    await conn.execute(delete(SeatRow).where(SeatRow.table_code == request.code))
                    if request.seats:
                        await conn.execute(
                            insert(SeatRow),
                            [
                                {
                                    "table_code": request.code,
                                    "name": s.name,
                                    "seat": s.seat,
                                    "token_hash": s.token_hash,
                                }
                                for s in request.seats
                            ],
                        )
                stored = [
                    StoredEvent(
                        request.expected_seq + i,
                        str(data["type"]),
                        dict(data),
                        request.at,
                        request.command_id if i == 1 else None,
                    )
                    for i, data in enumerate(request.events, start=1)
                ]
                rows.extend(_event_row(request.code, e) for e in stored)
                results.append((future, stored))
            if rows:
                await conn.execute(insert(EventRow), rows)
        for future, outcome_events in results:
            if future.done():
                continue
            if outcome_events is None:
                future.set_exception(StaleWrite())
            else:
                future.set_result(outcome_events)


def _event_row(code: str, event: StoredEvent) -> dict[str, Any]:
    return {
        "table_code": code,
        "seq": event.seq,
        "type": event.type,
        "data": event.data,
        "at": event.at,
        "command_id": event.command_id,
    }


async def _events(
    conn: AsyncConnection, code: str, after: int, limit: int | None
) -> list[StoredEvent]:
    query = (
        select(EventRow.seq, EventRow.type, EventRow.data, EventRow.at, EventRow.command_id)
        .where(EventRow.table_code == code, EventRow.seq > after)
        .order_by(EventRow.seq)
    )
    if limit is not None:
        query = query.limit(limit)
    rows = (await conn.execute(query)).all()
    return [StoredEvent(int(r.seq), r.type, r.data, _aware(r.at), r.command_id) for r in rows]
