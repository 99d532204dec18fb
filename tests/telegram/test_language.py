"""The reader's language in Telegram (issue 31, item 5): what the bot sends without a command
(alerts, digests, their pages, cards, buttons) and the command menu, in the chat's language.
The real catalogs are filled by translators later; a pseudo language (tests/pseudo.py)
writes every message between ⟦ and ⟧, so an English word outside them went past the catalog."""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import bot.i18n
from bot.commands import COMMANDS
from bot.core.i18n import Translator
from bot.core.paper import Paper
from bot.store import chats, deliveries, papers
from bot.telegram.app import MENU_DESCRIPTION, bot_menu
from tests.pseudo import (
    CLOSE,
    OPEN,
    msgids,
    untranslated,
    use_catalogs,
    wrapped_words,
    write_catalog,
)
from tests.telegram.conftest import World

ADA = 101
SEED_000, SEED_002, SEED_003 = (
    "000_d8ca0602e3945843.txt",
    "002_fdf517bcef682927.txt",
    "003_41440b21456fdd3f.txt",
)


@pytest.fixture
def pseudo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """German, Brazilian Portuguese and Simplified Chinese offered, each as the pseudo language."""
    locale = tmp_path / "locale"
    for language in ("de", "pt_BR", "zh_Hans"):
        write_catalog(locale, language, wrapped_words)
    use_catalogs(monkeypatch, locale)
    yield locale
    bot.i18n.translator.cache_clear()


def all_papers(world: World, chat_id: int = ADA) -> list[Paper]:
    with world.runtime.database.session() as session:
        ids = [row.paper_id for row in deliveries.all_deliveries(session, chat_id=chat_id)]
        return list(papers.get_papers(session, paper_ids=set(ids)).values())


def labels(message: dict[str, Any]) -> list[str]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [button["text"] for row in rows for button in row]


def button(message: dict[str, Any], data: str) -> str:
    """The first button under the message whose data starts so."""
    rows = message["reply_markup"]["inline_keyboard"]
    return str(
        next(b["callback_data"] for row in rows for b in row if b["callback_data"].startswith(data))
    )


# what the tests' readers write: their filters, shown back as they wrote them
FILTERS = ("we", '"kv cache"', "kv cache")


def assert_translated(messages: list[dict[str, Any]], world: World, chat_id: int = ADA) -> None:
    shown = all_papers(world, chat_id)
    for message in messages:
        assert untranslated(message["text"], shown, FILTERS) == [], message["text"]
        for label in labels(message):
            assert untranslated(label) == [], label


async def test_a_german_speakers_alerts_digests_pages_and_cards_are_in_german(
    pseudo: Path, make_world: Callable[..., Any]
) -> None:
    world: World = await make_world()
    world.server.languages[ADA] = "de"
    await world.command(ADA, "/start")
    with world.runtime.database.session() as session:
        chat = chats.get_chat(session, chat_id=ADA)
    assert chat is not None and chat.language == "de"

    await world.command(ADA, "/subscribe we")
    await world.command(ADA, '/subscribe "kv cache"')
    await world.command(ADA, "/mode instant")
    before = len(world.server.sent(ADA))
    await world.drop(SEED_000)
    await world.runtime.deliver()
    alerts = world.server.sent(ADA)[before:]
    assert alerts and all("'like:" in str(m["reply_markup"]) for m in alerts)
    assert_translated(alerts, world)
    assert any(OPEN + "matched" in m["text"] for m in alerts)  # the words around a paper

    await world.command(ADA, "/mode daily")
    await world.command(ADA, "/layout page 5")
    before = len(world.server.sent(ADA))
    await world.drop(SEED_002, SEED_003)
    world.server.say(ADA, "/digest")

    def digest_done() -> bool:
        sent = world.server.sent(ADA)[before:]
        return len(sent) > 1 and "like:" not in str(sent[-1].get("reply_markup"))

    await world.server.wait_for(digest_done)
    digest = [m for m in world.server.sent(ADA)[before:] if "like:" in str(m.get("reply_markup"))]
    header = digest[0]["text"]
    assert header.startswith("<b>" + OPEN + "Your digest") and CLOSE in header
    assert "Dez." in header or "Okt." in header  # a day as German writes it (Babel)
    assert_translated(digest, world)
    assert labels(digest[0])[:4] == ["📄 1", "👍 1", "👎 1", "🔖 1"]  # numbers: no words
    more = [label for label in labels(digest[-1]) if "▸" in label]
    assert more and more[0].endswith(f"{OPEN} more papers ▸{CLOSE}")

    shown = len(world.server.sent(ADA))
    world.server.press(ADA, digest[-1]["message_id"], button(digest[-1], "more:"))
    await world.server.wait_for(lambda: len(world.server.sent(ADA)) > shown)
    page = world.server.sent(ADA)[shown:]
    assert "continued" in page[0]["text"] and page[0]["text"].startswith(f"<b>{OPEN}Your digest")
    assert_translated(page, world)

    shown = len(world.server.sent(ADA))
    world.server.press(ADA, digest[0]["message_id"], button(digest[0], "card:"))
    await world.server.wait_for(lambda: len(world.server.sent(ADA)) > shown)
    [card] = world.server.sent(ADA)[shown:]
    assert "<blockquote expandable>" in card["text"]
    assert_translated([card], world)
    assert labels(card) == ["👍", "👎", OPEN + "🔖 Save" + CLOSE]


async def test_the_command_menu_is_set_in_each_offered_language(
    pseudo: Path, make_world: Callable[..., Any]
) -> None:
    world: World = await make_world()
    menu = [c for c in COMMANDS if not c.operators_only]
    english = world.server.commands
    assert [c["command"] for c in english] == [c.name for c in menu]
    assert all(OPEN not in c["description"] for c in english)
    # Telegram's codes are ISO 639-1: pt_BR's menu is "pt"'s, zh_Hans's "zh"'s
    assert sorted(world.server.menus) == ["de", "pt", "zh"]
    for commands in world.server.menus.values():
        assert [c["command"] for c in commands] == [c.name for c in menu]
        for command, entry in zip(commands, menu, strict=True):  # gettext of each help
            marked = entry.help in msgids()
            assert command["description"] == (wrapped_words(entry.help) if marked else entry.help)
    calls = world.server.calls_to("setMyCommands")
    assert [c.params.get("language_code") for c in calls] == [None, "de", "pt", "zh"]


LAB, ADMIN, THEORY = -1001500, 31, 77


async def test_a_german_forum_is_told_in_german_that_a_topic_was_lost(
    pseudo: Path, make_world: Callable[..., Any]
) -> None:
    world: World = await make_world()
    world.server.add_forum(LAB, admins={ADMIN})
    world.server.languages[ADMIN] = "de"
    await world.server.reply_to(LAB, '/subscribe "kv cache"', user_id=ADMIN, thread=THEORY)
    await world.server.reply_to(LAB, "/mode instant", user_id=ADMIN)
    world.server.close_topic(LAB, THEORY)
    await world.drop(SEED_000, SEED_002, SEED_003)
    await world.runtime.deliver()
    general = [m for m in world.server.sent(LAB) if "message_thread_id" not in m]
    [notice] = [m for m in general if "Administrators" in m["text"]]
    assert notice["text"].startswith(f"{OPEN}Administrators: {CLOSE}{OPEN}topic {CLOSE}77")
    assert untranslated(notice["text"], data=FILTERS) == []
    alerts = [m for m in general if "like:" in str(m.get("reply_markup"))]
    assert alerts
    assert_translated(alerts, world, LAB)


def test_the_check_finds_english_past_the_catalog() -> None:
    assert untranslated(f"{OPEN}<b>{OPEN}Your digest{CLOSE}</b>{CLOSE}: 3 new papers") == [
        "new",
        "papers",
    ]
    assert (
        untranslated(f'<a href="https://arxiv.org/abs/1">arxiv.org/abs/1</a> cs.LG {OPEN}x{CLOSE}')
        == []
    )


class Wordy(gettext.NullTranslations):
    """A language whose every message is long."""

    def gettext(self, message: str) -> str:
        return " ".join([message] * 50)


def test_a_menu_description_is_cut_to_telegrams_limit() -> None:
    menu = bot_menu(Translator("de", Wordy()))
    assert all(len(text) <= MENU_DESCRIPTION and text.endswith("…") for _, text in menu)
