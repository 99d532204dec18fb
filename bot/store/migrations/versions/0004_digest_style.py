"""how a chat's digests read: compact (each paper at a glance) or full (every card)

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.add_column(
            sa.Column(
                "digest_style",
                sqlmodel.sql.sqltypes.AutoString(length=10),
                nullable=False,
                server_default="compact",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("digest_style")
