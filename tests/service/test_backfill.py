"""A new filter's recent matches queued when the chat asks: the papers /subscribe counted, one
pending row each, never twice, only for the chat's own filter; keyword and "more like this"
filters alike, on a real database with real models."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.core.query import FilterRules
from bot.service.backfill import Queued, queue_recent
from bot.service.preview import RecentPapers
from bot.service.similar import Similar
from bot.service.subscriptions import Subscribed, subscribe
from bot.store import Database, deliveries, papers
from bot.store.deliveries import NewDeliveries
from tests.conftest import Clock
from tests.corpus import mixed_day, topic_papers
from tests.service.test_similar import CHAT, DAY_ONE, DAY_TWO, delivered, follow, setup

OTHER_CHAT = 6
NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)


def queue(database: Database, similar: Similar, filter_id: int, chat_id: int = CHAT) -> object:
    return queue_recent(  # a fresh RecentPapers: as a restarted bot finds them
        database,
        RecentPapers(database),
        similar,
        chat_id=chat_id,
        filter_id=filter_id,
        rules=FilterRules(),
        now=NOW,
    )


def statuses(database: Database, chat_id: int | None = CHAT) -> dict[str, int]:
    """The ledger's rows by status: the chat's, or (None) every chat's."""
    with database.session() as session:
        return deliveries.count_deliveries(session, chat_id=chat_id)


def test_a_keyword_filters_recent_matches_are_queued_once(database: Database, clock: Clock) -> None:
    similar, _ = setup(database, clock)  # day one, 40 papers, matched before the filter existed
    source = '"message passing"'
    saved = subscribe(
        database, chat_id=CHAT, source=source, rules=FilterRules(), now=clock(),
        recent=RecentPapers(database),
    )  # fmt: skip
    assert isinstance(saved, Subscribed) and saved.recent.count >= 2
    assert delivered(database) == []  # by itself, a new filter gets no old papers
    matching = sorted(RecentPapers(database).index().matching(FilterRules().parse(source)))
    with database.session() as session:  # the chat has one of them already
        rows = NewDeliveries.of([(CHAT, matching[0], 0, [saved.filter_id])])
        deliveries.add_deliveries(session, rows=[rows], now=clock())
    count = saved.recent.count
    assert queue(database, similar, saved.filter_id) == Queued(count, count - 1)
    assert statuses(database) == {"pending": count}
    assert all(11 <= n <= 20 for n in delivered(database))  # the graph topic's papers
    assert queue(database, similar, saved.filter_id) == Queued(count, 0)  # asked again
    assert statuses(database) == {"pending": count}


def test_a_like_filters_recent_matches_are_the_ones_it_counted(
    database: Database, clock: Clock
) -> None:
    similar, _ = setup(database, clock)
    seed = topic_papers("graph", 1, first_id=11, day=DAY_ONE)[0]
    saved = follow(similar, clock, f"like:{seed.arxiv_id}")
    assert isinstance(saved, Subscribed) and saved.recent.count >= 1
    count = saved.recent.count
    assert queue(database, similar, saved.filter_id) == Queued(count, count)
    got = delivered(database)
    assert all(12 <= n <= 20 for n in got)  # the graph topic, the seed itself left out
    assert queue(database, similar, saved.filter_id) == Queued(count, 0)


def test_a_like_filter_on_a_refitted_vocabulary_is_rebuilt_from_its_seeds(
    database: Database, clock: Clock
) -> None:
    similar, _ = setup(database, clock, window=100)
    seed = topic_papers("proteins", 1, first_id=31, day=DAY_ONE)[0]
    saved = follow(similar, clock, f"like:{seed.arxiv_id}")
    assert isinstance(saved, Subscribed)
    with database.session() as session:  # the window moves by half: the vocabulary is refitted
        papers.insert_papers(
            session, papers=mixed_day(DAY_TWO, 15, first_id=200, seed=4), now=clock()
        )
    queued = queue(database, similar, saved.filter_id)
    assert isinstance(queued, Queued) and queued.added >= 1
    got = delivered(database)
    assert all(32 <= n <= 40 or 245 <= n < 260 for n in got)  # still the protein topic


def test_only_the_chats_own_filter_is_queued(database: Database, clock: Clock) -> None:
    similar, _ = setup(database, clock)
    saved = subscribe(
        database, chat_id=CHAT, source="graph", rules=FilterRules(), now=clock(),
        recent=RecentPapers(database),
    )  # fmt: skip
    assert isinstance(saved, Subscribed)
    assert queue(database, similar, saved.filter_id, chat_id=OTHER_CHAT) is None
    assert queue(database, similar, saved.filter_id + 1) is None  # no such filter
    assert statuses(database, chat_id=None) == {}  # no row for either chat
