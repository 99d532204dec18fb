"""a chat's language: set from the first update's language_code, changed by /language

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as chat:
        chat.add_column(
            sa.Column("language", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("chat") as chat:
        chat.drop_column("language")
