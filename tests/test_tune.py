"""Papers to rate to start, through the command table: a chat's first filter offers them, /tune
sends them, each paper once, on a real database with a recording transport."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from bot.commands import OUT_OF_DATE, Caller, Reply, handle_text, press_button
from bot.config import AdminSettings, InboxSettings, Settings
from bot.core.buttons import Button
from bot.core.starters import OFFERED
from bot.runtime import Runtime
from bot.sender import Limits, Transient
from bot.service import feedback
from bot.store import Database, deliveries, papers
from tests.conftest import Clock
from tests.corpus import mixed_day
from tests.transports import Carried, RecordingTransport

ADA, BOB = 1, 2
DAY = date(2026, 10, 21)
TOPIC_OF = {"kv": range(1, 11), "graph": range(11, 21), "vision": range(21, 31)}
TOPIC_OF["proteins"] = range(31, 41)
RATE_EIGHT = Button("🎯 Rate 8 papers to tune the ranking", "tune:1")
SENT_EIGHT = Reply("Sent: 8 papers to rate.", notice=True, alert=False)
AGAIN = "Try /tune again after the next announcement day brings new papers."


@pytest.fixture
def transport() -> RecordingTransport:
    return RecordingTransport()


@pytest.fixture
def runtime(
    tmp_path: Path, database: Database, clock: Clock, transport: RecordingTransport
) -> Runtime:
    settings = Settings(inbox=InboxSettings(dir=tmp_path), admin=AdminSettings(chat_ids=[777]))
    with database.session() as session:  # 40 papers, ten on each of four topics, all recent
        papers.insert_papers(session, papers=mixed_day(DAY, 10, first_id=1), now=clock())
    return Runtime.build(settings, database, transport, clock=clock, limits=Limits.off())


async def say(runtime: Runtime, text: str, chat_id: int = ADA) -> Reply:
    reply = await handle_text(runtime, Caller(chat_id), text)
    assert reply is not None
    return reply


def offered(runtime: Runtime, message: Carried) -> dict[int, int]:
    """The rows a message's 👍 buttons name, each with its paper's number (the arXiv id's
    last digits), checked to be the chat's rows noted as offered."""
    rows = [int(b.data.split(":")[1]) for row in message.buttons for b in row if b.label[0] == "👍"]
    return {row: paper_number(runtime, row, message.chat_id) for row in rows}


def paper_number(runtime: Runtime, row_id: int, chat_id: int) -> int:
    with runtime.database.session() as session:
        row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=chat_id)
        assert row is not None and row.status == "sent" and row.reason == OFFERED
        [paper] = papers.get_papers(session, paper_ids=[row.paper_id]).values()
    return int(str(paper.arxiv_id)[-5:])


def topic_of(number: int) -> str:
    return next(topic for topic, numbers in TOPIC_OF.items() if number in numbers)


def ledger(runtime: Runtime, chat_id: int = ADA) -> dict[str, int]:
    with runtime.database.session() as session:
        return deliveries.count_deliveries(session, chat_id=chat_id)


async def test_a_first_filter_offers_eight_papers_spread_over_its_topics(
    runtime: Runtime, transport: RecordingTransport
) -> None:
    reply = await say(runtime, "/subscribe propose")  # all 40 papers of the last days
    assert reply.buttons[-1] == [RATE_EIGHT]
    assert await press_button(runtime, Caller(ADA), "tune:1") == SENT_EIGHT
    [message] = transport.sent
    assert message.text.startswith(
        "8 recent papers your filters match, picked to cover their topics. 👍 or 👎 each"
    )
    first = offered(runtime, message)
    assert len(first) == 8 and {topic_of(n) for n in first.values()} == set(TOPIC_OF)
    numbered = [[b.label for b in row] for row in message.buttons]
    assert numbered[0][1:3] == ["👍 1", "👎 1"] and numbered[7][1:3] == ["👍 8", "👎 8"]
    assert ledger(runtime) == {"sent": 8}

    # asked again (the button, then /tune): other papers each time, none twice
    assert await press_button(runtime, Caller(ADA), "tune:1") == SENT_EIGHT
    tuned = await say(runtime, "/tune")
    assert tuned.text.startswith("Above: 8 recent papers your filters match")
    second, third = offered(runtime, transport.sent[1]), offered(runtime, transport.sent[2])
    numbers = [*first.values(), *second.values(), *third.values()]
    assert len(set(numbers)) == 24 and ledger(runtime) == {"sent": 24}

    # offered papers are never sent as new: nothing waits for a digest or an alert
    assert (await say(runtime, "/digest")).text == "Nothing is waiting for you right now."
    assert len(transport.sent) == 3


async def test_a_press_on_an_offered_paper_rates_it_and_the_ranking_learns(
    runtime: Runtime, transport: RecordingTransport
) -> None:
    await say(runtime, "/subscribe propose")
    for _ in range(3):
        await press_button(runtime, Caller(ADA), "tune:1")
    rows = {row: n for message in transport.sent for row, n in offered(runtime, message).items()}
    kv = [row for row, n in rows.items() if topic_of(n) == "kv"]
    other = [row for row, n in rows.items() if topic_of(n) != "kv"]
    assert len(kv) >= 3
    for row in kv[:3]:
        pressed = await press_button(runtime, Caller(ADA), f"like:{row}:1")
        assert pressed.text.startswith("👍 noted: ")
    await press_button(runtime, Caller(ADA), f"dislike:{other[0]}:1")
    assert feedback.counts(runtime.database, chat_id=ADA) == (3, 1)
    with runtime.database.session() as session:
        stored = dict(papers.latest_papers(session, limit=100))
    scores = runtime.app.ranker.scores(ADA)(stored)
    unrated = set(stored) - {paper_of(runtime, row) for row in [*kv[:3], other[0]]}
    ranked = sorted(unrated, key=lambda p: -scores[p])
    top = [topic_of(int(str(stored[p].arxiv_id)[-5:])) for p in ranked[:5]]
    assert top == ["kv"] * 5  # the unrated kv papers first


def paper_of(runtime: Runtime, row_id: int) -> int:
    with runtime.database.session() as session:
        row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=ADA)
    assert row is not None
    return row.paper_id


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ([], 'No filters yet: add one (<code>/subscribe "kv cache"</code>), then /tune offers '
             "papers among its matches to rate."),
        (["/subscribe mamba"], f"No recent paper matches your filters yet. {AGAIN}"),
        (["/subscribe propose", "/pause"], "Alerts are paused; /resume first."),
        (["/subscribe ti:graph", "/tune", "/tune"],
         f"Every recent paper your filters match has reached you or is rated. {AGAIN}"),
    ],
)  # fmt: skip
async def test_tune_says_why_it_offers_nothing(
    runtime: Runtime, transport: RecordingTransport, steps: list[str], expected: str
) -> None:
    for text in steps:
        await say(runtime, text)
    sent = len(transport.sent)
    assert (await say(runtime, "/tune")).text == expected
    assert len(transport.sent) == sent


async def test_rated_papers_are_never_offered(
    runtime: Runtime, transport: RecordingTransport
) -> None:
    await say(runtime, "/subscribe ti:graph")  # the ten graph papers' titles
    await say(runtime, "/like " + " ".join(f"2607.{n:05d}" for n in range(11, 16)))
    await say(runtime, "/tune")
    assert sorted(offered(runtime, transport.sent[0]).values()) == list(range(16, 21))


@pytest.mark.parametrize(
    ("steps", "presser", "data"),
    [
        ([], ADA, "tune:1"),  # no such filter
        (["/subscribe propose"], BOB, "tune:1"),  # ADA's filter
        (["/subscribe propose", "/unsubscribe 1"], ADA, "tune:1"),  # removed since
    ],
)
async def test_the_button_of_a_filter_not_the_chats_sends_nothing(
    runtime: Runtime, transport: RecordingTransport, steps: list[str], presser: int, data: str
) -> None:
    for text in steps:
        await say(runtime, text)
    assert await press_button(runtime, Caller(presser), data) == Reply(OUT_OF_DATE, notice=True)
    assert transport.sent == [] and ledger(runtime, ADA) == ledger(runtime, BOB) == {}


async def test_only_a_first_filter_with_two_matches_or_more_offers_the_button(
    runtime: Runtime,
) -> None:
    one = await say(runtime, '/subscribe ti:"graph pooling" ti:"link prediction" ti:oversmoothing')
    assert all(row != [RATE_EIGHT] for row in one.buttons)
    await say(runtime, "/unsubscribe all")
    first = await say(runtime, "/subscribe ti:graph")
    assert first.buttons[-1] == [Button("🎯 Rate 8 papers to tune the ranking", "tune:2")]
    second = await say(runtime, "/subscribe propose")
    assert all("tune:" not in b.data for row in second.buttons for b in row)


async def test_a_message_telegram_did_not_take_gives_its_papers_back(
    tmp_path: Path, database: Database, clock: Clock, transport: RecordingTransport
) -> None:
    settings = Settings(inbox=InboxSettings(dir=tmp_path))
    once = Limits(0, 0, 0, max_attempts=1)  # Telegram's failure is not retried
    runtime = Runtime.build(settings, database, transport, clock=clock, limits=once)
    with database.session() as session:
        papers.insert_papers(session, papers=mixed_day(DAY, 10, first_id=1), now=clock())
    await say(runtime, "/subscribe propose")
    transport.errors[ADA].append(Transient("Bad Gateway"))
    failed = await press_button(runtime, Caller(ADA), "tune:1")
    assert failed == Reply(
        "Telegram is not taking messages right now; try /tune again soon.", notice=True
    )
    assert transport.sent == [] and ledger(runtime) == {}
    assert await press_button(runtime, Caller(ADA), "tune:1") == SENT_EIGHT  # offered again
