"""The delivery ledger: one row per (chat, paper, revision), pending -> sending -> sent | failed."""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import psycopg
import sqlalchemy as sa
from sqlalchemy import Connection, Dialect, bindparam, delete, func, update
from sqlalchemy.dialects import sqlite
from sqlmodel import Session, col, select

from bot.core.chat import BEHIND_MORE, Delivery
from bot.core.states import SETTLED, UNFINISHED, Status
from bot.store.database import id_chunks
from bot.store.tables import WAITING, ChatTable, DeliveryTable, PaperTable

PENDING = Status.PENDING  # a new row's status
# PostgreSQL: after a batch adds this many rows, the ledger's statistics are taken again at once
# (ANALYZE samples 30,000 rows: half a second at 6 million) rather than when autovacuum comes
# by. Until then the planner took the ledger for as small as before: with an index of every
# row's status (before migration 0011) it read a chat's waiting rows through that, every pending
# row of every chat: 210 ms a digest at bench/day.py's 10,000 chats (5.85 million rows) instead
# of 0.5 ms through the chat's own.
ANALYZE_AFTER = 100_000


class NewDeliveries(NamedTuple):
    """Ledger rows to add, as columns (row i is chat_ids[i], paper_ids[i], ...). Columns, not a
    value per row: planning makes millions of rows on a busy day (bench/day.py: 5.85 million for
    10,000 chats of 10 filters), and making and unpacking an object per row cost a tenth of the
    planning (6 s of 60)."""

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


_DELIVERY_COLUMNS = (  # in Delivery's order
    col(DeliveryTable.id),
    col(DeliveryTable.chat_id),
    col(DeliveryTable.paper_id),
    col(DeliveryTable.revision),
    col(DeliveryTable.filter_ids),
    col(DeliveryTable.status),
    col(DeliveryTable.message_id),
    col(DeliveryTable.reason),
    col(DeliveryTable.created_at),
)


# The columns whose values unfinished_deliveries processes itself (as their types would). The
# JSON is cast to text in the query: psycopg would otherwise parse every row's JSON itself, with
# json.loads (PostgreSQL, bench/day.py: 1.5 of a digest's 4.7 ms to read its ~580 rows).
_RAW_FILTER_IDS = sa.cast(col(DeliveryTable.filter_ids), sa.Text).label("filter_ids")
_RAW_CREATED = sa.type_coerce(col(DeliveryTable.created_at), sa.String).label("created_at")


class _OnceEach(dict[Any, Any]):
    """`processor` applied to values read (none: as they are), each distinct value once: looked
    up as `once[value]`, a dictionary's own lookup once the value was met (a function call a
    value, two a row, took ~0.08 ms of a chat's ~0.95 to read its ~590 rows on SQLite)."""

    def __init__(self, processor: Callable[[Any], Any] | None) -> None:
        super().__init__()
        self.processor = processor or (lambda value: value)

    def __missing__(self, value: Any) -> Any:
        processed = self[value] = self.processor(value)
        return processed


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

    A busy day plans millions of rows (bench/day.py: 5.85 million for 10,000 chats of 10
    filters), so they skip the ORM, whose per-row bookkeeping took 240 us a row: on SQLite one
    compiled INSERT through the driver's executemany, fed by zip over the columns (no Python
    code runs per row; SQLite's own B-trees take 3-5 us a row), on PostgreSQL COPY
    (`_copy_deliveries`; executemany there took 340 us a row, a round trip each). For the
    same reason the ledger has no foreign keys: on PostgreSQL each row fired two triggers that
    looked up and locked its chat and its paper, 16 us of the row's ~26; on SQLite two B-tree
    lookups a row. The same integrity is checked once a batch, for each
    distinct chat and paper (`_check_owners`), and what deletes a chat deletes its rows after
    the chat (chats.forget_chat, chats.move_chat)."""
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
    if connection.dialect.name == "postgresql":
        added = _copy_deliveries(connection, noted, now)
    else:
        added = _insert_deliveries(connection, noted, now)
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


def _insert_deliveries(connection: Connection, rows: Iterable[NewDeliveries], now: datetime) -> int:
    """SQLite: one compiled INSERT through the driver's executemany."""
    insert = _compiled_insert(connection.dialect)
    created = insert.created_at(now) if insert.created_at else now
    if isinstance(created, datetime):
        created = created.isoformat(" ")  # sqlite3's own adapter, once rather than per row
    cursor = _driver_cursor(connection)  # SQLAlchemy wants a list of dicts; sqlite3 takes zip
    added = 0
    for chunk in rows:
        values = zip(
            chunk.chat_ids,
            chunk.paper_ids,
            chunk.revisions,
            chunk.filter_ids_json(),
            itertools.repeat(PENDING),
            itertools.repeat(created),
        )
        cursor.executemany(insert.sql, values)
        added += int(cursor.rowcount)
    return added


def _driver_cursor(connection: Connection) -> Any:
    """A cursor of the driver's own, in the session's transaction."""
    return connection.connection.driver_connection.cursor()  # type: ignore[union-attr]


def _copy_deliveries(connection: Connection, rows: Iterable[NewDeliveries], now: datetime) -> int:
    """PostgreSQL: the rows COPYed straight into the ledger, as one savepoint; when the ledger
    holds one of them already (a new version announced again), the savepoint is rolled back and
    the rows, read again, are COPYed into a temporary table (emptied at commit), then inserted
    from it in the order they came (a fresh heap is read in the order it was written), leaving
    alone those the ledger holds.

    The straight COPY is the usual case, a day of new papers: the server stores the rows while
    the client formats the next ones, on two cores, where the INSERT from the temporary table
    runs alone after the COPY (bench/day.py, 10,000 chats: planning 21 s instead of 29)."""
    if now.utcoffset() is None:  # as the column type would refuse it: read in the server's zone
        raise ValueError(f"a ledger row's time must carry its zone: {now!r}")
    cursor = _driver_cursor(connection)
    created = now.isoformat()  # formatted once, not per row by the driver
    cursor.execute("SAVEPOINT straight_copy")
    try:
        with cursor.copy(
            "COPY delivery (chat_id, paper_id, revision, filter_ids, status, created_at) FROM STDIN"
        ) as copy:
            for block in _copy_text(rows, f"\t{PENDING}\t{created}"):
                copy.write(block)
    except psycopg.errors.UniqueViolation:
        cursor.execute("ROLLBACK TO SAVEPOINT straight_copy")
        added = _copy_through_temporary(cursor, rows, now)
    else:
        added = cursor.rowcount
    cursor.execute("RELEASE SAVEPOINT straight_copy")
    if added >= ANALYZE_AFTER:
        cursor.execute("ANALYZE delivery")
    return int(added)


def _copy_text(rows: Iterable[NewDeliveries], ending: str = "") -> Iterator[str]:
    """The rows in COPY's text form, a chunk at a time, each line followed by `ending` (more
    columns, in that form). Written here rather than by the driver a row at a time (its
    write_row): integers, the filter ids' JSON and the constant columns hold none of the
    characters COPY escapes (tab, newline, backslash), and the client's CPU for a busy day's
    5.85 million rows fell from 6.6 to 2.5 s, beside a server that stores them meanwhile."""
    for chunk in rows:
        columns = (chunk.chat_ids, chunk.paper_ids, chunk.revisions, chunk.filter_ids_json())
        yield "".join(
            [
                f"{chat}\t{paper}\t{revision}\t{ids}{ending}\n"
                for chat, paper, revision, ids in zip(*columns, strict=True)
            ]
        )


def _copy_through_temporary(cursor: Any, rows: Iterable[NewDeliveries], now: datetime) -> int:
    cursor.execute(
        "CREATE TEMPORARY TABLE IF NOT EXISTS new_delivery"
        " (chat_id bigint, paper_id integer, revision integer, filter_ids text)"
        " ON COMMIT DELETE ROWS"
    )
    with cursor.copy("COPY new_delivery FROM STDIN") as copy:
        for block in _copy_text(rows):
            copy.write(block)
    cursor.execute(
        "INSERT INTO delivery (chat_id, paper_id, revision, filter_ids, status, created_at)"
        " SELECT chat_id, paper_id, revision, filter_ids::json, %s, %s FROM new_delivery"
        " ON CONFLICT (chat_id, paper_id, revision) DO NOTHING",
        (PENDING, now),
    )
    added = int(cursor.rowcount)
    cursor.execute("TRUNCATE new_delivery")  # the next batch of the same transaction
    return added


@dataclass(frozen=True)
class _CompiledInsert:
    sql: str  # positional parameters, in _INSERTED's order
    created_at: Callable[[Any], Any] | None  # the dialect's form of a datetime, when it has one


_INSERTED = ("chat_id", "paper_id", "revision", "filter_ids", "status", "created_at")


@functools.cache
def _compiled_insert(dialect: Dialect) -> _CompiledInsert:
    statement = (
        sqlite.insert(DeliveryTable)
        .values({name: bindparam(name) for name in _INSERTED})
        .on_conflict_do_nothing(index_elements=["chat_id", "paper_id", "revision"])
    )
    compiled = statement.compile(dialect=dialect, for_executemany=True)  # no RETURNING
    assert compiled.positiontup == list(_INSERTED), compiled
    processor = DeliveryTable.__table__.c.created_at.type.bind_processor(dialect)  # type: ignore[attr-defined]
    return _CompiledInsert(str(compiled), processor)


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
    dialect = connection.dialect
    query = _compiled_unfinished(dialect, chat_id is not None, tuple(modes) if modes else None)
    cursor = _driver_cursor(connection)
    cursor.execute(query.sql, query.parameters(chat_id))
    filter_ids = _OnceEach(json.loads)
    status_of = _OnceEach(Status)  # one of four: looked up, not made, for each of 590 rows
    created_type = DeliveryTable.__table__.c.created_at.type  # type: ignore[attr-defined]
    # the column type's processing of the timestamp read (on both databases: it makes it UTC)
    created_at = _OnceEach(created_type.dialect_impl(dialect).result_processor(dialect, None))
    rows = [
        Delivery(
            row_id,
            chat,
            paper,
            revision,
            list(filter_ids[ids]),
            status_of[status],
            message,
            reason,
            created_at[created],
        )
        for row_id, chat, paper, revision, ids, status, message, reason, created in (
            cursor.fetchall()  # a fetchone a row cost 0.5 ms
        )
    ]
    if chat_id is None:  # sorted here (by id, a Delivery's first field): _compiled_unfinished
        rows.sort()
    return rows


@dataclass(frozen=True)
class _CompiledSelect:
    sql: str
    order: tuple[str, ...]  # the parameters' names in order; none: the driver takes them by name
    values: Mapping[str, Any]  # every parameter's value but the chat's

    def parameters(self, chat_id: int | None) -> Any:
        values = {**self.values, "chat": chat_id} if chat_id is not None else self.values
        return tuple(values[name] for name in self.order) if self.order else values


# A digest chat has ~590 rows waiting on a busy day (bench/day.py, SQLite): read as ORM objects
# they took 0.2 s; as SQLAlchemy's Core rows, every value processed by its type, 5.3 ms. The
# statement is compiled once per dialect and run straight through the driver, and each distinct
# JSON or timestamp value is processed once (a planning batch writes one timestamp, most rows
# name one of a chat's few filters): 1.5 ms (PostgreSQL 2.4), where SQLAlchemy's own execution
# and Row objects took 2.0 (PostgreSQL 3.3); with Delivery a named tuple, 0.9 (PostgreSQL 1.5).
@functools.cache
def _compiled_unfinished(
    dialect: Dialect, by_chat: bool, modes: tuple[str, ...] | None
) -> _CompiledSelect:
    statement = (
        sa.select(*_DELIVERY_COLUMNS[:4], _RAW_FILTER_IDS, *_DELIVERY_COLUMNS[5:8], _RAW_CREATED)
        .join(ChatTable, col(ChatTable.id) == col(DeliveryTable.chat_id))
        .where(
            WAITING,
            col(ChatTable.active),
            ~col(ChatTable.paused),
        )
    )
    # One chat's rows are ordered by the database (SQLite reads them in id order from the index
    # of waiting rows); every chat's are sorted once read (unfinished_deliveries): asked to
    # order them, SQLite read the whole ledger in id order rather than its index
    if by_chat:
        chat = bindparam("chat", 0, sa.BigInteger)  # a value: render_postcompile wants one
        statement = statement.where(col(DeliveryTable.chat_id) == chat)
        statement = statement.order_by(col(DeliveryTable.id))
    if modes is not None:
        statement = statement.where(col(ChatTable.mode).in_(modes))
    compiled = statement.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
    order = tuple(compiled.positiontup or ())
    return _CompiledSelect(str(compiled), order, dict(compiled.params))


# Marking runs once or twice per message sent: the statements are compiled once per database
# dialect and run straight through the driver, one row id per parameter set (an executemany),
# which costs a third of SQLAlchemy's own execution with its expanding IN.
_MARK = (
    update(DeliveryTable)
    .where(col(DeliveryTable.id) == bindparam("row"))
    .values(status=bindparam("new_status"), reason=bindparam("new_reason"))
)
_MARK_SENT = _MARK.values(message_id=bindparam("new_message_id"), sent_at=bindparam("new_sent_at"))
_MARK_BEHIND = _MARK_SENT.values(page_position=bindparam("new_position"))


@dataclass(frozen=True)
class _CompiledMark:
    sql: str
    order: tuple[str, ...] | None  # parameter names in order, for positional paramstyles
    sent_at: Callable[[Any], Any] | None  # the dialect's form of a datetime, when it has one


@functools.cache
def _compiled_mark(dialect: Dialect, sent: bool, behind: bool = False) -> _CompiledMark:
    statement = _MARK_BEHIND if behind else _MARK_SENT if sent else _MARK
    compiled = statement.compile(dialect=dialect)
    order = tuple(compiled.positiontup) if compiled.positiontup is not None else None
    processor = DeliveryTable.__table__.c.sent_at.type.bind_processor(dialect)  # type: ignore[attr-defined]
    return _CompiledMark(str(compiled), order, processor)


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
    if not delivery_ids:
        return
    sent = status == Status.SENT
    mark = _compiled_mark(connection.dialect, sent, sent and in_order)
    values: dict[str, Any] = {"new_status": status, "new_reason": reason}
    if sent:
        values["new_message_id"] = message_id
        values["new_sent_at"] = mark.sent_at(now) if mark.sent_at else now
    if mark.order is None:  # named parameters
        rows: list[Any] = [
            {**values, "row": row, "new_position": position}
            for position, row in enumerate(delivery_ids)
        ]
    else:  # a tuple a row, as the statement orders them
        rows = [
            tuple(
                row if n == "row" else position if n == "new_position" else values[n]
                for n in mark.order
            )
            for position, row in enumerate(delivery_ids)
        ]
    connection.exec_driver_sql(mark.sql, rows)


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


def all_deliveries(session: Session, *, chat_id: int) -> list[Delivery]:
    statement = (
        select(DeliveryTable)
        .where(col(DeliveryTable.chat_id) == chat_id)
        .order_by(col(DeliveryTable.id))
    )
    return [_to_delivery(row) for row in session.exec(statement)]


def count_waiting_by_status(session: Session) -> dict[str, int]:
    """Rows waiting to go out by status (pending, sending), every status counted (0: none):
    through the index of waiting rows, not the ledger's history."""
    statement = (
        sa.select(col(DeliveryTable.status), func.count())
        .where(WAITING)
        .group_by(col(DeliveryTable.status))
    )
    counts = {status.value: 0 for status in UNFINISHED}
    counts.update({status: n for status, n in session.execute(statement).all()})
    return counts


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
