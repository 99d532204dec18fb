"""👍 and 👎: a chat rates a paper from a button under it or by its arXiv id; pressing again
takes the rating back. The ratings teach the chat's ranking model (bot.service.ranking)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from bot.core.paper import Paper, read_arxiv_id
from bot.store import Database, deliveries, feedback, papers

SIGNS = {1: "👍", -1: "👎"}


@dataclass(frozen=True)
class Rated:
    paper: Paper
    value: int  # the rating now held: 1, -1, or 0 (taken back)


def rate_row(
    database: Database, *, chat_id: int, row_id: int, value: int, now: datetime
) -> Rated | None:
    """A 👍/👎 button under a paper the chat was sent (None: the row is not the chat's)."""
    with database.session() as session:
        row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=chat_id)
        if row is None:
            return None
        [paper] = papers.get_papers(session, paper_ids=[row.paper_id]).values()
        held = feedback.rate(session, chat_id=chat_id, paper_id=row.paper_id, value=value, now=now)
    return Rated(paper, held)


@dataclass
class RatedIds:
    rated: list[Paper] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # arXiv ids of papers not stored here
    unreadable: list[str] = field(default_factory=list)  # what named no arXiv paper


def rate_ids(
    database: Database, *, chat_id: int, arxiv_ids: list[str], value: int, now: datetime
) -> RatedIds:
    """/like and /dislike: papers by arXiv id or link (as `read_arxiv_id` reads them); setting
    the rating, never taking it back (a typed command says what it means)."""
    result = RatedIds()
    wanted: dict[str, None] = {}  # in the order given, each once
    for given in arxiv_ids:
        arxiv_id = read_arxiv_id(given)
        if arxiv_id:
            wanted[arxiv_id] = None
        else:
            result.unreadable.append(given)
    with database.session() as session:
        stored = papers.papers_by_arxiv_id(session, arxiv_ids=wanted)
        held = feedback.ratings(session, chat_id=chat_id)
        for arxiv_id in wanted:
            if arxiv_id not in stored:
                result.unknown.append(arxiv_id)
                continue
            paper_id, paper = stored[arxiv_id]
            if held.get(paper_id) != value:
                feedback.rate(session, chat_id=chat_id, paper_id=paper_id, value=value, now=now)
            result.rated.append(paper)
    return result


def counts(database: Database, *, chat_id: int) -> tuple[int, int]:
    """(👍, 👎) of the chat."""
    with database.session() as session:
        return feedback.count_ratings(session, chat_id=chat_id)


def export_lines(database: Database, *, chat_id: int) -> list[str]:
    """The chat's ratings as lines /import takes back ("👍 2506.01234"), for papers with an
    arXiv id."""
    with database.session() as session:
        held = feedback.ratings(session, chat_id=chat_id)
        found = papers.get_papers(session, paper_ids=held)
    return [
        f"{SIGNS[value]} {found[paper_id].arxiv_id}"
        for paper_id, value in held.items()
        if paper_id in found and found[paper_id].arxiv_id
    ]


@dataclass
class ImportedRatings(RatedIds):
    other_lines: list[str] = field(default_factory=list)  # the filters, blank where a rating was


def import_ratings(
    database: Database, *, chat_id: int, lines: list[str], now: datetime
) -> ImportedRatings:
    """/import: the lines that are ratings ("👍 2506.01234", as /export writes them) taken; the
    other lines handed back in place (blanked where a rating was, so line numbers hold)."""
    result = ImportedRatings()
    for value, sign in SIGNS.items():
        ids = [line.removeprefix(sign).strip() for line in lines if line.startswith(sign)]
        if ids:
            found = rate_ids(database, chat_id=chat_id, arxiv_ids=ids, value=value, now=now)
            result.rated += found.rated
            result.unknown += found.unknown
            result.unreadable += found.unreadable
    result.other_lines = ["" if line.startswith(tuple(SIGNS.values())) else line for line in lines]
    return result
