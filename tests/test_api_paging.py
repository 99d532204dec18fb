"""A bioRxiv API address polled as a feed is read page after page (100 records a page) to the
end of its answer, from a local server; a page that fails fails the poll, and the next poll
reads every page again, storing what it missed."""

from __future__ import annotations

import json

from bot.core.listings.biorxiv import next_page
from bot.feed_fetch import FeedFetcher
from bot.service.feed_polling import poll_feeds
from bot.store import Database, papers
from tests.conftest import Clock
from tests.feed_server import FeedServer

INTERVAL = "/details/biorxiv/2026-07-15/2026-07-16"


def answer(cursor: int, count: int, total: int) -> bytes:
    """A page of the API's answer: its header, then `count` records from `cursor` on."""
    records = [
        {
            "doi": f"10.1101/2026.07.15.{700000 + n}",
            "title": f"Paged preprint number {n} about cortical circuits in mice",
            "authors": "Okafor, A. N.; Reeder, B.",
            "date": "2026-07-15",
            "version": "1",
            "type": "new results",
            "category": "neuroscience",
            "abstract": f"Record {n} of a paged answer.",
            "published": "NA",
            "server": "bioRxiv",
        }
        for n in range(cursor, cursor + count)
    ]
    header = {"status": "ok", "cursor": cursor, "count": count, "total": str(total)}
    return json.dumps({"messages": [header], "collection": records}).encode()


def serve(feeds: FeedServer, total: int) -> None:
    for cursor in range(0, total, 100):
        body = answer(cursor, min(100, total - cursor), total)
        feeds.feeds[f"{INTERVAL}/{cursor}" if cursor else INTERVAL] = body


def stored(database: Database) -> int:
    with database.session() as session:
        return papers.count_papers(session)


def test_an_api_answer_is_read_to_its_last_page(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    serve(feeds, total=250)
    fetcher = FeedFetcher(timeout=5)
    report = poll_feeds(
        database, [feeds.base + INTERVAL], fetcher.fetch, poll_seconds=60, clock=clock
    )
    [polled] = report.files
    assert (polled.status, polled.entries, polled.new) == ("ingested", 250, 250)
    assert feeds.requests == [INTERVAL, f"{INTERVAL}/100", f"{INTERVAL}/200"]
    assert stored(database) == 250


def test_a_failed_page_fails_the_poll_and_the_next_poll_reads_what_it_missed(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    serve(feeds, total=250)
    missing = feeds.feeds.pop(f"{INTERVAL}/200")
    fetcher = FeedFetcher(timeout=5)
    url = feeds.base + INTERVAL
    [first] = poll_feeds(database, [url], fetcher.fetch, poll_seconds=60, clock=clock).files
    assert first.status == "failed" and "HTTP 404" in (first.error or "")
    assert stored(database) == 200  # the pages read before it are kept
    feeds.feeds[f"{INTERVAL}/200"] = missing
    clock.advance(seconds=600)  # past the back-off
    [second] = poll_feeds(database, [url], fetcher.fetch, poll_seconds=60, clock=clock).files
    assert (second.status, second.new) == ("ingested", 50)
    assert stored(database) == 250


def test_the_next_page_follows_the_answers_header() -> None:
    base = "https://api.biorxiv.org/details/medrxiv/2026-07-01/2026-07-31"
    assert next_page(base, answer(0, 100, 250).decode()) == base + "/100"
    assert next_page(base + "/100/json", answer(100, 100, 250).decode()) == base + "/200/json"
    assert next_page(base + "/200", answer(200, 50, 250).decode()) is None  # the last page
    assert next_page(base.replace("details", "pubs"), answer(0, 100, 250).decode()) is None
    assert next_page(base, "<rss/>") is None
    assert next_page(base + "?x=1", answer(0, 100, 250).decode()) == base + "/100?x=1"
