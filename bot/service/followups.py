"""Follow-ups of the papers a chat 👍'd or saved: recorded when a listing brings news of one
(a new version with a venue note, a journal reference, a DOI, its journal version), sent as
ledger rows, at once to instant chats and under a "Follow-ups" heading in digests.

A follow-up is recorded in the transaction that stores the paper's new record (ingest's), as a
ledger row of each following chat (pending -> sending -> sent, as every row): a crash between
the two loses neither, and a listing read again finds nothing new to tell (what the paper's
recorded follow-ups told is left out of its news). Its row is the chat's (paper, revision)
row: for a new version, the version, so a chat that follows updates and matches the paper gets
the follow-up in place of the update, one message; for news of the version at hand (a venue,
then a journal reference, then a DOI), the paper's next news revision, each told once."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session

from bot.core.chat import Delivery
from bot.core.compose import Outgoing
from bot.core.followups import (
    followup,
    followup_buttons,
    followup_messages,
    is_followup,
    render_followup,
    revision_of,
    untold,
)
from bot.core.paper import Paper
from bot.i18n import translator
from bot.store import Database, chats, deliveries, followups, papers
from bot.store.deliveries import NewDeliveries

log = logging.getLogger(__name__)

# A paper's stored record before a listing changed it, and after: (id, before, after).
Change = tuple[int, Paper, Paper]


def record_followups(session: Session, *, changes: Sequence[Change], now: datetime) -> int:
    """For each changed paper whose change is news its follow-ups have not told, what it tells
    and one ledger row per chat following it; how many rows are new (a revision the chat's
    ledger holds adds none)."""
    newsworthy = [
        (paper_id, news)
        for paper_id, before, after in changes
        if (news := followup(before, after)) is not None
    ]
    if not newsworthy:
        return 0
    following = followups.followers(session, paper_ids=[paper_id for paper_id, _ in newsworthy])
    told = followups.recorded(session, paper_ids=following)
    rows: list[tuple[int, int, int, list[int]]] = []
    for paper_id, change in newsworthy:
        if paper_id not in following:  # nobody to tell: nothing kept
            continue
        earlier = told.get(paper_id, {})
        if (news := untold(change, earlier.values())) is None:
            continue
        revision = revision_of(news, earlier.keys())
        if followups.record_news(session, paper_id=paper_id, revision=revision, news=news, now=now):
            rows += [(chat_id, paper_id, revision, []) for chat_id in following[paper_id]]
    if not rows:
        return 0
    added = deliveries.add_deliveries(session, rows=[NewDeliveries.of(rows)], now=now)
    log.info(
        "follow-ups: %d of %d papers planned for the chats that follow them", added, len(newsworthy)
    )
    return added


def split(rows: list[Delivery]) -> tuple[list[Delivery], list[Delivery]]:
    """A chat's waiting rows: its follow-ups, and the rest (papers that matched its filters).
    One pass of inline tests, the rest given back as it came when there are none: a day's
    digests read ~590 rows a chat for 10,000 chats (bench/day.py), and a call per row twice
    over would add about a second to their round."""
    notes = [row for row in rows if row.revision and not row.filter_ids]  # as is_followup
    if not notes:
        return notes, rows
    return notes, [row for row in rows if not is_followup(row)]


def compose(
    database: Database, chat_id: int, rows: Sequence[Delivery], *, digest: bool
) -> list[Outgoing]:
    """The follow-up rows as messages in the chat's language, with the buttons of their papers:
    one a row for an instant chat, as an alert of one paper; a digest's "Follow-ups" section
    (`digest`) otherwise, its lines numbered as a digest's entries; each settles the rows it
    tells."""
    with database.session() as session:
        chat = chats.get_chat(session, chat_id=chat_id)
        found = papers.get_papers(session, paper_ids={row.paper_id for row in rows})
        news = followups.news_of(session, keys=[(row.paper_id, row.revision) for row in rows])
    t = translator(chat.language if chat else None)
    told = [row for row in rows if row.paper_id in found]
    numbers = range(1, len(told) + 1) if digest else [None] * len(told)
    lines = [
        render_followup(
            found[row.paper_id],
            news.get((row.paper_id, row.revision)),
            revision=row.revision,
            number=number,
            t=t,
        )
        for row, number in zip(told, numbers, strict=True)
    ]
    keyboard = [
        followup_buttons(row.id, found[row.paper_id], number, t=t)
        for row, number in zip(told, numbers, strict=True)
    ]
    if not digest:
        return [
            Outgoing(line, [row], [buttons])
            for line, row, buttons in zip(lines, told, keyboard, strict=True)
        ]
    messages = followup_messages(lines, t=t)
    return [
        Outgoing(text, [told[i] for i in carried], [keyboard[i] for i in carried])
        for text, carried in messages
    ]
