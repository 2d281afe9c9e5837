"""The database: an embedded SQLite file by default, PostgreSQL by URL; migrations at start."""

from __future__ import annotations

import asyncio
import re
import secrets
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Table, event, select, text
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, DisconnectionError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from bobing.engine.errors import InputError
from bobing.engine.json_text import compact
from bobing.storage.models import SecretRow

A = TypeVar("A")
R = TypeVar("R")
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
VERSION_TABLE = "bobing_alembic_version"
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")
COMMIT_WRITERS = 4
"""PostgreSQL: the event store's group-commit writers, each with a pooled connection of its
own (:attr:`Database.commit_engine`)."""
BUSY_TIMEOUT_MS = 30000
"""SQLite: how long a writer waits for another connection's write lock."""


def default_url() -> str:
    """SQLite in the user's data directory (created when missing)."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir("bobing", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{folder / 'bobing.sqlite3'}"


def normalize_url(url: str) -> str:
    """Accept the usual short forms: ``sqlite:///x.db`` and ``postgresql://...``."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise InputError(
            f"invalid database URL {url!r}: expected sqlite+aiosqlite:///FILE or "
            "postgresql+asyncpg://USER@HOST/DB",
            code="invalid_db_url",
            url=url,
        ) from None
    if parsed.drivername in ("sqlite", "sqlite+aiosqlite"):
        return parsed.set(drivername="sqlite+aiosqlite").render_as_string(hide_password=False)
    if parsed.drivername in ("postgresql", "postgres", "postgresql+asyncpg"):
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    raise InputError(
        f"unsupported database {parsed.drivername!r} in {url!r}: use sqlite or postgresql",
        code="invalid_db_url",
        url=url,
    )


class Database:
    """An async SQLAlchemy engine plus what the server needs around it.

    ``schema`` (PostgreSQL only) puts every table into that schema, e.g. one per test run.
    """

    def __init__(self, url: str | None = None, *, schema: str | None = None) -> None:
        self.url = normalize_url(url or default_url())
        self.schema = schema
        parsed = make_url(self.url)
        self.dialect = "sqlite" if parsed.drivername.startswith("sqlite") else "postgresql"
        # JSON columns are written as compact text by an encoder made once (``json.dumps``
        # builds one a call): the log's rows are most of what the server writes.
        kwargs: dict[str, Any] = {"json_serializer": compact}
        if self.dialect == "sqlite":
            database = parsed.database or ""
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"timeout": BUSY_TIMEOUT_MS / 1000}
        else:
            if schema is not None:
                if not _SCHEMA_NAME.fullmatch(schema):
                    raise InputError(f"invalid schema name {schema!r}", code="invalid_schema")
                kwargs["connect_args"] = {"server_settings": {"search_path": schema}}
            kwargs["pool_size"] = 10
            kwargs["max_overflow"] = 10
        self.engine: AsyncEngine = create_async_engine(self.url, **kwargs)
        self.commit_engine: AsyncEngine = self.engine
        """Where the event store's writers commit: on PostgreSQL a pool of their own, so a
        throw's commit never queues behind reads for a connection."""
        self._reader: AsyncEngine = self.engine
        self._sqlite_writer: sqlite3.Connection | None = None
        self._writer_thread: ThreadPoolExecutor | None = None
        self._in_writer_thread = 0
        """SQLite: transactions handed to the writer thread and not yet done."""
        if self.dialect == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        else:
            kwargs.update(pool_size=COMMIT_WRITERS, max_overflow=0)
            self.commit_engine = create_async_engine(self.url, **kwargs)
            # A pooled connection PostgreSQL dropped (a restart, pg_terminate_backend, a
            # failover) is replaced instead of failing one request. A read's is pinged at
            # checkout. A commit, one a batch of throws, spends no round trip on that: the
            # pool drops a connection the driver saw close, and the store runs a batch again
            # where the connection turns out ended before it ran (EventStore._committing).
            event.listen(self.engine.sync_engine.pool, "checkout", _ping_postgresql)
            event.listen(self.commit_engine.sync_engine.pool, "checkout", _drop_closed)
            # Reads need no transaction: at READ COMMITTED every statement of one takes its
            # own snapshot anyway, and BEGIN and ROLLBACK are two round trips more.
            self._reader = self.engine.execution_options(isolation_level="AUTOCOMMIT")

    @property
    def display_url(self) -> str:
        """The URL without its password, for logs."""
        return make_url(self.url).render_as_string(hide_password=True)

    async def migrate(self) -> None:
        """Create or upgrade the schema to the newest Alembic revision."""
        async with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                if self.schema is not None:
                    await conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"'))
                # One migrator at a time when several servers start together.
                await conn.execute(text("SELECT pg_advisory_xact_lock(4207001)"))
            await conn.run_sync(_upgrade)

    async def secret(self, name: str) -> str:
        """The deployment's random secret ``name``: made once (64 hex digits) by whichever
        instance asks first, then the same for every instance on this database."""
        table = SecretRow.__table__
        assert isinstance(table, Table)
        insert = postgresql_insert if self.dialect == "postgresql" else sqlite_insert
        made = insert(table).values(name=name, value=secrets.token_hex(32))
        async with self.engine.begin() as conn:
            await conn.execute(made.on_conflict_do_nothing(index_elements=["name"]))
            found = await conn.execute(select(table.c.value).where(table.c.name == name))
            value: str = found.scalar_one()
        return value

    async def checkpoint(self) -> None:
        """SQLite: copy the WAL back into the database file without blocking the writer."""
        if self.dialect == "sqlite":
            async with self.engine.connect() as conn:
                await conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    async def ping(self) -> bool:
        """Whether the database answers a trivial query."""
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except (SQLAlchemyError, OSError):
            return False
        return True

    def connect(self) -> AsyncConnection:
        """A connection for reads (use ``async with``); on PostgreSQL each statement commits
        on its own. Writes that belong together use ``engine.begin()``."""
        return self._reader.connect()

    async def drop_schema(self) -> None:
        """Drop this database's PostgreSQL schema and everything in it (tests)."""
        if self.dialect != "postgresql" or self.schema is None:
            raise InputError("drop_schema needs a PostgreSQL database with a schema")
        async with self.engine.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'))

    async def run_sync_write(self, fn: Callable[[sqlite3.Connection, A], R], arg: A) -> R:
        """SQLite only: run ``fn(connection, arg)`` in one transaction on the writer's own
        DB-API connection (the file is shared with the async engine's readers; WAL lets them
        read while it writes).

        On the event loop when the write lock is free at once (``BEGIN IMMEDIATE`` without
        waiting): a WAL commit at ``synchronous=NORMAL`` writes to the page cache and waits
        for no disk, so it costs less than handing the batch to a thread and back. When
        another connection holds the lock (the async engine's writes: a table created, a
        snapshot, a sweep), the writer thread runs it instead and waits for the lock.
        """
        if self.dialect != "sqlite":
            raise InputError("run_sync_write is for SQLite")
        loop = asyncio.get_running_loop()
        if self._writer_thread is None:
            self._writer_thread = ThreadPoolExecutor(1, thread_name_prefix="bobing-sqlite")
        if self._sqlite_writer is None:
            database = make_url(self.url).database or ":memory:"
            self._sqlite_writer = await loop.run_in_executor(
                self._writer_thread, _open_sqlite_writer, database
            )
        conn = self._sqlite_writer
        if not self._in_writer_thread:  # else it is the connection's: queue behind it
            try:
                return _sqlite_transaction(conn, fn, arg)
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                    raise
        self._in_writer_thread += 1
        try:
            return await loop.run_in_executor(
                self._writer_thread, _waiting_transaction, conn, fn, arg
            )
        finally:
            self._in_writer_thread -= 1

    async def dispose(self) -> None:
        """Close every pooled connection (and the SQLite writer)."""
        await self.engine.dispose()
        if self.commit_engine is not self.engine:
            await self.commit_engine.dispose()
        if self._writer_thread is not None:
            conn, thread = self._sqlite_writer, self._writer_thread
            self._writer_thread = self._sqlite_writer = None
            if conn is not None:
                await asyncio.get_running_loop().run_in_executor(thread, conn.close)
            thread.shutdown(wait=True)


def _open_sqlite_writer(database: str) -> sqlite3.Connection:
    # Transactions are the writer's own (isolation_level=None: no implicit BEGIN), and it
    # never waits for a lock unless told to (_waiting_transaction).
    conn = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
    _sqlite_pragmas(conn, None)
    conn.execute("PRAGMA busy_timeout=0")
    return conn


def _sqlite_transaction(
    conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection, A], R], arg: A
) -> R:
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = fn(conn, arg)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


def _waiting_transaction(
    conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection, A], R], arg: A
) -> R:
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    try:
        return _sqlite_transaction(conn, fn, arg)
    finally:
        conn.execute("PRAGMA busy_timeout=0")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers run while the single writer commits; NORMAL sync is durable across
    # process crashes (what a restart test exercises), only an OS crash may lose the last
    # commits.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Checkpoints normally run inside a committing transaction; the server runs them in the
    # background instead (Database.checkpoint), this is only the safety net.
    cursor.execute("PRAGMA wal_autocheckpoint=20000")
    cursor.close()


def _ping_postgresql(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    # What pool_pre_ping does, in one round trip instead of three: the driver's own ping
    # wraps its query in BEGIN and ROLLBACK (for pgbouncer's transaction mode), and under
    # load every round trip is an event-loop turn that a pooled connection stays out for.
    try:
        dbapi_connection.run_async(lambda driver: driver.execute("SELECT 1"))
    except Exception as exc:
        raise DisconnectionError(f"the pooled connection is gone: {exc}") from exc


def _drop_closed(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    # Free: the driver knows its socket closed once the event loop read the server's goodbye.
    if dbapi_connection.driver_connection.is_closed():
        raise DisconnectionError("the pooled connection is closed")


def _upgrade(connection: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
