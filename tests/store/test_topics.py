"""A filter's forum topic on SQLite and PostgreSQL: stored with it, moved, unbound when the
topic is gone, and kept when the chat moves to a new id."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.store import Database, chats, filters

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)
LAB, OTHER = -1001, -1002
BIG_TOPIC = 2**40  # thread ids are message ids: wider than 32 bits is allowed for


def test_a_filters_topic_is_stored_moved_and_unbound(any_database: Database) -> None:
    with any_database.session() as session:
        for chat_id in (LAB, OTHER):
            chats.register_chat(session, chat_id=chat_id, kind="supergroup", now=NOW)
        first = filters.add_filter(
            session, chat_id=LAB, source="a", canonical="a", now=NOW, topic=BIG_TOPIC
        )
        second = filters.add_filter(session, chat_id=LAB, source="b", canonical="b", now=NOW)
        third = filters.add_filter(
            session, chat_id=LAB, source="c", canonical="c", now=NOW, topic=BIG_TOPIC
        )
        elsewhere = filters.add_filter(
            session, chat_id=OTHER, source="a", canonical="a", now=NOW, topic=BIG_TOPIC
        )
    with any_database.session() as session:
        listed = filters.chat_filters(session, chat_id=LAB)
        assert [(f.source, f.topic) for f in listed] == [
            ("a", BIG_TOPIC),
            ("b", None),
            ("c", BIG_TOPIC),
        ]
        assert filters.set_filter_topic(session, chat_id=LAB, filter_id=second.id, topic=7)
        assert not filters.set_filter_topic(session, chat_id=OTHER, filter_id=second.id, topic=7)
    with any_database.session() as session:
        unbound = filters.unbind_topic(session, chat_id=LAB, topic=BIG_TOPIC)
        assert [f.id for f in unbound] == [first.id, third.id]
        assert filters.unbind_topic(session, chat_id=LAB, topic=BIG_TOPIC) == []  # once
    with any_database.session() as session:
        assert [f.topic for f in filters.chat_filters(session, chat_id=LAB)] == [None, 7, None]
        # another chat's topic of the same id is another topic
        assert filters.get_filters(session, filter_ids=[elsewhere.id])[elsewhere.id].topic == (
            BIG_TOPIC
        )


def test_topics_move_with_the_chat_and_a_chat_has_none_of_its_own(
    any_database: Database,
) -> None:
    with any_database.session() as session:
        chats.register_chat(session, chat_id=LAB, kind="group", now=NOW)
        filters.add_filter(session, chat_id=LAB, source="a", canonical="a", now=NOW, topic=5)
        assert chats.move_chat(session, old_id=LAB, new_id=OTHER)
    with any_database.session() as session:
        assert [f.topic for f in filters.chat_filters(session, chat_id=OTHER)] == [5]
        moved = chats.get_chat(session, chat_id=OTHER)
        assert moved is not None and moved.topic is None
