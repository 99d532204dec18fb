"""The command table without Telegram: a chat's text in, the exact reply out, on a real database
with a recording transport (what /digest sends)."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import pytest

from bot.commands import OUT_OF_DATE, Caller, Reply, handle_text, press_button
from bot.config import AdminSettings, FilterSettings, InboxSettings, Settings
from bot.core.buttons import Button
from bot.core.chat import Chat
from bot.core.query import FilterRules
from bot.runtime import Runtime
from bot.sender import Limits
from bot.service import feedback, ingest, subscriptions
from bot.service.composing import Composer, Digest
from bot.service.ranking import Ranker
from bot.store import Database, chats, deliveries, papers
from tests.conftest import SEEDS, Clock
from tests.corpus import mixed_day
from tests.transports import RecordingTransport

ADA, OPERATOR, GROUP = 1, 777, -5
BENICE = "BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing"
ELASTICKV = (
    "ElasticKV: a mixed-fidelity KV runtime built on the observation that target fidelity need "
    "not gate execution"
)
TOPIC_TITLE = "Quantized cache and key value cache for memory footprint"  # 2607.00001's
ADMINS_ONLY = "Only this group's administrators can change its filters and settings."
UNKNOWN_FIELD = (
    "That filter does not work: unknown field 'foo:'; "
    "use ti:, abs:, au:, cat:, mesh:, jr: or src: at 1.\n"
    "<code>foo:bar\n^</code>\n/help shows the syntax with examples."
)


@dataclass
class Admin:
    """A group member's answer to "are you an administrator?", and how often it was asked."""

    answer: bool
    asked: int = 0

    async def __call__(self) -> bool:
        self.asked += 1
        return self.answer


@pytest.fixture
def transport() -> RecordingTransport:
    return RecordingTransport()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        inbox=InboxSettings(dir=tmp_path),
        admin=AdminSettings(chat_ids=[OPERATOR]),
        filters=FilterSettings(max_per_chat=3),
    )


@pytest.fixture
def runtime(
    settings: Settings, database: Database, clock: Clock, transport: RecordingTransport
) -> Runtime:
    return Runtime.build(settings, database, transport, clock=clock, limits=Limits.off())


async def say(runtime: Runtime, text: str, caller: Caller | None = None) -> str:
    reply = await handle_text(runtime, caller or Caller(ADA), text, bot_username="paperbot")
    assert reply is not None and reply.buttons == [] and not reply.notice
    return reply.text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/subscribe", "Usage: <code>/subscribe FILTER</code> (follow a filter)"),
        ("/add", "Usage: <code>/subscribe FILTER</code> (follow a filter)"),
        ("/preview", "Usage: <code>/preview FILTER</code> "
                     "(what a filter matches, without saving it)"),
        ("/mode sometimes", "Mode: digest, digest at 08:00\nUsage: <code>/mode "
                            "instant|digest|weekly [DAY]</code> (each paper at once, a daily "
                            "digest, or a weekly one (on Mondays, or DAY: fri))"),
        ("/mode weekly someday", "<code>someday</code> is not a day of the week.\nUsage: <code>"
                                 "/mode instant|digest|weekly [DAY]</code> (each paper at once, "
                                 "a daily digest, or a weekly one (on Mondays, or DAY: fri))\n"
                                 "Days: mon, tue, wed, thu, fri, sat, sun, or their full names."),
        ("/time 25:99", "<code>25:99</code> is not a time. Digest time now: 08:00 (UTC).\n"
                        "Usage: <code>/time HH:MM</code> (when the digest comes, daily or weekly)\n"
                        "Also: 7, 7pm, 7:30pm, 19.30, 0730, 7h30."),
        ("/time 13pm", "<code>13pm</code> is not a time. Digest time now: 08:00 (UTC).\n"
                       "Usage: <code>/time HH:MM</code> (when the digest comes, daily or weekly)\n"
                       "Also: 7, 7pm, 7:30pm, 19.30, 0730, 7h30."),
        ("/time", "Digest time now: 08:00 (UTC).\n"
                  "Usage: <code>/time HH:MM</code> (when the digest comes, daily or weekly)\n"
                  "Also: 7, 7pm, 7:30pm, 19.30, 0730, 7h30."),
        ("/timezone", "Time zone now: UTC.\n"
                      "Usage: <code>/timezone Area/City</code> (your time zone (or UTC))"),
        ("/updates maybe", "Updates: off\nUsage: <code>/updates on|off</code> "
                           "(also send new versions of papers)"),
        ("/updates", "Updates: off\nUsage: <code>/updates on|off</code> "
                     "(also send new versions of papers)"),
        ("/followups", "Follow-ups of papers you 👍'd or saved: on (/followups off)\n"
                       "Usage: <code>/followups on|off</code> (hear when a paper you 👍'd or "
                       "saved gets a new version with a venue, a journal reference or a DOI, or "
                       "its journal version)"),
        ("/unsubscribe x", "Usage: <code>/unsubscribe N|all</code> (remove filter N (or all))"),
        ("/unsubscribe", "Usage: <code>/unsubscribe N|all</code> (remove filter N (or all))"),
        ("/import", "Usage: <code>/import LINES</code> (add filters, one per line; or a library "
                    "(BibTeX, RIS, CSL-JSON, arXiv ids; a file too), its papers as 👍)\n"
                    "A library can come as a file: Zotero's Export Collection, say."),
    ],
)  # fmt: skip
async def test_bad_arguments_get_a_usage_line(runtime: Runtime, text: str, expected: str) -> None:
    assert await say(runtime, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/subscribe foo:bar", UNKNOWN_FIELD),
        ("/preview foo:bar", UNKNOWN_FIELD),
        (
            "/subscribe a (b OR",
            "That filter does not work: 'OR' has nothing after it at 6.\n"
            "<code>a (b OR\n     ^</code>\n/help shows the syntax with examples.",
        ),
        (
            "/subscribe <b> OR",
            "That filter does not work: 'OR' has nothing after it at 5.\n"
            "<code>&lt;b&gt; OR\n    ^</code>\n/help shows the syntax with examples.",
        ),
        (
            "/subscribe -looped",
            "That filter does not work: a filter needs at least one word to look for, not only "
            "exclusions (e.g. 'distill* -self').\n/help shows the syntax with examples.",
        ),
    ],
)
async def test_a_bad_filter_is_shown_with_a_caret(
    runtime: Runtime, text: str, expected: str
) -> None:
    assert await say(runtime, text) == expected
    assert subscriptions.list_filters(runtime.database, chat_id=ADA) == []


# The clock stands at Thursday 22 Oct 2026, 12:00 UTC.
@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["/mode instant"], "Instant: each matching paper comes as soon as its listing arrives."),
        (["/mode DIGEST"], "Digest: one message a day; the next at Fri 23 Oct 08:00 (UTC)."),
        (["/mode weekly"], "Weekly: one digest a week, on Mondays at 08:00; the next at "
                           "Mon 26 Oct 08:00 (UTC)."),
        (["/mode Weekly fri"], "Weekly: one digest a week, on Fridays at 08:00; the next at "
                               "Fri 23 Oct 08:00 (UTC)."),
        (["/mode weekly THURSDAY"], "Weekly: one digest a week, on Thursdays at 08:00; the next "
                                    "at Thu 29 Oct 08:00 (UTC)."),
        (["/time 13:00", "/mode weekly thu"], "Weekly: one digest a week, on Thursdays at "
                                              "13:00; the next at Thu 22 Oct 13:00 (UTC)."),
        (["/timezone Pacific/Auckland", "/mode weekly fri"], "Weekly: one digest a week, on "
                                                             "Fridays at 08:00; the next at Fri "
                                                             "23 Oct 08:00 (Pacific/Auckland)."),
        (["/mode weekly sun", "/mode what"], "Mode: weekly, on Sundays at 08:00\nUsage: "
                                             "<code>/mode instant|digest|weekly [DAY]</code> "
                                             "(each paper at once, a daily digest, or a weekly "
                                             "one (on Mondays, or DAY: fri))"),
        (["/mode weekly", "/mode digest"], "Digest: one message a day; the next at Fri 23 Oct "
                                           "08:00 (UTC)."),
        (["/mode weekly", "/time 13:15"], "Digest time set to 13:15; the next at Mon 26 Oct "
                                          "13:15 (UTC)."),
        (["/mode weekly wed", "/pause", "/resume"], "Resumed. What was kept comes at Wed 28 Oct "
                                                    "08:00 (UTC)."),
        (["/time 7.30"], "Digest time set to 07:30; the next at Fri 23 Oct 07:30 (UTC)."),
        (["/time 7"], "Digest time set to 07:00; the next at Fri 23 Oct 07:00 (UTC)."),
        (["/time 7pm"], "Digest time set to 19:00; the next at Thu 22 Oct 19:00 (UTC)."),
        (["/time 7:30 PM"], "Digest time set to 19:30; the next at Thu 22 Oct 19:30 (UTC)."),
        (["/time 0730"], "Digest time set to 07:30; the next at Fri 23 Oct 07:30 (UTC)."),
        (["/time 7h30"], "Digest time set to 07:30; the next at Fri 23 Oct 07:30 (UTC)."),
        (["/time 13:15"], "Digest time set to 13:15; the next at Thu 22 Oct 13:15 (UTC)."),
        (
            ["/mode instant", "/time 13:15"],
            "Digest time set to 13:15; the next at Thu 22 Oct 13:15 (UTC) "
            "(used in digest mode: /mode digest).",
        ),
        (
            ["/timezone europe/berlin"],
            "Time zone set to Europe/Berlin; the next digest at Fri 23 Oct 08:00 (Europe/Berlin).",
        ),
        (
            ["/timezone Mars/Base"],
            "I do not know the time zone <code>Mars/Base</code>. Write it as Area/City, like "
            "<code>Europe/Berlin</code> or <code>America/New_York</code>, a city alone "
            "(<code>berlin</code>), UTC or an offset (<code>UTC+2</code>).",
        ),
        (
            ["/timezone new york"],
            "Time zone set to America/New_York; the next digest at Fri 23 Oct 08:00 "
            "(America/New_York).",
        ),
        (
            ["/timezone berln"],
            "I do not know the time zone <code>berln</code>. Did you mean "
            "<code>Europe/Berlin</code>? Write it as Area/City, like <code>Europe/Berlin</code> "
            "or <code>America/New_York</code>, a city alone (<code>berlin</code>), UTC or an "
            "offset (<code>UTC+2</code>).",
        ),
        (
            ["/timezone UTC+2"],
            "Time zone set to Etc/GMT-2; the next digest at Fri 23 Oct 08:00 (Etc/GMT-2).\n"
            "Etc/GMT-2 is UTC+2 all year (POSIX names count the hours the other way round), "
            "without daylight saving; to follow it, name your city, like <code>berlin</code>.",
        ),
        (
            ["/timezone UTC+5:30"],
            "No fixed zone is UTC+5:30 (those are whole hours: Etc/GMT-2 is UTC+2). The zones at "
            "UTC+5:30 now: <code>Asia/Calcutta</code>, <code>Asia/Colombo</code>, "
            "<code>Asia/Kolkata</code>; write one of them.",
        ),
        (["/updates on"], "Updates on: new versions of matching papers come too, "
                          "marked as updates."),
        (["/updates off"], "Updates off: each paper comes once, new versions are not sent."),
        (["/followups off", "/followups on"],
         "Follow-ups on: when a paper you 👍'd or saved gets a new version with a venue, a "
         "journal reference or a DOI, or its journal version, you hear of it once."),
        (["/pause"], "Paused. Matching papers are kept for you; /resume sends them."),
        (["/pause", "/resume"], "Resumed. What was kept comes at Fri 23 Oct 08:00 (UTC)."),
        (["/mode instant", "/resume"], "Resumed. What was kept comes with the next delivery."),
        (["/pause", "/digest"], "Alerts are paused; /resume first."),
        (["/digest"], "Nothing is waiting for you right now."),
        (["/list"], 'No filters yet. Add one with <code>/subscribe "kv cache"</code>.'),
        (["/export"], "No filters to export."),
        (["/unsubscribe all"], "There were no filters to remove."),
        (["/unsubscribe 1"], "There is no filter 1: this chat has 0. See /list."),
        (["/frobnicate"], "I do not know /frobnicate. /help lists what I can do."),
        (["/stats"], "I do not know /stats. /help lists what I can do."),
    ],
)  # fmt: skip
async def test_replies(runtime: Runtime, texts: list[str], expected: str) -> None:
    for text in texts[:-1]:
        await say(runtime, text)
    assert await say(runtime, texts[-1]) == expected


async def test_subscribe_list_and_unsubscribe(runtime: Runtime, clock: Clock) -> None:
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    steps = [
        (
            "/subscribe KV-cache",
            'Filter 1 saved, understood as <code>"kv cache"</code>.\n'
            "It would have matched 2 papers in the last 7 announcement days, such as:\n"
            f"• {BENICE}\n• {ELASTICKV} (headline derived from the abstract)",
        ),
        (
            "/add Looped",
            "Filter 2 saved, understood as <code>looped</code>.\n"
            "It would have matched 1 paper in the last 7 announcement days, such as:\n"
            f"• {BENICE}",
        ),
        ('/subscribe "KV cache"', 'You already follow that, as filter 1: <code>"kv cache"</code>.'),
        (
            "/subscribe mamba",
            "Filter 3 saved, understood as <code>mamba</code>.\n"
            "It would have matched nothing in the last 7 announcement days.",
        ),
        (
            "/subscribe diffusion",
            "This chat has 3 filters, the most it may keep is 3. "
            "Remove one first (/list), or join two with OR.",
        ),
        ("/unsubscribe 4", "There is no filter 4: this chat has 3. See /list."),
        ("/unsubscribe 1,3", "Removed <code>KV-cache</code>, <code>mamba</code>."),
        ("/export", "Your filters, one per line (send them back with /import):\n<pre>Looped</pre>"),
        ("/remove all", "Removed <code>Looped</code>."),
    ]  # fmt: skip
    buttons = {  # a new filter that matched recent papers offers to send them
        "/subscribe KV-cache": [
            [Button("📬 Send me these 2 recent papers now", "recent:1")],
            [Button("🎯 Rate 2 papers to tune the ranking", "tune:1")],  # the chat's first
        ],
        "/add Looped": [[Button("📬 Send me this recent paper now", "recent:2")]],
    }
    for text, expected in steps:
        reply = Reply(expected, buttons.get(text, []))
        assert await handle_text(runtime, Caller(ADA), text) == reply, text


async def test_list_has_a_remove_button_per_filter(runtime: Runtime) -> None:
    for source in ("KV-cache", "au:Hassani", "R&D"):
        await say(runtime, f"/subscribe {source}")
    assert await handle_text(runtime, Caller(ADA), "/list") == Reply(
        "Your filters:\n1. <code>KV-cache</code>\n2. <code>au:Hassani</code>\n"
        "3. <code>R&amp;D</code>",
        [
            [Button("Remove 1", "remove:1")],
            [Button("Remove 2", "remove:2")],
            [Button("Remove 3", "remove:3")],
        ],
    )
    assert await say(runtime, "/export") == (
        "Your filters, one per line (send them back with /import):\n"
        "<pre>KV-cache\nau:Hassani\nR&amp;D</pre>"
    )


async def test_the_remove_button(runtime: Runtime) -> None:
    await say(runtime, "/subscribe KV-cache")
    await say(runtime, "/subscribe looped")
    assert await press_button(runtime, Caller(ADA), "remove:1") == Reply(
        "Removed <code>KV-cache</code>.\nYour filters:\n1. <code>looped</code>",
        [[Button("Remove 1", "remove:2")]],
    )
    assert await press_button(runtime, Caller(ADA), "remove:1") == Reply(
        "Already removed.\nYour filters:\n1. <code>looped</code>",
        [[Button("Remove 1", "remove:2")]],
    )
    assert await press_button(runtime, Caller(2), "remove:2") == Reply(  # not its filter
        'Already removed.\nNo filters yet. Add one with <code>/subscribe "kv cache"</code>.'
    )
    assert await press_button(runtime, Caller(ADA), "remove:2") == Reply(
        "Removed <code>looped</code>.\n"
        'No filters yet. Add one with <code>/subscribe "kv cache"</code>.'
    )


START_OPENING = (
    "Hello! I tell you about new papers that match your filters.\n\n"
    'Add a filter with <code>/subscribe "kv cache"</code> (try <code>/preview</code> first), '
    "see them with /list. "
)
START_CLOSING = (
    " /help has the filter syntax.\n\n"
    "Keep a library (Zotero, a .bib file)? Send me its BibTeX, RIS or CSL-JSON export: "
    "its papers rank what I send you from the start."
)


async def test_a_reader_of_traditional_chinese_is_not_given_simplified(runtime: Runtime) -> None:
    taiwan = Caller(ADA, language_code="zh-TW")
    assert (await say(runtime, "/language", taiwan)).startswith(
        "This chat's language: English (en).\nChoices: en (English), de (Deutsch)"
    )
    asked = await say(runtime, "/language zh-hant", taiwan)
    assert asked.startswith(
        "I do not speak Chinese (Traditional) yet.\nThis chat's language: English (en).\n"
        "Choices: en (English), de (Deutsch), "
    )
    assert "zh_Hans (中文 (简体))" in asked
    german = Caller(ADA, language_code="de")
    await say(runtime, "/language de", german)
    assert (await say(runtime, "/language zh-TW", german)).startswith(
        "Chinesisch (Traditionell) spreche ich noch nicht.\nSprache dieses Chats: Deutsch (de)."
    )
    assert (await say(runtime, "/language tlh", german)).startswith(
        "<code>tlh</code> spreche ich noch nicht."  # a code CLDR does not know: as typed
    )
    for posix in ("C", "und"):  # Babel reads them as English: not a language asked for
        assert (await say(runtime, f"/language {posix}", german)).startswith(
            f"<code>{posix}</code> spreche ich noch nicht."
        )


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("setting", ["/mode instant", "/mode digest", "/mode weekly fri"])
async def test_mode_alone_names_the_mode_as_status_does(
    runtime: Runtime, setting: str, language: str
) -> None:
    """/mode alone tells the mode in the reader's words, /status's line ("Modus: Wochen-Digest
    (weekly), freitags um 08:00"), not the keyword stored."""
    reader = Caller(ADA, language_code=language)
    await say(runtime, setting, reader)
    mode_line = (await say(runtime, "/status", reader)).splitlines()[1]
    assert mode_line.startswith(("Mode: ", "Modus: "))
    assert (await say(runtime, "/mode", reader)).splitlines()[0] == mode_line


@pytest.mark.parametrize(
    ("texts", "middle"),
    [
        ([], "You get one digest a day at 08:00 (UTC); /mode instant sends each paper at once, "
             "/time and /timezone move the digest."),
        (["/mode instant", "/timezone europe/berlin"],
         "Each paper comes as soon as its listing arrives; /mode digest gathers them in one "
         "digest a day at 08:00 (Europe/Berlin)."),
        (["/mode weekly fri", "/time 13:00"],
         "You get one digest a week, on Fridays at 13:00 (UTC); /mode digest sends one a day, "
         "/mode instant each paper at once, /time and /timezone move the digest."),
    ],
)  # fmt: skip
async def test_start_names_the_mode_a_returning_chat_kept(
    runtime: Runtime, texts: list[str], middle: str
) -> None:
    for text in texts:
        await say(runtime, text)
    assert await say(runtime, "/start") == START_OPENING + middle + START_CLOSING


async def test_stop_asks_first(runtime: Runtime) -> None:
    await say(runtime, "/subscribe looped")
    assert await handle_text(runtime, Caller(ADA), "/stop") == Reply(
        "Forget this chat? Its filters, settings and waiting papers are deleted for good.",
        [[Button("Yes, forget everything", "stop:yes"), Button("Cancel", "stop:no")]],
    )
    assert await press_button(runtime, Caller(ADA), "stop:no") == Reply("Nothing was deleted.")
    assert len(subscriptions.list_filters(runtime.database, chat_id=ADA)) == 1
    assert await press_button(runtime, Caller(ADA), "stop:yes") == Reply(
        "Forgotten: no filters, no settings, nothing waiting. /start begins again."
    )
    assert subscriptions.list_filters(runtime.database, chat_id=ADA) == []
    assert await press_button(runtime, Caller(ADA), "stop") == Reply(OUT_OF_DATE)


@pytest.mark.parametrize("data", ["remove:x", "remove:", "digest:now", ""])
async def test_an_unknown_button_is_out_of_date(runtime: Runtime, data: str) -> None:
    assert await press_button(runtime, Caller(ADA), data) == Reply(
        "That button is out of date; try the command again."
    )


async def test_stats_is_for_operators(runtime: Runtime, clock: Clock) -> None:
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    await handle_text(runtime, Caller(ADA), "/subscribe looped")
    await say(runtime, "/pause")
    assert await say(runtime, "/stats", Caller(OPERATOR)) == (
        "Chats: 2 active, 0 inactive, 1 paused\nFilters: 1 (0 indexed)\nPapers: 37\n"
        "Listing files: 3 ingested\nDeliveries: none"
    )
    assert await say(runtime, "/stats") == "I do not know /stats. /help lists what I can do."
    stats_line = "/stats: operators: counts of everything"
    assert stats_line in (await say(runtime, "/help", Caller(OPERATOR))).split("\n")
    assert stats_line not in (await say(runtime, "/help")).split("\n")


async def test_digest_sends_what_waits(
    runtime: Runtime, clock: Clock, transport: RecordingTransport
) -> None:
    await say(runtime, "/subscribe KV-cache")
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    assert await say(runtime, "/digest") == "That was everything waiting: 2 papers."
    assert transport.chats() == [ADA]
    assert await say(runtime, "/digest") == "Nothing is waiting for you right now."


NOTHING_NEW = "Nothing new to send: these papers reached you already or wait for your next digest."


async def test_a_new_filter_sends_its_recent_papers_once_when_asked(
    runtime: Runtime, clock: Clock, transport: RecordingTransport
) -> None:
    """The first run: the seeds arrive before any filter, so a new filter has nothing waiting;
    its button sends what /subscribe counted, once, as a digest through the ledger."""
    await say(runtime, "/subscribe looped")  # BeNice: planned for the chat, and sent
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    assert await say(runtime, "/digest") == "That was everything waiting: 1 paper."
    reply = await handle_text(runtime, Caller(ADA), "/subscribe KV-cache")
    assert reply is not None and reply.buttons == [
        [Button("📬 Send me these 2 recent papers now", "recent:2")]
    ]
    assert await say(runtime, "/digest") == "Nothing is waiting for you right now."
    sent = len(transport.sent)
    pressed = await press_button(runtime, Caller(ADA), "recent:2")
    assert pressed == Reply("Sent: 1 paper.", notice=True, alert=False)  # not BeNice again
    [digest] = transport.texts(ADA)[sent:]
    assert "1 new paper" in digest and "ElasticKV" in digest and "BeNice" not in digest
    assert ledger_of(runtime, ADA) == {"sent": 2}
    again = await press_button(runtime, Caller(ADA), "recent:2")
    assert again == Reply(NOTHING_NEW, notice=True)
    assert len(transport.sent) == sent + 1 and ledger_of(runtime, ADA) == {"sent": 2}


@pytest.mark.parametrize(
    ("steps", "presser", "data", "expected"),
    [
        ([], ADA, "recent:1", Reply(OUT_OF_DATE, notice=True)),  # no such filter
        (['/subscribe "kv cache"'], 2, "recent:1", Reply(OUT_OF_DATE, notice=True)),  # ADA's
        (['/subscribe "kv cache"', "/unsubscribe 1"], ADA, "recent:1",
         Reply(OUT_OF_DATE, notice=True)),
        (['/subscribe "kv cache"', "/pause"], ADA, "recent:1",
         Reply("Alerts are paused; /resume first.", notice=True)),
        (["/subscribe mamba"], ADA, "recent:1", Reply(NOTHING_NEW, notice=True)),  # none recent
        (['/subscribe "kv cache"'], ADA, "recent:1:2", Reply(OUT_OF_DATE)),  # not data we make
    ],
)  # fmt: skip
async def test_the_recent_papers_button_sends_nothing_it_should_not(
    runtime: Runtime,
    clock: Clock,
    transport: RecordingTransport,
    steps: list[str],
    presser: int,
    data: str,
    expected: Reply,
) -> None:
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    for text in steps:
        await handle_text(runtime, Caller(ADA), text)
    assert await press_button(runtime, Caller(presser), data) == expected
    assert transport.sent == [] and ledger_of(runtime, ADA) == ledger_of(runtime, 2) == {}


def ledger_of(runtime: Runtime, chat_id: int) -> dict[str, int]:
    with runtime.database.session() as session:
        return deliveries.count_deliveries(session, chat_id=chat_id)


class HeldComposer(Composer):
    """Composes as the postman's composer does, but a digest of one of the `held` chats waits
    (in the round's thread) until `answered` is set; `composing` is set when one begins."""

    def __init__(
        self, database: Database, rules: FilterRules, ranker: Ranker, *, held: range
    ) -> None:
        super().__init__(database, rules, ranker)
        self.held, self.composing, self.answered = held, threading.Event(), threading.Event()

    def digest(self, chat: Chat, now: datetime) -> Digest:
        if chat.id in self.held:
            self.composing.set()
            self.answered.wait(timeout=60)
        return super().digest(chat, now)


async def test_commands_are_answered_while_a_digest_round_composes(
    settings: Settings, database: Database, clock: Clock, transport: RecordingTransport
) -> None:
    """A digest round composes its chats' digests one after another in the postman's own
    thread: commands that run in a thread (/preview, /subscribe) do not queue behind thousands
    of digests in the event loop's pool, nor does a /digest of a chat outside the round. Here
    the round's composing waits until both have been answered; when composing took the pool's
    threads, they waited for the round."""
    many = 40  # more than the event loop's pool has threads (at most 32)
    in_round = range(100, 100 + many)
    composers: list[HeldComposer] = []

    def held(database: Database, rules: FilterRules, ranker: Ranker) -> Composer:
        composers.append(HeldComposer(database, rules, ranker, held=in_round))
        return composers[-1]

    runtime = Runtime.build(
        settings, database, transport, clock=clock, limits=Limits.off(), composer=held
    )
    [composer] = composers
    for chat_id in in_round:
        await say(runtime, "/subscribe KV-cache", Caller(chat_id))
    await say(runtime, "/subscribe KV-cache")
    await say(runtime, "/mode instant")  # ADA: not in the digest round
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    clock.advance(days=1)  # each chat's digest hour has come
    round_ = asyncio.create_task(runtime.send_due_digests())
    deadline = time.monotonic() + 60
    while not composer.composing.is_set():  # the round has started composing
        assert time.monotonic() < deadline and not round_.done()
        await asyncio.sleep(0.01)
    try:
        preview = await asyncio.wait_for(say(runtime, "/preview KV-cache"), 30)
        digest = await asyncio.wait_for(say(runtime, "/digest"), 30)
    finally:
        composer.answered.set()
    assert "It matches 2 papers" in preview and digest == "That was everything waiting: 2 papers."
    report = await round_
    assert report.digests == many and set(transport.chats()) == {ADA, *in_round}


async def test_status_claims_no_last_digest_before_the_first(
    runtime: Runtime, clock: Clock
) -> None:
    await say(runtime, "/subscribe KV-cache")
    clock.advance(minutes=1)
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    assert "\nSince you started: 37 new papers arrived\n" in await say(runtime, "/status")
    clock.advance(minutes=1)
    assert await say(runtime, "/digest") == "That was everything waiting: 2 papers."
    assert "\nSince the last digest: no announcement (no new listing)\n" in await say(
        runtime, "/status"
    )


async def test_a_digest_of_one_paper_says_paper(runtime: Runtime, clock: Clock) -> None:
    await say(runtime, "/subscribe au:Hassani")
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    assert await say(runtime, "/digest") == "That was everything waiting: 1 paper."


async def test_import_reports_each_line_not_imported(runtime: Runtime) -> None:
    await say(runtime, "/subscribe looped")
    text = "/import KV-cache\n\n# mine\nfoo:bar\nlooped\nmamba\ndiffusion"
    assert await say(runtime, text) == (
        "Imported 2 filters. 1 line you follow already. 2 lines not imported:\n"
        "line 4: unknown field 'foo:'; use ti:, abs:, au:, cat:, mesh:, jr: or src: at 1: "
        "<code>foo:bar</code>\n"
        "line 7: not added, this chat is at its limit of 3"
    )
    assert await say(runtime, "/import looped") == "Imported 0 filters. 1 line you follow already."


@pytest.mark.parametrize(
    "text",
    [
        "/subscribe looped", "/unsubscribe all", "/mode instant", "/time 09:00", "/quiet 22-7",
        "/pause", "/followups off", "/stop", "/language de", "/layout full", "/timezone Berlin",
        "/mode sometimes",  # not a choice, but an attempt at one: a change's, refused alike
    ],
)  # fmt: skip
async def test_group_members_who_are_not_admins_change_nothing(runtime: Runtime, text: str) -> None:
    admin = Admin(False)
    assert await say(runtime, text, Caller(GROUP, "group", admin)) == ADMINS_ONLY
    assert admin.asked == 1
    assert await say(runtime, "/status", Caller(GROUP, "group", admin)) == (
        "Filters: 0 (/list)\nMode: digest, digest at 08:00\nTime zone: UTC\n"
        "Quiet hours: none (/quiet)\nUpdates: off\n"
        "Follow-ups of papers you 👍'd or saved: on (/followups off)\n"
        "Waiting for you: 0 papers\n"  # no filters: no digest to announce
        "Ratings: none yet (👍 under 3 papers ranks your digests)\n"
        "Since you started: no announcement (no new listing)\nNo listing has arrived yet."
    )
    assert admin.asked == 1  # reading is for everyone: not asked


@pytest.mark.parametrize(
    "text",
    ["/language", "/followups", "/updates", "/quiet", "/mode", "/time", "/timezone", "/layout"],
)
async def test_group_members_who_are_not_admins_may_ask_what_is_set(
    runtime: Runtime, text: str
) -> None:
    """A setting's command alone only tells what is set: a member is told, as an
    administrator is, and nobody's rank is asked."""
    member = Admin(False)
    told = await say(runtime, text, Caller(GROUP, "group", member))
    assert told != ADMINS_ONLY and member.asked == 0
    with runtime.database.session() as session:
        before = chats.get_chat(session, chat_id=GROUP)
    assert told == await say(runtime, text, Caller(GROUP, "group", Admin(True)))
    with runtime.database.session() as session:
        assert chats.get_chat(session, chat_id=GROUP) == before  # asking changed nothing


async def test_a_member_reads_the_groups_language_and_quiet_hours(runtime: Runtime) -> None:
    admin, member = Caller(GROUP, "group", Admin(True)), Caller(GROUP, "group", Admin(False))
    await say(runtime, "/quiet 22-7", admin)
    assert (await say(runtime, "/quiet", member)).startswith(
        "Quiet hours: 22:00-07:00 (UTC); alerts that arrive then wait"
    )
    assert (await say(runtime, "/language", member)).startswith(
        "This chat's language: English (en).\nChoices: en (English), de (Deutsch)"
    )


async def test_group_admins_manage_and_buttons_ask_too(runtime: Runtime) -> None:
    admin = Admin(True)
    group_admin = Caller(GROUP, "group", admin)
    assert await say(runtime, "/subscribe looped", group_admin) == (
        "Filter 1 saved, understood as <code>looped</code>.\n"
        "It would have matched nothing in the last 7 announcement days."
    )
    member = Caller(GROUP, "group", Admin(False))
    assert await press_button(runtime, member, "remove:1") == Reply(
        "Only the group's administrators can change its filters.", notice=True
    )
    assert [f.source for f in subscriptions.list_filters(runtime.database, chat_id=GROUP)] == [
        "looped"
    ]
    assert (await press_button(runtime, group_admin, "remove:1")).text.startswith(
        "Removed <code>looped</code>.\n"
    )
    assert admin.asked == 2


async def test_in_a_private_chat_nobody_is_asked(runtime: Runtime) -> None:
    admin = Admin(False)
    assert (await say(runtime, "/pause", Caller(ADA, "private", admin))).startswith("Paused.")
    assert admin.asked == 0


@pytest.mark.parametrize(
    ("caller", "text", "expected"),
    [
        (
            Caller(ADA),
            "hello",
            Reply('I understand commands. Try <code>/subscribe "kv cache"</code> or /help.'),
        ),
        (Caller(GROUP, "group"), "hello", None),
        (Caller(ADA), "/list@otherbot", None),
        (Caller(GROUP, "group"), "/list@otherbot", None),
        (Caller(GROUP, "group"), "/frobnicate", None),  # another bot's command, likely
        (
            Caller(GROUP, "group"),
            "/frobnicate@PaperBot",
            Reply("I do not know /frobnicate. /help lists what I can do."),
        ),
        (
            Caller(ADA),
            "/LIST@PaperBot",
            Reply('No filters yet. Add one with <code>/subscribe "kv cache"</code>.'),
        ),
        (
            Caller(ADA),
            "  /digest  ",
            Reply("Nothing is waiting for you right now."),
        ),
    ],
)
async def test_what_is_for_us(
    runtime: Runtime, caller: Caller, text: str, expected: Reply | None
) -> None:
    assert await handle_text(runtime, caller, text, bot_username="paperbot") == expected


async def test_export_and_import_give_back_the_same_filters(runtime: Runtime) -> None:
    await say(runtime, "/subscribe looped\nmamba")
    exported = await say(runtime, "/export")
    lines = exported.removesuffix("</pre>").split("<pre>")[1]
    await say(runtime, f"/import\n{lines}", Caller(2))
    assert [f.canonical for f in subscriptions.list_filters(runtime.database, chat_id=2)] == [
        "looped AND mamba"
    ]


QUIET_USAGE = (
    "Usage: <code>/quiet 22:00-07:00|off|silent|hold</code> "
    "(quiet hours: alerts wait until they end (or come silently))\n"
    "Like <code>/quiet 22:00-07:00</code>, <code>/quiet 22-7</code> or "
    "<code>/quiet 10pm-7am</code>, in your local time."
)
HOLDING = (
    "alerts that arrive then wait and come together when they end, and so does a digest due "
    "then (/quiet silent sends them without a notification)."
)


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["/quiet"], f"No quiet hours: alerts come at any hour.\n{QUIET_USAGE}"),
        (["/quiet 22-7", "/quiet"], f"Quiet hours: 22:00-07:00 (UTC); {HOLDING}\n{QUIET_USAGE}"),
        (["/quiet 25-7"], "<code>25-7</code> is not a window of hours. No quiet hours: alerts "
                          f"come at any hour.\n{QUIET_USAGE}"),
        (["/quiet 22-22"], "<code>22-22</code> is not a window of hours. No quiet hours: alerts "
                           f"come at any hour.\n{QUIET_USAGE}"),
        (["/quiet 22:00 to 7:00"], f"Quiet hours: 22:00-07:00 (UTC); {HOLDING}"),
        (["/quiet 10pm-7am"], f"Quiet hours: 22:00-07:00 (UTC); {HOLDING}"),
        # the clock says 12:00 UTC, Thursday: in a window of 11-13
        (["/quiet 11-13"], f"Quiet hours: 11:00-13:00 (UTC); {HOLDING}\n"
                           "Quiet now, until Thu 22 Oct 13:00 (UTC)."),
        (["/timezone Europe/Berlin", "/quiet 13-15"],  # 14:00 in Berlin
         f"Quiet hours: 13:00-15:00 (Europe/Berlin); {HOLDING}\n"
         "Quiet now, until Thu 22 Oct 15:00 (Europe/Berlin)."),
        (["/quiet 22-7", "/quiet silent"], "Quiet hours: 22:00-07:00 (UTC); alerts come then "
                                           "without a notification (/quiet hold holds them)."),
        (["/quiet 22-7", "/quiet silent", "/quiet hold"],
         f"Quiet hours: 22:00-07:00 (UTC); {HOLDING}"),
        (["/quiet silent"], "Set the hours first. Like <code>/quiet 22:00-07:00</code>, "
                            "<code>/quiet 22-7</code> or <code>/quiet 10pm-7am</code>, in your "
                            "local time."),
        (["/quiet 22-7", "/quiet off"], "Quiet hours off: alerts come at any hour."),
        (["/quiet 22-7", "/quiet off", "/quiet"],
         f"No quiet hours: alerts come at any hour.\n{QUIET_USAGE}"),
    ],
)  # fmt: skip
async def test_quiet_sets_says_and_ends_the_quiet_hours(
    runtime: Runtime, texts: list[str], expected: str
) -> None:
    for text in texts[:-1]:
        await say(runtime, text)
    assert await say(runtime, texts[-1]) == expected


async def test_status_shows_the_quiet_hours_and_what_they_hold(
    runtime: Runtime, clock: Clock
) -> None:
    for text in ("/subscribe KV-cache", "/mode instant", "/quiet 11-13"):
        await say(runtime, text)
    clock.advance(minutes=1)
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    assert (await runtime.deliver()).messages == 0  # held
    assert (
        "\nQuiet hours: 11:00-13:00, alerts held; quiet now until Thu 22 Oct 13:00 (UTC), "
        "2 papers held\n"
    ) in await say(runtime, "/status")
    await say(runtime, "/quiet silent")
    assert (
        "\nQuiet hours: 11:00-13:00, alerts sent silently; quiet now until Thu 22 Oct 13:00 (UTC)\n"
    ) in await say(runtime, "/status")
    await say(runtime, "/quiet 22-7")
    assert "\nQuiet hours: 22:00-07:00, alerts sent silently\n" in await say(runtime, "/status")


async def test_layout_sets_how_digests_read(runtime: Runtime) -> None:
    usage = (
        "Usage: <code>/layout compact|full, abstracts N, page N</code> (digests and alerts at a "
        "glance or every card; abstracts shown; papers a page)"
    )
    compact = (
        "compact (each paper at a glance, the first 5 with their abstract; every card a button "
        "away), 30 papers a page"
    )
    glance = "\nInstant alerts: at a glance, every card a button away."
    assert await say(runtime, "/layout") == f"Digests now: {compact}.\n{usage}"
    assert await say(runtime, "/layout full") == (
        "Digests: full (every paper's whole card), 30 papers a page.\nInstant alerts: whole cards."
    )
    assert await say(runtime, "/layout page 12") == (
        "Digests: full (every paper's whole card), 12 papers a page.\nInstant alerts: whole cards."
    )
    assert await say(runtime, "/layout compact") == (
        f"Digests: {compact.replace('30', '12')}.{glance}"
    )
    assert await say(runtime, "/layout abstracts 1") == (
        "Digests: compact (each paper at a glance, the first with its abstract; every card a "
        f"button away), 12 papers a page.{glance}"
    )
    assert await say(runtime, "/layout page 500") == (
        "<code>/layout page</code> takes a number from 5 to 100."
    )
    assert (await say(runtime, "/layout abstracts x")).endswith(usage)


async def test_buttons_of_one_chat_touch_nothing_of_another(runtime: Runtime) -> None:
    bob_id = 2
    ada, bob = Caller(ADA), Caller(bob_id)
    await press_button(runtime, ada, "remove:1")  # nothing yet: out of date
    await say(runtime, "/subscribe looped")
    [ada_filter] = subscriptions.list_filters(runtime.database, chat_id=ADA)
    reply = await press_button(runtime, bob, f"remove:{ada_filter.id}")
    assert reply.text.startswith("Already removed.")  # for BOB there is no such filter
    assert subscriptions.list_filters(runtime.database, chat_id=ADA) == [ada_filter]
    for data in ("like:1", "dislike:1", "similar:1", "card:1", "more:1:2"):
        assert await press_button(runtime, bob, data) == Reply(OUT_OF_DATE, notice=True), data
    assert feedback.counts(runtime.database, chat_id=bob_id) == (0, 0)


def store_topics(runtime: Runtime, clock: Clock) -> dict[str, str]:
    """Forty papers with arXiv ids 2607.00001-40 (ten a topic); their titles by id."""
    day = mixed_day(date(2026, 10, 21), 10, first_id=1)
    with runtime.database.session() as session:
        papers.insert_papers(session, papers=day, now=clock())
    return {str(p.arxiv_id): p.title for p in day}


async def test_arxiv_links_are_taken_wherever_an_id_is(runtime: Runtime, clock: Clock) -> None:
    titles = store_topics(runtime, clock)
    assert await say(runtime, "/like https://arxiv.org/abs/2607.00001v2") == (
        f"👍 {titles['2607.00001']}\nRanking starts at 3 👍: 1 so far."
    )
    assert await say(
        runtime, "/dislike http://export.arxiv.org/pdf/2607.00002 arXiv:2607.00003"
    ) == (
        f"👎 {titles['2607.00002']}\n👎 {titles['2607.00003']}\nRanking starts at 3 👍: 1 so far."
    )
    for text, number in [
        ("/similar https://arxiv.org/html/2607.00004v1", 1),
        ("/subscribe like:<https://arxiv.org/abs/2607.00005>", 2),
    ]:  # answered with the recent papers' button, when they matched some
        reply = await handle_text(runtime, Caller(ADA), text, bot_username="paperbot")
        assert reply is not None
        assert reply.text.startswith(f'Filter {number} saved, understood as <code>like "')
    sources = [f.source for f in subscriptions.list_filters(runtime.database, chat_id=ADA)]
    assert sources == ["like:2607.00004", "like:2607.00005"]


async def test_a_like_filter_is_named_in_the_readers_language(
    runtime: Runtime, clock: Clock
) -> None:
    """A "more like this" filter's name is stored in English ('like "Title" and 2 more') and
    shown in the chat's words wherever it is named."""
    titles = store_topics(runtime, clock)
    german = Caller(ADA, language_code="de")
    ids = "2607.00004 2607.00005 2607.00006"
    assert titles["2607.00004"].startswith("Long context inference and prefix reuse for kv ")
    seed = "Long context inference and prefix reuse for kv…"  # the title, shortened
    named = f'ähnlich wie "{seed}" und 2 weitere'
    saved = await handle_text(runtime, german, f"/similar {ids}")
    assert saved is not None and f"<code>{named}</code>" in saved.text
    listed = await handle_text(runtime, german, "/list")
    assert listed is not None  # the name cut to /list's width, the seed's id before it
    assert f'{ids.replace(" ", ",")}</code>: ähnlich wie "Long context' in listed.text
    assert f"# {named}" in await say(runtime, "/export", german)
    again = await say(runtime, f"/subscribe like:{ids}", german)
    assert f"<code>{named}</code>" in again  # already followed: named alike
    [stored] = subscriptions.list_filters(runtime.database, chat_id=ADA)
    assert stored.canonical == f'like "{seed}" and 2 more'  # stored as it always was


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "/similar 2401.00001",
            "<code>2401.00001</code> is not in my database yet: I know only the papers of the "
            "listings I have read. Once a listing carrying it has been read, /similar can use it.",
        ),
        (
            "/like 2401.00001 https://arxiv.org/abs/2401.00002",
            "Not in my database yet: <code>2401.00001</code>, <code>2401.00002</code>. I know "
            "only the papers of the listings I have read; once a listing carrying a paper has "
            "been read, it can be rated.",
        ),
        (
            "/like 2607.00001 banana",
            f"👍 {TOPIC_TITLE}\nNot an arXiv id: <code>banana</code> (write 2506.01234, or the "
            "paper's arxiv.org link).\nRanking starts at 3 👍: 1 so far.",
        ),
    ],
)
async def test_an_id_not_stored_is_named_with_when_it_will_work(
    runtime: Runtime, clock: Clock, text: str, expected: str
) -> None:
    store_topics(runtime, clock)
    assert await say(runtime, text) == expected
    assert subscriptions.list_filters(runtime.database, chat_id=ADA) == []


async def test_a_category_arxiv_does_not_have_is_saved_with_a_warning(runtime: Runtime) -> None:
    nearest = (
        "⚠ <code>cat:cs.xy</code> names no arXiv category, so no paper has it. The nearest: "
        "cs.SY (Systems and Control), cs.CY (Computers and Society), cs.SI (Social and "
        "Information Networks)."
    )
    assert await say(runtime, "/subscribe cat:cs.XY") == (
        "Filter 1 saved, understood as <code>cat:cs.xy</code>.\n"
        f"It would have matched nothing in the last 7 announcement days.\n{nearest}"
    )
    assert await say(runtime, "/preview cat:cs.XY OR cat:cs.LG") == (
        "<code>cat:cs.xy OR cat:cs.lg</code> (not saved; /subscribe saves it)\n"
        f"It matches nothing in the last 7 announcement days.\n{nearest}"
    )
    for archives in ("cat:cs.*", "cat:math", "cat:hep-th"):
        assert await say(runtime, f"/preview {archives}") == (
            f"<code>{archives.lower()}</code> (not saved; /subscribe saves it)\n"
            "It matches nothing in the last 7 announcement days."
        )


async def test_status_of_a_weekly_chat_names_its_day(runtime: Runtime) -> None:
    await say(runtime, "/subscribe KV-cache")
    await say(runtime, "/mode weekly")
    status = await say(runtime, "/status")
    assert "\nMode: weekly, on Mondays at 08:00\n" in status
    assert "\nNext digest: Mon 26 Oct 08:00 (UTC)" in status


async def test_digest_sends_what_waits_for_a_weekly_chat(runtime: Runtime, clock: Clock) -> None:
    await say(runtime, "/subscribe KV-cache")
    await say(runtime, "/mode weekly fri")
    ingest.ingest_paths(runtime.database, [SEEDS], clock=clock)
    runtime.plan()
    assert await say(runtime, "/digest") == "That was everything waiting: 2 papers."
    assert await say(runtime, "/digest") == "Nothing is waiting for you right now."
