"""Libraries in and out (bot/core/library.py): each format read from a file under
tests/data/library, unreadable entries named while the others are kept, bad files refused, and
what is written read back as the same papers."""

from __future__ import annotations

import csv
import io
from datetime import date
from pathlib import Path

import pytest
from bibtexparser.entrypoint import parse_string

from bot.core.library import (
    MAX_LIBRARY_BYTES,
    LibraryFormat,
    Reference,
    Unreadable,
    decode_library,
    detect_format,
    read_library,
    to_bibtex,
    to_csv,
    to_ris,
    too_large,
    top_authors,
)
from bot.core.paper import AnnounceType, Paper

CASES = Path(__file__).parent.parent / "data" / "library"
ATTENTION = "Attention Is All You Need"
SCHON = "Schön's KV-cache compression for long contexts"


@pytest.mark.parametrize(
    ("name", "kind", "ids", "dois", "bad"),
    [
        (
            "zotero.bib",
            LibraryFormat.BIBTEX,
            ["1706.03762", None, "2506.01234", "hep-th/0101001"],
            [None, "10.1234/joc.2025.42", None, None],
            [("line 37", "no title, arXiv id or DOI")],
        ),
        (
            "zotero.ris",
            LibraryFormat.RIS,
            ["1706.03762", None],
            [None, "10.1234/joc.2025.42"],
            [
                ("line 19", "no title, arXiv id or DOI"),
                ("line 22", "not a RIS line (TAG  - value)"),
                ("line 23", "the entry has no ER line"),
            ],
        ),
        (
            "zotero.json",
            LibraryFormat.CSL_JSON,
            ["1706.03762", None],
            [None, "10.1234/joc.2025.42"],
            [
                ("entry 3", "not an item (an object with a title)"),
                ("entry 4", "no title, arXiv id or DOI"),
            ],
        ),
        (
            "ids.txt",
            LibraryFormat.ARXIV_IDS,
            ["1706.03762", "2506.01234", "hep-th/0101001", "2506.04321"],
            [None] * 4,
            [("line 6", "this address names no arXiv paper")],
        ),
    ],
)
def test_each_format_is_told_from_its_content_and_read(
    name: str,
    kind: LibraryFormat,
    ids: list[str | None],
    dois: list[str | None],
    bad: list[tuple[str, str]],
) -> None:
    text = (CASES / name).read_text()
    found = read_library(text)
    assert found is not None and found.format is kind
    assert [e.arxiv_id for e in found.entries] == ids
    assert [e.doi for e in found.entries] == dois  # arXiv's own DOI gives the id, not a DOI
    assert [(b.where, b.message) for b in found.bad] == bad


def test_titles_authors_and_abstracts_are_plain_text() -> None:
    """LaTeX accents read, case-keeping braces gone, 'Last, First' turned round."""
    for name in ("zotero.bib", "zotero.ris", "zotero.json"):
        found = read_library((CASES / name).read_text())
        assert found is not None
        first, second = found.entries[:2]
        assert (first.title, second.title) == (ATTENTION, SCHON), name
        assert first.authors[:2] == ("Ashish Vaswani", "Noam Shazeer"), name
        assert second.authors[0] == "Anna Schön", name
        assert first.abstract.startswith("The dominant sequence transduction models are based")
        assert first.abstract.endswith("convolutional neural networks."), name  # RIS: wrapped


def test_a_broken_bibtex_entry_in_the_middle_is_named_and_the_others_kept() -> None:
    found = read_library((CASES / "broken.bib").read_text())
    assert found is not None
    assert [e.arxiv_id for e in found.entries] == ["2506.00001", "2506.00003"]
    assert [(b.where, b.message) for b in found.bad] == [
        ("line 7", "the entry is not closed (a brace or quote is missing) before the next one")
    ]


def test_filter_lines_are_no_library() -> None:
    lines = '"kv cache"\nau:Hassani\n👍 2506.01234\nlike:2506.01234  # a title\ncat:cs.LG'
    assert detect_format(lines) is None
    assert read_library(lines) is None
    assert detect_format("2506.01234\nhttps://arxiv.org/abs/2506.04321") is LibraryFormat.ARXIV_IDS
    assert detect_format("2506.01234\ndiffusion") is None  # one filter line: filters


def test_binary_and_oversized_files_are_refused() -> None:
    pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\x00\x00\x01\x02 stream" * 50
    refused = decode_library(pdf)
    assert isinstance(refused, Unreadable) and refused.message.startswith("this is a binary file")
    huge = b"@misc{a, title={" + b"x" * 10_000_000 + b"}}"
    refused = decode_library(huge)
    assert isinstance(refused, Unreadable)
    assert refused.message.startswith("the file is 10.0 MB; I read libraries up to 8 MB")
    assert too_large(10_000_000) == refused and too_large(MAX_LIBRARY_BYTES) is None
    assert decode_library("TY  - GEN\nTI  - Schön\nER  - \n".encode("latin-1")) == (
        "TY  - GEN\nTI  - Schön\nER  - \n"
    )  # old RIS exports: Latin-1


def test_a_library_of_a_json_error_names_its_line() -> None:
    found = read_library('[\n  {"title": "x"},\n  {"title": }\n]')
    assert found is not None and found.entries == ()
    assert [b.where for b in found.bad] == ["line 3"]


def _papers() -> list[Paper]:
    day = date(2026, 7, 1)
    return [
        Paper(
            title="KV-cache & 50% {compression}: a_b #1 $x$",
            abstract="We compress the cache. It works.",
            source="test",
            arxiv_id="2607.00001",
            version=2,
            authors=("Anna Schön", "Wei Liu"),
            categories=("cs.LG", "cs.CL"),
            announced=day,
            announce_type=AnnounceType.NEW,
        ),
        Paper(
            title="An old paper on strings",
            abstract="Strings.",
            source="test",
            arxiv_id="hep-th/0101001",
            doi="10.1103/physrevd.1.1",
            journal_ref="Phys. Rev. D 1 (2001) 1",
            authors=("Ed Witten",),
            categories=("hep-th",),
        ),
        Paper(
            title="A journal paper without an arXiv id",
            abstract="Only a DOI.",
            source="test",
            doi="10.1234/joc.2025.42",
            link="https://journal.example/42",
            authors=("Wei Liu",),
        ),
    ]


def test_a_bibtex_export_parses_back_as_the_same_papers() -> None:
    references = [Reference(p, saved=True, liked=False) for p in _papers()]
    text = to_bibtex(references)
    parsed = parse_string(text)
    assert parsed.failed_blocks == []
    kinds = [e.entry_type for e in parsed.entries]
    assert kinds == ["misc", "article", "misc"]
    first = {f.key: f.value for f in parsed.entries[0].fields}
    assert first["eprint"] == "2607.00001" and first["archivePrefix"] == "arXiv"
    assert first["primaryClass"] == "cs.LG" and first["url"] == "https://arxiv.org/abs/2607.00001"
    assert first["author"] == "Schön, Anna and Liu, Wei" and first["year"] == "2026"
    assert parsed.entries[1].fields_dict["doi"].value == "10.1103/physrevd.1.1"
    found = read_library(text)
    assert found is not None and found.bad == ()
    assert [(e.arxiv_id, e.doi) for e in found.entries] == [
        ("2607.00001", None),
        ("hep-th/0101001", "10.1103/physrevd.1.1"),
        (None, "10.1234/joc.2025.42"),
    ]
    assert found.entries[0].title == "KV-cache & 50% compression: a_b #1 $x$"
    assert found.entries[0].authors == ("Anna Schön", "Wei Liu")


def test_an_ris_export_reads_back_as_the_same_papers() -> None:
    text = to_ris([Reference(p, saved=False, liked=True) for p in _papers()])
    assert text.count("ER  - ") == 3 and "TY  - JOUR\n" in text and "AN  - arXiv:2607.00001" in text
    found = read_library(text)
    assert found is not None and found.bad == ()
    assert [(e.arxiv_id, e.doi) for e in found.entries] == [(p.arxiv_id, p.doi) for p in _papers()]
    assert [e.title for e in found.entries][1:] == [p.title for p in _papers()][1:]


def test_a_csv_export_has_a_row_a_paper() -> None:
    papers = _papers()
    text = to_csv([Reference(papers[0], True, False), Reference(papers[1], False, True)])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["arxiv_id"] for r in rows] == ["2607.00001", "hep-th/0101001"]
    assert [(r["saved"], r["liked"]) for r in rows] == [("yes", ""), ("", "yes")]
    assert rows[0]["title"] == papers[0].title and rows[0]["authors"] == "Anna Schön; Wei Liu"


def test_the_authors_who_appear_most() -> None:
    found = read_library((CASES / "zotero.bib").read_text())
    assert found is not None
    assert top_authors(found.entries) == ["Ashish Vaswani", "Wei Liu"]  # in 3 and 2 entries


def test_cite_keys_stay_unique_and_readable_however_many_papers_share_them() -> None:
    """Sixty papers of one first author, year and title word: ...a to ...z, then numbered."""
    paper = _papers()[0]
    many = [paper.with_changes(arxiv_id=f"2607.{n:05d}") for n in range(60)]
    parsed = parse_string(to_bibtex([Reference(p, True, False) for p in many]))
    assert parsed.failed_blocks == []
    keys = [e.key for e in parsed.entries]
    assert len(set(keys)) == 60 and keys[:2] == ["Schon2026cache", "Schon2026cachea"]
    assert keys[26:28] == ["Schon2026cachez", "Schon2026cache27"]
