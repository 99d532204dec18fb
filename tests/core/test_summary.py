import pytest

from bot.core.summary import derive_headline, sentences, shorten, tldr


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


BENICE = (
    "Looped architectures scale quality. In this paper, we study how KV-shareability can be "
    "enabled in looped models. In the second stage, we propose BeNice!, a post-training method "
    "that broadcasts the final recurrence's KV-cache into the first recurrence. KV-sharing "
    "improves cache hit rates by up to 31.4%."
)


@pytest.mark.parametrize(
    ("abstract", "title", "expected"),
    [
        (
            BENICE,
            "BeNice! Closing Looping's Inference-Memory Gap",
            "BeNice!, a post-training method that broadcasts the final recurrence's KV-cache into "
            "the first recurrence. KV-sharing improves cache hit rates by up to 31.4%.",
        ),
        (
            "Graphs are everywhere. We show that message passing is limited. It runs 3x faster.",
            None,
            "We show that message passing is limited. It runs 3x faster.",
        ),
        ("Plain words without a claim. More words.", None, "Plain words without a claim."),
        ("", None, ""),
    ],
)
def test_tldr_states_the_contribution_and_a_result(
    abstract: str, title: str | None, expected: str
) -> None:
    assert tldr(abstract, title) == expected


def test_tldr_stays_within_its_limit() -> None:
    summary = tldr("We propose " + "a very long idea " * 40 + ". It is 5% better.")
    assert len(summary) <= 300 and summary.endswith("…")


def test_sentences_do_not_break_after_decimals_or_abbreviations() -> None:
    assert sentences("It gains 3.5 points, e.g. on MNIST. Then it stops.") == [
        "It gains 3.5 points, e.g. on MNIST.",
        "Then it stops.",
    ]
