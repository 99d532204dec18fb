import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.query import (
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
        ("tx:foo", "unknown field 'tx:'; use ti:, abs:, au: or cat: at 1"),
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


@given(st.text(max_size=80))
def test_any_text_parses_or_gets_a_message(source: str) -> None:
    try:
        node = parse_query(source)
    except InvalidQuery as error:
        assert str(error)
    else:
        assert canonical(node)


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
