"""Storage of tables and their event logs: SQLAlchemy async, SQLite default, PostgreSQL by URL.

The names below load their modules when first used: importing a light part of the package
(``bobing.storage.errors``) does not load SQLAlchemy, which costs a command's start 0.4 s.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (``X as X``: a re-export, for mypy and ruff)
    from bobing.storage.db import Database as Database
    from bobing.storage.db import default_url as default_url
    from bobing.storage.db import normalize_url as normalize_url
    from bobing.storage.errors import CodeTaken as CodeTaken
    from bobing.storage.errors import StaleWrite as StaleWrite
    from bobing.storage.errors import StoreError as StoreError
    from bobing.storage.event_store import Append as Append
    from bobing.storage.event_store import EventStore as EventStore
    from bobing.storage.event_store import Seat as Seat
    from bobing.storage.event_store import StoredEvent as StoredEvent
    from bobing.storage.event_store import TableInfo as TableInfo
    from bobing.storage.event_store import TableSnapshot as TableSnapshot
    from bobing.storage.photos import KeptPhoto as KeptPhoto
    from bobing.storage.photos import PhotoStore as PhotoStore

_HOMES = {
    "Append": "event_store",
    "CodeTaken": "errors",
    "Database": "db",
    "EventStore": "event_store",
    "KeptPhoto": "photos",
    "PhotoStore": "photos",
    "Seat": "event_store",
    "StaleWrite": "errors",
    "StoreError": "errors",
    "StoredEvent": "event_store",
    "TableInfo": "event_store",
    "TableSnapshot": "event_store",
    "default_url": "db",
    "normalize_url": "db",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
