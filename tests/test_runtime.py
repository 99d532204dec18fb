"""The running bot put together: its memory policy, decided here and behind settings, follows
the planner's index as it grows (at once, or a little at a time) and shrinks."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import socket
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot import jobs
from bot.config import InboxSettings, MemorySettings, Settings
from bot.core.buttons import Keyboard
from bot.core.paper import Paper
from bot.runtime import MemoryPolicy, Runtime
from bot.service import processes
from bot.store import Database, chats, deliveries, filters, leases, papers
from bot.store.database import create_database_engine
from bot.telegram.worker import run_jobs
from tests.conftest import SEEDS, Clock
from tests.transports import HoldingTransport, RecordingTransport, SilentTransport


def follow(database: Database, chat_id: int, *sources: str, now: datetime) -> None:
    with database.session() as session:
        chats.register_chat(session, chat_id=chat_id, kind="private", now=now)
        for source in sources:
            filters.add_filter(session, chat_id=chat_id, source=source, canonical=source, now=now)


def arrive(database: Database, title: str, now: datetime) -> None:
    """A paper to plan (the planner reads the filters when it has papers to match)."""
    with database.session() as session:
        papers.insert_papers(
            session, papers=[Paper(title=title, abstract="An abstract.", source="test")], now=now
        )


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    """Settling freezes the collector's generations; each test leaves them as it found them."""
    yield
    gc.unfreeze()


def test_the_index_is_settled_after_growing_a_lot_at_once_or_over_time(
    database: Database, clock: Clock
) -> None:
    settings = Settings(memory={"settle_after": 3, "huge_pages": False})
    runtime = Runtime.build(
        settings, database, SilentTransport("planning sends nothing"), clock=clock
    )
    follow(database, 1, "a1", "a2", "a3", "a4", now=clock())  # four at once: settled
    arrive(database, "First", clock())
    runtime.plan()
    assert (len(runtime.app.planner), runtime.memory.settled_at, runtime.memory.settlements) == (
        4,
        4,
        1,
    )
    assert gc.get_freeze_count() > 0
    for number, word in enumerate(["b1", "b2", "b3", "b4"]):  # one at a time: on the fourth
        follow(database, 10 + number, word, now=clock())
        arrive(database, f"Paper {word}", clock())
        runtime.plan()
        assert runtime.memory.settled_at == (8 if number == 3 else 4)
    with database.session() as session:
        chats.deactivate_chat(session, chat_id=1, reason="blocked")  # four filters go
    arrive(database, "Last", clock())
    runtime.plan()
    assert (len(runtime.app.planner), runtime.memory.settled_at, runtime.memory.settlements) == (
        4,
        4,
        2,
    )


@pytest.mark.parametrize(
    ("settle_after", "sizes", "settlements"),
    [
        (10, [5, 11], 1),  # over 10 gained
        (10, [10], 0),  # exactly 10: not yet
        (10, [11, 15, 21], 1),  # growth counts from the last settling
        (10, [11, 2, 13], 2),  # shrunk: growth counts from the smaller size
        (0, [100_000], 0),  # 0: never
    ],
)
def test_settling_follows_growth(settle_after: int, sizes: list[int], settlements: int) -> None:
    policy = MemoryPolicy(MemorySettings(settle_after=settle_after, huge_pages=False))
    for size in sizes:
        policy.after_planning(size)
    assert policy.settlements == settlements


@pytest.fixture
def collector_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


@pytest.mark.usefixtures("collector_thresholds")
def test_the_runtime_sets_the_young_collection_from_its_settings(database: Database) -> None:
    gc.set_threshold(700, 10, 10)
    settings = Settings(memory=MemorySettings(young_collection=12_345))
    Runtime.build(settings, database, SilentTransport("nothing to send"))
    assert gc.get_threshold() == (12_345, 10, 10)  # the older generations' as they were
    Runtime.build(Settings(memory=MemorySettings(young_collection=0)), database,
                  SilentTransport("nothing to send"))  # fmt: skip
    assert gc.get_threshold() == (12_345, 10, 10)  # 0: left as it is
    assert Settings().memory.young_collection == 10_000


async def test_a_job_that_meets_the_database_out_of_reach_is_counted(clock: Clock) -> None:
    """PostgreSQL where nothing listens: the scan job fails with one line in the log, and the
    operator's metrics count it (the next run tries again)."""
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/nowhere?connect_timeout=2"
    database = Database(create_database_engine(url))
    runtime = Runtime.build(Settings(), database, SilentTransport("nothing to send"), clock=clock)
    await jobs.run(jobs.scan_inbox, runtime)
    await jobs.run(jobs.send_digests, runtime)  # the tick starts the round and returns
    await runtime.finish_rounds(grace=30)

    def counted(job: str) -> float | None:
        sample = "paperbot_database_errors_total"
        return runtime.metrics.registry.get_sample_value(sample, {"job": job})

    assert (counted("scan"), counted("digests"), counted("deliver")) == (1, 1, 0)


def test_the_inbox_scan_brings_the_recent_papers_up_to_date(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    """/preview's index is made by the scan that stores the papers, not at the first question
    (which waited seconds for it on a busy week)."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    settings = Settings(inbox=InboxSettings(dir=inbox, settle_seconds=0))
    runtime = Runtime.build(settings, database, SilentTransport("nothing to send"), clock=clock)
    runtime.scan()
    assert runtime.app.recent.held == 0
    copied = shutil.copy(SEEDS / "003_41440b21456fdd3f.txt", inbox)
    written = clock().timestamp() - 60  # settled, by the test's clock
    os.utime(copied, (written, written))
    runtime.scan()
    with database.session() as session:
        stored = papers.count_papers(session)
    assert stored and runtime.app.recent.held == stored


async def test_the_worker_beats_while_a_long_round_goes_on(
    database: Database, clock: Clock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A burst's round takes minutes, and the worker's delivery loop waits for it: the heartbeat
    is a job of its own, so meanwhile the process stays counted alive by the others and learns
    of one that started since, and the two share Telegram's budget (CI saw a 429 when a round
    went on at the whole 30/s beside a worker: the beat had come only between rounds)."""
    monkeypatch.setattr(jobs, "DELIVERY_SECONDS", 0.01)  # the ticks, quicker (real seconds)
    transport = HoldingTransport(held=1)
    settings = Settings(inbox=InboxSettings(dir=tmp_path))  # an empty inbox
    runtime = Runtime.build(settings, database, transport, clock=clock)
    follow(database, 1, "first", now=clock())
    with database.session() as session:
        chats.update_chat(session, chat_id=1, mode="instant")
    arrive(database, "First light", clock())
    runtime.plan()
    stop = asyncio.Event()
    running = asyncio.create_task(run_jobs(runtime, stop))
    await asyncio.wait_for(transport.holding.wait(), 30)  # a round under way, its message held
    limiter = runtime.postman.sender.limiter
    assert limiter.limits.overall_per_second == 30
    processes.heartbeat(database, process_id="worker", kind="paperbot", now=clock())
    deadline = time.monotonic() + 30
    while limiter.limits.overall_per_second != 15:  # a beat during the round counts the worker
        assert time.monotonic() < deadline, "no heartbeat while the round went on"
        await asyncio.sleep(0.01)
    clock.advance(seconds=25)  # the worker sees this process alive: its last beat is 25 s old
    assert processes.heartbeat(database, process_id="worker", kind="paperbot", now=clock()) == 2
    transport.go.set()
    stop.set()
    await asyncio.wait_for(running, 30)
    with database.session() as session:
        assert deliveries.count_deliveries(session) == {"sent": 1}


async def test_the_console_never_beats_a_heartbeat(database: Database, clock: Clock) -> None:
    """The console's rounds send to the terminal: they spend none of Telegram's budget, so the
    console is not counted among the processes that share it."""
    runtime = Runtime.build(Settings(), database, RecordingTransport(), clock=clock)
    await runtime.deliver()  # as the console's rounds call it
    assert processes.heartbeat(database, process_id="bot", kind="paperbot", now=clock()) == 1


async def test_a_tick_during_a_long_round_takes_a_killed_processs_chats(
    database: Database, clock: Clock
) -> None:
    """A process killed while it held chat 2: the survivor, in the middle of a round held at chat
    1, takes chat 2 at its first delivery tick after the lease ran out, not after its round."""
    for chat_id, word in [(1, "first"), (2, "second")]:
        follow(database, chat_id, word, now=clock())
        with database.session() as session:
            chats.update_chat(session, chat_id=chat_id, mode="instant")
    arrive(database, "First light", clock())
    arrive(database, "Second thoughts", clock())
    settings = Settings()
    lease = timedelta(seconds=settings.delivery.lease_seconds)
    with database.connection() as connection:  # the killed one's claim, never given up
        leases.claim_chats(connection, chat_ids=[2], holder="killed", now=clock(),
                           until=clock() + lease)  # fmt: skip
    transport = HoldingTransport(held=1)
    survivor = Runtime.build(settings, database, transport, clock=clock)
    survivor.plan()
    long_round = asyncio.create_task(survivor.deliver())  # as the inbox job starts one
    await transport.holding.wait()

    await jobs.deliver(survivor)  # a tick within the lease: chat 2 is the killed one's
    await asyncio.gather(*survivor.background)
    assert transport.sent == []
    clock.now += lease + timedelta(seconds=1)
    await jobs.deliver(survivor)  # the first tick after it
    await asyncio.gather(*survivor.background)
    assert transport.chats() == [2] and not long_round.done()

    transport.go.set()
    assert (await long_round).sent == 1
    with database.session() as session:
        assert deliveries.count_deliveries(session) == {"sent": 2}


class BrokenTransport:
    """A bug in the sending: every message raises what no one expects."""

    async def send(
        self,
        chat_id: int,
        text: str,
        *,
        html: bool = True,
        buttons: Keyboard = (),
        silent: bool = False,
        topic: int | None = None,
    ) -> int:
        raise RuntimeError("a bug")


async def test_a_round_that_fails_in_the_background_is_logged_under_its_job(
    database: Database, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    """The delivery tick returns before its round ends: a round's failure is logged by the
    runtime, titled by the job, with its traceback."""
    runtime = Runtime.build(Settings(), database, BrokenTransport(), clock=clock)
    follow(database, 1, "first", now=clock())
    with database.session() as session:
        chats.update_chat(session, chat_id=1, mode="instant")
    arrive(database, "First light", clock())
    runtime.plan()
    await jobs.deliver(runtime)
    await asyncio.wait(set(runtime.background))
    [failure] = [r for r in caplog.records if r.levelname == "ERROR"]
    assert failure.getMessage() == "deliver failed" and failure.exc_info is not None


async def test_leaving_cancels_the_rounds_under_way_before_the_claims_go(
    database: Database, clock: Clock
) -> None:
    """At stop the claims go at once, so that the others need not wait for them to lapse: a
    round still under way is cancelled first, and sends nothing more to chats that another
    process may take from then on."""
    follow(database, 1, "first", now=clock())
    with database.session() as session:
        chats.update_chat(session, chat_id=1, mode="instant")
    arrive(database, "First light", clock())
    transport = HoldingTransport(held=1)
    runtime = Runtime.build(Settings(), database, transport, clock=clock)
    runtime.plan()
    await jobs.deliver(runtime)
    await transport.holding.wait()
    [round_] = runtime.background
    runtime.leave()
    transport.go.set()
    await asyncio.gather(round_, return_exceptions=True)
    assert round_.cancelled() and transport.sent == []
    with database.connection() as connection:  # the chat is free for another process now
        now = clock()
        assert leases.claim_chats(connection, chat_ids=[1], holder="other", now=now,
                                  until=now + timedelta(seconds=60)) == [1]  # fmt: skip
