"""Composition: ledger rows, papers and a chat's filters turned into items (which paper, which
filters as /list numbers them, which words to mark), and the wording around a digest."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime

import pytest

from bot.core.buttons import more_button
from bot.core.chat import Delivery, Filter
from bot.core.compose import (
    FilterMarks,
    Layout,
    Outgoing,
    Waiting,
    compose_digest,
    digest_title,
    empty_digest_line,
    messages_with_rows,
)
from bot.core.highlight import Highlight, merge_highlights
from bot.core.paper import Paper
from bot.core.query import FilterRules, QueryLimits
from bot.core.render import (
    Item,
    MatchedFilter,
    Message,
    digest_order,
    rank,
)

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)
CHAT = 7
KV = Paper(title="KV-cache for looped models", abstract="Looped models share a cache.", source="t")
MAMBA = Paper(title="Mamba in depth", abstract="A state space model.", source="t")
PAPERS = {1: KV, 2: MAMBA}
LOOPED, KV_CACHE, STATE = (
    Filter(10, CHAT, "looped", "looped", NOW),
    Filter(20, CHAT, "KV-cache", '"kv cache"', NOW),
    Filter(30, CHAT, '"state space"', '"state space"', NOW),
)
LOOPED_MODELS = Filter(40, CHAT, "Looped-models", '"looped models"', NOW)


def row(row_id: int, paper_id: int, *filter_ids: int, revision: int = 0) -> Delivery:
    return Delivery(row_id, CHAT, paper_id, revision, list(filter_ids), "pending", None, None, NOW)


def compose(rows: list[Delivery], filters: list[Filter]) -> list[tuple[Item, list[Delivery]]]:
    return Waiting(rows, PAPERS, filters, FilterMarks(FilterRules().parse))


def test_one_item_per_paper_with_the_rows_it_settles() -> None:
    rows = [row(1, 1, 10), row(2, 2, 30), row(3, 1, 20, revision=2)]
    items = compose(rows, [LOOPED, KV_CACHE, STATE])
    assert [(item.paper, settled) for item, settled in items] == [
        (KV, [rows[0], rows[2]]),
        (MAMBA, [rows[1]]),
    ]


def test_filters_are_numbered_as_list_shows_them_and_a_removed_one_is_named() -> None:
    rows = [row(1, 1, 20, 10, 99)]
    [(item, _)] = compose(rows, [STATE, LOOPED, KV_CACHE])  # /list: 1 state, 2 looped, 3 kv
    assert item.filters == [
        MatchedFilter(2, "looped"),
        MatchedFilter(3, '"kv cache"'),
        MatchedFilter(0, "a filter since removed"),
    ]


def test_the_marks_of_every_matched_filter_are_merged() -> None:
    rows = [row(1, 1, 10, 40), row(2, 1, 20, revision=2)]
    [(item, _)] = compose(rows, [LOOPED, KV_CACHE, LOOPED_MODELS])
    # title: "KV-cache" (0-8) by one filter, "looped" (13-19) inside "looped models" (13-26) of
    # two others; abstract: "Looped" (0-6) inside "Looped models" (0-13)
    assert item.marks == [
        Highlight("title", 0, 8),
        Highlight("title", 13, 26),
        Highlight("abstract", 0, 13),
    ]


def test_a_removed_filter_marks_nothing() -> None:
    [(item, _)] = compose([row(1, 1, 99)], [LOOPED])
    assert (item.filters, item.marks) == ([MatchedFilter(0, "a filter since removed")], [])


@pytest.mark.parametrize(
    ("revisions", "is_update"),
    [((0,), False), ((2,), True), ((2, 3), True), ((0, 2), False)],
)
def test_an_item_is_an_update_only_when_all_its_rows_are(
    revisions: tuple[int, ...], is_update: bool
) -> None:
    rows = [row(n, 1, 10, revision=r) for n, r in enumerate(revisions, 1)]
    [(item, _)] = compose(rows, [LOOPED])
    assert item.is_update is is_update


def test_filter_marks_are_the_words_a_filter_matched() -> None:
    marks = FilterMarks(FilterRules().parse)
    assert marks.of("looped", KV) == (Highlight("title", 13, 19), Highlight("abstract", 0, 6))
    assert marks.of("looped", MAMBA) == ()
    assert marks.of("loop*", KV) == marks.of("loop* -mamba", KV)  # a prefix found once a text


@pytest.mark.parametrize(
    ("rules", "source"),
    [
        (FilterRules(), "foo:bar"),  # an unknown field
        (FilterRules(QueryLimits(max_terms=1)), "looped models"),  # over a lowered limit
    ],
)
def test_a_filter_the_parser_refuses_marks_nothing(rules: FilterRules, source: str) -> None:
    assert FilterMarks(rules.parse).of(source, KV) == ()


def test_each_message_carries_the_rows_of_its_items() -> None:
    items = compose([row(1, 1, 10), row(2, 2, 30), row(3, 1, 20, revision=2)], [LOOPED, STATE])
    messages = [Message("first", [1]), Message("second", [0])]
    assert messages_with_rows(messages, items) == [
        Outgoing("first", [row(2, 2, 30)]),
        Outgoing("second", [row(1, 1, 10), row(3, 1, 20, revision=2)]),
    ]


@pytest.mark.parametrize(
    ("today", "announced", "title"),
    [
        (date(2026, 10, 2), [], "Your digest, 2 Oct 2026"),
        (date(2027, 1, 31), [None], "Your digest, 31 Jan 2027"),  # undated listings
        (
            date(2026, 10, 22),
            [date(2026, 1, 20), None],
            "Your digest: the 20 Jan 2026 announcement",
        ),
        (
            date(2026, 10, 22),
            [date(2026, 10, 21), date(2026, 10, 19), date(2026, 10, 21)],
            "Your digest: announcements of 19 Oct to 21 Oct 2026",
        ),
    ],
)
def test_digest_title_names_the_announcement(
    today: date, announced: list[date | None], title: str
) -> None:
    assert digest_title(today, announced) == title


@pytest.mark.parametrize(
    ("arrived", "line"),
    [
        (0, "No announcement since the last digest: no new listing arrived."),
        (1, "Nothing matched your filters among 1 new paper since the last digest."),
        (37, "Nothing matched your filters among 37 new papers since the last digest."),
    ],
)
def test_empty_digest_line_says_why(arrived: int, line: str) -> None:
    assert empty_digest_line(arrived) == line


WORDS = ("cache", "looped", "mamba", "state", "space", "model", "kv", "depth", "agent", "token")


def many_filter_chat() -> tuple[dict[int, Paper], list[Filter], list[Delivery]]:
    """A chat of 12 filters and 90 papers, each matched by one to three of them, whose titles
    and abstracts hold the filters' words from none to many times."""
    rng = random.Random(5)
    papers = {
        n: Paper(
            title=" ".join(rng.choices(WORDS, k=rng.randint(2, 6))),
            abstract=" ".join(rng.choices(WORDS, k=rng.randint(5, 40))),
            source="t",
        )
        for n in range(1, 91)
    }
    sources = [*WORDS, '"state space"', "kv*"]
    filters = [Filter(100 + n, CHAT, s, s, NOW) for n, s in enumerate(sources)]
    rows = [
        row(n, n, *sorted(f.id for f in rng.sample(filters, rng.randint(1, 3)))) for n in papers
    ]
    return papers, filters, rows


@pytest.mark.parametrize("ranked", [False, True])
def test_a_digest_makes_only_the_items_its_order_needs_and_says_the_same(ranked: bool) -> None:
    papers, filters, rows = many_filter_chat()
    marks = FilterMarks(FilterRules().parse)
    # ties of score are broken by the marks
    scores = {r.paper_id: (float(r.paper_id % 4), ("kv",)) for r in rows} if ranked else None
    marked = list(Waiting(rows, papers, filters, marks, scores))  # every item made
    sources = {f.id: f.source for f in filters}
    for item, settled in marked:  # each filter's marks, merged
        each = [marks.of(sources[f], item.paper) for r in settled for f in r.filter_ids]
        assert item.marks == merge_highlights(h for found in each for h in found)
    order = digest_order([item for item, _ in marked])  # every paper marked and ordered
    unmade = Waiting(rows, papers, filters, marks, scores)  # ranked as its items would be
    for by_score in (True, False):
        assert [unmade.rank(i, by_score=by_score) for i in range(len(rows))] == [
            rank(item, by_score=by_score) for item, _ in marked
        ]
    assert not any(unmade._made)
    for page in range(1, len(papers) + 1):  # the page ends inside groups and between them
        layout = Layout(page=page)
        waiting = Waiting(rows, papers, filters, marks, scores)
        lazily = compose_digest(waiting, "Your digest", layout)
        assert lazily == compose_digest(marked, "Your digest", layout)
        shown, rest = order[:page], order[page:]
        assert [i for i, item in enumerate(waiting._made) if item] == sorted(shown)
        assert [r for m in lazily for r in m.rows] == [r for i in shown for r in marked[i][1]]
        if not rest:
            continue
        assert sorted(r.id for r in lazily[-1].behind) == sorted(marked[i][1][0].id for i in rest)
        first = rest[digest_order([marked[i][0] for i in rest], by_score=False)[0]]
        more = more_button(marked[first][1][0].id, page + 1, len(rest))
        assert lazily[-1].buttons[-1] == [more]
