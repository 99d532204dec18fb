"""Listing files seen by the inbox or `paperbot ingest`, keyed by content hash."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func
from sqlmodel import Session, select

from bot.core.states import FileStatus
from bot.store.tables import ListingFileTable


@dataclass(frozen=True)
class ListingFile:
    content_hash: str
    path: str
    size: int
    format: str | None
    status: FileStatus
    entries: int
    new: int
    duplicates: int
    error: str | None
    seen_at: datetime
    announced: date | None = None  # the latest announcement date its papers carry


def _to_file(row: ListingFileTable) -> ListingFile:
    return ListingFile(
        content_hash=row.content_hash,
        path=row.path,
        size=row.size,
        format=row.format,
        status=FileStatus(row.status),
        entries=row.entries,
        new=row.new,
        duplicates=row.duplicates,
        error=row.error,
        seen_at=row.seen_at,
        announced=row.announced,
    )


def find_file(session: Session, *, content_hash: str) -> ListingFile | None:
    row = session.exec(
        select(ListingFileTable).where(ListingFileTable.content_hash == content_hash)
    ).first()
    return _to_file(row) if row else None


def record_file(session: Session, *, listing: ListingFile) -> None:
    """Insert or replace the record of one file content."""
    row = session.exec(
        select(ListingFileTable).where(ListingFileTable.content_hash == listing.content_hash)
    ).first() or ListingFileTable(
        content_hash=listing.content_hash,
        path=listing.path,
        status=listing.status,
        seen_at=listing.seen_at,
    )
    for name, value in vars(listing).items():
        setattr(row, name, value)
    session.add(row)


def count_files_by_status(session: Session) -> dict[str, int]:
    rows = session.exec(
        select(ListingFileTable.status, func.count()).group_by(ListingFileTable.status)
    ).all()
    return {status: count for status, count in rows}


def last_file(session: Session) -> ListingFile | None:
    row = session.exec(
        select(ListingFileTable)
        .where(ListingFileTable.status == FileStatus.INGESTED)
        .order_by(ListingFileTable.seen_at.desc())  # type: ignore[attr-defined]
    ).first()
    return _to_file(row) if row else None
