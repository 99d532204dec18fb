"""arXiv plain-text daily listing e-mail (the cs@arXiv.org style mailing, saved as text).

Entries sit between lines of dashes; a `%%--%%--` line starts the replacements; `%%%---` ends it.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from bot.core.authors import parse_authors
from bot.core.listings.base import ListingError, ParsedListing
from bot.core.paper import AnnounceType, Paper, keep_categories, normalise_doi, split_arxiv_id
from bot.core.text import clean_text, printable

FORMAT = "arxiv-email"
_SEPARATOR = re.compile(r"^-{20,}\s*$")
_REPLACEMENTS = re.compile(r"^%%--%%--")
_END = re.compile(r"^%%%---")
_ID_LINE = re.compile(r"^arXiv:(?P<id>\S+)(?P<cross>\s+\(\*cross-listing\*\))?", re.I)
_FIELD = re.compile(r"^(?P<key>[A-Za-z][A-Za-z-]*):\s?(?P<value>.*)$")
_RECEIVED = re.compile(r"received from\s+.+?\s+to\s+\w{3}\s+(?P<date>\d{1,2}\s+\w{3}\s+\d{2})\b")


def looks_like(text: str) -> bool:
    head = text[:20000]
    return bool(re.search(r"^\\\\\s*\narXiv:\S+", head, re.M)) or (
        "Submissions to:" in head and bool(re.search(r"^-{20,}\s*$", head, re.M))
    )


def _announced(text: str) -> date | None:
    match = _RECEIVED.search(text[:5000])
    if not match:
        return None
    try:
        return datetime.strptime(match.group("date"), "%d %b %y").date()
    except ValueError:
        return None


def _chunks(lines: list[str]) -> list[tuple[int, list[str], bool]]:
    """(first line number, lines, in replacements section) for each dash-separated entry."""
    chunks: list[tuple[int, list[str], bool]] = []
    current: list[str] = []
    start, replacing = 1, False
    for number, line in enumerate(lines, start=1):
        if _SEPARATOR.match(line) or _REPLACEMENTS.match(line) or _END.match(line):
            if current:
                chunks.append((start, current, replacing))
            current, start = [], number + 1
            replacing = replacing or bool(_REPLACEMENTS.match(line))
            continue
        current.append(line)
    if current:
        chunks.append((start, current, replacing))
    return [c for c in chunks if any(_ID_LINE.match(line) for line in c[1])]


def _fields(lines: list[str]) -> tuple[dict[str, str], list[str], bool]:
    """Header fields (continuations folded in), abstract lines, and whether the entry was closed."""
    fields: dict[str, str] = {}
    abstract: list[str] = []
    key: str | None = None
    in_abstract = closed = False
    for line in lines:
        if line.startswith("\\\\ (") or line.startswith("\\\\("):
            closed = True
            break
        if line.strip() == "\\\\":
            in_abstract = bool(fields)
            continue
        if in_abstract:
            abstract.append(line)
        elif (match := _FIELD.match(line)) and not line.startswith(" "):
            key = match.group("key").lower()
            fields[key] = match.group("value")
        elif line.startswith(" ") and key is not None:
            fields[key] += " " + line.strip()
        elif line.startswith("replaced with revised version"):
            fields["replaced"] = line
            key = None
    return fields, abstract, closed


def _parse_entry(
    lines: list[str], replacing: bool, *, source: str, announced: date | None
) -> Paper:
    id_index = next(i for i, line in enumerate(lines) if _ID_LINE.match(line))
    id_match = _ID_LINE.match(lines[id_index])
    assert id_match is not None
    identity = split_arxiv_id(id_match.group("id"))
    if identity is None:
        raise ValueError(f"{id_match.group('id')!r} is not an arXiv id")
    fields, abstract_lines, closed = _fields(lines[id_index + 1 :])
    if not fields.get("title"):
        raise ValueError("no Title: line")
    if not replacing and not abstract_lines and not closed:
        raise ValueError("entry is cut off before its abstract")
    cross = bool(id_match.group("cross"))
    if replacing:
        announce_type = AnnounceType.REPLACE_CROSS if cross else AnnounceType.REPLACE
    else:
        announce_type = AnnounceType.CROSS if cross else AnnounceType.NEW
    authors, more = parse_authors(fields.get("authors"))
    arxiv_id, version = identity
    return Paper(
        title=clean_text(fields["title"]),
        abstract=clean_text("\n".join(abstract_lines)),
        source=source,
        arxiv_id=arxiv_id,
        version=version,
        doi=normalise_doi(printable(fields.get("doi", ""))),
        announce_type=announce_type,
        authors=authors,
        more_authors=more,
        categories=keep_categories(fields.get("categories", "").split()),
        announced=announced,
        link=f"https://arxiv.org/abs/{arxiv_id}",
        journal_ref=clean_text(fields.get("journal-ref")) or None,
        comments=clean_text(fields.get("comments")) or None,
    )


def parse(text: str, *, source: str, file_date: date | None = None) -> ParsedListing:
    announced = _announced(text) or file_date
    chunks = _chunks(text.split("\n"))
    if not chunks:
        raise ListingError("an arXiv mailing without any 'arXiv:ID' entries")
    papers: list[Paper] = []
    problems: list[str] = []
    for start, lines, replacing in chunks:
        try:
            papers.append(_parse_entry(lines, replacing, source=source, announced=announced))
        except ValueError as error:
            problems.append(f"entry at line {start}: {error}")
    return ParsedListing(FORMAT, papers, problems)
