"""The promise, kept through the fake Bot API server: alerts and digests, each paper once, faults
and limits survived. Time is the test's: the ledger's clock and the sender's sleep are fakes."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from bot import jobs
from bot.sender import Limits
from bot.store import chats, deliveries
from tests.corpus import rss, topic_papers
from tests.feed_server import FeedServer
from tests.telegram.conftest import World

ADA, BOB = 101, 102
BENICE = "BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing"
ELASTICKV = (
    "ElasticKV: a mixed-fidelity KV runtime built on the observation that target fidelity need "
    "not gate execution"
)
SEED_000, SEED_002 = "000_d8ca0602e3945843.txt", "002_fdf517bcef682927.txt"


def papers_in(texts: list[str]) -> list[str]:
    """The titles of the papers in the messages (each paper opens with its bold title, linked
    in a compact entry)."""
    titles = [m for text in texts for m in re.findall(r"^<b>(.+)</b>", text, re.M)]
    return [re.sub(r"</?u>|^\d+\. |<a [^>]*>|</a>", "", title) for title in titles]


def alerts(world: World, chat_id: int) -> list[str]:
    """The messages that carry papers: those with 👍 buttons."""
    return [m["text"] for m in world.server.sent(chat_id) if "'like:" in str(m.get("reply_markup"))]


def ledger(world: World, chat_id: int) -> dict[str, int]:
    with world.runtime.database.session() as session:
        return deliveries.count_deliveries(session, chat_id=chat_id)


async def instant_user(world: World, chat_id: int, *filters: str) -> None:
    for source in filters:
        await world.command(chat_id, f"/subscribe {source}")
    await world.command(chat_id, "/mode instant")


async def test_a_dropped_listing_alerts_instant_users_once(world: World) -> None:
    await instant_user(world, ADA, '"kv cache"')
    await world.drop(SEED_000, SEED_002, "003_41440b21456fdd3f.txt")
    report = await world.runtime.deliver()
    texts = alerts(world, ADA)
    titles = papers_in(texts)
    assert sorted(titles) == [BENICE, ELASTICKV]
    assert report.sent == 2 and ledger(world, ADA) == {"sent": 2}
    message = world.server.sent(ADA)[-1]
    assert message["parse_mode"] == "HTML" and message["link_preview_options"]["is_disabled"]
    rows = message["reply_markup"]["inline_keyboard"]  # two papers: numbered card, 👍, 👎 each
    labels = [[b["text"] for b in row] for row in rows]
    assert labels == [["📄 1", "👍 1", "👎 1", "🔖 1"], ["📄 2", "👍 2", "👎 2", "🔖 2"]]
    alert = "".join(texts)
    assert alert.count('matched "kv cache" (filter 1)') == 2
    assert "<i>TL;DR:</i> BeNice!, a post-training method that broadcasts" in alert
    assert "(headline derived from the abstract)" in alert
    assert "<blockquote" not in alert  # at a glance: the abstract is a card button away

    assert (await world.runtime.deliver()).messages == 0  # the next tick: nothing twice


async def test_an_overlapping_or_renamed_listing_sends_nothing_twice(world: World) -> None:
    await instant_user(world, ADA, "language")
    await world.drop(SEED_000)
    await world.runtime.deliver()
    first = papers_in(alerts(world, ADA))
    await world.drop(SEED_002)  # shares papers with 000
    await world.drop(copy_txt=(world.inbox / SEED_000).read_text())
    await world.runtime.deliver()
    every = papers_in(alerts(world, ADA))
    assert len(first) == 2 and every[:2] == first  # 000's two papers, then 002's one new one
    assert len(every) == len(set(every)) == 3 and ledger(world, ADA) == {"sent": 3}


async def test_two_filters_matching_one_paper_give_one_message_naming_both(world: World) -> None:
    await instant_user(world, ADA, '"kv cache"', "looped")
    await world.drop(SEED_002)
    await world.runtime.deliver()
    benice = [t for t in alerts(world, ADA) if "BeNice!" in t]
    assert len(benice) == 1
    assert '"kv cache" (filter 1), looped (filter 2)' in benice[0]


async def test_a_filter_added_later_does_not_flood_the_chat(world: World) -> None:
    await world.drop(SEED_000, SEED_002)
    await instant_user(world, ADA, "language")
    await world.runtime.deliver()
    assert alerts(world, ADA) == []


async def test_digest_at_eight_berlin_time_across_the_dst_change(world: World) -> None:
    world.clock.now = datetime(2026, 10, 23, 12, 0, tzinfo=UTC)
    for command in ('/subscribe "kv cache"', "/timezone Europe/Berlin", "/time 08:00"):
        await world.command(ADA, command)
    await world.drop(SEED_002)
    await world.runtime.deliver()  # digest mode: instant delivery leaves it alone
    assert alerts(world, ADA) == []

    async def digest_at(hour: int, minute: int, day: int) -> list[str]:
        world.clock.now = datetime(2026, 10, day, hour, minute, tzinfo=UTC)
        before = len(world.server.texts(ADA))
        await world.runtime.send_due_digests()
        return world.server.texts(ADA)[before:]

    assert await digest_at(5, 59, 24) == []  # 07:59 CEST
    sent = await digest_at(6, 0, 24)  # 08:00 CEST
    assert len(sent) == 1 and "Your digest" in sent[0] and "1 new paper" in sent[0]
    assert "BeNice!" in sent[0] and ledger(world, ADA) == {"sent": 1}
    assert await digest_at(6, 30, 24) == []  # once a day
    # 25 October 2026: clocks go back, 08:00 is now 07:00 UTC
    assert await digest_at(6, 59, 25) == []
    quiet = await digest_at(7, 0, 25)
    assert quiet == ["No announcement since the last digest: no new listing arrived."]


async def test_a_digest_missed_while_down_goes_out_on_return(world: World) -> None:
    await world.command(ADA, "/subscribe looped")
    await world.drop(SEED_002)
    world.clock.advance(days=3)  # the bot was down through several 08:00s
    await world.runtime.send_due_digests()
    await world.runtime.send_due_digests()
    digests = [t for t in world.server.texts(ADA) if "Your digest" in t]
    assert len(digests) == 1 and "BeNice!" in digests[0]


async def test_a_weekly_chat_gets_its_weeks_digest_on_its_day_only(world: World) -> None:
    """Thursday 22 Oct 2026, 12:00 UTC: listings arrive on four days; the chat's digest, on
    Wednesdays at 08:00, holds them all, and nothing comes on the other days."""
    await world.command(ADA, "/subscribe graph")
    await world.command(ADA, "/subscribe protein")
    assert await world.command(ADA, "/mode weekly Wednesday") == (
        "Weekly: one digest a week, on Wednesdays at 08:00; the next at Wed 28 Oct 08:00 (UTC)."
    )
    days = [date(2026, 10, 22), date(2026, 10, 23), date(2026, 10, 26), date(2026, 10, 27)]
    for number, day in enumerate(days):
        world.clock.now = datetime.combine(day, datetime.min.time(), UTC).replace(hour=12)
        papers = [*topic_papers("graph", 2, first_id=number * 10, day=day),
                  *topic_papers("proteins", 4, first_id=number * 10 + 2, day=day)]  # fmt: skip
        await world.drop(**{f"day{number}_xml": rss(papers, day)})
        for later in (timedelta(0), timedelta(hours=19, minutes=59)):  # noon, 07:59 next day
            world.clock.now = world.clock.now.replace(hour=12, minute=0) + later
            await world.runtime.send_due_digests()
    assert world.server.texts(ADA)[-1].startswith("Weekly: ")  # nothing came until now
    world.clock.now = datetime(2026, 10, 28, 8, 0, tzinfo=UTC)
    await world.runtime.send_due_digests()
    digest = world.server.texts(ADA)[3:]  # in several messages: Telegram's 4,096 characters
    assert digest[0].startswith("<b>Your weekly digest: announcements of 22–27 Oct 2026</b>")
    assert "graph (filter 1): 8" in digest[0] and "protein (filter 2)" in digest[0]
    listed = re.findall(r"arxiv\.org/abs/(\d{4}\.\d{5})", "".join(digest))
    assert ledger(world, ADA) == {"sent": len(listed)} and len(set(listed)) == len(listed)
    for _ in range(6):  # Thursday to Tuesday
        world.clock.advance(days=1)
        await world.runtime.send_due_digests()
    assert world.server.texts(ADA)[3:] == digest


async def test_pause_holds_everything_and_digest_sends_now(world: World) -> None:
    await world.command(ADA, "/subscribe looped")
    await world.command(ADA, "/pause")
    await world.drop(SEED_002)
    world.clock.advance(days=1)
    await world.runtime.send_due_digests()
    assert "Alerts are paused" in await world.command(ADA, "/digest")
    assert alerts(world, ADA) == [] and ledger(world, ADA) == {"pending": 1}
    assert "Waiting for you: 1 paper\n" in await world.command(ADA, "/status")
    await world.command(ADA, "/resume")
    world.server.say(ADA, "/digest")
    await world.server.wait_for(lambda: "That was everything" in world.server.texts(ADA)[-1])
    assert len(alerts(world, ADA)) == 1
    assert ledger(world, ADA) == {"sent": 1}


async def test_flood_control_waits_retry_after_and_sends_the_same_message(world: World) -> None:
    await instant_user(world, ADA, '"kv cache"')
    await world.drop(SEED_002)
    world.server.fail("sendMessage", "429", chat_id=ADA, retry_after=7)
    report = await world.runtime.deliver()
    assert report.sent == 1 and report.retries == 1 and 7 in world.time.slept
    refused, accepted = [
        c for c in world.server.calls_to("sendMessage") if "BeNice" in c.params["text"]
    ]
    assert not refused.ok and accepted.ok and refused.params["text"] == accepted.params["text"]


async def test_server_errors_dropped_connections_and_timeouts_still_deliver(world: World) -> None:
    await instant_user(world, ADA, '"kv cache"')
    await world.drop(SEED_002)
    world.server.fail("sendMessage", "500", chat_id=ADA)
    world.server.fail("sendMessage", "drop", chat_id=ADA)
    world.server.fail("sendMessage", "hold", chat_id=ADA)  # never answered: the bot's 1 s passes
    world.server.fail("sendMessage", "502", chat_id=ADA)
    report = await world.runtime.deliver()
    assert report.sent == 1 and report.retries == 4
    assert world.time.slept == [1.0, 2.0, 4.0, 8.0]  # backing off
    assert ledger(world, ADA) == {"sent": 1}


async def test_telegram_down_for_long_leaves_rows_pending_for_the_next_tick(world: World) -> None:
    await instant_user(world, ADA, '"kv cache"')
    await world.drop(SEED_002)
    world.server.fail("sendMessage", "500", chat_id=ADA, times=8)
    report = await world.runtime.deliver()
    assert report.sent == 0 and report.waiting == 1 and ledger(world, ADA) == {"pending": 1}
    assert (await world.runtime.deliver()).sent == 1 and ledger(world, ADA) == {"sent": 1}


async def test_a_blocked_user_makes_the_chat_inactive_and_rows_undeliverable(world: World) -> None:
    await instant_user(world, ADA, '"kv cache"')
    await instant_user(world, BOB, '"kv cache"')
    await world.drop(SEED_002)
    world.server.blocked.add(ADA)  # blocked, and the update has not arrived yet
    report = await world.runtime.deliver()
    assert report.chats_gone == [ADA] and report.sent == 1
    with world.runtime.database.session() as session:
        chat = chats.get_chat(session, chat_id=ADA)
        rows = deliveries.all_deliveries(session, chat_id=ADA)
    assert chat is not None and not chat.active
    assert [r.status for r in rows] == ["failed"] and "blocked" in (rows[0].reason or "")
    assert ledger(world, BOB) == {"sent": 1}


async def test_a_refused_message_is_sent_as_plain_text_not_dropped(world: World) -> None:
    await instant_user(world, ADA, '"kv cache"')
    await world.drop(SEED_002)
    world.server.fail("sendMessage", "400", chat_id=ADA)
    await world.runtime.deliver()
    last = world.server.sent(ADA)[-1]
    assert last["parse_mode"] is None and "BeNice!" in last["text"] and "<b>" not in last["text"]
    assert ledger(world, ADA) == {"sent": 1}


async def test_the_sender_keeps_telegrams_limits(make_world: Any) -> None:
    world: World = await make_world(limits=Limits())
    group = -700
    world.server.add_group(group, admins={1})
    await instant_user(world, ADA, "language", "model", "learning")
    await world.command(ADA, "/layout full")  # whole cards: more messages to pace
    await world.command(group, "/subscribe language", user_id=1)
    await world.command(group, "/mode instant", user_id=1)
    await world.command(group, "/layout full", user_id=1)
    await world.drop(SEED_000, SEED_002, "003_41440b21456fdd3f.txt")
    world.time.slept.clear()
    start = world.time.now
    await world.runtime.deliver()
    sends = [c for c in world.server.calls_to("sendMessage") if "like:" in str(c.params)]
    to_ada = sum(1 for c in sends if c.params["chat_id"] == str(ADA))
    to_group = sum(1 for c in sends if c.params["chat_id"] == str(group))
    assert to_ada >= 2 and to_group >= 2
    # one message a second to a chat, twenty a minute to a group: the fake clock shows the waits
    assert world.time.now - start >= max(to_ada - 1, 3 * (to_group - 1))


async def test_updates_reach_only_chats_that_follow_them_labelled(world: World) -> None:
    await instant_user(world, ADA, "mamba")
    await instant_user(world, BOB, "mamba")
    await world.command(BOB, "/updates on")
    await world.drop(v1_xml=feed("2610.00001", 1, "new"))
    await world.runtime.deliver()
    world.clock.advance(days=1)
    await world.drop(v2_xml=feed("2610.00001", 2, "replace"))
    await world.runtime.deliver()
    assert papers_in(alerts(world, ADA)) == ["Mamba at scale"]
    assert papers_in(alerts(world, BOB)) == ["Mamba at scale", "Updated (v2): Mamba at scale"]


def feed(arxiv_id: str, version: int, announce: str) -> str:
    return f"""<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/"
 version="2.0"><channel><title>cs.LG updates on arXiv.org</title>
<link>http://rss.arxiv.org/rss/cs.LG</link><description>cs.LG</description>
<item><title>Mamba at scale</title><link>https://arxiv.org/abs/{arxiv_id}</link>
<description>arXiv:{arxiv_id}v{version} Announce Type: {announce}
Abstract: We study Mamba models at scale, version {version}.</description>
<guid isPermaLink="false">oai:arXiv.org:{arxiv_id}v{version}</guid><category>cs.LG</category>
<pubDate>Fri, 23 Oct 2026 00:00:00 -0400</pubDate>
<arxiv:announce_type>{announce}</arxiv:announce_type>
<dc:creator>Ada Lovelace</dc:creator></item></channel></rss>"""


async def test_a_feed_paper_reaches_an_instant_chat(make_world: Any, feeds: FeedServer) -> None:
    world: World = await make_world(feeds={"urls": [f"{feeds.base}/rss/cs"]})
    await world.command(101, "/subscribe cat:cs.*")
    await world.command(101, "/mode instant")
    await world.drop()  # the scan polls the feed, being due
    await world.runtime.deliver()
    [alert] = alerts(world, 101)
    assert "arxiv.org/abs/" in alert
    await world.drop()  # not due again yet: no second request
    assert feeds.requests == ["/rss/cs"]


async def test_a_listing_that_lands_during_a_burst_is_matched_without_waiting_for_it(
    world: World,
) -> None:
    """The inbox job starts the instant alerts and goes back to the inbox: a burst takes minutes
    at Telegram's 30 messages a second, and a listing that lands meanwhile is not held behind
    it. A tick during the round leaves the round's chat to it, and the round after it sends
    what was planned meanwhile."""
    await instant_user(world, ADA, "model", "learning", "language")
    held = world.server.fail("sendMessage", "hold", chat_id=ADA)
    await world.drop(SEED_000)
    await jobs.scan_inbox(world.runtime)  # returns with the round under way
    await world.server.wait_for(lambda: held.holding == 1)
    first_day = sum(ledger(world, ADA).values())
    await world.drop(SEED_002)
    await jobs.scan_inbox(world.runtime)  # the second listing, matched while the first is held
    assert sum(ledger(world, ADA).values()) > first_day
    assert (await world.runtime.deliver()).messages == 0  # the round under way is left to it
    assert world.runtime.delivering and held.holding == 1
    world.server.release(held)
    await world.server.wait_for(lambda: not world.runtime.delivering)
    await world.runtime.deliver()  # the next tick: what the second listing brought
    titles = papers_in(alerts(world, ADA))
    assert len(titles) == len(set(titles)) == sum(ledger(world, ADA).values())
    assert ledger(world, ADA) == {"sent": len(titles)}


async def test_overlapping_delivery_ticks_send_nothing_twice(world: World) -> None:
    await instant_user(world, ADA, "model", "learning", "language")
    await world.drop(SEED_000, SEED_002, "003_41440b21456fdd3f.txt")
    # the inbox job's delivery and the delivery tick at once (and a third), while the first is
    # in the middle of sending its first message: the later ones leave the chat to it
    postman = world.runtime.postman
    held = world.server.fail("sendMessage", "hold", chat_id=ADA)
    first = asyncio.create_task(postman.deliver_instant())
    await world.server.wait_for(lambda: held.holding == 1)
    later = await asyncio.gather(postman.deliver_instant(), postman.deliver_instant())
    assert not first.done() and alerts(world, ADA) == []
    world.server.release(held)
    reports = [await first, *later]
    titles = papers_in(alerts(world, ADA))
    assert len(titles) == len(set(titles)) == 31
    assert [r.sent for r in reports] == [31, 0, 0]
    assert ledger(world, ADA) == {"sent": 31}


def keyboard(message: dict[str, Any]) -> list[str]:
    markup = message.get("reply_markup") or {"inline_keyboard": []}
    return [b["callback_data"] for row in markup["inline_keyboard"] for b in row]


async def test_a_long_digest_pages_and_opens_cards_from_its_buttons(world: World) -> None:
    await world.command(ADA, "/subscribe we")  # every seed paper: 37
    await world.command(ADA, "/layout page 12")
    await world.command(BOB, '/subscribe "kv cache"')
    await world.drop(SEED_000, SEED_002, "003_41440b21456fdd3f.txt")
    before = len(world.server.sent(ADA))
    await world.command(ADA, "/digest")  # the first message back: the digest's
    done = "That was everything waiting: 37 papers."
    await world.server.wait_for(lambda: world.server.texts(ADA)[-1] == done)
    digest = world.server.sent(ADA)[before:-1]  # the last one: the answer to /digest
    assert "37 new papers" in digest[0]["text"] and ledger(world, ADA) == {"sent": 37}
    last = digest[-1]
    more = keyboard(last)[-1]
    assert more.startswith("more:") and more.endswith(":13")

    shown = len(world.server.sent(ADA))
    world.server.press(ADA, last["message_id"], more)
    await world.server.wait_for(
        lambda: any("papers 13–24 of 37" in t for t in world.server.texts(ADA))
    )
    page = world.server.sent(ADA)[shown:]
    assert keyboard(page[-1])[-1].endswith(":25")
    await world.server.wait_for(lambda: len(world.server.calls_to("answerCallbackQuery")) == 1)
    [answer] = world.server.calls_to("answerCallbackQuery")
    assert answer.params["show_alert"] == "false" and "text" not in answer.params  # no popup

    [(holder, card)] = [  # paper 7's card: no abstract in the digest
        (m, b["callback_data"])
        for m in digest
        for row in m["reply_markup"]["inline_keyboard"]
        for b in row
        if b["text"] == "📄 7"
    ]
    bobs = world.server.sent(BOB)[-1]["message_id"]
    world.server.press(BOB, bobs, card)  # ADA's button data, pressed in another chat
    await world.server.wait_for(lambda: len(world.server.calls_to("answerCallbackQuery")) == 2)
    refused = world.server.calls_to("answerCallbackQuery")[-1].params
    assert refused["show_alert"] == "true" and "out of date" in refused["text"]
    shown = len(world.server.sent(ADA))
    world.server.press(ADA, holder["message_id"], card)
    await world.server.wait_for(lambda: len(world.server.sent(ADA)) > shown)
    [opened] = world.server.sent(ADA)[shown:]
    assert "<blockquote expandable>" in opened["text"] and "matched we (filter 1)" in opened["text"]
    assert not any("blockquote" in t for t in world.server.texts(BOB))  # BOB got nothing of it


async def test_rating_and_more_like_this_from_an_alerts_buttons(world: World) -> None:
    await instant_user(world, ADA, "cache")
    day = date(2026, 7, 1)
    await world.drop(day1_xml=rss(topic_papers("kv", 12, first_id=1, day=day), day))
    await world.runtime.deliver()
    [alert] = [m for m in world.server.sent(ADA) if "'👍 1'" in str(m.get("reply_markup"))]
    labels = {b["text"]: b["callback_data"] for row in alert["reply_markup"]["inline_keyboard"]
              for b in row}  # fmt: skip

    async def press(label: str) -> dict[str, Any]:
        answered = len(world.server.calls_to("answerCallbackQuery"))
        world.server.press(ADA, alert["message_id"], labels[label])
        await world.server.wait_for(
            lambda: len(world.server.calls_to("answerCallbackQuery")) > answered
        )
        return world.server.calls_to("answerCallbackQuery")[-1].params

    liked = await press("👍 1")
    assert liked["text"].startswith("👍 noted: ") and liked["show_alert"] == "false"
    assert "Ratings: 1 👍, 0 👎" in await world.command(ADA, "/status")
    assert (await press("👍 1"))["text"].startswith("Rating taken back: ")
    assert "Ratings: none yet" in await world.command(ADA, "/status")

    sent = len(world.server.sent(ADA))
    await press("≈ 1")  # "more like this" for paper 1
    assert world.server.texts(ADA)[sent].startswith('Filter 2 saved, understood as <code>like "')
    assert "\nlike:2607.000" in await world.command(ADA, "/export")


async def test_a_new_filters_button_sends_its_recent_papers_as_a_digest(world: World) -> None:
    """The first run: the listings came before the filter, so nothing waits for it; the button
    under /subscribe's answer sends what it counted, as a digest, once."""
    await world.drop(SEED_000, SEED_002, "003_41440b21456fdd3f.txt")
    subscribed = await world.server.reply_to(ADA, '/subscribe "kv cache"')
    # the first row sends them; a first filter's second offers papers to rate (tests/test_tune.py)
    [button], [tune] = subscribed["reply_markup"]["inline_keyboard"]
    assert button["text"] == "📬 Send me these 2 recent papers now"
    assert tune["text"] == "🎯 Rate 2 papers to tune the ranking"
    shown = len(world.server.sent(ADA))

    async def press() -> dict[str, Any]:
        answered = len(world.server.calls_to("answerCallbackQuery"))
        world.server.press(ADA, subscribed["message_id"], button["callback_data"])
        await world.server.wait_for(
            lambda: len(world.server.calls_to("answerCallbackQuery")) > answered
        )
        return world.server.calls_to("answerCallbackQuery")[-1].params

    assert (await press())["text"] == "Sent: 2 papers."
    digest = world.server.texts(ADA)[shown:]
    assert "2 new papers" in digest[0] and all(t in "".join(digest) for t in (BENICE, ELASTICKV))
    assert ledger(world, ADA) == {"sent": 2}
    again = await press()
    assert again["text"].startswith("Nothing new to send") and again["show_alert"] == "true"
    assert len(world.server.sent(ADA)) == shown + len(digest) and ledger(world, ADA) == {"sent": 2}
    assert world.server.messages[(ADA, subscribed["message_id"])] == subscribed  # left as it was


def carrying(world: World, chat_id: int) -> list[dict[str, Any]]:
    """The sendMessage calls Telegram took for the chat that carry papers, with their params."""
    calls = world.server.calls_to("sendMessage")
    return [
        c.params
        for c in calls
        if c.ok
        and int(c.params["chat_id"]) == chat_id
        and "like:" in c.params.get("reply_markup", "")
    ]


async def test_alerts_in_quiet_hours_wait_and_go_out_together_when_they_end(world: World) -> None:
    world.clock.now = datetime(2026, 10, 23, 21, 0, tzinfo=UTC)  # 23:00 in Berlin
    await instant_user(world, ADA, '"kv cache"')
    await world.command(ADA, "/timezone Europe/Berlin")
    assert "Quiet now, until Sat 24 Oct 07:00" in await world.command(ADA, "/quiet 22:00-07:00")
    await world.drop(SEED_000, SEED_002, "003_41440b21456fdd3f.txt")
    assert (await world.runtime.deliver()).messages == 0
    assert "quiet now until Sat 24 Oct 07:00 (Europe/Berlin), 2 papers held" in (
        await world.command(ADA, "/status")
    )
    world.clock.now = datetime(2026, 10, 24, 4, 59, tzinfo=UTC)  # 06:59
    assert (await world.runtime.deliver()).messages == 0
    assert alerts(world, ADA) == [] and ledger(world, ADA) == {"pending": 2}

    world.clock.now = datetime(2026, 10, 24, 5, 0, 30, tzinfo=UTC)  # the first tick after 07:00
    report = await world.runtime.deliver()
    assert report.sent == 2 and report.messages == 1  # one bundle
    assert sorted(papers_in(alerts(world, ADA))) == [BENICE, ELASTICKV]
    assert ledger(world, ADA) == {"sent": 2}
    assert "disable_notification" not in carrying(world, ADA)[0]  # the window is over: it rings
    assert (await world.runtime.deliver()).messages == 0  # each once


async def test_silent_quiet_hours_send_at_once_without_a_notification(world: World) -> None:
    world.clock.now = datetime(2026, 10, 23, 21, 0, tzinfo=UTC)  # 23:00 in Berlin
    await instant_user(world, ADA, "language")
    for command in ("/timezone Europe/Berlin", "/quiet 22-7", "/quiet silent"):
        await world.command(ADA, command)
    await world.drop(SEED_000)
    assert (await world.runtime.deliver()).sent == 2
    assert [p.get("disable_notification") for p in carrying(world, ADA)] == ["true"]
    world.clock.now = datetime(2026, 10, 24, 6, 0, tzinfo=UTC)  # 08:00: the window is over
    await world.drop(SEED_002)
    assert (await world.runtime.deliver()).sent == 1
    assert [p.get("disable_notification") for p in carrying(world, ADA)] == ["true", None]
    assert len(papers_in(alerts(world, ADA))) == 3 and ledger(world, ADA) == {"sent": 3}


async def test_a_digest_due_in_quiet_hours_goes_out_when_they_end(world: World) -> None:
    world.clock.now = datetime(2026, 10, 23, 12, 0, tzinfo=UTC)
    for command in ("/subscribe looped", "/timezone Europe/Berlin", "/time 23:00", "/quiet 22-7"):
        await world.command(ADA, command)
    await world.drop(SEED_002)
    world.clock.now = datetime(2026, 10, 23, 21, 30, tzinfo=UTC)  # 23:30: due, and quiet
    assert (await world.runtime.send_due_digests()).digests == 0
    world.clock.now = datetime(2026, 10, 24, 5, 0, tzinfo=UTC)  # 07:00
    await world.runtime.send_due_digests()
    await world.runtime.send_due_digests()
    digests = [t for t in world.server.texts(ADA) if "Your digest" in t]
    assert len(digests) == 1 and "BeNice!" in digests[0] and ledger(world, ADA) == {"sent": 1}


def short_papers(count: int) -> str:
    """A day of `count` papers with the shortest titles and abstracts: 30 compact entries fit
    one message's 4,096 characters, with 4 buttons each."""
    made = topic_papers("kv", count, first_id=500, day=date(2026, 7, 1))
    short = [replace(p, title=f"Mamba {n}", abstract="Mamba.") for n, p in enumerate(made)]
    return rss(short, date(2026, 7, 1))


async def test_a_digest_of_short_entries_stays_within_telegrams_buttons(world: World) -> None:
    """Telegram refuses a message of more than 100 inline buttons (the fake server too): 30
    short entries of one page go out in messages of at most 19, every paper with its buttons."""
    await world.command(ADA, "/subscribe mamba")
    await world.drop(short_xml=short_papers(30))
    before = len(world.server.sent(ADA))
    await world.command(ADA, "/digest")
    done = "That was everything waiting: 30 papers."
    await world.server.wait_for(lambda: world.server.texts(ADA)[-1] == done)
    digest = world.server.sent(ADA)[before:-1]
    assert ledger(world, ADA) == {"sent": 30}
    assert len(digest) == 2 and all(len(keyboard(m)) <= 100 for m in digest)
    likes = [data for m in digest for data in keyboard(m) if data.startswith("like:")]
    assert len(likes) == 30


async def test_an_instant_bundle_of_short_alerts_stays_within_telegrams_buttons(
    world: World,
) -> None:
    await instant_user(world, ADA, "mamba")
    await world.drop(short_xml=short_papers(40))
    report = await world.runtime.deliver()
    assert ledger(world, ADA) == {"sent": 40} and report.sent == 40
    sent = [m for m in world.server.sent(ADA) if "like:" in str(m.get("reply_markup"))]
    assert all(len(keyboard(m)) <= 100 for m in sent)
    assert sum(1 for m in sent for d in keyboard(m) if d.startswith("like:")) == 40
