"""A deployment's secrets: the key of its address hashes (quotas, rate-limit keys in Redis).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bobing_secrets",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("value", sa.String(128), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_bobing_secrets"),
    )


def downgrade() -> None:
    op.drop_table("bobing_secrets")
