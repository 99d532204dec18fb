import pytest

from bot.core.summary import derive_headline, shorten


@pytest.mark.parametrize(
    ("abstract", "headline"),
    [
        (
            "To address these challenges, we propose lapanda, a matrix-free differentiable solver "
            "for "
            "nonconvex optimization with general constraints. It reformulates the problem.",
            "lapanda: a matrix-free differentiable solver for nonconvex optimization with general "
            "constraints",
        ),
        (
            "In this work, we propose a curriculum learning-based method to address the cold-start "
            "problem. In particular, we train.",
            "A curriculum learning-based method to address the cold-start problem",
        ),
        ("Graph networks tag jets. They are fast.", "Graph networks tag jets"),
    ],
)
def test_derive_headline(abstract: str, headline: str) -> None:
    assert derive_headline(abstract) == headline


def test_headline_is_shortened_at_a_word() -> None:
    headline = derive_headline("We present " + "very " * 60 + "long things.")
    assert len(headline) <= 140 and headline.endswith("…") and "  " not in headline


def test_shorten_keeps_short_text() -> None:
    assert shorten("short", 10) == "short"
    assert shorten("one two three four", 10) == "one two…"
