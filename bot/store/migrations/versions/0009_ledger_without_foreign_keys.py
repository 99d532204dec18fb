"""the delivery ledger without foreign keys: its chats and papers are checked once a planning
batch (deliveries.add_deliveries), not by two triggers or lookups a row

Revision ID: 0009
Revises: 0008
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# SQLite's foreign keys have no names: reflected under these, the batch drops them by name
_NAMED = {"fk": "fk_%(table_name)s_%(column_0_name)s"}


def _names() -> tuple[str, str]:
    if op.get_bind().dialect.name == "sqlite":
        return "fk_delivery_chat_id", "fk_delivery_paper_id"
    return "delivery_chat_id_fkey", "delivery_paper_id_fkey"  # PostgreSQL's own names


def upgrade() -> None:
    chat, paper = _names()
    with op.batch_alter_table("delivery", naming_convention=_NAMED) as batch:
        batch.drop_constraint(chat, type_="foreignkey")
        batch.drop_constraint(paper, type_="foreignkey")


def downgrade() -> None:
    chat, paper = _names()
    # rows the foreign keys would refuse (none, unless something deleted a chat or paper past
    # the store's functions)
    op.execute(
        "DELETE FROM delivery WHERE chat_id NOT IN (SELECT id FROM chat)"
        " OR paper_id NOT IN (SELECT id FROM paper)"
    )
    with op.batch_alter_table("delivery", naming_convention=_NAMED) as batch:
        batch.create_foreign_key(chat, "chat", ["chat_id"], ["id"], ondelete="CASCADE")
        batch.create_foreign_key(paper, "paper", ["paper_id"], ["id"], ondelete="CASCADE")
