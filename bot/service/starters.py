"""Papers to rate to start: after a chat's first filter (its reply's button) or on /tune, a few
of the recent papers its filters match, chosen to spread over their topics
(bot/core/starters.py), sent as one alert with a 👍 and 👎 for each.

The chosen papers get ledger rows, settled as sent (noted OFFERED) in the transaction that
writes them, before the message goes out: no delivery round ever sends them as new, and their
buttons name the rows as every alert's do. A message Telegram took is then noted on its rows, as
an alert's is on its own, so that a 👍 or 👎 reaction on a message of one paper rates it (and, as
on an alert, one on a message of several rates none); a crash between the two leaves the rows
offered without it, their buttons working, reactions not. A message Telegram did not take gives
its rows back (deleted), so that the papers can be offered again."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from bot.core.chat import Chat, Delivery
from bot.core.compose import Layout, compose_alert
from bot.core.query import FilterRules
from bot.core.relevance import paper_text
from bot.core.render import MESSAGE_LIMIT, size
from bot.core.starters import MOST_CANDIDATES, OFFERED, STARTERS, choose_starters
from bot.core.states import Status
from bot.i18n import translator
from bot.service.backfill import recent_ids
from bot.service.delivery import Postman
from bot.service.preview import RecentPapers
from bot.service.similar import Similar
from bot.store import Database, deliveries, feedback, filters, papers
from bot.store.deliveries import NewDeliveries, OwnersGone


@dataclass(frozen=True)
class Chosen:
    """What was found to offer: the chat's filters looked in, the recent papers they match,
    and the rows of the papers chosen (written, settled as offered), in the order chosen."""

    filters: int
    matched: int
    rows: list[Delivery]


@dataclass(frozen=True)
class Tuned:
    """Papers offered to rate: the chat's filters looked in, the recent papers they match, how
    many of them went out now (0: none left to offer), and whether Telegram took them all
    (False: those it did not take can be offered again)."""

    filters: int
    matched: int
    offered: int
    complete: bool = True


def choose(
    database: Database,
    recent: RecentPapers,
    similar: Similar,
    *,
    chat_id: int,
    filter_id: int | None,
    rules: FilterRules,
    now: datetime,
) -> Chosen | None:
    """The papers to offer, their rows written: among the recent matches of the chat's filter
    `filter_id` (None: of all its filters), those the chat has no row for and has not rated.
    None when the filter is not the chat's (removed since, or another chat's button), or the
    chat was forgotten meanwhile."""
    with database.session() as session:
        listed = filters.chat_filters(session, chat_id=chat_id)
    if filter_id is not None:
        listed = [f for f in listed if f.id == filter_id]
        if not listed:
            return None
    matched: dict[int, list[int]] = defaultdict(list)  # paper -> the chat's filters matching it
    for stored in listed:
        for paper_id in recent_ids(stored, recent, similar, rules) or []:
            matched[paper_id].append(stored.id)
    with database.session() as session:
        had = deliveries.papers_with_rows(session, chat_id=chat_id, paper_ids=sorted(matched))
        rated = feedback.ratings(session, chat_id=chat_id).keys()
        # a broad filter's newest matches (ids grow as papers are stored)
        fresh = sorted((p for p in matched if p not in had and p not in rated), reverse=True)
        found = papers.get_papers(session, paper_ids=fresh[:MOST_CANDIDATES])
    candidates = [(p, paper_text(found[p])) for p in fresh[:MOST_CANDIDATES] if p in found]
    chosen = choose_starters(candidates, k=STARTERS)  # outside a transaction: up to a second
    try:
        with database.session() as session:
            rows = _offered(session, chat_id, [(p, matched[p]) for p in chosen], now)
    except OwnersGone:  # the chat was forgotten meanwhile (/stop)
        return None
    return Chosen(len(listed), len(matched), rows)


def _offered(
    session: Session, chat_id: int, chosen: list[tuple[int, list[int]]], now: datetime
) -> list[Delivery]:
    """The chosen papers' rows (with the filters that matched each), written and settled as
    offered in one transaction: no round sees them waiting."""
    if not chosen:
        return []
    new = NewDeliveries.of((chat_id, paper_id, 0, ids) for paper_id, ids in chosen)
    deliveries.add_deliveries(session, rows=[new], now=now)
    by_paper = deliveries.paper_rows(session, chat_id=chat_id, paper_ids=[p for p, _ in chosen])
    rows = [by_paper[paper_id] for paper_id, _ in chosen]
    deliveries.mark_deliveries(
        session.connection(),
        delivery_ids=[row.id for row in rows],
        status=Status.SENT,
        now=now,
        reason=OFFERED,
    )
    return rows


async def send(
    postman: Postman,
    chat: Chat,
    rows: list[Delivery],
    *,
    topic: int | None = None,
) -> int:
    """The offered papers as an alert (one message when they fit, as the chat's layout shows
    alerts: numbered, each with its 👍 and 👎), opened by a line that says what to do, through
    the postman's limits: how many went out. When Telegram did not take a message, its rows and
    the later ones are given back."""
    t = translator(chat.language)
    with postman.composer.round():
        messages = compose_alert(postman.composer.items(chat.id, rows), Layout.of(chat), t=t)
    intro = t.ngettext(
        "A recent paper your filters match. 👍 or 👎 it: your ranking starts from what you rate.",
        "{count} recent papers your filters match, picked to cover their topics. 👍 or 👎 each "
        "(the numbered buttons): your ranking starts from what you rate.",
        len(rows),
    ).format(count=t.number(len(rows)))
    parts = [(m.text, m.buttons, m.rows) for m in messages]
    opened = f"{intro}\n\n{parts[0][0]}"
    if size(opened) <= MESSAGE_LIMIT:
        parts[0] = (opened, *parts[0][1:])
    else:
        parts.insert(0, (intro, [], []))
    sent = 0
    for position, (text, buttons, carried) in enumerate(parts):
        taken = await postman.send_settled(
            chat.id, text, buttons, carried, reason=OFFERED, topic=topic
        )
        if not taken:
            _give_back(postman.database, chat.id, [r for _, _, rs in parts[position:] for r in rs])
            break
        sent += len(carried)
    return sent


def _give_back(database: Database, chat_id: int, rows: list[Delivery]) -> None:
    """Rows of papers that never went out, deleted: the papers can be offered again."""
    with database.session() as session:
        deliveries.delete_deliveries(
            session, chat_ids=[chat_id], paper_ids=[row.paper_id for row in rows]
        )
