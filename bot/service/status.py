"""Counts: the whole store (`paperbot status`, /stats, /metrics) and one chat (/status)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from bot.core.chat import Chat
from bot.store import Database, chats, deliveries, files, papers


@dataclass(frozen=True)
class StoreStatus:
    papers: int
    files: dict[str, int]
    last_announcement: date | None
    chats: dict[str, int]  # active, paused (of the active), inactive
    filters: int
    deliveries: dict[str, int]  # by status

    @property
    def pending_deliveries(self) -> int:
        return deliveries.unfinished(self.deliveries)

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
    with database.session() as session:
        return StoreStatus(
            papers=papers.count_papers(session),
            files=files.count_files_by_status(session),
            last_announcement=papers.last_announcement(session),
            chats=chats.count_chats(session),
            filters=chats.count_filters(session),
            deliveries=deliveries.count_deliveries(session),
        )


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
            filters=len(chats.chat_filters(session, chat_id=chat.id)),
            waiting=deliveries.unfinished(deliveries.count_deliveries(session, chat_id=chat.id)),
            arrived_since_digest=papers.count_papers_since(session, since=chat.last_digest_at),
            last_listing=LastListing(last.path.rsplit("/", 1)[-1], last.seen_at, last.announced)
            if last
            else None,
        )


def waiting(database: Database, chat_id: int) -> int:
    """How many ledger rows of the chat still wait to go out."""
    with database.session() as session:
        return deliveries.unfinished(deliveries.count_deliveries(session, chat_id=chat_id))
