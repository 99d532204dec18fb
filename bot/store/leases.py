"""Several processes on one database: which process sends to a chat now (a lease its holder
renews; an expired one may be taken), and which processes are alive (heartbeats)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import Connection, and_, delete, or_, update
from sqlmodel import Session, col, func, select

from bot.core.states import Status
from bot.store.tables import WAITING, ChatTable, DeliveryTable, ProcessTable


def _free(holder: str, now: datetime):  # type: ignore[no-untyped-def]
    """A chat this holder may claim: unclaimed, its lease run out, or held by this holder."""
    return or_(
        col(ChatTable.busy_until).is_(None),
        col(ChatTable.busy_until) <= now,
        col(ChatTable.busy_by) == holder,
    )


def claim_chats(
    connection: Connection,
    *,
    chat_ids: Sequence[int],
    holder: str,
    now: datetime,
    until: datetime,
    most: int | None = None,
) -> list[int]:
    """The chats among `chat_ids` now claimed by `holder` until `until` (the others are held by
    a live process), at most `most` of them. Rows a lapsed holder left `sending` go back to
    pending: their sender is gone (the one message it had in flight may arrive twice, as after
    a crash)."""
    if most is not None and chat_ids:
        free = select(ChatTable.id).where(col(ChatTable.id).in_(chat_ids), _free(holder, now))
        chat_ids = [i for (i,) in connection.execute(free.order_by(col(ChatTable.id)).limit(most))]
    if not chat_ids:
        return []
    lapsed = [
        chat_id
        for chat_id, busy_by in connection.execute(
            select(ChatTable.id, ChatTable.busy_by).where(
                col(ChatTable.id).in_(chat_ids),
                col(ChatTable.busy_until) < now,
                col(ChatTable.busy_by) != holder,
            )
        )
    ]
    statement = (
        update(ChatTable)
        .where(col(ChatTable.id).in_(chat_ids), _free(holder, now))
        .values(busy_by=holder, busy_until=until)
        .returning(col(ChatTable.id))
    )
    claimed = [chat_id for (chat_id,) in connection.execute(statement)]
    taken_over = sorted(set(lapsed) & set(claimed))
    if taken_over:
        connection.execute(
            update(DeliveryTable)
            .where(
                col(DeliveryTable.chat_id).in_(taken_over),
                WAITING,  # through the index of waiting rows
                col(DeliveryTable.status) == Status.SENDING,
            )
            .values(status=Status.PENDING)
        )
    return claimed


def renew_chats(
    connection: Connection, *, chat_ids: Sequence[int], holder: str, until: datetime
) -> None:
    if chat_ids:
        connection.execute(
            update(ChatTable)
            .where(col(ChatTable.id).in_(chat_ids), col(ChatTable.busy_by) == holder)
            .values(busy_until=until)
        )


def release_chats(
    connection: Connection, *, chat_ids: Sequence[int], holder: str, until: datetime
) -> None:
    """The holder is done with the chats: it may claim them again at once, another process
    from `until` on (the pause Telegram wants between two messages to a chat, which the next
    sender could not know)."""
    if chat_ids:
        connection.execute(
            update(ChatTable)
            .where(col(ChatTable.id).in_(chat_ids), col(ChatTable.busy_by) == holder)
            .values(busy_until=until)
        )


def reset_unclaimed_sending(session: Session, *, now: datetime) -> int:
    """At start: rows left `sending` by a stopped process go back to pending, except those of
    chats a live process holds (it is sending them). Returns how many."""
    held = select(ChatTable.id).where(col(ChatTable.busy_until) >= now)
    statement = (
        update(DeliveryTable)
        .where(
            WAITING,  # through the index of waiting rows
            col(DeliveryTable.status) == Status.SENDING,
            col(DeliveryTable.chat_id).not_in(held),
        )
        .values(status=Status.PENDING)
    )
    return int(session.execute(statement).rowcount)  # type: ignore[attr-defined]


def release_all(session: Session) -> None:
    """Every chat's claim void and every heartbeat forgotten (one process on SQLite: claims and
    heartbeats of a crashed run mean nothing; counted alive, its heartbeat halved the restarted
    run's rate for 30 s)."""
    session.execute(update(ChatTable).values(busy_by=None, busy_until=None))
    session.execute(delete(ProcessTable))


def heartbeat(session: Session, *, process_id: str, kind: str, now: datetime) -> None:
    row = session.get(ProcessTable, process_id)
    if row is None:
        row = ProcessTable(id=process_id, kind=kind, started_at=now, seen_at=now)
    row.seen_at = now
    session.add(row)


def live_processes(session: Session, *, now: datetime, within: timedelta) -> int:
    """Processes whose heartbeat is at most `within` old; old heartbeats are deleted."""
    cutoff = now - within
    session.execute(delete(ProcessTable).where(col(ProcessTable.seen_at) < cutoff - within))
    statement = (
        select(func.count())
        .select_from(ProcessTable)
        .where(and_(col(ProcessTable.seen_at) >= cutoff))
    )
    return int(session.exec(statement).one())


def leave(session: Session, *, process_id: str) -> None:
    """A process stopping: its heartbeat and its chats' claims go."""
    session.execute(delete(ProcessTable).where(col(ProcessTable.id) == process_id))
    session.execute(
        update(ChatTable)
        .where(col(ChatTable.busy_by) == process_id)
        .values(busy_by=None, busy_until=None)
    )


def count_live_processes(session: Session, *, now: datetime, within: timedelta) -> int:
    """Processes whose heartbeat is at most `within` old (read only: /metrics)."""
    statement = (
        select(func.count())
        .select_from(ProcessTable)
        .where(col(ProcessTable.seen_at) >= now - within)
    )
    return int(session.exec(statement).one())
