"""The delivery ledger on SQLite and PostgreSQL: rows added once per (chat, paper, revision),
read for the rounds, moved through their states, counted."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlmodel import Session

from bot.core.chat import BEHIND_MORE
from bot.core.paper import Paper
from bot.core.states import Status
from bot.store import Database, chats, deliveries, leases, ledger_bulk, papers
from bot.store.deliveries import NewDeliveries
from tests.conftest import _open

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)


def setup_chats(session: Session, digest: tuple[int, ...] = ()) -> list[int]:
    """Chats 1, 2 and 3 (instant, but those in `digest`) and three stored papers."""
    for chat_id in (1, 2, 3):
        chats.register_chat(session, chat_id=chat_id, kind="private", now=NOW)
        mode = "digest" if chat_id in digest else "instant"
        chats.update_chat(session, chat_id=chat_id, mode=mode)
    batch = [Paper(title=f"Paper {n}", abstract=f"Abstract {n}.", source="t") for n in range(3)]
    return papers.insert_papers(session, papers=batch, now=NOW)


def ledger(session: Session, chat_id: int) -> list[tuple[int, int, str, int | None, str | None]]:
    return [
        (r.paper_id, r.revision, r.status, r.message_id, r.reason)
        for r in deliveries.all_deliveries(session, chat_id=chat_id)
    ]


def test_rows_are_added_once_per_chat_paper_and_revision(any_database: Database) -> None:
    with any_database.session() as session:
        a, b, _ = setup_chats(session)
        assert deliveries.add_deliveries(session, rows=[NewDeliveries.of([])], now=NOW) == 0
        first = [(1, a, 0, [7]), (1, b, 0, [7, 8]), (2, a, 0, [9])]
        assert deliveries.add_deliveries(session, rows=[NewDeliveries.of(first)], now=NOW) == 3
        again = [(1, a, 0, [8]), (1, a, 2, [7]), (2, a, 0, [9])]
        assert deliveries.add_deliveries(session, rows=[NewDeliveries.of(again)], now=NOW) == 1
        rows = deliveries.all_deliveries(session, chat_id=1)
        assert [(r.paper_id, r.revision, r.filter_ids, r.status) for r in rows] == [
            (a, 0, [7], "pending"), (b, 0, [7, 8], "pending"), (a, 2, [7], "pending"),
        ]  # fmt: skip
        assert [r.is_update for r in rows] == [False, False, True]
        assert {r.created_at for r in rows} == {NOW}


def test_a_batch_meeting_a_row_the_ledger_holds_keeps_its_new_rows(any_database: Database) -> None:
    """On PostgreSQL a batch is COPYed straight into the ledger, and, when one of its rows is
    there already, made again (`Chunks`) and inserted around it: every new row is kept, the
    held one left as it was, and the count says how many were new."""
    with any_database.session() as session:
        a, b, c = setup_chats(session)
        deliveries.add_deliveries(session, rows=[NewDeliveries.of([(2, b, 0, [5])])], now=NOW)
        made = 0

        def batch() -> Iterator[NewDeliveries]:
            nonlocal made
            made += 1
            yield NewDeliveries.of([(1, a, 0, [7]), (1, b, 0, [7])])
            yield NewDeliveries.of([(2, a, 0, [9]), (2, b, 0, [6]), (3, c, 0, [1])])

        rows = deliveries.Chunks(batch)
        assert deliveries.add_deliveries(session, rows=rows, now=NOW) == 4
        assert made == (2 if any_database.engine.dialect.name == "postgresql" else 1)
        stored = [
            (chat_id, r.paper_id, r.filter_ids)
            for chat_id in (1, 2, 3)
            for r in deliveries.all_deliveries(session, chat_id=chat_id)
        ]
        assert sorted(stored) == [(1, a, [7]), (1, b, [7]), (2, a, [9]), (2, b, [5]), (3, c, [1])]


def test_rows_read_once_only_are_refused_and_waiting_rows_read_whole(
    any_database: Database,
) -> None:
    with any_database.session() as session:
        a, _, _ = setup_chats(session)
        once = iter([NewDeliveries.of([(1, a, 0, [7])])])
        with pytest.raises(TypeError, match="reads its rows again"):
            deliveries.add_deliveries(session, rows=once, now=NOW)
        deliveries.add_deliveries(session, rows=[NewDeliveries.of([(1, a, 0, [7])])], now=NOW)
        read = deliveries.unfinished_deliveries(session, modes=["instant"])
        assert read == deliveries.all_deliveries(session, chat_id=1)  # every field, as the ORM's
        assert read[0].created_at == NOW and read[0].created_at.utcoffset() is not None
        assert read == deliveries.unfinished_deliveries(session, chat_id=1)
        assert deliveries.unfinished_deliveries(session, modes=[]) == []


def test_rows_move_through_their_states(any_database: Database) -> None:
    with any_database.session() as session:
        a, b, c = setup_chats(session)
        rows = [(1, paper_id, 0, [1]) for paper_id in (a, b, c)]
        deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
        ids = [r.id for r in deliveries.all_deliveries(session, chat_id=1)]
        connection = session.connection()
        deliveries.mark_deliveries(connection, delivery_ids=ids, status="sending", now=NOW)
        deliveries.mark_deliveries(
            connection, delivery_ids=ids[:2], status="sent", now=NOW, message_id=5001
        )
        deliveries.mark_deliveries(
            connection, delivery_ids=ids[2:], status="failed", now=NOW, reason="refused"
        )
        deliveries.mark_deliveries(connection, delivery_ids=[], status="sent", now=NOW)
        assert ledger(session, 1) == [
            (a, 0, "sent", 5001, None),
            (b, 0, "sent", 5001, None),
            (c, 0, "failed", None, "refused"),
        ]


def test_rows_behind_a_button_keep_the_order_their_pages_list_them(
    any_database: Database,
) -> None:
    """Sent in order behind a digest's button: read back in that order, not the ids'; rows of
    a digest sent before the order was stored (no position): in id order, said so."""
    with any_database.session() as session:
        a, b, c = setup_chats(session)
        for chat_id in (1, 2):
            rows = [(chat_id, paper_id, 0, [1]) for paper_id in (a, b, c)]
            deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
        first, second = (
            [r.id for r in deliveries.all_deliveries(session, chat_id=n)] for n in (1, 2)
        )
        connection = session.connection()
        order = [first[2], first[0], first[1]]
        deliveries.mark_deliveries(
            connection, delivery_ids=order, status="sent", now=NOW, message_id=7,
            reason=BEHIND_MORE, in_order=True,
        )  # fmt: skip
        deliveries.mark_deliveries(
            connection, delivery_ids=second, status="sent", now=NOW, message_id=7,
            reason=BEHIND_MORE,
        )  # fmt: skip
        behind, ordered = deliveries.behind_button(session, chat_id=1, message_id=7)
        assert ([r.id for r in behind], ordered) == (order, True)
        behind, ordered = deliveries.behind_button(session, chat_id=2, message_id=7)
        assert ([r.id for r in behind], ordered) == (second, False)
        assert deliveries.behind_button(session, chat_id=3, message_id=7) == ([], False)


def test_rows_in_flight_go_back_unless_a_live_process_holds_the_chat(
    any_database: Database,
) -> None:
    with any_database.session() as session:
        a, b, c = setup_chats(session)
        rows = [(1, a, 0, [1]), (1, b, 0, [1]), (2, c, 0, [2])]
        deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
        ids = [r.id for r in deliveries.all_deliveries(session, chat_id=1)]
        [other] = [r.id for r in deliveries.all_deliveries(session, chat_id=2)]
        connection = session.connection()
        deliveries.mark_deliveries(connection, delivery_ids=ids, status="sending", now=NOW)
        deliveries.mark_deliveries(
            connection, delivery_ids=[other], status="sent", now=NOW, message_id=1
        )
        later = NOW + timedelta(seconds=5)
        leases.claim_chats(connection, chat_ids=[1], holder="live", now=NOW, until=later)
        assert leases.reset_unclaimed_sending(session, now=NOW) == 0  # a live process sends them
        assert leases.reset_unclaimed_sending(session, now=later + timedelta(seconds=1)) == 2
        assert leases.reset_unclaimed_sending(session, now=later + timedelta(seconds=1)) == 0
        assert [status for _, _, status, _, _ in ledger(session, 1)] == ["pending", "pending"]
        assert ledger(session, 2) == [(c, 0, "sent", 1, None)]


def test_unfinished_rows_of_active_unpaused_chats_oldest_first(any_database: Database) -> None:
    with any_database.session() as session:
        a, b, c = setup_chats(session, digest=(2,))
        rows = [
            (1, b, 0, [1]), (2, a, 0, [2]), (1, a, 0, [1]),
            (3, c, 0, [3]), (1, c, 0, [1]),
        ]  # fmt: skip
        deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
        [_, _, last] = [r.id for r in deliveries.all_deliveries(session, chat_id=1)]
        deliveries.mark_deliveries(
            session.connection(), delivery_ids=[last], status="sent", now=NOW, message_id=1
        )

        def unfinished(
            chat_id: int | None = None, modes: list[str] | None = None
        ) -> list[tuple[int, int]]:
            found = deliveries.unfinished_deliveries(session, chat_id=chat_id, modes=modes)
            return [(r.chat_id, r.paper_id) for r in found]

        assert unfinished() == [(1, b), (2, a), (1, a), (3, c)]
        assert unfinished(chat_id=1) == [(1, b), (1, a)]
        assert unfinished(modes=["instant"]) == [(1, b), (1, a), (3, c)]
        assert unfinished(modes=["digest"]) == [(2, a)]
        chats.update_chat(session, chat_id=1, paused=True)
        chats.deactivate_chat(session, chat_id=3, reason="blocked")
        assert unfinished() == [(2, a)]
        assert unfinished(chat_id=1) == []


def test_count_deliveries_by_status(any_database: Database) -> None:
    with any_database.session() as session:
        assert deliveries.count_deliveries(session) == {}
        a, b, c = setup_chats(session)
        rows = [(1, p, 0, [1]) for p in (a, b, c)] + [(2, a, 0, [2])]
        deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
        ids = [r.id for r in deliveries.all_deliveries(session, chat_id=1)]
        connection = session.connection()
        deliveries.mark_deliveries(connection, delivery_ids=ids[:1], status="sending", now=NOW)
        deliveries.mark_deliveries(
            connection, delivery_ids=ids[1:2], status="sent", now=NOW, message_id=1
        )
        assert deliveries.count_deliveries(session) == {"pending": 2, "sending": 1, "sent": 1}
        assert deliveries.count_deliveries(session, chat_id=1) == {
            "pending": 1, "sending": 1, "sent": 1,
        }  # fmt: skip
        assert deliveries.count_deliveries(session, chat_id=3) == {}
        assert [deliveries.count_waiting(session, chat_id=c) for c in (1, 2, 3)] == [2, 1, 0]
        assert deliveries.fail_chat_deliveries(session, chat_id=1, reason="blocked") == 2
        assert deliveries.count_deliveries(session, chat_id=1) == {"sent": 1, "failed": 2}
        assert deliveries.count_waiting(session, chat_id=1) == 0


def test_a_big_batch_takes_the_ledgers_statistics_again_on_postgresql(
    any_database: Database,
) -> None:
    """After a batch of ANALYZE_AFTER rows PostgreSQL knows the ledger's size at once (without
    it, a chat's waiting rows were read through an index of every row's status: 210 ms a
    digest at 10,000 chats instead of 0.5); a chat's rows are then read through the index of
    waiting rows by chat."""
    if not any_database.shared:
        pytest.skip("PostgreSQL's planner statistics")
    chat_count, per_chat = 50, ledger_bulk.ANALYZE_AFTER // 50
    with any_database.session() as session:
        for chat_id in range(1, chat_count + 1):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=NOW)
        batch = [Paper(title=f"P{n}", abstract="A.", source="t") for n in range(per_chat)]
        paper_ids = papers.insert_papers(session, papers=batch, now=NOW)
    rows = [(c, p, 0, [1]) for c in range(1, chat_count + 1) for p in paper_ids]
    with any_database.session() as session:
        added = deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
    assert added == ledger_bulk.ANALYZE_AFTER
    with any_database.engine.connect() as connection:
        counted = connection.exec_driver_sql(
            "SELECT reltuples FROM pg_class WHERE relname = 'delivery'"
        ).scalar()
        plan = "\n".join(
            line
            for (line,) in connection.exec_driver_sql(
                "EXPLAIN SELECT id FROM delivery WHERE chat_id = 7"
                " AND status IN ('pending', 'sending') ORDER BY id"
            )
        )
    assert counted is not None and counted > ledger_bulk.ANALYZE_AFTER / 2  # -1: never analysed
    assert "ix_delivery_waiting" in plan, plan


def test_waiting_rows_are_found_through_their_index(tmp_path: Path, sqlite_template: Path) -> None:
    """The delivery rounds' questions (which chats have rows waiting, a chat's waiting rows and
    their number) and the changes to waiting rows (a chat's failed, those left sending put back)
    go through the partial index of waiting rows: SQLite uses it only when a statement repeats
    its condition word for word, so one written otherwise would read every row of the ledger's
    history. (PostgreSQL's: the test of a big batch above.)"""
    sqlite_database = _open("sqlite", tmp_path, sqlite_template)
    with sqlite_database.session() as session:
        a, b, c = setup_chats(session)
        rows = [(1, p, 0, [1]) for p in (a, b, c)] + [(2, a, 0, [2])]
        deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
    questions = [
        lambda session: deliveries.chats_waiting(session, modes=["instant"]),
        lambda session: deliveries.unfinished_deliveries(session, chat_id=1),
        lambda session: deliveries.unfinished_deliveries(session, modes=["instant"]),
        lambda session: deliveries.count_waiting(session, chat_id=1),
        lambda session: deliveries.count_waiting(session),
        lambda session: leases.reset_unclaimed_sending(session, now=NOW),
        lambda session: deliveries.fail_chat_deliveries(session, chat_id=1, reason="blocked"),
    ]
    for question in questions:
        with sqlite_database.session() as session:
            driver = session.connection().connection.driver_connection
            asked: list[str] = []  # as run, the parameters' values written in
            driver.set_trace_callback(asked.append)
            try:
                question(session)
            finally:
                driver.set_trace_callback(None)
            [sql] = [run for run in asked if re.search(r"(FROM|UPDATE) delivery\b", run)]
            plan = str(driver.execute("EXPLAIN QUERY PLAN " + sql).fetchall())
        assert "ix_delivery_waiting" in plan, (sql, plan)
    sqlite_database.close()


def test_waiting_rows_are_counted_by_state_from_their_index_alone(any_database: Database) -> None:
    """/metrics counts the waiting rows by state at each scrape: from the index of waiting rows
    alone, which holds their status, not reading each one's status from the table (a busy
    day's 5.85 million rows on SQLite: 4.3-15.1 s, against 0.34-0.69). PostgreSQL is kept off a
    scan of the table, cheaper at a handful of rows, to show the plan it takes at millions
    (once a vacuum has marked their pages all-visible)."""
    with any_database.session() as session:
        a, b, c = setup_chats(session)
        rows = [(1, p, 0, [1]) for p in (a, b, c)] + [(2, a, 0, [2])]
        deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
        [first, *_] = deliveries.unfinished_deliveries(session, chat_id=2)
    with any_database.connection() as connection:
        deliveries.mark_deliveries(
            connection, delivery_ids=[first.id], status=Status.SENDING, now=NOW
        )
    asked: list[tuple[str, Any]] = []  # as run, with its parameters

    def note(_connection: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        asked.append((statement, parameters))

    with any_database.session() as session:
        connection = session.connection()
        if any_database.shared:
            connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
            connection.exec_driver_sql("SET LOCAL enable_bitmapscan = off")
        event.listen(any_database.engine, "before_cursor_execute", note)
        try:
            assert deliveries.count_waiting_by_status(session) == {"pending": 3, "sending": 1}
        finally:
            event.remove(any_database.engine, "before_cursor_execute", note)
        [(sql, parameters)] = asked
        explain = "EXPLAIN " if any_database.shared else "EXPLAIN QUERY PLAN "
        plan = str(connection.exec_driver_sql(explain + sql, parameters).all())
    if any_database.shared:
        assert "Index Only Scan using ix_delivery_waiting" in plan, plan
    else:  # and not grouped by status: SQLite sorted the rows by it first (1.4-1.9 s)
        assert "COVERING INDEX ix_delivery_waiting" in plan and "TEMP B-TREE" not in plan, plan


def test_rows_of_a_chat_or_paper_not_stored_are_refused_whole(any_database: Database) -> None:
    """The ledger has no foreign keys (a check per row cost most of a busy day's planning): a
    batch's chats and papers are checked once, and a batch naming one that is gone is refused
    whole, so that the planner rolls it back and plans it again."""
    with any_database.session() as session:
        a, b, _ = setup_chats(session)
    rows = [(1, a, 0, [1]), (4, a, 0, [2]), (2, b, 0, [3]), (2, 99_999, 0, [3])]
    with pytest.raises(deliveries.OwnersGone) as gone, any_database.session() as session:
        deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
    assert (gone.value.chat_ids, gone.value.paper_ids) == ([4], [99_999])
    assert str(gone.value) == "chats [4] and papers [99999] are gone"
    with any_database.session() as session:
        assert deliveries.count_deliveries(session) == {}  # rolled back: nothing of the batch


@pytest.fixture
def postgres_database(tmp_path: Path) -> Iterator[Database]:
    database = _open("postgres", tmp_path)
    yield database
    database.close()


def _blocked_by(database: Database, backend: int) -> bool:
    """Whether some session waits for a lock that the session of `backend` holds."""
    with database.session() as session:
        statement = "SELECT count(*) FROM pg_stat_activity WHERE :pid = ANY(pg_blocking_pids(pid))"
        return bool(session.execute(text(statement), {"pid": backend}).scalar())


@pytest.mark.parametrize("how", ["forget", "move"])
def test_a_chat_deleted_while_a_batch_holds_it_takes_the_batchs_rows_along(
    postgres_database: Database, how: str
) -> None:
    """PostgreSQL, two transactions at once: a planning batch has added a chat's rows and
    checked its chat (locked FOR KEY SHARE, as a foreign key would); /forget, or the group
    becoming a supergroup, waits for the batch, then deletes (or moves) its rows too: none is
    left behind for a chat that no longer exists."""
    with postgres_database.session() as session:
        a, b, _ = setup_chats(session)
        deliveries.add_deliveries(session, rows=[NewDeliveries.of([(1, a, 0, [1])])], now=NOW)
    with postgres_database.session() as planning:
        rows = [(1, b, 0, [1]), (2, b, 0, [2])]
        deliveries.add_deliveries(planning, rows=[NewDeliveries.of(rows)], now=NOW)

        def delete() -> None:
            with postgres_database.session() as session:
                if how == "forget":
                    chats.forget_chat(session, chat_id=1)
                else:
                    chats.move_chat(session, old_id=1, new_id=-100)

        with ThreadPoolExecutor(1) as pool:
            deleting = pool.submit(delete)
            deadline = time.monotonic() + 30
            batch = planning.execute(text("SELECT pg_backend_pid()")).scalar_one()
            while not _blocked_by(postgres_database, batch):  # the deletion waits for the batch
                assert not deleting.done(), deleting.result()
                assert time.monotonic() < deadline, "the deletion never waited for the batch"
                time.sleep(0.01)
            planning.commit()
            deleting.result(timeout=30)
    with postgres_database.session() as session:
        assert ledger(session, 1) == []
        moved = ledger(session, -100)
        assert moved == (
            []
            if how == "forget"
            else [(a, 0, "pending", None, None), (b, 0, "pending", None, None)]
        )
        assert [p for p, *_ in ledger(session, 2)] == [b]
        assert deliveries.count_deliveries(session) == {"pending": 1 + len(moved)}
