"""A chat's library: an imported one taken as 👍 (the papers stored here) and as text to learn
from (the others, never sent); the papers it saves with 🔖; both written out for a reference
manager."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from bot.core.identity import Identity, IdentityIndex
from bot.core.library import (
    BadEntry,
    Library,
    LibraryFormat,
    Reference,
    top_authors,
)
from bot.core.paper import Paper
from bot.core.query import MAX_SEEDS
from bot.core.text import fold_key
from bot.store import Database, deliveries, feedback, library, papers


@dataclass(frozen=True)
class LibraryImported:
    """What an import did: entries read, recognised as stored papers (now 👍), used to train
    (not stored, with a title and an abstract), and those that were neither or unreadable."""

    format: LibraryFormat
    read: int
    recognised: list[Paper]
    used: int  # entries kept as text for the chat's model (new ones and known ones)
    unused: int  # read but neither recognised nor with an abstract to learn from
    bad: tuple[BadEntry, ...]
    import_id: int
    seeds: list[str] = field(default_factory=list)  # arXiv ids a "more like this" filter takes
    authors: list[str] = field(default_factory=list)  # the most frequent authors


def _key(paper: Paper) -> str:
    return hashlib.sha1(fold_key(paper.title).encode(), usedforsecurity=False).hexdigest()


def import_library(
    database: Database, *, chat_id: int, found: Library, now: datetime
) -> LibraryImported:
    """Each entry found among the stored papers (arXiv id, DOI, title) rated 👍 (kept as it
    is when 👍 already); each other with a title and an abstract kept to train on."""
    entries = [(entry, entry.paper()) for entry in found.entries]
    identities = [Identity.of(paper) for _, paper in entries]
    recognised: dict[int, Paper] = {}
    learnt: list[tuple[str, Paper]] = []
    unused = 0
    with database.session() as session:
        index: IdentityIndex[int] = IdentityIndex()
        for paper_id, stored in papers.find_known_papers(session, identities=identities):
            index.add(Identity.of(stored), paper_id)
        known = papers.get_papers(session, paper_ids=set(_found(index, identities)))
        held = feedback.ratings(session, chat_id=chat_id)
        for (_, paper), identity in zip(entries, identities, strict=True):
            match = index.find(identity)
            if match is not None and match in known:
                if held.get(match) != 1 and match not in recognised:
                    feedback.rate(session, chat_id=chat_id, paper_id=match, value=1, now=now)
                recognised.setdefault(match, known[match])
            elif paper.title and paper.abstract:
                learnt.append((_key(paper), paper))
            else:
                unused += 1
        library.add_entries(session, chat_id=chat_id, entries=learnt, now=now)
        seeds = [p.arxiv_id for p in recognised.values() if p.arxiv_id][-MAX_SEEDS:]
        authors = top_authors(entry for entry, _ in entries)
        import_id = library.add_import(
            session, chat_id=chat_id, seeds=seeds, authors=authors, now=now
        )
    return LibraryImported(
        found.format,
        len(found.entries),
        list(recognised.values()),
        len(learnt),
        unused,
        found.bad,
        import_id,
        seeds,
        authors,
    )


def _found(index: IdentityIndex[int], identities: list[Identity]) -> list[int]:
    return [i for i in (index.find(identity) for identity in identities) if i is not None]


def counts(database: Database, *, chat_id: int) -> tuple[int, int]:
    """(imported papers kept to learn from, saved papers) of the chat."""
    with database.session() as session:
        kept = library.count_library(session, chat_id=chat_id)
        return kept, len(library.saved_ids(session, chat_id=chat_id))


def import_choice(
    database: Database, *, chat_id: int, import_id: int
) -> tuple[list[str], list[str]]:
    """An import's seeds and authors, for the buttons under its reply (empty: not the chat's)."""
    with database.session() as session:
        return library.get_import(session, chat_id=chat_id, import_id=import_id)


# -- saved papers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Saved:
    paper: Paper
    saved: bool  # True: saved now; False: taken out


def toggle_row(database: Database, *, chat_id: int, row_id: int, now: datetime) -> Saved | None:
    """🔖 under a paper the chat was sent: saved, or (saved already) taken out; None when the
    row is not the chat's."""
    with database.session() as session:
        row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=chat_id)
        if row is None:
            return None
        found = papers.get_papers(session, paper_ids=[row.paper_id])
        if row.paper_id not in found:
            return None
        saved = library.toggle_saved(session, chat_id=chat_id, paper_id=row.paper_id, now=now)
    return Saved(found[row.paper_id], saved)


@dataclass(frozen=True)
class SavedPage:
    papers: list[tuple[int, Paper]]  # (paper id, paper) on this page, the last saved first
    page: int  # from 0, within range
    pages: int
    total: int


def saved_page(database: Database, *, chat_id: int, page: int, per_page: int) -> SavedPage:
    with database.session() as session:
        ids = library.saved_ids(session, chat_id=chat_id)
        pages = max((len(ids) + per_page - 1) // per_page, 1)
        page = min(max(page, 0), pages - 1)
        shown = ids[page * per_page : (page + 1) * per_page]
        found = papers.get_papers(session, paper_ids=shown)
    return SavedPage([(i, found[i]) for i in shown if i in found], page, pages, len(ids))


def unsave(database: Database, *, chat_id: int, paper_id: int) -> bool:
    with database.session() as session:
        return library.unsave(session, chat_id=chat_id, paper_id=paper_id)


def references(database: Database, *, chat_id: int) -> list[Reference]:
    """The chat's saved papers (the last saved first), then its other 👍 (the last first)."""
    with database.session() as session:
        saved = library.saved_ids(session, chat_id=chat_id)
        held = feedback.ratings(session, chat_id=chat_id)
        liked = [paper_id for paper_id, value in reversed(held.items()) if value > 0]
        order = list(dict.fromkeys([*saved, *liked]))
        found = papers.get_papers(session, paper_ids=order)
    chosen, rated = set(saved), set(liked)
    return [Reference(found[i], i in chosen, i in rated) for i in order if i in found]
