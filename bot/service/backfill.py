"""A new filter's first papers: its matches among the recent papers (the announcement days that
/subscribe looks back on), written into the chat's ledger when the chat asks, to go out as a
digest. Planning never does this by itself: a filter matches the papers that arrive after it, so
that a new filter does not flood a chat with old papers unasked."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.core.chat import Filter
from bot.core.query import FilterRules, InvalidQuery, Seeds
from bot.service.preview import RecentPapers
from bot.service.similar import Similar
from bot.store import Database, deliveries, filters
from bot.store.deliveries import NewDeliveries


@dataclass(frozen=True)
class Queued:
    matched: int  # recent papers the filter matches
    added: int  # of them, the papers the chat had no ledger row for: now pending


def queue_recent(
    database: Database,
    recent: RecentPapers,
    similar: Similar,
    *,
    chat_id: int,
    filter_id: int,
    rules: FilterRules,
    now: datetime,
) -> Queued | None:
    """The filter's recent matches, one pending ledger row each (naming the filter), but for the
    papers the chat has a row for already: asked twice, nothing is written twice. None when the
    filter is not the chat's (removed since, or another chat's button) or no longer parses."""
    with database.session() as session:
        found = filters.get_filters(session, filter_ids=[filter_id]).get(filter_id)
    if found is None or found.chat_id != chat_id:
        return None
    paper_ids = recent_ids(found, recent, similar, rules)
    if paper_ids is None:
        return None
    try:
        with database.session() as session:
            had = deliveries.papers_with_rows(session, chat_id=chat_id, paper_ids=paper_ids)
            rows = NewDeliveries.of((chat_id, p, 0, [filter_id]) for p in paper_ids if p not in had)
            added = deliveries.add_deliveries(session, rows=[rows], now=now)
    except deliveries.OwnersGone:  # the chat was forgotten meanwhile (/stop)
        return None
    return Queued(len(paper_ids), added)


def recent_ids(
    stored: Filter, recent: RecentPapers, similar: Similar, rules: FilterRules
) -> list[int] | None:
    """The recent papers the filter matches, as /subscribe counted them (in id order)."""
    try:
        compiled = rules.compile(stored.source)
    except InvalidQuery:  # kept from a laxer paperbot, or the limits lowered since
        return None
    if isinstance(compiled, Seeds):
        return sorted(similar.recent_ids(stored))
    return sorted(recent.index().matching(compiled))
