"""PubMed XML: E-utilities `efetch` answers (db=pubmed, retmode=xml) and the files PubMed's
"Send to: File, XML" writes, both a `PubmedArticleSet` of `PubmedArticle` records.

Read with the standard library's expat parser, which never fetches an external DTD or entity; a
file that declares entities of its own is refused, so none can expand. An `esearch` answer holds
only PMIDs and is refused with a note on what to fetch instead.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from xml.etree.ElementTree import Element, ParseError, XMLPullParser

from bot.core.authors import MAX_AUTHORS
from bot.core.journal_names import distinct_abbreviations
from bot.core.listings.base import ListingError, ParsedListing, read_doi
from bot.core.listings.journals import server_named
from bot.core.paper import Paper, is_preprint_doi
from bot.core.text import fold_whitespace, printable, subscript, superscript

FORMAT = "pubmed-xml"
_HEAD = 4096
_ENTITY_DECLARATION = re.compile(r"<!ENTITY", re.I)
_MONTHS = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}


def looks_like(text: str) -> bool:
    return text.lstrip().startswith("<") and "<PubmedArticleSet" in text[:_HEAD]


def is_esearch(text: str) -> bool:
    head = text.lstrip()[:_HEAD]
    return head.startswith(("{", "<")) and ("esearchresult" in head or "<eSearchResult" in head)


def refuse_esearch(text: str) -> ListingError:
    count = re.search(r'"count"\s*:\s*"(\d+)"|<Count>(\d+)</Count>', text[:_HEAD])
    found = f" ({count[1] or count[2]} PMIDs)" if count else ""
    return ListingError(
        f"a PubMed esearch answer{found} holds ids, not papers: "
        "fetch them with efetch.fcgi?db=pubmed&retmode=xml&id=... and ingest that"
    )


def _plain(text: str) -> str:
    return unicodedata.normalize("NFC", fold_whitespace(printable(text)))


_SCRIPTS = {"sup": superscript, "sub": subscript}


def _inline(element: Element) -> str:
    """An element's text with its inline markup dropped (<i>, <b>) or kept readable: a reference
    number <sup>1</sup> as ¹, CO<sub>2</sub> as CO₂."""
    parts = [element.text or ""]
    for child in element:
        inner = _inline(child)
        parts.append(_SCRIPTS[child.tag](inner) if child.tag in _SCRIPTS and inner else inner)
        parts.append(child.tail or "")
    return "".join(parts)


def _text(element: Element | None) -> str:
    """An element's text, whitespace folded."""
    return "" if element is None else _plain(_inline(element))


def _label(label: str) -> str:
    """'BACKGROUND' -> 'Background', 'METHODS AND PROCEDURES' -> 'Methods and procedures'; a
    label already in mixed case is kept; PubMed's 'UNLABELLED' is no label."""
    label = _plain(label).rstrip(":")
    if label.upper() in ("UNLABELLED", "UNLABELED", "UNASSIGNED"):
        return ""
    return label.capitalize() if label.isupper() else label


def _abstract(article: Element) -> str:
    """Structured abstracts keep their sections as 'Background: ... Methods: ...'."""
    parts = []
    for section in article.iterfind("Abstract/AbstractText"):
        text, label = _text(section), _label(section.get("Label", ""))
        if text:
            parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)


def _author(author: Element) -> str:
    """'Blaine Reeder'; 'C. M. Jankowski' when only initials are given; a collective's name."""
    if collective := _text(author.find("CollectiveName")):
        return collective
    last = _text(author.find("LastName"))
    given = _text(author.find("ForeName")) or " ".join(
        f"{initial}." for initial in _text(author.find("Initials")) if initial.isalpha()
    )
    return f"{given} {last}".strip()


def _authors(article: Element) -> tuple[tuple[str, ...], int]:
    names = [name for a in article.iterfind("AuthorList/Author") if (name := _author(a))]
    listed = article.find("AuthorList")
    incomplete = listed is not None and listed.get("CompleteYN") == "N"
    more = max(len(names) - MAX_AUTHORS, 0) or (-1 if incomplete else 0)
    return tuple(names[:MAX_AUTHORS]), more


def _date(element: Element | None) -> date | None:
    """Year, Month (number or name), Day; a MedlineDate ('2019 Jan-Feb') by its first month;
    a missing month or day is the first."""
    if element is None:
        return None
    year = _text(element.find("Year"))
    month = _text(element.find("Month")).lower()[:3]
    day = _text(element.find("Day"))
    if not year and (medline := re.match(r"(\d{4})\s*([A-Za-z]{3})?", _text(element))):
        year, month = medline[1], (medline[2] or "").lower()
    try:
        number = _MONTHS.get(month) or (int(month) if month.isdigit() else 1)
        return date(int(year), number, int(day) if day.isdigit() else 1)
    except ValueError:
        return None


def _journal_ref(article: Element) -> str | None:
    """'Nature 571(7763): 95-98 (2019)', each part when the record has it."""
    journal = article.find("Journal")
    if journal is None:
        return None
    name = _text(journal.find("Title")) or _text(journal.find("ISOAbbreviation"))
    volume = _text(journal.find("JournalIssue/Volume"))
    issue = _text(journal.find("JournalIssue/Issue"))
    pages = _text(article.find("Pagination/MedlinePgn"))
    published = _date(journal.find("JournalIssue/PubDate"))
    reference = " ".join(part for part in (name, volume) if part)
    reference += f"({issue})" if issue else ""
    reference += f": {pages}" if pages else ""
    reference += f" ({published.year})" if published else ""
    return reference.strip() or None


def _doi(record: Element, article: Element) -> str | None:
    for found in (
        *record.iterfind("PubmedData/ArticleIdList/ArticleId[@IdType='doi']"),
        *article.iterfind("ELocationID[@EIdType='doi']"),
    ):
        if doi := read_doi(_text(found)):
            return doi
    return None


def _pmcid(record: Element) -> str | None:
    """'PMC6450561' as ArticleIdList gives it (the list's own, not a cited reference's)."""
    for found in record.iterfind("PubmedData/ArticleIdList/ArticleId[@IdType='pmc']"):
        text = _text(found).upper()
        if re.fullmatch(r"PMC\d{1,12}", text):
            return text
    return None


def _journal(article: Element) -> str | None:
    journal = article.find("Journal")
    if journal is None:
        return None
    return _text(journal.find("Title")) or _text(journal.find("ISOAbbreviation")) or None


def _abbreviations(citation: Element, journal: str | None) -> tuple[str, ...]:
    """The journal's ISO abbreviation ('J. Med. Internet Res.') and NLM's title abbreviation,
    MedlineTA ('J Med Internet Res'), where they name it otherwise than its title does."""
    names = (
        _text(citation.find("Article/Journal/ISOAbbreviation")),
        _text(citation.find("MedlineJournalInfo/MedlineTA")),
    )
    return distinct_abbreviations(journal, names)


def _mesh(citation: Element) -> tuple[str, ...]:
    """The MeSH descriptors the record is indexed with, in the record's order."""
    found = [_text(d) for d in citation.iterfind("MeshHeadingList/MeshHeading/DescriptorName")]
    return tuple(dict.fromkeys(name for name in found if name))


def _title(article: Element) -> str:
    """The title without the full stop MEDLINE ends every title with, as journals show it."""
    title = _text(article.find("ArticleTitle")) or _text(article.find("VernacularTitle"))
    return title[:-1] if title.endswith(".") and not title.endswith("..") else title


def _paper(record: Element, source: str) -> Paper:
    citation = record.find("MedlineCitation")
    article = citation.find("Article") if citation is not None else None
    if citation is None or article is None:
        raise ValueError(f"a {record.tag} without MedlineCitation/Article")
    pmid = _text(citation.find("PMID"))
    if not pmid.isdigit() or len(pmid) > 12:
        raise ValueError(f"PMID {pmid[:20]!r} is no PubMed id")
    title = _title(article)
    if not title:
        raise ValueError(f"PMID {pmid}: no title")
    authors, more = _authors(article)
    doi, journal = _doi(record, article), _journal(article)
    preprint = is_preprint_doi(doi)  # PubMed indexes some bioRxiv and medRxiv preprints
    server = server_named(journal) if preprint else None
    return Paper(
        title=title,
        abstract=_abstract(article),
        source=source,
        doi=None if preprint else doi,
        preprint_doi=doi if preprint else None,
        server=server,
        pmid=pmid,
        pmcid=_pmcid(record),
        journal=None if preprint else journal,
        journal_abbreviations=() if preprint else _abbreviations(citation, journal),
        mesh=_mesh(citation),
        authors=authors,
        more_authors=more,
        announced=_date(article.find("ArticleDate"))
        or _date(article.find("Journal/JournalIssue/PubDate")),
        link=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        journal_ref=_journal_ref(article),
    )


def _records(text: str, problems: list[str]) -> Iterator[Element]:
    """Each complete article as the parser closes it, then dropped from the tree, so a large
    answer is held one record at a time; a cut-off or malformed file keeps what came before."""
    parser: XMLPullParser[Element] = XMLPullParser(events=("start", "end"))
    depth = 0
    chunk = 65536
    try:
        for start in range(0, len(text), chunk):
            parser.feed(text[start : start + chunk])
            for event, *value in parser.read_events():
                element = value[0] if value else None
                if not isinstance(element, Element):
                    continue
                depth += 1 if event == "start" else -1
                if event == "end" and depth == 1:
                    yield element
                    element.clear()
        parser.close()
    except ParseError as error:
        problems.append(f"XML is cut off or malformed ({error})")


def parse(text: str, *, source: str) -> ParsedListing:
    if _ENTITY_DECLARATION.search(text):
        raise ListingError("PubMed XML that declares entities of its own is refused")
    papers: list[Paper] = []
    problems: list[str] = []
    for number, record in enumerate(_records(text, problems), start=1):
        if record.tag != "PubmedArticle":
            problems.append(f"record {number}: a {record.tag[:40]}, not an article")
            continue
        try:
            papers.append(_paper(record, source))
        except (ValueError, RecursionError) as error:
            problems.append(f"record {number}: {error}")
    if problems and problems[-1].startswith("XML is cut off"):
        problems[-1] += f"; kept the {len(papers)} articles read before it"
    return ParsedListing(FORMAT, papers, problems)


# -- polling a saved search: esearch for the ids, efetch for the records ---------------------

EFETCH_BATCH = 200  # ids an efetch request names (NCBI asks for POST past about 200)
_ESEARCH_PATH = re.compile(r"^(?P<base>https?://[^?#]+/)esearch\.fcgi$", re.I)


@dataclass(frozen=True)
class SearchPage:
    """One page of an esearch answer: its ids, and where it stands in the whole result."""

    ids: tuple[str, ...]
    count: int  # ids the search finds in all
    start: int  # of this page's first id


def _query(url: str) -> tuple[str, list[tuple[str, str]]]:
    """An address split into what comes before '?' and its parameters, in order."""
    address, _, query = url.partition("#")[0].partition("?")
    pairs = [part.partition("=") for part in query.split("&") if part]
    return address, [(key, value) for key, _, value in pairs]


def is_esearch_address(url: str) -> bool:
    """An E-utilities esearch of PubMed: `.../esearch.fcgi?db=pubmed&term=...`."""
    address, params = _query(url)
    return bool(_ESEARCH_PATH.match(address)) and ("db", "pubmed") in params


def search_page(text: str) -> SearchPage | None:
    """The ids of an esearch answer (JSON or XML) and its place in the result; None for any
    other text or an answer that says nothing of its count."""
    if not is_esearch(text):
        return None
    if text.lstrip().startswith("{"):
        try:
            result = json.loads(text).get("esearchresult")
        except (ValueError, RecursionError, AttributeError):
            return None
        if not isinstance(result, dict) or not isinstance(result.get("idlist"), list):
            return None
        ids = [str(i) for i in result["idlist"]]
        count, start = str(result.get("count", "")), str(result.get("retstart", "0"))
    else:
        ids = re.findall(r"<Id>\s*([^<\s]*)\s*</Id>", text)
        found_count = re.search(r"<Count>\s*(\d+)\s*</Count>", text)
        found_start = re.search(r"<RetStart>\s*(\d+)\s*</RetStart>", text)
        count = found_count[1] if found_count else ""
        start = found_start[1] if found_start else "0"
    if not (count.isdigit() and start.isdigit() and len(count) < 10 and len(start) < 10):
        return None
    kept = tuple(i for i in ids if i.isdigit() and len(i) <= 12)
    return SearchPage(kept, int(count), int(start))


def _with_params(url: str, changes: dict[str, str], path: str | None = None) -> str:
    address, params = _query(url)
    kept = [(key, value) for key, value in params if key not in changes]
    if path is not None:
        match = _ESEARCH_PATH.match(address)
        address = f"{match['base']}{path}" if match else address
    return address + "?" + "&".join(f"{k}={v}" for k, v in [*kept, *changes.items()])


def next_search_page(url: str, page: SearchPage) -> str | None:
    """The esearch address of the page after this one (retstart moved on); None at the end."""
    following = page.start + len(page.ids)
    if not page.ids or following >= page.count:
        return None
    return _with_params(url, {"retstart": str(following)})


# What an efetch request keeps of the esearch address: who asks (NCBI asks tools to say), and
# the key that raises the rate limit.
_KEPT = ("api_key", "tool", "email")


def efetch_address(esearch_url: str, ids: list[str]) -> str:
    """The efetch address for the records of these ids, beside the esearch one."""
    _, params = _query(esearch_url)
    kept = [(key, value) for key, value in params if key in _KEPT]
    address = _with_params(esearch_url, {}, path="efetch.fcgi").partition("?")[0]
    query = [("db", "pubmed"), ("retmode", "xml"), *kept, ("id", ",".join(ids))]
    return address + "?" + "&".join(f"{k}={v}" for k, v in query)
