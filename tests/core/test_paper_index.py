"""PaperIndex: a filter's matches among papers filed by key agree with `matches` on each paper,
for filters of every shape, as papers come, are replaced by newer versions and leave the window."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.matcher import PaperIndex, matches
from bot.core.matcher.paper_index import MERGE_AT
from bot.core.paper import Paper
from bot.core.query import And, InvalidQuery, Node, Not, Or, Word, parse_query
from tests.core.test_matcher import paper, query, seed_papers

DAYS = [date(2026, 10, day) for day in (19, 20, 21, 22)]

# Filters of every way the index answers: exact (a word, a phrase of two, a prefix, a category,
# an OR of them), pairs and unless-filters decided by keys, checked ones (longer phrases, the
# abstract alone, three words, a phrase ending in a prefix).
FILTERS = [
    "distillation", '"kv cache"', "distill*", "ti:agent*", "cat:cs.CL", "cat:cs.*", "cat:math",
    "au:Hassani", 'au:"Ann Lee"', "au:lee*", "diffusion OR quantum", '"language model" reasoning',
    "cat:cs.LG cache", "medical -embedding", "model -model", '"large language models"',
    "abs:cache", 'abs:"kv cache"', "ti:cache", "graph language model", "fine-tun*",
    "self-distill*", "(distillation -self) OR kv", "(model -graph) OR (cache -kv)",
    '"kv cache" -(cat:cs.LG OR au:lee*)', "ti:kv-cach*", "abs:self-distill*",
]  # fmt: skip


def parsed(sources: list[str]) -> list[Node]:
    """The filters the parser reads (generated ones may be refused)."""
    found = []
    for source in sources:
        try:
            found.append(parse_query(source))
        except InvalidQuery:
            continue
    return found


def expected(node: Node, papers: dict[int, Paper]) -> dict[int, Paper]:
    return {i: p for i, p in sorted(papers.items()) if matches(node, p)}


@pytest.mark.parametrize("source", FILTERS)
def test_the_seed_papers_are_found_as_matches_finds_them(source: str) -> None:
    papers = dict(enumerate(seed_papers(), 1))
    index = PaperIndex().updated(papers.items(), start=date.min)  # every day
    node = parse_query(source)
    assert index.matching(node) == expected(node, papers)


# Filters without an anchor, which the parser refuses (every filter it reads needs a word
# present) but the index answers all the same, by checking every paper.
KV, DISTILLATION = (Word(t, ("title", "abstract"), 0, t) for t in ("kv", "distillation"))
UNANCHORED = [
    Not(KV, 0),
    Or((DISTILLATION, Not(KV, 0)), 0),
    And((Not(KV, 0), Not(DISTILLATION, 0)), 0),
]


@pytest.mark.parametrize("node", UNANCHORED)
def test_a_filter_without_an_anchor_is_checked_on_every_paper(node: Node) -> None:
    papers = dict(enumerate(seed_papers(), 1))
    index = PaperIndex().updated(papers.items(), start=date.min)
    found = index.matching(node)
    assert found == expected(node, papers) and 0 < len(found) < len(papers)


dated = st.builds(
    lambda p, day: p.with_changes(announced=day), paper, st.sampled_from([*DAYS, None])
)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(query, min_size=1, max_size=6),
    st.lists(dated, min_size=1, max_size=8),
    st.sampled_from([*DAYS, None]),
)
def test_matching_agrees_with_matches_on_every_paper_in_the_window(
    sources: list[str], papers: list[Paper], start: date | None
) -> None:
    index = PaperIndex().updated(enumerate(papers, 1), start=start)
    window = {i: p for i, p in enumerate(papers, 1) if in_window(p, start)}
    for node in parsed(sources):
        assert index.matching(node) == expected(node, window)


def in_window(paper: Paper, start: date | None) -> bool:
    return paper.announced is None or (start is not None and paper.announced >= start)


# A run of changes: papers stored (new ids), and newer versions of papers held (an undated
# paper may get a date, a dated one keeps its own); the window is the last `days` dates among
# the papers stored, as the database gives it.
change = st.one_of(
    st.lists(dated, min_size=1, max_size=3).map(lambda papers: ("store", papers)),
    st.lists(st.tuples(st.integers(1, 12), dated), max_size=3).map(lambda new: ("replace", new)),
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(change, min_size=1, max_size=8),
    st.integers(1, 3),
    st.lists(query, min_size=1, max_size=4),
)
def test_an_index_brought_up_to_date_agrees_with_matches_on_the_window(
    changes: list[tuple[str, list]], days: int, sources: list[str]
) -> None:
    index, stored = PaperIndex(), dict[int, Paper]()
    for what, given_ in changes:
        if what == "store":
            batch = [(len(stored) + n, p) for n, p in enumerate(given_, 1)]
        else:
            batch = [(i, newer(stored[i], p)) for i, p in given_ if i in stored]
        stored.update(batch)
        index = index.updated(batch, start=window_start(stored.values(), days))
    start = window_start(stored.values(), days)
    window = {i: p for i, p in sorted(stored.items()) if in_window(p, start)}
    assert index.papers() == window
    for node in parsed(sources):
        assert index.matching(node) == expected(node, window)


def newer(held: Paper, version: Paper) -> Paper:
    return version.with_changes(announced=held.announced or version.announced)


def window_start(papers: Iterable[Paper], days: int) -> date | None:
    dates = sorted({p.announced for p in papers if p.announced}, reverse=True)[:days]
    return min(dates, default=None)


def test_a_day_stored_a_paper_at_a_time_is_merged_and_its_older_versions_dropped() -> None:
    papers = dict(enumerate(seed_papers(), 1))
    index = PaperIndex()
    for paper_id, item in papers.items():  # one segment each, merged every MERGE_AT
        index = index.updated([(paper_id, item.with_changes(announced=DAYS[0]))], start=DAYS[0])
    newer = {i: p.with_changes(title="Newer version", announced=DAYS[0]) for i, p in papers.items()}
    for paper_id, item in newer.items():
        index = index.updated([(paper_id, item)], start=DAYS[0])
    assert index.segments <= MERGE_AT
    assert index.papers() == newer
    for source in FILTERS + ["ti:newer", '"newer version"']:
        node = parse_query(source)
        assert index.matching(node) == expected(node, newer)


def test_a_day_leaving_the_window_takes_its_papers_and_an_undated_one_stays() -> None:
    first, second, undated = (
        p.with_changes(announced=day)
        for p, day in zip(seed_papers()[:3], [*DAYS[:2], None], strict=True)
    )
    index = PaperIndex().updated([(1, first), (2, second), (3, undated)], start=DAYS[0])
    assert list(index.papers()) == [1, 2, 3]
    later = index.updated([], start=DAYS[1])
    assert list(later.papers()) == [2, 3]
    assert list(index.papers()) == [1, 2, 3]  # the earlier index is unchanged: a value
    assert list(later.updated([], start=None).papers()) == [3]
