"""`paperbot run` and `paperbot worker` as processes on one PostgreSQL, against the fake Bot API
with Telegram's limits enforced: a real listing's matches reach many chats exactly once, the
two share the sending (and stay within 30 messages a second together), and when one is killed
with SIGKILL midway the other finishes its work. On SQLite a second process is refused."""

from __future__ import annotations

import asyncio
import re
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import Settings
from bot.runtime import Runtime
from bot.store import Database, deliveries, papers
from bot.store.database import create_database_engine, head_revision
from bot.telegram.worker import every
from tests.conftest import POSTGRES_URL, _reset_postgres
from tests.fake_telegram import FakeTelegram
from tests.store.test_database import revision_of
from tests.test_run import drop_seeds, prepare, start, titles
from tests.transports import SilentTransport

CHATS = 30
LEASE = {"PAPERBOT_DELIVERY_LEASE_SECONDS": "6"}  # the killed one's chats free after 6 s


@pytest.fixture
def server() -> Iterator[FakeTelegram]:
    fake = FakeTelegram(enforce_limits=True)
    fake.start()
    yield fake
    fake.stop()


def accepted(server: FakeTelegram) -> list[tuple[int, str]]:
    calls = server.calls_to("sendMessage")
    return [(int(c.params["chat_id"]), c.params["text"]) for c in calls if c.ok]


def both_beating(database: Database) -> bool:
    """Two processes alive, each having beaten since the other started: each counts two, and
    takes half of a burst."""
    with database.engine.connect() as connection:
        count, seen, started = connection.exec_driver_sql(
            "SELECT count(*), min(seen_at), max(started_at) FROM process"
        ).one()
    return bool(count == 2 and seen > started)


def holders(database: Database, pids: dict[str, int]) -> dict[str, set[int]]:
    """The chats each process (by name) holds a claim on now, from the chats' rows."""
    with database.engine.connect() as connection:
        rows = connection.exec_driver_sql("SELECT id, busy_by FROM chat").all()
    return {
        name: {chat for chat, by in rows if by and by.split(":")[1] == str(pid)}
        for name, pid in pids.items()
    }


@pytest.mark.chaos
async def test_run_and_a_worker_share_the_work_and_survive_a_kill(
    tmp_path: Path, server: FakeTelegram
) -> None:
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL: set PAPERBOT_TEST_DATABASE_URL to run this on PostgreSQL")
    _reset_postgres(POSTGRES_URL)
    prepare(POSTGRES_URL, chat_count=CHATS)
    processes = {
        name: start(tmp_path, server, POSTGRES_URL, name, name, **LEASE)
        for name in ("run", "worker")
    }
    database = Database.open(POSTGRES_URL)
    try:
        # both beating before the listing comes: each then takes its half of the burst
        await server.wait_for(lambda: both_beating(database), timeout=60)
        drop_seeds(tmp_path)
        await server.wait_for(lambda: len(accepted(server)) >= 60, timeout=60)
        processes["worker"].kill()
        processes["worker"].wait(timeout=30)
        killed_at = len(server.calls)
        held_by = holders(database, {name: p.pid for name, p in processes.items()})
        assert held_by["worker"] and held_by["run"], held_by
        with database.session() as session:
            in_flight = {
                (row.chat_id, row.paper_id)
                for chat_id in range(1, CHATS + 1)
                for row in deliveries.all_deliveries(session, chat_id=chat_id)
                if row.status == "sending"
            }
            assert deliveries.count_deliveries(session).get("pending", 0) > 0, "too late a kill"

        def all_sent() -> bool:
            with database.session() as session:
                return set(deliveries.count_deliveries(session)) == {"sent"}

        await server.wait_for(all_sent, timeout=120)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                assert process.wait(timeout=30) == 0, (tmp_path / "run.log").read_text()
    with database.session() as session:
        rows = [
            r for c in range(1, CHATS + 1) for r in deliveries.all_deliveries(session, chat_id=c)
        ]
        stored = papers.get_papers(session, paper_ids={r.paper_id for r in rows})
    database.close()
    title_of = {paper_id: paper.title for paper_id, paper in stored.items()}
    received = Counter((chat, title) for chat, text in accepted(server) for title in titles(text))
    assert set(received) == {(r.chat_id, title_of[r.paper_id]) for r in rows}  # all arrived
    repeated = {key for key, n in received.items() if n > 1}
    assert repeated <= {(chat, title_of[paper]) for chat, paper in in_flight}  # only in flight
    refused = [c for c in server.calls_to("sendMessage") if not c.ok]
    assert refused == []  # together within Telegram's limits: no 429
    # the survivor took the killed one's chats once their lease ran out, in the middle of its
    # own round (its chats' messages went on after), not after it
    after = [
        int(c.params["chat_id"])
        for c in server.calls[killed_at:]
        if c.method == "sendMessage" and c.ok
    ]
    first_taken = min(i for i, chat in enumerate(after) if chat in held_by["worker"])
    last_own = max(i for i, chat in enumerate(after) if chat in held_by["run"])
    assert first_taken < last_own, (first_taken, last_own)
    run_log = (tmp_path / "run.log").read_text()
    assert re.search(r"delivery: [1-9]\d* papers sent", run_log)  # the survivor finished
    for name in ("run", "worker"):
        assert "Traceback" not in (tmp_path / f"{name}.log").read_text(), name


async def test_a_second_process_on_sqlite_is_refused(tmp_path: Path, server: FakeTelegram) -> None:
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    first = start(tmp_path, server, url, "worker", "first")
    try:
        await server.wait_for(lambda: bool(server.calls_to("getMe")), timeout=30)  # it is up
        second = start(tmp_path, server, url, "run", "second")
        assert second.wait(timeout=30) == 2
        out = (tmp_path / "second.log").read_text()
        assert "SQLite serves one process" in out and "PostgreSQL" in out
        assert len(out.strip().splitlines()) == 1  # one line, no traceback
    finally:
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=30) == 0, (tmp_path / "first.log").read_text()


@pytest.mark.parametrize("command", ["run", "worker"])
async def test_database_auto_upgrade_lets_the_service_create_the_schema(
    tmp_path: Path, server: FakeTelegram, command: str
) -> None:
    """database.auto_upgrade on: `run` and `worker` create the PostgreSQL schema themselves
    (off, the default, they refuse an empty database: tests/test_cli.py)."""
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL: set PAPERBOT_TEST_DATABASE_URL to run this on PostgreSQL")
    _reset_postgres(POSTGRES_URL, upgrade=False)
    process = start(tmp_path, server, POSTGRES_URL, command, PAPERBOT_DATABASE_AUTO_UPGRADE="true")
    try:
        for _ in range(150):  # 30 s at most; the worker may never call the Bot API
            if revision_of(POSTGRES_URL) is not None or process.poll() is not None:
                break
            await asyncio.sleep(0.2)
        running = process.poll() is None  # it took the database it made, and went on
    finally:
        process.kill()
        process.wait(timeout=30)
    assert running, (tmp_path / "paperbot.log").read_text()
    engine = create_database_engine(POSTGRES_URL)
    assert revision_of(POSTGRES_URL) == head_revision(engine)
    engine.dispose()


async def test_a_failing_job_of_the_worker_is_logged_under_its_name(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    runtime = Runtime.build(Settings(), database, SilentTransport("the job sends nothing"))
    stop = asyncio.Event()

    async def scan_inbox(runtime: Runtime) -> None:
        stop.set()  # the loop ends after this run
        raise RuntimeError("the inbox is on fire")

    await every(60, scan_inbox, runtime, stop)
    [logged] = [r for r in caplog.records if r.name == "bot.telegram.worker"]
    assert logged.getMessage() == "job scan_inbox failed; trying again in 60 s"
    assert logged.exc_info is not None and "on fire" in str(logged.exc_info[1])
