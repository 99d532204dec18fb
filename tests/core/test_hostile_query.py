"""Hostile filters: whatever a user types, the parser answers with a tree or an InvalidQuery that
points inside what was typed, in time linear in its length (tests/growth.py: measured by growth,
not by a timed threshold), at any nesting, and with the settings' limits raised as far as an
operator may raise them. tests/core/test_query.py holds the language's cases and first fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.query import DEPTH_CEILING, InvalidQuery, QueryLimits, canonical, parse_query
from tests.growth import assert_linear

# An operator may raise every limit (bot/config.py bounds them only from below).
UNBOUNDED = QueryLimits(max_length=10**9, max_terms=10**9, max_depth=10**9)

PIECES = [
    *'ab "()|-*:\\', " OR ", " AND ", " NOT ", "ti:", "au:", "cat:", "cs.*", "\x00", "\u200b",
    "\u202e", "\u200f", "שלום", "😀", "é", "١٢", "\ufeff", "\t", "\n",
]  # fmt: skip


def parse_or_point(source: str, limits: QueryLimits | None = None) -> str:
    """The filter as understood, or the error's message, which points inside the source."""
    try:
        node = parse_query(source, limits)
    except InvalidQuery as error:
        assert str(error).strip()
        if error.position is not None:
            assert 0 <= error.position <= len(source)
            assert str(error).endswith(f" at {error.position + 1}")
        return str(error)
    return canonical(node)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(PIECES), max_size=120).map("".join))
def test_hostile_pieces_parse_or_get_a_message_that_points_inside(source: str) -> None:
    parse_or_point(source)


@settings(max_examples=100)
@given(st.lists(st.sampled_from(PIECES), max_size=400).map("".join))
def test_with_every_limit_raised_the_parser_still_answers(source: str) -> None:
    parse_or_point(source, UNBOUNDED)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("(" * 10_000 + "a" + ")" * 10_000, "filter too long (20001 characters, at most 300)"),
        ("a" + " OR a" * 10_000, "filter too long (50001 characters, at most 300)"),
        ("((((((((a))))))))", "nesting too deep (at most 6 levels) at 7"),
        ("-" * 100 + "a", "nesting too deep (at most 6 levels) at 7"),
        ("NOT " * 20 + "a", "nesting too deep (at most 6 levels) at 25"),
        (" OR ".join("abcdefghijklmnopqrstu"), "too many terms (at most 20 in one filter) at 101"),
        ('"' * 7, "unbalanced quote at 7"),
        ('"' * 6, "empty phrase at 1"),
        ("\\" * 40, "nothing to search for in '" + "\\" * 40 + "' at 1"),
        ("a OR OR b", "'OR' has nothing after it at 3"),
        ("| | |", "'|' has nothing before it at 1"),
        ("a -", "nothing to search for in '-' at 3"),
        ("-- a", "nothing to search for in '-' at 2"),
        ("a*****", "'a*****': '*' ends one word"),
        ("))))", "unbalanced parenthesis: ')' has no '(' at 1"),
        ("((((", "unbalanced parenthesis: '(' is never closed at 4"),
        ("😀 🎉", "nothing to search for in '😀' at 1"),
        ("a\x00b", "control character (U+0000) not allowed in a filter at 2"),
        ("kv\x1b[31m", "control character (U+001B) not allowed in a filter at 3"),
        ("a\ud800", "control character (U+D800) not allowed in a filter at 2"),
    ],
)
def test_bad_filters_get_a_clear_message(source: str, message: str) -> None:
    assert message in parse_or_point(source)


@pytest.mark.parametrize(
    ("source", "understood"),
    [
        ("שלום עולם", "שלום AND עולם"),  # right to left
        ("\u202ediffusion", "diffusion"),  # a direction override is no letter
        ("kv\u200bcache", '"kv cache"'),  # nor is a zero-width space
        ("\ufeffmamba", "mamba"),
        ("١٢٣ models", "١٢٣ AND models"),  # digits of another script are digits
        ("diffusion\tmodels\nOR flows", "diffusion AND (models OR flows)"),
        ("ti:ti:ti:", 'ti:"ti ti"'),
    ],
)
def test_unusual_text_is_read_as_words(source: str, understood: str) -> None:
    assert parse_or_point(source) == understood


@pytest.mark.parametrize(
    "source",
    [
        "(" * 10_000 + "a" + ")" * 10_000,
        "-" * 10_000 + "a",
        "NOT " * 10_000 + "a",
        "(-" * 5000 + "a",
    ],
)
def test_nesting_deeper_than_the_stack_is_refused_with_the_limit_raised(source: str) -> None:
    """Whatever max_depth the settings give, the parser recurses at most DEPTH_CEILING levels."""
    message = parse_or_point(source, UNBOUNDED)
    assert message.startswith(f"nesting too deep (at most {DEPTH_CEILING} levels)")


def test_nesting_up_to_the_ceiling_is_understood() -> None:
    deepest = "(" * (DEPTH_CEILING - 1) + "a b" + ")" * (DEPTH_CEILING - 1)
    assert parse_or_point(deepest, UNBOUNDED) == "a AND b"


GROWING = {
    # (filter of size n, with every limit raised so that the parser reads it all)
    "ORs": lambda n, run: " OR ".join(f"w{run}x{i}" for i in range(n)),
    "bars": lambda n, run: "|".join(f"w{run}x{i}" for i in range(n)),
    "implicit ANDs": lambda n, run: " ".join(f"w{run}x{i}" for i in range(n)),
    "phrases": lambda n, run: " ".join(f'"w{run} x{i}"' for i in range(n)),
    "quotes unbalanced at the end": lambda n, run: f'"w{run}" ' * n + '"',
    "one long word": lambda n, run: f"w{run}" + "a" * n,
    "backslashes": lambda n, run: f"w{run} " + "\\" * n,
    "operators": lambda n, run: f"w{run} " + "-|" * n,
    "field prefixes": lambda n, run: f"w{run} ti:" + "ti:" * n,
    "hyphens": lambda n, run: f"w{run}-" + "-".join("ab" for _ in range(n)),
    "groups side by side": lambda n, run: " ".join(f"(w{run} OR x{i})" for i in range(n)),
    "stars": lambda n, run: f"w{run} " + "a*" * n,
}


@pytest.mark.parametrize("name", GROWING)
def test_parsing_grows_linearly_with_the_filter(name: str) -> None:
    assert_linear(lambda source: parse_or_point(source, UNBOUNDED), GROWING[name], 1000)
