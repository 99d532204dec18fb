"""👍/👎 per chat and paper, and the stored ranking models (TF-IDF, each chat's classifier)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from bot.store.tables import ChatModelTable, FeedbackTable, TextModelTable

TEXT_MODEL = "tfidf"


def rate(session: Session, *, chat_id: int, paper_id: int, value: int, now: datetime) -> int:
    """The chat's 👍 (1) or 👎 (-1) for a paper; the same again takes it back. Returns the rating
    now held (0: none)."""
    row = session.exec(
        select(FeedbackTable).where(
            col(FeedbackTable.chat_id) == chat_id, col(FeedbackTable.paper_id) == paper_id
        )
    ).first()
    if row is not None and row.value == value:
        session.delete(row)
        return 0
    if row is None:
        row = FeedbackTable(chat_id=chat_id, paper_id=paper_id, value=value, created_at=now)
    row.value, row.created_at = value, now
    session.add(row)
    session.flush()
    return value


def ratings(session: Session, *, chat_id: int) -> dict[int, int]:
    """The chat's ratings by paper id, oldest first."""
    statement = (
        select(FeedbackTable.paper_id, FeedbackTable.value)
        .where(col(FeedbackTable.chat_id) == chat_id)
        .order_by(col(FeedbackTable.id))
    )
    return dict(session.exec(statement).all())


def count_ratings(session: Session, *, chat_id: int) -> tuple[int, int]:
    """(👍, 👎) of the chat."""
    statement = (
        select(FeedbackTable.value, func.count())
        .where(col(FeedbackTable.chat_id) == chat_id)
        .group_by(col(FeedbackTable.value))
    )
    counts = dict(session.exec(statement).all())
    return counts.get(1, 0), counts.get(-1, 0)


def text_model(session: Session) -> tuple[bytes, int] | None:
    """The stored TF-IDF model and how many papers it was fitted on."""
    row = session.get(TextModelTable, TEXT_MODEL)
    return (row.data, row.papers) if row else None


def save_text_model(session: Session, *, data: bytes, papers: int, now: datetime) -> None:
    row = session.get(TextModelTable, TEXT_MODEL) or TextModelTable(
        name=TEXT_MODEL, data=data, papers=papers, fitted_at=now
    )
    row.data, row.papers, row.fitted_at = data, papers, now
    session.add(row)


def chat_model(session: Session, *, chat_id: int) -> bytes | None:
    row = session.get(ChatModelTable, chat_id)
    return row.data if row else None


def save_chat_model(session: Session, *, chat_id: int, data: bytes | None, now: datetime) -> None:
    """The chat's trained model (None: it has none, fewer than three 👍)."""
    row = session.get(ChatModelTable, chat_id)
    if data is None:
        if row is not None:
            session.delete(row)
        return
    row = row or ChatModelTable(chat_id=chat_id, data=data, trained_at=now)
    row.data, row.trained_at = data, now
    session.add(row)


def forget(session: Session, *, chat_id: int) -> None:
    """A chat's ratings and model, deleted with it (/stop)."""
    session.execute(delete(FeedbackTable).where(col(FeedbackTable.chat_id) == chat_id))
    session.execute(delete(ChatModelTable).where(col(ChatModelTable.chat_id) == chat_id))
