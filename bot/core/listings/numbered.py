"""Numbered listing (seeds 000 and 002): five lines per entry, no blank lines.

#01Oct 22, 2026
cs.LG
Title
Author, Author, Author and 1 more
Abstract on one long line
"""

from __future__ import annotations

import re
from datetime import date, datetime

from bot.core.authors import parse_authors
from bot.core.listings.base import ListingError, ParsedListing
from bot.core.paper import Paper, keep_categories
from bot.core.text import clean_text

FORMAT = "numbered"
HEADER = re.compile(r"^#(?P<position>\d{1,4})\s*(?P<date>[A-Z][a-z]{2}\s+\d{1,2},\s+\d{4})\s*$")


def looks_like(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    return bool(HEADER.match(first.strip()))


def _parse_date(text: str) -> date | None:
    try:
        return datetime.strptime(re.sub(r"\s+", " ", text), "%b %d, %Y").date()
    except ValueError:
        return None


def parse(text: str, *, source: str) -> ParsedListing:
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if HEADER.match(line.strip())]
    if not starts:
        raise ListingError("no numbered entries ('#01Oct 22, 2026' lines) found")
    problems: list[str] = []
    if any(line.strip() for line in lines[: starts[0]]):
        problems.append(f"lines 1-{starts[0]}: text before the first entry ignored")
    papers: list[Paper] = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        body = [line.strip() for line in lines[start + 1 : end] if line.strip()]
        header = HEADER.match(lines[start].strip())
        assert header is not None
        where = f"entry #{header.group('position')} at line {start + 1}"
        if len(body) < 4:
            problems.append(
                f"{where}: expected category, title, authors and abstract lines, "
                f"found {len(body)} line(s)"
            )
            continue
        category, title, authors_line, *abstract_lines = body
        categories = keep_categories([category])
        if not categories:
            problems.append(f"{where}: {category!r} is not an arXiv category")
            continue
        authors, more = parse_authors(authors_line)
        papers.append(
            Paper(
                title=clean_text(title),
                abstract=clean_text(" ".join(abstract_lines)),
                source=source,
                authors=authors,
                more_authors=more,
                categories=categories,
                announced=_parse_date(header.group("date")),
            )
        )
    return ParsedListing(FORMAT, papers, problems)
