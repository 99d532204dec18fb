"""Forum topics on a real database and a recording transport: each filter's papers go to its
topic, a digest for each topic that has papers, a paper that filters of two topics matched once,
and a closed or deleted topic falls back to General once, with a notice, losing nothing."""

from __future__ import annotations

import pytest

from bot.core.buttons import Keyboard
from bot.core.chat import Filter
from bot.core.query import FilterRules
from bot.sender import Limits, Sender, Transient
from bot.service import subscriptions
from bot.service.delivery import DigestSent, Postman, SendReport
from bot.store import Database, chats, filters
from tests.conftest import Clock
from tests.service.test_delivery import (
    BENICE,
    ELASTICKV,
    HASSANI,
    Post,
    Sleeps,
    seeds_arrive,
    titles,
)
from tests.transports import RecordingTransport

LAB = -1001  # a forum supergroup
THEORY, VISION = 10, 20  # its topics' message thread ids


@pytest.fixture
def post(database: Database, clock: Clock) -> Post:
    transport, sleeps = RecordingTransport(), Sleeps()
    sender = Sender(transport, Limits.off(), sleep=sleeps, monotonic=lambda: 0.0)
    postman = Postman(database, sender, clock=clock, rules=FilterRules())
    return Post(database, transport, sleeps, postman)


def lab(post: Post, clock: Clock, *followed: tuple[str, int | None], **settings: object) -> None:
    """The lab's group, following each (filter, topic) in that order."""
    with post.database.session() as session:
        chats.register_chat(session, chat_id=LAB, kind="supergroup", now=clock())
        if settings:
            chats.update_chat(session, chat_id=LAB, **settings)
        for source, topic in followed:
            filters.add_filter(
                session, chat_id=LAB, source=source, canonical=source, now=clock(), topic=topic
            )


def lab_filters(post: Post) -> list[Filter]:
    with post.database.session() as session:
        return filters.chat_filters(session, chat_id=LAB)


def every_title(post: Post) -> list[str]:
    return [t for message in post.transport.texts(LAB) for t in titles(message)]


async def test_instant_alerts_go_to_their_filters_topics(post: Post, clock: Clock) -> None:
    lab(post, clock, ('"kv cache"', THEORY), ("au:Hassani", None), mode="instant")
    seeds_arrive(post, clock)
    report = await post.postman.deliver_instant()
    assert report == SendReport(messages=2, sent=3)
    [general] = post.transport.in_topic(LAB, None)
    [theory] = post.transport.in_topic(LAB, THEORY)
    assert titles(general) == [HASSANI]
    assert titles(theory) == [BENICE, ELASTICKV]
    assert {status for status, _, _ in post.ledger(LAB)} == {"sent"}


async def test_a_digest_for_each_topic_that_has_papers(post: Post, clock: Clock) -> None:
    lab(post, clock, ('"kv cache"', THEORY), ("au:Hassani", None), ("mamba", VISION))
    seeds_arrive(post, clock)
    clock.advance(minutes=5)
    chat = post.chat(LAB)
    assert await post.postman.digest_now(chat) == DigestSent(3, complete=True)
    [general] = post.transport.in_topic(LAB, None)
    [theory] = post.transport.in_topic(LAB, THEORY)
    assert post.transport.in_topic(LAB, VISION) == []  # nothing matched there: no digest
    assert general.startswith("<b>Your digest: the 22 Oct 2026 announcement</b>: 1 new paper\n")
    assert theory.startswith("<b>Your digest: the 22 Oct 2026 announcement</b>: 2 new papers\n")
    assert titles(general) == [HASSANI] and titles(theory) == [BENICE, ELASTICKV]
    assert post.chat(LAB).last_digest_at == clock()
    assert {status for status, _, _ in post.ledger(LAB)} == {"sent"}


async def test_digests_per_topic_at_the_groups_hour(post: Post, clock: Clock) -> None:
    lab(post, clock, ('"kv cache"', THEORY), ("au:Hassani", VISION), digest_time="13:00")
    seeds_arrive(post, clock)
    assert await post.postman.digest_tick() == SendReport()
    clock.advance(hours=1)
    assert await post.postman.digest_tick() == SendReport(messages=2, sent=3, digests=1)
    assert [m.topic for m in post.transport.sent] == [THEORY, VISION]
    assert await post.postman.digest_tick() == SendReport()  # once a day, all topics


async def test_a_paper_two_topics_match_goes_once_to_the_first_filters(
    post: Post, clock: Clock
) -> None:
    # filter 1 (vision) and filter 2 (theory) both match BeNice: it goes to filter 1's topic
    lab(post, clock, ("ti:BeNice", VISION), ('"kv cache"', THEORY), mode="instant")
    seeds_arrive(post, clock)
    await post.postman.deliver_instant()
    assert [titles(t) for t in post.transport.in_topic(LAB, VISION)] == [[BENICE]]
    assert [titles(t) for t in post.transport.in_topic(LAB, THEORY)] == [[ELASTICKV]]
    assert sorted(every_title(post)) == sorted([BENICE, ELASTICKV])  # never twice
    assert len(post.ledger(LAB)) == 2


async def test_a_paper_whose_first_filter_was_removed_goes_to_the_next_ones_topic(
    post: Post, clock: Clock
) -> None:
    lab(post, clock, ("ti:BeNice", VISION), ('"kv cache"', THEORY))
    seeds_arrive(post, clock)
    subscriptions.unsubscribe(post.database, chat_id=LAB, numbers=[1])
    await post.postman.digest_now(post.chat(LAB))
    [theory] = post.transport.in_topic(LAB, THEORY)
    assert titles(theory) == [BENICE, ELASTICKV]
    assert [m.topic for m in post.transport.sent] == [THEORY]


async def test_moving_a_filter_moves_what_waits_for_it(post: Post, clock: Clock) -> None:
    lab(post, clock, ('"kv cache"', THEORY))
    seeds_arrive(post, clock)
    moved = subscriptions.move_filter(post.database, chat_id=LAB, number=1, topic=VISION)
    assert isinstance(moved, subscriptions.Moved) and moved.topic == VISION
    assert subscriptions.move_filter(
        post.database, chat_id=LAB, number=2, topic=None
    ) == subscriptions.NoSuchFilter(2, 1)
    await post.postman.digest_now(post.chat(LAB))
    assert [m.topic for m in post.transport.sent] == [VISION]
    subscriptions.move_filter(post.database, chat_id=LAB, number=1, topic=None)
    assert [f.topic for f in lab_filters(post)] == [None]


async def test_a_closed_topic_falls_back_to_general_once_and_says_so(
    post: Post, clock: Clock
) -> None:
    lab(post, clock, ('"kv cache"', THEORY), ("au:Hassani", VISION), mode="instant")
    post.transport.gone_topics.add((LAB, THEORY))
    seeds_arrive(post, clock)
    report = await post.postman.deliver_instant()
    assert report.sent == 3 and report.waiting == report.failed == 0
    assert [m.topic for m in post.transport.refused] == [THEORY]  # tried there once
    notice, alert = post.transport.in_topic(LAB, None)
    assert notice.startswith("Administrators: topic 10 is closed or was deleted, so filter 1 ")
    assert "<code>/topic 1</code>" in notice
    assert titles(alert) == [BENICE, ELASTICKV]
    assert titles(post.transport.in_topic(LAB, VISION)[0]) == [HASSANI]
    assert [f.topic for f in lab_filters(post)] == [None, VISION]  # unbound, the other kept
    assert {status for status, _, _ in post.ledger(LAB)} == {"sent"}
    assert sorted(every_title(post)) == sorted([BENICE, ELASTICKV, HASSANI])  # once each


async def test_a_digest_whose_topic_is_gone_comes_to_general_whole(
    post: Post, clock: Clock
) -> None:
    lab(post, clock, ('"kv cache"', THEORY), ("au:Hassani", None), digest_page=1)
    post.transport.gone_topics.add((LAB, THEORY))
    seeds_arrive(post, clock)
    clock.advance(minutes=5)
    assert await post.postman.digest_now(post.chat(LAB)) == DigestSent(3, complete=True)
    general = post.transport.in_topic(LAB, None)
    assert titles(general[0]) == [HASSANI]  # General's own digest first
    assert general[1].startswith("Administrators: topic 10 is closed")
    assert general[2].startswith("<b>Your digest")  # then topic 10's, in General
    assert post.transport.in_topic(LAB, THEORY) == []
    assert len(post.transport.refused) == 1
    assert {status for status, _, _ in post.ledger(LAB)} == {"sent"}
    assert post.chat(LAB).last_digest_at == clock()


async def test_pages_and_cards_go_to_the_topic_of_the_button(post: Post, clock: Clock) -> None:
    lab(post, clock, ('"kv cache"', THEORY), digest_page=1)
    seeds_arrive(post, clock)
    await post.postman.digest_now(post.chat(LAB))
    [digest] = post.transport.sent
    [[more]] = [row for row in digest.buttons if "more" in row[0].label]
    row_id = int(more.data.split(":")[1])
    assert await post.postman.send_page(post.chat(LAB), row_id, 2, topic=THEORY)
    assert [m.topic for m in post.transport.sent] == [THEORY, THEORY]
    assert await post.postman.send_card(LAB, row_id, topic=THEORY)
    assert [m.topic for m in post.transport.sent] == [THEORY, THEORY, THEORY]


class DownInGeneral(RecordingTransport):
    """Refuses the gone topics, and while `down`, fails every message to General as Telegram
    failing for minutes does (a 502 at every attempt)."""

    down = True

    async def send(
        self,
        chat_id: int,
        text: str,
        *,
        html: bool = True,
        buttons: Keyboard = (),
        silent: bool = False,
        topic: int | None = None,
    ) -> int:
        if self.down and topic is None:
            raise Transient("502 Bad Gateway")
        return await super().send(
            chat_id, text, html=html, buttons=buttons, silent=silent, topic=topic
        )


async def test_a_topic_gone_while_general_fails_too_waits_and_tells_once(
    database: Database, clock: Clock
) -> None:
    transport = DownInGeneral()
    sender = Sender(transport, Limits.off(), sleep=Sleeps(), monotonic=lambda: 0.0)
    post = Post(
        database, transport, Sleeps(), Postman(database, sender, clock=clock, rules=FilterRules())
    )
    lab(post, clock, ('"kv cache"', THEORY), mode="instant")
    transport.gone_topics.add((LAB, THEORY))
    seeds_arrive(post, clock)
    report = await post.postman.deliver_instant()
    assert report.waiting == 2 and report.sent == 0  # neither the notice nor the papers went
    assert [f.topic for f in lab_filters(post)] == [THEORY]  # not told: still bound
    assert post.ledger(LAB) == [("pending", None, None)] * 2

    transport.down = False  # Telegram is back: the topic is met again, and this time told
    report = await post.postman.deliver_instant()
    assert report.sent == 2 and report.waiting == 0
    notice, alert = transport.in_topic(LAB, None)
    assert notice.startswith("Administrators: topic 10 is closed")
    assert titles(alert) == [BENICE, ELASTICKV]
    assert [f.topic for f in lab_filters(post)] == [None]
    assert {status for status, _, _ in post.ledger(LAB)} == {"sent"}
    assert len(transport.refused) == 2  # once a round, and never again
    assert (await post.postman.deliver_instant()) == SendReport()
