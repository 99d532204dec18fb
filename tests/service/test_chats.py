"""A chat's life: registered on first contact, its settings changed, forgotten, made
unreachable, moved to a supergroup."""

from __future__ import annotations

import pytest

from bot.core.query import FilterRules
from bot.service import chats, ingest, subscriptions
from bot.service.planning import Planner
from bot.service.preview import RecentPapers
from bot.store import Database, deliveries
from bot.store import chats as stored_chats
from tests.conftest import SEEDS, Clock


def with_ledger(database: Database, clock: Clock, *chat_ids: int, kind: str = "private") -> None:
    """The chats follow "kv cache" and two seed papers wait for each."""
    for chat_id in chat_ids:
        chats.enter(database, chat_id=chat_id, kind=kind, now=clock())
        subscriptions.subscribe(
            database,
            chat_id=chat_id,
            source="KV-cache",
            rules=FilterRules(),
            now=clock(),
            recent=RecentPapers(database),
        )
    ingest.ingest_paths(database, [SEEDS], clock=clock)
    Planner(FilterRules()).plan(database, now=clock())


def ledger(database: Database, chat_id: int) -> list[tuple[str, str | None]]:
    with database.session() as session:
        return [(r.status, r.reason) for r in deliveries.all_deliveries(session, chat_id=chat_id)]


def test_enter_registers_a_chat_with_the_defaults(any_database: Database, clock: Clock) -> None:
    chat = chats.enter(any_database, chat_id=5, kind="private", now=clock())
    assert (chat.id, chat.kind, chat.mode, chat.digest_time, chat.timezone) == (
        5, "private", "digest", "08:00", "UTC",
    )  # fmt: skip
    assert (chat.updates, chat.paused, chat.active, chat.inactive_reason) == (
        False, False, True, None,
    )  # fmt: skip
    assert chat.created_at == chat.last_digest_at == clock()


def test_enter_again_keeps_the_chat_as_it_was(any_database: Database, clock: Clock) -> None:
    first = chats.enter(any_database, chat_id=5, kind="private", now=clock())
    chats.change(any_database, chat_id=5, mode="instant")
    clock.advance(days=1)
    chat = chats.enter(any_database, chat_id=5, kind="private", now=clock())
    assert (chat.mode, chat.created_at, chat.last_digest_at) == (
        "instant", first.created_at, first.last_digest_at,
    )  # fmt: skip


def test_enter_brings_an_unreachable_chat_back(any_database: Database, clock: Clock) -> None:
    chats.enter(any_database, chat_id=5, kind="private", now=clock())
    chats.mark_unreachable(any_database, chat_id=5, reason="blocked")
    with any_database.session() as session:
        gone = stored_chats.get_chat(session, chat_id=5)
    assert gone is not None and (gone.active, gone.inactive_reason) == (False, "blocked")
    back = chats.enter(any_database, chat_id=5, kind="private", now=clock())
    assert (back.active, back.inactive_reason) == (True, None)


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"mode": "instant"}, ("instant", "08:00", "UTC", False, False)),
        ({"digest_time": "21:30"}, ("digest", "21:30", "UTC", False, False)),
        ({"timezone": "Europe/Berlin"}, ("digest", "08:00", "Europe/Berlin", False, False)),
        ({"updates": True}, ("digest", "08:00", "UTC", True, False)),
        ({"paused": True}, ("digest", "08:00", "UTC", False, True)),
        ({"mode": "instant", "paused": True}, ("instant", "08:00", "UTC", False, True)),
    ],
)
def test_change_returns_the_chat_as_it_is_now(
    any_database: Database, clock: Clock, settings: dict[str, object], expected: tuple[object, ...]
) -> None:
    chats.enter(any_database, chat_id=5, kind="private", now=clock())
    chat = chats.change(any_database, chat_id=5, **settings)
    assert (chat.mode, chat.digest_time, chat.timezone, chat.updates, chat.paused) == expected
    again = chats.enter(any_database, chat_id=5, kind="private", now=clock())
    assert again == chat  # stored, not only returned


def test_change_refuses_what_is_not_a_setting(any_database: Database, clock: Clock) -> None:
    chats.enter(any_database, chat_id=5, kind="private", now=clock())
    with pytest.raises(ValueError, match="^not a chat setting: active, colour$"):
        chats.change(any_database, chat_id=5, colour="blue", active=False)
    with pytest.raises(LookupError, match="^chat 6 is not registered$"):
        chats.change(any_database, chat_id=6, mode="instant")


def test_forget_deletes_the_chat_its_filters_and_its_ledger(
    any_database: Database, clock: Clock
) -> None:
    with_ledger(any_database, clock, 5, 6)
    assert ledger(any_database, 5) == [("pending", None), ("pending", None)]
    assert chats.forget(any_database, chat_id=5)
    assert not chats.forget(any_database, chat_id=5)
    assert subscriptions.list_filters(any_database, chat_id=5) == []
    assert ledger(any_database, 5) == []
    with any_database.session() as session:
        assert stored_chats.get_chat(session, chat_id=5) is None
    assert ledger(any_database, 6) == [("pending", None), ("pending", None)]  # others untouched


def test_mark_unreachable_fails_what_waited_with_the_reason(
    any_database: Database, clock: Clock
) -> None:
    with_ledger(any_database, clock, 5)
    with any_database.session() as session:
        first = deliveries.all_deliveries(session, chat_id=5)[0]
        deliveries.mark_deliveries(
            session.connection(), delivery_ids=[first.id], status="sent", now=clock(), message_id=3
        )
    assert chats.mark_unreachable(any_database, chat_id=5, reason="blocked by the user") == 1
    assert ledger(any_database, 5) == [
        ("sent", None),
        ("failed", "undeliverable: blocked by the user"),
    ]
    assert chats.mark_unreachable(any_database, chat_id=5, reason="again") == 0


def test_move_takes_filters_settings_and_ledger_to_the_supergroup(
    any_database: Database, clock: Clock
) -> None:
    with_ledger(any_database, clock, -5, kind="group")
    chats.change(any_database, chat_id=-5, mode="instant", digest_time="07:15")
    assert chats.move(any_database, old_id=-5, new_id=-1005)
    assert not chats.move(any_database, old_id=-5, new_id=-1005)
    assert [f.source for f in subscriptions.list_filters(any_database, chat_id=-1005)] == [
        "KV-cache"
    ]
    assert subscriptions.list_filters(any_database, chat_id=-5) == []
    assert ledger(any_database, -1005) == [("pending", None), ("pending", None)]
    with any_database.session() as session:
        moved = stored_chats.get_chat(session, chat_id=-1005)
        assert stored_chats.get_chat(session, chat_id=-5) is None
    assert moved is not None
    assert (moved.kind, moved.mode, moved.digest_time) == ("supergroup", "instant", "07:15")


def test_move_of_an_unknown_chat_is_nothing(any_database: Database, clock: Clock) -> None:
    assert not chats.move(any_database, old_id=-5, new_id=-1005)
