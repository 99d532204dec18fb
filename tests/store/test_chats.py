"""Chats, filters and the delivery ledger on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core.paper import Paper
from bot.store import Database, chats, deliveries, filters, leases, papers
from bot.store.deliveries import NewDeliveries

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)


def stored_papers(session: object, count: int) -> list[int]:
    batch = [Paper(title=f"Paper {n}", abstract=f"Abstract {n}.", source="t") for n in range(count)]
    return papers.insert_papers(session, papers=batch, now=NOW)  # type: ignore[arg-type]


def test_register_update_deactivate_and_come_back(any_database: Database) -> None:
    with any_database.session() as session:
        chat = chats.register_chat(session, chat_id=-1001, kind="supergroup", now=NOW)
        assert (chat.mode, chat.digest_time, chat.timezone, chat.active) == (
            "digest", "08:00", "UTC", True,
        )  # fmt: skip
        chats.update_chat(session, chat_id=-1001, mode="instant", timezone="Europe/Berlin")
        assert chats.deactivate_chat(session, chat_id=-1001, reason="removed")
        assert not chats.deactivate_chat(session, chat_id=-1001, reason="removed")
        assert chats.count_chats(session) == {"active": 0, "paused": 0, "inactive": 1}
        back = chats.register_chat(session, chat_id=-1001, kind="supergroup", now=NOW)
        assert back.active and back.mode == "instant" and back.timezone == "Europe/Berlin"
        with pytest.raises(ValueError, match="not a chat setting"):
            chats.update_chat(session, chat_id=-1001, active=False)


def test_chats_read_by_id_at_once(any_database: Database) -> None:
    with any_database.session() as session:
        for chat_id in (-1001, 5, 7):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=NOW)
        chats.update_chat(session, chat_id=7, mode="instant")
        found = chats.get_chats(session, chat_ids=[7, -1001, 99])  # 99: never stored
        assert found == {c: chats.get_chat(session, chat_id=c) for c in (7, -1001)}
        assert found[7].mode == "instant"
        assert chats.get_chats(session, chat_ids=[]) == {}


def test_the_ledger_is_unique_per_chat_paper_and_revision(any_database: Database) -> None:
    with any_database.session() as session:
        chats.register_chat(session, chat_id=5, kind="private", now=NOW)
        first, second = stored_papers(session, 2)
        rows = [(5, first, 0, [1]), (5, second, 0, [1, 2])]
        assert deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW) == 2
        again = [(5, first, 0, [3]), (5, first, 2, [1])]
        assert (
            deliveries.add_deliveries(session, rows=[NewDeliveries.of(again)], now=NOW) == 1
        )  # only the update
        ledger = deliveries.all_deliveries(session, chat_id=5)
        assert [(r.paper_id, r.revision, r.filter_ids) for r in ledger] == [
            (first, 0, [1]), (second, 0, [1, 2]), (first, 2, [1]),
        ]  # fmt: skip
        ids = [r.id for r in ledger]
        connection = session.connection()
        deliveries.mark_deliveries(connection, delivery_ids=ids[:2], status="sending", now=NOW)
        assert leases.reset_unclaimed_sending(session, now=NOW) == 2
        deliveries.mark_deliveries(
            connection, delivery_ids=ids[:1], status="sent", now=NOW, message_id=9
        )
        assert deliveries.fail_chat_deliveries(session, chat_id=5, reason="blocked") == 2
        assert deliveries.count_deliveries(session, chat_id=5) == {"sent": 1, "failed": 2}


def test_a_migrated_group_takes_its_filters_and_ledger_along(any_database: Database) -> None:
    with any_database.session() as session:
        chats.register_chat(session, chat_id=-5, kind="group", now=NOW)
        chats.update_chat(session, chat_id=-5, mode="instant")
        filters.add_filter(session, chat_id=-5, source="mamba", canonical="mamba", now=NOW)
        [paper_id] = stored_papers(session, 1)
        deliveries.add_deliveries(
            session, rows=[NewDeliveries.of([(-5, paper_id, 0, [1])])], now=NOW
        )
        assert chats.move_chat(session, old_id=-5, new_id=-1005)
        assert not chats.move_chat(session, old_id=-5, new_id=-1005)
        moved = chats.get_chat(session, chat_id=-1005)
        assert moved is not None and moved.mode == "instant" and moved.kind == "supergroup"
        assert [f.source for f in filters.chat_filters(session, chat_id=-1005)] == ["mamba"]
        assert len(deliveries.all_deliveries(session, chat_id=-1005)) == 1
        assert chats.get_chat(session, chat_id=-5) is None


def test_forgetting_a_chat_deletes_everything_about_it(any_database: Database) -> None:
    with any_database.session() as session:
        for chat_id in (1, 2):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=NOW)
            filters.add_filter(session, chat_id=chat_id, source="x", canonical="x", now=NOW)
        [paper_id] = stored_papers(session, 1)
        rows = [(1, paper_id, 0, [1]), (2, paper_id, 0, [2])]
        deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=NOW)
        assert chats.forget_chat(session, chat_id=1)
        assert chats.get_chat(session, chat_id=1) is None
        assert filters.chat_filters(session, chat_id=1) == []
        assert deliveries.all_deliveries(session, chat_id=1) == []
        assert (
            filters.count_filters(session) == 1
            and len(deliveries.all_deliveries(session, chat_id=2)) == 1
        )


def test_filters_are_read_by_id_however_many(any_database: Database) -> None:
    """The first planning reads every filter by id: more ids than one statement may bind
    (PostgreSQL binds at most 65,535 parameters in one)."""
    with any_database.session() as session:
        chats.register_chat(session, chat_id=1, kind="private", now=NOW)
        for n in range(5):
            filters.add_filter(session, chat_id=1, source=f"w{n}", canonical=f"w{n}", now=NOW)
        owners = filters.active_filter_owners(session)
        wanted = sorted({*owners, *range(10_000, 80_000)})  # ids of filters since removed too
        found = filters.get_filters(session, filter_ids=wanted)
    assert found.keys() == owners.keys() and len(owners) == 5
    assert {f.source for f in found.values()} == {f"w{n}" for n in range(5)}
