"""What journal and preprint-server feeds put where the general case does not look."""

import pytest

from bot.core.listings import journals

TITLE = "Catalysis of an SN2 pathway"
NATURE_SOURCE = "Nature, Published online: 2024-07-18; | doi:10.1038/x"


@pytest.mark.parametrize(
    ("html", "abstract"),
    [
        (  # Nature: a citation paragraph, then only the title again
            '<p>Nature, Published online: 18 July 2024; <a href="x">doi:10.1038/s1</a></p>'
            "Catalysis of an S<sub>N</sub>2 pathway",
            "",
        ),
        (  # PubMed's feeds: citation, heading, text, then the PMID line
            '<div><p style="c">Parasitol Int. 2021. doi: 10.1016/j.p.1.</p><p><b>ABSTRACT</b></p>'
            '<p>A new species.</p><p style="g">PMID:<a href="x">1</a> | DOI:10.1/x</p></div>',
            "A new species.",
        ),
        ("Abstract\nLeptospermum is a genus.", "Leptospermum is a genus."),
        ("Abstracts of talks are given.", "Abstracts of talks are given."),
        ("Volume 56, Issue 3, December 2021, Page 163-175<br />. <br />", ""),
        ("TAXON, Volume 70, Issue 6, Page 1327-1328, December 2021. ", ""),
        ("<p>We show that doi: links rot.</p> More.", "We show that doi: links rot. More."),
    ],
)
def test_abstract(html: str, abstract: str) -> None:
    assert journals.abstract(html, TITLE) == abstract


@pytest.mark.parametrize(
    ("names", "volume", "issue", "pages", "reference"),
    [
        (["Nature", "", NATURE_SOURCE], "", "", ("", ""), "Nature"),
        ([TITLE, "Fauna", ""], "56", "3", ("163", "175"), "Fauna 56(3): 163-175"),
        (["", "", "Parasitology int"], "", "", ("", ""), "Parasitology int"),
        (["", "", NATURE_SOURCE], "1", "", ("", ""), None),
        (["TAXON"], "70", "", ("1327", "1327"), "TAXON 70"),
    ],
)  # fmt: skip
def test_journal_reference(
    names: list[str], volume: str, issue: str, pages: tuple[str, str], reference: str | None
) -> None:
    assert journals.journal_reference(names, TITLE, volume, issue, pages) == reference


def test_sciencedirect_description_is_citation_and_authors() -> None:
    text = "Publication date: February 2022 Source: Mol. Phyl. Evol., Volume 167 Author(s): A, B"
    assert journals.sciencedirect(text) == ("Mol. Phyl. Evol., Volume 167", "A, B")
    assert journals.sciencedirect("We study sources.") is None


@pytest.mark.parametrize(
    ("link", "version"),
    [
        ("http://biorxiv.org/cgi/content/short/287961v1?rss=1", 1),
        ("https://www.medrxiv.org/content/10.1101/2020.03.01.20029785v3", 3),
        ("https://www.biorxiv.org/content/10.64898/2026.07.13.738145v2.full", 2),
        ("https://example.org/content/short/287961v1", None),
        ("https://www.biorxiv.org/collection/neuroscience", None),
    ],
)
def test_preprint_version(link: str, version: int | None) -> None:
    assert journals.preprint_version(link) == version


@pytest.mark.parametrize(
    ("guid", "link"),
    [
        ("pubmed:34929406", "https://pubmed.ncbi.nlm.nih.gov/34929406/"),
        ("pubmed:34929406x", None),
        ("https://pubmed.ncbi.nlm.nih.gov/1/", None),
    ],
)
def test_pubmed_link(guid: str, link: str | None) -> None:
    assert journals.pubmed_link(guid) == link


@pytest.mark.parametrize(
    ("html", "abbreviation"),
    [
        (
            '<div><p style="color: #4aa564;">Parasitol Int. 2021 Dec 17:102531. doi: 10.1',
            "Parasitol Int",
        ),
        (
            '<div><p style="c">Sensors (Basel). 2021 Dec 3;21(23):8100. doi: 10.3390/s1',
            "Sensors (Basel)",
        ),
        ("<p>Proc Natl Acad Sci U S A. 2021 Dec 21;118(51):e1. doi:", "Proc Natl Acad Sci U S A"),
        ("<p>Nature, Published online: 18 July 2024; doi:10.1038/s1</p>", None),  # no PubMed cite
        ("<p>Cells. 2021;10(1):5. doi: 10.3390/c1</p>", "Cells"),  # no month
        ("<p>A new species. 2021 was a year.</p>", None),
        ("<p><b>ABSTRACT</b></p><p>Parasitol Int. 2021</p>", None),  # not the first paragraph
        ("Parasitol Int. 2021 Dec 17", None),
    ],
)
def test_pubmed_abbreviation(html: str, abbreviation: str | None) -> None:
    assert journals.pubmed_abbreviation(html) == abbreviation
