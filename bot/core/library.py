"""A reader's library, in and out: BibTeX, RIS, CSL-JSON (Zotero's "CSL JSON" export) and lists
of arXiv ids or links read into entries, the format told from the content; saved papers written
as BibTeX, RIS and CSV.

Reading never raises on what a file holds: an entry that cannot be read is named (where it
starts, and why: Problems, put into the reader's language where shown) and the others are
kept. BibTeX is read by bibtexparser, which recovers at the next entry after a broken one; RIS
and CSL-JSON are simple enough to read here. What is written follows Zotero's importer
conventions for arXiv papers (`eprint`, `archivePrefix`, `primaryClass`), so a reference
manager files them as preprints with their arXiv ids.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from io import StringIO

from bibtexparser.entrypoint import parse_string
from bibtexparser.model import Entry as BibEntry

from bot.core.i18n import N_
from bot.core.paper import Paper, normalise_doi, read_arxiv_id
from bot.core.problems import Position, Problem
from bot.core.text import clean_text, fold_key, strip_accents

# A library of 4,000 papers with abstracts of 1.5 KB and eight authors is 7.5 MB of BibTeX,
# read in 1.6 s of CPU (bibtexparser; the process grows by 26 MB); 2,000 shorter ones, 2.3 MB in
# 0.45 s (RIS: 0.14 s). Past this a file is refused before it is fetched or read.
MAX_LIBRARY_BYTES = 8_000_000
MAX_ENTRIES = 5_000
SOURCE = "library"  # an imported entry's Paper.source
_BINARY_SAMPLE = 8192


class LibraryFormat(StrEnum):
    BIBTEX = "BibTeX"
    RIS = "RIS"
    CSL_JSON = "CSL-JSON"
    ARXIV_IDS = "arXiv ids"


@dataclass(frozen=True)
class Entry:
    """One reference as the library had it, text normalised; `place` names it in a reply."""

    place: Problem  # "line 12", "entry 3"
    title: str = ""
    abstract: str = ""
    authors: tuple[str, ...] = ()
    arxiv_id: str | None = None
    doi: str | None = None

    def paper(self) -> Paper:
        """The entry as a paper, for matching it against the stored ones and for training."""
        return Paper(
            title=self.title,
            abstract=self.abstract,
            source=SOURCE,
            arxiv_id=self.arxiv_id,
            doi=self.doi,
            authors=self.authors,
        )


@dataclass(frozen=True)
class BadEntry:
    place: Problem  # "line 12", "entry 3"
    problem: Problem

    @property
    def where(self) -> str:
        """Where it starts, in English."""
        return self.place.message

    @property
    def message(self) -> str:
        """Why it could not be read, in English."""
        return self.problem.message

    @property
    def described(self) -> Problem:
        """Where and why, in one: "line 12: the entry has no ER line"."""
        return Problem.of(N_("{place}: {problem}"), place=self.place, problem=self.problem)


def _line(number: int) -> Problem:
    return Problem.of(N_("line {number}"), number=Position(number))


def _item(number: int) -> Problem:
    return Problem.of(N_("entry {number}"), number=Position(number))


def format_name(found: LibraryFormat) -> Problem:
    """A format's name as a reader reads it (`format_name(f).text(t)`): BibTeX, RIS and
    CSL-JSON are names, the same in every language; a list of arXiv ids is said in theirs."""
    if found is LibraryFormat.ARXIV_IDS:
        return Problem.of(N_("arXiv ids"))
    return Problem.verbatim(str(found))


@dataclass(frozen=True)
class Library:
    format: LibraryFormat
    entries: tuple[Entry, ...]
    bad: tuple[BadEntry, ...]


@dataclass(frozen=True)
class Unreadable:
    """A file that is no library at all: too large, binary, or of no format we read."""

    problem: Problem

    @property
    def message(self) -> str:
        """Why, in English."""
        return self.problem.message


# -- bytes to text ---------------------------------------------------------------------------


def too_large(size: int) -> Unreadable | None:
    """A file past what a library may be (known by its size before it is fetched)."""
    if size <= MAX_LIBRARY_BYTES:
        return None
    return Unreadable(
        Problem.of(
            N_(
                "the file is {size} MB; I read libraries up to {limit} MB. Export a "
                "collection, or split the file"
            ),
            size=round(size / 1e6, 1),  # as shown: one decimal
            limit=MAX_LIBRARY_BYTES // 1_000_000,
        )
    )


def decode_library(data: bytes) -> str | Unreadable:
    """A file's text: UTF-8 (with or without its mark), else Latin-1 as old RIS exports write
    it; binary files (a PDF, a zip) and oversized ones refused."""
    refused = too_large(len(data))
    if refused is not None:
        return refused
    sample = data[:_BINARY_SAMPLE]
    controls = sum(1 for byte in sample if byte < 32 and byte not in b"\t\n\r\f")
    if b"\x00" in sample or controls > len(sample) // 100:
        return Unreadable(
            Problem.of(
                N_(
                    "this is a binary file, not a library. Send a BibTeX (.bib), RIS (.ris) "
                    "or CSL-JSON (.json) export, or arXiv ids one per line"
                )
            )
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# -- telling the format ----------------------------------------------------------------------

_BIBTEX_START = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.M)
_RIS_TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_RIS_START = re.compile(r"^\s*TY  - ", re.M)
_URL = re.compile(r"^<?https?://", re.I)


def detect_format(text: str) -> LibraryFormat | None:
    """The library format of a text, from its content; None for anything else (filter lines)."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("[", "{")):
        return LibraryFormat.CSL_JSON
    if _RIS_START.search(text):
        return LibraryFormat.RIS
    if _BIBTEX_START.search(text):
        return LibraryFormat.BIBTEX
    lines = _id_lines(text)
    if lines and all(read_arxiv_id(line) or _URL.match(line) for _, line in lines):
        return LibraryFormat.ARXIV_IDS
    return None


def read_library(text: str) -> Library | None:
    """The entries of a library in any format we read; None when the text is none of them."""
    found = detect_format(text)
    match found:
        case LibraryFormat.BIBTEX:
            entries, bad = _read_bibtex(text)
        case LibraryFormat.RIS:
            entries, bad = _read_ris(text)
        case LibraryFormat.CSL_JSON:
            entries, bad = _read_csl_json(text)
        case LibraryFormat.ARXIV_IDS:
            entries, bad = _read_ids(text)
        case None:
            return None
    if len(entries) > MAX_ENTRIES:
        more = len(entries) - MAX_ENTRIES
        past = Problem.ngettext(
            "{count} entry past {limit}",
            "{count} entries past {limit}",
            more,
            count=more,
            limit=MAX_ENTRIES,
        )
        bad.append(BadEntry(entries[MAX_ENTRIES].place, past))
        entries = entries[:MAX_ENTRIES]
    return Library(found, tuple(entries), tuple(bad))


def _entry(place: Problem, **found: str | Sequence[str] | None) -> Entry | BadEntry:
    """An entry from its raw fields: texts cleaned, ids read wherever the library put them."""
    title = clean_text(_text(found.get("title")))
    abstract = clean_text(_text(found.get("abstract")))
    doi = normalise_doi(clean_text(_text(found.get("doi")), tex=False) or None)
    arxiv_id = None
    for written in found.get("ids") or ():
        arxiv_id = arxiv_id or _arxiv_in(written)
    if doi and (arxiv_id_of_doi := _arxiv_in(doi)):
        arxiv_id, doi = arxiv_id or arxiv_id_of_doi, None  # arXiv's own DOI: the id says it
    authors = tuple(a for a in (clean_text(name) for name in found.get("authors") or ()) if a)
    if not (title or arxiv_id or doi):
        return BadEntry(place, Problem.of(N_("no title, arXiv id or DOI")))
    return Entry(place, title, abstract, authors, arxiv_id, doi)


def _file(found: Entry | BadEntry, entries: list[Entry], bad: list[BadEntry]) -> None:
    if isinstance(found, Entry):
        entries.append(found)
    else:
        bad.append(found)


def _text(value: str | Sequence[str] | None) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else " ".join(value)


# arXiv ids where libraries keep them: 'arXiv:2506.01234', 'arXiv preprint arXiv:2506.01234',
# an abs or pdf link, arXiv's DOI 10.48550/arXiv.2506.01234, a bare id in an eprint field
_ARXIV_MENTION = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf|html)/|arxiv[:.]\s*|10\.48550/arxiv\.)"
    r"(\d{4}\.\d{4,5}(?:v\d+)?|[a-z]+(?:-[a-z]+)*(?:\.[a-z]{2})?/\d{7}(?:v\d+)?)",
    re.I,
)


def _arxiv_in(text: str | None) -> str | None:
    if not text:
        return None
    direct = read_arxiv_id(text)
    if direct:
        return direct
    mention = _ARXIV_MENTION.search(text)
    return read_arxiv_id(mention.group(1)) if mention else None


# -- BibTeX ------------------------------------------------------------------------------------

_AUTHOR_SEPARATOR = re.compile(r"\s+and\s+", re.I)


def _read_bibtex(text: str) -> tuple[list[Entry], list[BadEntry]]:
    parsed = parse_string(text)
    found: list[tuple[int, Entry | BadEntry]] = []
    for block in parsed.failed_blocks:
        line = (block.start_line or 0) + 1
        error = getattr(block, "error", None)
        found.append((line, BadEntry(_line(line), _bibtex_problem(error))))
    for bib in parsed.entries:
        found.append(((bib.start_line or 0) + 1, _bibtex_entry(bib)))
    entries = [e for _, e in sorted(found, key=lambda pair: pair[0]) if isinstance(e, Entry)]
    bad = [e for _, e in sorted(found, key=lambda pair: pair[0]) if isinstance(e, BadEntry)]
    return entries, bad


def _bibtex_problem(error: object) -> Problem:
    """bibtexparser's reason for a block it could not read, in a line."""
    reason = str(getattr(error, "abort_reason", "") or error or "").strip()
    if "Was still looking for" in reason:
        return Problem.of(
            N_("the entry is not closed (a brace or quote is missing) before the next one")
        )
    if "duplicate" in reason.lower() or type(error).__name__.startswith("Duplicate"):
        return Problem.of(N_("a field or key given twice"))
    if reason:
        return Problem.verbatim(" ".join(reason.split())[:120])  # bibtexparser's English
    return Problem.of(N_("not a readable entry ({kind})"), kind=type(error).__name__)


def _bibtex_entry(bib: BibEntry) -> Entry | BadEntry:
    raw = {f.key.lower(): str(f.value) for f in bib.fields}
    fields = {key: _debrace(value) for key, value in raw.items()}
    authors = [_first_last(_debrace(name)) for name in _split_authors(raw.get("author", ""))]
    places = [fields.get(key) for key in ("eprint", "arxivid", "arxiv", "url", "journal")]
    places += [fields.get(key) for key in ("note", "howpublished", "volume", "archiveprefix")]
    return _entry(
        _line((bib.start_line or 0) + 1),
        title=fields.get("title"),
        abstract=fields.get("abstract"),
        doi=fields.get("doi"),
        ids=[p for p in places if p],
        authors=authors,
    )


def _debrace(value: str) -> str:
    """A BibTeX value's text: its LaTeX read (accents need their braces), then braces that only
    kept a word's case ({KV}-cache) dropped, outside $math$."""
    text = clean_text(value)
    parts = re.split(r"(\$[^$]*\$)", text)
    return "".join(p if p.startswith("$") else p.replace("{", "").replace("}", "") for p in parts)


def _split_authors(field: str) -> list[str]:
    """'Doe, J. and {Smith and Sons}' -> ['Doe, J.', '{Smith and Sons}']: 'and' at brace depth 0."""
    names, depth, start = [], 0, 0
    for index, char in enumerate(field):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            separator = _AUTHOR_SEPARATOR.match(field, index)
            if separator and index > start and field[index].isspace():
                names.append(field[start:index])
                start = separator.end()
    names.append(field[start:])
    return [name.strip() for name in names if name.strip() and name.strip().lower() != "others"]


def _first_last(name: str) -> str:
    """'Doe, John' -> 'John Doe' (BibTeX's 'von Last, Jr, First' kept in its order)."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2 and parts[1]:
        return f"{parts[1]} {parts[0]}"
    if len(parts) == 3 and parts[2]:
        return f"{parts[2]} {parts[0]} {parts[1]}"
    return name


# -- RIS ---------------------------------------------------------------------------------------

_RIS_TITLE, _RIS_ABSTRACT = ("TI", "T1", "CT"), ("AB", "N2")
_RIS_AUTHORS, _RIS_IDS = ("AU", "A1"), ("UR", "L1", "L2", "AN", "M1", "M3", "N1", "ID", "JO")


def _read_ris(text: str) -> tuple[list[Entry], list[BadEntry]]:
    entries: list[Entry] = []
    bad: list[BadEntry] = []
    fields: dict[str, list[str]] | None = None
    start, last = 0, ""

    def close() -> None:
        assert fields is not None
        found = _ris_entry(_line(start), fields)
        _file(found, entries, bad)

    for number, line in enumerate(text.splitlines(), 1):
        tag = _RIS_TAG.match(line.rstrip())
        if tag is None:
            if fields is not None and line.strip() and last:  # a wrapped value goes on
                fields[last][-1] += " " + line.strip()
            elif line.strip():
                bad.append(BadEntry(_line(number), Problem.of(N_("not a RIS line (TAG  - value)"))))
            continue
        name, value = tag.group(1), (tag.group(2) or "").strip()
        if name == "TY":
            if fields is not None:
                bad.append(BadEntry(_line(start), Problem.of(N_("no ER line before the next TY"))))
            fields, start, last = {}, number, ""
        elif fields is None:
            outside = Problem.of(N_("{tag} outside an entry (before its TY)"), tag=name)
            bad.append(BadEntry(_line(number), outside))
        elif name == "ER":
            close()
            fields, last = None, ""
        else:
            fields.setdefault(name, []).append(value)
            last = name
    if fields is not None:
        bad.append(BadEntry(_line(start), Problem.of(N_("the entry has no ER line"))))
    return entries, bad


def _ris_entry(place: Problem, fields: dict[str, list[str]]) -> Entry | BadEntry:
    def first(tags: Iterable[str]) -> str | None:
        return next((fields[t][0] for t in tags if fields.get(t)), None)

    return _entry(
        place,
        title=first(_RIS_TITLE),
        abstract=first(_RIS_ABSTRACT),
        doi=first(["DO"]),
        ids=[value for tag in _RIS_IDS for value in fields.get(tag, [])],
        authors=[_first_last(name) for tag in _RIS_AUTHORS for name in fields.get(tag, [])],
    )


# -- CSL-JSON ----------------------------------------------------------------------------------


def _read_csl_json(text: str) -> tuple[list[Entry], list[BadEntry]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        invalid = Problem.of(N_("not valid JSON: {reason}"), reason=error.msg)  # Python's English
        return [], [BadEntry(_line(error.lineno), invalid)]
    if isinstance(data, dict):
        data = data.get("items", [data])
    if not isinstance(data, list):
        return [], [BadEntry(_line(1), Problem.of(N_("CSL-JSON is a list of items")))]
    entries: list[Entry] = []
    bad: list[BadEntry] = []
    for number, item in enumerate(data, 1):
        found = (
            _csl_entry(_item(number), item)
            if isinstance(item, dict)
            else BadEntry(_item(number), Problem.of(N_("not an item (an object with a title)")))
        )
        _file(found, entries, bad)
    return entries, bad


def _csl_entry(place: Problem, item: dict[str, object]) -> Entry | BadEntry:
    def text(key: str) -> str | None:
        value = item.get(key)
        return value if isinstance(value, str) else str(value) if isinstance(value, int) else None

    authors = []
    people = item.get("author")
    for person in people if isinstance(people, list) else []:
        if isinstance(person, dict):
            literal = person.get("literal")
            names = [str(person.get(part) or "") for part in ("given", "family")]
            shown = literal if isinstance(literal, str) else " ".join(n for n in names if n)
            authors.append(shown)
    places = [text(k) for k in ("number", "URL", "id", "archive_location", "container-title")]
    return _entry(
        place,
        title=text("title"),
        abstract=text("abstract"),
        doi=text("DOI"),
        ids=[p for p in places if p],
        authors=authors,
    )


# -- arXiv ids -------------------------------------------------------------------------------


def _id_lines(text: str) -> list[tuple[int, str]]:
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#")
    ]


def _read_ids(text: str) -> tuple[list[Entry], list[BadEntry]]:
    entries: list[Entry] = []
    bad: list[BadEntry] = []
    for number, line in _id_lines(text):
        arxiv_id = read_arxiv_id(line)
        if arxiv_id:
            entries.append(Entry(_line(number), arxiv_id=arxiv_id))
        else:
            no_paper = Problem.of(N_("this address names no arXiv paper"))
            bad.append(BadEntry(_line(number), no_paper))
    return entries, bad


# -- what the entries say together -------------------------------------------------------------


def top_authors(entries: Iterable[Entry], count: int = 3, at_least: int = 2) -> list[str]:
    """The authors named in most entries (in at least `at_least`), most first; names told apart
    by their folded form, shown as first written."""
    shown: dict[str, str] = {}
    counted: Counter[str] = Counter()
    for entry in entries:
        keys = {fold_key(name): name for name in entry.authors if fold_key(name)}
        for key, name in keys.items():
            shown.setdefault(key, name)
            counted[key] += 1
    ranked = sorted(counted.items(), key=lambda pair: (-pair[1], pair[0]))
    return [shown[key] for key, times in ranked[:count] if times >= at_least]


# -- writing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """A paper as an export writes it, with whether the chat saved or 👍'd it."""

    paper: Paper
    saved: bool
    liked: bool


def _year(paper: Paper) -> str:
    if paper.announced:
        return str(paper.announced.year)
    if paper.arxiv_id and re.match(r"\d{4}\.", paper.arxiv_id):
        return f"20{paper.arxiv_id[:2]}"
    return ""


def _bib_text(text: str) -> str:
    """A value inside braces: LaTeX's specials escaped, braces dropped (unbalanced, they would
    end the field early)."""
    text = text.replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"([&%#$_])", r"\\\1", text)


def _last_first(name: str) -> str:
    """'John Doe' -> 'Doe, John', as BibTeX and RIS name authors."""
    parts = name.rsplit(" ", 1)
    return f"{parts[1]}, {parts[0]}" if len(parts) == 2 else name


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _cite_key(paper: Paper, taken: set[str]) -> str:
    surname = paper.authors[0].rsplit(" ", 1)[-1] if paper.authors else "paper"
    word = next((w for w in fold_key(paper.title).split() if len(w) > 3), "")
    base = re.sub(r"[^A-Za-z0-9]", "", strip_accents(f"{surname}{_year(paper)}{word}")) or "paper"
    key, clashes = base, 0
    while key in taken:  # Liu2026sparsea .. Liu2026sparsez, then Liu2026sparse27 ..
        clashes += 1
        key = base + (_LETTERS[clashes - 1] if clashes <= len(_LETTERS) else str(clashes))
    taken.add(key)
    return key


def to_bibtex(references: Sequence[Reference]) -> str:
    """`@article` for a paper with a journal reference, else `@misc`, with the arXiv fields
    Zotero and biblatex read (eprint, archivePrefix, primaryClass)."""
    taken: set[str] = set()
    blocks = []
    for reference in references:
        paper = reference.paper
        kind = "article" if paper.journal_ref else "misc"
        fields = [
            ("title", paper.title),
            ("author", " and ".join(_last_first(a) for a in paper.authors)),
            ("year", _year(paper)),
            ("journal", paper.journal_ref or ""),
            ("eprint", paper.arxiv_id or ""),
            ("archivePrefix", "arXiv" if paper.arxiv_id else ""),
            ("primaryClass", (paper.primary_category or "") if paper.arxiv_id else ""),
            ("doi", paper.doi or ""),
            ("url", paper.abs_url or ""),
            ("abstract", paper.abstract),
        ]
        lines = [f"  {name} = {{{_bib_text(value)}}}," for name, value in fields if value]
        blocks.append(f"@{kind}{{{_cite_key(paper, taken)},\n" + "\n".join(lines) + "\n}\n")
    return "\n".join(blocks)


def to_ris(references: Sequence[Reference]) -> str:
    """RIS with the same fields: JOUR for a paper with a journal reference, else GEN (a
    preprint), its arXiv id as the accession number."""
    records = []
    for reference in references:
        paper = reference.paper
        lines = [("TY", "JOUR" if paper.journal_ref else "GEN"), ("TI", paper.title)]
        lines += [("AU", _last_first(name)) for name in paper.authors]
        lines += [("PY", _year(paper)), ("JO", paper.journal_ref or "")]
        lines += [("AB", paper.abstract), ("DO", paper.doi or ""), ("UR", paper.abs_url or "")]
        lines += [("AN", f"arXiv:{paper.arxiv_id}" if paper.arxiv_id else "")]
        lines += [("KW", category) for category in paper.categories]
        body = "\n".join(f"{tag}  - {' '.join(value.split())}" for tag, value in lines if value)
        records.append(f"{body}\nER  - \n")
    return "\n".join(records)


CSV_COLUMNS = ("arxiv_id", "title", "authors", "year", "category", "doi", "journal_ref", "url")


def to_csv(references: Sequence[Reference]) -> str:
    """One row a paper, with whether the chat saved it and how it rated it."""
    out = StringIO()
    writer = csv.writer(out)
    writer.writerow([*CSV_COLUMNS, "saved", "liked"])
    for reference in references:
        paper = reference.paper
        writer.writerow(
            [
                paper.arxiv_id or "",
                paper.title,
                "; ".join(paper.authors),
                _year(paper),
                paper.primary_category or "",
                paper.doi or "",
                paper.journal_ref or "",
                paper.abs_url or "",
                "yes" if reference.saved else "",
                "yes" if reference.liked else "",
            ]
        )
    return out.getvalue()
