"""Forum topics through the fake Bot API: the real Application reads each command's topic from
its `message_thread_id`, and sends each filter's papers into its topic; a closed or deleted
topic falls back to General once, with a notice to the administrators, losing nothing."""

from __future__ import annotations

import re

from bot.store import filters
from tests.telegram.conftest import World
from tests.telegram.test_delivery import (
    BENICE,
    ELASTICKV,
    SEED_000,
    SEED_002,
    alerts,
    ledger,
    papers_in,
)

LAB, ADMIN, MEMBER = -1001500, 31, 32
THEORY, VISION = 77, 88
SEED_003 = "003_41440b21456fdd3f.txt"


def carried(texts: list[str]) -> list[str]:
    """Which of the two "kv cache" papers the messages carry, in order, as many times as they
    do (digest entries are linked and marked, so by the start of their titles)."""
    plain = [re.sub(r"<[^>]+>", "", text) for text in texts]
    return [name for text in plain for name in ("BeNice!", "ElasticKV:") if name in text]


def topics_of(world: World) -> list[int | None]:
    with world.runtime.database.session() as session:
        return [f.topic for f in filters.chat_filters(session, chat_id=LAB)]


def in_topic(world: World, thread: int | None) -> list[str]:
    """The messages with papers the bot sent to the lab's topic (None: General)."""
    shown = {m["text"] for m in world.server.sent(LAB) if m.get("message_thread_id") == thread}
    return [text for text in alerts(world, LAB) if text in shown]


async def digest(world: World) -> None:
    """/digest in General, until the bot says it sent everything (each part marked sent)."""
    world.server.say(LAB, "/digest", user_id=MEMBER)
    await world.server.wait_for(
        lambda: any(t.startswith("That was everything") for t in world.server.texts(LAB))
    )


async def lab(world: World, *followed: tuple[str, int | None], mode: str = "instant") -> None:
    """The lab's forum, an administrator subscribing each filter in its topic."""
    world.server.add_forum(LAB, admins={ADMIN})
    for source, thread in followed:
        reply = await world.server.reply_to(
            LAB, f"/subscribe {source}", user_id=ADMIN, thread=thread
        )
        assert reply.get("message_thread_id") == thread  # answered where it was asked
        if thread is not None:
            assert reply["text"].endswith(f"Its papers come to this topic (topic {thread}).")
    await world.command(LAB, f"/mode {mode}", user_id=ADMIN)


async def test_a_filter_subscribed_in_a_topic_sends_its_alerts_there(world: World) -> None:
    await lab(world, ('"kv cache"', THEORY))
    assert topics_of(world) == [THEORY]
    await world.drop(SEED_000, SEED_002, SEED_003)
    report = await world.runtime.deliver()
    assert report.sent == 2
    assert sorted(papers_in(in_topic(world, THEORY))) == [BENICE, ELASTICKV]
    assert in_topic(world, None) == []
    [sent] = [c for c in world.server.calls_to("sendMessage") if "BeNice" in c.params["text"]]
    assert sent.params["message_thread_id"] == str(THEORY)
    listing = await world.command(LAB, "/list", user_id=MEMBER)
    assert '1. <code>"kv cache"</code> · topic 77' in listing


async def test_a_digest_for_each_topic_and_a_paper_two_topics_match_goes_once(
    world: World,
) -> None:
    # filter 1 (vision) and filter 2 (theory) both match BeNice: it goes to vision only
    await lab(world, ("ti:BeNice", VISION), ('"kv cache"', THEORY), mode="digest")
    await world.drop(SEED_000, SEED_002, SEED_003)
    await digest(world)
    assert carried(in_topic(world, VISION)) == ["BeNice!"]
    assert carried(in_topic(world, THEORY)) == ["ElasticKV:"]
    assert all(t.startswith("<b>Your digest") for t in alerts(world, LAB))
    assert sorted(carried(alerts(world, LAB))) == ["BeNice!", "ElasticKV:"]  # never twice
    assert ledger(world, LAB) == {"sent": 2}


async def test_topic_moves_a_filter_administrators_only(world: World) -> None:
    await lab(world, ('"kv cache"', None))
    refused = await world.command(LAB, "/topic 1", user_id=MEMBER, thread=VISION)
    assert refused.startswith("Only this group's administrators")
    moved = await world.command(LAB, "/topic 1", user_id=ADMIN, thread=VISION)
    assert moved == (
        'Filter 1 (<code>"kv cache"</code>) now posts in topic 88; papers waiting for it go '
        "there too."
    )
    assert topics_of(world) == [VISION]
    again = await world.command(LAB, '/subscribe "kv cache"', user_id=ADMIN, thread=THEORY)
    assert again.endswith("<code>/topic 1</code> here moves it to this topic.")
    assert "no filter 4" in await world.command(LAB, "/topic 4", user_id=ADMIN, thread=VISION)
    assert "Usage" in await world.command(LAB, "/topic one", user_id=ADMIN, thread=VISION)
    await world.drop(SEED_002)
    await world.runtime.deliver()
    assert carried(in_topic(world, VISION)) and not in_topic(world, None)
    back = await world.command(LAB, "/topic 1 general", user_id=ADMIN, thread=VISION)
    assert "now posts in General" in back
    assert topics_of(world) == [None]


async def test_topic_in_a_chat_without_topics_says_so(world: World) -> None:
    reply = await world.command(101, "/topic 1")
    assert reply.startswith("Only forum groups have topics")


async def test_a_closed_topic_falls_back_to_general_once(world: World) -> None:
    await lab(world, ('"kv cache"', THEORY), ("au:Hassani", VISION))
    world.server.close_topic(LAB, THEORY)
    await world.drop(SEED_000, SEED_002, SEED_003)
    report = await world.runtime.deliver()
    assert report.waiting == report.failed == 0
    tried = [c for c in world.server.calls_to("sendMessage") if c.params.get("message_thread_id")]
    refused = [c for c in tried if not c.ok]
    assert [c.params["message_thread_id"] for c in refused] == [str(THEORY)]  # once
    general = [m["text"] for m in world.server.sent(LAB) if "message_thread_id" not in m]
    notice = next(t for t in general if t.startswith("Administrators:"))
    assert "topic 77 is closed or was deleted, so filter 1 " in notice
    assert sorted(papers_in(in_topic(world, None))) == [BENICE, ELASTICKV]
    assert in_topic(world, VISION)  # the other topic is untouched
    assert topics_of(world) == [None, VISION]
    assert ledger(world, LAB) == {"sent": 3}
    listing = await world.command(LAB, "/list", user_id=ADMIN)
    assert '1. <code>"kv cache"</code> · General' in listing


async def test_a_deleted_topic_falls_back_and_a_page_goes_to_its_buttons_topic(
    world: World,
) -> None:
    await lab(world, ("au:Hassani", VISION), ("model", THEORY), mode="digest")
    await world.command(LAB, "/layout page 5", user_id=ADMIN)
    world.server.close_topic(LAB, VISION, deleted=True)
    await world.drop(SEED_000, SEED_002, SEED_003)
    await digest(world)
    assert topics_of(world) == [None, THEORY]
    assert set(ledger(world, LAB)) == {"sent"}
    general = [m["text"] for m in world.server.sent(LAB) if "message_thread_id" not in m]
    assert any(t.startswith("Administrators: topic 88 is closed or was deleted") for t in general)
    assert any("When to Follow the Teacher" in t for t in general)  # Hassani's, in General
    [theory] = [
        m
        for m in world.server.sent(LAB)
        if m.get("message_thread_id") == THEORY and "more" in str(m.get("reply_markup"))
    ]
    more = next(
        b["callback_data"]
        for row in theory["reply_markup"]["inline_keyboard"]
        for b in row
        if "more" in b["text"]
    )
    before = len(world.server.sent(LAB))
    world.server.press(LAB, theory["message_id"], more, user_id=MEMBER)
    await world.server.wait_for(lambda: len(world.server.sent(LAB)) > before)
    page = world.server.sent(LAB)[before]
    assert page.get("message_thread_id") == THEORY
