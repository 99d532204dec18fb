""" "More like this" filters: a paper matches when it is close to seed papers the chat chose.

A filter of this kind is written `like:2506.01234,2506.04321` (what /list, /export and /import
show) and stores its scorer: the seeds' centroid in the TF-IDF space and a similarity threshold
calibrated on the stored papers so that about `share` of a day passes (1% by default), rather
than a fixed number a day. It goes through the same ledger as any filter, so each paper comes
once. When the TF-IDF model is refitted, each scorer is rebuilt from its seeds.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from bot.core.chat import Filter
from bot.core.i18n import N_
from bot.core.paper import Paper
from bot.core.problems import Problem
from bot.core.query import LIKE_PREFIX, FilterKind, InvalidQuery, read_seeds
from bot.core.relevance import Featurizer, SimilarTo, calibrate
from bot.core.render import like_name
from bot.core.summary import shorten
from bot.service.preview import RECENT_DAYS, SHOWN_TITLES, RecentMatches
from bot.service.ranking import Ranker
from bot.service.subscriptions import (
    AlreadyFollowed,
    AtLimit,
    BadFilter,
    Previewed,
    Subscribed,
)
from bot.store import Database, deliveries, filters, papers

log = logging.getLogger(__name__)

SEED_TITLE = 50  # characters of a seed's title in the filter's name


# why a "more like this" filter cannot be made yet, put into the chat's words where shown
TOO_FEW = Problem.of(N_("too few papers are stored yet to compare with"))


@dataclass(frozen=True)
class NotStored:
    """Seed papers this bot has not read in any listing (so it cannot compare with them)."""

    arxiv_ids: list[str]


def _stored_seeds(stored: Filter) -> list[str]:
    """A stored "more like this" filter's seeds (none when it no longer reads as one)."""
    try:
        return list(read_seeds(stored.source).arxiv_ids)
    except InvalidQuery:
        return []


def similar_name(seeds: Sequence[Paper]) -> str:
    """How a "more like this" filter is named (stored in English, shown in the reader's words):
    its first seed's title, shortened, and how many more seeds it has."""
    return like_name(shorten(seeds[0].title, SEED_TITLE), len(seeds) - 1)


@dataclass(frozen=True)
class _Seeded:
    source: str  # as stored: like:ID,ID
    name: str
    scorer: SimilarTo
    recent: RecentMatches


class Similar:
    def __init__(self, database: Database, ranker: Ranker, *, share: float) -> None:
        self.database, self.ranker, self.share = database, ranker, share
        self.scorers: dict[int, SimilarTo] = {}  # filter id -> its scorer, as stored

    def follow(
        self,
        *,
        chat_id: int,
        source: str,
        max_per_chat: int,
        now: datetime,
        topic: int | None = None,
    ) -> Subscribed | AlreadyFollowed | AtLimit | BadFilter | NotStored:
        """/similar and /import: a "more like this" filter for the chat (`topic`: the forum
        topic its papers go to)."""
        seeded = self._seeded(source)
        if isinstance(seeded, BadFilter | NotStored):
            return seeded
        with self.database.session() as session:
            existing = filters.chat_filters(session, chat_id=chat_id)
            for number, stored in enumerate(existing, 1):
                if stored.source == seeded.source:
                    return AlreadyFollowed(number, stored.canonical, FilterKind.LIKE)
            if len(existing) >= max_per_chat:
                return AtLimit(len(existing), max_per_chat)
            added = filters.add_filter(
                session,
                chat_id=chat_id,
                source=seeded.source,
                canonical=seeded.name,
                now=now,
                model=seeded.scorer.to_bytes(),
                topic=topic,
            )
        return Subscribed(
            len(existing) + 1, seeded.name, seeded.recent, added.id, kind=FilterKind.LIKE
        )

    def preview(self, *, source: str) -> Previewed | BadFilter | NotStored:
        """/preview like:ID,...: what the filter would have matched, nothing saved."""
        seeded = self._seeded(source)
        if isinstance(seeded, BadFilter | NotStored):
            return seeded
        return Previewed(seeded.name, seeded.recent)

    def _seeded(self, source: str) -> _Seeded | BadFilter | NotStored:
        """The filter `source` asks for: its seeds, its scorer and what it passes of the recent
        papers (the closest first)."""
        try:
            compiled = read_seeds(source)
        except InvalidQuery as error:
            return BadFilter(source, error.problem, None)
        ids = list(compiled.arxiv_ids)
        with self.database.session() as session:
            found = papers.papers_by_arxiv_id(session, arxiv_ids=ids)
            window = [p for _, p in papers.latest_papers(session, limit=self.ranker.window)]
            recent = [p for _, p in papers.recent_papers(session, announcement_days=RECENT_DAYS)]
        unknown = [i for i in ids if i not in found]
        if unknown:
            return NotStored(unknown)
        text = self.ranker.features()
        if text is None:
            return BadFilter(source, TOO_FEW, None)
        seeds = [found[i][1] for i in ids]
        scorer = self._scorer(text, seeds, window)
        recent = [p for p in recent if (p.arxiv_id or "") not in ids]
        passing = [recent[i] for i in _passing(text, scorer, recent)]
        shown = [p.title for p in passing[:SHOWN_TITLES]]  # the closest first
        matches = RecentMatches(len(passing), shown)
        return _Seeded(compiled.source, similar_name(seeds), scorer, matches)

    def recent_ids(self, stored: Filter) -> list[int]:
        """The papers of the last RECENT_DAYS announcement days that a stored "more like this"
        filter passes, its seeds left out: what `follow` counted."""
        text, ids = self.ranker.features(), _stored_seeds(stored)
        if text is None or not ids:
            return []
        with self.database.session() as session:
            recent = papers.recent_papers(session, announcement_days=RECENT_DAYS)
            model = filters.filter_models(session, filter_ids=[stored.id]).get(stored.id)
            scorer = SimilarTo.from_bytes(model) if model is not None else None
            if scorer is None or scorer.fingerprint != text.fingerprint:  # refitted since
                window = [p for _, p in papers.latest_papers(session, limit=self.ranker.window)]
                scorer = self._rebuilt(session, stored, text, window)
        if scorer is None:
            return []
        recent = [(i, p) for i, p in recent if (p.arxiv_id or "") not in ids]
        return [recent[n][0] for n in _passing(text, scorer, [p for _, p in recent])]

    def follow_row(
        self,
        *,
        chat_id: int,
        row_id: int,
        max_per_chat: int,
        now: datetime,
        topic: int | None = None,
    ) -> Subscribed | AlreadyFollowed | AtLimit | BadFilter | NotStored | None:
        """The "more like this" button under a paper the chat was sent (None: the row is not
        the chat's)."""
        with self.database.session() as session:
            row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=chat_id)
            found = papers.get_papers(session, paper_ids=[row.paper_id]) if row else {}
        if row is None or not found[row.paper_id].arxiv_id:
            return None
        source = f"{LIKE_PREFIX}{found[row.paper_id].arxiv_id}"
        return self.follow(
            chat_id=chat_id, source=source, max_per_chat=max_per_chat, now=now, topic=topic
        )

    def _scorer(
        self, text: Featurizer, seeds: Sequence[Paper], window: Sequence[Paper]
    ) -> SimilarTo:
        threshold = calibrate(text, seeds, window, self.share)
        return SimilarTo.from_seeds(text, seeds, threshold)

    def matches(
        self, session: Session, batch: Sequence[tuple[int, Paper]], filter_ids: set[int]
    ) -> dict[int, list[int]]:
        """Which of the given "more like this" filters each paper of the batch passes (by paper
        id)."""
        for gone in self.scorers.keys() - filter_ids:
            del self.scorers[gone]
        if not filter_ids or not batch:
            return {}
        text = self.ranker.features()
        if text is None:
            return {}
        missing = sorted(filter_ids - self.scorers.keys())
        for filter_id, data in filters.filter_models(session, filter_ids=missing).items():
            self.scorers[filter_id] = SimilarTo.from_bytes(data)
        self._refresh(session, text)
        vectors = text.vectors([paper for _, paper in batch])
        found: dict[int, list[int]] = defaultdict(list)
        for filter_id, scorer in self.scorers.items():
            for row, passes in enumerate(scorer.passes(vectors)):
                if passes:
                    found[batch[row][0]].append(filter_id)
        return found

    def _rebuilt(
        self, session: Session, stored: Filter, text: Featurizer, window: Sequence[Paper]
    ) -> SimilarTo | None:
        """A stored filter's scorer built again from its seeds on the current vocabulary
        (None: its seeds are gone)."""
        found = papers.papers_by_arxiv_id(session, arxiv_ids=_stored_seeds(stored))
        seeds = [paper for _, paper in found.values()]
        return self._scorer(text, seeds, window) if seeds else None

    def _refresh(self, session: Session, text: Featurizer) -> None:
        """Scorers built on an older TF-IDF model, rebuilt from their seeds and stored."""
        stale = [f for f, scorer in self.scorers.items() if scorer.fingerprint != text.fingerprint]
        if not stale:
            return
        window = [p for _, p in papers.latest_papers(session, limit=self.ranker.window)]
        for stored in filters.get_filters(session, filter_ids=stale).values():
            scorer = self._rebuilt(session, stored, text, window)
            if scorer is None:
                log.error("filter %d: its seed papers are gone; it matches nothing", stored.id)
                del self.scorers[stored.id]
                continue
            self.scorers[stored.id] = scorer
            filters.set_filter_model(session, filter_id=stored.id, model=scorer.to_bytes())
        log.info("ranking: %d 'more like this' filters rebuilt on the new vocabulary", len(stale))


def _passing(text: Featurizer, scorer: SimilarTo, candidates: Sequence[Paper]) -> list[int]:
    """Which of the candidates (their positions) the scorer lets through, the closest first."""
    similarity = list(scorer.similarity(text.vectors(candidates))) if candidates else []
    closest = sorted(zip(similarity, range(len(candidates)), strict=True), reverse=True)
    return [i for value, i in closest if value >= scorer.threshold]
