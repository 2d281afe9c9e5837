"""The command-id index holds the first event of each command only (issue 32).

``uq_bobing_events_command`` (table_code, command_id) made two commands with one id at a table
impossible, and also held an entry for every other event of the log, whose ``command_id`` is
NULL (three of a throw's four). It is now partial, ``WHERE command_id IS NOT NULL``: the same
uniqueness (NULLs never collided), a quarter of the entries, and one index page less to write
for most commits. A look-up by ``command_id = ?`` implies the condition, so it still uses it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

NAME = "uq_bobing_events_command"
COLUMNS = ["table_code", "command_id"]
ONLY_COMMANDS = sa.text("command_id IS NOT NULL")


def upgrade() -> None:
    op.drop_index(NAME, table_name="bobing_events")
    op.create_index(
        NAME,
        "bobing_events",
        COLUMNS,
        unique=True,
        sqlite_where=ONLY_COMMANDS,
        postgresql_where=ONLY_COMMANDS,
    )


def downgrade() -> None:
    op.drop_index(NAME, table_name="bobing_events")
    op.create_index(NAME, "bobing_events", COLUMNS, unique=True)
