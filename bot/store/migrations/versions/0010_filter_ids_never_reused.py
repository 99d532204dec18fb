"""filter ids never given twice on SQLite (AUTOINCREMENT): the planner knows a filter by its id,
and SQLite gave a new filter the id of the newest one deleted, so a filter removed and another
added between two of the planner's syncs was matched with the first one's words

Revision ID: 0010
Revises: 0009
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def _recreate(autoincrement: bool) -> None:
    """SQLite only (PostgreSQL's sequences never give an id twice): the table made again."""
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        "filter", recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
    ):
        pass


def upgrade() -> None:
    _recreate(True)


def downgrade() -> None:
    _recreate(False)
