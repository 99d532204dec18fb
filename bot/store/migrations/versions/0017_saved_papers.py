"""a chat's library: the papers it saved (🔖), the entries of imported libraries that are not
stored here (kept as text: its ranking model learns from them as from 👍), and each import's
seeds and authors (the buttons under its reply follow them)

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime()


def upgrade() -> None:
    op.create_table(
        "saved_paper",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("created_at", _DATETIME, nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("chat_id", "paper_id"),
    )
    op.create_index("ix_saved_paper_chat_id", "saved_paper", ["chat_id"])
    op.create_table(
        "library_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("abstract", sa.Text(), nullable=False),
        sa.Column("authors", sa.JSON(), nullable=False),
        sa.Column("created_at", _DATETIME, nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("chat_id", "key"),
    )
    op.create_table(
        "library_import",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("seeds", sa.JSON(), nullable=False),
        sa.Column("authors", sa.JSON(), nullable=False),
        sa.Column("created_at", _DATETIME, nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_library_import_chat_id", "library_import", ["chat_id"])


def downgrade() -> None:
    op.drop_index("ix_library_import_chat_id", table_name="library_import")
    op.drop_table("library_import")
    op.drop_table("library_entry")
    op.drop_index("ix_saved_paper_chat_id", table_name="saved_paper")
    op.drop_table("saved_paper")
