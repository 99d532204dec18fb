"""What journal and preprint-server feeds put where feedparser's general case does not look: the
journal (PRISM's publicationName, Dublin Core's source), a citation line or a heading in front of
the abstract, ScienceDirect's description that holds only the citation and the authors, a PubMed
id in the guid, a bioRxiv version in the link. The feed module reads the fields; this one decides
what they mean, from text alone."""

from __future__ import annotations

import re

from bot.core.text import clean_text, fold_key

# Nature's "<p>Nature, Published online: 18 July 2024; doi:10.1038/...</p>" and PubMed's
# "<div><p style=...>Parasitol Int. 2021 Dec 17:102531. doi: 10.1016/...</p>" before the text.
_CITATION_PARAGRAPH = re.compile(
    r"^\s*(?:<div[^>]{0,200}>\s*)?<p\b[^>]{0,200}>(?:(?!</p>).){0,500}?\bdoi:\s*10\.\d{4,9}/"
    r"(?:(?!</p>).){0,500}?</p>",
    re.S | re.I,
)
# PubMed's "<p style=...>PMID:<a ...>34929406</a> | DOI:<a ...>...</a></p></div>" after it.
_PMID_PARAGRAPH = re.compile(
    r"<p\b[^>]{0,200}>\s*PMID:(?:(?!</p>).){0,2000}?</p>\s*(?:</div>\s*)?$", re.S
)
_HEADING = re.compile(r"^(?i:abstract)\s*[:.]?\s+(?=[A-Z0-9])")
# "Volume 56, Issue 3, December 2021, Page 163-175." (Taylor & Francis), "TAXON, Volume 70,
# Issue 6, Page 1327-1328, December 2021." (Wiley): the issue cited, no abstract.
_ONLY_CITATION = re.compile(
    r"^(?:[^,]{1,100},\s*)?(?:Volume|Vol\.)\s*\d+\b[^.]{0,120}(?:Pages?|pp?\.)\s*[\w-]+"
    r"(?:,\s*\w+\s+\d{4})?\s*\.?$"
)


def abstract(html: str, title: str) -> str:
    """The abstract a feed entry carries, without the citation line or heading set before it; ""
    when what is left only repeats the title or cites the issue."""
    html = _PMID_PARAGRAPH.sub("", _CITATION_PARAGRAPH.sub("", html, count=1), count=1)
    text = _HEADING.sub("", clean_text(html, html_input=True), count=1)
    if fold_key(text) == fold_key(title) or _ONLY_CITATION.match(text):
        return ""
    return text


def journal_name(names: list[str], title: str) -> str | None:
    """The first of the names that is a journal's (Taylor & Francis put the article's own title
    in publicationName, Nature a citation in dc:source); None without one."""
    usable = [clean_text(n, html_input=True) for n in names if n and fold_key(n) != fold_key(title)]
    return next((n for n in usable if n and "|" not in n and len(n) < 200), None)


def journal_reference(
    names: list[str], title: str, volume: str, issue: str, pages: tuple[str, str]
) -> str | None:
    """'Studies on Neotropical Fauna and Environment 56(3): 163-175' from the first name that is
    a journal's; None without one."""
    name = journal_name(names, title)
    if not name:
        return None
    reference = f"{name} {clean_text(volume)}".strip()
    reference += f"({clean_text(issue)})" if volume and issue else ""
    first, last = (clean_text(page) for page in pages)
    reference += f": {first}-{last}" if volume and first and last and first != last else ""
    return reference


_SCIENCEDIRECT = re.compile(
    r"^Publication date:\s*(?P<date>.{0,60}?)\s*Source:\s*(?P<source>.{0,300}?)\s*"
    r"(?:Author\(s\):\s*(?P<authors>.*))?$",
    re.S,
)


def sciencedirect(text: str) -> tuple[str, str] | None:
    """ScienceDirect's description, 'Publication date: February 2022 Source: Molecular
    Phylogenetics and Evolution, Volume 167 Author(s): A, B', as (journal reference, authors);
    None for any other text."""
    match = _SCIENCEDIRECT.match(text)
    return (match["source"], match["authors"] or "") if match else None


_PREPRINT_VERSION = re.compile(
    r"^https?://(?:www\.|connect\.)?(?:bio|med)rxiv\.org/\S*?/(?:10\.\d+/)?[\d.]+v(\d{1,4})\b"
)
_PUBMED_GUID = re.compile(r"^pubmed:(\d{1,12})$")


_PREPRINT_SERVER = re.compile(r"^https?://(?:www\.|connect\.)?(bio|med)rxiv\.org/")


def is_preprint_server(link: str) -> bool:
    return bool(_PREPRINT_SERVER.match(link))


def preprint_server(link: str) -> str | None:
    """'bioRxiv' or 'medRxiv' for a link to one of them."""
    match = _PREPRINT_SERVER.match(link)
    return f"{match[1]}Rxiv" if match else None


def preprint_version(link: str) -> int | None:
    """bioRxiv and medRxiv give the version only in the link: .../content/short/287961v1?rss=1."""
    match = _PREPRINT_VERSION.match(link)
    return int(match[1]) if match else None


def pubmed_id(guid: str) -> str | None:
    """PubMed's feeds name the record in the guid: 'pubmed:34929406' -> '34929406'."""
    match = _PUBMED_GUID.match(guid.strip())
    return match[1] if match else None


# PubMed's feeds start an item's content with its citation, the journal as NLM abbreviates it
# (MedlineTA) before the date, a year and a month or the volume: '<div><p style=...>Parasitol
# Int. 2021 Dec 17:102531. doi: ...', 'J Gen Virol. 2021 Dec;102(12).', 'Cells. 2021;10(1):5.'
_PUBMED_CITATION = re.compile(
    r"^\s*(?:<div\b[^>]{0,200}>\s*)?<p\b[^>]{0,200}>\s*(?P<journal>[^<>]{1,150}?)\.\s+"
    r"\d{4}(?:\s+[A-Z][a-z]{2}\b|[;:.])"
)


def pubmed_abbreviation(html: str) -> str | None:
    """The journal's abbreviation in the citation a PubMed feed item starts with ('Parasitol
    Int'); None for content that does not start with one."""
    match = _PUBMED_CITATION.match(html)
    return clean_text(match["journal"], html_input=True) or None if match else None


def pubmed_link(guid: str) -> str | None:
    """The record's page (PubMed's own links carry tracking parameters with spaces in them)."""
    pmid = pubmed_id(guid)
    return f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None


def server_named(journal: str | None) -> str:
    """The server of a preprint DOI (bioRxiv's and medRxiv's share their prefixes) from the
    name a record gives it as its journal ('medRxiv : the preprint server for health
    sciences'); bioRxiv without one."""
    return "medRxiv" if "medrxiv" in (journal or "").lower() else "bioRxiv"
