"""The tables of the server: tables, seats, the per-table event log and its snapshots.

Names carry a ``bobing_`` prefix so the schema can share a database with other applications.
``bobing_events`` is the truth: the primary key (table_code, seq) makes two writers for the
same sequence number impossible, and (table_code, command_id) applies a command only once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

JSONType = JSON().with_variant(JSONB(), "postgresql")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base with stable constraint names (migrations refer to them)."""

    metadata = MetaData(naming_convention=NAMING)


class TableRow(Base):
    """One 博饼 table: its settings, secrets (hashed tokens, the server seed) and log head."""

    __tablename__ = "bobing_tables"
    __table_args__ = (Index("ix_bobing_tables_status_updated", "status", "updated_at"),)

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    mode: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    rules: Mapped[dict[str, Any]] = mapped_column(JSONType)
    settings: Mapped[dict[str, Any]] = mapped_column(JSONType)
    host_token_hash: Mapped[str] = mapped_column(String(64))
    play_token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    server_seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    last_seq: Mapped[int] = mapped_column(Integer)
    """The log head, and the optimistic-concurrency version: writers update it from the value
    they read, and lose (rowcount 0) if someone else got there first."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    """The table's last activity, for the retention sweep: moved by a new status at once, by
    other commits once it is a minute behind (``event_store.Stamps``)."""
    creator: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    """A hash of the address that created the table (the open-table quota)."""
    gathering: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    """The event the table belongs to (its tables count as one open event, not as tables)."""


class SeatRow(Base):
    """A name seated at a table, with the hash of its player token."""

    __tablename__ = "bobing_seats"

    table_code: Mapped[str] = mapped_column(
        String(16), ForeignKey("bobing_tables.code", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)


_HAS_COMMAND = text("command_id IS NOT NULL")


class EventRow(Base):
    """One event of a table's log; ``data`` is the event's JSON (without seq and at)."""

    __tablename__ = "bobing_events"
    __table_args__ = (
        # Only a command's first event carries its id (migration 0008: the others are not in it).
        Index(
            "uq_bobing_events_command",
            "table_code",
            "command_id",
            unique=True,
            sqlite_where=_HAS_COMMAND,
            postgresql_where=_HAS_COMMAND,
        ),
    )

    table_code: Mapped[str] = mapped_column(
        String(16), ForeignKey("bobing_tables.code", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(JSONType)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    command_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    """The idempotency key of the command that produced this event (first event only)."""
    sender: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The token hash of the command's sender (with ``command_id``): a key belongs to one."""
    digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """A digest of the command (type and fields): a key names one command."""


class SnapshotRow(Base):
    """The latest stored fold of a table's log, as of event ``seq`` (see docs/architecture.md)."""

    __tablename__ = "bobing_snapshots"

    table_code: Mapped[str] = mapped_column(
        String(16), ForeignKey("bobing_tables.code", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSONType)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SecretRow(Base):
    """A random secret of the deployment, made once by the first instance and read by all
    (``address``: the key of the address hashes in quotas and rate-limit keys)."""

    __tablename__ = "bobing_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class PhotoRow(Base):
    """A photo a ``keep_photos`` table keeps as a throw's evidence (docs/vision.md): pending
    (``seq`` NULL) from the read until a throw names it, then linked to that throw's ``dice``
    event. Deleted with the table."""

    __tablename__ = "bobing_photos"
    __table_args__ = (Index("ix_bobing_photos_table_seq", "table_code", "seq"),)

    table_code: Mapped[str] = mapped_column(
        String(16), ForeignKey("bobing_tables.code", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The seq of the ``dice`` event of the throw it is the evidence of; NULL while pending."""
    media_type: Mapped[str] = mapped_column(String(32))
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


metadata = Base.metadata
