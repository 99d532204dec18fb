"""Counts of the whole store (/stats, `paperbot status`, /metrics) and of one chat (/status),
after the seed listings (37 papers in 3 files) went in."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from bot.core.query import FilterRules
from bot.core.states import Status
from bot.service import chats, ingest, status, subscriptions
from bot.service.planning import Planner
from bot.service.preview import RecentPapers
from bot.service.status import LastListing
from bot.store import Database, deliveries
from tests.conftest import ROOT, SEEDS, Clock
from tests.statements import counts_of_deliveries, statements

SEED_FILES = sorted(SEEDS.iterdir())


def follow(database: Database, clock: Clock, chat_id: int, *sources: str) -> None:
    chats.enter(database, chat_id=chat_id, kind="private", now=clock())
    for source in sources:
        subscriptions.subscribe(
            database,
            chat_id=chat_id,
            source=source,
            rules=FilterRules(),
            now=clock(),
            recent=RecentPapers(database),
        )


def ingest_seeds(database: Database, clock: Clock) -> None:
    """One seed file a minute, so that the last one is the last seen."""
    for path in SEED_FILES:
        clock.advance(minutes=1)
        ingest.ingest_paths(database, [path], clock=clock)


def test_an_empty_store(any_database: Database) -> None:
    found = status.store_status(any_database)
    assert found == status.StoreStatus(
        papers=0,
        files={},
        last_announcement=None,
        chats={"active": 0, "paused": 0, "inactive": 0},
        filters=0,
        pending_deliveries=0,
        deliveries={},
    )


def test_store_status_counts_everything(
    any_database: Database, clock: Clock, tmp_path: Path
) -> None:
    follow(any_database, clock, 1, "KV-cache", "looped")
    follow(any_database, clock, 2, "au:Hassani")
    follow(any_database, clock, 3)
    chats.change(any_database, chat_id=2, paused=True)
    chats.mark_unreachable(any_database, chat_id=3, reason="blocked")
    ingest_seeds(any_database, clock)
    (tmp_path / "broken.txt").write_text("this is not a listing\n")
    ingest.ingest_paths(any_database, [tmp_path / "broken.txt"], clock=clock)
    Planner(FilterRules()).plan(any_database, now=clock())
    found = status.store_status(any_database)
    assert found == status.StoreStatus(
        papers=37,
        files={"ingested": 3, "failed": 1},
        last_announcement=date(2026, 10, 22),  # the numbered seed's own date (the rest carry none)
        chats={"active": 2, "paused": 1, "inactive": 1},
        filters=3,
        pending_deliveries=3,
        deliveries={"pending": 3},  # chat 1: BeNice! and ElasticKV; chat 2 (paused): one
    )
    scraped = status.scrape_status(any_database, now=clock())  # /metrics'
    assert (scraped.pending_deliveries, scraped.deliveries) == (3, None)
    assert scraped.backlog is not None and scraped.backlog.waiting == {"pending": 3, "sending": 0}
    assert found.as_json() == {
        "papers": 37,
        "files": {"ingested": 3, "failed": 1},
        "chats": 3,
        "chats_by_state": {"active": 2, "paused": 1, "inactive": 1},
        "filters": 3,
        "pending_deliveries": 3,
        "deliveries": {"pending": 3},
        "last_announcement": "2026-10-22",
    }


def test_stats_count_each_waiting_row_once(any_database: Database, clock: Clock) -> None:
    """/stats and `paperbot status`: a row pending, one being sent, one sent and one failed,
    each counted once, in its state, by the one count of the ledger by status that the rows
    waiting are the sum of (read through the engine's statements)."""
    follow(any_database, clock, 1, "transformer")
    ingest_seeds(any_database, clock)
    Planner(FilterRules()).plan(any_database, now=clock())  # 5 rows
    with any_database.session() as session:
        ids = [r.id for r in deliveries.all_deliveries(session, chat_id=1)]
        connection = session.connection()
        states = {ids[0]: Status.SENDING, ids[1]: Status.SENT, ids[2]: Status.FAILED}
        for row_id, state in states.items():
            deliveries.mark_deliveries(
                connection, delivery_ids=[row_id], status=state, now=clock(), message_id=1
            )
    with statements(any_database.engine, counts_of_deliveries) as counts:
        found = status.store_status(any_database)
    assert found.deliveries == {"pending": 2, "sending": 1, "sent": 1, "failed": 1}
    assert found.pending_deliveries == 3
    assert len(counts) == 1, counts


def test_chat_status_before_any_listing(any_database: Database, clock: Clock) -> None:
    follow(any_database, clock, 1, "looped")
    chat = chats.enter(any_database, chat_id=1, kind="private", now=clock())
    assert status.chat_status(any_database, chat) == status.ChatStatus(
        chat=chat,
        filters=1,
        waiting=0,
        arrived_since_digest=0,
        last_listing=None,
    )


def test_chat_status_after_the_seeds(any_database: Database, clock: Clock) -> None:
    follow(any_database, clock, 1, "KV-cache", "looped", "mamba")
    follow(any_database, clock, 2, "transformer")
    ingest_seeds(any_database, clock)
    Planner(FilterRules()).plan(any_database, now=clock())
    chat = chats.enter(any_database, chat_id=1, kind="private", now=clock())
    found = status.chat_status(any_database, chat)
    assert (found.filters, found.waiting, found.arrived_since_digest) == (3, 2, 37)
    assert found.last_listing == LastListing(  # the abstract-only seed: no dates of its own
        SEED_FILES[-1].name, datetime(2026, 10, 22, 12, 3, tzinfo=UTC), None
    )


def test_arrived_since_digest_counts_papers_stored_after_it(
    any_database: Database, clock: Clock
) -> None:
    follow(any_database, clock, 1, "looped")
    ingest.ingest_paths(any_database, SEED_FILES[:2], clock=clock)  # 7 papers, with the digest
    clock.advance(minutes=1)
    ingest.ingest_paths(any_database, SEED_FILES[2:], clock=clock)  # 30 more, after it
    chat = chats.enter(any_database, chat_id=1, kind="private", now=clock())
    assert status.chat_status(any_database, chat).arrived_since_digest == 30


def test_waiting_counts_pending_and_sending_rows_only(any_database: Database, clock: Clock) -> None:
    follow(any_database, clock, 1, "transformer")
    ingest_seeds(any_database, clock)
    Planner(FilterRules()).plan(any_database, now=clock())
    assert status.waiting(any_database, 1) == 5
    with any_database.session() as session:
        ids = [r.id for r in deliveries.all_deliveries(session, chat_id=1)]
        connection = session.connection()
        deliveries.mark_deliveries(
            connection, delivery_ids=ids[:1], status=Status.SENDING, now=clock()
        )
        deliveries.mark_deliveries(
            connection, delivery_ids=ids[1:2], status=Status.SENT, now=clock(), message_id=1
        )
        deliveries.mark_deliveries(
            connection, delivery_ids=ids[2:3], status=Status.FAILED, now=clock()
        )
    assert status.waiting(any_database, 1) == 3
    assert status.waiting(any_database, 2) == 0
    chats.mark_unreachable(any_database, chat_id=1, reason="blocked")
    assert status.waiting(any_database, 1) == 0


def test_a_listing_is_announced_on_its_own_date_not_the_day_it_was_read(
    any_database: Database, clock: Clock
) -> None:
    """A mailing of 20 Jan 2026 read on 22 Oct 2026 was announced on 20 Jan; a listing without
    dates (the abstract-only seed) announces nothing, whatever its file's time."""
    follow(any_database, clock, 1, "looped")
    ingest.ingest_paths(any_database, [ROOT / "tests/data/listings/email.txt"], clock=clock)
    assert status.store_status(any_database).last_announcement == date(2026, 1, 20)
    chat = chats.enter(any_database, chat_id=1, kind="private", now=clock())
    listing = status.chat_status(any_database, chat).last_listing
    assert listing == LastListing("email.txt", clock(), date(2026, 1, 20))
    clock.advance(minutes=1)
    ingest.ingest_paths(any_database, [SEED_FILES[-1]], clock=clock)
    assert status.store_status(any_database).last_announcement == date(2026, 1, 20)
    listing = status.chat_status(any_database, chat).last_listing
    assert listing == LastListing(SEED_FILES[-1].name, clock(), None)
