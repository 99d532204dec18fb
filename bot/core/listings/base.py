"""What every listing parser shares: the result type, the one named error, and decoding."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from bot.core.paper import AnnounceType, Paper, normalise_doi
from bot.core.text import printable

# What the store keeps of a paper's identity (bot/store/tables.py; a test holds the two in step):
# an entry beyond them names no real paper, and PostgreSQL would refuse the whole file for it.
ARXIV_ID_MAX = 40  # characters (new ids have 10, old ones like math.GT/0309136 about 20)
DOI_MAX = 300  # characters
VERSION_MAX = 10_000  # arXiv versions stay in the tens; the column is a 32-bit integer


class ListingError(ValueError):
    """The file is not a listing paperbot can read; the message says why, for a person."""


class EmptyListing(ListingError):
    """A listing in a format paperbot reads, holding no entries: a feed's quiet day (arXiv's
    feeds are empty at weekends and holidays, a bioRxiv interval may have no posts). Nothing to
    store, and nothing wrong: a feed is not backed off for it."""

    def __init__(self, format_name: str, message: str) -> None:
        super().__init__(message)
        self.format = format_name


@dataclass(frozen=True)
class ParsedListing:
    format: str
    papers: list[Paper]
    # Entries (or parts of the file) that could not be read; the good ones are still in `papers`.
    problems: list[str] = field(default_factory=list)


_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _utf16_without_bom(head: bytes) -> str | None:
    """UTF-16 saved without a byte order mark: mostly text in one byte of each pair, NUL in the
    other (ASCII letters, digits and punctuation are U+00xx)."""
    even, odd = head[0::2], head[1::2]
    if len(odd) < 8:
        return None
    if odd.count(0) > len(odd) * 0.4 and even.count(0) < len(even) * 0.05:
        return "utf-16-le"
    if even.count(0) > len(even) * 0.4 and odd.count(0) < len(odd) * 0.05:
        return "utf-16-be"
    return None


# A character beyond ASCII that UTF-8 decoding really found (not a replacement for a bad byte).
_DECODED_BEYOND_ASCII = re.compile("[^\x00-\x7f\ufffd]")


def decode_text(data: bytes) -> tuple[str, list[str]]:
    """Bytes to text with Unix line ends. Binary junk raises ListingError; stray bytes that are
    not UTF-8 are replaced and reported as a problem instead of failing the whole file; a file
    with no UTF-8 in it at all is read as Windows-1252 (Latin-1), and reported so."""
    problems: list[str] = []
    encoding = "utf-8"
    for bom, name in _BOMS:
        if data.startswith(bom):
            data, encoding = data[len(bom) :], name
            break
    if encoding == "utf-8" and (guessed := _utf16_without_bom(data[:8192])):
        encoding = guessed
        problems.append(f"no byte order mark; read as {guessed.upper()}")
    if encoding == "utf-8" and b"\x00" in data[:8192]:
        raise ListingError("binary file (contains NUL bytes), not a listing")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        text = data.decode(encoding, errors="replace")
        if encoding == "utf-8" and not _DECODED_BEYOND_ASCII.search(text):
            text = data.decode("cp1252", errors="replace")
            problems.append(f"not UTF-8 (byte {error.start}); read as Windows-1252 (Latin-1)")
        else:
            problems.append(f"invalid {encoding} at byte {error.start}; unreadable bytes replaced")
    sample = text[:8192]
    controls = sum(1 for c in sample if ord(c) < 32 and c not in "\t\n\r\f")
    if sample and (controls + sample.count("\ufffd")) > len(sample) * 0.05:
        raise ListingError("binary file (mostly control or undecodable bytes), not a listing")
    return text.replace("\r\n", "\n").replace("\r", "\n"), problems


def within_store_bounds(papers: list[Paper]) -> tuple[list[Paper], list[str]]:
    """The papers the store can keep, and a problem for each that it cannot (an arXiv id or a
    version no real paper has); a DOI too long to be one is dropped from its paper."""
    kept: list[Paper] = []
    problems: list[str] = []
    for paper in papers:
        entry = f"entry {paper.title[:40]!r}"
        if paper.arxiv_id and len(paper.arxiv_id) > ARXIV_ID_MAX:
            problems.append(f"{entry}: {paper.arxiv_id[:20]}… is too long for an arXiv id")
            continue
        if paper.version and paper.version > VERSION_MAX:
            problems.append(f"{entry}: version {str(paper.version)[:12]} is no arXiv version")
            continue
        kept.append(paper.with_changes(doi=None) if len(paper.doi or "") > DOI_MAX else paper)
    return kept, problems


def read_doi(text: str) -> str | None:
    """'doi:10.1101/286609' -> '10.1101/286609'; None for text that is no DOI (no '10.' prefix,
    no slash, or a space, tab or line end inside, as a damaged file may put there)."""
    doi = normalise_doi(printable(text))
    if not doi or not doi.startswith("10.") or "/" not in doi:
        return None
    return None if any(c.isspace() for c in doi) else doi


def announce_of_version(version: int | None) -> AnnounceType:
    """A preprint server's version tells new from replaced, as arXiv's does (unknown without
    one)."""
    if version is None:
        return AnnounceType.UNKNOWN
    return AnnounceType.NEW if version == 1 else AnnounceType.REPLACE
