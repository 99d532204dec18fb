"""Hostile users through the real Application and the fake Bot API, which refuses what Telegram
refuses (HTML it cannot parse, a text over 4,096 characters): the longest message a user can send,
a list of hostile filters edited in place by its remove button, callback data no button of ours
carries. Every answer is accepted, and nothing reaches the error handler."""

from __future__ import annotations

from bot.store import filters
from tests.telegram.conftest import World

ADA = 101
SORRY = "Sorry, something went wrong"


def filters_of(world: World, chat_id: int) -> list[str]:
    with world.runtime.database.session() as session:
        return [f.source for f in filters.chat_filters(session, chat_id=chat_id)]


async def test_the_longest_message_a_user_can_send_gets_one_accepted_answer(world: World) -> None:
    lines = [f"w{n}" + "&<" * 30 for n in range(60)] + ["((((((((a))))))))", "kv\u202ecache"]
    text = "/import\n" + "\n".join(lines)
    text += "\n" + "x" * (4096 - len(text) - 1)  # Telegram takes up to 4,096 characters
    assert len(text) == 4096
    answer = await world.command(ADA, text)
    assert answer.startswith("Imported 50 filters. 13 lines not imported:\n")
    assert answer.endswith("\n… and 3 more.")
    assert len(world.server.sent(ADA)) == 1 and len(filters_of(world, ADA)) == 50


async def test_a_list_of_hostile_filters_is_edited_in_place_by_its_remove_button(
    world: World,
) -> None:
    await world.command(ADA, "/import\n" + "\n".join(f"w{n}" + "&<" * 35 for n in range(50)))
    listing = await world.server.reply_to(ADA, "/list")
    assert len(listing["reply_markup"]["inline_keyboard"]) == 50
    data = listing["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    world.server.press(ADA, listing["message_id"], data)
    edited = world.server.messages[(ADA, listing["message_id"])]
    await world.server.wait_for(lambda: edited["text"].startswith("Removed "))
    assert edited["text"].startswith("Removed <code>w0&amp;&lt;&amp;&lt;")
    assert len(filters_of(world, ADA)) == 49


async def test_callback_data_no_button_carries_is_answered_without_an_error(world: World) -> None:
    made_up = ["like:²", "like:" + "9" * 30, "remove:" + "9" * 40, "card:-1", "more:1:²", "x" * 64]
    for pressed, data in enumerate(made_up, 1):
        listing = await world.server.reply_to(ADA, "/list")  # each under a message of its own
        world.server.press(ADA, listing["message_id"], data)
        await world.server.wait_for(
            lambda n=pressed: len(world.server.calls_to("answerCallbackQuery")) == n
        )
    assert not any(SORRY in text for text in world.server.texts(ADA))
