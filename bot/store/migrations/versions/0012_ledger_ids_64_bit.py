"""the ledger's ids 64-bit on PostgreSQL: a busy day plans ~6 million rows (bench/day.py, 10,000
chats of 10 filters), and a 32-bit id runs out after a year of them (SQLite's INTEGER PRIMARY
KEY is 64-bit already: nothing to do there)

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def _postgresql() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade() -> None:
    if _postgresql():
        op.alter_column("delivery", "id", type_=sa.BigInteger(), existing_nullable=False)
        op.execute("ALTER SEQUENCE delivery_id_seq AS bigint")


def downgrade() -> None:
    if _postgresql():
        op.execute("ALTER SEQUENCE delivery_id_seq AS integer")
        op.alter_column("delivery", "id", type_=sa.Integer(), existing_nullable=False)
