"""Every XML listing, read with feedparser: rss.arxiv.org RSS 2.0 and its Atom twin, the legacy
RSS 1.0/RDF feed, arXiv API Atom answers, and any other RSS/Atom feed (the general case)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from io import BytesIO
from typing import Any

import feedparser

from bot.core.authors import is_surname_first, parse_authors, parse_surname_first
from bot.core.journal_names import distinct_abbreviations
from bot.core.listings import biorxiv, journals
from bot.core.listings.base import ListingError, ParsedListing, announce_of_version, read_doi
from bot.core.paper import (
    AnnounceType,
    Paper,
    find_arxiv_id,
    is_preprint_doi,
    keep_categories,
    normalise_doi,
)
from bot.core.text import clean_text, printable

ARXIV_RSS = "arxiv-rss"
ARXIV_RDF = "arxiv-rdf"
ARXIV_API = "arxiv-api"
GENERIC = "feed"

Entry = Any  # feedparser.FeedParserDict

_RSS_DESCRIPTION = re.compile(
    r"^\s*arXiv:(?P<id>\S+)\s+Announce Type:\s*(?P<type>[\w-]+)\s*Abstract:\s*(?P<abstract>.*)$",
    re.S,
)
_RDF_TITLE = re.compile(
    r"^(?P<title>.*?)\.?\s*\(arXiv:(?P<id>\S+?)\s*\[(?P<category>[^\]]+)\]"
    r"(?:\s*(?P<flag>CROSS LISTED|UPDATED))?\)\s*$",
    re.S,
)


def looks_like(text: str) -> bool:
    return text.lstrip().startswith("<")


def _field(item: Any, name: str) -> object:
    """A field of a feedparser record, None when missing (asked with `in` first: feedparser's
    own get("updated") falls back to "published" with a DeprecationWarning)."""
    return item.get(name) if isinstance(item, dict) and name in item else None


def _text(item: Any, name: str) -> str:
    """A field as text: "" when it is missing or, in a malformed feed read leniently, no text
    (an element's attributes, say)."""
    value = _field(item, name)
    return value if isinstance(value, str) else ""


def _items(item: Any, name: str) -> list[Any]:
    """A field's list of records (authors, tags, contents), those that are records."""
    value = _field(item, name)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _mapping(item: Any, name: str) -> dict[str, Any]:
    value = _field(item, name)
    return value if isinstance(value, dict) else {}


def _date(parsed: object) -> date | None:
    if not isinstance(parsed, time.struct_time):
        return None
    return date(parsed.tm_year, parsed.tm_mon, parsed.tm_mday)


def _local_date(item: Any, *names: str) -> date | None:
    """The date as the feed wrote it, in the feed's own time zone (arXiv dates its announcements
    at midnight US Eastern; feedparser's parsed dates are UTC and could move the day)."""
    for name in names:
        raw = _text(item, name)
        if not raw:
            continue
        for reader in (datetime.fromisoformat, parsedate_to_datetime):
            try:
                return reader(raw.strip()).date()
            except (ValueError, TypeError, IndexError):
                continue
        if parsed := _date(_field(item, f"{name}_parsed")):
            return parsed
    return None


def _entry_date(entry: Entry, channel: date | None) -> date | None:
    return _local_date(entry, "published", "updated") or channel


def _announce_type(text: str | None) -> AnnounceType:
    try:
        return AnnounceType((text or "").strip().lower())
    except ValueError:
        return AnnounceType.UNKNOWN


def _tags(entry: Entry) -> list[str]:
    return [_text(tag, "term") for tag in _items(entry, "tags")]


def _author_names(entry: Entry) -> tuple[tuple[str, ...], int]:
    names = [_text(a, "name") for a in _items(entry, "authors") if _text(a, "name")]
    if names and all(is_surname_first(name) for name in names):  # bioRxiv: 'Kumar, V. G.'
        return parse_surname_first(names)
    if len(names) == 1:  # one string of comma-separated names (dc:creator)
        return parse_authors(names[0])
    return parse_authors(", ".join(names)) if names else ((), 0)


def _arxiv_rss(entry: Entry, source: str, channel: date | None) -> Paper:
    description = _text(entry, "summary")
    match = _RSS_DESCRIPTION.match(description)
    abstract = match.group("abstract") if match else description
    identity = find_arxiv_id(_text(entry, "id")) or (match and find_arxiv_id(match.group("id")))
    identity = identity or find_arxiv_id(_text(entry, "link"))
    if not identity:
        raise ValueError("no arXiv id in guid, description or link")
    announce = _text(entry, "arxiv_announce_type") or (match.group("type") if match else None)
    authors, more = _author_names(entry)
    return Paper(
        title=clean_text(_text(entry, "title")),
        abstract=clean_text(abstract, html_input=True),
        source=source,
        arxiv_id=identity[0],
        version=identity[1],
        doi=normalise_doi(printable(_text(entry, "arxiv_doi"))),
        announce_type=_announce_type(announce),
        authors=authors,
        more_authors=more,
        categories=keep_categories(_tags(entry)),
        announced=channel or _entry_date(entry, None),
        link=f"https://arxiv.org/abs/{identity[0]}",
        journal_ref=clean_text(_text(entry, "arxiv_journal_reference")) or None,
    )


def _arxiv_rdf(entry: Entry, source: str, channel: date | None) -> Paper:
    raw_title = clean_text(_text(entry, "title"), tex=False)
    match = _RDF_TITLE.match(raw_title)
    if not match:
        raise ValueError(f"title {raw_title[:60]!r} lacks the '(arXiv:ID [category])' part")
    identity = find_arxiv_id(match.group("id"))
    if not identity:
        raise ValueError(f"{match.group('id')!r} is not an arXiv id")
    flag = match.group("flag")
    announce = {"CROSS LISTED": AnnounceType.CROSS, "UPDATED": AnnounceType.REPLACE}.get(
        flag or "", AnnounceType.NEW
    )
    authors, more = _author_names(entry)
    return Paper(
        title=clean_text(match.group("title")),
        abstract=clean_text(_text(entry, "summary"), html_input=True),
        source=source,
        arxiv_id=identity[0],
        version=identity[1],
        announce_type=announce,
        authors=authors,
        more_authors=more,
        categories=keep_categories([match.group("category"), *_tags(entry)]),
        announced=channel or _entry_date(entry, None),
        link=f"https://arxiv.org/abs/{identity[0]}",
    )


def _arxiv_api(entry: Entry, source: str, channel: date | None) -> Paper:
    identity = find_arxiv_id(_text(entry, "id"))
    if not identity:
        raise ValueError(f"entry id {_text(entry, 'id')[:80]!r} is not an arXiv abstract address")
    primary = _text(_mapping(entry, "arxiv_primary_category"), "term")
    authors, more = parse_authors(", ".join(_text(a, "name") for a in _items(entry, "authors")))
    version = identity[1]
    return Paper(
        title=clean_text(_text(entry, "title")),
        abstract=clean_text(_text(entry, "summary")),
        source=source,
        arxiv_id=identity[0],
        version=version,
        doi=normalise_doi(printable(_text(entry, "arxiv_doi"))),
        announce_type=AnnounceType.REPLACE if (version or 1) > 1 else AnnounceType.UNKNOWN,
        authors=authors,
        more_authors=more,
        categories=keep_categories([primary or "", *_tags(entry)]),
        announced=_local_date(entry, "updated", "published"),
        link=f"https://arxiv.org/abs/{identity[0]}",
        journal_ref=clean_text(_text(entry, "arxiv_journal_ref")) or None,
        # Follow-ups read "accepted at …" from the comments, as the mailing's parser keeps them
        comments=clean_text(_text(entry, "arxiv_comment")) or None,
    )


LINK_MAX = 2000  # longer addresses are not links anyone can use


def _link(value: str) -> str | None:
    """A web address to show, or None: http(s) only, no spaces or control characters."""
    link = printable(value).strip()
    if len(link) > LINK_MAX or not link.lower().startswith(("https://", "http://")):
        return None
    return None if any(c.isspace() for c in link) else link


def _generic(entry: Entry, source: str, channel: date | None, feed: Any) -> Paper:
    title = clean_text(_text(entry, "title"), html_input=True)
    summary = _text(entry, "summary")
    if contents := _items(entry, "content"):
        summary = max([summary, *(_text(c, "value") for c in contents)], key=len)
    if not title:
        raise ValueError("entry without a title")
    link = journals.pubmed_link(_text(entry, "id")) or _link(_text(entry, "link"))
    identity = find_arxiv_id(link) if link and "arxiv.org" in link else None
    version = identity[1] if identity else journals.preprint_version(link or "")
    authors, more = _author_names(entry)
    abstract = journals.abstract(summary, title)
    journal_ref = _journal_ref(entry, title, feed)
    server = journals.preprint_server(link or "")
    preprint_subjects = biorxiv.feed_categories(_text(feed, "title")) if server else ()
    journal = None if server else journals.journal_name(_journal_names(entry, feed), title)
    if found := journals.sciencedirect(abstract):
        abstract, journal_ref = "", found[0]
        journal = found[0].split(",")[0].strip() or journal
        authors, more = parse_authors(found[1]) if found[1] else (authors, more)
    doi = _doi(entry)
    preprint_doi = doi if is_preprint_doi(doi) else None
    pmid = journals.pubmed_id(_text(entry, "id"))
    cited = journals.pubmed_abbreviation(summary) if pmid and not preprint_doi else None
    return Paper(
        title=title,
        abstract=abstract,
        source=source,
        arxiv_id=identity[0] if identity else None,
        version=version,
        doi=None if preprint_doi else doi,
        preprint_doi=preprint_doi,
        server=server or (journals.server_named(journal) if preprint_doi else None),
        pmid=pmid,
        journal=None if preprint_doi else journal,
        journal_abbreviations=distinct_abbreviations(journal, [cited] if cited else []),
        announce_type=announce_of_version(version) if not identity else AnnounceType.UNKNOWN,
        authors=authors,
        more_authors=more,
        categories=keep_categories([*_tags(entry), *preprint_subjects]),
        announced=_entry_date(entry, channel),
        link=link,
        journal_ref=None if server else journal_ref,
    )


def _doi(entry: Entry) -> str | None:
    """PRISM's doi, else a Dublin Core identifier that is one ('doi:10.1101/286609'; PubMed's
    feeds also give 'pmid:34929406', and feedparser keeps the last identifier)."""
    for found in (_text(entry, "prism_doi"), _text(entry, "dc_identifier"), _text(entry, "id")):
        if doi := read_doi(found):
            return doi
    return None


def _journal_names(entry: Entry, feed: Any) -> list[str]:
    return [
        _text(entry, "prism_publicationname"),
        _text(feed, "prism_publicationname"),
        _text(entry, "dc_source"),
    ]


def _journal_ref(entry: Entry, title: str, feed: Any) -> str | None:
    names = _journal_names(entry, feed)
    pages = (_text(entry, "prism_startingpage"), _text(entry, "prism_endingpage"))
    volume, issue = _text(entry, "prism_volume"), _text(entry, "prism_number")
    return journals.journal_reference(names, title, volume, issue, pages)


def _kind(parsed: Any) -> tuple[str, Callable[[Entry, str, date | None], Paper]]:
    entries = parsed.entries
    if parsed.version == "rss10" and any(_RDF_TITLE.match(_text(e, "title")) for e in entries):
        return ARXIV_RDF, _arxiv_rdf
    if any(
        _text(e, "arxiv_announce_type") or _text(e, "id").startswith("oai:arXiv.org:")
        for e in entries
    ):
        return ARXIV_RSS, _arxiv_rss
    if "arxiv.org/api" in str(parsed.feed.get("id", "")) or any(
        _mapping(e, "arxiv_primary_category") for e in entries
    ):
        return ARXIV_API, _arxiv_api
    return GENERIC, lambda entry, source, channel: _generic(entry, source, channel, parsed.feed)


_ROOT_END = re.compile(rb"</\s*(?:[\w-]+:)?(?:rss|feed|RDF)\s*>\s*(?:<!--.*?-->\s*)*$", re.S)


def _closed(data: bytes) -> bool:
    return bool(_ROOT_END.search(data[-4096:]))


_CHARACTER_REFERENCE = re.compile(rb"&#(?:[xX](?P<hex>[0-9a-fA-F]+)|(?P<decimal>[0-9]+));")


def _readable_reference(match: re.Match[bytes]) -> bytes:
    """A numeric character reference that names no character (&#0;, &#xD800;, &#x110000;, one
    of a thousand digits) becomes U+FFFD: feedparser's lenient parser would raise on it."""
    digits, base = (match["hex"], 16) if match["hex"] else (match["decimal"], 10)
    if len(digits) > 8:
        return b"&#xFFFD;"
    code = int(digits, base)
    if code == 0 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return b"&#xFFFD;"
    return match.group(0)


def _read_feed(data: bytes) -> Any:
    """feedparser's reading of the bytes, given as a stream: given bytes, feedparser first tries
    them as a file name, and a listing's content must never name a file to read."""
    data = _CHARACTER_REFERENCE.sub(_readable_reference, data)
    try:
        return feedparser.parse(BytesIO(data), sanitize_html=False, resolve_relative_uris=False)
    except (ValueError, LookupError, OverflowError, RecursionError) as error:
        raise ListingError(f"not a readable feed: {type(error).__name__}: {error}") from None


def _the_entries(count: int, kind: str = "") -> str:
    """'the 1 entry', 'the 3 complete entries'."""
    return f"the {count} {kind}{'entry' if count == 1 else 'entries'}"


def parse(data: bytes, *, source: str) -> ParsedListing:
    parsed = _read_feed(data)
    problems: list[str] = []
    if parsed.bozo:
        error = parsed.get("bozo_exception")
        where = getattr(error, "getLineNumber", lambda: None)()
        detail = f" at line {where}" if where else ""
        if not parsed.entries:
            raise ListingError(f"not a readable feed: XML error{detail}: {error}")
        problems.append(
            f"XML is cut off or malformed{detail} ({error}); kept "
            f"{_the_entries(len(parsed.entries))} read before it"
        )
    elif not _closed(data):
        problems.append(
            "XML is cut off (the closing root tag is missing); kept "
            f"{_the_entries(len(parsed.entries), 'complete ')}"
        )
    if not parsed.entries and not parsed.version:
        raise ListingError("XML, but not an RSS or Atom feed")
    channel = _local_date(parsed.feed, "published", "updated")
    kind, to_paper = _kind(parsed)
    papers: list[Paper] = []
    for number, entry in enumerate(parsed.entries, start=1):
        try:
            papers.append(to_paper(entry, source, channel))
        except ValueError as error:
            problems.append(f"entry {number}: {error}")
    return ParsedListing(kind, papers, problems)
