"""👍 and 👎: a chat rates a paper from a button under it or by its arXiv id; pressing again
takes the rating back. The ratings teach the chat's ranking model (bot.service.ranking).

In a group, each member votes (the buttons, by the member's user id): one vote a member and
paper, the same press again takes it back, the other switches it. The group's rating of the
paper, which its ranking learns from, is the sign of the votes' sum."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.core.paper import Paper, read_arxiv_id
from bot.store import Database, deliveries, feedback, papers

SIGNS = {1: "👍", -1: "👎"}


@dataclass(frozen=True)
class Rated:
    paper: Paper
    value: int  # the rating now held: 1, -1, or 0 (taken back)


def rate_row(
    database: Database,
    *,
    chat_id: int,
    row_id: int,
    value: int,
    now: datetime,
    toggle: bool = True,
) -> Rated | None:
    """A 👍/👎 button under a paper the chat was sent (None: the row is not the chat's); a
    reaction (not `toggle`) sets the rating to `value` (0: none)."""
    with database.session() as session:
        row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=chat_id)
        if row is None:
            return None
        [paper] = papers.get_papers(session, paper_ids=[row.paper_id]).values()
        paper_id = row.paper_id
        if toggle:
            held = feedback.rate(session, chat_id=chat_id, paper_id=paper_id, value=value, now=now)
        else:
            feedback.set_rating(session, chat_id=chat_id, paper_id=paper_id, value=value, now=now)
            held = value
    return Rated(paper, held)


def one_paper_row(database: Database, *, chat_id: int, message_id: int) -> int | None:
    """The ledger row of a message that carried one paper alone (an alert of one paper)."""
    with database.session() as session:
        row = deliveries.one_paper_row(session, chat_id=chat_id, message_id=message_id)
    return row.id if row is not None else None


@dataclass(frozen=True)
class Voted:
    paper: Paper
    value: int  # the member's vote now: 1, -1, or 0 (taken back)
    likes: int  # the members' 👍 on the paper now
    dislikes: int
    changed: bool  # the group's rating of the paper (the sign of the sum) changed


def vote_row(
    database: Database,
    *,
    chat_id: int,
    user_id: int,
    row_id: int,
    value: int,
    now: datetime,
    toggle: bool = True,
) -> Voted | None:
    """A member's 👍/👎 on a paper the group was sent (None: the row is not the chat's). A
    button press toggles (`toggle`: the same again takes the vote back); a reaction sets the
    vote to `value` (0: taken back)."""
    with database.session() as session:
        row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=chat_id)
        if row is None:
            return None
        paper_id = row.paper_id
        [paper] = papers.get_papers(session, paper_ids=[paper_id]).values()
        key = {"chat_id": chat_id, "paper_id": paper_id, "user_id": user_id}
        if toggle and feedback.member_vote(session, **key) == value:
            value = 0
        feedback.set_member_vote(session, **key, value=value, now=now)
        votes = feedback.tally(session, chat_id=chat_id, paper_ids=[paper_id]).get(
            paper_id, feedback.Votes()
        )
        net = votes.likes - votes.dislikes
        sign = (net > 0) - (net < 0)
        changed = feedback.set_rating(
            session, chat_id=chat_id, paper_id=paper_id, value=sign, now=now
        )
    return Voted(paper, value, votes.likes, votes.dislikes, changed)


SPANS = {"week": timedelta(days=7), "month": timedelta(days=30)}
TOP = 10  # papers /top lists


@dataclass(frozen=True)
class Liked:
    paper: Paper
    likes: int


def most_liked(
    database: Database, *, chat_id: int, members: bool, span: timedelta, now: datetime
) -> list[Liked]:
    """/top: the papers with the most 👍 given in the span, most first: a group's members'
    votes (`members`), a private chat's own ratings."""
    with database.session() as session:
        found = feedback.most_liked(
            session, chat_id=chat_id, since=now - span, limit=TOP, members=members
        )
        stored = papers.get_papers(session, paper_ids=[paper_id for paper_id, _ in found])
    return [Liked(stored[paper_id], likes) for paper_id, likes in found if paper_id in stored]


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


def export_votes(database: Database, *, chat_id: int) -> list[str]:
    """A group's votes as counts per paper, as #comments /import passes over
    ("# votes 2506.01234: 👍 3, 👎 1"): who voted is not exported."""
    with database.session() as session:
        voted = feedback.voted_papers(session, chat_id=chat_id)
        found = papers.get_papers(session, paper_ids=voted)
    lines = []
    for paper_id, votes in voted.items():
        paper = found.get(paper_id)
        named = paper and (paper.arxiv_id or paper.doi or paper.abs_url)
        if named:
            lines.append(f"# votes {named}: 👍 {votes.likes}, 👎 {votes.dislikes}")
    return lines


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
