"""Hardening: who sent a command (idempotency), who created a table (quotas), snapshots.

- ``bobing_events.sender`` and ``.digest``: the token hash of the command's sender and a
  digest of the command, beside its ``command_id``, so a reused id is told apart from a retry
  after a restart or on another instance.
- ``bobing_tables.creator``: a hash of the creating address (open-table quota), and an
  index on (status, updated_at) for the retention sweep.
- ``bobing_snapshots``: the latest stored fold of a table's log (loading reads only the tail).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.add_column("bobing_events", sa.Column("sender", sa.String(64), nullable=True))
    op.add_column("bobing_events", sa.Column("digest", sa.String(64), nullable=True))
    op.add_column("bobing_tables", sa.Column("creator", sa.String(64), nullable=True))
    op.create_index("ix_bobing_tables_creator", "bobing_tables", ["creator"])
    op.create_index("ix_bobing_tables_status_updated", "bobing_tables", ["status", "updated_at"])
    op.create_table(
        "bobing_snapshots",
        sa.Column("table_code", sa.String(16), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("data", JSONType, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_code"],
            ["bobing_tables.code"],
            name="fk_bobing_snapshots_table_code_bobing_tables",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_code", name="pk_bobing_snapshots"),
    )


def downgrade() -> None:
    op.drop_table("bobing_snapshots")
    op.drop_index("ix_bobing_tables_status_updated", table_name="bobing_tables")
    op.drop_index("ix_bobing_tables_creator", table_name="bobing_tables")
    with op.batch_alter_table("bobing_tables") as batch:
        batch.drop_column("creator")
    with op.batch_alter_table("bobing_events") as batch:
        batch.drop_column("digest")
        batch.drop_column("sender")
