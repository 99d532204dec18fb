"""The one record every listing parser returns, and the identity keys used to de-duplicate it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from enum import StrEnum

from bot.core.text import fold_key

# What `src:` names, in the order a paper's sources are listed.
SOURCES = ("arxiv", "biorxiv", "medrxiv", "pubmed", "journal")


class AnnounceType(StrEnum):
    NEW = "new"
    CROSS = "cross"
    REPLACE = "replace"
    REPLACE_CROSS = "replace-cross"
    UNKNOWN = "unknown"

    @property
    def is_update(self) -> bool:
        return self in (AnnounceType.REPLACE, AnnounceType.REPLACE_CROSS)


# New style 2601.14131 (4 digits before 2015), old style hep-ex/0307015 or math.GT/0309136.
ARXIV_ID = re.compile(
    r"(?P<id>\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{7})(?:v(?P<version>\d+))?"
)
_ARXIV_ID_EXACT = re.compile(rf"^{ARXIV_ID.pattern}$")
# Category names look like cs.LG, math-ph, hep-th, q-bio.NC, physics.comp-ph.
CATEGORY = re.compile(r"^[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[a-z]+)*)?$")


def split_arxiv_id(text: str) -> tuple[str, int | None] | None:
    """'2601.14131v2' -> ('2601.14131', 2); anything that is not an arXiv id -> None."""
    match = _ARXIV_ID_EXACT.match(text.strip())
    if not match:
        return None
    version = match.group("version")
    return match.group("id"), int(version) if version else None


# What a person may type or paste for a paper: its id with or without version, 'arXiv:ID', its
# page on arxiv.org or export.arxiv.org (abs, pdf, html; http or https), or its DOI
# 10.48550/arXiv.ID.
_TYPED_ARXIV_ID = re.compile(
    r"(?:arxiv:"
    r"|(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/"
    r"|(?:https?://)?(?:dx\.)?(?:doi\.org/)?10\.48550/arxiv\.)?"
    + ARXIV_ID.pattern  # the id as everywhere, any case: MATH.gt/0309136
    + r"(?:\.pdf)?/?(?:[?#]\S*)?",
    re.I,
)
_AROUND_AN_ID = "<>()[]\"'.,;"  # what a pasted id may come wrapped in: <https://...>, (2506.01234).


def read_arxiv_id(text: str) -> str | None:
    """What a person typed for a paper -> its arXiv id as stored, without version:
    'https://arxiv.org/pdf/2506.01234v2' -> '2506.01234', 'MATH.gt/0309136' -> 'math.GT/0309136';
    None when it names no arXiv paper."""
    match = _TYPED_ARXIV_ID.fullmatch(text.strip().strip(_AROUND_AN_ID))
    if match is None:
        return None
    found = match.group("id")
    if "/" not in found:
        return found
    archive, number = found.split("/")
    name, dot, subject = archive.partition(".")
    return f"{name.lower()}{dot}{subject.upper()}/{number}"


def find_arxiv_id(text: str) -> tuple[str, int | None] | None:
    """The first arXiv id inside a longer string (a URL, a guid, 'arXiv:2601.14131v2')."""
    match = ARXIV_ID.search(text)
    if not match:
        return None
    version = match.group("version")
    return match.group("id"), int(version) if version else None


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper as a listing announced it, text already normalised."""

    title: str
    abstract: str
    source: str
    arxiv_id: str | None = None
    version: int | None = None
    doi: str | None = None
    announce_type: AnnounceType = AnnounceType.UNKNOWN
    title_derived: bool = False
    authors: tuple[str, ...] = ()
    # Authors the listing left out: "and 1 more" -> 1; "et al." without a count -> -1.
    more_authors: int = 0
    categories: tuple[str, ...] = ()
    announced: date | None = None
    link: str | None = None
    journal_ref: str | None = None
    comments: str | None = None
    # Ids of the paper's other records: `doi` is the journal version's (arXiv's DOI field, a
    # journal's feed, PubMed, bioRxiv's `published`), `preprint_doi` the bioRxiv or medRxiv one.
    preprint_doi: str | None = None
    server: str | None = None  # the preprint's server as it writes itself: bioRxiv, medRxiv
    pmid: str | None = None
    pmcid: str | None = None
    journal: str | None = None  # the journal's name: Nature, Cell reports
    # Other names of the journal, each folding apart from `journal` and from one another:
    # PubMed's ISO abbreviation and MedlineTA ('Nat Neurosci', 'Proc. Natl. Acad. Sci. U.S.A.')
    journal_abbreviations: tuple[str, ...] = ()
    mesh: tuple[str, ...] = ()  # PubMed's MeSH descriptors: CRISPR-Cas Systems
    title_key: str = field(init=False, default="")
    abstract_key: str = field(init=False, default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "title_key", "" if self.title_derived else fold_key(self.title))
        object.__setattr__(self, "abstract_key", fold_key(self.abstract))

    @property
    def primary_category(self) -> str | None:
        return self.categories[0] if self.categories else None

    @property
    def abs_url(self) -> str | None:
        if self.arxiv_id:
            return f"https://arxiv.org/abs/{self.arxiv_id}"
        return self.link

    @property
    def doi_url(self) -> str | None:
        """The journal version's DOI link."""
        return f"https://doi.org/{self.doi}" if self.doi else None

    @property
    def sources(self) -> tuple[str, ...]:  # each one of SOURCES
        """Where the paper's records come from, as `src:` names them: arxiv, biorxiv, medrxiv,
        pubmed, journal (a journal version is known: its DOI or name)."""
        found = []
        if self.arxiv_id:
            found.append("arxiv")
        if self.preprint_doi or self.server:
            found.append((self.server or "biorxiv").lower())
        if self.pmid:
            found.append("pubmed")
        if self.journal or self.doi:
            found.append("journal")
        return tuple(found)

    @property
    def pdf_url(self) -> str | None:
        """arXiv's PDF of the paper (its latest version), for arXiv papers."""
        return f"https://arxiv.org/pdf/{self.arxiv_id}" if self.arxiv_id else None

    @property
    def authors_line(self) -> str:
        """'A, B, C and 1 more' as the listings write it."""
        names = ", ".join(self.authors)
        if self.more_authors > 0:
            return (
                f"{names} and {self.more_authors} more" if names else f"{self.more_authors} authors"
            )
        if self.more_authors < 0:
            return f"{names} et al." if names else ""
        return names

    def with_changes(self, **changes: object) -> Paper:
        return replace(self, **changes)  # type: ignore[arg-type]


def normalise_doi(doi: str | None) -> str | None:
    if not doi:
        return None
    # lowercased (DOIs are case-insensitive), without a resolver's prefix or the full stop of
    # the sentence a record ended it with ("DOI: 10.1145/3700001.")
    doi = doi.strip().lower()
    for prefix in ("https://doi.org/", "http://doi.org/", "http://dx.doi.org/", "doi:"):
        if doi.startswith(prefix):
            doi = doi[len(prefix) :]
    return doi.rstrip(".,;") or None


# bioRxiv's and medRxiv's own DOIs: 10.1101/286609, 10.1101/2020.03.01.123456 and, since
# 2025, 10.64898/2026.07.13.738145. Cold Spring Harbor's journals share the 10.1101 prefix
# (10.1101/gr.123.1, Genome Research), with letters in their suffix.
_PREPRINT_DOI = re.compile(r"^10\.(?:1101|64898)/(?:\d{4}\.\d{2}\.\d{2}\.)?\d{6,}$")


def is_preprint_doi(doi: str | None) -> bool:
    """Whether a (normalised) DOI is a bioRxiv or medRxiv preprint's."""
    return bool(doi and _PREPRINT_DOI.match(doi))


def keep_categories(terms: list[str]) -> tuple[str, ...]:
    """Category terms shaped like cs.LG or hep-th, first occurrence first; MSC/ACM codes dropped."""
    kept: list[str] = []
    for term in terms:
        term = term.strip()
        if CATEGORY.match(term) and term not in kept:
            kept.append(term)
    return tuple(kept)
