"""The open-event quota: ``bobing_tables.gathering``, the event a table belongs to.

An event's tables are counted as one event against the quota of open events per address
(``Limits.open_events_per_address``), not as tables against the open-table quota.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("bobing_tables", sa.Column("gathering", sa.String(16), nullable=True))
    op.create_index("ix_bobing_tables_gathering", "bobing_tables", ["gathering"])


def downgrade() -> None:
    op.drop_index("ix_bobing_tables_gathering", table_name="bobing_tables")
    with op.batch_alter_table("bobing_tables") as batch:
        batch.drop_column("gathering")
