"""Feed polling, the feeds job: when each feed is due (its back-off after failures kept in the
database, so that it outlives a restart), and what came of it. What a feed brings is ingested
like a listing file (bot/service/ingest.py); fetching it over HTTP is bot/feed_fetch.py's. A
bioRxiv or medRxiv API address (`details/biorxiv/<interval>`) is read page after page to the
end of its answer; a PubMed esearch address is a saved search, whose new ids are fetched with
efetch."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Protocol

from bot.core.listings import pubmed
from bot.core.listings.biorxiv import is_paged_address, next_page
from bot.core.secrets import masked_urls
from bot.core.states import FileStatus
from bot.service import Clock, utc_now
from bot.service.ingest import FileReport, IngestReport, ingest_bytes
from bot.store import Database, feeds, papers

log = logging.getLogger(__name__)


class FeedError(Exception):
    """A feed could not be fetched; the message says why, for the operator."""


class Fetcher(Protocol):
    """What fetches the feeds over HTTP (bot/feed_fetch.py's FeedFetcher)."""

    def fetch(self, url: str) -> bytes | None:
        """The content at `url`, or None when it has not changed since it was last fetched."""

    def page_after(self, url: str) -> str | None:
        """The page that followed this page of a paged answer when it was last read: where a
        poll goes on when the page has not changed."""

    def forget(self, url: str) -> None:
        """Ask for `url` unconditionally next time: what it answered was not stored."""


DAY_SECONDS = 86_400


def feed_delay(poll_seconds: float, failures: int) -> float:
    """Seconds from one poll of a feed to the next: `poll_seconds`, doubled for each failure in a
    row, at most a day (or `poll_seconds`, if that is longer)."""
    return max(poll_seconds, min(poll_seconds * 2 ** min(failures, 32), DAY_SECONDS))


def poll_feeds(
    database: Database,
    urls: Sequence[str],
    fetcher: Fetcher,
    *,
    poll_seconds: float,
    clock: Clock = utc_now,
) -> IngestReport:
    """The feeds job: each feed whose next poll has come (or never polled) is fetched and its new
    content ingested like a listing file. A feed that answers 304 (not modified) has succeeded;
    one that cannot be fetched or read is reported, tried again after `feed_delay` and the
    others go on. Each feed's state is kept in the database (bot/store/feeds.py)."""
    report = IngestReport()
    for url in urls:
        now = clock()
        with database.session() as session:
            state = feeds.find_feed(session, url=url)
        if state is not None and now < state.next_poll_at:
            continue
        polled = _poll_feed(database, url, fetcher, now)
        report.files.append(polled)
        before = state or feeds.FeedState(url, polled_at=now, next_poll_at=now)
        after = _feed_after(before, polled, now=now, poll_seconds=poll_seconds)
        with database.session() as session:
            feeds.save_feed(session, state=after)
        if after.failures:
            next_poll = after.next_poll_at.isoformat(timespec="seconds")
            log.warning(
                "feed %s: %s (%d in a row; next poll %s)",
                masked_urls(url), polled.error, after.failures, next_poll,
            )  # fmt: skip
    return report


def _poll_feed(database: Database, url: str, fetcher: Fetcher, now: datetime) -> FileReport:
    if not pubmed.is_esearch_address(url):
        return _poll_pages(database, url, fetcher, now)
    try:
        data = fetcher.fetch(url)
    except FeedError as error:
        return FileReport(masked_urls(url), FileStatus.FAILED, error=masked_urls(str(error)))
    if data is None:
        return FileReport(masked_urls(url), FileStatus.SKIPPED, error="not modified")
    return _poll_search(database, url, data, fetcher, now)


def _poll_pages(database: Database, url: str, fetcher: Fetcher, now: datetime) -> FileReport:
    """A feed's answer, or a paged API answer page after page to its end. A page not modified
    since it was last read (304) brings nothing and is no failure: the poll goes on to the page
    that followed it then, so that a later page that changed, or one that failed before, is
    still read."""
    shown = masked_urls(url)  # what is stored, logged and reported: never the password
    report: FileReport | None = None  # until a page is read
    page_url: str | None = url
    for _ in range(MAX_PAGES):
        if not page_url:
            break
        try:
            data = fetcher.fetch(page_url)
        except FeedError as error:
            reason = masked_urls(str(error))
            return replace(
                report or FileReport(shown, FileStatus.FAILED),
                status=FileStatus.FAILED,
                error=reason,
            )
        if data is None:
            page_url = fetcher.page_after(page_url)
            continue
        try:
            page = ingest_bytes(
                database,
                data,
                path=masked_urls(page_url),
                file_date=now.date(),
                now=now,
                retry_failed=False,
            )
        except BaseException:
            # kept validators would make the next poll's answer a 304 and skip the page until it
            # changed: what it brought was never stored
            fetcher.forget(page_url)
            raise
        report = _with_page(report, page) if report else replace(page, path=shown)
        if report.status == FileStatus.FAILED:
            fetcher.forget(page_url)
            break
        text = data.decode("utf-8", "replace") if is_paged_address(page_url) else ""
        page_url = next_page(page_url, text) if text else None
    return report or FileReport(shown, FileStatus.SKIPPED, error="not modified")


MAX_SEARCH_IDS = 10_000  # ids one poll of a saved PubMed search reads, at most (esearch's own)


def _poll_search(
    database: Database, url: str, data: bytes, fetcher: Fetcher, now: datetime
) -> FileReport:
    """A saved PubMed search: its ids, page after page (esearch), then the records of those no
    stored paper has, 200 a request (efetch), each answer ingested like a listing file."""
    shown = masked_urls(url)
    ids: list[str] = []
    search_url: str | None = url
    while search_url and len(ids) < MAX_SEARCH_IDS:
        page = pubmed.search_page(data.decode("utf-8", "replace"))
        if page is None:
            error = "not an esearch answer (JSON or XML with a count and ids)"
            return FileReport(shown, FileStatus.FAILED, error=error)
        ids += [i for i in page.ids if i not in ids]
        search_url = pubmed.next_search_page(search_url, page)
        if search_url:
            try:
                data = fetcher.fetch(search_url) or b""
            except FeedError as error:
                return FileReport(shown, FileStatus.FAILED, error=masked_urls(str(error)))
    with database.session() as session:
        known = papers.known_pmids(session, pmids=ids)
    wanted = [i for i in ids[:MAX_SEARCH_IDS] if i not in known]
    report = FileReport(shown, FileStatus.SKIPPED, error=f"no new records ({len(ids)} found)")
    for start in range(0, len(wanted), pubmed.EFETCH_BATCH):
        records_url = pubmed.efetch_address(url, wanted[start : start + pubmed.EFETCH_BATCH])
        try:
            records = fetcher.fetch(records_url)
        except FeedError as error:
            return replace(report, status=FileStatus.FAILED, error=masked_urls(str(error)))
        if records is None:
            continue
        page_report = ingest_bytes(
            database,
            records,
            path=f"{shown} (records {start + 1}-{start + pubmed.EFETCH_BATCH})",
            file_date=now.date(),
            now=now,
            retry_failed=False,
        )
        report = _with_page(replace(report, error=None), page_report)
        if report.status == FileStatus.FAILED:
            break
    return report


# A paged API answer's pages read in one poll, at most: bioRxiv's are 100 records, so 100,000
# papers, more than a server posts in a month; a cursor that never ends stops here.
MAX_PAGES = 1000


def _with_page(report: FileReport, page: FileReport) -> FileReport:
    """One report for a feed's pages: their counts added, ingested if any page was, failed
    (with the page's reason) if a page was."""
    status = page.status if page.status == FileStatus.FAILED else report.status
    if status == FileStatus.SKIPPED and page.status == FileStatus.INGESTED:
        status = FileStatus.INGESTED
    return replace(
        report,
        status=status,
        format=report.format or page.format,
        entries=report.entries + page.entries,
        new=report.new + page.new,
        duplicates=report.duplicates + page.duplicates,
        error=page.error if page.status == FileStatus.FAILED else report.error,
        announced=max(filter(None, (report.announced, page.announced)), default=None),
        new_paper_ids=[*report.new_paper_ids, *page.new_paper_ids],
        updated_paper_ids=[*report.updated_paper_ids, *page.updated_paper_ids],
    )


def _feed_after(
    before: feeds.FeedState, polled: FileReport, *, now: datetime, poll_seconds: float
) -> feeds.FeedState:
    """The feed's state after a poll: a content that cannot be read fails like a fetch."""
    if polled.status == FileStatus.FAILED:
        failures = before.failures + 1
        return replace(
            before,
            polled_at=now,
            next_poll_at=now + timedelta(seconds=feed_delay(poll_seconds, failures)),
            last_error=polled.error,
            last_error_at=now,
            failures=failures,
        )
    return replace(
        before,
        polled_at=now,
        next_poll_at=now + timedelta(seconds=poll_seconds),
        last_success_at=now,
        papers=before.papers + polled.new,
        failures=0,
    )
