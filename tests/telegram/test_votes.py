"""A lab's votes through the fake Bot API: members of a group, by their user ids, press 👍/👎
under alerts; the counts show on the edited keyboard; /top, /export and /stop see them."""

from __future__ import annotations

from datetime import date
from typing import Any

from bot.store import feedback, papers
from tests.corpus import rss, topic_papers
from tests.telegram.conftest import World

GROUP, ADMIN = -700, 1
ANN, BEN, CAT, DAN = 11, 12, 13, 14
DAY = date(2026, 7, 1)


def labels(message: dict[str, Any]) -> list[list[str]]:
    return [[b["text"] for b in row] for row in message["reply_markup"]["inline_keyboard"]]


def data_of(message: dict[str, Any], label: str) -> str:
    [data] = [
        b["callback_data"]
        for row in message["reply_markup"]["inline_keyboard"]
        for b in row
        if b["text"] == label
    ]
    return str(data)


async def press(world: World, message: dict[str, Any], data: str, user_id: int) -> str:
    """A member presses a button; the notice they read."""
    answered = len(world.server.calls_to("answerCallbackQuery"))
    world.server.press(GROUP, message["message_id"], data, user_id=user_id)
    await world.server.wait_for(
        lambda: len(world.server.calls_to("answerCallbackQuery")) > answered
    )
    return str(world.server.calls_to("answerCallbackQuery")[answered].params.get("text"))


async def edited(world: World, message: dict[str, Any], data: str, user_id: int) -> str:
    """A member's press that edits the keyboard: the notice, once the edit is in."""
    edits = len(world.server.calls_to("editMessageReplyMarkup"))
    notice = await press(world, message, data, user_id)
    await world.server.wait_for(
        lambda: len(world.server.calls_to("editMessageReplyMarkup")) > edits
    )
    return notice


def now_reads(world: World, message: dict[str, Any]) -> dict[str, Any]:
    [found] = [m for m in world.server.sent(GROUP) if m["message_id"] == message["message_id"]]
    return found


async def group_alerts(world: World, count: int, first_id: int) -> list[dict[str, Any]]:
    """Papers on KV caches arrive in an instant group following "cache": its alerts."""
    before = len(world.server.sent(GROUP))
    day_papers = rss(topic_papers("kv", count, first_id=first_id, day=DAY), DAY)
    await world.drop(**{f"day{first_id}_xml": day_papers})
    await world.runtime.deliver()
    return [m for m in world.server.sent(GROUP)[before:] if "like:" in str(m.get("reply_markup"))]


async def test_members_vote_on_an_alert_and_the_buttons_count_them(world: World) -> None:
    world.server.add_group(GROUP, admins={ADMIN})
    await world.command(GROUP, "/subscribe cache", user_id=ADMIN)
    await world.command(GROUP, "/mode instant", user_id=ADMIN)
    [alert] = await group_alerts(world, 1, first_id=1)
    assert labels(alert) == [["📄 Abstract", "👍", "👎", "🔖 Save", "≈ More like this"]]
    like, dislike, text = data_of(alert, "👍"), data_of(alert, "👎"), alert["text"]

    assert (await edited(world, alert, like, ANN)).startswith("Your 👍 counted: ")
    await edited(world, alert, like, BEN)
    await edited(world, alert, dislike, CAT)
    assert labels(now_reads(world, alert)) == [
        ["📄 Abstract", "👍 2", "👎 1", "🔖 Save", "≈ More like this"]
    ]
    asked = {c.params["user_id"] for c in world.server.calls_to("getChatMember")}
    assert asked == {str(ADMIN)}  # for the commands; a member's vote asks nobody's rank

    assert (await edited(world, alert, like, ANN)).startswith("Your vote taken back: ")
    assert labels(now_reads(world, alert))[0][1:3] == ["👍 1", "👎 1"]
    await edited(world, alert, like, CAT)  # Cat switches from 👎 to 👍
    assert labels(now_reads(world, alert))[0][1:3] == ["👍 2", "👎"]
    assert now_reads(world, alert)["text"] == text  # the paper's text as it was

    with world.runtime.database.session() as session:
        held = feedback.ratings(session, chat_id=GROUP)
        [paper] = papers.get_papers(session, paper_ids=held).values()
    assert list(held.values()) == [1] and paper.arxiv_id == "2607.00001"  # Ben's and Cat's 👍

    refused = await world.command(GROUP, "/mode digest", user_id=BEN)
    assert "administrators" in refused  # the settings stay the administrators'

    top = await world.command(GROUP, "/top", user_id=ANN)
    assert top.startswith("<b>Most 👍 in this group, the last 7 days</b>\n1. <a href=")
    assert top.endswith("(arXiv:2607.00001) · 👍 2")
    exported = await world.command(GROUP, "/export", user_id=ANN)
    assert "# votes 2607.00001: 👍 2, 👎 0" in exported and str(BEN) not in exported


async def test_a_digest_entry_shows_its_number_and_its_count(world: World) -> None:
    world.server.add_group(GROUP, admins={ADMIN})
    await world.command(GROUP, "/subscribe cache", user_id=ADMIN)
    await world.command(GROUP, "/mode instant", user_id=ADMIN)
    [alert] = await group_alerts(world, 2, first_id=1)  # two papers: numbered entries
    assert labels(alert) == [
        ["📄 1", "👍 1", "👎 1", "🔖 1", "≈ 1"],
        ["📄 2", "👍 2", "👎 2", "🔖 2", "≈ 2"],
    ]
    second = data_of(alert, "👍 2")
    await edited(world, alert, second, ANN)
    await edited(world, alert, second, BEN)
    assert labels(now_reads(world, alert)) == [
        ["📄 1", "👍 1", "👎 1", "🔖 1", "≈ 1"],
        ["📄 2", "2. 👍 2", "👎 2", "🔖 2", "≈ 2"],
    ]
    assert data_of(now_reads(world, alert), "2. 👍 2") == second
    await edited(world, alert, second, BEN)
    assert labels(now_reads(world, alert))[1][1] == "2. 👍 1"


async def test_stop_deletes_the_groups_votes(world: World) -> None:
    world.server.add_group(GROUP, admins={ADMIN})
    await world.command(GROUP, "/subscribe cache", user_id=ADMIN)
    await world.command(GROUP, "/mode instant", user_id=ADMIN)
    [alert] = await group_alerts(world, 1, first_id=1)
    await edited(world, alert, data_of(alert, "👍"), ANN)
    asked = await world.command(GROUP, "/stop", user_id=ADMIN)
    assert asked.startswith("Forget this chat?")
    confirm = world.server.sent(GROUP)[-1]
    edits = len(world.server.calls_to("editMessageText"))
    world.server.press(GROUP, confirm["message_id"], "stop:yes", user_id=ADMIN)
    await world.server.wait_for(lambda: len(world.server.calls_to("editMessageText")) > edits)
    with world.runtime.database.session() as session:
        assert feedback.voted_papers(session, chat_id=GROUP) == {}
        assert feedback.ratings(session, chat_id=GROUP) == {}


async def test_a_reaction_on_a_one_paper_alert_counts_as_its_button(world: World) -> None:
    world.server.add_group(GROUP, admins={ADMIN})
    await world.command(GROUP, "/subscribe cache", user_id=ADMIN)
    await world.command(GROUP, "/mode instant", user_id=ADMIN)
    [alert] = await group_alerts(world, 1, first_id=1)
    [pair] = await group_alerts(world, 2, first_id=2)  # a message of two papers

    async def top_after(*reactions: tuple[dict[str, Any], list[str], list[str], int]) -> str:
        for message, old, new, user_id in reactions:
            world.server.react(GROUP, message["message_id"], new, old, user_id=user_id)
        return await world.command(GROUP, "/top", user_id=ADMIN)  # answered after them

    top = await top_after((alert, [], ["👍"], ANN), (alert, [], ["👍"], BEN))
    assert top.endswith("(arXiv:2607.00001) · 👍 2")
    top = await top_after((alert, ["👍"], ["👎"], BEN), (alert, [], ["❤"], CAT))
    assert top.endswith("(arXiv:2607.00001) · 👍 1")
    with world.runtime.database.session() as session:
        assert list(feedback.voted_papers(session, chat_id=GROUP).values()) == [(1, 1)]
        assert feedback.ratings(session, chat_id=GROUP) == {}  # 1 - 1: no rating
    top = await top_after((alert, ["👍"], [], ANN), (pair, [], ["👍"], CAT))
    assert top.startswith("No 👍 in this group")  # taken off; two papers: not one to count
    with world.runtime.database.session() as session:
        assert list(feedback.voted_papers(session, chat_id=GROUP).values()) == [(0, 1)]

    await edited(world, alert, data_of(alert, "👍"), DAN)  # a button and reactions: one tally
    assert labels(now_reads(world, alert))[0][1:3] == ["👍 1", "👎 1"]


async def test_a_reaction_in_a_private_chat_rates_the_paper(world: World) -> None:
    ada = 101
    await world.command(ada, "/subscribe cache")
    await world.command(ada, "/mode instant")
    await world.drop(day_xml=rss(topic_papers("kv", 1, first_id=1, day=DAY), DAY))
    await world.runtime.deliver()
    [alert] = [m for m in world.server.sent(ada) if "like:" in str(m.get("reply_markup"))]
    world.server.react(ada, alert["message_id"], ["👍"], user_id=ada)
    assert "Ratings: 1 👍, 0 👎" in await world.command(ada, "/status")
    world.server.react(ada, alert["message_id"], [], ["👍"], user_id=ada)
    assert "Ratings: none yet" in await world.command(ada, "/status")


async def test_a_refused_edit_leaves_the_counts_to_the_next_press(world: World) -> None:
    world.server.add_group(GROUP, admins={ADMIN})
    await world.command(GROUP, "/subscribe cache", user_id=ADMIN)
    await world.command(GROUP, "/mode instant", user_id=ADMIN)
    [alert] = await group_alerts(world, 1, first_id=1)
    like = data_of(alert, "👍")
    world.server.fail("editMessageReplyMarkup", "429", retry_after=30)
    assert (await edited(world, alert, like, ANN)).startswith("Your 👍 counted: ")
    assert labels(now_reads(world, alert))[0][1] == "👍"  # flood control: not redrawn
    await edited(world, alert, like, BEN)
    assert labels(now_reads(world, alert))[0][1] == "👍 2"  # both votes, drawn from the store
    said = [m["text"] for m in world.server.sent(GROUP)]
    assert not any("went wrong" in text for text in said)  # nobody told of an error
