"""Each polled feed's state, by URL: kept in the database so that a restart keeps a failing
feed's backoff and its history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from bot.store.tables import FeedTable


@dataclass(frozen=True)
class FeedState:
    url: str
    polled_at: datetime  # the last attempt, whatever came of it
    next_poll_at: datetime
    last_success_at: datetime | None = None
    last_error: str | None = None
    last_error_at: datetime | None = None
    papers: int = 0  # new papers stored from its contents
    failures: int = 0  # in a row; 0 after a success


def _to_state(row: FeedTable) -> FeedState:
    return FeedState(
        url=row.url,
        polled_at=row.polled_at,
        next_poll_at=row.next_poll_at,
        last_success_at=row.last_success_at,
        last_error=row.last_error,
        last_error_at=row.last_error_at,
        papers=row.papers,
        failures=row.failures,
    )


def find_feed(session: Session, *, url: str) -> FeedState | None:
    row = session.get(FeedTable, url)
    return _to_state(row) if row else None


def feed_states(session: Session) -> list[FeedState]:
    """Every feed ever polled, by URL."""
    return [_to_state(row) for row in session.exec(select(FeedTable).order_by(col(FeedTable.url)))]


def save_feed(session: Session, *, state: FeedState) -> None:
    """Insert or replace the feed's state."""
    row = session.get(FeedTable, state.url) or FeedTable(
        url=state.url, polled_at=state.polled_at, next_poll_at=state.next_poll_at
    )
    for name, value in vars(state).items():
        setattr(row, name, value)
    session.add(row)
