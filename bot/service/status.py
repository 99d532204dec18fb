"""Counts: the whole store (`paperbot status`, /stats, /metrics), the feeds' state, and one chat
(/status)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

from sqlmodel import Session

from bot.core.chat import Chat
from bot.core.render import plural
from bot.core.secrets import masked_urls
from bot.core.states import UNFINISHED
from bot.service.backlog import Backlog, read_backlog
from bot.store import Database, chats, deliveries, feeds, files, filters, papers
from bot.store.feeds import FeedState
from bot.store.health import database_problem


@dataclass(frozen=True)
class StoreStatus:
    papers: int
    files: dict[str, int]
    last_announcement: date | None
    chats: dict[str, int]  # active, paused (of the active), inactive
    filters: int
    pending_deliveries: int  # ledger rows waiting to go out
    # ledger rows by status; None: not counted (a scan of the whole ledger, ~6 million rows a
    # busy day kept for delivery.keep_days, which /metrics does not make at every scrape)
    deliveries: dict[str, int] | None
    backlog: Backlog | None = None  # how far behind the sending is (/metrics reads it)

    def as_json(self) -> dict[str, object]:
        return {
            "papers": self.papers,
            "files": self.files,
            "chats": self.chats["active"] + self.chats["inactive"],
            "chats_by_state": self.chats,
            "filters": self.filters,
            "pending_deliveries": self.pending_deliveries,
            "deliveries": self.deliveries,
            "last_announcement": self.last_announcement.isoformat()
            if self.last_announcement
            else None,
        }


def store_status(database: Database) -> StoreStatus:
    """Everything counted, the ledger's rows by status too (`paperbot status`, /stats). The rows
    waiting are the sum of their states in that count: a count of their own read them all
    again, and could disagree with it when the sender settled rows in between."""
    with database.session() as session:
        by_status = deliveries.count_deliveries(session)
        waiting = sum(by_status.get(state, 0) for state in UNFINISHED)
        return _counts(session, waiting=waiting, by_status=by_status)


def scrape_status(database: Database, *, now: datetime) -> StoreStatus:
    """/metrics' counts at each scrape: the ledger's rows not counted by status (a scan of all
    of them), and how far behind the sending is at `now`. The rows waiting are counted once, by
    state, for both gauges: a second count for the total read them through their index again
    (a busy day's 5.85 million: 0.3-0.4 s on SQLite), and could disagree with the states' sum."""
    backlog = read_backlog(database, now=now)
    with database.session() as session:
        status = _counts(session, waiting=sum(backlog.waiting.values()), by_status=None)
    return replace(status, backlog=backlog)


def _counts(session: Session, *, waiting: int, by_status: dict[str, int] | None) -> StoreStatus:
    return StoreStatus(
        papers=papers.count_papers(session),
        files=files.count_files_by_status(session),
        last_announcement=papers.last_announcement(session),
        chats=chats.count_chats(session),
        filters=filters.count_filters(session),
        pending_deliveries=waiting,
        deliveries=by_status,
    )


def health_problem(database: Database) -> str | None:
    """Why the database cannot be read now, in one line; None when it can (/healthz)."""
    return database_problem(database)


def feed_status(database: Database) -> list[FeedState]:
    """Every polled feed's state, by URL (`paperbot status`, /stats, /metrics)."""
    with database.session() as session:
        return feeds.feed_states(session)


def _moment(moment: datetime | None) -> str:
    if moment is None:
        return "never"
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return f"{utc:%Y-%m-%d %H:%M} UTC"


def feed_line(feed: FeedState) -> str:
    """One feed in one line, for a person."""
    health = f"failing ({feed.failures} in a row): {feed.last_error}" if feed.failures else "ok"
    return (
        f"{masked_urls(feed.url)}: {health}; {plural(feed.papers, 'paper')}; last success "
        f"{_moment(feed.last_success_at)}; next poll {_moment(feed.next_poll_at)}"
    )


def feed_json(feed: FeedState) -> dict[str, object]:
    def moment(value: datetime | None) -> str | None:
        return value.isoformat() if value else None

    return {
        "url": masked_urls(feed.url),
        "papers": feed.papers,
        "failures": feed.failures,
        "last_success_at": moment(feed.last_success_at),
        "last_error": feed.last_error,
        "last_error_at": moment(feed.last_error_at),
        "polled_at": moment(feed.polled_at),
        "next_poll_at": moment(feed.next_poll_at),
    }


@dataclass(frozen=True)
class LastListing:
    name: str  # the file's name (or the feed's address)
    seen_at: datetime
    announced: date | None  # the announcement it carried (None: the listing has no dates)


@dataclass(frozen=True)
class ChatStatus:
    chat: Chat
    filters: int
    waiting: int  # ledger rows that still wait to go out
    arrived_since_digest: int  # papers stored since the chat's last digest
    last_listing: LastListing | None


def chat_status(database: Database, chat: Chat) -> ChatStatus:
    with database.session() as session:
        last = files.last_file(session)
        return ChatStatus(
            chat=chat,
            filters=len(filters.chat_filters(session, chat_id=chat.id)),
            waiting=deliveries.count_waiting(session, chat_id=chat.id),
            arrived_since_digest=papers.count_papers_since(session, since=chat.last_digest_at),
            last_listing=LastListing(last.path.rsplit("/", 1)[-1], last.seen_at, last.announced)
            if last
            else None,
        )


def waiting(database: Database, chat_id: int) -> int:
    """How many ledger rows of the chat still wait to go out."""
    with database.session() as session:
        return deliveries.count_waiting(session, chat_id=chat_id)
