"""bioRxiv and medRxiv API answers (api.biorxiv.org `details/<server>/<interval>`): JSON with a
`messages` header and a `collection` of records, one for each version posted in the interval.

A record's DOI carries no version; `version` and the other numbers are strings; `authors` is one
string of "Surname, I." names separated by "; "; `published` is "NA" or the journal version's DOI.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from bot.core.authors import parse_surname_first
from bot.core.listings.base import (
    EmptyListing,
    ListingError,
    ParsedListing,
    announce_of_version,
    read_doi,
)
from bot.core.paper import Paper
from bot.core.text import clean_text, printable

FORMAT = "biorxiv-api"
NO_POSTS = "no posts found"  # the API's status for an interval without papers
SERVERS = ("biorxiv", "medrxiv")
# How far into the file the record keys must show: the header is a few hundred characters.
_HEAD = 4096


def looks_like(text: str) -> bool:
    head = text.lstrip()[:_HEAD]
    return head.startswith("{") and '"messages"' in head and '"collection"' in text[:65536]


def _string(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    return printable(str(value)).strip() if isinstance(value, str | int) else ""


def server_name(text: str) -> str | None:
    """'biorxiv', 'bioRxiv' -> 'bioRxiv' (the API's docs write it in lower case, its answers
    as the server writes itself); None for any other name."""
    return {"biorxiv": "bioRxiv", "medrxiv": "medRxiv"}.get(text.strip().lower())


_NOT_A_SLUG = re.compile(r"[^a-z]+")


def category(server: str, subject: str) -> str | None:
    """'bioRxiv', 'Animal Behavior and Cognition' -> 'biorxiv.animal-behavior-and-cognition': the
    server's name keeps its subject collections apart from arXiv's categories and from each other's,
    and the shape is the one `cat:` reads (`cat:biorxiv.neuroscience`, `cat:medrxiv`)."""
    name = server.lower()
    slug = _NOT_A_SLUG.sub("-", subject.lower()).strip("-")
    return f"{name}.{slug}" if name in SERVERS and slug else None


# bioRxiv's subject collections, as its subject feeds title them.
BIORXIV_SUBJECTS = frozenset(
    (
        "animal behavior and cognition", "biochemistry", "bioengineering", "bioinformatics",
        "biophysics", "cancer biology", "cell biology", "clinical trials", "developmental biology",
        "ecology", "epidemiology", "evolutionary biology", "genetics", "genomics", "immunology",
        "microbiology", "molecular biology", "neuroscience", "paleontology", "pathology",
        "pharmacology and toxicology", "physiology", "plant biology",
        "scientific communication and education", "synthetic biology", "systems biology",
        "zoology",
    )
)  # fmt: skip
# medRxiv's subject collections.
MEDRXIV_SUBJECTS = frozenset(
    (
        "addiction medicine", "allergy and immunology", "anesthesia", "cardiovascular medicine",
        "dentistry and oral medicine", "dermatology", "emergency medicine", "endocrinology",
        "epidemiology", "forensic medicine", "gastroenterology", "genetic and genomic medicine",
        "geriatric medicine", "health economics", "health informatics", "health policy",
        "health systems and quality improvement", "hematology", "hiv aids",
        "infectious diseases", "intensive care and critical care medicine", "medical education",
        "medical ethics", "nephrology", "neurology", "nursing", "nutrition",
        "obstetrics and gynecology", "occupational and environmental health", "oncology",
        "ophthalmology", "orthopedics", "otolaryngology", "pain medicine", "palliative medicine",
        "pathology", "pediatrics", "pharmacology and therapeutics", "primary care research",
        "psychiatry and clinical psychology", "public and global health",
        "radiology and imaging", "rehabilitation medicine and physical therapy",
        "respiratory medicine", "rheumatology", "sexual and reproductive health",
        "sports medicine", "surgery", "toxicology", "transplantation", "urology",
    )
)  # fmt: skip


def subject_categories() -> dict[str, tuple[str, str]]:
    """Every subject collection as a category: biorxiv.neuroscience -> (the same,
    'bioRxiv: Neuroscience'), for `cat:` to know them as it knows arXiv's."""
    found: dict[str, tuple[str, str]] = {}
    for server, subjects in (("bioRxiv", BIORXIV_SUBJECTS), ("medRxiv", MEDRXIV_SUBJECTS)):
        for subject in sorted(subjects):
            code = category(server, subject)
            if code:
                found[code] = (code, f"{server}: {subject.capitalize()}")
    return found


_SUBJECT_FEED = re.compile(r"^bioRxiv Subject Collection:\s*(?P<subject>.+)$", re.I)


def feed_categories(feed_title: str) -> tuple[str, ...]:
    """The category of a feed of one subject ('bioRxiv Subject Collection: Neuroscience' ->
    biorxiv.neuroscience): its items carry no subject of their own (prism:section is empty), so
    a feed of all subjects, or of several ('Genomics Bioinformatics'), gives none."""
    match = _SUBJECT_FEED.match(feed_title.strip())
    subject = " ".join(match["subject"].lower().split()) if match else ""
    kept = category("bioRxiv", subject) if subject in BIORXIV_SUBJECTS else None
    return (kept,) if kept else ()


def _announced(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _paper(record: dict[str, Any], source: str) -> Paper:
    title = clean_text(_string(record, "title"), html_input=True, tex=False)
    if not title:
        raise ValueError("no title")
    doi = read_doi(_string(record, "doi"))
    if not doi:
        raise ValueError(f"no DOI ({_string(record, 'doi')[:40]!r})")
    version_text = _string(record, "version")
    version = int(version_text) if version_text.isdigit() and len(version_text) < 6 else None
    authors, more = parse_surname_first(_string(record, "authors").split(";"))
    server = server_name(_string(record, "server")) or "bioRxiv"
    published = read_doi(_string(record, "published"))
    kept = category(server, _string(record, "category"))
    return Paper(
        title=title,
        abstract=clean_text(_string(record, "abstract"), html_input=True, tex=False),
        source=source,
        version=version,
        doi=published,
        preprint_doi=doi,
        server=server,
        announce_type=announce_of_version(version),
        authors=authors,
        more_authors=more,
        categories=(kept,) if kept else (),
        announced=_announced(_string(record, "date")),
        link=f"https://doi.org/{doi}",
    )


def _answer(text: str) -> dict[str, Any]:
    try:
        answer = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ListingError(f"not a readable bioRxiv API answer: {error}") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("collection"), list):
        raise ListingError("JSON, but not a bioRxiv API answer (no 'collection' list)")
    return answer


def _status(answer: dict[str, Any]) -> str:
    messages = answer.get("messages")
    first = messages[0] if isinstance(messages, list) and messages else {}
    return _string(first, "status") if isinstance(first, dict) else ""


def parse(text: str, *, source: str) -> ParsedListing:
    answer = _answer(text)
    records = answer["collection"]
    if not records:
        status = _status(answer)
        message = f"bioRxiv API answer without papers (status {status[:80]!r})"
        raise EmptyListing(FORMAT, message) if status == NO_POSTS else ListingError(message)
    papers: list[Paper] = []
    problems: list[str] = []
    for number, record in enumerate(records, start=1):
        try:
            if not isinstance(record, dict):
                raise ValueError("not a record")
            papers.append(_paper(record, source))
        except ValueError as error:
            problems.append(f"record {number}: {error}")
    return ParsedListing(FORMAT, papers, problems)


PAGE = 100  # records the API answers a request with, at most
# .../details/<server>/<interval>[/<cursor>[/<format>]], the interval one segment (30d, 2 for
# the latest two, a DOI's prefix is not one) or two dates.
_DETAILS = re.compile(
    r"^(?P<head>.*/details/(?:bio|med)rxiv/(?:\d{4}-\d{2}-\d{2}/\d{4}-\d{2}-\d{2}|\d+d?))"
    r"(?:/(?P<cursor>\d{1,9}))?(?P<format>/json)?/?$",
    re.I,
)


def _number(value: object) -> int | None:
    text = str(value).strip() if isinstance(value, str | int) else ""
    return int(text) if text.isdigit() and len(text) < 10 else None


def _split(url: str) -> tuple[str, str]:
    """The address without its query and fragment, and them."""
    end = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    return url[:end], url[end:]


def is_paged_address(url: str) -> bool:
    """Whether the address asks the API for `details` of an interval, which come in pages."""
    return bool(_DETAILS.match(_split(url)[0]))


def next_page(url: str, text: str) -> str | None:
    """The address of the next page of a `details` answer paged by the API (100 records a
    page: its header's cursor, count and total say whether more follow); None at the last
    page, or for any other address or content."""
    address, query = _split(url)
    match = _DETAILS.match(address)
    if not match or not looks_like(text):
        return None
    try:
        messages = json.loads(text).get("messages")
    except (ValueError, RecursionError, AttributeError):
        return None
    header = messages[0] if isinstance(messages, list) and messages else None
    if not isinstance(header, dict):
        return None
    cursor, count, total = (_number(header.get(key)) for key in ("cursor", "count", "total"))
    if cursor is None or not count or total is None or cursor + count >= total:
        return None
    return f"{match['head']}/{cursor + count}{match['format'] or ''}{query}"
