"""Abstract-only listing (seed 003): a first line `Papers`, then abstracts separated by blank lines.

No title, authors, category or date: the date is the file's, the headline is derived from the
abstract (and flagged as derived), identity comes from the normalised abstract.
"""

from __future__ import annotations

import re
from datetime import date

from bot.core.listings.base import ListingError, ParsedListing
from bot.core.paper import Paper
from bot.core.summary import derive_headline
from bot.core.text import clean_text

FORMAT = "abstracts"
_FIRST_LINE = re.compile(r"^\s*papers\s*$", re.I)
MIN_ABSTRACT_CHARS = 80


def looks_like(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    return bool(_FIRST_LINE.match(first))


def _blocks(lines: list[str], first_line: int) -> list[tuple[int, str]]:
    """(line number, text) of each blank-line separated block."""
    blocks: list[tuple[int, str]] = []
    current: list[str] = []
    for number, line in enumerate(lines, start=first_line):
        if line.strip():
            if not current:
                blocks.append((number, ""))
            current.append(line)
        elif current:
            blocks[-1] = (blocks[-1][0], "\n".join(current))
            current = []
    if current:
        blocks[-1] = (blocks[-1][0], "\n".join(current))
    return blocks


def parse(text: str, *, source: str, file_date: date | None = None) -> ParsedListing:
    lines = text.split("\n")
    header = next(i for i, line in enumerate(lines) if line.strip())
    blocks = _blocks(lines[header + 1 :], first_line=header + 2)
    if not blocks:
        raise ListingError("'Papers' header but no abstracts after it")
    problems: list[str] = []
    papers: list[Paper] = []
    for line_number, block in blocks:
        abstract = clean_text(block)
        if len(abstract) < MIN_ABSTRACT_CHARS:
            problems.append(f"line {line_number}: {abstract[:40]!r} is too short to be an abstract")
            continue
        papers.append(
            Paper(
                title=derive_headline(abstract),
                title_derived=True,
                abstract=abstract,
                source=source,
                announced=file_date,
            )
        )
    return ParsedListing(FORMAT, papers, problems)
