"""Tables, seats and the event log.

Revision ID: 0001
Revises:
Create Date: 2025-10-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "bobing_tables",
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rules", JSONType, nullable=False),
        sa.Column("settings", JSONType, nullable=False),
        sa.Column("host_token_hash", sa.String(64), nullable=False),
        sa.Column("play_token_hash", sa.String(64), nullable=True),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("code", name="pk_bobing_tables"),
    )
    op.create_table(
        "bobing_seats",
        sa.Column("table_code", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_code"],
            ["bobing_tables.code"],
            name="fk_bobing_seats_table_code_bobing_tables",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_code", "name", name="pk_bobing_seats"),
        sa.UniqueConstraint("token_hash", name="uq_bobing_seats_token_hash"),
    )
    op.create_table(
        "bobing_events",
        sa.Column("table_code", sa.String(16), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("data", JSONType, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("command_id", sa.String(80), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_code"],
            ["bobing_tables.code"],
            name="fk_bobing_events_table_code_bobing_tables",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_code", "seq", name="pk_bobing_events"),
    )
    op.create_index(
        "uq_bobing_events_command", "bobing_events", ["table_code", "command_id"], unique=True
    )


def downgrade() -> None:
    op.drop_index("uq_bobing_events_command", table_name="bobing_events")
    op.drop_table("bobing_events")
    op.drop_table("bobing_seats")
    op.drop_table("bobing_tables")
