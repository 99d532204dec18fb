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


def test_the_taxonomy_holds_arxivs_155_categories() -> None:
    assert len(TAXONOMY.categories) == 155
    assert TAXONOMY.categories["cs.lg"] == ("cs.LG", "Machine Learning")
    assert TAXONOMY.categories["q-bio.nc"] == ("q-bio.NC", "Neurons and Cognition")


@pytest.mark.parametrize(
    ("source", "unknown"),
    [
        ("cat:cs.LG", ()),
        ("cat:CS.lg", ()),
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
    ],
)  # fmt: skip
def test_unknown_categories(source: str, unknown: tuple[UnknownCategory, ...]) -> None:
    assert unknown_categories(parse_query(source), TAXONOMY) == unknown
