"""Photos kept as evidence (issue 31): ``bobing_photos``, one row a photo of a throw's dice.

Only a table created with ``keep_photos`` writes here; a photo is pending (``seq`` NULL) until
a throw names it, then linked to that throw's ``dice`` event, and deleted with its table.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bobing_photos",
        sa.Column("table_code", sa.String(16), nullable=False),
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=True),
        sa.Column("media_type", sa.String(32), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_code"],
            ["bobing_tables.code"],
            name="fk_bobing_photos_table_code_bobing_tables",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_code", "id", name="pk_bobing_photos"),
    )
    op.create_index("ix_bobing_photos_table_seq", "bobing_photos", ["table_code", "seq"])


def downgrade() -> None:
    op.drop_index("ix_bobing_photos_table_seq", table_name="bobing_photos")
    op.drop_table("bobing_photos")
