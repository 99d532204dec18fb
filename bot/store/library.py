"""A chat's library: saved papers (🔖), imported entries kept as text, and its imports."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, update
from sqlmodel import Session, col, select

from bot.core.library import SOURCE
from bot.core.paper import Paper
from bot.store.tables import LibraryEntryTable, LibraryImportTable, SavedPaperTable

_CHUNK = 400  # keys in one IN (...): well under SQLite's and PostgreSQL's parameter limits


def toggle_saved(session: Session, *, chat_id: int, paper_id: int, now: datetime) -> bool:
    """The paper saved for the chat, or (saved already) no longer; True when saved now."""
    row = session.exec(
        select(SavedPaperTable).where(
            col(SavedPaperTable.chat_id) == chat_id, col(SavedPaperTable.paper_id) == paper_id
        )
    ).first()
    if row is not None:
        session.delete(row)
        return False
    session.add(SavedPaperTable(chat_id=chat_id, paper_id=paper_id, created_at=now))
    session.flush()
    return True


def unsave(session: Session, *, chat_id: int, paper_id: int) -> bool:
    statement = delete(SavedPaperTable).where(
        col(SavedPaperTable.chat_id) == chat_id, col(SavedPaperTable.paper_id) == paper_id
    )
    return bool(session.execute(statement).rowcount)  # type: ignore[attr-defined]


def saved_ids(session: Session, *, chat_id: int) -> list[int]:
    """The chat's saved papers' ids, the last saved first."""
    statement = (
        select(SavedPaperTable.paper_id)
        .where(col(SavedPaperTable.chat_id) == chat_id)
        .order_by(col(SavedPaperTable.created_at).desc(), col(SavedPaperTable.id).desc())
    )
    return list(session.exec(statement).all())


def add_entries(
    session: Session,
    *,
    chat_id: int,
    entries: Sequence[tuple[str, Paper]],
    now: datetime,
) -> int:
    """Library entries (by key) the chat has not imported before; returns how many were new."""
    keys = [key for key, _ in entries]
    held: set[str] = set()
    for start in range(0, len(keys), _CHUNK):
        statement = select(LibraryEntryTable.key).where(
            col(LibraryEntryTable.chat_id) == chat_id,
            col(LibraryEntryTable.key).in_(keys[start : start + _CHUNK]),
        )
        held.update(session.exec(statement).all())
    added = 0
    for key, paper in entries:
        if key in held:
            continue
        held.add(key)
        session.add(
            LibraryEntryTable(
                chat_id=chat_id,
                key=key,
                title=paper.title,
                abstract=paper.abstract,
                authors=list(paper.authors),
                created_at=now,
            )
        )
        added += 1
    session.flush()
    return added


def library_papers(session: Session, *, chat_id: int) -> list[Paper]:
    """The chat's imported entries as papers (for training; never sent)."""
    rows = session.exec(
        select(LibraryEntryTable)
        .where(col(LibraryEntryTable.chat_id) == chat_id)
        .order_by(col(LibraryEntryTable.id))
    ).all()
    return [
        Paper(title=r.title, abstract=r.abstract, source=SOURCE, authors=tuple(r.authors))
        for r in rows
    ]


def count_library(session: Session, *, chat_id: int) -> int:
    statement = select(func.count()).where(col(LibraryEntryTable.chat_id) == chat_id)
    return int(session.exec(statement).one())


def add_import(
    session: Session, *, chat_id: int, seeds: list[str], authors: list[str], now: datetime
) -> int:
    row = LibraryImportTable(chat_id=chat_id, seeds=seeds, authors=authors, created_at=now)
    session.add(row)
    session.flush()
    assert row.id is not None
    return row.id


def get_import(session: Session, *, chat_id: int, import_id: int) -> tuple[list[str], list[str]]:
    """An import's (seeds, authors); empty when it is not the chat's."""
    row = session.get(LibraryImportTable, import_id)
    if row is None or row.chat_id != chat_id:
        return [], []
    return list(row.seeds), list(row.authors)


def forget(session: Session, *, chat_id: int) -> None:
    """The chat's library, deleted with it (/stop)."""
    for table in (SavedPaperTable, LibraryEntryTable, LibraryImportTable):
        session.execute(delete(table).where(col(table.chat_id) == chat_id))


def move(session: Session, *, old_id: int, new_id: int) -> None:
    """A group became a supergroup: its library follows (merged with what the new id has)."""
    saved = select(SavedPaperTable.paper_id).where(col(SavedPaperTable.chat_id) == new_id)
    session.execute(
        update(SavedPaperTable)
        .where(col(SavedPaperTable.chat_id) == old_id, col(SavedPaperTable.paper_id).not_in(saved))
        .values(chat_id=new_id)
    )
    keys = select(LibraryEntryTable.key).where(col(LibraryEntryTable.chat_id) == new_id)
    session.execute(
        update(LibraryEntryTable)
        .where(col(LibraryEntryTable.chat_id) == old_id, col(LibraryEntryTable.key).not_in(keys))
        .values(chat_id=new_id)
    )
    session.execute(
        update(LibraryImportTable)
        .where(col(LibraryImportTable.chat_id) == old_id)
        .values(chat_id=new_id)
    )
    forget(session, chat_id=old_id)
