"""Chats: registered on first contact, their settings, and what leaving or moving takes along
(their filters are in bot/store/filters.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from datetime import datetime

from sqlalchemy import delete, func, update
from sqlmodel import Session, col, select

from bot.core.chat import Chat
from bot.core.states import ChatMode, DigestStyle
from bot.store import feedback, library
from bot.store.database import id_chunks
from bot.store.deliveries import fail_chat_deliveries
from bot.store.tables import ChatTable, DeliveryTable, FeedbackTable, FilterTable

CHAT_SETTINGS = frozenset(
    {
        "mode",
        "digest_time",
        "timezone",
        "updates",
        "paused",
        "kind",
        "digest_style",
        "digest_abstracts",
        "digest_page",
        "digest_weekday",
        "quiet_from",
        "quiet_to",
        "quiet_silent",
        "language",
        "followups",
    }
)


# a Chat's fields that are columns: its topic is where the command at hand was sent
STORED = [f for f in fields(Chat) if f.name != "topic"]


def _to_chat(row: ChatTable) -> Chat:
    values = {f.name: getattr(row, f.name) for f in STORED}
    values["mode"], values["digest_style"] = ChatMode(row.mode), DigestStyle(row.digest_style)
    return Chat(**values)


def get_chat(session: Session, *, chat_id: int) -> Chat | None:
    row = session.get(ChatTable, chat_id)
    return _to_chat(row) if row else None


def get_chats(session: Session, *, chat_ids: Sequence[int]) -> dict[int, Chat]:
    """Several chats by id, a thousand a statement (an instant round's: one read, not one a
    chat); a chat not stored is not in it."""
    found: dict[int, Chat] = {}
    for chunk in id_chunks(chat_ids):
        for row in session.exec(select(ChatTable).where(col(ChatTable.id).in_(chunk))):
            found[row.id] = _to_chat(row)
    return found


def register_chat(
    session: Session, *, chat_id: int, kind: str, now: datetime, language: str | None = None
) -> Chat:
    """The chat, created on first contact in the language given (the speaker's); an inactive
    chat (blocked, removed) becomes active. Only a new chat takes the speaker's language: a chat
    made before languages were kept has read English, and any member's next word must not
    change that for everyone."""
    row = session.get(ChatTable, chat_id)
    if row is None:
        row = ChatTable(
            id=chat_id, kind=kind, created_at=now, last_digest_at=now, language=language
        )
        session.add(row)
    elif not row.active:
        row.active, row.inactive_reason = True, None
    row.kind = kind
    session.flush()
    return _to_chat(row)


def update_chat(session: Session, *, chat_id: int, **values: object) -> Chat:
    unknown = set(values) - CHAT_SETTINGS - {"last_digest_at"}
    if unknown:
        raise ValueError(f"not a chat setting: {', '.join(sorted(unknown))}")
    row = session.get(ChatTable, chat_id)
    if row is None:
        raise LookupError(f"chat {chat_id} is not registered")
    for name, value in values.items():
        setattr(row, name, value)
    session.flush()
    return _to_chat(row)


def deactivate_chat(session: Session, *, chat_id: int, reason: str) -> bool:
    """Mark the chat inactive (blocked, removed, deactivated); True when it was active."""
    statement = (
        update(ChatTable)
        .where(col(ChatTable.id) == chat_id, col(ChatTable.active))
        .values(active=False, inactive_reason=reason)
    )
    return bool(session.execute(statement).rowcount)  # type: ignore[attr-defined]


def mark_unreachable(session: Session, *, chat_id: int, reason: str) -> int:
    """Blocked, removed, deactivated: the chat becomes inactive (until it writes again) and its
    unfinished deliveries are recorded as undeliverable. Returns how many."""
    deactivate_chat(session, chat_id=chat_id, reason=reason)
    return fail_chat_deliveries(session, chat_id=chat_id, reason=f"undeliverable: {reason}")


def forget_chat(session: Session, *, chat_id: int) -> bool:
    """Delete the chat with its filters, deliveries, ratings and model; True when there was
    one."""
    feedback.forget(session, chat_id=chat_id)
    library.forget(session, chat_id=chat_id)
    # the chat first: a planning batch holding it (deliveries._check_owners) is waited for,
    # and the rows it added are deleted with the chat's others
    result = session.execute(delete(ChatTable).where(col(ChatTable.id) == chat_id))
    session.execute(delete(DeliveryTable).where(col(DeliveryTable.chat_id) == chat_id))
    session.execute(delete(FilterTable).where(col(FilterTable.chat_id) == chat_id))
    return bool(result.rowcount)  # type: ignore[attr-defined]


def move_chat(session: Session, *, old_id: int, new_id: int) -> bool:
    """A group that became a supergroup: everything moves to the new id (merged when the new id
    already exists). True when there was something to move."""
    # locked first: a planning batch holding the old id (deliveries._check_owners) is waited
    # for, and the rows it added move with the others
    old = session.get(ChatTable, old_id, with_for_update=True)
    if old is None:
        return False
    if session.get(ChatTable, new_id) is None:
        values = {f.name: getattr(old, f.name) for f in STORED if f.name != "id"}
        session.add(ChatTable(id=new_id, **{**values, "kind": "supergroup"}))
        session.flush()
    session.execute(
        update(FilterTable).where(col(FilterTable.chat_id) == old_id).values(chat_id=new_id)
    )
    known = select(DeliveryTable.paper_id).where(col(DeliveryTable.chat_id) == new_id)
    session.execute(
        delete(DeliveryTable).where(
            col(DeliveryTable.chat_id) == old_id, col(DeliveryTable.paper_id).in_(known)
        )
    )
    session.execute(
        update(DeliveryTable).where(col(DeliveryTable.chat_id) == old_id).values(chat_id=new_id)
    )
    rated = select(FeedbackTable.paper_id).where(col(FeedbackTable.chat_id) == new_id)
    session.execute(
        update(FeedbackTable)
        .where(col(FeedbackTable.chat_id) == old_id, col(FeedbackTable.paper_id).not_in(rated))
        .values(chat_id=new_id)
    )
    feedback.move_votes(session, old_id=old_id, new_id=new_id)
    feedback.forget(session, chat_id=old_id)  # what the new id rated already; the model retrains
    library.move(session, old_id=old_id, new_id=new_id)
    session.execute(delete(ChatTable).where(col(ChatTable.id) == old_id))
    return True


def all_chats(session: Session, *, active_only: bool = False) -> list[Chat]:
    statement = select(ChatTable).order_by(col(ChatTable.id))
    if active_only:
        statement = statement.where(col(ChatTable.active))
    return [_to_chat(row) for row in session.exec(statement)]


def quiet_chats(session: Session) -> list[Chat]:
    """Active chats with quiet hours (the delivery round leaves those in their window alone)."""
    statement = select(ChatTable).where(
        col(ChatTable.active), col(ChatTable.quiet_from).is_not(None)
    )
    return [_to_chat(row) for row in session.exec(statement)]


def count_chats(session: Session) -> dict[str, int]:
    """Chats by state: active, paused (among the active) and inactive."""
    rows = session.exec(
        select(ChatTable.active, ChatTable.paused, func.count()).group_by(
            col(ChatTable.active), col(ChatTable.paused)
        )
    ).all()
    counts = {"active": 0, "paused": 0, "inactive": 0}
    for active, paused, n in rows:
        counts["active" if active else "inactive"] += n
        if active and paused:
            counts["paused"] += n
    return counts
