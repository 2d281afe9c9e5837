"""The storage layer's own outcomes (not user errors): no SQLAlchemy here, so code that only
catches them (``bobing.tables.tokens``) does not load the database layer."""

from __future__ import annotations


class StoreError(Exception):
    """Base of the storage layer's own outcomes (not user errors)."""


class StaleWrite(StoreError):
    """The table's log moved on since it was read: reload and decide again."""


class CodeTaken(StoreError):
    """A new table's code is already in use."""
