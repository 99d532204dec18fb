"""The delivery ledger: one row per (chat, paper, revision), pending -> sending -> sent | failed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy import Connection, delete, func, update
from sqlmodel import Session, col, select

from bot.core.chat import BEHIND_MORE, Delivery
from bot.core.states import SETTLED, UNFINISHED, Status
from bot.store import ledger_bulk
from bot.store.database import id_chunks
from bot.store.tables import WAITING, ChatTable, DeliveryTable, PaperTable


class NewDeliveries(NamedTuple):
    """Ledger rows to add, as columns (row i is chat_ids[i], paper_ids[i], ...). Columns, not a
    value per row: a busy day plans millions of rows (bench/day.py: 5.85 million), and an object
    made and unpacked per row would be a tenth of the planning."""

    chat_ids: Sequence[int]
    paper_ids: Sequence[int]
    revisions: Sequence[int]  # 0: the paper itself; n: its version n, sent as an update
    filter_ids: Sequence[Sequence[int]]  # the chat's filters that matched the paper

    @classmethod
    def of(cls, rows: Iterable[tuple[int, int, int, Sequence[int]]]) -> NewDeliveries:
        """Rows written one by one: (chat, paper, revision, filter ids)."""
        columns = tuple(zip(*rows, strict=True)) or ((), (), (), ())
        return cls(*columns)

    def filter_ids_json(self) -> list[str]:
        """Each row's filter ids as the JSON column holds them (json.dumps' form: a third of
        its cost, and most rows hold one id)."""
        return [
            f"[{ids[0]}]" if len(ids) == 1 else "[" + ", ".join(map(str, ids)) + "]"
            for ids in self.filter_ids
        ]


def _to_delivery(row: DeliveryTable) -> Delivery:
    assert row.id is not None
    return Delivery(
        row.id,
        row.chat_id,
        row.paper_id,
        row.revision,
        list(row.filter_ids),
        Status(row.status),
        row.message_id,
        row.reason,
        row.created_at,
    )


class OwnersGone(Exception):
    """Rows were planned for chats (or papers) that are no longer stored: deleted, or moved to a
    supergroup's id, while the batch was planned. Nothing of the batch is kept; planned again,
    it follows the chats' filters where they are now."""

    def __init__(self, chat_ids: Iterable[int], paper_ids: Iterable[int]) -> None:
        self.chat_ids, self.paper_ids = sorted(chat_ids), sorted(paper_ids)
        gone = [
            f"{what} {ids}"
            for what, ids in [("chats", self.chat_ids), ("papers", self.paper_ids)]
            if ids
        ]
        super().__init__(" and ".join(gone) + " are gone")


@dataclass(frozen=True)
class Chunks:
    """Ledger rows made a chunk at a time (planning makes millions), anew each time they are
    read: add_deliveries may read them twice."""

    make: Callable[[], Iterator[NewDeliveries]]

    def __iter__(self) -> Iterator[NewDeliveries]:
        return self.make()


def add_deliveries(session: Session, *, rows: Iterable[NewDeliveries], now: datetime) -> int:
    """Insert ledger rows, a chunk of columns at a time; a (chat, paper, revision) already in
    the ledger is left as it is. Returns how many rows were new. `rows` are read as they come,
    once, or on PostgreSQL twice when the ledger holds one of them (a list, or `Chunks`, which
    makes them anew: not a generator). Raises OwnersGone (the caller rolls back) when a row's
    chat or paper is not stored.

    A busy day plans millions of rows, so they skip the ORM (its bookkeeping is ~240 us a row,
    SQLite's own B-trees 3-5): bot/store/ledger_bulk.py writes them, SQLite through one compiled
    executemany, PostgreSQL through COPY. For the same reason the ledger has no foreign keys
    (their checks were most of a row's cost on PostgreSQL): the same integrity is checked once
    a batch, for each distinct chat and paper (`_check_owners`), and what deletes a chat
    deletes its rows after the chat (chats.forget_chat, chats.move_chat). docs/PERFORMANCE.md,
    "Why the store is shaped so", has the measures."""
    if iter(rows) is rows:  # read twice on PostgreSQL when the ledger holds one of them
        raise TypeError("add_deliveries reads its rows again: give a list or Chunks")
    connection = session.connection()
    chat_ids: set[int] = set()
    paper_ids: set[int] = set()

    def noting() -> Iterator[NewDeliveries]:
        for chunk in rows:
            chat_ids.update(chunk.chat_ids)
            paper_ids.update(chunk.paper_ids)
            yield chunk

    noted = Chunks(noting)
    added = ledger_bulk.add_rows(connection, noted, now)
    _check_owners(session, chat_ids, paper_ids)
    return added


def _check_owners(session: Session, chat_ids: set[int], paper_ids: set[int]) -> None:
    """The chats and papers of rows just added are stored, and stay so until the transaction
    ends: on PostgreSQL they are locked FOR KEY SHARE, as a foreign key's check locks them (a
    chat being deleted is waited for, then found gone); on SQLite the transaction holds the
    database's one write lock since the rows were added. Raises OwnersGone otherwise."""
    missing_chats = chat_ids - _stored(session, col(ChatTable.id), sorted(chat_ids))
    missing_papers = paper_ids - _stored(session, col(PaperTable.id), sorted(paper_ids))
    if missing_chats or missing_papers:
        raise OwnersGone(missing_chats, missing_papers)


def _stored(session: Session, key: Any, ids: Sequence[int]) -> set[int]:
    """Which of `ids` are stored (locked for key share, in id order, where the database can)."""
    found: set[int] = set()
    for chunk in id_chunks(ids):
        statement = sa.select(key).where(key.in_(chunk)).order_by(key)
        found.update(session.execute(statement.with_for_update(key_share=True)).scalars())
    return found


def chats_waiting(session: Session, *, modes: Sequence[str]) -> list[int]:
    """Active, unpaused chats in the given modes with rows waiting to go out."""
    statement = (
        select(DeliveryTable.chat_id)
        .join(ChatTable, col(ChatTable.id) == col(DeliveryTable.chat_id))
        .where(
            WAITING,
            col(ChatTable.active),
            ~col(ChatTable.paused),
            col(ChatTable.mode).in_(modes),
        )
        .distinct()
    )
    return sorted(session.exec(statement).all())


def unfinished_deliveries(
    source: Session | Connection,
    *,
    chat_id: int | None = None,
    modes: Sequence[str] | None = None,
) -> list[Delivery]:
    """Pending and sending rows (sending: in flight when the bot stopped) of active, unpaused
    chats, oldest first; for one chat or for chats in the given modes."""
    if modes is not None and not modes:
        return []
    connection = source.connection() if isinstance(source, Session) else source
    return ledger_bulk.read_unfinished(connection, chat_id=chat_id, modes=modes)


def mark_deliveries(
    connection: Connection,
    *,
    delivery_ids: Sequence[int],
    status: Status,
    now: datetime,
    message_id: int | None = None,
    reason: str | None = None,
    in_order: bool = False,
) -> None:
    """Rows to `status` (sent: with the message that carried them). `in_order`: rows sent
    behind a digest's "more" button, in the order its pages list them, which they keep
    (`behind_button`)."""
    if delivery_ids:
        ledger_bulk.mark_rows(
            connection,
            delivery_ids,
            status=status,
            now=now,
            message_id=message_id,
            reason=reason,
            in_order=in_order,
        )


def delete_deliveries(
    session: Session, *, chat_ids: Sequence[int], paper_ids: Sequence[int]
) -> int:
    """The rows of these (few) chats for these papers, deleted; how many."""
    deleted = 0
    for chunk in id_chunks(paper_ids):
        statement = delete(DeliveryTable).where(
            col(DeliveryTable.chat_id).in_(chat_ids), col(DeliveryTable.paper_id).in_(chunk)
        )
        deleted += int(session.execute(statement).rowcount)  # type: ignore[attr-defined]
    return deleted


def next_id(session: Session, start: int) -> int | None:
    """The ledger's lowest id from `start` on (None: none)."""
    statement = sa.select(func.min(col(DeliveryTable.id))).where(col(DeliveryTable.id) >= start)
    return session.execute(statement).scalar()


def prune_deliveries(
    session: Session, *, start: int, stop: int, before: datetime
) -> tuple[int, bool]:
    """Rows with ids in [start, stop) sent before `before` (failed: planned before), deleted:
    how many, and whether the range holds a row planned since (rows are planned in id order:
    every later range then holds only such rows, none of them settled before `before`). The
    ledger's newest row is kept whatever its age: SQLite gives a new row the id after the
    highest, and an old message's button naming a deleted id would then find the new row."""
    in_range = (col(DeliveryTable.id) >= start, col(DeliveryTable.id) < stop)
    settled_at = func.coalesce(col(DeliveryTable.sent_at), col(DeliveryTable.created_at))
    newest = sa.select(func.max(col(DeliveryTable.id))).scalar_subquery()
    statement = delete(DeliveryTable).where(
        *in_range,
        col(DeliveryTable.status).in_(SETTLED),
        settled_at < before,
        col(DeliveryTable.id) < newest,
    )
    deleted = int(session.execute(statement).rowcount)  # type: ignore[attr-defined]
    newer = sa.select(col(DeliveryTable.id)).where(
        *in_range, col(DeliveryTable.created_at) >= before
    )
    return deleted, session.execute(newer.limit(1)).first() is not None


def fail_chat_deliveries(session: Session, *, chat_id: int, reason: str) -> int:
    """Every unfinished row of a chat that cannot be reached, marked failed with the reason."""
    statement = (
        update(DeliveryTable)
        .where(col(DeliveryTable.chat_id) == chat_id, WAITING)
        .values(status=Status.FAILED, reason=reason)
    )
    return int(session.execute(statement).rowcount)  # type: ignore[attr-defined]


def count_deliveries(session: Session, *, chat_id: int | None = None) -> dict[str, int]:
    statement = select(DeliveryTable.status, func.count()).group_by(col(DeliveryTable.status))
    if chat_id is not None:
        statement = statement.where(col(DeliveryTable.chat_id) == chat_id)
    return {status: n for status, n in session.exec(statement).all()}


def count_waiting(session: Session, *, chat_id: int | None = None) -> int:
    """How many rows (of one chat, or of all) wait to go out: through the index of waiting rows,
    not reading the ledger's history."""
    statement = sa.select(func.count()).select_from(DeliveryTable).where(WAITING)
    if chat_id is not None:
        statement = statement.where(col(DeliveryTable.chat_id) == chat_id)
    return int(session.execute(statement).scalar_one())


def get_delivery(session: Session, *, delivery_id: int, chat_id: int) -> Delivery | None:
    """One row, when it is the chat's (a button's data names rows: another chat's are not
    found)."""
    row = session.get(DeliveryTable, delivery_id)
    return _to_delivery(row) if row is not None and row.chat_id == chat_id else None


def one_paper_row(session: Session, *, chat_id: int, message_id: int) -> Delivery | None:
    """The row a message carried when it carried one paper alone (an alert of one paper); None
    for a message of several (or with papers behind its "more" button), or of none."""
    statement = (
        select(DeliveryTable)
        .where(
            col(DeliveryTable.chat_id) == chat_id,
            col(DeliveryTable.message_id) == message_id,
            col(DeliveryTable.status) == Status.SENT,
        )
        .limit(2)
    )
    found = session.exec(statement).all()
    return _to_delivery(found[0]) if len(found) == 1 else None


def behind_button(
    session: Session, *, chat_id: int, message_id: int
) -> tuple[list[Delivery], bool]:
    """The rows that settled with a digest's last message behind its "more" button, in the
    order its pages list them, and whether that order was stored (a digest sent before paperbot
    stored it: False, the rows oldest first)."""
    statement = (
        select(DeliveryTable.page_position, DeliveryTable)
        .where(
            col(DeliveryTable.chat_id) == chat_id,
            col(DeliveryTable.message_id) == message_id,
            col(DeliveryTable.status) == Status.SENT,
            col(DeliveryTable.reason) == BEHIND_MORE,
        )
        .order_by(col(DeliveryTable.page_position), col(DeliveryTable.id))
    )
    found = session.exec(statement).all()
    ordered = bool(found) and all(position is not None for position, _ in found)
    return [_to_delivery(row) for _, row in found], ordered


def papers_with_rows(session: Session, *, chat_id: int, paper_ids: Sequence[int]) -> set[int]:
    """Which of the papers the chat has a ledger row for (of any status and version)."""
    found: set[int] = set()
    for chunk in id_chunks(paper_ids):
        statement = sa.select(col(DeliveryTable.paper_id)).where(
            col(DeliveryTable.chat_id) == chat_id, col(DeliveryTable.paper_id).in_(chunk)
        )
        found.update(session.execute(statement).scalars())
    return found


def chats_with_rows(session: Session, *, paper_id: int, chat_ids: Sequence[int]) -> set[int]:
    """Which of the chats have a ledger row for the paper (of any status and version)."""
    found: set[int] = set()
    for chunk in id_chunks(chat_ids):
        statement = sa.select(col(DeliveryTable.chat_id)).where(
            col(DeliveryTable.chat_id).in_(chunk), col(DeliveryTable.paper_id) == paper_id
        )
        found.update(session.execute(statement).scalars())
    return found


def paper_rows(session: Session, *, chat_id: int, paper_ids: Sequence[int]) -> dict[int, Delivery]:
    """The chat's rows of the papers themselves (revision 0), by paper id."""
    found: dict[int, Delivery] = {}
    for chunk in id_chunks(paper_ids):
        statement = select(DeliveryTable).where(
            col(DeliveryTable.chat_id) == chat_id,
            col(DeliveryTable.paper_id).in_(chunk),
            col(DeliveryTable.revision) == 0,
        )
        found.update((row.paper_id, _to_delivery(row)) for row in session.exec(statement))
    return found


def all_deliveries(session: Session, *, chat_id: int) -> list[Delivery]:
    statement = (
        select(DeliveryTable)
        .where(col(DeliveryTable.chat_id) == chat_id)
        .order_by(col(DeliveryTable.id))
    )
    return [_to_delivery(row) for row in session.exec(statement)]


def count_waiting_by_status(session: Session) -> dict[str, int]:
    """Rows waiting to go out by status (pending, sending), every status counted (0: none):
    from the index of waiting rows alone, in one pass over it. Grouped by status, SQLite
    sorted them by it first (a busy day's 5.85 million rows: 1.4-1.9 s, against 0.35-0.57)."""
    column = col(DeliveryTable.status)
    statement = sa.select(*(func.count().filter(column == state) for state in UNFINISHED))
    counts = session.execute(statement.where(WAITING)).one()
    return {state.value: n for state, n in zip(UNFINISHED, counts, strict=True)}


def oldest_waiting(session: Session, *, chat_ids: Sequence[int]) -> datetime | None:
    """When the oldest row waiting for one of the chats was planned (None: nothing waits), read
    through the index of waiting rows, a thousand chats at a time."""
    oldest: list[datetime] = []
    for chunk in id_chunks(chat_ids):
        statement = sa.select(func.min(col(DeliveryTable.created_at))).where(
            WAITING, col(DeliveryTable.chat_id).in_(chunk)
        )
        found = session.execute(statement).scalar_one()
        if found is not None:
            oldest.append(found)
    return min(oldest, default=None)


def waiting_before(session: Session, *, chat_ids: Sequence[int], before: datetime) -> bool:
    """Whether a row planned before `before` waits for one of the chats (the first found ends
    the search: a chat's waiting rows through the index, a thousand chats at a time)."""
    for chunk in id_chunks(chat_ids):
        statement = (
            sa.select(col(DeliveryTable.id))
            .where(
                WAITING,
                col(DeliveryTable.chat_id).in_(chunk),
                col(DeliveryTable.created_at) < before,
            )
            .limit(1)
        )
        if session.execute(statement).first() is not None:
            return True
    return False
