"""Every reply of the command layer is written in the chat's language (issue 31, item 5).

The German catalog is filled by translators later, so these tests speak a pseudo German
(tests/pseudo.py): every message of the code with its words wrapped in ⟦ ⟧ (placeholders left
outside, so a value put into a sentence is checked on its own). Under it,
a reply with an English word outside the markers shows a string the code forgot to translate.
Dates, numbers and weekday names are German's (Babel's), as the chat's locale says."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import select

from bot import i18n
from bot.commands import Caller, Reply, handle_text, import_file, press_button
from bot.config import AdminSettings, FilterSettings, InboxSettings, Settings
from bot.core.render import escape
from bot.runtime import Runtime
from bot.sender import Limits
from bot.service import ingest
from bot.store import Database
from bot.store.tables import PaperTable
from tests.conftest import SEEDS, Clock
from tests.pseudo import english_left, use_catalogs, wrapped_words, write_catalog
from tests.transports import RecordingTransport

ADA, GROUP = 1, -5


@pytest.fixture(scope="module")
def pseudo_catalogs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A locale directory whose German catalog is the pseudo translation, words bracketed."""
    directory = tmp_path_factory.mktemp("locale")
    write_catalog(directory, "de", wrapped_words)
    return directory


@pytest.fixture
def german(pseudo_catalogs: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    use_catalogs(monkeypatch, pseudo_catalogs)
    yield
    i18n.translator.cache_clear()  # the real catalogs again for the tests that follow


@pytest.fixture
def runtime(
    tmp_path: Path, database: Database, clock: Clock, transport: RecordingTransport
) -> Runtime:
    settings = Settings(
        inbox=InboxSettings(dir=tmp_path),
        admin=AdminSettings(chat_ids=[]),
        filters=FilterSettings(max_per_chat=2),
    )
    return Runtime.build(settings, database, transport, clock=clock, limits=Limits.off())


@pytest.fixture
def transport() -> RecordingTransport:
    return RecordingTransport()


GERMAN = Caller(ADA, language_code="de")


async def say(runtime: Runtime, text: str, caller: Caller = GERMAN) -> Reply:
    reply = await handle_text(runtime, caller, text, bot_username="paperbot")
    assert reply is not None
    return reply


def english_in(reply: Reply, data: tuple[str, ...] = ()) -> list[str]:
    """The English left in a reply's text and its buttons' labels."""
    labels = [button.label for row in reply.buttons for button in row]
    return [word for text in (reply.text, *labels) for word in english_left(text, data)]


# each a conversation in a German chat; every reply is checked, the last one's and those before
CONVERSATIONS = [
    ["/help"],
    ["/start", "/mode instant", "/start", "/mode weekly fri", "/start"],
    ["hello"],
    ["/nonsense"],
    ["/subscribe"],
    ['/subscribe "kv cache"', '/subscribe "kv cache"', "/subscribe mamba", "/subscribe looped"],
    ["/preview KV-cache", "/preview mamba"],
    ["/list", '/subscribe "kv cache"', "/subscribe mamba", "/list"],
    ["/unsubscribe 9", "/unsubscribe all", "/subscribe mamba", "/unsubscribe 1", "/unsubscribe x"],
    ["/topic 1", "/topic x"],
    ["/mode", "/mode digest", "/mode instant", "/mode weekly fri", "/mode", "/mode weekly x"],
    ["/time", "/time 25:99", "/time 7pm", "/mode instant", "/time 9"],
    ["/timezone", "/timezone berlin", "/timezone Etc/GMT-2", "/timezone berlni", "/timezone +2"],
    ["/timezone UTC+14:30", "/timezone UTC+13"],
    ["/updates", "/updates on", "/updates off"],
    ["/followups", "/followups off", "/followups on"],
    ["/layout", "/layout full", "/layout compact", "/layout abstracts 3", "/layout page 500"],
    ["/pause", "/resume", "/mode digest", "/pause", "/digest", "/resume"],
    ["/quiet", "/quiet silent", "/quiet 11-13", "/quiet silent", "/quiet hold", "/quiet 25-7"],
    ["/quiet off"],
    ["/tune", "/subscribe mamba", "/tune", "/tune x"],
    ["/top", "/top year", "/top month", "/like", "/like 2607.99999 nonsense"],
    ["/saved", "/export", "/export bib", "/export doc", "/import"],
    ['/import\n# a note\n"kv cache"\n"kv cache"\nmamba\nlooped'],
    ["/similar", "/similar 2607.99999"],
    ["/language"],
    ["/stop"],
]


@pytest.mark.parametrize("texts", CONVERSATIONS, ids=lambda texts: texts[0].split()[0])
async def test_every_reply_is_in_the_chats_language(
    german: None, runtime: Runtime, texts: list[str]
) -> None:
    for text in texts:
        reply = await say(runtime, text)
        assert "⟦" in reply.text, (text, reply.text)
        assert english_in(reply) == [], (text, reply)


def paper_titles(runtime: Runtime) -> tuple[str, ...]:
    """Papers' titles and authors: they stay in their language, as escaped in a reply."""
    with runtime.database.session() as session:
        found = session.exec(select(PaperTable.title, PaperTable.authors)).all()
    return tuple(escape(text) for title, authors in found for text in (title, *authors))


def card_rows(transport: RecordingTransport) -> list[int]:
    """The ledger rows of the papers sent, as their buttons name them."""
    found = {
        int(button.data.split(":")[1])
        for message in transport.sent
        for row in message.buttons
        for button in row
        if button.data.startswith("card:")
    }
    return sorted(found)


async def test_status_top_saved_and_the_buttons_are_in_the_chats_language(
    german: None,
    runtime: Runtime,
    clock: Clock,
    transport: RecordingTransport,
) -> None:
    for text in ("/subscribe KV-cache", "/quiet 11-13"):
        await say(runtime, text)
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    assert english_left((await say(runtime, "/digest")).text) == []
    titles = paper_titles(runtime)
    [first, *_] = card_rows(transport)
    presses = [f"save:{first}", f"like:{first}", f"save:{first}", f"save:{first}"]
    presses += ["save:999999", "nonsense", "stop:no", "saved:0"]
    for data in presses:
        pressed = await press_button(runtime, GERMAN, data)
        assert english_in(pressed, titles) == [], (data, pressed)
    steps = ["/status", "/top", "/saved", "/export bib", "/export", "/mode instant", "/status"]
    steps += ["/mode weekly", "/status", "/quiet silent", "/status"]
    for text in steps:
        reply = await say(runtime, text)
        assert english_in(reply, titles) == [], (text, reply)
    # days as German writes them (CLDR's patterns, Babel's names)
    status = (await say(runtime, "/status")).text
    assert "Mo., 26. Okt. 08:00 (UTC)" in status and "22. Okt. 2026" in status, status
    assert (await press_button(runtime, GERMAN, "stop:yes")).text.startswith("⟦")


async def test_a_group_member_who_is_no_administrator_is_told_in_the_chats_language(
    german: None, runtime: Runtime
) -> None:
    async def no() -> bool:
        return False

    member = Caller(GROUP, "group", no, 5, language_code="de")
    await say(runtime, "/help", member)  # the group enters, in German
    for text in ("/subscribe mamba", "/stop"):
        reply = await say(runtime, text, member)
        assert reply.text.startswith("⟦") and english_left(reply.text) == []


async def test_a_file_that_is_no_library_is_refused_in_the_chats_language(
    german: None, runtime: Runtime
) -> None:
    async def read() -> bytes:
        return b"a shopping list, not a library"

    reply = await import_file(runtime, GERMAN, 30, read)
    assert reply.text.startswith("⟦") and english_left(reply.text) == []


async def test_english_is_as_written_in_the_code(runtime: Runtime) -> None:
    english = Caller(ADA, language_code="en")
    assert (await say(runtime, "/mode weekly fri", english)).text.startswith(
        "Weekly: one digest a week, on Fridays at 08:00; the next at Fri 23 Oct 08:00 (UTC)."
    )
    assert (await say(runtime, "/unsubscribe 3", english)).text == (
        "There is no filter 3: this chat has 0. See /list."
    )
