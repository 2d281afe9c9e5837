"""Events: an organiser's many tables (bobing_gatherings) and the seats claimed there.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "bobing_gatherings",
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("organizer_token_hash", sa.String(64), nullable=False),
        sa.Column("spec", JSONType, nullable=False),
        sa.Column("tables", JSONType, nullable=False),
        sa.Column("secrets", JSONType, nullable=False),
        sa.Column("playoff", JSONType, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("code", name="pk_bobing_gatherings"),
    )
    op.create_table(
        "bobing_gathering_claims",
        sa.Column("event_code", sa.String(16), nullable=False),
        sa.Column("table_number", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_code"],
            ["bobing_gatherings.code"],
            name="fk_bobing_gathering_claims_event_code_bobing_gatherings",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "event_code", "table_number", "name", name="pk_bobing_gathering_claims"
        ),
    )


def downgrade() -> None:
    op.drop_table("bobing_gathering_claims")
    op.drop_table("bobing_gatherings")
