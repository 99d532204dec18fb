"""chats, filters, the delivery ledger, and which papers were matched

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime()


def _string(length: int) -> sa.types.TypeEngine:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    with op.batch_alter_table("paper") as batch:
        batch.add_column(sa.Column("matched_at", _DATETIME, nullable=True))
        batch.add_column(
            sa.Column("update_pending", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.create_index("ix_paper_matched_at", ["matched_at"])
    # papers stored before there were filters count as matched: a new filter never floods a chat
    op.execute("UPDATE paper SET matched_at = first_seen")

    op.create_table(
        "chat",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("kind", _string(20), nullable=False),
        sa.Column("mode", _string(10), nullable=False),
        sa.Column("digest_time", _string(5), nullable=False),
        sa.Column("timezone", _string(64), nullable=False),
        sa.Column("updates", sa.Boolean(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("inactive_reason", sa.Text(), nullable=True),
        sa.Column("created_at", _DATETIME, nullable=False),
        sa.Column("last_digest_at", _DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "filter",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("canonical", sa.Text(), nullable=False),
        sa.Column("created_at", _DATETIME, nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_filter_chat_id", "filter", ["chat_id"])
    op.create_table(
        "delivery",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("filter_ids", sa.JSON(), nullable=False),
        sa.Column("status", _string(10), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_at", _DATETIME, nullable=False),
        sa.Column("sent_at", _DATETIME, nullable=True),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("chat_id", "paper_id", "revision"),
    )
    op.create_index("ix_delivery_status", "delivery", ["status"])


def downgrade() -> None:
    op.drop_table("delivery")
    op.drop_table("filter")
    op.drop_table("chat")
    with op.batch_alter_table("paper") as batch:
        batch.drop_index("ix_paper_matched_at")
        batch.drop_column("update_pending")
        batch.drop_column("matched_at")
