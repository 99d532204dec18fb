"""Paper queries."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import and_, case, func, insert, literal, or_, update
from sqlmodel import Session, col, select

from bot.core.identity import Identity, filter_view
from bot.core.paper import AnnounceType, Paper
from bot.store.tables import PaperTable

_CHUNK = 400  # keeps IN (...) lists well under SQLite's and PostgreSQL's parameter limits


def _to_paper(row: PaperTable) -> Paper:
    return Paper(
        title=row.title,
        abstract=row.abstract,
        source=row.source,
        arxiv_id=row.arxiv_id,
        version=row.version,
        doi=row.doi,
        announce_type=AnnounceType(row.announce_type),
        title_derived=row.title_derived,
        authors=tuple(row.authors),
        more_authors=row.more_authors,
        categories=tuple(row.categories),
        announced=row.announced,
        link=row.link,
        journal_ref=row.journal_ref,
        comments=row.comments,
        preprint_doi=row.preprint_doi,
        server=row.server,
        pmid=row.pmid,
        pmcid=row.pmcid,
        journal=row.journal,
        journal_abbreviations=tuple(row.journal_abbreviations),
        mesh=tuple(row.mesh),
    )


def _columns(paper: Paper) -> dict[str, object]:
    identity = Identity.of(paper)
    return {
        "arxiv_id": paper.arxiv_id,
        "version": paper.version,
        "doi": paper.doi,
        "title_hash": identity.title_hash,
        "abstract_hash": identity.abstract_hash,
        "title": paper.title,
        "title_derived": paper.title_derived,
        "abstract": paper.abstract,
        "authors": list(paper.authors),
        "more_authors": paper.more_authors,
        "categories": list(paper.categories),
        "announce_type": paper.announce_type.value,
        "announced": paper.announced,
        "link": paper.link,
        "journal_ref": paper.journal_ref,
        "comments": paper.comments,
        "source": paper.source,
        "preprint_doi": paper.preprint_doi,
        "server": paper.server,
        "pmid": paper.pmid,
        "pmcid": paper.pmcid,
        "journal": paper.journal,
        "journal_abbreviations": list(paper.journal_abbreviations),
        "mesh": list(paper.mesh),
    }


def _view_columns(paper: Paper) -> dict[str, object]:
    """What filters read of a paper (filter_view) as JSON, to match it against again later."""
    view = filter_view(paper)
    return {
        "title": view.title,
        "abstract": view.abstract,
        "arxiv_id": view.arxiv_id,
        "doi": view.doi,
        "authors": list(view.authors),
        "categories": list(view.categories),
        "preprint_doi": view.preprint_doi,
        "server": view.server,
        "pmid": view.pmid,
        "journal": view.journal,
        "journal_abbreviations": list(view.journal_abbreviations),
        "mesh": list(view.mesh),
    }


def _view_paper(stored: dict[str, Any]) -> Paper:
    # a record kept before 0023 has no journal_abbreviations: none
    names = ("authors", "categories", "mesh", "journal_abbreviations")
    lists = {name: tuple(stored.get(name, ())) for name in names}
    return Paper(**{**stored, **lists}, source="")


def find_known_papers(
    session: Session, *, identities: Sequence[Identity]
) -> list[tuple[int, Paper]]:
    """Stored papers sharing any identity key with the given entries (candidates, not verdicts)."""
    found: dict[int, Paper] = {}
    names = ("arxiv_id", "preprint_doi", "pmid", "doi", "title_hash", "abstract_hash")
    columns = [getattr(PaperTable, name) for name in names]
    keys = [sorted({getattr(i, name) for i in identities} - {None}) for name in names]
    for column, values in zip(columns, keys, strict=True):
        for start in range(0, len(values), _CHUNK):
            chunk = values[start : start + _CHUNK]
            rows = session.exec(select(PaperTable).where(col(column).in_(chunk))).all()
            for row in rows:
                assert row.id is not None
                found.setdefault(row.id, _to_paper(row))
    return list(found.items())


def insert_papers(session: Session, *, papers: Sequence[Paper], now: datetime) -> list[int]:
    """Insert new papers in one batched statement; returns their ids in the same order."""
    if not papers:
        return []
    statement = insert(PaperTable).returning(col(PaperTable.id), sort_by_parameter_order=True)
    rows = [{**_columns(paper), "first_seen": now} for paper in papers]
    return list(session.execute(statement, rows).scalars())


def update_paper(
    session: Session,
    *,
    paper_id: int,
    paper: Paper,
    now: datetime,
    newer: bool = False,
    published: bool = False,
    matched_as: Paper | None = None,
) -> None:
    """Store a better record of a paper; `newer` (a later version) makes it an update for the
    chats that follow updates, once it has been matched as a new paper; `published` (the
    journal version of a stored preprint) records when that was found; `matched_as` (the
    stored record, when the new one changes what filters read) makes a matched paper wait to
    be matched again for the chats it newly matches (unmatched_papers), keeping the record as
    the filters saw it when it was matched: the first one, if several merge before planning."""
    values: dict[str, object] = {**_columns(paper), "updated_at": now}
    if matched_as is not None:
        rematch_from = col(PaperTable.rematch_from)
        waits = and_(col(PaperTable.matched_at).is_not(None), rematch_from.is_(None))
        seen = literal(_view_columns(matched_as), PaperTable.__table__.c.rematch_from.type)  # type: ignore[attr-defined]
        values["rematch_from"] = case((waits, seen), else_=rematch_from)
    if published:
        values["journal_found_at"] = now
    if newer:
        matched = col(PaperTable.matched_at).is_not(None)
        values["update_pending"] = case((matched, True), else_=col(PaperTable.update_pending))
    statement = update(PaperTable).where(col(PaperTable.id) == paper_id).values(**values)
    if session.execute(statement).rowcount != 1:  # type: ignore[attr-defined]
        raise LookupError(f"paper {paper_id} is not stored")


def count_papers(session: Session) -> int:
    return session.exec(select(func.count()).select_from(PaperTable)).one()


def count_papers_since(session: Session, *, since: datetime) -> int:
    """New papers first stored after `since` (a replacement announced for a paper never seen
    before is stored too, but it is not a new paper)."""
    replaced = [AnnounceType.REPLACE.value, AnnounceType.REPLACE_CROSS.value]
    statement = (
        select(func.count())
        .select_from(PaperTable)
        .where(PaperTable.first_seen > since, col(PaperTable.announce_type).not_in(replaced))
    )
    return session.exec(statement).one()


def get_papers(session: Session, *, paper_ids: Iterable[int]) -> dict[int, Paper]:
    ids = list(paper_ids)
    result: dict[int, Paper] = {}
    for start in range(0, len(ids), _CHUNK):
        rows = session.exec(
            select(PaperTable).where(col(PaperTable.id).in_(ids[start : start + _CHUNK]))
        )
        for row in rows:
            assert row.id is not None
            result[row.id] = _to_paper(row)
    return result


def recent_days(session: Session, *, announcement_days: int) -> list[date]:
    """The last `announcement_days` announcement dates present in the database, newest first
    (not the wall clock: a quiet week or an old listing still counts)."""
    announced = col(PaperTable.announced)
    days = session.exec(
        select(announced)
        .where(announced.is_not(None))
        .distinct()
        .order_by(announced.desc())
        .limit(announcement_days)
    ).all()
    return [day for day in days if day is not None]


def recent_papers(session: Session, *, announcement_days: int) -> list[tuple[int, Paper]]:
    """Papers of the last `announcement_days` announcement dates present in the database.
    Papers without a date come too."""
    days = recent_days(session, announcement_days=announcement_days)
    return papers_announced_since(session, day=min(days) if days else None)


def papers_announced_since(
    session: Session, *, day: date | None, after_id: int = 0, up_to_id: int | None = None
) -> list[tuple[int, Paper]]:
    """Papers announced on `day` or later and papers without a date (day None: only those),
    of ids above `after_id` (and up to `up_to_id`), by id."""
    announced = col(PaperTable.announced)
    condition = announced.is_(None) if day is None else or_(announced.is_(None), announced >= day)
    ids = col(PaperTable.id)
    statement = select(PaperTable).where(condition, ids > after_id)
    if up_to_id is not None:
        statement = statement.where(ids <= up_to_id)
    rows = session.exec(statement.order_by(ids)).all()
    return [(row.id, _to_paper(row)) for row in rows if row.id is not None]


def last_paper_id(session: Session) -> int:
    """The highest paper id (0: none stored); ids grow with every paper stored."""
    return session.exec(select(func.max(PaperTable.id))).one() or 0


def update_stamps(
    session: Session, *, first_id: int, last_id: int, since: datetime | None
) -> dict[int, datetime]:
    """When each paper of ids `first_id`..`last_id` was last updated (a better record or a newer
    version stored), for those updated at `since` or later (since None: ever)."""
    updated_at = col(PaperTable.updated_at)
    ids = col(PaperTable.id)
    condition = updated_at.is_not(None) if since is None else updated_at >= since
    statement = select(ids, updated_at).where(ids >= first_id, ids <= last_id, condition)
    return {paper_id: at for paper_id, at in session.exec(statement) if paper_id and at is not None}


def latest_papers(session: Session, *, limit: int) -> list[tuple[int, Paper]]:
    """The `limit` papers stored last, oldest first (the window ranking models learn from)."""
    rows = session.exec(select(PaperTable).order_by(col(PaperTable.id).desc()).limit(limit)).all()
    return [(row.id, _to_paper(row)) for row in reversed(rows) if row.id is not None]


def papers_by_arxiv_id(
    session: Session, *, arxiv_ids: Iterable[str]
) -> dict[str, tuple[int, Paper]]:
    """Stored papers by their arXiv id (without version)."""
    wanted = list(arxiv_ids)  # a library imported may name thousands
    found: dict[str, tuple[int, Paper]] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        rows = session.exec(select(PaperTable).where(col(PaperTable.arxiv_id).in_(chunk))).all()
        found |= {row.arxiv_id: (row.id, _to_paper(row)) for row in rows if row.id and row.arxiv_id}
    return found


def all_papers(session: Session) -> list[Paper]:
    return [_to_paper(row) for row in session.exec(select(PaperTable).order_by(col(PaperTable.id)))]


def last_announcement(session: Session) -> date | None:
    return session.exec(select(func.max(PaperTable.announced))).one()


def unmatched_papers(session: Session, *, limit: int) -> list[tuple[int, Paper, bool]]:
    """Papers not yet matched against the filters, papers with a newer version not yet
    matched, and papers a merged record is to be matched again for (rematch_records):
    (id, paper, is_update), oldest first."""
    pending = or_(
        col(PaperTable.matched_at).is_(None),
        col(PaperTable.update_pending),
        col(PaperTable.rematch_from).is_not(None),
    )
    statement = select(PaperTable).where(pending).order_by(col(PaperTable.id)).limit(limit)
    return [
        (row.id, _to_paper(row), row.matched_at is not None and row.update_pending)
        for row in session.exec(statement)
        if row.id is not None
    ]


def mark_matched(session: Session, *, paper_ids: Sequence[int], now: datetime) -> None:
    for start in range(0, len(paper_ids), _CHUNK):
        chunk = paper_ids[start : start + _CHUNK]
        session.execute(
            update(PaperTable)
            .where(col(PaperTable.id).in_(chunk))
            .values(matched_at=now, update_pending=False, rematch_from=None)
        )


def rematch_records(session: Session, *, paper_ids: Sequence[int]) -> dict[int, Paper]:
    """Of these papers, those waiting to be matched again after a record merged into them, each
    as its filters saw it when it was matched (update_paper's `matched_as`), by id."""
    found: dict[int, Paper] = {}
    for start in range(0, len(paper_ids), _CHUNK):
        chunk = paper_ids[start : start + _CHUNK]
        rematch_from = col(PaperTable.rematch_from)
        statement = select(PaperTable.id, rematch_from).where(
            col(PaperTable.id).in_(chunk), rematch_from.is_not(None)
        )
        found |= {i: _view_paper(seen) for i, seen in session.execute(statement) if i and seen}
    return found


def papers_published_since(session: Session, *, since: datetime) -> list[tuple[int, Paper]]:
    """Stored preprints whose journal version was found at `since` or later, by id: what a
    "published in" note to the chats that got them reads."""
    found = col(PaperTable.journal_found_at)
    statement = select(PaperTable).where(found >= since).order_by(col(PaperTable.id))
    return [(row.id, _to_paper(row)) for row in session.exec(statement) if row.id is not None]


def known_pmids(session: Session, *, pmids: Sequence[str]) -> set[str]:
    """Which of these PubMed ids a stored paper has."""
    found: set[str] = set()
    for start in range(0, len(pmids), _CHUNK):
        chunk = list(pmids[start : start + _CHUNK])
        rows = session.exec(select(PaperTable.pmid).where(col(PaperTable.pmid).in_(chunk)))
        found.update(pmid for pmid in rows if pmid)
    return found
