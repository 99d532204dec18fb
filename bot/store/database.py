"""Engine, sessions and schema migrations. SQLite (WAL) by default, PostgreSQL by URL."""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, Connection, Engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlmodel import Session, create_engine

from bot.core.text import first_line

MIGRATIONS = Path(__file__).parent / "migrations"

log = logging.getLogger(__name__)


class StoreError(RuntimeError):
    """The database cannot be used as it is; the message says what to do."""


class DatabaseUrlError(StoreError):
    """The URL names no database paperbot can use: unreadable, another kind, a missing driver."""


class SchemaBehind(StoreError):
    """The PostgreSQL database has no schema yet, or an older one: `paperbot db upgrade` is the
    step that changes it, never another command by surprise."""


class SchemaAhead(StoreError):
    """The schema is at a revision this code does not know: a newer paperbot upgraded it (the
    code was rolled back). Nothing this code does fixes it, restarting included."""


ALLOWED_URLS = "allowed: sqlite:///path, postgresql://user:password@host/database"

IDS_AT_ONCE = 1000  # ids in one statement's IN: PostgreSQL binds at most 65,535 parameters


def id_chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    """`ids` a thousand at a time, for statements that read many rows by id (the first planning
    reads 100,000 filters; a planning batch checks 10,000 chats)."""
    for start in range(0, len(ids), IDS_AT_ONCE):
        yield ids[start : start + IDS_AT_ONCE]


def _sqlite_pragmas(cache_mb: int | None) -> Callable[[Any, Any], None]:
    """The pragmas of every SQLite connection; `cache_mb`: its page cache (None: SQLite's own,
    2 MB), the setting database.sqlite_cache_mb."""

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        if cache_mb is not None:
            cursor.execute(f"PRAGMA cache_size=-{int(cache_mb) * 1024}")  # negative: in KiB
        cursor.close()

    return on_connect


def database_url(url: str) -> URL:
    """The URL as SQLAlchemy takes it: `postgres://` and `postgresql://` mean psycopg 3.
    Anything but SQLite or PostgreSQL with an installed, synchronous driver is refused."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        raise DatabaseUrlError(f"not a database URL; {ALLOWED_URLS}") from None
    backend, _, driver = parsed.drivername.partition("+")
    if backend in ("postgres", "postgresql"):
        backend, driver = "postgresql", driver or "psycopg"
        parsed = parsed.set(drivername=f"postgresql+{driver}")
    problem = _driver_problem(parsed, backend, driver)
    if problem:
        shown = parsed.render_as_string(hide_password=True)
        raise DatabaseUrlError(f"{shown}: {problem}; {ALLOWED_URLS}")
    return parsed


def _driver_problem(parsed: URL, backend: str, driver: str) -> str | None:
    if backend not in ("sqlite", "postgresql"):
        return f"{backend} is not supported"
    try:
        dialect = parsed.get_dialect()
    except ArgumentError:
        return f"no such driver {driver}"
    if dialect.is_async:
        return f"the driver {driver} is asynchronous, not supported"
    try:
        dialect.import_dbapi()
    except ImportError:
        return f"the driver {driver} is not installed"
    return None


# PostgreSQL's error classes that mean the server, not the statement: a connection exception,
# insufficient resources (too many connections), an operator's intervention (a shutdown).
OUT_OF_REACH_STATES = ("08", "53", "57P")


def _out_of_reach(error: BaseException) -> str | None:
    """See `Database.out_of_reach`."""
    if not isinstance(error, DBAPIError):
        return None
    cause = error.orig
    state = getattr(cause, "sqlstate", None) or ""
    # psycopg's own errors (no SQLSTATE): a connection that failed, or broke mid-pipeline
    client_side = isinstance(error, OperationalError) and not state
    if isinstance(cause, sqlite3.Error) or not (
        error.connection_invalidated or client_side or state.startswith(OUT_OF_REACH_STATES)
    ):
        return None
    return first_line(cause or error)


# Waits between attempts of a write that must not be lost (about half a minute in all).
WRITE_RETRY_SECONDS = (0.1, 0.25, 0.5, 1, 2, 2, 4, 4, 8, 8)


def _file_folder(parsed: URL) -> Path | None:
    """The folder of a SQLite database file; None for PostgreSQL or a database in memory."""
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database).parent


def create_database_engine(url: str, *, sqlite_cache_mb: int | None = None) -> Engine:
    """An engine for the URL (see `database_url`; `DatabaseUrlError` if it is unusable)."""
    parsed = database_url(url)
    if parsed.get_backend_name() == "sqlite":
        if (folder := _file_folder(parsed)) is not None:
            _make_folder(folder)
        engine = create_engine(parsed, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas(sqlite_cache_mb))
        return engine
    return create_engine(parsed, pool_pre_ping=True)


def _make_folder(folder: Path) -> None:
    """The SQLite file's folder, made when missing; DatabaseUrlError when it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DatabaseUrlError(
            f"cannot create the folder {folder} for the SQLite file: {error.strerror}"
        ) from None


@contextmanager
def _reached(engine: Engine) -> Iterator[None]:
    """Errors of opening the database as one line: a SQLite file that is no database or cannot
    be written is the URL's fault (DatabaseUrlError); a server out of reach is StoreError. The
    engine is disposed of on any error."""
    try:
        yield
    except DBAPIError as error:
        engine.dispose()
        where = engine.url.render_as_string(hide_password=True)
        if engine.dialect.name == "sqlite":
            raise DatabaseUrlError(f"{where}: {first_line(error.orig or error)}") from None
        reason = " ".join(str(error.orig).split())  # psycopg's hint on a line of its own
        if isinstance(error, OperationalError):
            raise StoreError(f"cannot open the database {where}: {reason}") from None
        raise
    except BaseException:
        engine.dispose()
        raise


def _alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    config.attributes["engine"] = engine
    return config


def head_revision(engine: Engine) -> str | None:
    return ScriptDirectory.from_config(_alembic_config(engine)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def schema_problem(engine: Engine) -> StoreError | None:
    """What keeps this code from using the database's schema (SchemaBehind, SchemaAhead), or
    None when it is at this code's head."""
    current, head = current_revision(engine), head_revision(engine)
    if current == head:
        return None
    if current is None:
        return SchemaBehind("the database has no paperbot schema yet: run `paperbot db upgrade`")
    script = ScriptDirectory.from_config(_alembic_config(engine))
    if current not in {revision.revision for revision in script.walk_revisions()}:
        return SchemaAhead(
            f"the database schema is at revision {current}, newer than this paperbot knows (its "
            f"latest is {head}): run the paperbot version that upgraded it, or restore the "
            "backup taken before that upgrade"
        )
    return SchemaBehind(
        f"the database schema is at revision {current}, this paperbot needs {head}: "
        "run `paperbot db upgrade`"
    )


def upgrade_database(engine: Engine) -> tuple[str | None, str | None]:
    """Apply every pending migration; returns (revision before, revision after). SchemaAhead
    when the database is past this code (alembic would fail on a revision it cannot find).
    On PostgreSQL one process at a time: `run` and workers started together, each told to
    upgrade, wait for the first; the others then find the schema at head."""
    with _upgrade_lock(engine):
        if isinstance(problem := schema_problem(engine), SchemaAhead):
            raise problem
        before = current_revision(engine)
        if problem is not None:
            command.upgrade(_alembic_config(engine), "head")
        return before, current_revision(engine)


@contextmanager
def _upgrade_lock(engine: Engine) -> Iterator[None]:
    """A PostgreSQL advisory lock (session-level, on its own connection) around an upgrade."""
    if engine.dialect.name != "postgresql":
        yield
        return
    key = zlib.crc32(b"paperbot:schema upgrade")
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            connection.commit()


class Database:
    """The engine plus a session factory; the only way the rest of the program reaches the data."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._held = threading.local()  # the connection `connection()` keeps, per thread
        self._every_held: set[_Held] = set()  # every thread's, closed by `close`
        self._every_held_lock = threading.Lock()
        self._away_since: float | None = None  # when `write` found the database out of reach

    @classmethod
    def open(
        cls, url: str, *, upgrade: bool = False, sqlite_cache_mb: int | None = None
    ) -> Database:
        """Open the database at this code's schema. SQLite (one process's own file) is created
        and upgraded on first use; PostgreSQL only with `upgrade` (database.auto_upgrade, for
        `run` and `worker`), else an empty or older schema is SchemaBehind. A schema newer than
        the code is SchemaAhead either way."""
        engine = create_database_engine(url, sqlite_cache_mb=sqlite_cache_mb)
        with _reached(engine):
            problem = schema_problem(engine)
            if isinstance(problem, SchemaBehind) and (upgrade or engine.dialect.name == "sqlite"):
                upgrade_database(engine)
            elif problem is not None:
                raise problem
        return cls(engine)

    @staticmethod
    def folder(url: str) -> Path | None:
        """Where a SQLite database's file lives (the console keeps its history and log
        beside it); None for PostgreSQL or a database in memory."""
        return _file_folder(database_url(url))

    @staticmethod
    def upgrade(url: str) -> tuple[str | None, str | None]:
        """`paperbot db upgrade`: every pending migration applied; (revision before, after)."""
        engine = create_database_engine(url)
        with _reached(engine):
            before_after = upgrade_database(engine)
        engine.dispose()
        return before_after

    @staticmethod
    def backup(url: str, path: Path) -> None:
        """`paperbot db backup PATH`: a copy of the SQLite database in a new file, taken while the
        bot runs (sqlite3's online backup API: a consistent snapshot, writers not held up). An
        existing file is never overwritten (FileExistsError); PostgreSQL is backed up with pg_dump,
        which `DatabaseUrlError` spells out with the URL's parts."""
        parsed = database_url(url)
        shown = parsed.render_as_string(hide_password=True)
        if parsed.get_backend_name() != "sqlite":
            parts = {"host": parsed.host, "port": parsed.port, "username": parsed.username}
            options = " ".join(f"--{o}={v}" for o, v in parts.items() if v is not None)
            raise DatabaseUrlError(
                f"{shown} is PostgreSQL: back it up with pg_dump, not paperbot: pg_dump "
                f"{options} --format=custom --file={path} {parsed.database or ''}".rstrip()
            )
        if _file_folder(parsed) is None:
            raise DatabaseUrlError(f"{shown} is a database in memory: nothing to back up")
        source = Path(str(parsed.database))
        if not source.is_file():
            raise StoreError(f"no database at {source} to back up")
        try:
            path.open("xb").close()
        except FileExistsError:
            raise FileExistsError(f"{path} exists: a backup never overwrites a file") from None
        except OSError as error:
            raise StoreError(f"cannot write the backup {path}: {error.strerror}") from None
        try:
            live = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True, timeout=10)
            with closing(live), closing(sqlite3.connect(path)) as copy:
                live.backup(copy)
        except sqlite3.Error as error:
            path.unlink(missing_ok=True)
            raise StoreError(f"cannot back up {source} to {path}: {error}") from None

    @contextmanager
    def session(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
                session.commit()
            except BaseException as error:
                if _out_of_reach(error) is not None:  # a broken connection is dropped, not reused
                    session.invalidate()
                else:
                    session.rollback()
                raise

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """One transaction without the ORM, for the hot path's small updates (the delivery
        ledger's marks, one or two per message). The connection is kept between transactions
        that follow each other within KEEP_SECONDS in the same thread: a checkout from the pool
        (and, for PostgreSQL, its ping) costs more than such an update. One idle longer goes back
        to the pool, and a fresh, pinged one is taken."""
        with self._kept() as connection, connection.begin():
            yield connection

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """The thread's kept connection (see `connection`) for one statement that reads, in no
        transaction of its own (autocommit; a statement sees one state of the database
        anyway). On PostgreSQL that is one round trip where a session took four (the pool's
        ping, BEGIN, the statement, COMMIT). A digest round reads each chat's rows so: 3.1-3.3
        ms a chat's rows through a session, 2.2-2.4 so (600 chats of bench/day.py's ledger),
        and composing 2,000 digests 7.8-8.2 -> 6.7-6.9 ms each (runs alternating)."""
        with self._kept() as connection:
            default = connection.default_isolation_level
            connection.execution_options(isolation_level="AUTOCOMMIT")
            yield connection
            connection.commit()  # ends SQLAlchemy's own idea of a transaction; nothing is sent
            connection.execution_options(isolation_level=default)

    @contextmanager
    def _kept(self) -> Iterator[Connection]:
        """The thread's kept connection (see `connection`), out of any transaction; after a
        failure it goes (a broken one dropped, not reset for the pool) and the next is fresh."""
        held: _Held | None = getattr(self._held, "value", None)
        now = time.monotonic()
        if held is not None and (now - held.used > KEEP_SECONDS or held.connection.invalidated):
            self._drop(held)
            held = None
        if held is None:
            held = self._held.value = _Held(self.engine.connect(), now)
            with self._every_held_lock:
                self._every_held.add(held)
        elif held.connection.in_transaction():  # used outside a `with` since: start clean
            held.connection.rollback()
        try:
            yield held.connection
        except BaseException as error:
            if _out_of_reach(error) is not None and not held.connection.invalidated:
                held.connection.invalidate()
            self._drop(held)
            raise
        held.used = time.monotonic()

    def _drop(self, held: _Held) -> None:
        """A kept connection closed (back to the pool, unless invalidated) and forgotten."""
        held.connection.close()
        self._held.value = None
        with self._every_held_lock:
            self._every_held.discard(held)

    async def write(self, work: Callable[[Connection], object]) -> None:
        """`work` in one transaction (see `connection`), tried again on a fresh connection while
        the database is out of reach (a terminated connection, a restart, a network cut), for
        about half a minute, waiting without holding up the event loop. For writes that record
        what already happened elsewhere, which are idempotent and must not be lost: what a
        message Telegram accepted did to the ledger (lost, it would be sent again). The log says
        once when the database went out of reach and once when it is back."""
        for wait in (*WRITE_RETRY_SECONDS, None):
            try:
                with self.connection() as connection:
                    work(connection)
            except DBAPIError as error:
                reason = _out_of_reach(error)
                if wait is None or reason is None:
                    raise
                if self._away_since is None:
                    self._away_since = time.monotonic()
                    log.warning("the database is out of reach (%s): writes wait", reason)
                await asyncio.sleep(wait)
                continue
            if self._away_since is not None:
                away, self._away_since = time.monotonic() - self._away_since, None
                log.info("the database is back (writes waited %.1f s)", away)
            return

    @staticmethod
    def out_of_reach(error: BaseException) -> str | None:
        """When the error is the database out of reach (a connection refused, dropped or
        terminated), not something wrong with the work (which may succeed a moment later): the
        driver's message, its first line (SQLAlchemy's own repeats the statement). None for
        any other error."""
        return _out_of_reach(error)

    @property
    def shared(self) -> bool:
        """Whether several processes may use the database at once (PostgreSQL; SQLite serves
        one, see `hold_alone`)."""
        return self.engine.dialect.name == "postgresql"

    @contextmanager
    def exclusive(self, name: str) -> Iterator[bool]:
        """Work one process at a time does (scanning the inbox and planning): True when this
        process may do it now, False when another holds it (it does the work; skip it). A
        PostgreSQL advisory lock keyed by the name, held on its own connection for the block
        (and freed by the server if the process dies); SQLite serves one process: always True."""
        if not self.shared:
            yield True
            return
        key = zlib.crc32(f"paperbot:{name}".encode())
        with self.engine.connect() as connection:
            got = bool(
                connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}).scalar()
            )
            connection.commit()
            try:
                yield got
            finally:
                if got:
                    connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                    connection.commit()

    @staticmethod
    def hold_alone(url: str) -> TextIO | None:
        """For `paperbot run`, `worker` and `console` on SQLite: the database file's lock, held
        while the returned file stays open, so that a second such process on the same file is
        refused (StoreError, saying why and pointing at PostgreSQL) instead of sending every
        message twice. None for PostgreSQL (several processes share it) or a database in
        memory."""
        parsed = database_url(url)
        if _file_folder(parsed) is None:
            return None
        path = Path(f"{parsed.database}.lock")
        _make_folder(path.parent)
        try:
            lock = path.open("a+")
        except OSError as error:
            raise DatabaseUrlError(f"cannot open {path}: {error.strerror}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            other = lock.read().strip() or "another process"
            lock.close()
            raise DatabaseUrlError(
                f"{parsed.database} is in use by paperbot {other}: SQLite serves one process; "
                "stop that one, or use PostgreSQL (PAPERBOT_DATABASE_URL=postgresql://...) to run "
                "several (paperbot run and paperbot worker)"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"pid {os.getpid()}")
        lock.flush()
        return lock

    def close(self) -> None:
        """Every thread's kept connection closed (the threads, idle by now, may outlive the
        database: a postman's composing thread), then the pool's."""
        with self._every_held_lock:
            every, self._every_held = self._every_held, set()
        for held in every:
            held.connection.close()
        self._held.value = None
        self.engine.dispose()


KEEP_SECONDS = 5.0


@dataclass(eq=False)  # by identity, in Database._every_held
class _Held:
    connection: Connection
    used: float
