"""Ranking, with a real database and real models: a chat's 👍 put its topic first in its digest,
with a reason; a chat without ratings keeps the usual order; the models are stored and come back
after a restart; ratings go with /stop."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

import pytest

from bot.core.chat import Chat
from bot.core.paper import Paper
from bot.core.query import FilterRules
from bot.sender import Limits, Sender
from bot.service import feedback, subscriptions
from bot.service.delivery import Postman
from bot.service.planning import Planner
from bot.service.preview import RecentPapers
from bot.service.ranking import Ranker
from bot.store import Database, chats, filters, papers
from bot.store import feedback as stored_feedback
from tests.conftest import Clock
from tests.corpus import TOPICS, mixed_day, topic_of, topic_papers
from tests.transports import RecordingTransport

FAN, CONTROL = 1, 2  # FAN likes the kv cache papers; CONTROL rates nothing
DAY_ONE, DAY_TWO = date(2026, 7, 1), date(2026, 7, 2)


async def noop_sleep(seconds: float) -> None:
    return None


def arrive(database: Database, clock: Clock, batch: list[Paper]) -> None:
    with database.session() as session:
        papers.insert_papers(session, papers=batch, now=clock())
    Planner(FilterRules()).plan(database, now=clock())


def postman(database: Database, clock: Clock, transport: RecordingTransport) -> Postman:
    sender = Sender(transport, Limits.off(), sleep=noop_sleep, monotonic=lambda: 0.0)
    ranker = Ranker(database, clock=clock)
    return Postman(database, sender, clock=clock, rules=FilterRules(), ranker=ranker)


def listed_titles(texts: list[str]) -> list[str]:
    return re.findall(r"<b>\d+\. (?:<a [^>]*>)?([^<]+)", "".join(texts))


@pytest.fixture
def day_two(database: Database, clock: Clock) -> list[Paper]:
    """Two chats follow every paper ("we" is in every abstract); a first day arrives and is sent;
    FAN likes four of its kv cache papers and dislikes two vision papers; a second day
    arrives."""
    with database.session() as session:
        for chat_id in (FAN, CONTROL):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=clock())
            filters.add_filter(session, chat_id=chat_id, source="we", canonical="we", now=clock())
    arrive(database, clock, mixed_day(DAY_ONE, 10, first_id=1))
    liked = [p.arxiv_id for p in topic_papers("kv", 4, first_id=1, day=DAY_ONE)]
    disliked = [p.arxiv_id for p in topic_papers("vision", 2, first_id=21, day=DAY_ONE)]
    now = clock()
    assert len(feedback.rate_ids(database, chat_id=FAN, arxiv_ids=liked, value=1, now=now).rated)
    feedback.rate_ids(database, chat_id=FAN, arxiv_ids=disliked, value=-1, now=now)
    second = mixed_day(DAY_TWO, 5, first_id=100, seed=2)
    return second


async def test_a_chats_likes_put_its_topic_first_with_a_reason(
    database: Database,
    clock: Clock,
    day_two: list[Paper],
) -> None:
    transport = RecordingTransport()
    post = postman(database, clock, transport)
    for chat_id in (FAN, CONTROL):  # day one's digest: sent, out of the way
        await post.digest_now(chats_of(database, chat_id))
    arrive(database, clock, day_two)
    transport.sent = []
    await post.digest_now(chats_of(database, FAN))
    await post.digest_now(chats_of(database, CONTROL))
    kv = {p.title for p in day_two if topic_of(p) == "kv"}
    fan = listed_titles(transport.texts(FAN))
    control = listed_titles(transport.texts(CONTROL))
    assert sorted(fan) == sorted(control) and len(fan) == 20
    assert set(fan[:5]) == kv  # the liked topic first
    assert set(control[:5]) != kv  # without ratings: the usual order
    fan_text = "".join(transport.texts(FAN))
    assert "★" not in "".join(transport.texts(CONTROL))
    reasons = re.findall(r"Ranked up for you:</i> ([^\n]+)", fan_text)
    assert len(reasons) == 5  # the best five say why, in terms of the liked topic
    kv_words = {word for phrase in TOPICS["kv"] for word in phrase.split()}
    assert all(set(reason.replace(",", " ").split()) & kv_words for reason in reasons)


def chats_of(database: Database, chat_id: int) -> Chat:
    with database.session() as session:
        found = chats.get_chat(session, chat_id=chat_id)
    assert found is not None
    return found


async def test_models_are_stored_and_a_restart_does_not_retrain(
    database: Database,
    clock: Clock,
    day_two: list[Paper],
) -> None:
    arrive(database, clock, day_two)
    first = Ranker(database, clock=clock)
    candidates = {i: p for i, p in enumerate(day_two)}
    scores = first.rank(FAN, candidates)
    assert first.rank(CONTROL, candidates) == {}  # no ratings, no model
    with database.session() as session:
        assert stored_feedback.chat_model(session, chat_id=FAN) is not None
        assert stored_feedback.text_model(session) is not None
    again = Ranker(database, clock=clock)
    assert again.rank(FAN, candidates) == scores  # loaded, the same scores
    assert again.stale == set() and again.models[FAN] is not None
    feedback.rate_ids(
        database, chat_id=FAN, arxiv_ids=[day_two[0].arxiv_id or ""], value=-1, now=clock()
    )
    again.changed(FAN)  # outside the event loop: trained when next ranked
    assert again.rank(FAN, candidates)[0].value < scores[0].value


async def test_fewer_than_three_likes_rank_nothing_and_stop_forgets(
    database: Database,
    clock: Clock,
    day_two: list[Paper],
) -> None:
    with database.session() as session:
        chats.register_chat(session, chat_id=3, kind="private", now=clock())
    ids = [p.arxiv_id or "" for p in topic_papers("kv", 2, first_id=1, day=DAY_ONE)]
    feedback.rate_ids(database, chat_id=3, arxiv_ids=ids, value=1, now=clock())
    ranker = Ranker(database, clock=clock)
    assert ranker.rank(3, {1: day_two[0]}) == {}
    assert feedback.counts(database, chat_id=3) == (2, 0)
    assert feedback.export_lines(database, chat_id=3) == [f"👍 {i}" for i in ids]
    with database.session() as session:
        chats.forget_chat(session, chat_id=3)
    assert feedback.counts(database, chat_id=3) == (0, 0)


def test_subscribe_examples_come_in_the_chats_order(
    database: Database,
    clock: Clock,
    day_two: list[Paper],
) -> None:
    arrive(database, clock, day_two)
    ranker = Ranker(database, clock=clock)
    kv = {p.title for p in topic_papers("kv", 10, first_id=1, day=DAY_ONE)}
    kv |= {p.title for p in day_two if topic_of(p) == "kv"}
    shown = {}
    for chat_id in (FAN, CONTROL):
        saved = subscriptions.subscribe(
            database,
            chat_id=chat_id,
            source="method",
            rules=FilterRules(),
            now=clock(),
            recent=RecentPapers(database),
            scores=ranker.scores(chat_id),
        )
        assert isinstance(saved, subscriptions.Subscribed) and saved.recent.count == 60
        shown[chat_id] = saved.recent.titles
    assert set(shown[FAN]) <= kv  # the liked topic's papers as examples
    assert not set(shown[CONTROL]) <= kv  # no model: the stored order


async def test_a_ranked_digests_pages_add_up_whatever_is_rated_between_them(
    database: Database, clock: Clock, day_two: list[Paper]
) -> None:
    """FAN's ranked digest of 20 papers, 6 a page, that likes vision papers and not graph ones,
    so the best of what is behind the button is not the oldest (a graph paper); between presses
    of "more" it rates papers (its model retrains, its scores change) and the bot restarts;
    every paper is listed once (before pages kept their order, 8 of the 14 were lost)."""
    transport = RecordingTransport()
    post = postman(database, clock, transport)
    await post.digest_now(chats_of(database, FAN))  # day one's digest, out of the way
    liked = [p.arxiv_id for p in topic_papers("vision", 2, first_id=21, day=DAY_ONE)]
    feedback.rate_ids(database, chat_id=FAN, arxiv_ids=liked, value=1, now=clock())
    disliked = [p.arxiv_id for p in topic_papers("graph", 3, first_id=11, day=DAY_ONE)]
    feedback.rate_ids(database, chat_id=FAN, arxiv_ids=disliked, value=-1, now=clock())
    assert post.composer.ranker
    post.composer.ranker.changed(FAN)
    arrive(database, clock, day_two)
    with database.session() as session:
        chats.update_chat(session, chat_id=FAN, digest_page=6)
    transport.sent = []
    await post.digest_now(chats_of(database, FAN))
    pages = [listed_titles(transport.texts(FAN))]
    press = transport.sent[-1].buttons[-1][0].data
    vision = [p.arxiv_id for p in day_two if topic_of(p) == "vision"]
    while press.startswith("more:"):
        row_id, number = (int(part) for part in press.split(":")[1:])
        rated = vision[len(pages) - 1 : len(pages)]  # a 👍 more each page: the order would move
        feedback.rate_ids(database, chat_id=FAN, arxiv_ids=rated, value=1, now=clock())
        post = postman(database, clock, transport)  # a restart: nothing kept in memory
        assert post.composer.ranker
        post.composer.ranker.changed(FAN)
        transport.sent = []
        assert await post.send_page(chats_of(database, FAN), row_id, number)
        pages.append(listed_titles(transport.texts(FAN)))
        press = next((b.data for b in transport.sent[-1].buttons[-1] if "more" in b.data), "")
    listed = [title for page in pages for title in page]
    assert [len(page) for page in pages] == [6, 6, 6, 2]
    assert sorted(listed) == sorted(p.title for p in day_two)  # each once, none lost


async def test_a_category_the_likes_share_lifts_other_papers_listed_in_it(
    database: Database, clock: Clock
) -> None:
    """FAN's four 👍 kv cache papers are listed in cs.DC (and cs.LG, as every paper): on the
    next day the two vision papers also listed in cs.DC come before the other vision papers."""

    def in_dc(paper: Paper) -> Paper:
        return replace(paper, categories=("cs.DC", "cs.LG"))

    with database.session() as session:
        chats.register_chat(session, chat_id=FAN, kind="private", now=clock())
        filters.add_filter(session, chat_id=FAN, source="we", canonical="we", now=clock())
    first = [in_dc(p) if topic_of(p) == "kv" else p for p in mixed_day(DAY_ONE, 10, first_id=1)]
    arrive(database, clock, first)
    liked = [p.arxiv_id for p in first if topic_of(p) == "kv"][:4]
    feedback.rate_ids(database, chat_id=FAN, arxiv_ids=liked, value=1, now=clock())
    transport = RecordingTransport()
    post = postman(database, clock, transport)
    await post.digest_now(chats_of(database, FAN))  # day one's digest: sent, out of the way
    second = mixed_day(DAY_TWO, 5, first_id=100, seed=2)
    vision = [p for p in second if topic_of(p) == "vision"]
    lifted = {p.title for p in vision[:2]}
    arrive(database, clock, [in_dc(p) if p.title in lifted else p for p in second])
    transport.sent = []
    await post.digest_now(chats_of(database, FAN))
    order = [t for t in listed_titles(transport.texts(FAN)) if t in {p.title for p in vision}]
    assert len(order) == 5
    assert set(order[:2]) == lifted
