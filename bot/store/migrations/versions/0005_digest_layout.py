"""a digest's layout per chat: how many papers open with their abstract, how many a page lists

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.add_column(
            sa.Column("digest_abstracts", sa.Integer(), nullable=False, server_default="5")
        )
        batch.add_column(
            sa.Column("digest_page", sa.Integer(), nullable=False, server_default="30")
        )


def downgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("digest_page")
        batch.drop_column("digest_abstracts")
