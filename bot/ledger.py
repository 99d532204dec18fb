"""Matching new papers against every chat's filters and writing the delivery ledger.

Papers are stored first and matched afterwards, in one transaction per batch that writes the
ledger rows and marks the papers matched: a crash in between leaves the papers unmatched, and the
next planning matches them. So a stored paper is never skipped, and never planned twice.
"""

from __future__ import annotations

import gc
import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from bot import memory
from bot.core.matcher import Document, FilterIndex, term_frequencies
from bot.core.paper import Paper
from bot.core.query import InvalidQuery, parse_query
from bot.store import Database, chats, deliveries, papers

log = logging.getLogger(__name__)

FREQUENCY_DAYS = 7
PLAN_BATCH = 2000


class FilterCache:
    """Every active chat's filters in one FilterIndex, brought in step with the database by
    `sync` (new filters added, removed ones dropped: the index is never rebuilt)."""

    SETTLE_AFTER = 10_000  # filters gained, at once (as at start) or over time, before settling

    def __init__(self) -> None:
        self.index: FilterIndex | None = None
        self.owner: dict[int, int] = {}  # filter id -> chat id
        self.settled_at = 0  # how many filters the index held when last settled

    def sync(self, session: Session) -> None:
        if self.index is None:
            recent = [p for _, p in papers.recent_papers(session, announcement_days=FREQUENCY_DAYS)]
            self.index = FilterIndex(term_frequencies(recent))
        wanted = chats.active_filter_ids(session)
        for gone in self.owner.keys() - wanted:
            self.index.remove(gone)
            del self.owner[gone]
        added = wanted - self.owner.keys()
        for stored in chats.get_filters(session, filter_ids=sorted(added)).values():
            try:
                self.index.add(stored.id, parse_query(stored.source))
            except InvalidQuery as error:  # stored by an older, laxer paperbot
                log.error("filter %d does not parse: %s", stored.id, error)
                continue
            self.owner[stored.id] = stored.chat_id
        if len(self.owner) - self.settled_at > self.SETTLE_AFTER:
            self._settle()
        self.settled_at = min(self.settled_at, len(self.owner))  # removals: count growth anew

    def _settle(self) -> None:
        """A large index is long-lived: keep the collector from walking it, and its lookups
        from missing the TLB (bot/memory.py)."""
        gc.freeze()
        memory.prefer_huge_pages()
        self.settled_at = len(self.owner)


@dataclass
class PlanReport:
    papers: int = 0
    updates: int = 0
    deliveries: int = 0

    def line(self) -> str:
        return (
            f"matched {self.papers} new papers and {self.updates} new versions: "
            f"{self.deliveries} deliveries planned"
        )


def _plan_batch(
    session: Session, cache: FilterCache, batch: list[tuple[int, Paper, bool]]
) -> list[deliveries.NewDelivery]:
    assert cache.index is not None
    follows_updates = {c.id for c in chats.all_chats(session, active_only=True) if c.updates}
    rows: list[deliveries.NewDelivery] = []
    for paper_id, paper, known in batch:
        is_update = known or paper.announce_type.is_update
        by_chat: dict[int, list[int]] = defaultdict(list)
        for filter_id in cache.index.match_document(Document(paper)):
            by_chat[cache.owner[filter_id]].append(filter_id)
        for chat_id, filter_ids in by_chat.items():
            if is_update and chat_id not in follows_updates:
                continue
            revision = (paper.version or 1) if is_update else 0
            rows.append(deliveries.NewDelivery(chat_id, paper_id, revision, filter_ids))
    return rows


def plan_deliveries(database: Database, cache: FilterCache, *, now: datetime) -> PlanReport:
    """Match every unmatched paper (and unmatched new version) against the filters of active
    chats and write one ledger row per chat and paper."""
    report = PlanReport()
    while True:
        with database.session() as session:
            batch = papers.unmatched_papers(session, limit=PLAN_BATCH)
            if not batch:
                return report
            cache.sync(session)
            rows = _plan_batch(session, cache, batch)
            report.deliveries += deliveries.add_deliveries(session, rows=rows, now=now)
            papers.mark_matched(session, paper_ids=[paper_id for paper_id, _, _ in batch], now=now)
        report.updates += sum(1 for _, _, known in batch if known)
        report.papers += sum(1 for _, _, known in batch if not known)
