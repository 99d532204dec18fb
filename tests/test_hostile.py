"""Hostile users, through the command layer Telegram and the console share: 10,000-character
messages, absurd arguments, imports of thousands of lines, a /like of a thousand ids, control
characters and right-to-left text get a clear answer (one message, in HTML Telegram accepts, as
the fake Bot API checks it) and break nothing: no exception, nothing stored that should not be.
Button data made up by a client does nothing. tests/telegram/test_hostile_telegram.py sends some
of these through the fake Bot API; tests/test_hostile_security.py holds the security checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.commands import COMMANDS_BY_NAME, OUT_OF_DATE, Caller, Reply, handle_text, press_button
from bot.config import InboxSettings, Settings
from bot.core.telegram_text import split_message
from bot.runtime import Runtime
from bot.sender import Limits
from bot.service import subscriptions
from bot.store import Database
from tests.conftest import Clock
from tests.telegram_html import check_message
from tests.test_cli import paperbot
from tests.transports import RecordingTransport

ADA = 1
IDS = " ".join(f"2601.{n:05d}" for n in range(1000))
THOUSANDS = "\n".join(f"topic{n}" for n in range(5000))  # a /import of 5,000 filters


@pytest.fixture
def runtime(database: Database, clock: Clock, tmp_path: Path) -> Runtime:
    settings = Settings(inbox=InboxSettings(dir=tmp_path))  # the default limits: 50 filters
    return Runtime.build(settings, database, RecordingTransport(), clock=clock, limits=Limits.off())


def sendable(reply: Reply) -> str:
    """The reply's text, checked: one message, which Telegram accepts."""
    [message] = split_message(reply.text)
    assert check_message(message, "HTML") is None, check_message(message, "HTML")
    return message


async def answer(runtime: Runtime, text: str, caller: Caller | None = None) -> str:
    reply = await handle_text(runtime, caller or Caller(ADA), text, bot_username="paperbot")
    assert reply is not None
    return sendable(reply)


def filters(runtime: Runtime, chat_id: int = ADA) -> list[str]:
    return [f.source for f in subscriptions.list_filters(runtime.database, chat_id=chat_id)]


ABSURD = [  # (what a user sends, what the one message answering it says)
        ("/layout page 999999999999999999999", "<code>/layout page</code> takes a number from 5"),
        ("/layout page " + "9" * 5000, "<code>/layout page</code> takes a number from 5 to 100."),
        ("/layout page -5", "\nUsage: <code>/layout compact|full, abstracts N, page N</code>"),
        ("/layout abstracts ²", "\nUsage: <code>/layout compact|full, abstracts N, page N</code>"),
        ("/layout page ١٠", "Digests: compact"),  # Arabic-Indic ten: a number
        ("/unsubscribe 99999999999999999999", "There is no filter 99999999999999999999: this"),
        ("/unsubscribe -1", "There is no filter -1: this chat has 0. See /list."),
        ("/unsubscribe ²", "Usage: <code>/unsubscribe N|all</code>"),
        ("/unsubscribe " + "1" * 5000, "Usage: <code>/unsubscribe N|all</code>"),
        ("/time 25:99", "Digest time now: 08:00 (UTC).\nUsage: <code>/time HH:MM</code>"),
        ("/time -1:00", "Usage: <code>/time HH:MM</code>"),
        ("/time ٩:٣٠", "Usage: <code>/time HH:MM</code>"),
        ("/digest 25:99", "Nothing is waiting for you right now."),
        ("/timezone " + "x" * 10_000, "the time zone <code>" + "x" * 79 + "…</code>."),
        ("/timezone ../../../../etc/passwd", "the time zone <code>../../../../etc/passwd</code>"),
        ("/timezone /etc/localtime", "I do not know the time zone <code>/etc/localtime</code>"),
        ("/timezone Europe/Berlin\x00", "the time zone <code>Europe/Berlin\ufffd</code>"),
        ("/timezone שלום", "I do not know the time zone <code>שלום</code>"),
        ("/mode " + "\u202e" * 100, "Usage: <code>/mode instant|digest|weekly [DAY]</code>"),
        ("/mode weekly " + "x" * 10_000, "<code>" + "x" * 79 + "…</code> is not a day of the"),
        ("/mode weekly <b>fri", "<code>&lt;b&gt;fri</code> is not a day of the week."),
        ("/updates " + "on" * 5000, "Usage: <code>/updates on|off</code>"),
        ("/subscribe " + " OR ".join(["kv"] * 10_000), "filter too long (59,996 characters, at"),
        ("/subscribe " + "(" * 10_000 + "a", "filter too long (10,001 characters, at most 300)"),
        ("/subscribe ((((((((((a))))))))))", "nesting too deep (at most 6 levels) at 7"),
        ('/subscribe "' + "\\" * 200, "unbalanced quote at 1"),
        ("/subscribe kv\x00cache", "not allowed in a filter at 3.\n<code>kv\ufffdcache\n  ^"),
        ("/preview " + "y" * 10_000, "filter too long (10,000 characters, at most 300)"),
        ("/" + "x" * 10_000, "I do not know /" + "x" * 39 + "…. /help lists what I can do."),
        ("/like " + IDS, "in my database yet: <code>2601.00000</code>, <code>2601.00001</code>"),
        ("/like " + IDS, " and 990 more ids. I know only the papers of the listings I have read;"),
        ("/dislike " + "x" * 10_000, "Not an arXiv id: <code>" + "x" * 29 + "…</code> (write"),
        ("/similar " + IDS, "That filter does not work: at most 10 seed papers."),
        ("/start " + "x" * 10_000, "Hello! I tell you about new papers"),
        ("/status " + "x" * 10_000, "Filters: 0 (/list)"),
        ("/list " + "x" * 10_000, "No filters yet."),
        ("/export " + "x" * 10_000, "Usage: <code>/export [bib|ris|csv]</code>"),
        ("x" * 10_000, "I understand commands."),

]  # fmt: skip


async def test_absurd_arguments_get_a_clear_answer(runtime: Runtime) -> None:
    """One chat meets every case (each on a fresh database would take a minute)."""
    unclear = [
        (text[:40], expected)
        for text, expected in ABSURD
        if expected not in await answer(runtime, text)
    ]
    assert unclear == []
    assert filters(runtime) == []


async def test_right_to_left_and_invisible_characters_are_words(runtime: Runtime) -> None:
    assert await answer(runtime, "/subscribe שלום עולם") == (
        "Filter 1 saved, understood as <code>שלום AND עולם</code>.\n"
        "It would have matched nothing in the last 7 announcement days."
    )
    assert "understood as <code>diffusion</code>" in await answer(
        runtime, "/subscribe \u202ediffusion\u200b"
    )
    assert filters(runtime) == ["שלום עולם", "\u202ediffusion\u200b"]


async def test_an_import_of_five_thousand_filters_keeps_fifty_and_says_so_briefly(
    runtime: Runtime,
) -> None:
    reply = await answer(runtime, f"/import\n{THOUSANDS}")
    assert reply.startswith("Imported 50 filters. 4,950 lines not imported:\n")
    assert reply.count("not added, this chat is at its limit of 50") == 10
    assert reply.endswith("\n… and 4,940 more.")
    assert len(filters(runtime)) == 50
    # and the chat at its limit still lists, in one message a remove button's answer can replace
    assert (await answer(runtime, "/list")).count("<code>") == 50


async def test_an_import_of_bad_lines_names_the_first_few(runtime: Runtime) -> None:
    lines = "\n".join(["(" * 20 + "x", "a\x00b", "foo:bar", "-only", *["\\" * 50] * 100])
    reply = await answer(runtime, f"/import\n{lines}")
    assert reply.startswith("Imported 0 filters. 104 lines not imported:\nline 1: nesting too deep")
    assert (
        "line 2: control character (U+0000) not allowed in a filter at 2: <code>a\ufffdb</code>"
        in reply
    )
    assert reply.endswith("\n… and 94 more.") and filters(runtime) == []


async def test_fifty_long_hostile_filters_list_in_one_message(runtime: Runtime) -> None:
    """Filters of '&' and '<' grow five times when escaped: the list still fits one message,
    which the remove button's answer replaces in place (an edit cannot split)."""
    for n in range(50):
        assert "saved" in await answer(runtime, f"/subscribe w{n}" + "&<" * 140)
    listed = await answer(runtime, "/list")
    assert listed.count("<code>") == 50
    removed = await press_button(runtime, Caller(ADA), "remove:1")
    assert sendable(removed).startswith("Removed <code>w0&amp;&lt;")
    assert sendable(await answer_reply(runtime, "/unsubscribe all")) == "Removed 49 filters."
    exported = await answer_reply(runtime, "/export")
    assert exported.text.startswith("No filters")


async def answer_reply(runtime: Runtime, text: str) -> Reply:
    reply = await handle_text(runtime, Caller(ADA), text, bot_username="paperbot")
    assert reply is not None
    return reply


async def test_an_export_of_hostile_filters_splits_between_blocks(runtime: Runtime) -> None:
    for n in range(50):
        await answer(runtime, f"/subscribe w{n}" + "&" * 280)
    reply = await answer_reply(runtime, "/export")
    parts = split_message(reply.text)
    assert all(check_message(part, "HTML") is None for part in parts)
    exported = "".join(parts)
    assert all(f"w{n}" + "&amp;" * 280 in exported for n in range(50))  # nothing cut


BUTTON_DATA = [
    "like:²", "like:" + "9" * 30, "dislike:-1", "remove:" + "9" * 30, "card:99999999999999999999",
    "more:1:" + "9" * 30, "more:1:0", "similar:", "stop:maybe", "x" * 64, ":", "like:1:0",
    "like:1:2:3", "remove:١", "like:\x00", "",
]  # fmt: skip


async def test_button_data_made_up_by_a_client_does_nothing(runtime: Runtime) -> None:
    await answer(runtime, "/subscribe looped")
    for data in BUTTON_DATA:
        reply = await press_button(runtime, Caller(ADA), data)
        assert reply.text in (OUT_OF_DATE, "") or reply.text.startswith("Already removed."), data
    assert filters(runtime) == ["looped"]


COMMAND_NAMES = sorted(COMMANDS_BY_NAME) + ["frobnicate", "", "subscribe@other"]
PIECES = [
    "a", " ", "1", "-1", "99999999999999999999", "²", "١", "OR ", "(", ")", '"', "\\", "*", ":",
    "ti:", "\x00", "\u202e", "\u200b", "שלום", "😀", "<b>", "&", "\n", "2601.00001", "all", "page",
    "abstracts", "compact", "on", "25:99", "Europe/Berlin", "like:", "..",
]  # fmt: skip
ARGUMENTS = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.builds(lambda piece, times: piece * times, st.sampled_from(PIECES), st.integers(1, 5000)),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(name=st.sampled_from(COMMAND_NAMES), arguments=ARGUMENTS, group=st.booleans())
async def test_any_command_with_any_arguments_gets_an_answer(
    runtime: Runtime, name: str, arguments: str, group: bool
) -> None:
    caller = Caller(-5, "group", _yes) if group else Caller(ADA)
    reply = await handle_text(runtime, caller, f"/{name} {arguments}", bot_username="paperbot")
    if reply is None:  # a command for another bot, in a group
        assert group or "@" in name
        return
    for part in split_message(reply.text):
        assert check_message(part, "HTML") is None, part
    assert len(filters(runtime, caller.chat_id)) <= 50


async def _yes() -> bool:
    return True


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    action=st.sampled_from(["card", "more", "like", "dislike", "similar", "remove", "stop", "x"]),
    value=st.lists(st.sampled_from([*PIECES, "7", ":"]), max_size=8).map("".join),
)
async def test_any_button_data_gets_an_answer(runtime: Runtime, action: str, value: str) -> None:
    reply = await press_button(runtime, Caller(ADA), f"{action}:{value}")
    if not reply.notice:
        assert check_message(reply.text, "HTML") is None


def test_the_console_answers_hostile_lines_and_exits_cleanly(tmp_path: Path) -> None:
    """The other adapter of the same command layer: `paperbot console` with piped input."""
    lines = [
        "/timezone " + "x" * 10_000,
        "/subscribe kv\x00cache",
        "/layout abstracts ²",
        "/" + "y" * 10_000,
        "/like " + IDS,
        "/subscribe שלום",
        "/status",
    ]
    (tmp_path / "inbox").mkdir()
    env = {"PAPERBOT_INBOX_DIR": "inbox"}
    result = paperbot(tmp_path, "console", stdin="\n".join(lines) + "\n", env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for answer in [
        "I do not know the time zone " + "x" * 79 + "…",
        "control character (U+0000) not allowed in a filter at 3",
        "Usage: /layout compact|full, abstracts N, page N",
        "I do not know /" + "y" * 39 + "…",
        " and 990 more ids",
        "Filter 1 saved, understood as שלום.",
        "Filters: 1 (/list)",
    ]:
        assert answer in result.stdout, answer
