"""a paper's journal abbreviations (PubMed's ISO abbreviation and MedlineTA), which jr: finds

Revision ID: 0023
Revises: 0022
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("paper") as paper:
        paper.add_column(
            sa.Column("journal_abbreviations", sa.JSON(), nullable=False, server_default="[]")
        )


def downgrade() -> None:
    with op.batch_alter_table("paper") as paper:
        paper.drop_column("journal_abbreviations")
