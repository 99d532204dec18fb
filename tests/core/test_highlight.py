"""Highlights: the spans of title and abstract that a filter's positive words matched."""

from __future__ import annotations

import pytest

from bot.core.highlight import Highlight, highlights, merge_highlights
from bot.core.paper import Paper
from bot.core.query import parse_query

PAPER = Paper(
    title="KV-Cache Sharing for Looped Models",
    abstract="We share the KV cache (KV) caches across loops; distillation and distilled models.",
    source="test",
    authors=("Ada Smith",),
    categories=("cs.LG",),
)


def marked(source: str) -> list[tuple[str, str]]:
    """(field, the marked text) of each highlight, in order."""
    texts = {"title": PAPER.title, "abstract": PAPER.abstract}
    return [
        (h.field, ", ".join(PAPER.authors[h.start : h.end]))
        if h.field == "author"  # an author is marked whole, by index
        else (h.field, texts[h.field][h.start : h.end])
        for h in highlights(parse_query(source), PAPER)
    ]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a word, its plural and case folded, in both fields
        ("model", [("title", "Models"), ("abstract", "models")]),
        ("loop", [("abstract", "loops")]),
        # a prefix marks every word it starts
        ("distill*", [("abstract", "distillation"), ("abstract", "distilled")]),
        # a phrase ending in a prefix is one span, over all its words
        (
            "kv-cach*",
            [("title", "KV-Cache"), ("abstract", "KV cache"), ("abstract", "KV")]
            + [("abstract", "caches")],
        ),
        ("ti:kv-cache-sh*", [("title", "KV-Cache Sharing")]),
        ('"distilled mod*"', [("abstract", "distilled models")]),
        # a phrase across a hyphen or a space is one span; other characters between: a span a word
        (
            '"kv cache"',
            [
                ("title", "KV-Cache"),
                ("abstract", "KV cache"),
                ("abstract", "KV"),
                ("abstract", "caches"),
            ],
        ),
        # a field keeps the mark in its field
        ("ti:models", [("title", "Models")]),
        ("abs:models", [("abstract", "models")]),
        # either side of an OR
        ("sharing OR share", [("title", "Sharing"), ("abstract", "share")]),
        # excluded words and categories are never marked
        ("looped -distill*", [("title", "Looped")]),
        ("looped NOT (share)", [("title", "Looped")]),
        ("cat:cs.LG looped", [("title", "Looped")]),
        # an author is marked by index, the whole name
        ("au:Smith looped", [("title", "Looped"), ("author", "Ada Smith")]),
        ("looped -au:smith", [("title", "Looped")]),
        ("mamba", []),
    ],
)
def test_the_positive_words_of_a_filter_are_marked(
    source: str, expected: list[tuple[str, str]]
) -> None:
    assert marked(source) == expected


def test_spans_are_character_offsets_in_each_field() -> None:
    assert highlights(parse_query('"kv cache" looped'), PAPER) == [
        Highlight("title", 0, 8),
        Highlight("title", 21, 27),
        Highlight("abstract", 13, 21),
        Highlight("abstract", 23, 25),
        Highlight("abstract", 27, 33),
    ]


def test_overlapping_marks_of_one_filter_are_joined() -> None:
    # the phrase and the word cover "KV" twice: one span
    assert marked('ti:"kv cache" ti:kv') == [("title", "KV-Cache")]


@pytest.mark.parametrize(
    ("marks", "expected"),
    [
        ([], []),
        # overlapping and touching spans join, apart ones stay apart
        (
            [Highlight("title", 5, 9), Highlight("title", 0, 6), Highlight("title", 9, 12)],
            [Highlight("title", 0, 12)],
        ),
        (
            [Highlight("title", 0, 2), Highlight("title", 4, 6)],
            [Highlight("title", 0, 2), Highlight("title", 4, 6)],
        ),
        # a span inside another disappears
        (
            [Highlight("abstract", 0, 10), Highlight("abstract", 2, 4)],
            [Highlight("abstract", 0, 10)],
        ),
        # fields never mix: the title comes first, whatever the order given
        (
            [Highlight("abstract", 0, 5), Highlight("title", 3, 8), Highlight("abstract", 4, 6)],
            [Highlight("title", 3, 8), Highlight("abstract", 0, 6)],
        ),
    ],
)
def test_merge_highlights_joins_overlaps_per_field(
    marks: list[Highlight], expected: list[Highlight]
) -> None:
    assert merge_highlights(marks) == expected
