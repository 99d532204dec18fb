"""Alembic environment: runs on the engine paperbot hands over (see bot.store.database)."""

from alembic import context
from sqlmodel import SQLModel

from bot.store import tables  # noqa: F401  (registers the tables on SQLModel.metadata)
from bot.store.database import create_database_engine

config = context.config
engine = config.attributes.get("engine") or create_database_engine(
    config.get_main_option("sqlalchemy.url") or ""
)

with engine.begin() as connection:
    context.configure(
        connection=connection,
        target_metadata=SQLModel.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
