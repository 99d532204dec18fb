"""a matched paper's record as its filters last saw it, kept while a merged record (another
source's) waits to be matched again

Revision ID: 0022
Revises: 0021
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("paper") as paper:
        paper.add_column(sa.Column("rematch_from", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("paper") as paper:
        paper.drop_column("rematch_from")
