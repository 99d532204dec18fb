"""follow-ups: a chat's setting (on by default), and what each follow-up tells

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as chat:
        chat.add_column(
            sa.Column("followups", sa.Boolean(), nullable=False, server_default=sa.true())
        )
    op.create_table(
        "followup",
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("venue", sa.Text(), nullable=True),
        sa.Column("journal_ref", sa.Text(), nullable=True),
        sa.Column("doi", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=True),
        sa.Column("journal", sa.Text(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("paper_id", "revision"),
    )


def downgrade() -> None:
    op.drop_table("followup")
    with op.batch_alter_table("chat") as chat:
        chat.drop_column("followups")
