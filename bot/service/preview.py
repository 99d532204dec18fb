"""What a filter matches, without saving it: in listing files (nothing stored) or among the
stored papers (`paperbot preview`), or among the last announcement days (/preview, /subscribe),
which RecentPapers keeps indexed."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlmodel import Session

from bot.core.highlight import Highlight, highlights
from bot.core.matcher import PaperIndex, matches
from bot.core.paper import Paper
from bot.core.query import FilterRules, Node, canonical
from bot.core.summary import tldr
from bot.service.ingest import papers_from_files
from bot.store import Database, papers

RECENT_DAYS = 7  # /subscribe and /preview look back this many announcement days
SHOWN_TITLES = 3


@dataclass(frozen=True)
class Preview:
    filter: str  # the canonical form: how the filter was understood
    matches: list[tuple[Paper, list[Highlight]]]
    problems: list[str]  # files that could not be read

    def as_json(self) -> dict[str, object]:
        return {
            "filter": self.filter,
            "matches": [
                {
                    "title": paper.title,
                    "headline_derived": paper.title_derived,
                    "arxiv_id": paper.arxiv_id,
                    "authors": list(paper.authors),
                    "categories": list(paper.categories),
                    "sources": list(paper.sources),
                    "link": paper.abs_url,
                    "doi": paper.doi,
                    "preprint_doi": paper.preprint_doi,
                    "pmid": paper.pmid,
                    "journal": paper.journal,
                    "journal_abbreviations": list(paper.journal_abbreviations),
                    "mesh": list(paper.mesh),
                    "abstract": paper.abstract,
                    "tldr": tldr(paper.abstract, paper.title),
                    "highlights": [
                        {
                            "field": h.field,
                            "start": h.start,
                            "end": h.end,
                            "text": _marked_text(paper, h),
                        }
                        for h in marks
                    ],
                }
                for paper, marks in self.matches
            ],
        }


def preview(
    database: Database | None, source: str, *, rules: FilterRules, paths: Sequence[Path] = ()
) -> Preview:
    """The papers a filter matches, from files (nothing stored) or else from the database.
    Raises InvalidQuery for a bad filter."""
    query = rules.parse(source)
    problems: list[str] = []
    if paths:
        candidates, problems = papers_from_files(paths)
    else:
        assert database is not None
        with database.session() as session:
            candidates = papers.all_papers(session)
    found = [(p, highlights(query, p)) for p in candidates if matches(query, p)]
    return Preview(canonical(query), found, problems)


@dataclass(frozen=True)
class RecentMatches:
    """How many papers of the last RECENT_DAYS announcement days a filter matches, and the
    first titles."""

    count: int
    titles: list[str]
    days: int = RECENT_DAYS
    derived: frozenset[str] = frozenset()  # titles that are headlines derived from the abstract


Scores = Callable[[dict[int, Paper]], dict[int, float]]  # a chat's ranking (empty: it has none)


class RecentPapers:
    """The papers of the last `days` announcement days, indexed by key (PaperIndex), kept in
    step with the database: filed at the first question, then, at each, brought up to date with
    what was stored since (ids above the last seen), what was updated since (a better record or a
    newer version of a paper held), and the window's start moving on (its oldest day dropped).
    When nothing changed, that is four small queries: 3 ms on SQLite for a real week, 15 ms for a
    busy one (2,000 papers a day), most of it reading the update times of the week's rows.

    One per process (the application makes it), shared by the commands' threads: one thread at a
    time brings it up to date, under a lock, and the index it answers from is never changed
    (the next one is made beside it), so matching runs outside the lock.

    Updates are found by the time they were stored at (`updated_at`, from the storing process's
    clock): one stamped earlier than the latest already seen (a clock set back), or a second
    update of a paper at the very instant of its first (a clock that does not move), is missed.
    Papers deleted from the database would stay until their day leaves (none are deleted)."""

    def __init__(self, database: Database, days: int = RECENT_DAYS) -> None:
        self.database = database
        self.days = days
        self._lock = threading.Lock()
        self._start_over()

    def _start_over(self) -> None:
        self._index = PaperIndex()
        self._last_id = 0  # the highest paper id looked at
        self._updated: datetime | None = None  # the latest update seen
        self._updated_ids: frozenset[int] = frozenset()  # the papers updated then

    @property
    def held(self) -> int:
        """How many papers the index holds (as last brought up to date; no database read)."""
        return len(self._index)

    def index(self) -> PaperIndex:
        """The index, up to date with the database."""
        with self._lock, self.database.session() as session:
            self._bring_up_to_date(session)
            return self._index

    def _bring_up_to_date(self, session: Session) -> None:
        """What changed is read first and taken in at the end: a query that fails leaves the
        index and the marks as they were, for the next question to try again."""
        days = papers.recent_days(session, announcement_days=self.days)
        start = min(days) if days else None
        held = self._index.start
        if held is not None and (start is None or start < held):  # only if papers were deleted
            self._start_over()
        last_id = papers.last_paper_id(session)
        first_held, after = self._index.first_id, self._last_id + 1
        first_id = after if first_held is None else min(first_held, after)
        stamps = papers.update_stamps(
            session, first_id=first_id, last_id=last_id, since=self._updated
        )
        changed = self._changed(stamps)
        new = papers.papers_announced_since(
            session, day=start, after_id=self._last_id, up_to_id=last_id
        )
        if new or changed or start != self._index.start:
            newer = papers.get_papers(session, paper_ids=changed)
            self._index = self._index.updated([*sorted(newer.items()), *new], start=start)
        self._last_id = max(self._last_id, last_id)
        if stamps:
            self._updated = max(stamps.values())
            self._updated_ids = frozenset(i for i, at in stamps.items() if at == self._updated)

    def _changed(self, stamps: dict[int, datetime]) -> list[int]:
        """The papers looked at before that were updated since: after the latest update seen,
        or at that time but not among the papers updated then."""
        seen, seen_ids = self._updated, self._updated_ids
        return [
            paper_id
            for paper_id, at in stamps.items()
            if paper_id <= self._last_id and (seen is None or at > seen or paper_id not in seen_ids)
        ]


def recent_matches(
    recent: RecentPapers, query: Node, scores: Scores | None = None
) -> RecentMatches:
    """How many papers of the last announcement days the filter matches, and the first titles.
    `scores`: the chat's ranking, which orders the examples (best first) when it has one."""
    found = recent.index().matching(query)
    ranked = scores(found) if scores and found else {}
    order = sorted(found, key=lambda paper_id: -ranked.get(paper_id, 0.0)) if ranked else found
    shown = [found[paper_id] for paper_id in order]
    derived = frozenset(p.title for p in shown[:SHOWN_TITLES] if p.title_derived)
    return RecentMatches(len(shown), [p.title for p in shown[:SHOWN_TITLES]], derived=derived)


def _marked_text(paper: Paper, mark: Highlight) -> str:
    """What a highlight marks: a span of title or abstract, or (an au: filter's) whole names."""
    if mark.field == "author":
        return ", ".join(paper.authors[mark.start : mark.end])
    return (paper.title if mark.field == "title" else paper.abstract)[mark.start : mark.end]
