"""a chat's weekly digest day (used when its mode is weekly: 0 Monday .. 6 Sunday) and its quiet
hours (local HH:MM to HH:MM, none when unset; `quiet_silent`: send in the window without a
notification instead of holding alerts until it ends)

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as chat:
        chat.add_column(
            sa.Column("digest_weekday", sa.Integer(), nullable=False, server_default="0")
        )
        chat.add_column(sa.Column("quiet_from", sa.String(length=5), nullable=True))
        chat.add_column(sa.Column("quiet_to", sa.String(length=5), nullable=True))
        chat.add_column(
            sa.Column("quiet_silent", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("chat") as chat:
        for column in ("quiet_silent", "quiet_to", "quiet_from", "digest_weekday"):
            chat.drop_column(column)
