"""Whether the database can be read right now (for /healthz): one line saying why not."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from bot.core.text import first_line
from bot.store.database import Database

REVISION = "SELECT version_num FROM alembic_version"


def database_problem(database: Database, *, timeout: float = 5.0) -> str | None:
    """None when the schema's revision can be read. A SQLite file is read through a connection
    of its own, opened now: the pool's connections go on reading a file deleted or replaced under
    them (and what they write there is lost)."""
    url = database.engine.url
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return _sqlite_problem(Path(str(url.database)), timeout)
    try:
        with database.engine.connect() as connection:  # PostgreSQL: the pool pings it first
            connection.execute(text(REVISION)).all()
    except SQLAlchemyError as error:
        return _reason(error.orig if isinstance(error, DBAPIError) and error.orig else error)
    return None


def _sqlite_problem(path: Path, timeout: float) -> str | None:
    if not path.is_file():
        return f"the database file {path} is gone"
    try:
        uri = path.resolve().as_uri() + "?mode=ro"
        with closing(sqlite3.connect(uri, uri=True, timeout=timeout)) as connection:
            connection.execute(REVISION).fetchall()
    except sqlite3.Error as error:
        return _reason(error)
    return None


def _reason(error: BaseException) -> str:
    return f"cannot read the database: {type(error).__name__}: {first_line(error)}"
