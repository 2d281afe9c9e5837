"""The SQLite writer binds what SQLAlchemy would bind, with one processor for every time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from sqlalchemy.dialects import sqlite

from bobing.storage.event_store import MOMENT_COLUMNS, _processor, _SqliteBinds


def test_every_time_the_writer_stores_is_bound_as_sqlalchemy_binds_its_own_column() -> None:
    dialect = sqlite.dialect()
    binds = _SqliteBinds.of(dialect)
    moments = [
        datetime(2026, 9, 17, 20, 5, 9, 123000, tzinfo=UTC),
        datetime(2027, 1, 1, 0, 0, tzinfo=UTC),
        datetime(2026, 9, 17, 20, 5, 9, 999000, tzinfo=timezone(timedelta(hours=8))),
    ]
    assert len(MOMENT_COLUMNS) == 3
    for column in MOMENT_COLUMNS:
        own = _processor(dialect, column)
        for moment in moments:
            assert binds.moment(moment) == own(moment), column
