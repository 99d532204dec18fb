"""The ledger's fast paths, beside its queries (bot/store/deliveries.py): rows added a chunk of
columns at a time (SQLite: one compiled INSERT through the driver's executemany; PostgreSQL:
COPY), unfinished rows read and rows marked through the driver's own cursor. Each statement is
compiled once per database dialect (a compiled-statement cache) and run straight through the
driver: a busy day adds millions of rows and reads a chat's hundreds at each digest."""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import psycopg
import sqlalchemy as sa
from sqlalchemy import Connection, Dialect, bindparam, update
from sqlalchemy.dialects import sqlite
from sqlmodel import col

from bot.core.chat import Delivery
from bot.core.states import Status
from bot.store.tables import WAITING, ChatTable, DeliveryTable

if TYPE_CHECKING:
    from bot.store.deliveries import NewDeliveries

PENDING = Status.PENDING  # a new row's status
# PostgreSQL: after a batch adds this many rows, the ledger's statistics are taken again at once
# (ANALYZE samples 30,000 rows: half a second at 6 million) rather than when autovacuum comes
# by: until then the planner takes the ledger for as small as before the batch, and may choose
# an index that reads every chat's waiting rows rather than the chat's own.
ANALYZE_AFTER = 100_000


def add_rows(connection: Connection, rows: Iterable[NewDeliveries], now: datetime) -> int:
    """add_deliveries' rows inserted, a chunk of columns at a time, a (chat, paper, revision)
    the ledger holds left as it is: how many were new. PostgreSQL COPYs them; SQLite takes one
    compiled INSERT through the driver's executemany."""
    if connection.dialect.name == "postgresql":
        return _copy_deliveries(connection, rows, now)
    return _insert_deliveries(connection, rows, now)


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
    runs alone after the COPY."""
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
    characters COPY escapes (tab, newline, backslash). A busy day's 5.85 million rows take
    2.5 s of the client's CPU, beside a server that stores them meanwhile."""
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


# The columns whose values read_unfinished processes itself (as their types would). The JSON is
# cast to text in the query: psycopg would otherwise parse every row's JSON with json.loads,
# where _OnceEach parses each distinct value once (most rows name one of a chat's few filters).
_RAW_FILTER_IDS = sa.cast(col(DeliveryTable.filter_ids), sa.Text).label("filter_ids")
_RAW_CREATED = sa.type_coerce(col(DeliveryTable.created_at), sa.String).label("created_at")


class _OnceEach(dict[Any, Any]):
    """`processor` applied to values read (none: as they are), each distinct value once: looked
    up as `once[value]`, a dictionary's own lookup once the value was met, not a function call
    a value."""

    def __init__(self, processor: Callable[[Any], Any] | None) -> None:
        super().__init__()
        self.processor = processor or (lambda value: value)

    def __missing__(self, value: Any) -> Any:
        processed = self[value] = self.processor(value)
        return processed


def read_unfinished(
    connection: Connection, *, chat_id: int | None, modes: Sequence[str] | None
) -> list[Delivery]:
    """unfinished_deliveries' rows, read through the driver's own cursor."""
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
            cursor.fetchall()  # one call for all of them, not one a row
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


# A digest chat has ~590 rows waiting on a busy day: compiled once per dialect, run straight
# through the driver, each distinct value processed once, they are read in about 1 ms (SQLite).
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
    # One chat's rows are ordered by the database (SQLite sorts the ~590 it finds through the
    # index of waiting rows, a seek for each status); every chat's are sorted once read
    # (read_unfinished): asked to order them, SQLite read the whole ledger in id order rather
    # than its index
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


def mark_rows(
    connection: Connection,
    delivery_ids: Sequence[int],
    *,
    status: Status,
    now: datetime,
    message_id: int | None,
    reason: str | None,
    in_order: bool,
) -> None:
    """mark_deliveries' UPDATE, one row id per parameter set."""
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
