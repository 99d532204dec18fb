"""The filter language: its cases and its messages; then hostile filters and the parser's one
fuzzer: whatever a user types, the parser answers with a tree or an InvalidQuery that points
inside what was typed, in time linear in its length (tests/growth.py: measured by growth, not by
a timed threshold), at any nesting, and with the settings' limits raised as far as an operator
may raise them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.query import (
    DEPTH_CEILING,
    TEXT_FIELDS,
    FilterKind,
    FilterRules,
    InvalidQuery,
    Leaf,
    PhrasePrefix,
    Prefix,
    QueryLimits,
    Seeds,
    canonical,
    kind_of,
    leaves,
    parse_query,
)
from tests.growth import assert_linear


@pytest.mark.parametrize(
    ("source", "understood"),
    [
        ('"kv cache" distill*', '"kv cache" AND distill*'),
        ("distill* -self", "distill* AND -self"),
        ("KV-cache", '"kv cache"'),
        ("Quériaux models", "queriaux AND models"),
        ("a OR b c", "(a OR b) AND c"),
        ("a b | c", "a AND (b OR c)"),
        ("(a b) OR c", "(a AND b) OR c"),
        ("(a | b) -(c d)", "(a OR b) AND -(c AND d)"),
        ('ti:"language models" NOT abs:survey', 'ti:"language models" AND -abs:survey'),
        ("au:Hassani", "au:hassani"),
        ('au:"Hamed Hassani"', 'au:"hamed hassani"'),
        ("cat:cs.LG", "cat:cs.lg"),
        ("cat:cs.*", "cat:cs.*"),
        ("cat:hep-th", "cat:hep-th"),
        ("diffusion AND models", "diffusion AND models"),
        # a '*' after hyphenated words: a phrase whose last word is a prefix
        ("fine-tun*", '"fine tun*"'),
        ("Pre-Train* models", '"pre train*" AND models'),
        ("ti:fine-tun*", 'ti:"fine tun*"'),
        ("au:Lee-Ch*", 'au:"lee ch*"'),
        ('"large language mod*"', '"large language mod*"'),
        ('"Large-Language Models-distill*"', '"large language models distill*"'),
        ('"distill*"', "distill*"),
        ("multi-agent* -survey", '"multi agent*" AND -survey'),
        ("cat:biorxiv.neuroscience", "cat:biorxiv.neuroscience"),
        ('mesh:"CRISPR-Cas Systems"', 'mesh:"crispr cas system"'),
        ("mesh:Mice", "mesh:mice"),
        ('jr:"Nature Neuroscience" src:PubMed', 'jr:"nature neuroscience" AND src:pubmed'),
        ('au:"Reeder B"', 'au:"b reeder"'),  # PubMed's order, read as everywhere else
        ('au:"Jankowski CM"', 'au:"c m jankowski"'),
        ('au:"DNA MS"', 'au:"dna ms"'),  # two capitalised words: no name to turn
        ('"grid cell*" -src:arxiv', '"grid cell*" AND -src:arxiv'),
    ],
)
def test_canonical_form(source: str, understood: str) -> None:
    assert canonical(parse_query(source)) == understood


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("", "empty filter"),
        ("   ", "empty filter"),
        ("-self", "at least one word to look for"),
        ("NOT a OR NOT b", "at least one word to look for"),
        ('diffusion "kv cache', "unbalanced quote at 11"),
        ("a (b c", "unbalanced parenthesis: '(' is never closed at 3"),
        ("a b)", "unbalanced parenthesis: ')' has no '(' at 4"),
        ("tx:foo", "unknown field 'tx:'; use ti:, abs:, au:, cat:, mesh:, jr: or src: at 1"),
        ("a OR", "'OR' has nothing after it at 3"),
        ("| a", "'|' has nothing before it at 1"),
        ("a NOT", "'NOT' has nothing after it at 3"),
        ("a AND", "'AND' has nothing after it at 3"),
        ('""', "empty phrase at 1"),
        ("()", "empty parentheses at 1"),
        ("ti: x", "'ti:' needs a word or a quoted phrase at 1"),
        ("d*", "a prefix needs at least two letters at 1"),
        ("dis*till*", "'*' ends one word"),
        ("fine-t*", "'fine-t*': a prefix needs at least two letters ('t*' has one) at 1"),
        ('a "large language m*"', "a prefix needs at least two letters ('m*' has one) at 3"),
        ("fine-*", "'fine-*': '*' ends one word, like distill* or fine-tun* at 1"),
        ("fine-tun**", "'*' ends one word"),
        ('"fine *"', "'*' ends one word"),
        ("cat:cs..LG", "is not a category"),
        ("src:scopus", "'scopus' is no source; use src: with arxiv, biorxiv, medrxiv, pubmed"),
        ('mesh:"--"', """'mesh:' needs a name, like mesh:"Grid Cells" at 6"""),
        ("a jr:", "'jr:' needs a word or a quoted phrase at 3"),
        ("$$", "nothing to search for in '$$' at 1"),
    ],
)
def test_errors_point_at_the_problem(source: str, message: str) -> None:
    with pytest.raises(InvalidQuery) as error:
        parse_query(source)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("source", "leaf"),
    [
        ("fine-tun*", PhrasePrefix(("fine",), "tun", TEXT_FIELDS, 0, "fine tun")),
        # full words are terms (singular), the last word a folded prefix (as written)
        (
            '"Language Models Distill*"',
            PhrasePrefix(
                ("language", "model"), "distill", TEXT_FIELDS, 0, "language models distill"
            ),
        ),
        ("x ti:pre-train*", PhrasePrefix(("pre",), "train", ("title",), 2, "pre train")),
        ("distill*", Prefix("distill", TEXT_FIELDS, 0)),
    ],
)
def test_a_star_after_hyphenated_words_is_a_phrase_prefix(source: str, leaf: Leaf) -> None:
    assert leaves(parse_query(source))[-1] == (leaf, True)


def test_limits_are_settings() -> None:
    limits = QueryLimits(max_length=20, max_terms=3, max_depth=2)
    with pytest.raises(InvalidQuery, match="too long"):
        parse_query("a" * 21, limits)
    with pytest.raises(InvalidQuery, match="too many terms"):
        parse_query("a b c d", limits)
    with pytest.raises(InvalidQuery, match="nesting too deep"):
        parse_query("(((a)))", limits)
    assert canonical(parse_query("a b c", limits)) == "a AND b AND c"


@given(st.text(alphabet='ab "()|-*:tiauscOR NOT.', max_size=40))
def test_canonical_form_means_the_same_filter(source: str) -> None:
    try:
        node = parse_query(source)
    except InvalidQuery:
        return
    assert canonical(parse_query(canonical(node))) == canonical(node)


@pytest.mark.parametrize(
    ("source", "compiled"),
    [
        ("like:2506.01234", Seeds(("2506.01234",))),
        (
            " LIKE: https://arxiv.org/abs/2506.01234v2, 2506.04321 2506.01234  # two seeds",
            Seeds(("2506.01234", "2506.04321")),
        ),
        ("likely OR liked", None),  # words, not a "more like this" filter
    ],
)
def test_a_filter_compiles_by_its_kind(source: str, compiled: Seeds | None) -> None:
    rules = FilterRules()
    assert kind_of(source) is (FilterKind.LIKE if compiled else FilterKind.KEYWORDS)
    assert rules.compile(source) == (compiled or rules.parse(source))


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("like:", "give the arXiv ids of one or more papers"),
        ("like:2506.01234, cats", "'cats' is not an arXiv id"),
        ("like:" + ",".join(f"2506.{n:05}" for n in range(11)), "at most 10 seed papers"),
    ],
)
def test_a_bad_like_filter_says_why(source: str, message: str) -> None:
    with pytest.raises(InvalidQuery, match=message):
        FilterRules().compile(source)


# -- hostile filters -------------------------------------------------------------------------------

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
@given(
    st.one_of(st.text(max_size=80), st.lists(st.sampled_from(PIECES), max_size=120).map("".join))
)
def test_any_text_parses_or_gets_a_message_that_points_inside(source: str) -> None:
    """The parser's fuzzer: any text, and text made of what the grammar and Unicode make hard."""
    assert parse_or_point(source)


@settings(max_examples=100)
@given(st.lists(st.sampled_from(PIECES), max_size=400).map("".join))
def test_with_every_limit_raised_the_parser_still_answers(source: str) -> None:
    parse_or_point(source, UNBOUNDED)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("(" * 10_000 + "a" + ")" * 10_000, "filter too long (20,001 characters, at most 300)"),
        ("a" + " OR a" * 10_000, "filter too long (50,001 characters, at most 300)"),
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
