"""The SQLite writer binds what SQLAlchemy would bind, with one processor for every time;
and the moments it binds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.dialects import sqlite

from bobing.storage.event_store import (
    MOMENT_COLUMNS,
    _processor,
    _SqliteBinds,
    at_millisecond,
    utcnow,
)


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


@given(st.integers(min_value=0, max_value=7_258_118_400_000))  # to 2200-01-01
def test_a_moment_in_milliseconds_is_exact(millis: int) -> None:
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    assert at_millisecond(millis) == epoch + timedelta(milliseconds=millis)


def test_now_is_whole_milliseconds() -> None:
    before = datetime.now(UTC)
    now = utcnow()
    assert now.microsecond % 1000 == 0 and now.tzinfo is UTC
    assert before - timedelta(milliseconds=1) < now <= datetime.now(UTC)
