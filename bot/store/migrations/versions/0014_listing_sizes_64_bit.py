"""a listing file's size 64-bit on PostgreSQL: a file over 2 GiB dropped in the inbox is refused
unread, and recording the refusal with its 32-bit size failed ("integer out of range"), which
failed the whole scan at every period (SQLite's INTEGER is 64-bit already: nothing to do there)

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def _postgresql() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade() -> None:
    if _postgresql():
        op.alter_column("listing_file", "size", type_=sa.BigInteger(), existing_nullable=False)


def downgrade() -> None:
    if _postgresql():
        # sizes past 2 GiB cannot go back into 32 bits: kept at the largest it holds
        op.execute("UPDATE listing_file SET size = 2147483647 WHERE size > 2147483647")
        op.alter_column("listing_file", "size", type_=sa.Integer(), existing_nullable=False)
