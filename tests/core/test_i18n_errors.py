"""Refusals found in the core (a filter's parse errors, a library's unreadable entries) are put
into the reader's language where they are shown: in a pseudo language that brackets every
message of the code, each one's words are all inside the brackets but the reader's own, and
without the brackets they are the English of `message`."""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest
from babel.messages.extract import extract

from bot.core import library, query
from bot.core.i18n import Translator
from bot.core.library import (
    BadEntry,
    LibraryFormat,
    Unreadable,
    decode_library,
    format_name,
    read_library,
)
from bot.core.problems import Position, Problem
from bot.core.query import FilterRules, InvalidQuery, QueryLimits, read_seeds
from tests.pseudo import pseudo_translator, unwrapped

TOO_MANY_SEEDS = "like:" + ",".join(f"2607.{n:05d}" for n in range(1, 12))

# A filter (and the limits it is read with) for each message the parser has
FILTERS = [
    ('a "b', QueryLimits(), "unbalanced quote at 3"),
    ("foo:bar", QueryLimits(), "unknown field 'foo:'; use ti:, abs:, au:, cat:, mesh:, jr: or src: "
     "at 1"),
    ("ti: x", QueryLimits(), "'ti:' needs a word or a quoted phrase at 1"),
    ("a ()", QueryLimits(), "empty parentheses at 3"),
    ("OR a", QueryLimits(), "'OR' has nothing before it at 1"),
    ("a b c", QueryLimits(max_terms=2), "too many terms (at most 2 in one filter) at 5"),
    ("(a)", QueryLimits(max_depth=0), "nesting too deep (at most 0 levels) at 1"),
    ("((a))", QueryLimits(max_depth=1), "nesting too deep (at most 1 level) at 2"),
    ("(a", QueryLimits(), "unbalanced parenthesis: '(' is never closed at 1"),
    ("a)", QueryLimits(), "unbalanced parenthesis: ')' has no '(' at 2"),
    (") a", QueryLimits(), "unbalanced parenthesis: ')' has no '(' at 1"),
    ("a OR", QueryLimits(), "'OR' has nothing after it at 3"),
    ("a |", QueryLimits(), "'|' has nothing after it at 3"),
    ("a AND", QueryLimits(), "'AND' has nothing after it at 3"),
    ("a NOT", QueryLimits(), "'NOT' has nothing after it at 3"),
    ('a ""', QueryLimits(), "empty phrase at 3"),
    ("a ...", QueryLimits(), "nothing to search for in '...' at 3"),
    ("a*b*", QueryLimits(), "'a*b*': '*' ends one word, like distill* or fine-tun* at 1"),
    ("fine-t*", QueryLimits(), "'fine-t*': a prefix needs at least two letters "
     "('t*' has one) at 1"),
    ("d*", QueryLimits(), "'d*': a prefix needs at least two letters at 1"),
    ("cat:1", QueryLimits(), "'1' is not a category like cs.LG, hep-th or cs.* at 1"),
    ('mesh:"--"', QueryLimits(), "'mesh:' needs a name, like mesh:\"Grid Cells\" at 6"),
    ("src:feed", QueryLimits(), "'feed' is no source; use src: with arxiv, biorxiv, "
     "medrxiv, pubmed, journal at 1"),
    ("x" * 301, QueryLimits(), "filter too long (301 characters, at most 300)"),
    ("x", QueryLimits(max_length=0), "filter too long (1 character, at most 0)"),
    ("a\x00", QueryLimits(), "control character (U+0000) not allowed in a filter at 2"),
    ("  ", QueryLimits(), 'empty filter: write a word, a "phrase" or a field like au:Name'),
    ("-a", QueryLimits(), "a filter needs at least one word to look for, not only "
     "exclusions (e.g. 'distill* -self')"),
    ("like:banana", None, "'banana' is not an arXiv id (like 2506.01234, or its arxiv.org link)"),
    ("like:", None, "give the arXiv ids of one or more papers"),
    (TOO_MANY_SEEDS, None, "at most 10 seed papers"),
]  # fmt: skip


def refusal(source: str, limits: QueryLimits | None) -> InvalidQuery:
    with pytest.raises(InvalidQuery) as refused:
        if limits is None:
            read_seeds(source)
        else:
            FilterRules(limits).parse(source)
    return refused.value


def walk(problem: Problem) -> list[Problem]:
    """The problem and those inside it."""
    found = [problem]
    for _, value in problem.arguments:
        for inner in value if isinstance(value, tuple) else (value,):
            if isinstance(inner, Problem):
                found += walk(inner)
    return found


def words(problem: Problem) -> list[str]:
    """The words a problem shows as they are: the reader's, a syntax example, a code."""
    return [v for p in walk(problem) for _, v in p.arguments if isinstance(v, str) and v]


def verbatim(problem: Problem) -> bool:
    return problem.template == "{text}"


def assert_translated(problem: Problem, english: str) -> None:
    """Every message of the problem through the translator, bracketed once each; the words it
    shows as they are never translated (the pseudo language knows them too, so they would
    show brackets); without brackets, the English."""
    shown = problem.text(pseudo_translator(words(problem)))
    messages = [p for p in walk(problem) if not verbatim(p)]
    if not verbatim(problem):
        assert shown.startswith("⟦") and shown.endswith("⟧"), shown
    assert shown.count("⟦") == len(messages), shown
    assert unwrapped(shown) == english == problem.message


def messages_of(module: object) -> set[str]:
    """The messages a module marks, as Babel extracts them (a plural by its singular)."""
    with Path(str(getattr(module, "__file__", ""))).open("rb") as source:
        found = extract("python", source)
        return {m if isinstance(m, str) else m[0] for _, m, *_ in found}


@pytest.mark.parametrize(("source", "limits", "english"), FILTERS)
def test_a_parse_error_speaks_the_readers_language(
    source: str, limits: QueryLimits | None, english: str
) -> None:
    error = refusal(source, limits)
    assert str(error) == english
    assert_translated(error.problem, english)


def test_every_message_of_the_parser_has_a_case() -> None:
    given = {
        p.template for source, limits, _ in FILTERS for p in walk(refusal(source, limits).problem)
    }
    assert messages_of(query) - given == set()


def test_the_readers_own_words_are_never_translated() -> None:
    # what was typed is a message of the code ("arXiv ids"): shown as typed all the same
    error = refusal('src:"arXiv ids"', QueryLimits())
    assert error.problem.text(pseudo_translator()) == (
        "⟦⟦'arXiv ids' is no source; use src: with arxiv, biorxiv, medrxiv, pubmed, journal⟧ at 5⟧"
    )


ENTRIES = "2506.01234\n" * (library.MAX_ENTRIES + 2)

# A library (its text) for each message a reading has, and what the first bad entry says
LIBRARIES = [
    ("TY  - GEN\nER  - \n", "line 1: no title, arXiv id or DOI"),
    ("@misc{a, title={x}\n@misc{b, title={y}}\n", "line 1: the entry is "
     "not closed (a brace or quote is missing) before the next one"),
    ("@misc{a, title={x}, title={y}}\n", "line 1: a field or key given twice"),
    ("TY  - GEN\nTI  - x\nnot a tag\n\nER  - \nstray\n", "line 6: not a RIS line (TAG  - value)"),
    ("TY  - GEN\nTI  - x\nTY  - GEN\nTI  - y\nER  - \n", "line 1: no ER line before the next TY"),
    ("TI  - x\nTY  - GEN\nTI  - y\nER  - \n", "line 1: TI outside an entry (before its TY)"),
    ("TY  - GEN\nTI  - x\n", "line 1: the entry has no ER line"),
    ('[{"title": "x"},\n 5]', "entry 2: not an item (an object with a title)"),
    ('{"items": 5}', "line 1: CSL-JSON is a list of items"),
    ('[{"title": "x"\n,]', "line 2: not valid JSON: Expecting property name enclosed in double "
     "quotes"),
    ("2506.01234\nhttps://example.org/x\n", "line 2: this address names no arXiv paper"),
    # a line is a place, in plain digits; a count is grouped
    (ENTRIES, "line 5001: 2 entries past 5,000"),
    (ENTRIES[: -len("2506.01234\n")], "line 5001: 1 entry past 5,000"),
]  # fmt: skip


def first_bad(text: str) -> BadEntry:
    found = read_library(text)
    assert found is not None and found.bad, text
    return found.bad[0]


@pytest.mark.parametrize(("text", "english"), LIBRARIES)
def test_an_unreadable_entry_speaks_the_readers_language(text: str, english: str) -> None:
    bad = first_bad(text)
    assert f"{bad.where}: {bad.message}" == english
    assert_translated(bad.described, english)


def test_a_library_refused_whole_speaks_the_readers_language() -> None:
    binary = decode_library(b"%PDF-1.7\x00\x01\x02" * 100)
    huge = decode_library(b"x" * 8_500_000)
    assert isinstance(binary, Unreadable) and isinstance(huge, Unreadable)
    assert_translated(binary.problem, binary.message)
    assert_translated(
        huge.problem,
        "the file is 8.5 MB; I read libraries up to 8 MB. Export a collection, or split the file",
    )


def test_a_reason_of_the_bibtex_reader_is_shown_as_it_is() -> None:
    bad = BadEntry(Problem.of("line {number}", number=3), library._bibtex_problem(ValueError()))
    assert bad.message == "not a readable entry (ValueError)"
    told = library._bibtex_problem(ValueError("Unexpected   character"))
    assert told.text(pseudo_translator()) == "Unexpected character"


def test_every_message_of_a_library_has_a_case() -> None:
    given = {p.template for text, _ in LIBRARIES for p in walk(first_bad(text).described)}
    refused = [decode_library(b"\x00" * 10), library.too_large(10**9)]
    given |= {p.template for r in refused if isinstance(r, Unreadable) for p in walk(r.problem)}
    given |= {format_name(kind).template for kind in LibraryFormat}
    given |= {library._bibtex_problem(ValueError()).template}
    assert messages_of(library) - given == set()


def test_a_list_of_arxiv_ids_is_named_in_the_readers_words() -> None:
    t = pseudo_translator()
    assert format_name(LibraryFormat.ARXIV_IDS).text(t) == "⟦arXiv ids⟧"
    assert format_name(LibraryFormat.BIBTEX).text(t) == "BibTeX"


def test_numbers_are_written_in_the_readers_digits() -> None:
    german = Translator("de", gettext.NullTranslations())
    too_large = library.too_large(8_500_000)
    assert too_large is not None
    assert "8,5" in too_large.problem.text(german) and "8.5" in too_large.message
    past = Problem.ngettext(
        "{count} entry past {limit}", "{count} entries past {limit}", 5001, count=5001, limit=5000
    )
    assert past.message == "5,001 entries past 5,000"  # counts, grouped as t.number groups them
    assert past.text(german) == "5.001 entries past 5.000"
    place = BadEntry(Problem.of("line {number}", number=Position(12345)), past).described
    assert place.message == "line 12345: 5,001 entries past 5,000"  # a place: plain digits
    assert place.text(german) == "line 12345: 5.001 entries past 5.000"
    huge = library.too_large(1_234_500_000)
    assert huge is not None and "the file is 1,234.5 MB" in huge.message


def test_a_place_in_a_filter_is_plain_digits_and_a_limit_is_grouped() -> None:
    far = refusal("a " * 600 + "foo:bar", QueryLimits(max_length=5000, max_terms=1000))
    assert far.problem.message.endswith("or src: at 1201")
    long = refusal("a" * 1500, QueryLimits(max_length=1200))
    assert long.problem.message == "filter too long (1,500 characters, at most 1,200)"
