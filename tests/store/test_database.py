"""Schema migrations on both backends: they build exactly the tables the code declares."""

from __future__ import annotations

import logging
import os
from functools import partial
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from bot.store import Database, SchemaAhead, SchemaBehind, StoreError
from bot.store.database import (
    DatabaseUrlError,
    _alembic_config,
    create_database_engine,
    current_revision,
    database_url,
    head_revision,
)
from bot.store.papers import count_papers
from tests.conftest import POSTGRES_URL, _reset_postgres


def test_migrations_match_the_tables(any_database: Database) -> None:
    with any_database.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, SQLModel.metadata) == []


def test_every_migration_goes_down_and_up_again(any_database: Database) -> None:
    """From head to an empty database, one revision at a time, and back: each downgrade undoes
    its upgrade (a failed upgrade in production can be rolled back)."""
    engine = any_database.engine
    config = _alembic_config(engine)
    head = head_revision(engine)
    command.downgrade(config, "base")
    assert current_revision(engine) is None
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    command.upgrade(config, "head")
    assert current_revision(engine) == head
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, SQLModel.metadata) == []


def test_sqlite_is_upgraded_on_first_use_with_wal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sub' / 'new.db'}"
    database = Database.open(url)
    assert current_revision(database.engine) == head_revision(database.engine)
    assert {"paper", "listing_file"} <= set(inspect(database.engine).get_table_names())
    with database.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    with database.session() as session:
        assert count_papers(session) == 0
    database.close()


def test_sqlite_page_cache_is_the_setting_on_every_connection(tmp_path: Path) -> None:
    """database.sqlite_cache_mb reaches each pooled connection (a busy day's planning is a
    fifth slower with SQLite's own 2 MB); without it SQLite keeps its own."""
    url = f"sqlite:///{tmp_path / 'cache.db'}"
    tuned = Database.open(url, sqlite_cache_mb=48)
    with tuned.engine.connect() as first, tuned.engine.connect() as second:
        for connection in (first, second):
            assert connection.exec_driver_sql("PRAGMA cache_size").scalar() == -48 * 1024
    tuned.close()
    plain = Database.open(url)
    with plain.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA cache_size").scalar() == -2000  # SQLite's
    plain.close()


ALLOWED = "allowed: sqlite:///path, postgresql://user:password@host/database"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "mysql://me:secret@db/papers",
            f"mysql://me:***@db/papers: mysql is not supported; {ALLOWED}",
        ),
        ("nonsense", f"not a database URL; {ALLOWED}"),
        ("", f"not a database URL; {ALLOWED}"),
        ("postgresql://db:port/papers", f"not a database URL; {ALLOWED}"),
        (
            "postgresql+psycopg2://db/papers",
            f"postgresql+psycopg2://db/papers: the driver psycopg2 is not installed; {ALLOWED}",
        ),
        (
            "postgres+asyncpg://db/papers",
            f"postgresql+asyncpg://db/papers: the driver asyncpg is asynchronous, not supported; "
            f"{ALLOWED}",
        ),
        ("sqlite+nope:///x.db", f"sqlite+nope:///x.db: no such driver nope; {ALLOWED}"),
    ],
)
def test_an_unusable_url_says_what_is_allowed(url: str, message: str) -> None:
    for use in (Database.open, Database.upgrade):
        with pytest.raises(DatabaseUrlError) as raised:
            use(url)
        assert str(raised.value) == message
    assert isinstance(raised.value, StoreError)


@pytest.mark.parametrize(
    ("url", "understood"),
    [
        ("postgres://me:secret@db/papers", "postgresql+psycopg://me:secret@db/papers"),
        ("postgresql://db/papers", "postgresql+psycopg://db/papers"),
        ("postgresql+psycopg://db:5433/papers", "postgresql+psycopg://db:5433/papers"),
        ("sqlite:///data/paperbot.db", "sqlite:///data/paperbot.db"),
        ("sqlite://", "sqlite://"),
    ],
)
def test_postgres_spellings_mean_psycopg_3(url: str, understood: str) -> None:
    assert database_url(url).render_as_string(hide_password=False) == understood
    if url.startswith("postgres"):  # no connection is made until the engine is used
        engine = create_database_engine(url)
        assert engine.url.render_as_string(hide_password=False) == understood
        engine.dispose()


def schema_at(url: str, revision: str | None) -> None:
    """The database as a paperbot at `revision` left it: None empty, "0012" an older schema,
    "9999" one a newer paperbot made (a revision this code does not know)."""
    if url.startswith("postgresql"):
        _reset_postgres(url, upgrade=False)
    if revision is None:
        return
    engine = create_database_engine(url)
    command.upgrade(_alembic_config(engine), min(revision, head_revision(engine) or ""))
    if revision == "9999":
        with engine.begin() as connection:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    engine.dispose()


def revision_of(url: str) -> str | None:
    engine = create_database_engine(url)
    try:
        return current_revision(engine)
    finally:
        engine.dispose()


BEHIND = "run `paperbot db upgrade`"
AHEAD = (
    "the database schema is at revision 9999, newer than this paperbot knows (its latest is "
    "{head}): run the paperbot version that upgraded it, or restore the backup taken before "
    "that upgrade"
)


@pytest.mark.parametrize(
    ("revision", "message"),
    [
        (None, f"the database has no paperbot schema yet: {BEHIND}"),
        (
            "0012",
            f"the database schema is at revision 0012, this paperbot needs {{head}}: {BEHIND}",
        ),
    ],
)
def test_postgresql_is_created_and_upgraded_only_on_purpose(
    revision: str | None, message: str
) -> None:
    """Only `paperbot db upgrade` (or `run`/`worker` with database.auto_upgrade: `upgrade=True`)
    changes a PostgreSQL schema; opening it otherwise says what to run and leaves it as it is."""
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL: set PAPERBOT_TEST_DATABASE_URL to run this on PostgreSQL")
    schema_at(POSTGRES_URL, revision)
    with pytest.raises(SchemaBehind) as raised:
        Database.open(POSTGRES_URL)
    head = head_revision(create_database_engine(POSTGRES_URL))
    assert str(raised.value) == message.format(head=head)
    assert revision_of(POSTGRES_URL) == revision
    Database.open(POSTGRES_URL, upgrade=True).close()
    assert revision_of(POSTGRES_URL) == head


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_schema_newer_than_the_code_names_both_revisions(backend: str, tmp_path: Path) -> None:
    """A rollback: no way of opening it upgrades or runs (alembic cannot even find the revision);
    SQLite, which upgrades itself, refuses it too."""
    url = f"sqlite:///{tmp_path / 'ahead.db'}" if backend == "sqlite" else POSTGRES_URL
    if not url:
        pytest.skip("PostgreSQL: set PAPERBOT_TEST_DATABASE_URL to run this on PostgreSQL")
    schema_at(url, "9999")
    head = head_revision(create_database_engine(url))
    for use in (Database.open, partial(Database.open, upgrade=True), Database.upgrade):
        with pytest.raises(SchemaAhead) as raised:
            use(url)
        assert str(raised.value) == AHEAD.format(head=head)
    assert revision_of(url) == "9999"


def test_sqlite_upgrades_an_older_schema_itself(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'older.db'}"
    schema_at(url, "0012")
    Database.open(url).close()
    assert revision_of(url) == head_revision(create_database_engine(url))


def test_hot_path_connection_is_kept_and_recovers(any_database: Database) -> None:
    """`Database.connection()` keeps its connection between transactions that follow each other
    (the ledger's marks); a failed transaction is rolled back and the next starts afresh; one
    whose server side went away fails once, and the next transaction works."""
    with any_database.connection() as first:
        first.exec_driver_sql("UPDATE paper SET title = title")
    with any_database.connection() as again:
        assert again is first
    with pytest.raises(ZeroDivisionError), any_database.connection() as failing:
        failing.exec_driver_sql("UPDATE paper SET title = 'x'")
        raise ZeroDivisionError
    with any_database.connection() as after:
        assert after is not first
        assert after.exec_driver_sql("SELECT count(*) FROM paper WHERE title = 'x'").scalar() == 0
        postgres = after.dialect.name == "postgresql"
        pid = after.exec_driver_sql("SELECT pg_backend_pid()").scalar() if postgres else 0
    if postgres:
        with any_database.engine.connect() as other:
            other.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")  # type: ignore[arg-type]
            other.commit()
        with pytest.raises(Exception), any_database.connection() as dead:  # noqa: B017
            dead.exec_driver_sql("SELECT 1")
    with any_database.connection() as fresh:
        assert fresh.exec_driver_sql("SELECT 1").scalar() == 1


def test_a_read_takes_the_kept_connection_outside_any_transaction(any_database: Database) -> None:
    """`Database.reading()` (a digest's rows) runs its statement on the thread's kept connection
    in autocommit, no BEGIN or COMMIT around it; the connection's transactions after it are
    transactions again (a failure rolls back); one whose server side went away fails once."""
    postgres = any_database.engine.dialect.name == "postgresql"
    with any_database.reading() as read:
        if postgres:  # the statement is its own transaction: no BEGIN before it
            alone = (
                "SELECT xact_start = query_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
            )
            assert read.exec_driver_sql(alone).scalar() is True
        else:
            read.exec_driver_sql("SELECT count(*) FROM paper").scalar()
            assert not read.connection.driver_connection.in_transaction  # type: ignore[union-attr]
    with pytest.raises(ZeroDivisionError), any_database.connection() as kept:
        assert kept is read
        kept.exec_driver_sql("UPDATE paper SET title = 'x'")
        raise ZeroDivisionError
    with any_database.reading() as again:
        assert again.exec_driver_sql("SELECT count(*) FROM paper WHERE title = 'x'").scalar() == 0
        pid = again.exec_driver_sql("SELECT pg_backend_pid()").scalar() if postgres else 0
    if postgres:
        with any_database.engine.connect() as other:
            other.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")  # type: ignore[arg-type]
            other.commit()
        with pytest.raises(DBAPIError), any_database.reading() as dead:
            dead.exec_driver_sql("SELECT 1")
    with any_database.reading() as fresh:
        assert fresh.exec_driver_sql("SELECT 1").scalar() == 1


async def test_a_write_outlasts_a_connection_that_went_away(
    any_database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """`Database.write` (what a message that went out did to the ledger) is tried again on a
    fresh connection when the server side went away, and the log says so once; a failure of the
    work itself is raised at once."""
    tried: list[Connection] = []

    def work(connection: Connection) -> None:
        tried.append(connection)
        connection.exec_driver_sql("UPDATE paper SET title = title")

    def wrong(connection: Connection) -> None:
        tried.append(connection)
        connection.exec_driver_sql("UPDATE no_such_table SET x = 1")

    with pytest.raises(DBAPIError) as failed:
        await any_database.write(wrong)
    assert len(tried) == 1 and Database.out_of_reach(failed.value) is None
    if not any_database.shared:
        return
    with any_database.connection() as held:  # kept for the next transaction: then terminated
        pid = int(held.exec_driver_sql("SELECT pg_backend_pid()").scalar())  # type: ignore[arg-type]
    with any_database.engine.connect() as other:
        other.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
        other.commit()
    tried.clear()
    with caplog.at_level(logging.INFO, logger="bot.store.database"):
        await any_database.write(work)
    assert len(tried) == 2 and tried[1] is not tried[0]
    assert "the database is out of reach (" in caplog.text and "writes wait" in caplog.text
    assert "the database is back" in caplog.text


def test_a_second_process_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'data' / 'bot.db'}"
    held = Database.hold_alone(url)
    assert held is not None
    # flock locks belong to the open file: a second opening, as a second process makes, fails
    with pytest.raises(StoreError) as refused:
        Database.hold_alone(url)
    message = str(refused.value)
    assert f"in use by paperbot pid {os.getpid()}" in message
    assert "SQLite serves one process" in message and "PostgreSQL" in message
    held.close()
    again = Database.hold_alone(url)  # free once the first is gone
    assert again is not None
    again.close()
    assert Database.hold_alone("postgresql://u@localhost/db") is None  # shared by design


def test_exclusive_work_is_done_by_one_process_at_a_time(any_database: Database) -> None:
    if not any_database.shared:
        with any_database.exclusive("scan") as mine, any_database.exclusive("scan") as also:
            assert mine and also  # one process: nothing to exclude
        return
    other = Database.open(str(any_database.engine.url.render_as_string(hide_password=False)))
    try:
        with any_database.exclusive("scan") as mine:
            assert mine
            with other.exclusive("scan") as theirs, other.exclusive("plan") as unrelated:
                assert not theirs and unrelated
        with other.exclusive("scan") as theirs:
            assert theirs  # released
    finally:
        other.close()
