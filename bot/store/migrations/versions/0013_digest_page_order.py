"""a row sent behind a digest's "more" button keeps its place in the order the digest's pages
list it, fixed when the digest was composed: a page worked out again at the press (the chat's
ranking changed meanwhile, or ties fell another way) lost papers that were marked sent

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("delivery", sa.Column("page_position", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("delivery") as batch:
        batch.drop_column("page_position")
