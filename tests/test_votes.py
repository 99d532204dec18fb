"""A lab's votes through the command layer, on a real database: each member's 👍/👎 counted once
per paper and shown on the buttons, the group's rating the sign of the sum, /top over a span,
/export's counts, /stop and a supergroup's move."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest

from bot.commands import OUT_OF_DATE, Caller, Reply, handle_text, press_button
from bot.config import InboxSettings, Settings
from bot.core.buttons import reaction_vote
from bot.runtime import Runtime
from bot.sender import Limits
from bot.service import feedback
from bot.store import Database, deliveries, papers
from bot.store import feedback as stored_feedback
from tests.conftest import Clock
from tests.corpus import rss, topic_papers
from tests.test_commands import Admin
from tests.transports import RecordingTransport

GROUP, CHANNEL, ADA = -5, -100777, 1
ANN, BEN, CAT, DAN = 11, 12, 13, 14  # members of the group; none an administrator
DAY = date(2026, 10, 21)


@pytest.fixture
def runtime(database: Database, clock: Clock, tmp_path: Path) -> Runtime:
    settings = Settings(inbox=InboxSettings(dir=tmp_path, settle_seconds=0))
    return Runtime.build(settings, database, RecordingTransport(), clock=clock, limits=Limits.off())


def member(user_id: int, chat_id: int = GROUP, admin: Admin | None = None) -> Caller:
    return Caller(chat_id, "group", admin or Admin(False), user_id)


async def say(runtime: Runtime, text: str, caller: Caller) -> str:
    reply = await handle_text(runtime, caller, text, bot_username="paperbot")
    assert reply is not None
    return reply.text


async def papers_sent(runtime: Runtime, tmp_path: Path, *chat_ids: int) -> dict[str, int]:
    """Twelve papers on KV caches arrive, and each chat follows "cache" (in a group, as its
    administrator): arXiv id -> the paper's ledger row in the first chat."""
    for chat_id in chat_ids:
        caller = Caller(chat_id, "private" if chat_id > 0 else "group", Admin(True))
        await say(runtime, "/subscribe cache", caller)
    listing = tmp_path / "day.xml"
    listing.write_text(rss(topic_papers("kv", 12, first_id=1, day=DAY), DAY))
    os.utime(listing, (0, 0))  # long settled
    runtime.scan()
    with runtime.database.session() as session:
        rows = deliveries.all_deliveries(session, chat_id=chat_ids[0])
        found = papers.get_papers(session, paper_ids=[row.paper_id for row in rows])
    return {str(found[row.paper_id].arxiv_id): row.id for row in rows}


def votes(runtime: Runtime, chat_id: int = GROUP) -> dict[str, tuple[int, int]]:
    """The members' (👍, 👎) by arXiv id, as stored."""
    with runtime.database.session() as session:
        voted = stored_feedback.voted_papers(session, chat_id=chat_id)
        found = papers.get_papers(session, paper_ids=voted)
    return {str(found[p].arxiv_id): (n.likes, n.dislikes) for p, n in voted.items()}


def ratings(runtime: Runtime, chat_id: int = GROUP) -> dict[str, int]:
    """The chat's own rating by arXiv id: what its ranking learns from."""
    with runtime.database.session() as session:
        held = stored_feedback.ratings(session, chat_id=chat_id)
        found = papers.get_papers(session, paper_ids=held)
    return {str(found[p].arxiv_id): value for p, value in held.items()}


async def test_each_member_votes_once_and_the_buttons_count_them(
    runtime: Runtime, tmp_path: Path
) -> None:
    rows = await papers_sent(runtime, tmp_path, GROUP)
    paper, row = "2607.00001", rows["2607.00001"]
    nobody_asked = Admin(False)
    ann = member(ANN, admin=nobody_asked)

    first = await press_button(runtime, ann, f"like:{row}")
    assert first.notice and not first.alert and first.text.startswith("Your 👍 counted: ")
    assert first.relabel == {f"like:{row}": "👍 1", f"dislike:{row}": "👎"}
    assert nobody_asked.asked == 0  # voting is every member's: nobody is asked
    await press_button(runtime, member(BEN), f"like:{row}")
    third = await press_button(runtime, member(CAT), f"dislike:{row}")
    assert third.relabel == {f"like:{row}": "👍 2", f"dislike:{row}": "👎 1"}
    assert votes(runtime) == {paper: (2, 1)} and ratings(runtime) == {paper: 1}

    again = await press_button(
        runtime, ann, f"like:{row}"
    )  # the same button: Ann's vote taken back
    assert again.text.startswith("Your vote taken back: ")
    assert again.relabel == {f"like:{row}": "👍 1", f"dislike:{row}": "👎 1"}
    assert votes(runtime) == {paper: (1, 1)} and ratings(runtime) == {}  # 1 - 1: no rating

    switched = await press_button(runtime, member(CAT), f"like:{row}")  # the other button: switched
    assert switched.relabel == {f"like:{row}": "👍 2", f"dislike:{row}": "👎"}
    assert votes(runtime) == {paper: (2, 0)} and ratings(runtime) == {paper: 1}

    for _ in range(3):  # a member's presses never weigh more than once
        await press_button(runtime, member(DAN), f"dislike:{row}")
    assert votes(runtime) == {paper: (2, 1)} and ratings(runtime) == {paper: 1}
    assert await say(runtime, "/status", member(ANN)) == await say(runtime, "/status", ann)
    assert "Ratings: 1 👍, 0 👎" in await say(runtime, "/status", ann)


async def test_a_digest_entry_keeps_its_number_beside_the_count(
    runtime: Runtime, tmp_path: Path
) -> None:
    rows = await papers_sent(runtime, tmp_path, GROUP)
    row = rows["2607.00003"]
    voted = await press_button(runtime, member(ANN), f"dislike:{row}:3")
    assert voted.relabel == {f"like:{row}:3": "👍 3", f"dislike:{row}:3": "3. 👎 1"}
    taken_back = await press_button(runtime, member(ANN), f"dislike:{row}:3")
    assert taken_back.relabel == {f"like:{row}:3": "👍 3", f"dislike:{row}:3": "👎 3"}


async def test_the_groups_ranking_learns_from_the_sum_of_votes(
    runtime: Runtime, tmp_path: Path
) -> None:
    rows = await papers_sent(runtime, tmp_path, GROUP)
    liked, split, disliked = ["2607.00001", "2607.00002", "2607.00003"], "2607.00004", "2607.00005"
    for arxiv in liked:  # one 👍 each, by different members: three 👍 for the group
        await press_button(
            runtime, member(ANN if arxiv != "2607.00003" else BEN), f"like:{rows[arxiv]}"
        )
    for user in (ANN, BEN):
        await press_button(runtime, member(user), f"like:{rows[split]}")
    await press_button(runtime, member(CAT), f"dislike:{rows[split]}")
    for user in (ANN, BEN):
        await press_button(runtime, member(user), f"dislike:{rows[disliked]}")
    await press_button(runtime, member(CAT), f"like:{rows[disliked]}")
    expected = {**dict.fromkeys([*liked, split], 1), disliked: -1}
    assert ratings(runtime) == expected
    await runtime.app.settle_ratings()
    assert runtime.app.ranker.model(GROUP) is not None  # three 👍 or more: the group is ranked
    assert "Ratings: 4 👍, 1 👎 (digests ranked for you)" in await say(
        runtime, "/status", member(DAN)
    )


async def test_private_chats_and_channels_rate_as_before(runtime: Runtime, tmp_path: Path) -> None:
    rows = await papers_sent(runtime, tmp_path, ADA)
    row = rows["2607.00001"]
    noted = await press_button(runtime, Caller(ADA), f"like:{row}")
    assert noted.text.startswith("👍 noted: ") and noted.relabel == {}
    assert ratings(runtime, ADA) == {"2607.00001": 1} and votes(runtime, ADA) == {}
    assert (await press_button(runtime, Caller(ADA), f"like:{row}")).text.startswith(
        "Rating taken back"
    )

    subscriber = Caller(CHANNEL, "channel", Admin(False), DAN)
    refused = await press_button(runtime, subscriber, f"like:{row}")
    assert refused == Reply("Only the group's administrators can change its filters.", notice=True)
    assert ratings(runtime, ADA) == {} and votes(runtime, CHANNEL) == {}


async def test_a_vote_on_another_chats_row_does_nothing(runtime: Runtime, tmp_path: Path) -> None:
    rows = await papers_sent(runtime, tmp_path, ADA, GROUP)
    reply = await press_button(runtime, member(ANN), f"like:{rows['2607.00001']}")  # Ada's row
    assert reply == Reply(OUT_OF_DATE, notice=True)
    assert votes(runtime) == {} and ratings(runtime, ADA) == {}


async def test_top_lists_the_most_liked_papers_of_the_span(
    runtime: Runtime, tmp_path: Path, clock: Clock
) -> None:
    rows = await papers_sent(runtime, tmp_path, GROUP)
    anyone = member(DAN)
    assert await say(runtime, "/top", anyone) == (
        "No 👍 in this group over the last 7 days. Any member can vote with the 👍 under a paper."
    )
    await press_button(runtime, member(ANN), f"like:{rows['2607.00007']}")  # three weeks ago
    clock.advance(days=20)
    for user in (ANN, BEN, CAT):
        await press_button(runtime, member(user), f"like:{rows['2607.00002']}")
    await press_button(runtime, member(ANN), f"like:{rows['2607.00005']}")
    await press_button(runtime, member(BEN), f"dislike:{rows['2607.00005']}")
    await press_button(runtime, member(ANN), f"dislike:{rows['2607.00006']}")  # no 👍: not listed

    week = await say(runtime, "/top", anyone)
    lines = week.split("\n")
    assert lines[0] == "<b>Most 👍 in this group, the last 7 days</b>"
    assert lines[1].startswith('1. <a href="https://arxiv.org/abs/2607.00002">')
    assert lines[1].endswith(" (arXiv:2607.00002) · 👍 3")
    assert lines[2].startswith('2. <a href="https://arxiv.org/abs/2607.00005">')
    assert lines[2].endswith("· 👍 1") and len(lines) == 3
    assert await say(runtime, "/top WEEK", anyone) == week
    month = await say(runtime, "/top month", anyone)
    assert "the last 30 days" in month and month.split("\n")[3].startswith(
        '3. <a href="https://arxiv.org/abs/2607.00007">'
    )
    assert await say(runtime, "/top year", anyone) == (
        "Usage: <code>/top [week|month]</code> (the papers with the most 👍 here this week "
        "(or month))\n<code>year</code> is not a span: write week or month."
    )
    clock.advance(days=8)  # the week's votes are past
    assert await say(runtime, "/top", anyone) == (
        "No 👍 in this group over the last 7 days. Any member can vote with the 👍 under a paper."
    )


async def test_top_in_a_private_chat_lists_its_own_likes(runtime: Runtime, tmp_path: Path) -> None:
    rows = await papers_sent(runtime, tmp_path, ADA)
    assert await say(runtime, "/top", Caller(ADA)) == (
        "You gave no 👍 over the last 7 days: press 👍 under a paper, or "
        "<code>/like ARXIV_ID</code>."
    )
    await press_button(runtime, Caller(ADA), f"like:{rows['2607.00004']}")
    await say(runtime, "/like 2607.00009", Caller(ADA))
    listed = (await say(runtime, "/top", Caller(ADA))).split("\n")
    assert listed[0] == "<b>Your 👍, the last 7 days</b>" and len(listed) == 3
    assert {line.split('"')[1] for line in listed[1:]} == {
        "https://arxiv.org/abs/2607.00004",
        "https://arxiv.org/abs/2607.00009",
    }
    assert "👍 1" not in listed[1]  # one reader: no counts


async def test_export_counts_the_votes_without_who_and_import_passes_over_them(
    runtime: Runtime, tmp_path: Path
) -> None:
    rows = await papers_sent(runtime, tmp_path, GROUP)
    for user in (ANN, BEN):
        await press_button(runtime, member(user), f"like:{rows['2607.00001']}")
    await press_button(runtime, member(CAT), f"dislike:{rows['2607.00001']}")
    await press_button(runtime, member(CAT), f"dislike:{rows['2607.00008']}")
    exported = await say(runtime, "/export", member(DAN))
    assert exported.startswith(
        "Your filters, ratings, and votes, one per line (send them back with /import; the "
        "members' votes are counted per paper in # lines, which /import passes over):\n"
    )
    assert "# votes 2607.00001: 👍 2, 👎 1\n# votes 2607.00008: 👍 0, 👎 1" in exported
    assert "👍 2607.00001" in exported and "👎 2607.00008" in exported
    assert all(str(user) not in exported for user in (ANN, BEN, CAT))

    lines = exported.split("<pre>", 1)[1].split("</pre>", 1)[0]
    elsewhere = Caller(ADA)
    imported = await say(runtime, f"/import\n{lines}", elsewhere)
    assert imported == "Imported 1 filter. 2 ratings taken."  # the # lines passed over
    assert ratings(runtime, ADA) == {"2607.00001": 1, "2607.00008": -1}


async def test_stop_deletes_the_votes_and_a_supergroup_keeps_them(
    runtime: Runtime, tmp_path: Path
) -> None:
    rows = await papers_sent(runtime, tmp_path, GROUP)
    await press_button(runtime, member(ANN), f"like:{rows['2607.00001']}")
    assert runtime.app.move_chat(GROUP, -1005)
    assert votes(runtime, -1005) == {"2607.00001": (1, 0)} and votes(runtime, GROUP) == {}
    await press_button(runtime, Caller(-1005, "supergroup", Admin(True), ANN), "stop:yes")
    assert votes(runtime, -1005) == {} and ratings(runtime, -1005) == {}
    assert feedback.counts(runtime.database, chat_id=-1005) == (0, 0)


@pytest.mark.parametrize(
    ("old", "new", "vote"),
    [
        ((), ("👍",), 1),
        ((), ("👎",), -1),
        (("👍",), ("👎",), -1),  # switched
        (("👎",), ("👍",), 1),
        (("👍",), (), 0),  # taken off: the vote taken back
        (("👎", "🔥"), ("🔥",), 0),
        (("👍", "👎"), ("👍",), 1),  # a Premium member's two: the one left stands
        (("👍", "👎"), ("👎",), -1),
        (("👍",), ("👍", "🔥"), None),  # another emoji: nothing to count
        ((), ("❤",), None),
        ((), (), None),
    ],
)
def test_a_reaction_reads_as_the_button_would(
    old: tuple[str, ...], new: tuple[str, ...], vote: int | None
) -> None:
    assert reaction_vote(old, new) == vote
