"""several processes on one database: a chat's sending claimed by one process at a time (a
lease its holder renews), and the live processes (their heartbeats share Telegram's budget)

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime()


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.add_column(sa.Column("busy_by", sa.Text(), nullable=True))
        batch.add_column(sa.Column("busy_until", _DATETIME, nullable=True))
    op.create_table(
        "process",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("started_at", _DATETIME, nullable=False),
        sa.Column("seen_at", _DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("process")
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("busy_until")
        batch.drop_column("busy_by")
