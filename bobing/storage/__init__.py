"""Storage of tables and their event logs: SQLAlchemy async, SQLite default, PostgreSQL by URL."""

from __future__ import annotations

from bobing.storage.db import Database, default_url, normalize_url
from bobing.storage.event_store import (
    Append,
    CodeTaken,
    EventStore,
    Seat,
    StaleWrite,
    StoredEvent,
    StoreError,
    TableInfo,
    TableSnapshot,
)

__all__ = [
    "Append",
    "CodeTaken",
    "Database",
    "EventStore",
    "Seat",
    "StaleWrite",
    "StoreError",
    "StoredEvent",
    "TableInfo",
    "TableSnapshot",
    "default_url",
    "normalize_url",
]
