"""Shared fixtures: a real database per test (SQLite file, and PostgreSQL when
PAPERBOT_TEST_DATABASE_URL is set), a controllable clock, and the project's paths."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, text

from bot.store import Database
from tests.fake_telegram import FakeTelegram
from tests.feed_server import FeedServer

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
POSTGRES_URL = os.environ.get("PAPERBOT_TEST_DATABASE_URL")

# HYPOTHESIS_PROFILE=thorough runs every property test with many more examples.
settings.register_profile("thorough", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


class Clock:
    """Time that moves only when a test says so."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 10, 22, 12, 0, tzinfo=UTC))


def _reset_postgres(url: str, *, upgrade: bool = True) -> None:
    """The test PostgreSQL emptied, then upgraded as `paperbot db upgrade` leaves it (only that
    command creates the schema there); `upgrade=False`: left empty."""
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    if upgrade:
        Database.upgrade(url)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated once for the session: each test's database is a copy of it
    (migrating a new file takes ~0.2 s, copying this one ~0.01 s, and ~800 tests take one).
    The migrations themselves are tested from an empty file in tests/store/test_database.py."""
    path = tmp_path_factory.mktemp("template") / "paperbot.db"
    Database.open(f"sqlite:///{path}").close()  # closed: the WAL checkpointed into the file
    return path


def _open(backend: str, tmp_path: Path, template: Path | None = None) -> Database:
    """The store on the backend: a SQLite file in tmp_path (a copy of the migrated `template`
    when given), or the test PostgreSQL emptied and upgraded."""
    if backend == "postgres":
        if not POSTGRES_URL:
            pytest.skip("PostgreSQL: set PAPERBOT_TEST_DATABASE_URL to run this on PostgreSQL")
        _reset_postgres(POSTGRES_URL)
        return Database.open(POSTGRES_URL)
    path = tmp_path / "paperbot.db"
    if template is not None:
        shutil.copyfile(template, path)
    return Database.open(f"sqlite:///{path}")


@pytest.fixture(params=["sqlite", "postgres"])
def any_database(
    request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path
) -> Iterator[Database]:
    """The store on both backends: store and service tests that take it run twice."""
    database = _open(request.param, tmp_path, sqlite_template)
    yield database
    database.close()


BACKEND = os.environ.get("PAPERBOT_TEST_BACKEND", "sqlite")


@pytest.fixture
def database(tmp_path: Path, sqlite_template: Path) -> Iterator[Database]:
    """SQLite in a temporary file at the current schema; PostgreSQL (emptied first) when
    PAPERBOT_TEST_BACKEND=postgres, as .ci/run runs the tests again."""
    if BACKEND == "postgres" and not POSTGRES_URL:
        pytest.fail("PAPERBOT_TEST_BACKEND=postgres needs PAPERBOT_TEST_DATABASE_URL")
    db = _open(BACKEND, tmp_path, sqlite_template)
    yield db
    db.close()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A folder to run `paperbot` in, with the bundled seeds where the default inbox is."""
    shutil.copytree(SEEDS, tmp_path / "seeds")
    return tmp_path


@pytest.fixture
def feeds() -> Iterator[FeedServer]:
    """A feed server on 127.0.0.1 (tests/feed_server.py)."""
    server = FeedServer()
    yield server
    server.stop()


@pytest.fixture
def server() -> Iterator[FakeTelegram]:
    """The fake Bot API on 127.0.0.1, for tests that run the bot as a process or over HTTP."""
    fake = FakeTelegram()
    fake.start()
    yield fake
    fake.stop()
