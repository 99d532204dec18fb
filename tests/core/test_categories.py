from pathlib import Path

import pytest

import bot.core
from bot.core.categories import UnknownCategory, read_taxonomy, unknown_categories
from bot.core.query import parse_query

TAXONOMY = read_taxonomy(
    (Path(bot.core.__file__).parent / "data" / "arxiv_categories.txt").read_text()
)
SY, CY, SI = (
    ("cs.SY", "Systems and Control"),
    ("cs.CY", "Computers and Society"),
    ("cs.SI", "Social and Information Networks"),
)
ML, PL, MS = (
    ("stat.ML", "Machine Learning"),
    ("cs.PL", "Programming Languages"),
    ("cs.MS", "Mathematical Software"),
)
TH, PH, EX = (
    ("hep-th", "High Energy Physics - Theory"),
    ("hep-ph", "High Energy Physics - Phenomenology"),
    ("hep-ex", "High Energy Physics - Experiment"),
)


NEURO = ("biorxiv.neuroscience", "bioRxiv: Neuroscience")


def test_the_taxonomy_holds_arxivs_155_categories_and_the_preprint_servers_subjects() -> None:
    assert len(TAXONOMY.categories) == 155 + 27 + 51  # arXiv, bioRxiv, medRxiv
    assert TAXONOMY.categories["biorxiv.neuroscience"] == (
        "biorxiv.neuroscience",
        "bioRxiv: Neuroscience",
    )
    assert TAXONOMY.categories["cs.lg"] == ("cs.LG", "Machine Learning")
    assert TAXONOMY.categories["q-bio.nc"] == ("q-bio.NC", "Neurons and Cognition")


@pytest.mark.parametrize(
    ("source", "unknown"),
    [
        ("cat:cs.LG", ()),
        ("cat:CS.lg", ()),
        ("cat:biorxiv.neuroscience", ()),
        ("cat:bioRxiv.Animal-Behavior-and-Cognition", ()),
        ("cat:medrxiv.infectious-diseases", ()),
        ("cat:biorxiv", ()),  # every collection of the server
        ('mesh:"Grid Cells" src:pubmed jr:Nature', ()),  # no categories: never warned of
        ("cat:cs.*", ()),  # an archive's subjects
        ("cat:math", ()),  # an archive
        ("cat:cond-mat", ()),
        ("cat:cond-mat.*", ()),
        ("cat:hep-th", ()),  # an archive that is a category
        ("cat:physics.optics", ()),
        ("kv cache", ()),
        ("cat:cs.XY", (UnknownCategory("cat:cs.xy", (SY, CY, SI)),)),
        ("cat:cs.AI -cat:cs.XY OR cat:cs.xy", (UnknownCategory("cat:cs.xy", (SY, CY, SI)),)),
        # the same subject in another archive first
        ("cat:cs.ML", (UnknownCategory("cat:cs.ml", (ML, PL, MS)),)),
        # a prefix matches up to a dot: hep-th is not hep-.something
        ("cat:hep-*", (UnknownCategory("cat:hep-.*", (TH, PH, EX)),)),
        ("cat:foo", (UnknownCategory("cat:foo", ()),)),
        # a bioRxiv subject without its server is named with it
        ("cat:neuroscience", (UnknownCategory("cat:neuroscience", (NEURO,)),)),
    ],
)  # fmt: skip
def test_unknown_categories(source: str, unknown: tuple[UnknownCategory, ...]) -> None:
    assert unknown_categories(parse_query(source), TAXONOMY) == unknown
