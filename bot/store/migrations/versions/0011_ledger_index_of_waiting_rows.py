"""the ledger's rows waiting to go out indexed by chat, and only they, in place of an index of
every row's status: planning a busy day (bench/day.py, 5.85 million rows) spent a fifth of its
time on that index (PostgreSQL 23.0 -> 19.8 s to COPY the rows), and a chat's waiting rows are
now found without reading its history

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_WAITING = "status IN ('pending', 'sending')"  # as bot.store.tables.WAITING when written


def upgrade() -> None:
    op.drop_index("ix_delivery_status", table_name="delivery")
    op.create_index(
        "ix_delivery_waiting",
        "delivery",
        ["chat_id"],
        sqlite_where=sa.text(_WAITING),
        postgresql_where=sa.text(_WAITING),
    )


def downgrade() -> None:
    op.drop_index("ix_delivery_waiting", table_name="delivery")
    op.create_index("ix_delivery_status", "delivery", ["status"])
