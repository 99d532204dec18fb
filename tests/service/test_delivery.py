"""The postman on a real database and a recording transport: each pending row sent once and marked
with its message id, Telegram's refusals and failures recorded, digests when each chat's local
hour has come. Nothing sleeps: the sender's sleep only records."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.core.chat import Chat
from bot.core.query import FilterRules
from bot.sender import (
    ChatGone,
    ChatMoved,
    Limits,
    Rejected,
    RetryLater,
    Sender,
    Transient,
)
from bot.service import ingest
from bot.service.delivery import DigestSent, NothingWaiting, Paused, Postman, SendReport
from bot.service.planning import Planner
from bot.store import Database, chats, deliveries, filters
from tests.conftest import SEEDS, Clock
from tests.corpus import rss, topic_papers
from tests.statements import statements
from tests.transports import Carried, RecordingTransport

KV_CHAT, HASSANI_CHAT = 1, 2  # "kv cache" matches two seed papers, au:Hassani one
BENICE = "BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing"
ELASTICKV = "ElasticKV: a mixed-fidelity KV runtime"
HASSANI = "When to Follow the Teacher: Advantage-Based On-Policy Distillation"
BACKOFFS = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0]  # between 8 attempts: doubling, to a minute


@dataclass
class Sleeps:
    seconds: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


@dataclass
class Post:
    database: Database
    transport: RecordingTransport
    sleeps: Sleeps
    postman: Postman

    def ledger(self, chat_id: int) -> list[tuple[str, int | None, str | None]]:
        with self.database.session() as session:
            rows = deliveries.all_deliveries(session, chat_id=chat_id)
        return [(r.status, r.message_id, r.reason) for r in rows]

    def chat(self, chat_id: int) -> Chat:
        with self.database.session() as session:
            found = chats.get_chat(session, chat_id=chat_id)
        assert found is not None
        return found


@pytest.fixture
def post(database: Database, clock: Clock) -> Post:
    transport, sleeps = RecordingTransport(), Sleeps()
    sender = Sender(transport, Limits.off(), sleep=sleeps, monotonic=lambda: 0.0)
    postman = Postman(database, sender, clock=clock, rules=FilterRules())
    return Post(database, transport, sleeps, postman)


def follow(post: Post, clock: Clock, chat_id: int, *sources: str, **settings: object) -> None:
    with post.database.session() as session:
        chats.register_chat(session, chat_id=chat_id, kind="private", now=clock())
        if settings:
            chats.update_chat(session, chat_id=chat_id, **settings)
        for source in sources:
            filters.add_filter(
                session, chat_id=chat_id, source=source, canonical=source, now=clock()
            )


def seeds_arrive(post: Post, clock: Clock) -> None:
    ingest.ingest_paths(post.database, [SEEDS], clock=clock)
    Planner(FilterRules()).plan(post.database, now=clock())


def instant_chats(post: Post, clock: Clock) -> None:
    follow(post, clock, KV_CHAT, '"kv cache"', mode="instant")
    follow(post, clock, HASSANI_CHAT, "au:Hassani", mode="instant")
    follow(post, clock, 3, "looped")  # digest mode: not part of instant rounds
    seeds_arrive(post, clock)


def titles(text: str) -> list[str]:
    """Which of the seed papers a message carries (by the start of their titles)."""
    return [
        t for t in (BENICE, ELASTICKV, HASSANI) if t in text.replace("<u>", "").replace("</u>", "")
    ]


# -- instant rounds ---------------------------------------------------------------------------


async def test_an_instant_round_sends_each_pending_row_once(post: Post, clock: Clock) -> None:
    instant_chats(post, clock)
    report = await post.postman.deliver_instant()
    assert report == SendReport(messages=2, sent=3)
    assert post.transport.chats() == [KV_CHAT, HASSANI_CHAT]
    [kv_alert] = post.transport.texts(KV_CHAT)
    assert titles(kv_alert) == [BENICE, ELASTICKV]
    assert titles(post.transport.texts(HASSANI_CHAT)[0]) == [HASSANI]
    assert post.ledger(KV_CHAT) == [("sent", 101, None), ("sent", 101, None)]
    assert post.ledger(HASSANI_CHAT) == [("sent", 102, None)]
    assert post.ledger(3) == [("pending", None, None)]
    assert post.sleeps.seconds == []


@pytest.mark.parametrize("style", [None, "full"])  # None: never chosen, the compact default
async def test_instant_alerts_follow_the_chats_layout(
    post: Post, clock: Clock, style: str | None
) -> None:
    """Compact (the default): each paper at a glance with the filter it matched, its abstract a
    card button away; full: every whole card, abstract quoted."""
    chosen = {"digest_style": style} if style else {}
    follow(post, clock, KV_CHAT, '"kv cache"', mode="instant", **chosen)
    seeds_arrive(post, clock)
    await post.postman.deliver_instant()
    [alert] = post.transport.sent
    assert titles(alert.text) == [BENICE, ELASTICKV]
    assert '"kv cache" (filter 1)' in alert.text
    labels = [[b.label for b in row] for row in alert.buttons]
    if style is None:
        assert "<blockquote" not in alert.text and "TL;DR" in alert.text
        # seeds: no arXiv id, no "more like this"
        assert labels == [["📄 1", "👍 1", "👎 1", "🔖 1"], ["📄 2", "👍 2", "👎 2", "🔖 2"]]
        post.transport.sent = []
        assert await post.postman.send_card(KV_CHAT, int(alert.buttons[0][0].data.split(":")[1]))
        assert "<blockquote expandable>" in post.transport.sent[0].text  # one tap away
    else:
        assert alert.text.count("<blockquote expandable>") == 2
        assert labels == [["👍 1", "👎 1", "🔖 1"], ["👍 2", "👎 2", "🔖 2"]]


async def test_an_instant_round_reads_its_chats_at_once_each_with_its_own_settings(
    post: Post, clock: Clock
) -> None:
    """Twenty instant chats: each alert in its own chat's layout and language, the chats read
    in one statement beside the round's quiet-hours read, not one statement a chat."""
    follow(post, clock, 1, '"kv cache"', mode="instant", digest_style="full")
    follow(post, clock, 2, '"kv cache"', mode="instant", language="de")
    for chat_id in range(3, 21):
        follow(post, clock, chat_id, '"kv cache"', mode="instant")
    seeds_arrive(post, clock)
    # whole chats read, not their claims
    whole_chats = re.compile(r"SELECT chat\.id, chat\.kind").match
    with statements(post.database.engine, whole_chats) as chat_reads:
        report = await post.postman.deliver_instant()
    assert report == SendReport(messages=20, sent=40)
    [full], [german], [compact] = (post.transport.texts(c) for c in (1, 2, 3))
    assert full.count("<blockquote expandable>") == 2 and "<blockquote" not in compact
    assert '"kv cache" (Filter 1)' in german and '"kv cache" (filter 1)' in compact
    assert len(chat_reads) == 2, chat_reads


async def test_a_second_round_sends_nothing(post: Post, clock: Clock) -> None:
    instant_chats(post, clock)
    await post.postman.deliver_instant()
    assert await post.postman.deliver_instant() == SendReport()
    assert len(post.transport.sent) == 2


async def test_a_chat_gone_is_made_inactive_and_its_rows_failed(post: Post, clock: Clock) -> None:
    instant_chats(post, clock)
    post.transport.errors[KV_CHAT] = [ChatGone("Forbidden: bot was blocked by the user")]
    report = await post.postman.deliver_instant()
    assert report == SendReport(messages=1, sent=1, failed=2, chats_gone=[KV_CHAT])
    failed = ("failed", None, "undeliverable: Forbidden: bot was blocked by the user")
    assert post.ledger(KV_CHAT) == [failed, failed]
    chat = post.chat(KV_CHAT)
    assert (chat.active, chat.inactive_reason) == (False, "Forbidden: bot was blocked by the user")
    assert post.ledger(HASSANI_CHAT) == [("sent", 101, None)]


async def test_telegram_failing_eight_times_leaves_the_rows_for_the_next_round(
    post: Post, clock: Clock
) -> None:
    instant_chats(post, clock)
    post.transport.errors[KV_CHAT] = [Transient("502 Bad Gateway") for _ in range(8)]
    report = await post.postman.deliver_instant()
    assert report == SendReport(messages=1, sent=1, waiting=2, retries=8)
    assert post.sleeps.seconds == BACKOFFS  # seven waits between eight attempts: none after
    assert post.ledger(KV_CHAT) == [("pending", None, None), ("pending", None, None)]
    again = await post.postman.deliver_instant()
    assert again == SendReport(messages=1, sent=2)
    assert post.ledger(KV_CHAT) == [("sent", 102, None), ("sent", 102, None)]


async def test_transient_failures_back_off_doubling_up_to_a_minute(
    post: Post, clock: Clock
) -> None:
    instant_chats(post, clock)
    post.transport.errors[KV_CHAT] = [Transient("timed out") for _ in range(7)]
    report = await post.postman.deliver_instant()
    assert (report.sent, report.retries, report.waiting) == (3, 7, 0)
    assert post.sleeps.seconds == BACKOFFS
    assert post.ledger(KV_CHAT) == [("sent", 101, None), ("sent", 101, None)]


async def test_flood_control_is_waited_out(post: Post, clock: Clock) -> None:
    instant_chats(post, clock)
    post.transport.errors[KV_CHAT] = [RetryLater(17)]
    report = await post.postman.deliver_instant()
    assert (report.sent, report.retries) == (3, 1)
    assert post.sleeps.seconds == [17]


async def test_html_refused_once_goes_as_plain_text(post: Post, clock: Clock) -> None:
    instant_chats(post, clock)
    post.transport.errors[KV_CHAT] = [Rejected("Bad Request: can't parse entities")]
    report = await post.postman.deliver_instant()
    assert (report.sent, report.failed) == (3, 0)
    [sent] = [m for m in post.transport.sent if m.chat_id == KV_CHAT]
    assert (
        sent.html is False and "<b>" not in sent.text and titles(sent.text) == [BENICE, ELASTICKV]
    )
    assert post.ledger(KV_CHAT) == [("sent", 101, None), ("sent", 101, None)]


async def test_plain_text_refused_too_marks_the_rows_failed(post: Post, clock: Clock) -> None:
    instant_chats(post, clock)
    post.transport.errors[KV_CHAT] = [Rejected("message is too long") for _ in range(2)]
    report = await post.postman.deliver_instant()
    assert report == SendReport(messages=1, sent=1, failed=2)
    failed = ("failed", None, "refused by Telegram: message is too long")
    assert post.ledger(KV_CHAT) == [failed, failed]
    assert post.chat(KV_CHAT).active
    assert await post.postman.deliver_instant() == SendReport()


async def test_a_moved_group_gets_its_rows_at_its_new_id(post: Post, clock: Clock) -> None:
    instant_chats(post, clock)
    post.transport.errors[KV_CHAT] = [ChatMoved(-1001)]
    report = await post.postman.deliver_instant()
    assert (report.sent, report.waiting) == (1, 2)
    assert post.ledger(KV_CHAT) == []
    assert post.ledger(-1001) == [("pending", None, None), ("pending", None, None)]
    assert await post.postman.deliver_instant() == SendReport(messages=1, sent=2)
    assert titles(post.transport.texts(-1001)[0]) == [BENICE, ELASTICKV]


async def test_resume_puts_rows_left_sending_back_to_pending(post: Post, clock: Clock) -> None:
    instant_chats(post, clock)
    with post.database.session() as session:
        ids = [r.id for r in deliveries.all_deliveries(session, chat_id=KV_CHAT)]
        deliveries.mark_deliveries(
            session.connection(), delivery_ids=ids, status="sending", now=clock()
        )
    assert post.ledger(KV_CHAT) == [("sending", None, None), ("sending", None, None)]
    assert post.postman.resume() == 2
    assert post.ledger(KV_CHAT) == [("pending", None, None), ("pending", None, None)]
    assert post.postman.resume() == 0


# -- digests ----------------------------------------------------------------------------------


async def test_digest_now(post: Post, clock: Clock) -> None:
    follow(post, clock, KV_CHAT, '"kv cache"')
    follow(post, clock, HASSANI_CHAT, "mamba")
    follow(post, clock, 3, "looped", paused=True)
    seeds_arrive(post, clock)
    clock.advance(minutes=5)
    assert await post.postman.digest_now(post.chat(3)) == Paused()
    assert await post.postman.digest_now(post.chat(HASSANI_CHAT)) == NothingWaiting()
    assert await post.postman.digest_now(post.chat(KV_CHAT)) == DigestSent(2, complete=True)
    [digest] = post.transport.texts(KV_CHAT)
    assert digest.startswith("<b>Your digest: the 22 Oct 2026 announcement</b>: 2 new papers\n")
    assert titles(digest) == [BENICE, ELASTICKV]
    assert post.ledger(KV_CHAT) == [("sent", 101, None), ("sent", 101, None)]
    assert post.chat(KV_CHAT).last_digest_at == clock()
    assert post.transport.texts(HASSANI_CHAT) == post.transport.texts(3) == []
    assert await post.postman.digest_now(post.chat(KV_CHAT)) == NothingWaiting()


async def test_digest_now_when_telegram_keeps_failing(post: Post, clock: Clock) -> None:
    follow(post, clock, KV_CHAT, '"kv cache"')
    seeds_arrive(post, clock)
    start = clock()
    clock.advance(minutes=5)
    post.transport.errors[KV_CHAT] = [Transient("502 Bad Gateway") for _ in range(8)]
    assert await post.postman.digest_now(post.chat(KV_CHAT)) == DigestSent(0, complete=False)
    assert post.ledger(KV_CHAT) == [("pending", None, None), ("pending", None, None)]
    assert post.chat(KV_CHAT).last_digest_at == start  # the digest is still owed


async def test_digests_go_when_each_chats_local_hour_has_passed(post: Post, clock: Clock) -> None:
    # 12:00 UTC: 21:00 in Tokyo
    follow(post, clock, KV_CHAT, '"kv cache"', digest_time="13:00")
    follow(post, clock, HASSANI_CHAT, "au:Hassani", digest_time="08:00", timezone="Asia/Tokyo")
    follow(post, clock, 3, "looped", digest_time="13:00", paused=True)
    follow(post, clock, 4, "looped", digest_time="13:00", mode="instant")
    seeds_arrive(post, clock)
    assert await post.postman.digest_tick() == SendReport()
    clock.advance(minutes=59)
    assert await post.postman.digest_tick() == SendReport()
    clock.advance(minutes=1)  # 13:00 UTC
    assert await post.postman.digest_tick() == SendReport(messages=1, sent=2, digests=1)
    assert post.transport.chats() == [KV_CHAT]
    assert await post.postman.digest_tick() == SendReport()  # once a day
    clock.advance(hours=10)  # 23:00 UTC: 08:00 in Tokyo
    assert await post.postman.digest_tick() == SendReport(messages=1, sent=1, digests=1)
    assert post.transport.chats() == [KV_CHAT, HASSANI_CHAT]
    assert post.ledger(HASSANI_CHAT) == [("sent", 102, None)]
    assert post.ledger(3) == post.ledger(4) == [("pending", None, None)]


async def test_a_digest_missed_while_down_goes_at_the_next_tick(post: Post, clock: Clock) -> None:
    follow(post, clock, KV_CHAT, '"kv cache"', digest_time="13:00")
    seeds_arrive(post, clock)
    clock.advance(days=2)
    assert await post.postman.digest_tick() == SendReport(messages=1, sent=2, digests=1)
    assert await post.postman.digest_tick() == SendReport()


async def test_quiet_hours_hold_digests_and_alerts_or_silence_them(
    post: Post, clock: Clock
) -> None:
    """12:00 UTC, quiet hours 11:00-14:00: a 13:00 digest waits for 14:00 and an instant chat's
    alerts too; set to silent, they go at once without a notification."""
    quiet = {"quiet_from": "11:00", "quiet_to": "14:00"}
    follow(post, clock, KV_CHAT, '"kv cache"', digest_time="13:00", **quiet)
    follow(post, clock, HASSANI_CHAT, "au:Hassani", mode="instant", **quiet)
    follow(post, clock, 3, "looped", mode="instant", quiet_silent=True, **quiet)
    seeds_arrive(post, clock)
    clock.advance(hours=1, minutes=30)  # 13:30
    assert await post.postman.digest_tick() == SendReport()
    assert await post.postman.deliver_instant() == SendReport(messages=1, sent=1)
    assert [(m.chat_id, m.silent) for m in post.transport.sent] == [(3, True)]
    clock.advance(minutes=30)  # 14:00: over
    assert await post.postman.digest_tick() == SendReport(messages=1, sent=2, digests=1)
    assert await post.postman.deliver_instant() == SendReport(messages=1, sent=1)
    sent = [(m.chat_id, m.silent) for m in post.transport.sent]
    assert sent == [(3, True), (KV_CHAT, False), (HASSANI_CHAT, False)]


@pytest.mark.parametrize(
    ("listing_arrives", "line"),
    [
        (False, "No announcement since the last digest: no new listing arrived."),
        (True, "Nothing matched your filters among 37 new papers since the last digest."),
    ],
)
async def test_an_empty_digest_says_why(
    post: Post, clock: Clock, listing_arrives: bool, line: str
) -> None:
    follow(post, clock, KV_CHAT, "mamba", digest_time="13:00")
    follow(post, clock, HASSANI_CHAT, digest_time="13:00")  # no filters: no message at all
    clock.advance(minutes=1)
    if listing_arrives:
        seeds_arrive(post, clock)
    clock.advance(hours=1)
    report = await post.postman.digest_tick()
    assert report == SendReport(messages=1, digests=2)
    assert post.transport.sent == [Carried(KV_CHAT, line, True, [])]
    assert post.chat(KV_CHAT).last_digest_at == post.chat(HASSANI_CHAT).last_digest_at == clock()


async def test_a_digest_to_a_chat_gone_fails_its_rows(post: Post, clock: Clock) -> None:
    follow(post, clock, KV_CHAT, '"kv cache"', digest_time="13:00")
    seeds_arrive(post, clock)
    clock.advance(hours=1)
    post.transport.errors[KV_CHAT] = [ChatGone("Forbidden: bot was kicked")]
    report = await post.postman.digest_tick()
    assert report == SendReport(failed=2, digests=1, chats_gone=[KV_CHAT])
    assert not post.chat(KV_CHAT).active
    assert await post.postman.digest_tick() == SendReport()  # inactive chats get no digest


# -- weekly digests ------------------------------------------------------------------------------

MONDAY_26_OCT = date(2026, 10, 26)


def day_arrives(post: Post, clock: Clock, folder: Path, day: date) -> list[str]:
    """A listing announced on `day`: three graph, three protein, two vision papers (numbered
    from the day of the month), read and planned now; the arXiv ids of its papers."""
    first = day.day * 10
    papers = [
        *topic_papers("graph", 3, first_id=first, day=day),
        *topic_papers("proteins", 3, first_id=first + 3, day=day),
        *topic_papers("vision", 2, first_id=first + 6, day=day),
    ]
    path = folder / f"{day}.xml"
    path.write_text(rss(papers, day))
    ingest.ingest_paths(post.database, [path], clock=clock)
    Planner(FilterRules()).plan(post.database, now=clock())
    return [paper.arxiv_id or "" for paper in papers]


async def tick_hourly(post: Post, clock: Clock, hours: int) -> list[tuple[datetime, list[str]]]:
    """A digest tick each hour for `hours` hours: when each digest went, with its messages."""
    went = []
    for _ in range(hours):
        clock.advance(hours=1)
        before = len(post.transport.sent)
        if (await post.postman.digest_tick()).digests:
            went.append((clock(), [m.text for m in post.transport.sent[before:]]))
    return went


def arxiv_ids(texts: list[str]) -> list[str]:
    return re.findall(r"arxiv\.org/abs/(\d{4}\.\d{5})", "".join(texts))


async def test_a_weekly_chat_gets_one_digest_of_its_week_on_its_day(
    post: Post, clock: Clock, tmp_path: Path
) -> None:
    clock.advance(days=2)  # Saturday 24 Oct, 12:00 UTC: after this week's digest hour
    follow(
        post, clock, KV_CHAT, "graph", "protein", mode="weekly", digest_weekday=5,
        digest_time="09:00", timezone="Europe/Berlin", digest_page=10,
    )  # fmt: skip
    assert await tick_hourly(post, clock, 48) == []  # to Monday 12:00 UTC
    for number in range(5):  # a listing Monday to Friday, at 12:00 UTC
        day_arrives(post, clock, tmp_path, MONDAY_26_OCT + timedelta(days=number))
        assert await tick_hourly(post, clock, 24 if number < 4 else 19) == []
    # Saturday 31 Oct 08:00 UTC: 09:00 in Berlin (CET since the 25th)
    [(when, texts)] = await tick_hourly(post, clock, 1)
    assert when == datetime(2026, 10, 31, 8, 0, tzinfo=UTC)
    assert texts[0].startswith(
        "<b>Your weekly digest: announcements of 26–30 Oct 2026</b>: 25 new papers\n"
        "graph (filter 1): 15 (#1–5) · protein (filter 2): 10 (#6–10)\n"
    )  # the first page shows both filters' best
    ledger = post.ledger(KV_CHAT)
    assert len(ledger) == 25 and {status for status, _, _ in ledger} == {"sent"}
    assert len(arxiv_ids(texts)) == 10  # the first page; the rest behind its button
    more = buttons(post.transport.sent[-1])[-1]
    assert post.transport.sent[-1].buttons[-1][0].label == "15 more papers ▸"
    row_id, number = (int(part) for part in more.split(":")[1:])
    assert await post.postman.send_page(post.chat(KV_CHAT), row_id, number)
    assert post.transport.sent[-1].text.startswith(
        "<b>Your weekly digest: announcements of 26–30 Oct 2026</b>, continued: papers 11"
    )
    assert await tick_hourly(post, clock, 24 * 7 - 1) == []  # nothing until the next Saturday


async def test_switching_daily_and_weekly_mid_week_sends_every_paper_once(
    post: Post, clock: Clock, tmp_path: Path
) -> None:
    """Daily, then weekly on Fridays from a Tuesday, then daily again from the next Tuesday:
    each listing's papers come once, in the digest due after they arrived."""
    follow(post, clock, KV_CHAT, "cat:cs.LG", timezone="Europe/Berlin", digest_page=100)
    arrived: list[str] = []
    went: list[tuple[datetime, list[str]]] = []

    async def day(hours: int, *, switch: dict[str, object] | None = None) -> None:
        """A listing announced today at 12:00 UTC, maybe a switch, then `hours` of ticks."""
        arrived.extend(day_arrives(post, clock, tmp_path, clock().date()))
        if switch:
            with post.database.session() as session:
                chats.update_chat(session, chat_id=KV_CHAT, **switch)
        went.extend(await tick_hourly(post, clock, hours))

    await day(24)  # Thursday 22 Oct
    await day(72)  # Friday 23
    await day(24)  # Monday 26: its digest goes on Tuesday, 08:00 in Berlin
    await day(24, switch={"mode": "weekly", "digest_weekday": 4})  # Tuesday 27, after it
    await day(24)  # Wednesday 28
    await day(24)  # Thursday 29: its papers, Tuesday's and Wednesday's go on Friday
    await day(72)  # Friday 30
    await day(24)  # Monday 2 Nov
    await day(24, switch={"mode": "digest"})  # Tuesday 3: Friday's to Tuesday's go at once

    berlin_eight = [
        datetime(2026, 10, 23, 6, 0, tzinfo=UTC),  # CEST
        datetime(2026, 10, 24, 6, 0, tzinfo=UTC),
        datetime(2026, 10, 25, 7, 0, tzinfo=UTC),  # CET; the weekend's: "no announcement"
        datetime(2026, 10, 26, 7, 0, tzinfo=UTC),
        datetime(2026, 10, 27, 7, 0, tzinfo=UTC),
        datetime(2026, 10, 30, 7, 0, tzinfo=UTC),  # the weekly digest, alone that week
        datetime(2026, 11, 3, 13, 0, tzinfo=UTC),  # daily again: its hour has passed
        datetime(2026, 11, 4, 7, 0, tzinfo=UTC),
    ]
    assert [when for when, _ in went] == berlin_eight
    weekly_title = "<b>Your weekly digest: announcements of 27–29 Oct 2026</b>"
    assert went[5][1][0].startswith(weekly_title)
    assert sorted(arxiv_ids(went[5][1])) == sorted(arrived[3 * 8 : 6 * 8])
    sent = Counter(paper for _, texts in went for paper in arxiv_ids(texts))
    assert len(arrived) == 9 * 8 and sent == Counter(arrived)  # each once
    assert {status for status, _, _ in post.ledger(KV_CHAT)} == {"sent"}


# -- a long digest: pages and cards ---------------------------------------------------------------


def buttons(message: Carried) -> list[str]:
    return [b.data for row in message.buttons for b in row]


def numbers(text: str) -> list[int]:
    """The entry numbers a compact digest message shows."""
    return [int(n) for n in re.findall(r"<b>(?:<a [^>]*>)?(\d+)\. ", text)]


async def test_a_long_digest_pages_and_every_paper_is_one_button_away(
    post: Post, clock: Clock
) -> None:
    follow(post, clock, KV_CHAT, "we", digest_page=12)
    seeds_arrive(post, clock)
    waiting = len(post.ledger(KV_CHAT))
    assert waiting > 24  # three pages at least

    assert (await post.postman.digest_now(post.chat(KV_CHAT))) == DigestSent(waiting, True)
    first = post.transport.sent
    assert "The first 12 here; the rest behind the button at the end." in first[0].text
    assert [n for m in first for n in numbers(m.text)] == list(range(1, 13))
    for message in first:  # a row a paper: its card, 👍 and 👎, named by its number
        rows = [[b.label for b in row] for row in message.buttons if row[0].data.startswith("card")]
        assert rows == [[f"📄 {n}", f"👍 {n}", f"👎 {n}", f"🔖 {n}"] for n in numbers(message.text)]
    more = buttons(first[-1])[-1]
    assert more.startswith("more:") and more.endswith(":13")
    assert first[-1].buttons[-1][0].label == f"{waiting - 12} more papers ▸"
    ledger = post.ledger(KV_CHAT)
    assert {status for status, _, _ in ledger} == {"sent"}  # the rest settled with the digest
    behind = [m for _, m, reason in ledger if reason == "behind the digest's 'more' button"]
    assert behind == [post.transport.last_id] * (waiting - 12)

    shown, pages = 12, 0
    while more:
        post.transport.sent = []
        row_id, number = (int(part) for part in more.split(":")[1:])
        assert await post.postman.send_page(post.chat(KV_CHAT), row_id, number)
        page = post.transport.sent
        header = rf"<b>Your digest[^<]*</b>, continued: papers? {shown + 1}\b"
        assert re.match(header, page[0].text)
        listed = [n for m in page for n in numbers(m.text)]
        assert listed == list(range(shown + 1, shown + 1 + len(listed)))
        shown, pages = shown + len(listed), pages + 1
        more = next((d for d in buttons(page[-1]) if d.startswith("more:")), "")
        assert "<blockquote" not in "".join(m.text for m in page)  # abstracts: the first five
    assert (shown, pages) == (waiting, -(-(waiting - 12) // 12))
    assert post.ledger(KV_CHAT) == ledger  # pages are not in the ledger


async def test_a_digest_sent_before_pages_kept_their_order_still_pages(
    post: Post, clock: Clock
) -> None:
    """Rows behind a button with no stored place (a digest sent before migration 0013) page in
    the order digests had then: every paper still comes once."""
    follow(post, clock, KV_CHAT, "we", digest_page=12)
    seeds_arrive(post, clock)
    waiting = len(post.ledger(KV_CHAT))
    await post.postman.digest_now(post.chat(KV_CHAT))
    with post.database.session() as session:
        session.execute(text("UPDATE delivery SET page_position = NULL"))
    shown = sum(len(numbers(m.text)) for m in post.transport.sent)
    more = buttons(post.transport.sent[-1])[-1]
    while more:
        post.transport.sent = []
        row_id, number = (int(part) for part in more.split(":")[1:])
        assert await post.postman.send_page(post.chat(KV_CHAT), row_id, number)
        listed = [n for m in post.transport.sent for n in numbers(m.text)]
        assert listed[0] == shown + 1
        shown += len(listed)
        more = next((d for d in buttons(post.transport.sent[-1]) if d.startswith("more:")), "")
    assert shown == waiting


async def test_a_card_button_sends_the_whole_card_to_its_chat_only(
    post: Post, clock: Clock
) -> None:
    follow(post, clock, KV_CHAT, '"kv cache"')
    follow(post, clock, HASSANI_CHAT, "au:Hassani")
    seeds_arrive(post, clock)
    await post.postman.digest_now(post.chat(KV_CHAT))
    [digest] = post.transport.sent
    card = [d for d in buttons(digest) if d.startswith("card:")][1]
    post.transport.sent = []
    row_id = int(card.split(":")[1])
    assert not await post.postman.send_card(HASSANI_CHAT, row_id)  # another chat's row
    assert not await post.postman.send_page(post.chat(HASSANI_CHAT), row_id, 2)
    assert post.transport.sent == []
    assert await post.postman.send_card(KV_CHAT, row_id)
    [sent] = post.transport.sent
    assert sent.chat_id == KV_CHAT and "<blockquote expandable>" in sent.text
    assert 'matched "kv cache" (filter 1)' in sent.text
    assert titles(sent.text) == titles(digest.text)[1:2]


@pytest.mark.parametrize(
    ("report", "line"),
    [
        (
            SendReport(messages=1, sent=1, digests=1, retries=1),
            "1 paper sent in 1 message (1 digest), 0 failed, 0 waiting, 1 retry",
        ),
        (
            SendReport(messages=2, sent=5, failed=1, digests=0, retries=3),
            "5 papers sent in 2 messages (0 digests), 1 failed, 0 waiting, 3 retries",
        ),
    ],
)
def test_a_rounds_log_line_counts_in_words(report: SendReport, line: str) -> None:
    assert report.line() == line
