"""Filters across sources on the records of one paper (tests/data/sources) and the real PubMed
and bioRxiv samples: cat: takes the preprint servers' collections, mesh: a MeSH term, jr: a
journal, src: a source, and au: finds an author however a source wrote the name. The indexed
matcher and the reference agree on each."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from bot.core.highlight import highlights
from bot.core.listings import parse_listing
from bot.core.matcher import FilterIndex
from bot.core.paper import Paper
from bot.core.query import parse_query
from tests import reference_matcher

DATA = Path(__file__).parent.parent / "data"
RECORDS = ("biorxiv_preprint.json", "pubmed_journal.xml", "journal_toc.xml", "arxiv_with_doi.xml")


@cache
def record(name: str) -> Paper:
    [paper] = parse_listing((DATA / "sources" / name).read_bytes(), source=name).papers
    return paper


@cache
def sample(name: str) -> tuple[Paper, ...]:
    return tuple(parse_listing((DATA / "listings" / name).read_bytes(), source=name).papers)


def matched(source: str, papers: tuple[Paper, ...]) -> list[bool]:
    index = FilterIndex()
    index.add(1, parse_query(source))
    found = [bool(hits) for hits in index.match(list(papers))]
    assert found == [reference_matcher.matches(parse_query(source), p) for p in papers]
    return found


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # preprint, PubMed, journal feed, arXiv
        ("cat:biorxiv.neuroscience", [True, False, False, False]),
        ("cat:biorxiv", [True, False, False, False]),
        ("cat:biorxiv.genomics", [False, False, False, False]),
        ('mesh:"Grid Cells"', [False, True, False, False]),
        ('mesh:"grid cell"', [False, True, False, False]),  # plurals fold as everywhere
        ("mesh:Grid", [False, False, False, False]),  # a term is matched whole
        ('jr:"Nature Neuroscience"', [False, True, True, False]),
        ("jr:nature", [False, False, False, False]),  # Nature is another journal
        ('jr:"nat neurosci"', [False, True, False, False]),  # PubMed's ISO abbreviation
        ('jr:"Nat. Neurosci."', [False, True, False, False]),
        ("src:biorxiv", [True, False, False, False]),
        ("src:pubmed", [False, True, False, False]),
        ("src:journal", [False, True, True, True]),  # arXiv's copy names the journal's DOI
        ("src:arxiv", [False, False, False, True]),
        ("grid cells src:pubmed", [False, True, False, False]),
        ("grid cells -src:arxiv", [True, True, True, False]),
        # bioRxiv writes "B. Reeder", PubMed's and the journal's "Blaine Reeder"
        ("au:Reeder", [True, True, True, True]),
        ('au:"B Reeder"', [True, True, True, True]),
        ('au:"Reeder B"', [True, True, True, True]),  # as PubMed's search writes it
        ('au:"Okafor AN"', [True, True, True, True]),
        ('au:"Blaine Reeder"', [False, True, True, True]),  # the initials name no one
        ('au:"C Reeder"', [False, False, False, False]),
    ],
)
def test_each_field_finds_the_records_it_names(source: str, expected: list[bool]) -> None:
    assert matched(source, tuple(record(name) for name in RECORDS)) == expected


@pytest.mark.parametrize(
    ("source", "journal", "found"),
    [
        ("jr:nature", "NATURE", True),  # case
        ("jr:NATURE", "Nature", True),
        ('jr:"Revista Medica de Chile"', "Revista médica de Chile", True),  # accents
        ('jr:"Revista médica de Chile"', "REVISTA MEDICA DE CHILE", True),
        ("jr:nature", "Nature (London)", True),  # NLM's place, in PubMed's titles
        ('jr:"Nature (London)"', "Nature", True),
        ("jr:sensors", "Sensors (Basel, Switzerland)", True),
        ('jr:"The Lancet"', "Lancet (London, England)", True),
        ("jr:lancet", "The Lancet", True),
        ("jr:structure", "Structure (London, England : 1993)", True),
        ('jr:"Molecular Cancer Research"', "Molecular cancer research : MCR", True),
        ('jr:"Technology and Health Care"', "Technology and health care : official journal", True),
        ("jr:nature", "Nature Neuroscience", False),  # another journal
        ("jr:london", "Nature (London)", False),
        ('jr:"Journal of Physics"', "Journal of Physics: Condensed Matter", False),  # its own name
        ('jr:"Journal of Physics: Condensed Matter"', "Journal of Physics: Condensed Matter", True),
        ("jr:the", "The", True),
    ],
)
def test_a_journal_is_found_however_a_source_or_a_filter_writes_it(
    source: str, journal: str, found: bool
) -> None:
    paper = Paper(title="A paper", abstract="", source="t", doi="10.1/x", journal=journal)
    assert matched(source, (paper,)) == [found]


PNAS = "Proceedings of the National Academy of Sciences of the United States of America"


@pytest.mark.parametrize(
    ("source", "journal", "abbreviations", "found"),
    [
        ('jr:"nat neurosci"', "Nature neuroscience", ("Nat Neurosci",), True),
        ('jr:"Nat. Neurosci."', "Nature neuroscience", ("Nat Neurosci",), True),  # dots
        ('jr:"NAT  NEUROSCI"', "Nature neuroscience", ("Nat. Neurosci.",), True),  # case, spaces
        ('jr:"Nature Neuroscience"', "Nature neuroscience", ("Nat Neurosci",), True),
        ('jr:"nat neurosci"', "Nature neuroscience", (), False),  # no abbreviation is guessed
        ("jr:nat", "Nature neuroscience", ("Nat Neurosci",), False),  # a name is matched whole
        ('jr:"j med internet res"', "JMIR", ("J. Med. Internet Res.", "JMIR Res"), True),
        ('jr:"jmir res"', "JMIR", ("J. Med. Internet Res.", "JMIR Res"), True),  # any kept one
        ("jr:pnas", PNAS, ("Proc. Natl. Acad. Sci. U.S.A.",), True),  # a well-known acronym
        ("jr:PNAS", "Proceedings of the National Academy of Sciences", (), True),  # its own feed
        (
            'jr:"proc natl acad sci u s a"',
            "Proceedings of the National Academy of Sciences",
            (),
            True,
        ),
        ('jr:"Proceedings of the National Academy of Sciences"', "PNAS", (), True),
        ("jr:pnas", "Proceedings of the Royal Society B", (), False),
        ("jr:pnas", "PNAS Nexus", (), False),  # another journal of its publisher
        ('jr:"j mach learn res"', "Journal of Machine Learning Research", (), True),
        ("jr:jmlr", "J. Mach. Learn. Res.", (), True),
        ("jr:prl", "Physical review letters", ("Phys Rev Lett",), True),
        ('jr:"Phys. Rev. Lett."', "Physical Review Letters", (), True),
        ("jr:nejm", "The New England journal of medicine", ("N Engl J Med",), True),
    ],
)
def test_a_journal_is_found_by_an_abbreviation_or_a_well_known_acronym(
    source: str, journal: str, abbreviations: tuple[str, ...], found: bool
) -> None:
    paper = Paper(
        title="A paper",
        abstract="",
        source="t",
        doi="10.1/x",
        journal=journal,
        journal_abbreviations=abbreviations,
    )
    assert matched(source, (paper,)) == [found]


def test_the_real_pubmed_records_are_found_by_their_journals_abbreviations() -> None:
    papers = sample("pubmed_efetch_2019.xml")
    assert [p.journal_abbreviations for p in papers[:2]] == [
        ("Inform Health Soc Care",),
        ("Aust Occup Ther J",),
    ]
    assert matched('jr:"Inform Health Soc Care"', papers) == [True] + [False] * (len(papers) - 1)
    [pnas] = sample("pubmed_efetch_2020_pnas.xml")
    # ISO's "Proc. Natl. Acad. Sci. U.S.A." and MedlineTA's "Proc Natl Acad Sci U S A" are one
    assert (pnas.journal, pnas.journal_abbreviations) == (PNAS, ("Proc. Natl. Acad. Sci. U.S.A.",))
    for source in (
        'jr:"Proc Natl Acad Sci U S A"',
        'jr:"proc. natl. acad. sci. u.s.a."',
        "jr:pnas",
    ):
        assert matched(source, (pnas,)) == [True], source


def test_a_mesh_term_finds_the_real_pubmed_records_indexed_with_it() -> None:
    papers = sample("pubmed_efetch_2019.xml")
    found = matched('mesh:"Independent Living"', papers)
    assert sum(found) == sum("Independent Living" in p.mesh for p in papers) > 0
    assert sum(matched("src:pubmed", papers)) == len(papers)


def test_au_finds_pubmed_authors_written_with_initials() -> None:
    papers = sample("pubmed_efetch_2019.xml")
    reeders = [p for p in papers if any(a.endswith(" Reeder") for a in p.authors)]
    assert reeders and all(matched('au:"Reeder B"', tuple(reeders)))


def test_a_biorxiv_feed_of_one_subject_is_its_collection() -> None:
    papers = sample("biorxiv_rss_genomics_2018.xml") + sample("biorxiv_api_details.json")
    assert all(matched("src:biorxiv", papers))
    assert matched("cat:biorxiv.neuroscience", papers) == [
        "biorxiv.neuroscience" in p.categories for p in papers
    ]


def test_the_card_underlines_an_author_found_by_initials() -> None:
    paper = record("pubmed_journal.xml")  # Adaeze N Okafor, Maja Lindqvist, Blaine Reeder
    marks = highlights(parse_query('au:"Reeder B" OR au:"M Lindqvist"'), paper)
    assert [(m.field, m.start) for m in marks] == [("author", 1), ("author", 2)]
