"""Check-in at the door (RULES.md §9.4): who came to an event, one row a person.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bobing_gathering_checkins",
        sa.Column("event_code", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("checked_in_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_code"],
            ["bobing_gatherings.code"],
            name="fk_bobing_gathering_checkins_event_code_bobing_gatherings",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("event_code", "name", name="pk_bobing_gathering_checkins"),
    )


def downgrade() -> None:
    op.drop_table("bobing_gathering_checkins")
