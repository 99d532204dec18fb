"""Papers to rate to start, as a reader meets them in Telegram: the real Application against the
fake Bot API, a first filter's button, the papers' 👍 (buttons, and reactions as on alerts), and
/tune with nothing left to offer."""

from __future__ import annotations

from datetime import date
from typing import Any

from bot.service import feedback
from bot.store import feedback as ratings
from bot.store import papers as stored
from tests.corpus import mixed_day, rss, topic_papers
from tests.telegram.conftest import World

ADA = 101
DAY = date(2026, 7, 1)


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for row in message["reply_markup"]["inline_keyboard"] for b in row]


async def press(world: World, message: dict[str, Any], data: str) -> str:
    """ADA presses a button; the notice she reads."""
    answered = len(world.server.calls_to("answerCallbackQuery"))
    world.server.press(ADA, message["message_id"], data)
    await world.server.wait_for(
        lambda: len(world.server.calls_to("answerCallbackQuery")) > answered
    )
    return str(world.server.calls_to("answerCallbackQuery")[answered].params.get("text"))


async def test_a_first_filter_offers_papers_to_rate_and_their_buttons_rate(world: World) -> None:
    await world.drop(day_xml=rss(mixed_day(DAY, 5, first_id=1), DAY))  # 20 papers, 4 topics
    reply = await world.server.reply_to(ADA, "/subscribe propose")
    [offer] = [b for b in buttons(reply) if b["callback_data"].startswith("tune:")]
    assert offer["text"] == "🎯 Rate 8 papers to tune the ranking"

    before = len(world.server.sent(ADA))
    assert await press(world, reply, offer["callback_data"]) == "Sent: 8 papers to rate."
    [papers] = world.server.sent(ADA)[before:]
    assert papers["text"].startswith("8 recent papers your filters match")
    likes = [b for b in buttons(papers) if b["text"].startswith("👍")]
    assert [b["text"] for b in likes] == [f"👍 {n}" for n in range(1, 9)]

    assert (await press(world, papers, likes[0]["callback_data"])).startswith("👍 noted: ")
    assert feedback.counts(world.runtime.database, chat_id=ADA) == (1, 0)

    assert (await tune(world)).startswith("Above: 8 recent papers")  # eight more
    assert (await tune(world)).startswith("Above: 4 recent papers")  # the last four
    assert await tune(world) == (
        "Every recent paper your filters match has reached you or is rated. "
        "Try /tune again after the next announcement day brings new papers."
    )
    offered = [m for m in world.server.sent(ADA) if m["text"][0].isdigit()]  # the papers
    assert [len([b for b in buttons(m) if b["text"][0] == "👍"]) for m in offered] == [8, 8, 4]


async def tune(world: World) -> str:
    """/tune's reply, which follows the papers it sends."""
    before = len(world.server.sent(ADA))
    world.server.say(ADA, "/tune")
    await world.server.wait_for(
        lambda: any(m["text"][:6] in ("Above:", "Every ") for m in world.server.sent(ADA)[before:])
    )
    return str(world.server.sent(ADA)[-1]["text"])


async def test_a_reaction_on_an_offer_of_one_paper_rates_it_as_on_an_alert(world: World) -> None:
    await world.drop(day_xml=rss(topic_papers("kv", 1, first_id=1, day=DAY), DAY))
    await world.command(ADA, "/subscribe cache")
    assert (await tune(world)).startswith("Above: a recent paper")
    [offer] = [m for m in world.server.sent(ADA) if "like:" in str(m.get("reply_markup"))]
    world.server.react(ADA, offer["message_id"], ["👍"], user_id=ADA)
    assert "Ratings: 1 👍, 0 👎" in await world.command(ADA, "/status")  # answered after it
    with world.runtime.database.session() as session:
        [paper_id] = ratings.ratings(session, chat_id=ADA)
        [paper] = stored.get_papers(session, paper_ids=[paper_id]).values()
    assert f"arxiv.org/abs/{paper.arxiv_id}" in offer["text"]  # the paper offered
    world.server.react(ADA, offer["message_id"], [], ["👍"], user_id=ADA)
    assert "Ratings: none yet" in await world.command(ADA, "/status")


async def test_a_reaction_on_an_offer_of_several_rates_none_as_on_an_alert(world: World) -> None:
    """A 👍 on a message of eight papers does not say which: its buttons do."""
    await world.drop(day_xml=rss(mixed_day(DAY, 5, first_id=1), DAY))
    await world.command(ADA, "/subscribe propose")
    assert (await tune(world)).startswith("Above: 8 recent papers")
    [offer] = [m for m in world.server.sent(ADA) if "like:" in str(m.get("reply_markup"))]
    world.server.react(ADA, offer["message_id"], ["👍"], user_id=ADA)
    assert "Ratings: none yet" in await world.command(ADA, "/status")
