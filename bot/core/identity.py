"""Which incoming entry is a paper already seen: ids, else DOIs, else titles, else abstracts.

Pure: the store loads the identities of candidate rows and this index decides; the same index
de-duplicates the entries of one file before anything is stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.core.journal_names import distinct_abbreviations
from bot.core.paper import Paper

Ref = TypeVar("Ref")

MIN_TITLE_KEY = 20  # shorter titles ("Editorial", "Erratum") are too common to identify a paper
MIN_ABSTRACT_KEY = 80


def _digest(key: str) -> str:
    return hashlib.sha1(key.encode(), usedforsecurity=False).hexdigest()  # a key, no secret


@dataclass(frozen=True, slots=True)
class Identity:
    arxiv_id: str | None
    doi: str | None  # the journal version's
    preprint_doi: str | None  # bioRxiv's or medRxiv's
    pmid: str | None
    title_hash: str | None
    abstract_hash: str | None

    @classmethod
    def of(cls, paper: Paper) -> Identity:
        title = paper.title_key if len(paper.title_key) >= MIN_TITLE_KEY else ""
        abstract = paper.abstract_key if len(paper.abstract_key) >= MIN_ABSTRACT_KEY else ""
        return cls(
            arxiv_id=paper.arxiv_id,
            doi=paper.doi,
            preprint_doi=paper.preprint_doi,
            pmid=paper.pmid,
            title_hash=_digest(title) if title else None,
            abstract_hash=_digest(abstract) if abstract else None,
        )

    @property
    def keys(self) -> tuple[str | None, ...]:
        """The keys in the order they identify a paper: ids first, then text."""
        return (
            self.arxiv_id,
            self.preprint_doi,
            self.pmid,
            self.doi,
            self.title_hash,
            self.abstract_hash,
        )

    def conflicts_with(self, other: Identity) -> bool:
        """Two entries with different ids of one kind are different papers, however alike
        their titles; the first kind of id both have decides (the same arXiv id is the same
        paper even where a DOI was mistyped). A preprint's DOI and a journal's DOI are kinds
        apart: a bioRxiv preprint and its journal version meet through `published`, PubMed's
        ids or their title."""
        for mine, theirs in (
            (self.arxiv_id, other.arxiv_id),
            (self.preprint_doi, other.preprint_doi),
            (self.pmid, other.pmid),
            (self.doi, other.doi),
        ):
            if mine and theirs:
                return mine != theirs
        return False


_KINDS = 6  # of Identity.keys
_ABSTRACT = _KINDS - 1


class IdentityIndex(Generic[Ref]):
    """Finds the known paper an incoming entry is, in the order DESIGN section 2 fixes."""

    def __init__(self) -> None:
        self._by_key: tuple[dict[str, tuple[Identity, Ref]], ...] = tuple({} for _ in range(_KINDS))

    def add(self, identity: Identity, ref: Ref) -> None:
        for table, key in zip(self._by_key, identity.keys, strict=True):
            if key:
                table[key] = (identity, ref)

    def find(self, identity: Identity) -> Ref | None:
        for kind, (table, key) in enumerate(zip(self._by_key, identity.keys, strict=True)):
            if key and (hit := table.get(key)) and not hit[0].conflicts_with(identity):
                if kind == _ABSTRACT and hit[0].title_hash and identity.title_hash:
                    continue  # two titled entries with different titles are different papers
                return hit[1]
        return None


def merge(stored: Paper, incoming: Paper) -> tuple[Paper, bool]:
    """The stored paper with what the incoming entry adds: ids and DOI it lacked, a real title for
    a derived one, and, for a newer version, the newer text. Returns (paper, is_newer_version)."""
    newer = bool(incoming.version and incoming.version > (stored.version or 1))
    base, extra = (incoming, stored) if newer else (stored, incoming)
    # A mailing's replacement names no version, but its comments, journal reference and DOI are
    # the paper's as they are now ("Accepted at ICLR 2027"): they win over the stored ones.
    replaced = not newer and incoming.announce_type.is_update and incoming.version is None
    now, then = (incoming, stored) if replaced else (base, extra)
    arxiv_id = base.arxiv_id or extra.arxiv_id
    title, derived = base.title, base.title_derived
    if derived and not extra.title_derived:
        title, derived = extra.title, False
    journal = _journal_name(base, extra)
    merged = base.with_changes(
        title=title,
        title_derived=derived,
        arxiv_id=arxiv_id,
        version=max(filter(None, (stored.version, incoming.version)), default=None),
        doi=now.doi or then.doi,
        authors=base.authors or extra.authors,
        more_authors=base.more_authors if base.authors else extra.more_authors,
        categories=base.categories or extra.categories,
        abstract=base.abstract or extra.abstract,
        announced=stored.announced or incoming.announced,
        link=f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else base.link or extra.link,
        journal_ref=now.journal_ref or then.journal_ref,
        comments=now.comments or then.comments,
        preprint_doi=base.preprint_doi or extra.preprint_doi,
        server=base.server if base.preprint_doi or not extra.preprint_doi else extra.server,
        pmid=base.pmid or extra.pmid,
        pmcid=base.pmcid or extra.pmcid,
        journal=journal,
        journal_abbreviations=distinct_abbreviations(
            journal, (*base.journal_abbreviations, *extra.journal_abbreviations)
        ),
        mesh=base.mesh or extra.mesh,
        source=stored.source,
        announce_type=incoming.announce_type if newer else stored.announce_type,
    )
    return merged, newer


def _journal_name(base: Paper, extra: Paper) -> str | None:
    """The journal's name as the journal writes itself: a journal's own feed's spelling rather
    than PubMed's ('Nature Neuroscience', not NLM's 'Nature neuroscience'; 'Sensors', not
    'Sensors (Basel, Switzerland)'), whichever came first; else the base record's."""
    if base.journal and extra.journal and base.pmid and not extra.pmid:
        return extra.journal
    return base.journal or extra.journal


def gains_journal_version(before: Paper, after: Paper) -> bool:
    """Whether a preprint (arXiv's, bioRxiv's, medRxiv's) without a known journal version now
    has one: the journal's DOI, its name or a PubMed record."""
    preprint = bool(before.arxiv_id or before.preprint_doi)
    known = bool(before.doi or before.journal or before.pmid)
    return preprint and not known and bool(after.doi or after.journal or after.pmid)


def filter_view(paper: Paper) -> Paper:
    """What filters read of a paper (bot/core/matcher: the words of its title, abstract and
    authors, its categories, MeSH terms, journal and its abbreviations, and sources), the rest
    left out. A record merged into a matched paper that changes it can match filters the paper
    did not: the paper is matched again for the chats those filters bring
    (bot/service/planning.py)."""
    return Paper(
        title=paper.title,
        abstract=paper.abstract,
        source="",
        arxiv_id=paper.arxiv_id,
        doi=paper.doi,
        authors=paper.authors,
        categories=paper.categories,
        preprint_doi=paper.preprint_doi,
        server=paper.server,
        pmid=paper.pmid,
        journal=paper.journal,
        journal_abbreviations=paper.journal_abbreviations,
        mesh=paper.mesh,
    )


@dataclass
class Entry:
    """One distinct paper of a PaperSet: its id if it is stored, and what merging did to it."""

    paper: Paper
    paper_id: int | None = None
    changed: bool = False  # a stored paper gained something from a duplicate
    newer: bool = False  # ... and that something was a newer version
    published: bool = False  # ... or its journal version (it was a preprint without one)


class PaperSet:
    """Distinct papers, seeded with known (stored) ones; each added entry either joins the paper
    it duplicates (merged into it) or becomes a new one. Ingestion and previews both use it."""

    def __init__(self, known: Iterable[tuple[int, Paper]] = ()) -> None:
        self._index: IdentityIndex[Entry] = IdentityIndex()
        self.entries: list[Entry] = []
        self.duplicates = 0
        for paper_id, paper in known:
            self._remember(Entry(paper, paper_id))

    def _remember(self, entry: Entry) -> None:
        self.entries.append(entry)
        self._index.add(Identity.of(entry.paper), entry)

    def add(self, paper: Paper) -> None:
        entry = self._index.find(Identity.of(paper))
        if entry is None:
            self._remember(Entry(paper))
            return
        self.duplicates += 1
        merged, newer = merge(entry.paper, paper)
        entry.changed |= merged != entry.paper
        entry.newer |= newer
        entry.published |= gains_journal_version(entry.paper, merged)
        entry.paper = merged
        self._index.add(Identity.of(merged), entry)  # keys the merge added now find it too

    @property
    def papers(self) -> list[Paper]:
        return [entry.paper for entry in self.entries]


def deduplicate(papers: Iterable[Paper]) -> list[Paper]:
    """The distinct papers of a batch, duplicates merged as ingestion merges them."""
    distinct = PaperSet()
    for paper in papers:
        distinct.add(paper)
    return distinct.papers
