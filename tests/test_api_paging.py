"""The sources' APIs polled as feeds, from a local server. A bioRxiv API address is read page
after page (100 records a page) to the end of its answer; a page that fails fails the poll, and
the next poll asks for every page again (an unchanged one answers 304), storing what it missed.
A saved PubMed search (esearch) is paged for its ids, and the records of those not stored are
fetched with efetch, at NCBI's rate (3 requests a second, 10 with an API key)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.core.listings.biorxiv import next_page
from bot.core.listings.pubmed import (
    SearchPage,
    efetch_address,
    is_esearch_address,
    next_search_page,
    search_page,
)
from bot.feed_fetch import FeedFetcher
from bot.service import feed_polling
from bot.service.feed_polling import poll_feeds
from bot.service.ingest import FileReport
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
    report = poll_feeds(database, [feeds.base + INTERVAL], fetcher, poll_seconds=60, clock=clock)
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
    [first] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert first.status == "failed" and "HTTP 404" in (first.error or "")
    assert stored(database) == 200  # the pages read before it are kept
    feeds.feeds[f"{INTERVAL}/200"] = missing
    clock.advance(seconds=600)  # past the back-off
    feeds.answered.clear()
    [second] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert (second.status, second.new) == ("ingested", 50)
    assert stored(database) == 250
    assert feeds.answered == [(INTERVAL, 304), (f"{INTERVAL}/100", 304), (f"{INTERVAL}/200", 200)]


def test_each_page_is_asked_for_conditionally_and_an_unchanged_one_is_passed(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    serve(feeds, total=250)
    fetcher = FeedFetcher(timeout=5)
    url = feeds.base + INTERVAL
    poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock)
    clock.advance(seconds=60)
    feeds.answered.clear()
    [unchanged] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert (unchanged.status, unchanged.error) == ("skipped", "not modified")  # no failure
    assert [status for _, status in feeds.answered] == [304, 304, 304]
    last = f"{INTERVAL}/200"
    feeds.feeds[last] = feeds.feeds[last].replace(b"Record 249 ", b"Record 249, revised, ")
    clock.advance(seconds=60)
    feeds.answered.clear()
    [changed] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert feeds.answered == [(INTERVAL, 304), (f"{INTERVAL}/100", 304), (last, 200)]
    assert (changed.status, changed.entries, changed.new) == ("ingested", 50, 0)
    assert changed.path == url  # the feed's report, whichever of its pages was read


def test_a_page_whose_reading_broke_is_asked_for_whole_next_time(
    database: Database, feeds: FeedServer, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database went away while a page was being stored: had its validators been kept, the
    next poll's answer would be a 304 and the page skipped until it changed."""
    serve(feeds, total=250)
    fetcher = FeedFetcher(timeout=5)
    url = feeds.base + INTERVAL
    real = feed_polling.ingest_bytes

    def unreachable_at_the_second_page(*args: Any, **kwargs: Any) -> FileReport:
        if kwargs["path"].endswith("/100"):
            raise OperationalError("INSERT", {}, Exception("database is unreachable"))
        return real(*args, **kwargs)

    monkeypatch.setattr(feed_polling, "ingest_bytes", unreachable_at_the_second_page)
    with pytest.raises(OperationalError):
        poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock)
    monkeypatch.setattr(feed_polling, "ingest_bytes", real)
    clock.advance(seconds=60)
    feeds.answered.clear()
    [second] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert feeds.answered == [(INTERVAL, 304), (f"{INTERVAL}/100", 200), (f"{INTERVAL}/200", 200)]
    assert (second.status, second.new) == ("ingested", 150)
    assert stored(database) == 250


def test_a_page_that_cannot_be_read_is_asked_for_whole_next_time(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    serve(feeds, total=250)
    feeds.feeds[f"{INTERVAL}/100"] = b'{"messages": [{"status": "ok"'  # cut short
    fetcher = FeedFetcher(timeout=5)
    url = feeds.base + INTERVAL
    [first] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert first.status == "failed"
    clock.advance(seconds=600)  # past the back-off
    feeds.answered.clear()
    poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock)
    assert (f"{INTERVAL}/100", 200) in feeds.answered


def test_the_next_page_follows_the_answers_header() -> None:
    base = "https://api.biorxiv.org/details/medrxiv/2026-07-01/2026-07-31"
    assert next_page(base, answer(0, 100, 250).decode()) == base + "/100"
    assert next_page(base + "/100/json", answer(100, 100, 250).decode()) == base + "/200/json"
    assert next_page(base + "/200", answer(200, 50, 250).decode()) is None  # the last page
    assert next_page(base.replace("details", "pubs"), answer(0, 100, 250).decode()) is None
    assert next_page(base, "<rss/>") is None
    assert next_page(base + "?x=1", answer(0, 100, 250).decode()) == base + "/100?x=1"


# -- a saved PubMed search: esearch paged, efetch for the ids not stored ---------------------

DATA = Path(__file__).parent / "data"
SEARCH = "/entrez/eutils/esearch.fcgi?db=pubmed&term=grid+cells&retmode=json&retmax=2"


def articles(*pmids: str) -> bytes:
    """A PubmedArticleSet of these records, taken from the test files."""
    texts = [
        (DATA / "sources" / "pubmed_journal.xml").read_text(),
        (DATA / "listings" / "pubmed_efetch_2019.xml").read_text(),
    ]
    found = {
        re.search(r"<PMID[^>]*>(\d+)</PMID>", article)[1]: article  # type: ignore[index]
        for text in texts
        for article in re.findall(r"<PubmedArticle>.*?</PubmedArticle>", text, re.S)
    }
    body = "".join(found[pmid] for pmid in pmids)
    return f'<?xml version="1.0"?>\n<PubmedArticleSet>{body}</PubmedArticleSet>'.encode()


def search(ids: list[str], count: int, start: int) -> bytes:
    result = {"count": str(count), "retmax": "2", "retstart": str(start), "idlist": ids}
    return json.dumps({"header": {"type": "esearch"}, "esearchresult": result}).encode()


def serve_search(feeds: FeedServer, suffix: str = "") -> str:
    feeds.feeds[SEARCH + suffix] = search(["41999001", "30919711"], 3, 0)
    feeds.feeds[SEARCH + suffix + "&retstart=2"] = search(["27981638"], 3, 2)
    keep = "&api_key=K" if suffix else ""
    records = "/entrez/eutils/efetch.fcgi?db=pubmed&retmode=xml" + keep
    feeds.feeds[records + "&id=41999001,30919711,27981638"] = articles(
        "41999001", "30919711", "27981638"
    )
    return feeds.base + SEARCH + suffix


def test_a_saved_pubmed_search_fetches_the_records_of_its_new_ids(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    url = serve_search(feeds)
    sleeps: list[float] = []
    fetcher = FeedFetcher(timeout=5, sleep=sleeps.append, monotonic=lambda: 0.0)
    [first] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert (first.status, first.format, first.new) == ("ingested", "pubmed-xml", 3)
    assert [request.split("?")[0].rsplit("/", 1)[1] for request in feeds.requests] == [
        "esearch.fcgi", "esearch.fcgi", "efetch.fcgi",
    ]  # fmt: skip
    assert sleeps == [pytest.approx(1 / 3)] * 2  # NCBI's 3 requests a second
    with database.session() as session:
        assert papers.known_pmids(session, pmids=["41999001", "27981638", "1"]) == {
            "41999001",
            "27981638",
        }
    clock.advance(seconds=60)
    feeds.requests.clear()
    [second] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert (second.status, second.error) == ("skipped", "no new records (3 found)")
    assert all("efetch" not in request for request in feeds.requests)  # nothing fetched again
    # E-utilities promise no conditional requests: the search is read whole, its ETag unused
    assert [status for _, status in feeds.answered[-2:]] == [200, 200]
    assert not fetcher.validators  # nor kept for an efetch address, which names its ids


def test_an_api_key_raises_the_rate_to_ten_a_second(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    url = serve_search(feeds, "&api_key=K")
    sleeps: list[float] = []
    fetcher = FeedFetcher(timeout=5, sleep=sleeps.append, monotonic=lambda: 0.0)
    [polled] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert polled.new == 3 and sleeps == [pytest.approx(0.1)] * 2


def test_a_search_that_answers_no_ids_fails_with_a_reason(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    feeds.feeds[SEARCH] = b'{"error": "API rate limit exceeded"}'
    fetcher = FeedFetcher(timeout=5, sleep=lambda s: None)
    [polled] = poll_feeds(
        database, [feeds.base + SEARCH], fetcher, poll_seconds=60, clock=clock
    ).files
    assert polled.status == "failed" and "not an esearch answer" in (polled.error or "")


def test_records_that_failed_are_fetched_at_the_next_poll(
    database: Database, feeds: FeedServer, clock: Clock
) -> None:
    url = serve_search(feeds)
    records = next(path for path in feeds.feeds if "efetch" in path)
    body = feeds.feeds.pop(records)
    fetcher = FeedFetcher(timeout=5, sleep=lambda s: None)
    [first] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert first.status == "failed" and "HTTP 404" in (first.error or "")
    feeds.feeds[records] = body
    clock.advance(seconds=600)
    [second] = poll_feeds(database, [url], fetcher, poll_seconds=60, clock=clock).files
    assert (second.status, second.new) == ("ingested", 3)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("<eSearchResult><Count>3</Count><RetMax>2</RetMax><RetStart>0</RetStart><IdList>"
         "<Id>1</Id><Id>2</Id></IdList></eSearchResult>", SearchPage(("1", "2"), 3, 0)),
        ('{"esearchresult": {"count": "1", "retstart": "0", "idlist": ["7", "x", "1e9"]}}',
         SearchPage(("7",), 1, 0)),  # what is no PMID is left out
        ('{"esearchresult": {"ERROR": "Invalid query"}}', None),
        ("<eSearchResult><ERROR>Empty term</ERROR></eSearchResult>", None),
        ("<PubmedArticleSet/>", None),
    ],
)  # fmt: skip
def test_an_esearch_answer_gives_its_ids_and_place(text: str, found: SearchPage | None) -> None:
    assert search_page(text) == found


def test_addresses_of_a_saved_search() -> None:
    url = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed&term=x&api_key=K"
    assert is_esearch_address(url) and not is_esearch_address(url.replace("pubmed", "pmc"))
    assert next_search_page(url, SearchPage(("1", "2"), 5, 0)) == url + "&retstart=2"
    assert next_search_page(url + "&retstart=4", SearchPage(("5",), 5, 4)) is None
    assert efetch_address(url, ["1", "2"]) == (
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi?db=pubmed&retmode=xml"
        "&api_key=K&id=1,2"
    )
