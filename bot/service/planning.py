"""New papers matched into the delivery ledger.

Papers are stored first and matched afterwards, in one transaction per batch that writes the
ledger rows and marks the papers matched: a crash in between leaves the papers unmatched, and the
next planning matches them. So a stored paper is never skipped, and never planned twice.

A record from another source merged into a matched paper (its PubMed record, its journal
version) is marked in the transaction that stores it, with the record as filters saw it when
matched (papers.rematch_records): the paper is matched again for the chats it newly matches,
as a new paper, and the chats it matched before are left to follow-ups.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt
from sqlmodel import Session

from bot.core.matcher import Document, FilterIndex, term_frequencies
from bot.core.paper import Paper
from bot.core.query import FilterRules, InvalidQuery, Seeds
from bot.memory import cycles_uncollected
from bot.service.similar import Similar
from bot.store import Database, chats, deliveries, filters, papers
from bot.store.deliveries import Chunks, NewDeliveries

log = logging.getLogger(__name__)

FREQUENCY_DAYS = 7  # term frequencies are sampled from this many recent announcement days
RESAMPLE_GROWTH = 1.5  # ... and sampled again once the stored papers have grown by half
PLAN_BATCH = 2000
# Stored papers to match: (id, paper, whether it is a known paper's new version).
Batch = list[tuple[int, Paper, bool]]
ROWS_AT_ONCE = 100_000  # ledger rows made (as Python lists) at once: ~20 MB


@dataclass
class PlanReport:
    papers: int = 0
    updates: int = 0
    again: int = 0  # papers matched again for a record merged into them
    deliveries: int = 0

    def line(self) -> str:
        again = f", {self.again} merged records" if self.again else ""
        return (
            f"matched {self.papers} new papers and {self.updates} new versions{again}: "
            f"{self.deliveries} deliveries planned"
        )


class Planner:
    """Every active chat's filters in one FilterIndex, kept in step with the database (new
    filters added, removed ones dropped: the index is never rebuilt), each filter parsed by the
    settings' one parser. The index files each filter under its rarest term; which terms are
    rare is sampled from the stored papers, again as they grow (filters are re-anchored)."""

    def __init__(self, rules: FilterRules, similar: Similar | None = None) -> None:
        self.rules = rules
        self.similar = similar  # "more like this" filters: matched by their own scorers
        self.similar_ids: set[int] = set()
        self.index = FilterIndex()
        self.owner: dict[int, int] = {}  # filter id -> chat id
        self._owner_array: npt.NDArray[np.int64] | None = None  # the same, as an array
        self.sampled_papers = 0  # stored papers when the term frequencies were last sampled
        self.refused: set[int] = set()  # stored filters the parser refuses (logged once each)

    def __len__(self) -> int:
        """How many filters are indexed."""
        return len(self.owner)

    def plan(self, database: Database, *, now: datetime) -> PlanReport:
        """Match every unmatched paper (and unmatched new version) against the filters of active
        chats and write one ledger row per chat and paper."""
        report = PlanReport()
        while True:
            try:
                with database.session() as session, cycles_uncollected():
                    # in step also when nothing waits: the index is built at the first inbox
                    # scan after a start, not when the first listing arrives (100,000 filters:
                    # ~5 s its alerts no longer wait for; a million: about a minute)
                    self.sync(session)
                    batch = papers.unmatched_papers(session, limit=PLAN_BATCH)
                    if not batch:
                        return report
                    paper_ids = [paper_id for paper_id, _, _ in batch]
                    earlier = papers.rematch_records(session, paper_ids=paper_ids)
                    rows, filter_ids = self._rows(session, batch, earlier)
                    added = deliveries.add_deliveries(session, rows=rows, now=now)
                    added -= self._drop_lost(session, filter_ids, paper_ids)
                    papers.mark_matched(session, paper_ids=paper_ids, now=now)
            except deliveries.OwnersGone as gone:  # rolled back: planned again, after a sync
                log.info("planning again: %s while the batch was planned", gone)
                continue
            report.deliveries += added
            report.updates += sum(1 for _, _, known in batch if known)
            report.again += sum(1 for i, _, known in batch if not known and i in earlier)
            report.papers += sum(1 for i, _, known in batch if not known and i not in earlier)

    def sync(self, session: Session) -> None:
        """The index brought in step with the stored filters of active chats."""
        self._resample(session)
        wanted = filters.active_filter_owners(session)
        for gone in self.owner.keys() - wanted.keys():
            if gone in self.similar_ids:
                self.similar_ids.discard(gone)
            else:
                self.index.remove(gone)
            del self.owner[gone]
        moved = {i: wanted[i] for i, chat_id in self.owner.items() if wanted[i] != chat_id}
        self.owner.update(moved)  # a group that became a supergroup: its filters follow it
        self.refused &= wanted.keys()
        added = wanted.keys() - self.owner.keys() - self.refused
        if added or moved:
            self._owner_array = None  # (a removed filter's entry is harmless: never matched)
        for stored in filters.get_filters(session, filter_ids=sorted(added)).values():
            try:
                compiled = self.rules.compile(stored.source)
            except InvalidQuery as error:  # kept from a laxer paperbot, or limits lowered since
                log.error("filter %d does not parse under the current limits: %s", stored.id, error)
                self.refused.add(stored.id)
                continue
            if isinstance(compiled, Seeds):
                if self.similar is None:  # a planner without the ranking's models
                    self.refused.add(stored.id)
                    continue
                self.similar_ids.add(stored.id)  # matched by its model, stored with it
            else:
                self.index.add(stored.id, compiled)
            self.owner[stored.id] = stored.chat_id
        self.index.restock()  # the shelves' arrays made as part of loading, not of a paper

    def _resample(self, session: Session) -> None:
        """Term frequencies from the recent papers, at the first planning with papers and again
        whenever the stored papers have grown by half since: filters whose rarest part changed
        are filed anew (what matches stays the same; a filter anchored on a word that turned
        out common brings more candidates to check)."""
        stored = papers.count_papers(session)
        if not stored or (self.sampled_papers and stored < self.sampled_papers * RESAMPLE_GROWTH):
            return
        recent = [p for _, p in papers.recent_papers(session, announcement_days=FREQUENCY_DAYS)]
        moved = self.index.reanchor(term_frequencies(recent))
        if moved:
            log.info("term frequencies from %d papers: %d filters re-anchored", len(recent), moved)
        self.sampled_papers = stored

    def _drop_lost(self, session: Session, filter_ids: list[int], paper_ids: list[int]) -> int:
        """The batch's rows for chats none of whose matched filters is stored any more, deleted;
        how many. Such a chat lost its filters after the sync: it was forgotten and registered
        again (/stop, then /start), which add_deliveries' check of its id cannot see, or it
        removed every filter that matched. Its rows go as if that had happened before the
        batch, which is not planned again for it. A chat that kept one of its matched filters
        keeps its rows, a removed filter named as such ("a filter since removed"). Runs after
        add_deliveries, which holds the batch's chats: a chat forgotten from then on takes the
        batch's rows along. Filter ids are never given twice (migration 0010)."""
        stored = filters.stored_filters(session, filter_ids=filter_ids)
        kept = {self.owner[f] for f in stored}
        lost = {self.owner[f] for f in filter_ids if f not in stored} - kept
        if not lost:
            return 0
        log.info("chats %s lost their filters while the batch was planned", sorted(lost))
        return deliveries.delete_deliveries(session, chat_ids=sorted(lost), paper_ids=paper_ids)

    def _rows(
        self, session: Session, batch: Batch, earlier: dict[int, Paper] | None = None
    ) -> tuple[Chunks, list[int]]:
        """One ledger row per chat and paper, with the chat's filters that matched it, in
        (chat, paper) order: the ledger's (chat, paper) index then grows at its end rather than
        all over, a quarter less time a row on SQLite. Matched (and the database read) at once;
        the rows themselves are made lazily, a chunk at a time.

        Why numpy: a busy day plans millions of rows (bench/day.py: 5.85 million for 10,000
        chats of 10 filters over 2,000 papers), and grouping each paper's matches by chat in
        Python dicts cost ~15 us a row, half the planning; here it is a sort of three integer
        columns, well under 1 us a row. Also returns the filters that matched, each once.
        `earlier`: the papers matched again for a merged record, as filters saw them before."""
        owners = self._owners()
        close: dict[int, list[int]] = {}  # paper id -> the "more like this" filters it passes
        if self.similar is not None and self.similar_ids:
            close = self.similar.matches(session, [(i, p) for i, p, _ in batch], self.similar_ids)
        matched: list[npt.NDArray[np.int64]] = []  # per paper: the filters it matched
        revisions: list[int] = []  # per paper: 0, or the version it is an update to
        for paper_id, paper, known in batch:
            ids = self.index.match_ids(Document(paper))
            if paper_id in close:  # still in order, each once
                ids = np.union1d(ids, np.array(close[paper_id], dtype=np.int64))
            matched.append(ids)
            is_update = known or paper.announce_type.is_update
            revisions.append((paper.version or 1) if is_update else 0)
        filter_ids = np.concatenate(matched) if matched else np.empty(0, dtype=np.int64)
        position = np.repeat(np.arange(len(batch)), [len(ids) for ids in matched])
        chat_ids = owners[filter_ids]
        paper_revisions = np.array(revisions, dtype=np.int64)
        revision = paper_revisions[position]
        if earlier:
            revision, keep = self._again(session, batch, earlier, chat_ids, position, revision)
            filter_ids, position, chat_ids = filter_ids[keep], position[keep], chat_ids[keep]
            revision = revision[keep]
        if revision.any():  # an update goes only to chats that follow updates
            follows = [c.id for c in chats.all_chats(session, active_only=True) if c.updates]
            keep = (revision == 0) | np.isin(chat_ids, np.array(follows, dtype=np.int64))
            filter_ids, position, chat_ids = filter_ids[keep], position[keep], chat_ids[keep]
            revision = revision[keep]
        # by chat, then paper, then filter: the matches are in (paper, filter) order already, so
        # one stable sort by chat does it (6.8 million matches: 0.45 s; sorting by all three
        # columns, 1.4)
        order = np.argsort(chat_ids, kind="stable")
        filter_ids, position, chat_ids = filter_ids[order], position[order], chat_ids[order]
        revision = revision[order]
        first = np.ones(len(order), dtype=bool)  # where a (chat, paper) row begins
        first[1:] = (chat_ids[1:] != chat_ids[:-1]) | (position[1:] != position[:-1])
        starts = np.flatnonzero(first)
        ends = np.append(starts[1:], len(order))
        paper_ids = np.array([paper_id for paper_id, _, _ in batch], dtype=np.int64)
        all_filters = filter_ids.tolist()

        def rows() -> Iterator[NewDeliveries]:
            """Made as the store takes them (and again if it reads them again), touching no
            database (the store may be in the middle of a COPY on this session's connection)."""
            for at in range(0, len(starts), ROWS_AT_ONCE):
                chunk = starts[at : at + ROWS_AT_ONCE]
                spans = zip(chunk.tolist(), ends[at : at + ROWS_AT_ONCE].tolist(), strict=True)
                yield NewDeliveries(
                    chat_ids[chunk].tolist(),
                    paper_ids[position[chunk]].tolist(),
                    revision[chunk].tolist(),  # masked and sorted as they are
                    [all_filters[start:end] for start, end in spans],
                )

        return Chunks(rows), np.unique(filter_ids).tolist()

    def _again(
        self,
        session: Session,
        batch: Batch,
        earlier: dict[int, Paper],
        chat_ids: npt.NDArray[np.int64],
        position: npt.NDArray[np.int64],
        revision: npt.NDArray[np.int64],
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """The matches of the papers matched again for a merged record: (their revisions, which
        to keep). A chat none of whose filters matched the paper as it was, with no ledger row
        for it, gets it as a new paper (revision 0): it never had it, and the merged record
        (MeSH terms, a journal, an abstract) is what its filters match. Any other chat had its
        chance at the paper; what the record tells it is a follow-up's (bot/service/followups.py
        records those with the merge), so it keeps only an update's row (a newer version came
        with the record). Both checks, as the ledger alone forgets: a sent row is pruned after
        `delivery.keep_days`, and journal versions come months after preprints. `position` is
        in batch order here (matches are made paper by paper)."""
        close: dict[int, list[int]] = {}
        if self.similar is not None and self.similar_ids:
            close = self.similar.matches(session, list(earlier.items()), self.similar_ids)
        owners = self._owners()
        revision = revision.copy()
        keep = np.ones(len(position), dtype=bool)
        for at, (paper_id, paper, known) in enumerate(batch):
            if paper_id not in earlier:
                continue
            start, end = np.searchsorted(position, [at, at + 1])
            if start == end:
                continue
            matched = self.index.match_ids(Document(earlier[paper_id]))
            had = set(owners[matched].tolist()) | set(owners[close.get(paper_id, [])].tolist())
            newly = sorted(set(chat_ids[start:end].tolist()) - had)
            had |= deliveries.chats_with_rows(session, paper_id=paper_id, chat_ids=newly)
            new = ~np.isin(chat_ids[start:end], np.array(sorted(had), dtype=np.int64))
            revision[start:end][new] = 0
            if not (known or paper.announce_type.is_update):
                keep[start:end][~new] = False
        return revision, keep

    def _owners(self) -> npt.NDArray[np.int64]:
        """The chat of each indexed filter, by filter id (made again after filters changed)."""
        if self._owner_array is None:
            array = np.zeros(max(self.owner, default=0) + 1, dtype=np.int64)
            array[list(self.owner)] = list(self.owner.values())
            self._owner_array = array
        return self._owner_array
