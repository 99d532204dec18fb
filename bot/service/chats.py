"""A chat's life and settings: registered on first contact, its settings changed, forgotten on
/stop, made inactive when Telegram says it cannot be reached, moved when a group becomes a
supergroup."""

from __future__ import annotations

from datetime import datetime

from bot.core.chat import Chat
from bot.store import Database, chats


def enter(
    database: Database, *, chat_id: int, kind: str, now: datetime, language: str | None = None
) -> Chat:
    """The chat that speaks, registered on first contact; a chat that had blocked the bot (or
    removed it) is active again; a new chat takes the speaker's language."""
    with database.session() as session:
        return chats.register_chat(session, chat_id=chat_id, kind=kind, now=now, language=language)


def language(database: Database, *, chat_id: int) -> str | None:
    """The chat's language (None: not registered, or none set yet)."""
    with database.session() as session:
        found = chats.get_chat(session, chat_id=chat_id)
    return found.language if found is not None else None


def change(database: Database, *, chat_id: int, **settings: object) -> Chat:
    """New values for some of the chat's settings (mode, digest_time, timezone, updates,
    paused); the chat as it is now."""
    with database.session() as session:
        return chats.update_chat(session, chat_id=chat_id, **settings)


def forget(database: Database, *, chat_id: int) -> bool:
    """/stop confirmed: the chat, its filters and its ledger rows deleted. False when there was
    nothing to forget."""
    with database.session() as session:
        return chats.forget_chat(session, chat_id=chat_id)


def mark_unreachable(database: Database, *, chat_id: int, reason: str) -> int:
    """Blocked, removed, deactivated: the chat is inactive until it writes again, and what
    waited for it is recorded as undeliverable. Returns how many rows."""
    with database.session() as session:
        return chats.mark_unreachable(session, chat_id=chat_id, reason=reason)


def move(database: Database, *, old_id: int, new_id: int) -> bool:
    """A group became a supergroup: filters, settings and ledger follow. False when the old id
    was unknown."""
    with database.session() as session:
        return chats.move_chat(session, old_id=old_id, new_id=new_id)
