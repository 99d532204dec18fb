"""Planning: every stored paper matched once against the filters of active chats."""

from __future__ import annotations

from datetime import datetime

from bot import service
from bot.ledger import FilterCache, plan_deliveries
from bot.store import Database, chats, deliveries, papers
from tests.conftest import SEEDS, Clock


def follow(database: Database, chat_id: int, *sources: str, now: datetime) -> None:
    with database.session() as session:
        chats.register_chat(session, chat_id=chat_id, kind="private", now=now)
        for source in sources:
            chats.add_filter(session, chat_id=chat_id, source=source, canonical=source, now=now)


def test_new_papers_are_planned_once_per_chat_naming_every_filter(
    any_database: Database, clock: Clock
) -> None:
    follow(any_database, 1, '"kv cache"', "looped", now=clock())
    follow(any_database, 2, "au:Hassani", now=clock())
    follow(any_database, 3, "looped", now=clock())
    with any_database.session() as session:
        chats.deactivate_chat(session, chat_id=3, reason="blocked")
    service.ingest_paths(any_database, [SEEDS], clock=clock)
    cache = FilterCache()
    report = plan_deliveries(any_database, cache, now=clock())
    assert report.papers == 37 and report.deliveries == 3
    with any_database.session() as session:
        first = deliveries.all_deliveries(session, chat_id=1)
        titles = papers.get_papers(session, paper_ids=[r.paper_id for r in first])
        assert deliveries.all_deliveries(session, chat_id=3) == []
        assert len(deliveries.all_deliveries(session, chat_id=2)) == 1
    by_title = {titles[r.paper_id].title.split()[0]: len(r.filter_ids) for r in first}
    assert by_title == {"BeNice!": 2, "ElasticKV:": 1}
    assert plan_deliveries(any_database, cache, now=clock()).papers == 0  # nothing twice


def test_papers_stored_but_not_planned_before_a_crash_are_planned_next_time(
    any_database: Database, clock: Clock
) -> None:
    follow(any_database, 1, "looped", now=clock())
    service.ingest_paths(any_database, [SEEDS], clock=clock)  # the process dies here
    report = plan_deliveries(any_database, FilterCache(), now=clock())  # a new process
    assert report.papers == 37 and report.deliveries == 1


def test_the_index_is_settled_after_growing_a_lot_at_once_or_over_time(
    database: Database, clock: Clock
) -> None:
    cache = FilterCache()
    cache.SETTLE_AFTER = 3
    follow(database, 1, "a1", "a2", "a3", "a4", now=clock())  # four at once: settled
    with database.session() as session:
        cache.sync(session)
    assert cache.settled_at == 4
    for number, word in enumerate(["b1", "b2", "b3", "b4"]):  # one at a time: on the fourth
        follow(database, 10 + number, word, now=clock())
        with database.session() as session:
            cache.sync(session)
        assert cache.settled_at == (8 if number == 3 else 4)
    with database.session() as session:
        chats.deactivate_chat(session, chat_id=1, reason="blocked")  # four filters go
        cache.sync(session)
    assert cache.settled_at == len(cache.owner) == 4
