"""What a filter matches, without saving it: in listing files (nothing stored) or among the
stored papers (`paperbot preview`), or among the last announcement days (/preview, /subscribe)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.core.highlight import Highlight, highlights
from bot.core.matcher import matches
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
                    "abstract": paper.abstract,
                    "tldr": tldr(paper.abstract, paper.title),
                    "highlights": [
                        {
                            "field": h.field,
                            "start": h.start,
                            "end": h.end,
                            "text": (paper.title if h.field == "title" else paper.abstract)[
                                h.start : h.end
                            ],
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


def recent_matches(database: Database, query: Node, scores: Scores | None = None) -> RecentMatches:
    """`scores`: the chat's ranking, which orders the examples (best first) when it has one."""
    with database.session() as session:
        recent = papers.recent_papers(session, announcement_days=RECENT_DAYS)
    found = {paper_id: paper for paper_id, paper in recent if matches(query, paper)}
    ranked = scores(found) if scores and found else {}
    order = sorted(found, key=lambda paper_id: -ranked.get(paper_id, 0.0)) if ranked else found
    shown = [found[paper_id] for paper_id in order]
    derived = frozenset(p.title for p in shown[:SHOWN_TITLES] if p.title_derived)
    return RecentMatches(len(shown), [p.title for p in shown[:SHOWN_TITLES]], derived=derived)
