"""/metrics and /healthz of a running bot (the real Application against the fake Bot API, real
SQLite, the endpoints on 127.0.0.1): prometheus-client's text format parsed back, counters that
move with a real ingest and delivery, Telegram's errors by kind, and /healthz refusing when the
database is gone or a job missed three of its periods (the test's clock, never a sleep)."""

from __future__ import annotations

import os
import platform
import socket
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.core.states import Status
from bot.metrics import Metrics
from bot.store import deliveries
from tests.conftest import ROOT
from tests.feed_server import FeedServer
from tests.statements import counts_of_deliveries, statements
from tests.telegram import conftest as telegram
from tests.telegram.conftest import TOKEN, World

make_world = telegram.make_world  # the fixture: a running bot (tests/telegram)

ADA = 101
SEED_000, SEED_002, SEED_003 = (
    "000_d8ca0602e3945843.txt",
    "002_fdf517bcef682927.txt",
    "003_41440b21456fdd3f.txt",
)
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def start(make_world: Callable[..., Any], **sections: Any) -> tuple[World, str]:
    port = free_port()
    world: World = await make_world(metrics={"port": port}, **sections)
    return world, f"http://127.0.0.1:{port}"


async def scrape(base: str) -> tuple[str, Samples]:
    """The exposition as text, and every sample by (name, labels), parsed by prometheus_client."""
    async with httpx.AsyncClient(base_url=base) as client:
        answer = await client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=")
    found = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(answer.text)
        for s in family.samples
    }
    return answer.text, found


async def health(base: str) -> tuple[int, str]:
    async with httpx.AsyncClient(base_url=base) as client:
        answer = await client.get("/healthz")
    return answer.status_code, answer.text


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


async def test_counters_move_with_a_real_ingest_and_delivery(make_world: Any) -> None:
    world, base = await start(make_world)
    _, before = await scrape(base)
    assert value(before, "paperbot_papers_ingested_total") == 0
    assert value(before, "paperbot_messages_total", outcome="sent") == 0
    await world.command(ADA, '/subscribe "kv cache"')
    await world.command(ADA, "/mode instant")
    await world.drop(SEED_000, SEED_002, SEED_003)
    report = await world.runtime.deliver()
    assert (report.sent, report.messages) == (2, 1)  # both papers in one alert

    text, after = await scrape(base)
    assert TOKEN not in text and TOKEN.split(":")[1] not in text
    assert value(after, "paperbot_papers_ingested_total") == 37
    assert value(after, "paperbot_listing_files_read_total", outcome="ingested") == 3
    assert value(after, "paperbot_listing_files_read_total", outcome="failed") == 0
    assert value(after, "paperbot_matches_total") == 2
    assert value(after, "paperbot_messages_total", outcome="sent") == 1
    assert value(after, "paperbot_messages_total", outcome="retried") == 0
    assert value(after, "paperbot_job_duration_seconds_count", job="scan") == 1
    assert value(after, "paperbot_job_duration_seconds_count", job="deliver") == 1
    assert value(after, "paperbot_job_duration_seconds_count", job="digests") == 0
    assert value(after, "paperbot_send_duration_seconds_count") == 1
    now = world.clock().timestamp()
    assert value(after, "paperbot_job_last_success_timestamp_seconds", job="scan") == now
    assert value(after, "paperbot_job_last_success_timestamp_seconds", job="deliver") == now
    assert value(after, "paperbot_job_last_success_timestamp_seconds", job="digests") == 0
    # the store's gauges, read at the scrape
    assert value(after, "paperbot_database_up") == 1
    assert value(after, "paperbot_papers") == 37
    assert value(after, "paperbot_filters") == 1
    assert value(after, "paperbot_chats", state="active") == 1
    assert value(after, "paperbot_pending_deliveries") == 0  # both matches sent
    assert value(after, "paperbot_listing_files", status="ingested") == 3

    await world.drop()  # the same files again: read, skipped, nothing new
    _, again = await scrape(base)
    assert value(again, "paperbot_listing_files_read_total", outcome="skipped") == 3
    assert value(again, "paperbot_papers_ingested_total") == 37


async def test_telegram_errors_are_counted_by_kind(make_world: Any) -> None:
    world, base = await start(make_world)
    await world.command(ADA, '/subscribe "kv cache"')
    await world.command(ADA, "/mode instant")
    for kind in ("429", "500", "drop", "400"):  # tried again (400: as plain text): it goes out
        world.server.fail("sendMessage", kind, chat_id=ADA)
    await world.drop(SEED_000, SEED_002, SEED_003)
    assert (await world.runtime.deliver()).messages == 1
    _, samples = await scrape(base)
    errors = {
        kind: value(samples, "paperbot_telegram_errors_total", kind=kind)
        for kind in ("flood", "server", "network", "chat_gone", "chat_moved", "rejected")
    }
    assert errors == {
        "flood": 1, "server": 1, "network": 1, "chat_gone": 0, "chat_moved": 0, "rejected": 1
    }  # fmt: skip
    assert value(samples, "paperbot_messages_total", outcome="sent") == 1
    assert value(samples, "paperbot_messages_total", outcome="retried") == 3
    assert value(samples, "paperbot_messages_total", outcome="failed") == 0
    assert value(samples, "paperbot_send_duration_seconds_count") == 5  # every request


async def test_a_blocked_chat_counts_as_chat_gone_and_its_message_as_failed(
    make_world: Any,
) -> None:
    world, base = await start(make_world)
    await world.command(ADA, '/subscribe "kv cache"')
    await world.command(ADA, "/mode instant")
    world.server.fail("sendMessage", "403", chat_id=ADA)
    await world.drop(SEED_000, SEED_002, SEED_003)
    await world.runtime.deliver()
    _, samples = await scrape(base)
    assert value(samples, "paperbot_telegram_errors_total", kind="chat_gone") == 1
    assert value(samples, "paperbot_messages_total", outcome="failed") == 1
    assert value(samples, "paperbot_messages_total", outcome="sent") == 0
    assert value(samples, "paperbot_chats", state="inactive") == 1


async def test_healthz_stays_ok_when_bad_files_are_in_the_inbox(make_world: Any) -> None:
    """A named pipe, a 3 GiB file and a binary one beside a listing: each refused with its
    reason, the listing read, the scan a success."""
    world, base = await start(make_world, inbox={"max_bytes": 10_000})
    os.mkfifo(world.inbox / "pipe.txt")
    with (world.inbox / "huge.txt").open("wb") as file:
        file.truncate(3 * 2**30)  # sparse: costs no disk
    (world.inbox / "binary.txt").write_bytes(bytes(256))
    for path in world.inbox.iterdir():
        os.utime(path, (0, 0))
    await world.drop(SEED_000)
    assert await health(base) == (200, "ok\n")
    _, samples = await scrape(base)
    assert value(samples, "paperbot_listing_files_read_total", outcome="failed") == 3
    assert value(samples, "paperbot_papers") == 5


async def test_healthz_refuses_when_the_database_file_is_gone(
    make_world: Any, tmp_path: Path
) -> None:
    world, base = await start(make_world)
    assert await health(base) == (200, "ok\n")
    (tmp_path / "bot.db").unlink()
    status, reason = await health(base)
    assert status == 503 and reason == f"the database file {tmp_path / 'bot.db'} is gone\n"


async def test_healthz_and_metrics_when_the_database_cannot_be_read(
    make_world: Any, tmp_path: Path
) -> None:
    world, base = await start(make_world)
    for name in ("bot.db", "bot.db-wal", "bot.db-shm"):  # replaced by a file of another kind
        (tmp_path / name).unlink()
    (tmp_path / "bot.db").write_bytes(b"not a database at all " * 500)
    status, reason = await health(base)
    assert (status, reason) == (
        503,
        "cannot read the database: DatabaseError: file is not a database\n",
    )
    world.runtime.database.engine.dispose()  # the pool's connections are opened again: fail too
    _, samples = await scrape(base)  # the scrape still answers, and says the store is down
    assert value(samples, "paperbot_database_up") == 0
    assert value(samples, "paperbot_messages_total", outcome="sent") == 0
    assert ("paperbot_papers", ()) not in samples


async def test_healthz_refuses_when_a_job_missed_three_of_its_periods(make_world: Any) -> None:
    world, base = await start(make_world)  # scan every 60 s, delivery 5 s, digests 30 s
    runtime, clock = world.runtime, world.clock
    assert await health(base) == (200, "ok\n")
    clock.advance(seconds=15)  # three delivery periods, not more
    assert await health(base) == (200, "ok\n")
    clock.advance(seconds=1)
    assert await health(base) == (
        503,
        "job deliver (every 5 s): no success in 16 s since start\n",
    )
    await runtime.deliver()
    assert await health(base) == (200, "ok\n")
    clock.advance(seconds=80)  # 96 s from the start: digests never ran
    await runtime.deliver()
    assert await health(base) == (
        503,
        "job digests (every 30 s): no success in 96 s since start\n",
    )
    await runtime.send_due_digests()
    assert await health(base) == (200, "ok\n")
    clock.advance(seconds=100)  # 196 s: the scan, too
    await runtime.deliver()
    await runtime.send_due_digests()
    assert await health(base) == (
        503,
        "job scan (every 60 s): no success in 196 s since start\n",
    )
    await world.drop()
    assert await health(base) == (200, "ok\n")
    clock.advance(seconds=181)
    await runtime.deliver()
    await runtime.send_due_digests()
    assert await health(base) == (
        503,
        "job scan (every 60 s): last success 181 s ago\n",
    )


async def test_feeds_are_gauges_by_url(make_world: Any, feeds: FeedServer) -> None:
    good, bad = f"{feeds.base}/rss/cs", f"{feeds.base}/missing"
    world, base = await start(make_world, feeds={"urls": [good, bad]})
    await world.drop()
    text, samples = await scrape(base)
    assert value(samples, "paperbot_feed_failures", feed=good) == 0
    assert value(samples, "paperbot_feed_failures", feed=bad) == 1
    assert value(samples, "paperbot_feed_papers", feed=good) == 3
    now = world.clock().timestamp()
    assert value(samples, "paperbot_feed_last_success_timestamp_seconds", feed=good) == now
    assert value(samples, "paperbot_feed_last_success_timestamp_seconds", feed=bad) == 0
    assert value(samples, "paperbot_listing_files_read_total", outcome="failed") == 1
    assert value(samples, "paperbot_papers_ingested_total") == 3


async def test_unknown_paths_are_404_and_each_runtime_has_its_own_registry(
    make_world: Any,
) -> None:
    world, base = await start(make_world)
    async with httpx.AsyncClient(base_url=base) as client:
        assert (await client.get("/nope")).status_code == 404
    Metrics().papers_ingested.inc()  # another registry: the running bot's is untouched
    _, samples = await scrape(base)
    assert value(samples, "paperbot_papers_ingested_total") == 0


async def test_build_info_names_the_version_python_and_the_commit(
    make_world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERBOT_BUILD_COMMIT", "4f2c9e1")  # the image's build argument
    _, base = await start(make_world)
    _, samples = await scrape(base)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    build = {labels: v for (name, labels), v in samples.items() if name == "paperbot_build_info"}
    python = platform.python_version()
    assert build == {(("commit", "4f2c9e1"), ("python", python), ("version", version)): 1}


async def test_a_feed_password_is_masked_in_its_labels(make_world: Any, feeds: FeedServer) -> None:
    url = f"{feeds.base.replace('http://', 'http://ada:s3cret@')}/rss/cs"
    world, base = await start(make_world, feeds={"urls": [url]})
    await world.drop()
    text, samples = await scrape(base)
    shown = f"{feeds.base.replace('http://', 'http://ada:***@')}/rss/cs"
    assert value(samples, "paperbot_feed_papers", feed=shown) == 3
    assert "s3cret" not in text


def answers(host: str, port: int) -> bool:
    """Whether something accepts a connection on host:port (a real socket, no HTTP)."""
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.mark.parametrize(
    ("configured", "reached", "refused"),
    [
        ({}, "127.0.0.1", "127.0.0.2"),  # the default: this machine's 127.0.0.1 only
        ({"host": "127.0.0.2"}, "127.0.0.2", "127.0.0.1"),
        ({"host": "0.0.0.0"}, "127.0.0.2", None),  # every address (a container's setting)
    ],
)
async def test_the_endpoints_listen_on_the_configured_address(
    make_world: Any, configured: dict[str, str], reached: str, refused: str | None
) -> None:
    port = free_port()
    await make_world(metrics={"port": port, **configured})
    assert answers(reached, port)
    assert refused is None or not answers(refused, port)
    assert (await health(f"http://{reached}:{port}"))[0] == 200


async def test_processes_waiting_rows_and_a_late_delivery_in_metrics_and_healthz(
    make_world: Any,
) -> None:
    """Read from the database at each scrape: the live processes, the rows waiting by state and
    how late the oldest is; /healthz refuses once it is later than
    metrics.max_waiting_seconds, and is ok again once it went out."""
    world, base = await start(make_world)  # metrics.max_waiting_seconds: 900 by default
    await world.command(ADA, '/subscribe "kv cache"')
    await world.command(ADA, "/mode instant")
    await world.drop(SEED_000, SEED_002, SEED_003)  # two rows planned, not sent yet
    world.clock.advance(seconds=900)
    world.runtime.heartbeat()
    _, samples = await scrape(base)
    assert value(samples, "paperbot_processes") == 1
    assert value(samples, "paperbot_deliveries", state="pending") == 2
    assert value(samples, "paperbot_deliveries", state="sending") == 0
    assert value(samples, "paperbot_oldest_waiting_seconds") == 900
    assert (await health(base))[1] != "ok\n"  # the jobs, 900 s without a run
    await world.drop()
    await world.runtime.send_due_digests()
    world.runtime.metrics.job_succeeded("deliver", world.clock())  # a tick that sent nothing
    assert await health(base) == (200, "ok\n")  # at the limit, not over it
    world.clock.advance(seconds=1)
    assert await health(base) == (
        503,
        "oldest waiting delivery is 901 s old, over metrics.max_waiting_seconds=900\n",
    )
    await world.runtime.deliver()
    _, samples = await scrape(base)
    assert value(samples, "paperbot_oldest_waiting_seconds") == 0
    assert value(samples, "paperbot_deliveries", state="pending") == 0
    assert await health(base) == (200, "ok\n")


async def test_a_scrape_counts_each_waiting_row_once(make_world: Any) -> None:
    """A row pending and a row being sent: each counted once, in its state, by one count of
    the waiting rows that the total is the sum of (read through the engine's statements)."""
    world, base = await start(make_world)
    await world.command(ADA, '/subscribe "kv cache"')
    await world.command(ADA, "/mode instant")
    await world.drop(SEED_000, SEED_002, SEED_003)  # two rows planned
    database = world.runtime.database
    with database.session() as session:
        [first, _] = deliveries.unfinished_deliveries(session, chat_id=ADA)
    with database.connection() as connection:
        deliveries.mark_deliveries(connection, delivery_ids=[first.id], status=Status.SENDING,
                                   now=world.clock())  # fmt: skip
    with statements(database.engine, counts_of_deliveries) as counts:
        _, samples = await scrape(base)
    assert value(samples, "paperbot_deliveries", state="pending") == 1
    assert value(samples, "paperbot_deliveries", state="sending") == 1
    assert value(samples, "paperbot_pending_deliveries") == 2
    assert len(counts) == 1, counts


async def test_healthz_refuses_while_the_inbox_folder_is_missing_and_says_it_once(
    make_world: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """An NFS mount gone: /healthz says which folder and which setting; the scans log it once
    when it begins and once when it ends, not at each scan."""
    world, base = await start(make_world)
    away = world.inbox.with_name("away")
    world.inbox.rename(away)
    expected = f"the inbox folder {world.inbox} is missing (PAPERBOT_INBOX_DIR, inbox.dir)"
    with caplog.at_level("INFO", logger="bot.runtime"):
        for _ in range(3):
            await world.drop()
            assert await health(base) == (503, expected + "\n")
        away.rename(world.inbox)
        for _ in range(2):
            await world.drop(SEED_000)
            assert await health(base) == (200, "ok\n")
    said = [r.getMessage() for r in caplog.records if r.name == "bot.runtime"]
    inbox_lines = [line for line in said if "inbox folder" in line or "the folder" in line]
    assert inbox_lines == [
        f"inbox: {expected}; nothing is read from it",
        f"inbox: the folder {world.inbox} can be read again",
    ]
    _, samples = await scrape(base)
    assert value(samples, "paperbot_papers") == 5  # read once the folder was back
