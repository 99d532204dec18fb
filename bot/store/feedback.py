"""👍/👎 per chat and paper, a group's members' votes, and the stored ranking models (TF-IDF,
each chat's classifier)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from bot.store.tables import ChatModelTable, FeedbackTable, MemberVoteTable, TextModelTable

TEXT_MODEL = "tfidf"


class Votes(NamedTuple):
    likes: int = 0
    dislikes: int = 0


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


def set_rating(session: Session, *, chat_id: int, paper_id: int, value: int, now: datetime) -> bool:
    """The chat's rating of a paper set to 1, -1 or 0 (none); True when that changed it."""
    row = session.exec(
        select(FeedbackTable).where(
            col(FeedbackTable.chat_id) == chat_id, col(FeedbackTable.paper_id) == paper_id
        )
    ).first()
    held = row.value if row is not None else 0
    if held == value:
        return False
    if not value:
        session.delete(row)
        return True
    row = row or FeedbackTable(chat_id=chat_id, paper_id=paper_id, value=value, created_at=now)
    row.value, row.created_at = value, now
    session.add(row)
    session.flush()
    return True


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


def member_vote(session: Session, *, chat_id: int, paper_id: int, user_id: int) -> int:
    """A member's vote on a paper in the chat: 1, -1, or 0 (none)."""
    statement = select(MemberVoteTable.value).where(
        col(MemberVoteTable.chat_id) == chat_id,
        col(MemberVoteTable.paper_id) == paper_id,
        col(MemberVoteTable.user_id) == user_id,
    )
    return session.exec(statement).first() or 0


def set_member_vote(
    session: Session, *, chat_id: int, paper_id: int, user_id: int, value: int, now: datetime
) -> None:
    """A member's vote on a paper set to 1, -1 or 0 (taken back): one per member and paper."""
    row = session.exec(
        select(MemberVoteTable).where(
            col(MemberVoteTable.chat_id) == chat_id,
            col(MemberVoteTable.paper_id) == paper_id,
            col(MemberVoteTable.user_id) == user_id,
        )
    ).first()
    if not value:
        if row is not None:
            session.delete(row)
            session.flush()
        return
    row = row or MemberVoteTable(
        chat_id=chat_id, paper_id=paper_id, user_id=user_id, value=value, created_at=now
    )
    if row.value != value or row.id is None:
        row.value, row.created_at = value, now
        session.add(row)
        session.flush()


def tally(session: Session, *, chat_id: int, paper_ids: Collection[int]) -> dict[int, Votes]:
    """The members' (👍, 👎) by paper, for the papers given that have votes."""
    statement = (
        select(MemberVoteTable.paper_id, MemberVoteTable.value, func.count())
        .where(
            col(MemberVoteTable.chat_id) == chat_id,
            col(MemberVoteTable.paper_id).in_(list(paper_ids)),
        )
        .group_by(col(MemberVoteTable.paper_id), col(MemberVoteTable.value))
    )
    found: dict[int, Votes] = {}
    for paper_id, value, count in session.exec(statement).all():
        likes, dislikes = found.get(paper_id, Votes())
        found[paper_id] = Votes(likes + count, dislikes) if value > 0 else Votes(likes, count)
    return found


def voted_papers(session: Session, *, chat_id: int) -> dict[int, Votes]:
    """Every paper the chat's members voted on, with its (👍, 👎), oldest vote first."""
    statement = (
        select(MemberVoteTable.paper_id)
        .where(col(MemberVoteTable.chat_id) == chat_id)
        .group_by(col(MemberVoteTable.paper_id))
        .order_by(func.min(MemberVoteTable.id))
    )
    ids = list(session.exec(statement).all())
    counted = tally(session, chat_id=chat_id, paper_ids=ids)
    return {paper_id: counted[paper_id] for paper_id in ids}


def most_liked(
    session: Session, *, chat_id: int, since: datetime, limit: int, members: bool
) -> list[tuple[int, int]]:
    """(paper id, 👍) of the papers with the most 👍 given since `since`, most first (ties: the
    latest 👍 first): the members' votes (`members`), else the chat's own ratings."""
    table = MemberVoteTable if members else FeedbackTable
    statement = (
        select(table.paper_id, func.count())
        .where(col(table.chat_id) == chat_id, col(table.value) > 0, col(table.created_at) >= since)
        .group_by(col(table.paper_id))
        .order_by(func.count().desc(), func.max(table.created_at).desc(), col(table.paper_id))
        .limit(limit)
    )
    return [(paper_id, count) for paper_id, count in session.exec(statement).all()]


def move_votes(session: Session, *, old_id: int, new_id: int) -> None:
    """A group that became a supergroup: its members' votes follow it (a member's vote the new
    id holds already stays as it is)."""
    held = set(
        session.exec(
            select(MemberVoteTable.paper_id, MemberVoteTable.user_id).where(
                col(MemberVoteTable.chat_id) == new_id
            )
        ).all()
    )
    rows = session.exec(select(MemberVoteTable).where(col(MemberVoteTable.chat_id) == old_id))
    for row in rows.all():
        if (row.paper_id, row.user_id) in held:
            session.delete(row)
        else:
            row.chat_id = new_id
            session.add(row)
    session.flush()


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
    """A chat's ratings, its members' votes and its model, deleted with it (/stop)."""
    session.execute(delete(MemberVoteTable).where(col(MemberVoteTable.chat_id) == chat_id))
    session.execute(delete(FeedbackTable).where(col(FeedbackTable.chat_id) == chat_id))
    session.execute(delete(ChatModelTable).where(col(ChatModelTable.chat_id) == chat_id))
