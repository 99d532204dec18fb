"""bioRxiv and medRxiv subjects as categories (the records themselves are cases as files)."""

import pytest

from bot.core.listings import biorxiv


@pytest.mark.parametrize(
    ("server", "subject", "kept"),
    [
        ("bioRxiv", "neuroscience", "biorxiv.neuroscience"),
        ("biorxiv", "Animal Behavior and Cognition", "biorxiv.animal-behavior-and-cognition"),
        ("medRxiv", "HIV/AIDS", "medrxiv.hiv-aids"),
        ("medRxiv", "", None),
        ("arXiv", "neuroscience", None),
    ],
)  # fmt: skip
def test_a_subject_becomes_a_category_under_its_server(
    server: str, subject: str, kept: str | None
) -> None:
    assert biorxiv.category(server, subject) == kept


@pytest.mark.parametrize(
    ("title", "categories"),
    [
        ("bioRxiv Subject Collection: Neuroscience", ("biorxiv.neuroscience",)),
        ("bioRxiv Subject Collection:  Cell  Biology ", ("biorxiv.cell-biology",)),
        ("bioRxiv Subject Collection: All", ()),
        ("bioRxiv Subject Collection: Genomics Bioinformatics", ()),  # two subjects in one feed
        ("bioRxiv", ()),
    ],
)
def test_a_feed_of_one_subject_gives_its_items_that_category(
    title: str, categories: tuple[str, ...]
) -> None:
    assert biorxiv.feed_categories(title) == categories
