"""Listing cases as files: `tests/data/listings/NAME.ext` plus `NAME.expected.json`.

The expected document holds the format, the problems (substrings, in order) and every paper as
`paper_fields` renders it; or, for a file that must be refused, `{"error": "substring"}`.
Regenerate after a deliberate change with `python -m tests.listing_cases NAME...`, then
review the diff.
"""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

from bot.core.listings import ListingError, parse_listing
from bot.core.paper import Paper

CASES = Path(__file__).parent / "data" / "listings"
FILE_DATE = date(2026, 10, 23)  # stands in for the file's mtime, so expectations stay literal


def case_files() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if not p.name.endswith(".expected.json"))


def expected_path(case: Path) -> Path:
    return case.with_name(case.stem + ".expected.json")


def paper_fields(paper: Paper) -> dict[str, object]:
    fields: dict[str, object] = {
        "title": paper.title,
        "title_derived": paper.title_derived,
        "arxiv_id": paper.arxiv_id,
        "version": paper.version,
        "doi": paper.doi,
        "announce_type": paper.announce_type.value,
        "authors": list(paper.authors)
        if len(paper.authors) <= 12
        else [*paper.authors[:3], f"... {len(paper.authors)} kept"],
        "more_authors": paper.more_authors,
        "categories": list(paper.categories),
        "announced": paper.announced.isoformat() if paper.announced else None,
        "link": paper.link,
        "abstract": paper.abstract,
    }
    if paper.journal_ref:
        fields["journal_ref"] = paper.journal_ref
    if paper.comments:
        fields["comments"] = paper.comments
    extra = {
        "preprint_doi": paper.preprint_doi,
        "server": paper.server,
        "pmid": paper.pmid,
        "pmcid": paper.pmcid,
        "journal": paper.journal,
        "journal_abbreviations": list(paper.journal_abbreviations),
        "mesh": list(paper.mesh),
    }
    fields.update((name, value) for name, value in extra.items() if value)
    return fields


def render_case(case: Path) -> dict[str, object]:
    try:
        parsed = parse_listing(case.read_bytes(), source=case.name, file_date=FILE_DATE)
    except ListingError as error:
        return {"error": str(error)}
    return {
        "format": parsed.format,
        "problems": parsed.problems,
        "papers": [paper_fields(p) for p in parsed.papers],
    }


if __name__ == "__main__":
    wanted = set(sys.argv[1:])
    for case in case_files():
        if not wanted or case.stem in wanted:
            document = render_case(case)
            expected_path(case).write_text(
                json.dumps(document, indent=2, ensure_ascii=False) + "\n"
            )
            print(f"wrote {expected_path(case).name}")
