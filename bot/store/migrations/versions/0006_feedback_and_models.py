"""relevance: 👍/👎 per chat and paper, the stored TF-IDF model, each chat's ranking model, and
the model of a "more like this" filter

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime()


def upgrade() -> None:
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("created_at", _DATETIME, nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("chat_id", "paper_id"),
    )
    op.create_table(
        "text_model",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("papers", sa.Integer(), nullable=False),
        sa.Column("fitted_at", _DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "chat_model",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("trained_at", _DATETIME, nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id"),
    )
    with op.batch_alter_table("filter") as batch:
        batch.add_column(sa.Column("model", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("filter") as batch:
        batch.drop_column("model")
    op.drop_table("chat_model")
    op.drop_table("text_model")
    op.drop_table("feedback")
