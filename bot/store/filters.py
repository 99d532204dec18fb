"""The chats' filters: each as the chat wrote it and as the parser understood it, numbered in the
order they were added; a "more like this" filter keeps its scorer beside it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import delete, func, update
from sqlmodel import Session, col, select

from bot.core.chat import Filter
from bot.store.database import id_chunks
from bot.store.tables import ChatTable, FilterTable


def _to_filter(row: FilterTable) -> Filter:
    assert row.id is not None
    return Filter(row.id, row.chat_id, row.source, row.canonical, row.created_at, row.topic)


def chat_filters(session: Session, *, chat_id: int) -> list[Filter]:
    """The chat's filters in the order they were added (the numbers /list shows)."""
    statement = (
        select(FilterTable).where(col(FilterTable.chat_id) == chat_id).order_by(col(FilterTable.id))
    )
    return [_to_filter(row) for row in session.exec(statement)]


def filters_of_chats(session: Session, *, chat_ids: Sequence[int]) -> dict[int, list[Filter]]:
    """Several chats' filters at once, each chat's in /list order."""
    found: dict[int, list[Filter]] = {chat_id: [] for chat_id in chat_ids}
    for chunk in id_chunks(chat_ids):
        statement = (
            select(FilterTable)
            .where(col(FilterTable.chat_id).in_(chunk))
            .order_by(col(FilterTable.id))
        )
        for row in session.exec(statement):
            found[row.chat_id].append(_to_filter(row))
    return found


def add_filter(
    session: Session,
    *,
    chat_id: int,
    source: str,
    canonical: str,
    now: datetime,
    model: bytes | None = None,
    topic: int | None = None,
) -> Filter:
    """A filter for the chat; `model`: a "more like this" filter's scorer; `topic`: the forum
    topic its papers go to (None: General)."""
    row = FilterTable(
        chat_id=chat_id, source=source, canonical=canonical, created_at=now, model=model,
        topic=topic,
    )  # fmt: skip
    session.add(row)
    session.flush()
    return _to_filter(row)


def remove_filters(session: Session, *, chat_id: int, filter_ids: list[int]) -> int:
    statement = delete(FilterTable).where(
        col(FilterTable.chat_id) == chat_id, col(FilterTable.id).in_(filter_ids)
    )
    return int(session.execute(statement).rowcount)  # type: ignore[attr-defined]


def set_filter_topic(session: Session, *, chat_id: int, filter_id: int, topic: int | None) -> bool:
    """The filter's papers go to `topic` from now on (None: General); False when the chat has
    no such filter."""
    statement = (
        update(FilterTable)
        .where(col(FilterTable.chat_id) == chat_id, col(FilterTable.id) == filter_id)
        .values(topic=topic)
    )
    return bool(session.execute(statement).rowcount)  # type: ignore[attr-defined]


def unbind_topic(session: Session, *, chat_id: int, topic: int) -> list[Filter]:
    """The chat's filters bound to a topic that is gone now post in General: the filters so
    unbound, in /list order (none: another sender unbound them first)."""
    statement = (
        select(FilterTable)
        .where(col(FilterTable.chat_id) == chat_id, col(FilterTable.topic) == topic)
        .order_by(col(FilterTable.id))
    )
    bound = [_to_filter(row) for row in session.exec(statement)]
    if bound:
        session.execute(
            update(FilterTable)
            .where(col(FilterTable.id).in_([f.id for f in bound]))
            .values(topic=None)
        )
    return bound


def get_filters(session: Session, *, filter_ids: list[int]) -> dict[int, Filter]:
    """By id, a thousand at a time (the first planning reads every filter: a hundred thousand
    bound parameters are more than PostgreSQL takes in one statement)."""
    found: dict[int, Filter] = {}
    for chunk in id_chunks(filter_ids):
        rows = session.exec(select(FilterTable).where(col(FilterTable.id).in_(chunk)))
        found.update((f.id, f) for f in map(_to_filter, rows))
    return found


def stored_filters(session: Session, *, filter_ids: Sequence[int]) -> set[int]:
    """Which of the filters are stored, a thousand at a time."""
    found: set[int] = set()
    for chunk in id_chunks(filter_ids):
        statement = sa.select(col(FilterTable.id)).where(col(FilterTable.id).in_(chunk))
        found.update(session.execute(statement).scalars())
    return found


def filter_models(session: Session, *, filter_ids: Sequence[int]) -> dict[int, bytes]:
    """The stored scorers of "more like this" filters."""
    found: dict[int, bytes] = {}
    for chunk in id_chunks(filter_ids):
        statement = select(FilterTable.id, FilterTable.model).where(
            col(FilterTable.id).in_(chunk), col(FilterTable.model).is_not(None)
        )
        found.update((i, m) for i, m in session.exec(statement) if i is not None and m is not None)
    return found


def set_filter_model(session: Session, *, filter_id: int, model: bytes) -> None:
    session.execute(update(FilterTable).where(col(FilterTable.id) == filter_id).values(model=model))


def active_filter_owners(session: Session) -> dict[int, int]:
    """The filters of active chats (paused chats too: their matches are held, not lost): filter
    id -> chat id."""
    statement = (
        sa.select(col(FilterTable.id), col(FilterTable.chat_id))
        .join(ChatTable, col(ChatTable.id) == col(FilterTable.chat_id))
        .where(col(ChatTable.active))
    )
    return {filter_id: chat_id for filter_id, chat_id in session.execute(statement)}


def count_filters(session: Session) -> int:
    return session.exec(select(func.count()).select_from(FilterTable)).one()
