"""How FilterIndex files filters (exact, pair, unless, checked) and shares a program between the
filters written the same way, each against the plain reference matcher."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.matcher import AnchorKind, Document, FilterIndex
from bot.core.paper import Paper
from bot.core.query import Node, parse_query
from tests import reference_matcher
from tests.core.test_matcher import assert_agrees, frequencies, paper, step
from tests.threads import race


def paper_with(
    title: str, abstract: str = "", authors: tuple[str, ...] = (), categories: tuple[str, ...] = ()
) -> Paper:
    return Paper(
        title=title, abstract=abstract, source="test", authors=authors, categories=categories
    )


PAPERS = [
    paper_with("Diffusion models", "with a kv cache", ("Ann Lee",), ("cs.CV",)),
    paper_with("Graph diffusion", "no cache at all", ("Hamed Hassani",), ("cs.LG", "math.NA")),
    paper_with("Distillation of language models", "diffusion", ("Lee Chen",), ("cs.CL",)),
    paper_with("KV cache compression", "self-distillation of a language model", (), ("cs.CL",)),
    paper_with("Quantum data", "graph", ("Ann Lee",), ("quant-ph",)),
]
# Common terms (cache's is cach): a filter is anchored on its rarest part.
FREQUENCY = {"cach": 0.9, "diffusion": 0.8, "model": 0.9}

WAYS = [
    # exact: the anchors decide
    ("diffusion", "exact"),
    ('"kv cache"', "exact"),
    ("cat:cs.CL", "exact"),
    ("cat:math", "exact"),
    ("distill*", "exact"),
    ("ti:distill*", "exact"),
    ("au:lee*", "exact"),
    ("au:Hassani", "exact"),
    ("diffusion OR ti:cache", "exact"),
    # pair: two exact parts
    ("diffusion graph", "pair"),
    ('"kv cache" diffusion', "pair"),
    ("cat:cs.CL diffusion", "pair"),
    ("ti:cache au:lee", "pair"),
    ("(graph OR quantum) diffusion", "pair"),
    ("distill* cache", "pair"),  # anchored on the prefix: cache is common
    # unless: an exact part without another
    ("diffusion -graph", "unless"),
    ('"kv cache" -"language model"', "unless"),
    ("diffusion -cat:cs.CL", "unless"),
    ("diffusion -cat:math", "unless"),  # either of its keys excludes
    ("diffusion -distill*", "unless"),  # a prefix excludes as well
    ("diffusion -ti:distill*", "unless"),
    ("diffusion -(graph OR quantum)", "unless"),
    ("diffusion -graph -quantum", "unless"),
    ("cache -cache", "unless"),  # never matches
    # checked: anything else
    ("abs:diffusion", "checked"),
    ("diffusion graph quantum", "checked"),
    ('"kv cache compression"', "checked"),
    ("self-distill*", "checked"),
    ("graph cache*", "checked"),  # a prefix as the second part of a pair
    ("ti:diffusion -abs:cache", "checked"),
]


def expected(source: str) -> list[bool]:
    return [reference_matcher.matches(parse_query(source), p) for p in PAPERS]


@pytest.mark.parametrize(("source", "way"), WAYS)
def test_each_way_finds_what_the_reference_finds(source: str, way: str) -> None:
    index = FilterIndex(FREQUENCY)
    index.add(1, parse_query(source))
    assert index.filed_as(1) == way
    assert [hits == [1] for hits in index.match(PAPERS)] == expected(source)


@pytest.mark.parametrize(("source", "way"), WAYS)
def test_a_filter_many_people_wrote_is_filed_once_and_matches_for_each(
    source: str, way: str
) -> None:
    index = FilterIndex(FREQUENCY)
    index.add(0, parse_query("quantum"))  # another filter, to stay where it is
    for filter_id in (3, 1, 2):
        index.add(filter_id, parse_query(source))
    assert index.distinct() == 2 and len(index) == 4
    matched = expected(source)
    assert [[f for f in hits if f] for hits in index.match(PAPERS)] == [
        [1, 2, 3] if hit else [] for hit in matched
    ]

    index.remove(2)  # one owner leaves: the others keep matching
    assert [[f for f in hits if f] for hits in index.match(PAPERS)] == [
        [1, 3] if hit else [] for hit in matched
    ]
    index.remove(1)
    index.remove(3)  # the last one: the program goes
    assert index.distinct() == 1
    assert index.match(PAPERS) == [[], [], [], [], [0]]
    assert index.postings() == {(AnchorKind.TEXT_TERM, "quantum"): [0]}


def test_the_same_program_written_otherwise_is_shared() -> None:
    index = FilterIndex()
    index.add(1, parse_query("diffusion -graph"))
    index.add(2, parse_query("Diffusions  -Graphs"))  # folded to the same terms
    index.add(3, parse_query("diffusion AND NOT graph"))
    index.add(4, parse_query("graph diffusion"))
    index.add(5, parse_query("diffusion graph"))  # an AND's words are a set
    assert index.distinct() == 2
    assert index.match(PAPERS) == [[1, 2, 3], [4, 5], [1, 2, 3], [], []]


def test_a_filter_added_again_under_its_id_moves_to_its_new_program() -> None:
    index = FilterIndex()
    index.add(1, parse_query("diffusion"))
    index.add(2, parse_query("diffusion"))
    index.add(1, parse_query("graph"))
    assert index.distinct() == 2
    assert index.match(PAPERS) == [[2], [1, 2], [2], [], [1]]


def test_reanchored_filters_keep_their_owners() -> None:
    index = FilterIndex({"diffusion": 0.5, "graph": 0.01})
    for filter_id in (1, 2):
        index.add(filter_id, parse_query("diffusion graph"))
    index.add(3, parse_query("diffusion -graph"))
    before = index.match(PAPERS)
    assert index.reanchor({"diffusion": 0.01, "graph": 0.9}) == 2  # both owners moved
    assert index.match(PAPERS) == before == [[3], [1, 2], [3], [], []]


def test_exclusions_are_filed_where_they_exclude() -> None:
    """An unless-filter is listed under its first part; its second part's key holds only the
    exclusion, which postings() does not list."""
    index = FilterIndex(FREQUENCY)
    index.add(1, parse_query("graph -cat:cs.LG"))
    assert index.filed_as(1) == "unless"
    assert list(index.postings().values()) == [[1]]
    assert index.match(PAPERS) == [[], [], [], [], [1]]
    index.remove(1)
    assert index.postings() == {} and index.distinct() == 0


# Filters of every way, drawn from a few, so that many filters share a program.
POOL = [source for source, _ in WAYS] + ["model", "kv -self", "au:lee model", "cat:cs.* kv"]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["add", "add", "add", "remove", "remove", "match", "reanchor"]),
            st.sampled_from(POOL),
            st.integers(0, 12),
            frequencies,
        ),
        min_size=1,
        max_size=40,
    ),
    st.lists(paper, min_size=1, max_size=4),
)
def test_shared_programs_kept_in_step_agree_with_the_reference(
    steps: list[tuple[str, str, int, dict[str, float]]], papers: list[Paper]
) -> None:
    index = FilterIndex()
    live: dict[int, Node] = {}
    for action, source, number, frequency in steps:
        step(index, live, action, source, number, frequency)
        assert_agrees(index, live, papers + PAPERS)
    for number in list(live):
        index.remove(number)
    assert index.postings() == {} and len(index) == 0 and index.distinct() == 0


def test_threads_that_match_first_after_changes_agree() -> None:
    """The first matches after filters changed make the shelves' arrays again, in whichever
    threads run them at once."""
    docs = [Document(p) for p in PAPERS]
    reference = FilterIndex(FREQUENCY)
    for number, source in enumerate(POOL):
        reference.add(number, parse_query(source))
    wanted = [reference.match_document(doc) for doc in docs]
    for _ in range(20):
        index = FilterIndex(FREQUENCY)
        for number, source in enumerate(POOL):
            index.add(number, parse_query(source))
        check = index.match_document
        assert race(lambda i, check=check: check(docs[i]) == wanted[i], len(docs), 1) == []
