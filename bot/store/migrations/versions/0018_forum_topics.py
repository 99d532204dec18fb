"""a filter's forum topic: the message thread of a forum supergroup its papers go to (none: the
General topic, and every chat without topics)

Revision ID: 0018
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("filter") as filter_:
        filter_.add_column(sa.Column("topic", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("filter") as filter_:
        filter_.drop_column("topic")
