"""Each feed reports its own state, kept in the database (real SQLite, the feed server on
127.0.0.1): last success, last error, papers, failures in a row, and a next poll put off twice
as far after each failure (at most a day); a 304 is a success; a restart keeps it all; shown by
`paperbot status` (text and --json) and /stats."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.feed_fetch import FeedFetcher
from bot.logs import Redacted
from bot.service import feed_polling
from bot.service.status import FeedState, feed_status
from bot.store import Database
from tests.conftest import Clock
from tests.feed_server import FEED, FeedServer
from tests.telegram import conftest as telegram
from tests.telegram.conftest import OPERATOR, World
from tests.test_cli import paperbot

make_world = telegram.make_world  # the fixture: a running bot (tests/telegram)


def poll(
    database: Database, fetcher: FeedFetcher, clock: Clock, *urls: str, every: float
) -> list[str]:
    """One run of the feeds job: what came of each feed that was due."""
    report = feed_polling.poll_feeds(database, urls, fetcher, poll_seconds=every, clock=clock)
    return [f.status for f in report.files]


def state(database: Database, url: str) -> FeedState:
    return {feed.url: feed for feed in feed_status(database)}[url]


def test_a_failing_feed_waits_twice_as_long_after_each_failure_up_to_a_day(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    url, fetcher = f"{feeds.base}/rss/cs", FeedFetcher(timeout=5)
    del feeds.feeds["/rss/cs"]  # 404 until it comes back
    for failures, wait in enumerate([7200, 14400, 28800, 57600, 86400, 86400], 1):
        assert poll(database, fetcher, clock, url, every=3600) == ["failed"]
        failing = state(database, url)
        assert (failing.failures, failing.last_error_at) == (failures, clock())
        assert (failing.next_poll_at - clock()).total_seconds() == wait
        clock.advance(seconds=wait - 1)
        assert poll(database, fetcher, clock, url, every=3600) == []  # not due: not asked
        clock.advance(seconds=1)
    assert feeds.requests == ["/rss/cs"] * 6
    assert failing.last_error == f"cannot fetch {url}: HTTP 404"
    assert failing.last_success_at is None and failing.papers == 0

    feeds.feeds["/rss/cs"] = FEED
    assert poll(database, fetcher, clock, url, every=3600) == ["ingested"]
    back = state(database, url)
    assert (back.failures, back.papers, back.last_success_at) == (0, 3, clock())
    assert (back.next_poll_at - clock()).total_seconds() == 3600
    assert back.last_error == failing.last_error  # kept, with its time, for the operator


def test_a_304_is_a_success(database: Database, feeds: FeedServer, clock: Clock) -> None:
    url, fetcher = f"{feeds.base}/rss/cs", FeedFetcher(timeout=5)
    assert poll(database, fetcher, clock, url, every=60) == ["ingested"]
    clock.advance(seconds=60)
    assert poll(database, fetcher, clock, url, every=60) == ["skipped"]  # a 304
    assert (state(database, url).last_success_at, state(database, url).papers) == (clock(), 3)
    del feeds.feeds["/rss/cs"]
    clock.advance(seconds=60)
    assert poll(database, fetcher, clock, url, every=60) == ["failed"]
    feeds.feeds["/rss/cs"] = FEED  # the same content again: the conditional request gets a 304
    clock.advance(seconds=120)
    assert poll(database, fetcher, clock, url, every=60) == ["skipped"]
    assert state(database, url).failures == 0 and state(database, url).last_success_at == clock()
    assert feeds.requests == ["/rss/cs"] * 4


def test_a_feed_whose_content_cannot_be_read_fails_too(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    feeds.feeds["/busy"] = b"<html><body>Service unavailable, come back later</body></html>"
    url = f"{feeds.base}/busy"
    assert poll(database, FeedFetcher(timeout=5), clock, url, every=60) == ["failed"]
    broken = state(database, url)
    assert broken.failures == 1 and broken.last_error is not None
    assert (broken.next_poll_at - clock()).total_seconds() == 120


def test_a_restart_keeps_the_state_and_the_backoff(
    tmp_path: Path, feeds: FeedServer, clock: Clock
) -> None:
    url, address = f"{feeds.base}/missing", f"sqlite:///{tmp_path / 'restart.db'}"
    database = Database.open(address)
    for wait in (120, 240):
        assert poll(database, FeedFetcher(timeout=5), clock, url, every=60) == ["failed"]
        clock.advance(seconds=wait)
    clock.advance(seconds=-1)  # a second before the third poll is due
    database.close()

    restarted = Database.open(address)
    assert state(restarted, url).failures == 2
    assert poll(restarted, FeedFetcher(timeout=5), clock, url, every=60) == []
    clock.advance(seconds=1)
    assert poll(restarted, FeedFetcher(timeout=5), clock, url, every=60) == ["failed"]
    assert state(restarted, url).failures == 3 and feeds.requests == ["/missing"] * 3
    restarted.close()


def test_paperbot_status_shows_each_feed(
    database: Database, feeds: FeedServer, clock: Clock, tmp_path: Path
) -> None:
    good, bad = f"{feeds.base}/rss/cs", f"{feeds.base}/missing"
    poll(database, FeedFetcher(timeout=5), clock, good, bad, every=1800)
    env = {"PAPERBOT_DATABASE_URL": database.engine.url.render_as_string(hide_password=False)}

    text = paperbot(tmp_path, "status", env=env)
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[-3:] == [
        "feeds: 2",
        f"  {bad}: failing (1 in a row): cannot fetch {bad}: HTTP 404; 0 papers; last success "
        "never; next poll 2026-10-22 13:00 UTC",
        f"  {good}: ok; 3 papers; last success 2026-10-22 12:00 UTC; next poll 2026-10-22 "
        "12:30 UTC",
    ]
    document = json.loads(paperbot(tmp_path, "status", "--json", env=env).stdout)
    assert document["feeds"] == [
        {
            "url": bad,
            "papers": 0,
            "failures": 1,
            "last_success_at": None,
            "last_error": f"cannot fetch {bad}: HTTP 404",
            "last_error_at": "2026-10-22T12:00:00+00:00",
            "polled_at": "2026-10-22T12:00:00+00:00",
            "next_poll_at": "2026-10-22T13:00:00+00:00",
        },
        {
            "url": good,
            "papers": 3,
            "failures": 0,
            "last_success_at": "2026-10-22T12:00:00+00:00",
            "last_error": None,
            "last_error_at": None,
            "polled_at": "2026-10-22T12:00:00+00:00",
            "next_poll_at": "2026-10-22T12:30:00+00:00",
        },
    ]


async def test_stats_shows_each_feed(make_world: Any, feeds: FeedServer) -> None:
    good, bad = f"{feeds.base}/rss/cs", f"{feeds.base}/missing"
    world: World = await make_world(feeds={"urls": [good, bad]})
    await world.drop()  # the scan polls the feeds
    reply = await world.command(OPERATOR, "/stats")
    assert reply.splitlines()[-3:] == [
        "Feeds:",
        f"• {bad}: failing (1 in a row): cannot fetch {bad}: HTTP 404; 0 papers; last success "
        "never; next poll 2026-10-22 13:00 UTC",
        f"• {good}: ok; 3 papers; last success 2026-10-22 12:00 UTC; next poll 2026-10-22 "
        "12:30 UTC",
    ]


def test_a_feed_password_is_never_shown(
    database: Database,
    feeds: FeedServer,
    clock: Clock,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Status, its JSON, the stored error and the log name the feed with `***` for a password;
    the feed's state stays keyed by its real URL (polled again when due, not every run)."""
    base = feeds.base.replace("http://", "http://ada:s3cret@")
    good, bad = f"{base}/rss/cs", f"{base}/missing"
    fetcher = FeedFetcher(timeout=5)
    redacted = Redacted()  # what paperbot's log handler does (httpx logs URLs)
    caplog.handler.addFilter(redacted)  # pytest's handler outlives the test: taken off below
    try:
        with caplog.at_level(logging.INFO):
            polled = poll(database, fetcher, clock, good, bad, every=1800)
    finally:
        caplog.handler.removeFilter(redacted)
    assert polled == ["ingested", "failed"]
    assert poll(database, fetcher, clock, good, bad, every=1800) == []  # not due yet
    assert state(database, bad).failures == 1
    env = {"PAPERBOT_DATABASE_URL": database.engine.url.render_as_string(hide_password=False)}
    text = paperbot(tmp_path, "status", env=env).stdout
    document = paperbot(tmp_path, "status", "--json", env=env).stdout
    shown = feeds.base.replace("http://", "http://ada:***@")
    assert f"  {shown}/missing: failing (1 in a row): cannot fetch {shown}/missing" in text
    assert [feed["url"] for feed in json.loads(document)["feeds"]] == [
        f"{shown}/missing",
        f"{shown}/rss/cs",
    ]
    assert f"feed {shown}/missing: cannot fetch {shown}/missing: HTTP 404" in caplog.text
    for output in (text, document, caplog.text):
        assert "s3cret" not in output


EMPTY_RSS = (
    b"<?xml version='1.0'?><rss version='2.0'><channel><title>cs updates on arXiv.org</title>"
    b"<link>https://rss.arxiv.org/rss/cs</link><description>none today</description>"
    b"<skipDays><day>Saturday</day><day>Sunday</day></skipDays></channel></rss>"
)


@pytest.mark.parametrize(
    "empty",
    [
        EMPTY_RSS,
        b'{"messages": [{"status": "no posts found", "interval": "none today"}], "collection": []}',
    ],
    ids=["arxiv-rss-at-a-weekend", "biorxiv-api-no-posts"],
)
def test_a_feed_with_no_entries_today_is_polled_on_time(
    database: Database, feeds: FeedServer, clock: Clock, empty: bytes
) -> None:
    """A weekend's empty arXiv feed used to count as a failure: Monday's papers waited out a
    back-off of hours."""
    url, fetcher = f"{feeds.base}/rss/cs", FeedFetcher(timeout=5)
    for day in range(3):  # a weekend and a holiday: a new (empty) content each day
        feeds.feeds["/rss/cs"] = empty.replace(b"none today", f"day {day}".encode())
        assert poll(database, fetcher, clock, url, every=3600) == ["ingested"]
        quiet = state(database, url)
        assert (quiet.failures, quiet.last_success_at, quiet.papers) == (0, clock(), 0)
        assert (quiet.next_poll_at - clock()).total_seconds() == 3600
        clock.advance(days=1)
    feeds.feeds["/rss/cs"] = FEED
    assert poll(database, fetcher, clock, url, every=3600) == ["ingested"]
    assert state(database, url).papers == 3


def test_a_biorxiv_answer_with_an_error_status_still_fails(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    feeds.feeds["/rss/cs"] = b'{"messages": [{"status": "interval error"}], "collection": []}'
    url = f"{feeds.base}/rss/cs"
    assert poll(database, FeedFetcher(timeout=5), clock, url, every=60) == ["failed"]
    assert "interval error" in (state(database, url).last_error or "")
