"""Alembic environment: always given a live connection by ``Database.migrate`` (no alembic.ini)."""

from __future__ import annotations

from alembic import context

from bobing.storage.db import VERSION_TABLE
from bobing.storage.models import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations with bobing.storage.db.Database.migrate()")
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
