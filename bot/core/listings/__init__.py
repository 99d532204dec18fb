"""Listing parsers, one module per format, and the detection that picks one from the content."""

from __future__ import annotations

from datetime import date

from bot.core.listings import abstracts, biorxiv, email, feeds, numbered, pubmed
from bot.core.listings.base import (
    EmptyListing,
    ListingError,
    ParsedListing,
    decode_text,
    within_store_bounds,
)

__all__ = ["FORMATS", "EmptyListing", "ListingError", "ParsedListing", "parse_listing"]

FORMATS = (
    numbered.FORMAT,
    abstracts.FORMAT,
    email.FORMAT,
    feeds.ARXIV_RSS,
    feeds.ARXIV_RDF,
    feeds.ARXIV_API,
    feeds.GENERIC,
    biorxiv.FORMAT,
    pubmed.FORMAT,
)


def parse_listing(data: bytes, *, source: str, file_date: date | None = None) -> ParsedListing:
    """Detect the format from the content (never the name) and parse it.

    Returns the papers read plus the problems met on the way; raises ListingError when nothing in
    the file can be read as a listing.
    """
    text, problems = decode_text(data)
    if not text.strip():
        raise ListingError("empty file")
    if pubmed.is_esearch(text):
        raise pubmed.refuse_esearch(text)
    if biorxiv.looks_like(text):
        result = biorxiv.parse(text, source=source)
    elif pubmed.looks_like(text):
        result = pubmed.parse(text, source=source)
    elif feeds.looks_like(text):
        result = feeds.parse(data, source=source)
    elif numbered.looks_like(text):
        result = numbered.parse(text, source=source)
    elif abstracts.looks_like(text):
        result = abstracts.parse(text, source=source, file_date=file_date)
    elif email.looks_like(text):
        result = email.parse(text, source=source, file_date=file_date)
    else:
        first = text.strip().split("\n", 1)[0][:60]
        raise ListingError(
            f"unrecognised listing format (first line {first!r}); expected a numbered listing, "
            "an abstract-only listing, an arXiv mailing, an RSS/Atom feed, PubMed XML or a "
            "bioRxiv/medRxiv API answer"
        )
    papers, out_of_bounds = within_store_bounds(result.papers)
    if not result.papers and not result.problems:
        raise EmptyListing(result.format, f"{result.format} listing without any entries")
    found = [_shortened(p) for p in [*result.problems, *out_of_bounds]]
    if not papers:
        raise ListingError(f"no readable entries: {'; '.join(found[:3])}")
    return ParsedListing(result.format, papers, problems + found)


PROBLEM_SHOWN = 300  # characters of a problem: it quotes the file, whose lines may be megabytes


def _shortened(problem: str) -> str:
    return problem if len(problem) <= PROBLEM_SHOWN else problem[: PROBLEM_SHOWN - 1] + "…"
