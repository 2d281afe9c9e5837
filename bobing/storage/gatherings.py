"""Events (an organiser's gathering of many tables), stored beside the tables they group.

The tables are called *gatherings* here because ``bobing_events`` is the tables' event log.
A gathering row holds the organiser's plan (``spec``: rules, mode, people, seating, prize
set, budget), the tables it created (number, code, seated names), the secrets the server
hands out on a seat claim (each seat's player token; never sent by a read), and the playoff
once started. A claim is a row of its own: the primary key makes a seat claimable once. So
is a check-in at the door (签到, RULES.md §9.4): one row per person who came, so two devices at
the door never overwrite each other; an event that checks people in gets its tables once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, delete, insert, select, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from bobing.storage.db import Database
from bobing.storage.event_store import CodeTaken, utcnow
from bobing.storage.models import Base

JSONType = JSON().with_variant(JSONB(), "postgresql")


class GatheringRow(Base):
    """One organiser's event."""

    __tablename__ = "bobing_gatherings"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    organizer_token_hash: Mapped[str] = mapped_column(String(64))
    spec: Mapped[dict[str, Any]] = mapped_column(JSONType)
    tables: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
    secrets: Mapped[dict[str, Any]] = mapped_column(JSONType)
    playoff: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ClaimRow(Base):
    """A seat someone claimed by tapping their name."""

    __tablename__ = "bobing_gathering_claims"

    event_code: Mapped[str] = mapped_column(
        String(16), ForeignKey("bobing_gatherings.code", ondelete="CASCADE"), primary_key=True
    )
    table_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class CheckinRow(Base):
    """Someone who came: checked in at the door before the tables are seated."""

    __tablename__ = "bobing_gathering_checkins"

    event_code: Mapped[str] = mapped_column(
        String(16), ForeignKey("bobing_gatherings.code", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    checked_in_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True, slots=True)
class Gathering:
    """An event as stored."""

    code: str
    name: str
    organizer_token_hash: str
    spec: dict[str, Any]
    tables: list[dict[str, Any]]
    secrets: dict[str, Any]
    playoff: dict[str, Any] | None
    created_at: datetime
    claims: frozenset[tuple[int, str]] = frozenset()
    present: frozenset[str] = frozenset()
    """Names checked in at the door."""


class SeatClaimed(Exception):
    """That seat was claimed already."""


class GatheringStore:
    """Reads and writes events."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(self, gathering: Gathering) -> None:
        """Insert a new event; :class:`CodeTaken` when its code exists."""
        try:
            async with self.db.engine.begin() as conn:
                await conn.execute(
                    insert(GatheringRow).values(
                        code=gathering.code,
                        name=gathering.name,
                        organizer_token_hash=gathering.organizer_token_hash,
                        spec=gathering.spec,
                        tables=gathering.tables,
                        secrets=gathering.secrets,
                        # omitted when None: SQL NULL, not JSON null (set_playoff tests IS NULL)
                        **({} if gathering.playoff is None else {"playoff": gathering.playoff}),
                        created_at=gathering.created_at,
                        updated_at=gathering.created_at,
                    )
                )
        except IntegrityError:
            raise CodeTaken(gathering.code) from None

    async def get(self, code: str) -> Gathering | None:
        """An event with its claims, or None."""
        async with self.db.connect() as conn:
            row = (
                await conn.execute(select(GatheringRow.__table__).where(GatheringRow.code == code))
            ).first()
            if row is None:
                return None
            claims = (
                await conn.execute(
                    select(ClaimRow.table_number, ClaimRow.name).where(ClaimRow.event_code == code)
                )
            ).all()
            present = (
                await conn.execute(select(CheckinRow.name).where(CheckinRow.event_code == code))
            ).all()
        m = row._mapping
        return Gathering(
            code=m["code"],
            name=m["name"],
            organizer_token_hash=m["organizer_token_hash"],
            spec=m["spec"],
            tables=m["tables"],
            secrets=m["secrets"],
            playoff=m["playoff"],
            created_at=m["created_at"],
            claims=frozenset((int(n), str(name)) for n, name in claims),
            present=frozenset(str(name) for (name,) in present),
        )

    async def set_playoff(self, code: str, playoff: dict[str, Any]) -> bool:
        """Record the playoff once; False if the event already has one."""
        async with self.db.engine.begin() as conn:
            result = await conn.execute(
                update(GatheringRow)
                .where(GatheringRow.code == code, GatheringRow.playoff.is_(None))
                .values(playoff=playoff, updated_at=utcnow())
            )
        return bool(result.rowcount)

    async def claim(self, code: str, table_number: int, name: str) -> None:
        """Mark a seat claimed; :class:`SeatClaimed` if it was."""
        try:
            async with self.db.engine.begin() as conn:
                await conn.execute(
                    insert(ClaimRow).values(
                        event_code=code, table_number=table_number, name=name, claimed_at=utcnow()
                    )
                )
        except IntegrityError:
            raise SeatClaimed(f"{table_number}/{name}") from None

    async def release(self, code: str, table_number: int, name: str) -> bool:
        """Free a claimed seat again (the organiser's undo of a wrong tap)."""
        async with self.db.engine.begin() as conn:
            result = await conn.execute(
                delete(ClaimRow).where(
                    ClaimRow.event_code == code,
                    ClaimRow.table_number == table_number,
                    ClaimRow.name == name,
                )
            )
        return bool(result.rowcount)

    async def replace_claim_key(
        self, code: str, table_number: int, name: str, key: str, retired: str
    ) -> bool:
        """Give a seat the claim key ``key``; its old key's hash (``retired``) is kept, so a
        card printed before is told it was replaced. In one transaction, the row read under
        ``FOR UPDATE`` (two organiser devices at once keep both retired keys)."""
        async with self.db.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(GatheringRow.secrets).where(GatheringRow.code == code).with_for_update()
                )
            ).first()
            if row is None:
                return False
            secrets = dict(row.secrets)
            keys = {k: dict(v) for k, v in secrets.get("claim_keys", {}).items()}
            keys.setdefault(str(table_number), {})[name] = key
            old = {k: dict(v) for k, v in secrets.get("retired_keys", {}).items()}
            seat = old.setdefault(str(table_number), {})
            seat[name] = [*seat.get(name, []), retired]
            secrets.update(claim_keys=keys, retired_keys=old)
            await conn.execute(
                update(GatheringRow)
                .where(GatheringRow.code == code)
                .values(secrets=secrets, updated_at=utcnow())
            )
        return True

    async def check_in(self, code: str, name: str, present: bool) -> None:
        """Mark ``name`` as come (or undo a wrong tick); idempotent."""
        async with self.db.engine.begin() as conn:
            await conn.execute(
                delete(CheckinRow).where(CheckinRow.event_code == code, CheckinRow.name == name)
            )
            if present:
                await conn.execute(
                    insert(CheckinRow).values(event_code=code, name=name, checked_in_at=utcnow())
                )

    async def set_tables(
        self, code: str, tables: list[dict[str, Any]], secrets: dict[str, Any]
    ) -> bool:
        """Store the tables of an event seated after its check-in, once: False if it has them.

        The guard is the ``seated`` mark in the secrets, read under ``FOR UPDATE`` (PostgreSQL;
        SQLite has one writer), so two organiser devices pressing "seat" at once store one set.
        """
        async with self.db.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(GatheringRow.secrets).where(GatheringRow.code == code).with_for_update()
                )
            ).first()
            if row is None or row.secrets.get("seated"):
                return False
            result = await conn.execute(
                update(GatheringRow)
                .where(GatheringRow.code == code)
                .values(tables=tables, secrets={**secrets, "seated": True}, updated_at=utcnow())
            )
        return bool(result.rowcount)

    async def update_tables(self, code: str, tables: list[dict[str, Any]]) -> None:
        """Rewrite the tables' plan (a table's start thrower chosen on the dashboard)."""
        async with self.db.engine.begin() as conn:
            await conn.execute(
                update(GatheringRow)
                .where(GatheringRow.code == code)
                .values(tables=tables, updated_at=utcnow())
            )
