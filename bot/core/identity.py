"""Which incoming entry is a paper already seen: ids, else DOIs, else titles, else abstracts.

Pure: the store loads the identities of candidate rows and this index decides; the same index
de-duplicates the entries of one file before anything is stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.core.paper import Paper

Ref = TypeVar("Ref")

MIN_TITLE_KEY = 20  # shorter titles ("Editorial", "Erratum") are too common to identify a paper
MIN_ABSTRACT_KEY = 80


def _digest(key: str) -> str:
    return hashlib.sha1(key.encode(), usedforsecurity=False).hexdigest()  # a key, no secret


@dataclass(frozen=True, slots=True)
class Identity:
    arxiv_id: str | None
    doi: str | None
    title_hash: str | None
    abstract_hash: str | None

    @classmethod
    def of(cls, paper: Paper) -> Identity:
        title = paper.title_key if len(paper.title_key) >= MIN_TITLE_KEY else ""
        abstract = paper.abstract_key if len(paper.abstract_key) >= MIN_ABSTRACT_KEY else ""
        return cls(
            arxiv_id=paper.arxiv_id,
            doi=paper.doi,
            title_hash=_digest(title) if title else None,
            abstract_hash=_digest(abstract) if abstract else None,
        )

    def conflicts_with(self, other: Identity) -> bool:
        """Two entries with different ids (or, lacking ids, different DOIs) are different papers,
        however alike their titles."""
        if self.arxiv_id and other.arxiv_id:
            return self.arxiv_id != other.arxiv_id
        return bool(self.doi and other.doi and self.doi != other.doi)


class IdentityIndex(Generic[Ref]):
    """Finds the known paper an incoming entry is, in the order DESIGN section 2 fixes."""

    def __init__(self) -> None:
        self._by_key: tuple[dict[str, tuple[Identity, Ref]], ...] = ({}, {}, {}, {})

    def add(self, identity: Identity, ref: Ref) -> None:
        keys = (identity.arxiv_id, identity.doi, identity.title_hash, identity.abstract_hash)
        for table, key in zip(self._by_key, keys, strict=True):
            if key:
                table[key] = (identity, ref)

    def find(self, identity: Identity) -> Ref | None:
        keys = (identity.arxiv_id, identity.doi, identity.title_hash, identity.abstract_hash)
        for table, key in zip(self._by_key, keys, strict=True):
            if key and (hit := table.get(key)) and not hit[0].conflicts_with(identity):
                if table is self._by_key[3] and hit[0].title_hash and identity.title_hash:
                    continue  # two titled entries with different titles are different papers
                return hit[1]
        return None


def merge(stored: Paper, incoming: Paper) -> tuple[Paper, bool]:
    """The stored paper with what the incoming entry adds: ids and DOI it lacked, a real title for
    a derived one, and, for a newer version, the newer text. Returns (paper, is_newer_version)."""
    newer = bool(incoming.version and incoming.version > (stored.version or 1))
    base, extra = (incoming, stored) if newer else (stored, incoming)
    arxiv_id = base.arxiv_id or extra.arxiv_id
    title, derived = base.title, base.title_derived
    if derived and not extra.title_derived:
        title, derived = extra.title, False
    merged = base.with_changes(
        title=title,
        title_derived=derived,
        arxiv_id=arxiv_id,
        version=max(filter(None, (stored.version, incoming.version)), default=None),
        doi=base.doi or extra.doi,
        authors=base.authors or extra.authors,
        more_authors=base.more_authors if base.authors else extra.more_authors,
        categories=base.categories or extra.categories,
        abstract=base.abstract or extra.abstract,
        announced=stored.announced or incoming.announced,
        link=f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else base.link or extra.link,
        journal_ref=base.journal_ref or extra.journal_ref,
        comments=base.comments or extra.comments,
        source=stored.source,
        announce_type=incoming.announce_type if newer else stored.announce_type,
    )
    return merged, newer


@dataclass
class Entry:
    """One distinct paper of a PaperSet: its id if it is stored, and what merging did to it."""

    paper: Paper
    paper_id: int | None = None
    changed: bool = False  # a stored paper gained something from a duplicate
    newer: bool = False  # ... and that something was a newer version


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
