"""Anchors: the kinds, and which terms a filter is filed under for given term frequencies."""

from __future__ import annotations

import pytest

from bot.core.matcher.anchors import (
    PAIR_KINDS,
    PREFIX_KINDS,
    TERM_KINDS,
    Anchor,
    AnchorKind,
    anchor_program,
    anchors_of,
    cost,
    is_exact,
)
from bot.core.matcher.document import AUTHOR, TEXT, TITLE
from bot.core.matcher.program import (
    AllOf,
    Anchored,
    AnyOf,
    CategoryTest,
    NotTest,
    WordTest,
    compile_query,
)
from bot.core.query import parse_query

TEXT_TERM, TITLE_TERM, AUTHOR_TERM = (
    AnchorKind.TEXT_TERM,
    AnchorKind.TITLE_TERM,
    AnchorKind.AUTHOR_TERM,
)
TEXT_PAIR, TEXT_PREFIX, AUTHOR_PREFIX, CATEGORY = (
    AnchorKind.TEXT_PAIR,
    AnchorKind.TEXT_PREFIX,
    AnchorKind.AUTHOR_PREFIX,
    AnchorKind.CATEGORY,
)
TITLE_PREFIX = AnchorKind.TITLE_PREFIX


def anchors(source: str, frequency: dict[str, float] | None = None) -> list[Anchor] | None:
    return anchors_of(compile_query(parse_query(source)), frequency or {})


@pytest.mark.parametrize(
    ("kind", "fields", "shape"),
    [
        (AnchorKind.TITLE_TERM, TITLE, "term"),
        (AnchorKind.TEXT_TERM, TEXT, "term"),
        (AnchorKind.AUTHOR_TERM, AUTHOR, "term"),
        (AnchorKind.TITLE_PAIR, TITLE, "pair"),
        (AnchorKind.TEXT_PAIR, TEXT, "pair"),
        (AnchorKind.AUTHOR_PAIR, AUTHOR, "pair"),
        (AnchorKind.TEXT_PREFIX, TEXT, "prefix"),
        (AnchorKind.AUTHOR_PREFIX, AUTHOR, "prefix"),
        (AnchorKind.TITLE_PREFIX, TITLE, "prefix"),
        (AnchorKind.CATEGORY, 0, "category"),
    ],
)
def test_a_kind_knows_its_fields_and_shape(kind: AnchorKind, fields: int, shape: str) -> None:
    assert kind.fields == fields
    flags = (kind.is_term, kind.is_pair, kind.is_prefix, kind.is_category)
    assert flags == tuple(shape == name for name in ("term", "pair", "prefix", "category"))


def test_the_kind_for_a_shape_in_fields() -> None:
    assert TERM_KINDS == {TITLE: TITLE_TERM, TEXT: TEXT_TERM, AUTHOR: AUTHOR_TERM}
    assert PAIR_KINDS == {
        TITLE: AnchorKind.TITLE_PAIR,
        TEXT: AnchorKind.TEXT_PAIR,
        AUTHOR: AnchorKind.AUTHOR_PAIR,
    }
    assert PREFIX_KINDS == {TEXT: TEXT_PREFIX, AUTHOR: AUTHOR_PREFIX, TITLE: TITLE_PREFIX}


def test_kinds_number_the_posting_dicts_from_zero() -> None:
    assert [int(kind) for kind in AnchorKind] == list(range(10))


@pytest.mark.parametrize(
    ("source", "frequency", "expected"),
    [
        # An AND is filed under its rarest word: by frequency; a word never seen is rarest.
        ("alpha beta", {"alpha": 0.5, "beta": 0.01}, [(TEXT_TERM, "beta")]),
        ("alpha beta", {"alpha": 0.01, "beta": 0.5}, [(TEXT_TERM, "alpha")]),
        ("alpha beta", {"alpha": 0.5}, [(TEXT_TERM, "beta")]),
        # Without frequencies, the longer word is taken to be rarer.
        ("graph diffusion", None, [(TEXT_TERM, "diffusion")]),
        # A phrase: the adjacent pair whose rarer word is rarest.
        (
            '"deep neural network"',
            {"deep": 0.3, "neural": 0.2, "network": 0.01},
            [(TEXT_PAIR, "neural network")],
        ),
        (
            '"deep neural network"',
            {"deep": 0.01, "neural": 0.2, "network": 0.3},
            [(TEXT_PAIR, "deep neural")],
        ),
        # A NOT gives no anchor: the AND is filed under its other part, a lone NOT under none.
        ("alpha -beta", {"alpha": 0.5, "beta": 0.01}, [(TEXT_TERM, "alpha")]),
        # An OR needs all its parts' anchors.
        (
            "alpha OR ti:beta OR au:lee",
            None,
            [(TEXT_TERM, "alpha"), (TITLE_TERM, "beta"), (AUTHOR_TERM, "lee")],
        ),
        # An AND of an OR: the OR's anchors cost the sum of its parts' (0.2 < 0.5).
        (
            "(alpha OR beta) gamma",
            {"alpha": 0.1, "beta": 0.1, "gamma": 0.5},
            [(TEXT_TERM, "alpha"), (TEXT_TERM, "beta")],
        ),
        (
            "(alpha OR beta) gamma",
            {"alpha": 0.3, "beta": 0.3, "gamma": 0.5},
            [(TEXT_TERM, "gamma")],
        ),
        # Abstract-only leaves are filed with the whole text; title-only ones by themselves.
        ("abs:alpha", None, [(TEXT_TERM, "alpha")]),
        ("ti:alpha", None, [(TITLE_TERM, "alpha")]),
        ("distill*", None, [(TEXT_PREFIX, "distill")]),
        ("ti:distill*", None, [(TITLE_PREFIX, "distill")]),
        ("abs:distill*", None, [(TEXT_PREFIX, "distill")]),
        ("au:lee*", None, [(AUTHOR_PREFIX, "lee")]),
        # A phrase ending in a prefix: its full words as a phrase's, never the prefix.
        ("fine-tun*", {"fine": 0.3}, [(TEXT_TERM, "fine")]),
        ("ti:fine-tun*", None, [(TITLE_TERM, "fine")]),
        ("au:lee-ch*", None, [(AUTHOR_TERM, "lee")]),
        (
            '"deep neural network mod*"',
            {"deep": 0.3, "neural": 0.2, "network": 0.01},
            [(TEXT_PAIR, "neural network")],
        ),
        ("large-language-mod*", None, [(TEXT_PAIR, "large language")]),
        ("cat:cs.LG", None, [(CATEGORY, "cs.lg")]),
        ("cat:math", None, [(CATEGORY, "math"), (CATEGORY, "math.")]),
        # A category is common: a rare word is chosen over it.
        ("cat:cs.LG alpha", {"alpha": 0.01}, [(TEXT_TERM, "alpha")]),
    ],
)
def test_anchors(
    source: str, frequency: dict[str, float] | None, expected: list[Anchor] | None
) -> None:
    assert anchors(source, frequency) == expected


def test_cost_of_a_rare_word_is_below_a_common_one() -> None:
    frequency = {"alpha": 0.5, "beta": 0.01}
    assert cost([(TEXT_TERM, "beta")], frequency) < cost([(TEXT_TERM, "alpha")], frequency)
    assert cost([(TITLE_TERM, "alpha")], frequency) < cost([(TEXT_TERM, "alpha")], frequency)
    assert cost([(CATEGORY, "cs.")], frequency) > cost([(CATEGORY, "cs.lg")], frequency)


@pytest.mark.parametrize(
    ("source", "exact"),
    [
        ("alpha", True),
        ("ti:alpha", True),
        ("au:lee", True),
        ("abs:alpha", False),  # filed with the whole text
        ('"alpha beta"', True),
        ('"alpha beta gamma"', False),  # found through one pair
        ("distill*", True),
        ("ti:distill*", True),
        ("abs:distill*", False),  # filed with the whole text
        ("fine-tun*", False),  # the prefix is left to check
        ("cat:math", True),
        ("alpha beta", False),
        ("alpha OR beta", True),  # a hit on one is a match of that one
        ('alpha OR "beta gamma delta"', False),
        ("(alpha OR cat:cs.LG) OR au:lee", True),
    ],
)
def test_exact_programs(source: str, exact: bool) -> None:
    assert is_exact(compile_query(parse_query(source))) is exact


def test_an_and_found_through_an_exact_part_checks_only_the_rest() -> None:
    program, filed_under = anchor_program(
        compile_query(parse_query("cat:cs.LG alpha")), {"alpha": 0.01}
    )
    assert filed_under == ((TEXT_TERM, "alpha"),)
    assert program == Anchored(WordTest(TEXT, "alpha"), CategoryTest(("cs.lg",)))


def test_a_not_gives_no_anchors() -> None:
    """(The filter language refuses a filter made of exclusions alone, but the index takes any
    program.)"""
    alpha, beta = WordTest(TEXT, "alpha"), WordTest(TEXT, "beta")
    assert anchors_of(NotTest(beta), {}) is None
    assert anchors_of(AnyOf((alpha, NotTest(beta))), {}) is None
    assert anchors_of(AllOf((NotTest(beta), alpha)), {}) == [(TEXT_TERM, "alpha")]
    assert not is_exact(NotTest(beta))
    program = AnyOf((alpha, NotTest(beta)))
    assert anchor_program(program, {}) == (program, ())
