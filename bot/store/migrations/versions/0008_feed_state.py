"""feeds: each polled feed's state (last success, last error, papers, failures in a row and the
next poll they put off), kept across restarts

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime()


def upgrade() -> None:
    op.create_table(
        "feed",
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("polled_at", _DATETIME, nullable=False),
        sa.Column("next_poll_at", _DATETIME, nullable=False),
        sa.Column("last_success_at", _DATETIME, nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("last_error_at", _DATETIME, nullable=True),
        sa.Column("papers", sa.Integer(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("url"),
    )


def downgrade() -> None:
    op.drop_table("feed")
