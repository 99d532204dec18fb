"""Composition: ledger rows, papers and a chat's filters turned into items (which paper, which
filters as /list numbers them, which words to mark), and the wording around a digest."""

from __future__ import annotations

import gettext
import random
import re
from collections.abc import Callable
from datetime import UTC, date, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.chat import Delivery, Filter
from bot.core.compose import (
    FilterMarks,
    Layout,
    Made,
    Matches,
    Outgoing,
    compose_digest,
    compose_page,
    digest_title,
    empty_digest_line,
    messages_with_rows,
    rank,
)
from bot.core.highlight import Highlight, merge_highlights
from bot.core.i18n import Translator
from bot.core.paper import Paper
from bot.core.query import FilterRules, QueryLimits
from bot.core.render import MatchedFilter, Message

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


def compose(rows: list[Delivery], filters: list[Filter]) -> Matches:
    return Matches(rows, PAPERS, filters, FilterMarks(FilterRules().compile))


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
    marks = FilterMarks(FilterRules().compile)
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
    assert FilterMarks(rules.compile).of(source, KV) == ()


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
    ("announced", "title"),
    [
        ([], "Your weekly digest, 7 Dec 2026"),
        ([date(2026, 12, 3), None], "Your weekly digest: the 3 Dec 2026 announcement"),
        (
            [date(2026, 12, 4), date(2026, 12, 1), date(2026, 12, 2)],
            "Your weekly digest: announcements of 1–4 Dec 2026",
        ),
        (
            [date(2026, 11, 30), date(2026, 12, 4)],
            "Your weekly digest: announcements of 30 Nov – 4 Dec 2026",
        ),
        (
            [date(2027, 1, 1), date(2026, 12, 29)],
            "Your weekly digest: announcements of 29 Dec 2026 – 1 Jan 2027",
        ),
    ],
)
def test_weekly_digest_title_names_the_days_covered(
    announced: list[date | None], title: str
) -> None:
    assert digest_title(date(2026, 12, 7), announced, weekly=True) == title


@pytest.mark.parametrize(
    ("announced", "weekly", "title"),
    [
        ([date(2026, 12, 4)], False, "Your digest: the 4. Dez. 2026 announcement"),
        (
            [date(2026, 11, 30), date(2026, 12, 4)],
            False,
            "Your digest: announcements of 30. Nov. to 4. Dez. 2026",
        ),
        (
            [date(2026, 12, 1), date(2026, 12, 4)],
            True,
            "Your weekly digest: announcements of 1.–4. Dez. 2026",
        ),
        (  # Babel's German interval: thin spaces around the dash
            [date(2026, 12, 29), date(2027, 1, 1)],
            True,
            "Your weekly digest: announcements of 29. Dez. 2026\u2009–\u20091. Jan. 2027",
        ),
    ],
)
def test_a_digest_title_names_days_as_the_readers_language_does(
    announced: list[date], weekly: bool, title: str
) -> None:
    german = Translator("de", gettext.NullTranslations())  # the messages English, the days German
    assert digest_title(date(2026, 12, 7), announced, weekly=weekly, t=german) == title


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
    marks = FilterMarks(FilterRules().compile)
    # ties of score are broken by the marks
    scores = {r.paper_id: (float(r.paper_id % 4), ("kv",)) for r in rows} if ranked else None
    marked = list(Matches(rows, papers, filters, marks, scores))  # every item made
    sources = {f.id: f.source for f in filters}
    for item, settled in marked:  # each filter's marks, merged
        each = [marks.of(sources[f], item.paper) for r in settled for f in r.filter_ids]
        assert item.marks == merge_highlights(h for found in each for h in found)
    unmade = Matches(rows, papers, filters, marks, scores)  # ranked as its items would be
    for by_score in (True, False):
        assert [unmade.rank(i, by_score=by_score) for i in range(len(rows))] == [
            rank(item, by_score=by_score) for item, _ in marked
        ]
    assert not any(unmade._made)
    for page in range(1, len(papers) + 1):  # the page ends inside groups and between them
        layout = Layout(page=page)
        waiting = Matches(rows, papers, filters, marks, scores)
        lazily = compose_digest(waiting, "Your digest", layout)
        assert lazily == compose_digest(Made(marked), "Your digest", layout)
        shown = [r.paper_id for m in lazily for r in m.rows]
        assert len(shown) == min(page, len(papers))
        made = [waiting.rows[i][0].paper_id for i, item in enumerate(waiting._made) if item]
        assert sorted(made) == sorted(shown)  # only the papers shown were made
        behind = [r.paper_id for r in lazily[-1].behind]
        assert sorted(shown + behind) == sorted(papers)


def papers_of(outgoing: list[Outgoing]) -> list[int]:
    """The papers the messages carry, in order, each once (a paper may settle two rows)."""
    return list(dict.fromkeys(r.paper_id for m in outgoing for r in m.rows))


def page_through(
    outgoing: list[Outgoing],
    papers: dict[int, Paper],
    filters: list[Filter],
    layout: Layout,
    rescore: Callable[[int], dict[int, tuple[float, tuple[str, ...]]] | None],
) -> list[list[int]]:
    """The papers of each page a reader opens, pressing "more" until there is none; before each
    press the chat's scores change (`rescore(press)`), as ratings between pages would."""
    pages = [papers_of(outgoing)]
    behind = outgoing[-1].behind
    press = outgoing[-1].buttons[-1][0].data if behind else ""
    while press.startswith("more:"):
        row_id, number = (int(part) for part in press.split(":")[1:])
        marks = FilterMarks(FilterRules().compile)
        items = Matches(behind, papers, filters, marks, rescore(len(pages)))
        page = compose_page(items, "Your digest", layout, row_id=row_id, number=number)
        pages.append(papers_of(page))
        assert number == 1 + sum(len(p) for p in pages[:-1])
        press = page[-1].buttons[-1][0].data if page[-1].buttons else ""
    return pages


def chat_of(
    sizes: list[int], also: Callable[[list[Filter]], set[Filter]] = lambda _: set()
) -> tuple[dict[int, Paper], list[Filter], list[Delivery]]:
    """A chat whose filter n matches sizes[n] papers first (each paper also matched by the
    filters `also` picks); every third paper has a pending new version too (a second row)."""
    filters = [Filter(100 + n, CHAT, f"f{n}", f"f{n}", NOW) for n in range(len(sizes))]
    papers: dict[int, Paper] = {}
    rows = []
    for n, size in enumerate(sizes):
        for _ in range(size):
            paper_id = len(papers) + 1
            papers[paper_id] = Paper(title=f"paper {paper_id}", abstract="words", source="t")
            ids = sorted({filters[n].id, *(f.id for f in also(filters[n:]))})
            rows.append(row(paper_id, paper_id, *ids))
            if paper_id % 3 == 0:
                rows.append(row(10_000 + paper_id, paper_id, *ids, revision=2))
    return papers, filters, rows


@st.composite
def chats(draw: st.DrawFn) -> tuple[dict[int, Paper], list[Filter], list[Delivery], int, dict]:
    """A chat of 1-8 filters, each first to match 1-60 papers (some matched by later ones
    too), page sizes 5-100, scores with many ties, or none."""
    sizes = draw(st.lists(st.integers(1, 60), min_size=1, max_size=8))
    papers, filters, rows = chat_of(
        sizes, lambda later: draw(st.sets(st.sampled_from(later), max_size=2))
    )
    page = draw(st.integers(5, 100))
    scores = draw(st.none() | st.just({p: (float(p % 3), ("w",)) for p in papers}))
    return papers, filters, rows, page, scores or {}


@settings(max_examples=100, deadline=None)
@given(chat=chats(), seed=st.integers(0, 1000))
def test_pages_add_up_to_the_header_in_an_order_fixed_at_composing(chat, seed: int) -> None:
    papers, filters, rows, page, scores = chat
    layout = Layout(page=page)
    marks = FilterMarks(FilterRules().compile)
    outgoing = compose_digest(Matches(rows, papers, filters, marks, scores), "Your digest", layout)
    count = int(re.search(r"(\d+) new papers?", outgoing[0].text)[1])
    rng = random.Random(seed)

    def rated(press: int) -> dict[int, tuple[float, tuple[str, ...]]]:  # ratings between pages
        return {p: (rng.choice([0.0, 1.0, -1.0]), ("w",)) for p in papers}

    pages = page_through(outgoing, papers, filters, layout, rated)
    listed = [p for shown in pages for p in shown]
    assert count == len(papers) == len(listed) == len(set(listed))  # each once, none lost
    first = {min(r.filter_ids) for r in rows if r.paper_id in pages[0]}
    if len(filters) <= page:  # every filter on the first page
        assert first == {f.id for f in filters}
    assert all(len(shown) == page for shown in pages[:-1])
    behind = [r.paper_id for r in outgoing[-1].behind]
    assert listed[len(pages[0]) :] == list(dict.fromkeys(behind))  # in the order stored


def test_the_first_page_shows_every_filter_before_a_broad_one_fills_it() -> None:
    """A broad filter first in /list (35 papers), narrow ones after it (4, 2, 1): each narrow
    one has papers on the first page, and the header says where each filter's papers are."""
    papers, filters, rows = chat_of([35, 4, 2, 1])
    group = {r.paper_id: r.filter_ids[0] - 100 for r in rows}

    def first_page(page: int) -> tuple[list[int], str]:
        waiting = Matches(rows, papers, filters, FilterMarks(FilterRules().compile))
        outgoing = compose_digest(waiting, "Your digest", Layout(page=page))
        return [group[p] for p in papers_of(outgoing)], outgoing[0].text

    shown, text = first_page(30)
    assert [shown.count(g) for g in range(4)] == [23, 4, 2, 1]
    assert "f0 (filter 1): 35 (#1–23) · f1 (filter 2): 4 (#24–27)" in text
    shown, text = first_page(10)
    assert [shown.count(g) for g in range(4)] == [4, 3, 2, 1]  # 2 each, then in turn
    shown, text = first_page(3)  # fewer places than filters: one each, in /list order
    assert shown == [0, 1, 2]
    assert "f3 (filter 4): 1 (behind the button)" in text


def test_the_header_counts_a_paper_under_every_filter_and_closes_quotes() -> None:
    """A paper matched by a keyword filter and a "more like this" filter counts under both; a
    long name cut inside its quote gets the quote back."""
    like = Filter(
        50, CHAT, "like:2605.25077", 'like "WorldCraft: From Camera Control to Worlds"', NOW
    )
    rows = [row(1, 1, 10, 50), row(2, 2, 30)]
    outgoing = compose_digest(compose(rows, [LOOPED, STATE, like]), "Your digest", Layout())
    header = outgoing[0].text.split("\n")[1]
    assert header == (
        'looped (filter 1): 1 (#1) · "state space" (filter 2): 1 (#2) · '
        'like "WorldCraft: From Camera Control…" (filter 3): 1 (listed under other filters)'
    )


def test_the_best_five_say_why_even_below_even_odds() -> None:
    """Three 👍 give log-odds below zero for most papers (real days: 0-2 of a filter's papers
    above): the best five with terms to show say why all the same; a paper without terms not."""
    rows = [row(n, n, 10) for n in range(1, 9)]
    papers = {n: Paper(title=f"paper {n}", abstract="looped", source="t") for n in range(1, 9)}
    scores = {n: (-1.0 - n / 10, ("looped",) if n != 2 else ()) for n in range(1, 9)}
    waiting = Matches(rows, papers, [LOOPED], FilterMarks(FilterRules().compile), scores)
    why = {item.paper.title: bool(item.why) for item, _ in waiting}
    assert [title for title, said in why.items() if said] == [f"paper {n}" for n in (1, 3, 4, 5, 6)]


def test_a_removed_filter_is_named_without_a_number_in_the_header() -> None:
    rows = [row(1, 1, 10), row(2, 2, 99)]  # filter 99 was removed since
    outgoing = compose_digest(compose(rows, [LOOPED]), "Your digest", Layout())
    header = outgoing[0].text.split("\n")[1]
    assert header == "looped (filter 1): 1 (#1) · a filter since removed: 1 (#2)"
