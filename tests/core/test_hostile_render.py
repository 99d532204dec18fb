"""Hostile papers and filters in every kind of message: an alert, a digest (compact and full), a
later page of a digest, a paper's card. Titles, authors, abstracts, comments, categories, links
and filter names carry `<`, `&`, `</b>`, unbalanced TeX, emoji, right-to-left text, zero-width
characters and 100 KB fields; every message is still HTML that Telegram accepts (checked as the
fake Bot API checks it, tests/telegram_html.py), within 4,096 characters, and every paper is sent.
tests/core/test_render.py holds the layout's literal cases and the first fuzzing."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.chat import Delivery
from bot.core.compose import (
    Layout,
    Made,
    Outgoing,
    compose_alert,
    compose_digest,
    compose_page,
)
from bot.core.highlight import Highlight
from bot.core.paper import AnnounceType, Paper
from bot.core.render import MESSAGE_LIMIT, Item, MatchedFilter, render_fitting, size
from bot.core.states import Status
from tests.growth import assert_linear
from tests.telegram_html import check_message

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)
PIECES = [
    "<", ">", "&", "&amp;", "&lt;", "</b>", "<b>", "</blockquote>", '"', "'", "a", "word ", " ",
    "\\emph{", "$", "}", "{", "\\", "😀", "👍🏽", "שלום ", "مرحبا ", "\u202e", "\u200f", "\u200b",
    "\u200d", "e\u0301", "𝒪", "\n", ". ", "We propose ",
]  # fmt: skip
SHORT = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
HUGE = st.builds(
    lambda piece, times: piece * times, st.sampled_from(PIECES), st.integers(1, 100_000)
)
TEXT = st.one_of(SHORT, SHORT, HUGE)  # a third of the fields are up to 100 KB


@st.composite
def papers(draw: st.DrawFn) -> Paper:
    return Paper(
        title=draw(TEXT) or "t",
        abstract=draw(TEXT),
        source="hostile",
        arxiv_id=draw(st.sampled_from([None, "2610.00001", "hep-th/9901001", "a" * 5000 + "/1"])),
        version=draw(st.sampled_from([None, 2, 10**30])),
        announce_type=draw(st.sampled_from(list(AnnounceType))),
        title_derived=draw(st.booleans()),
        authors=tuple(draw(st.lists(TEXT, max_size=5))),
        more_authors=draw(st.sampled_from([0, -1, 3, 10**12])),
        categories=tuple(
            draw(st.lists(st.sampled_from(["cs.LG", "x" * 50_000, "<b>"]), max_size=4))
        ),
        announced=draw(st.sampled_from([None, date(2026, 10, 22)])),
        link=draw(
            st.sampled_from(
                [None, "https://e.org/a?b=1&c=<2>", '"><b>x', "https://e.org/" + "a" * 100_000]
            )
        ),
        comments=draw(st.one_of(st.none(), TEXT)),
    )


@st.composite
def items(draw: st.DrawFn) -> Item:
    paper = draw(papers())
    marks = []
    for field, text in (("title", paper.title), ("abstract", paper.abstract)):
        points = sorted(draw(st.sets(st.integers(0, len(text)), max_size=8)))
        marks += [Highlight(field, a, b) for a, b in zip(points[::2], points[1::2]) if a < b]  # noqa: B905
    filters = [
        MatchedFilter(n, draw(st.one_of(SHORT, HUGE)) or "f")
        for n in range(draw(st.integers(0, 60)))
    ]
    why = tuple(draw(st.lists(SHORT, max_size=4)))
    return Item(paper, marks, filters, draw(st.booleans()), draw(st.none() | st.floats(-1, 1)), why)


def composed(batch: list[Item]) -> Made:
    return Made(
        [
            (item, [Delivery(n, 1, n, 0, [1], Status.PENDING, None, None, NOW)])
            for n, item in enumerate(batch, 1)
        ]
    )


def assert_sendable(messages: list[Outgoing] | list[str]) -> None:
    for message in messages:
        text = message if isinstance(message, str) else message.text
        assert size(text) <= MESSAGE_LIMIT, size(text)
        assert check_message(text, "HTML") is None, (check_message(text, "HTML"), text[:500])


def assert_every_row_settled(messages: list[Outgoing], batch: Made) -> None:
    settled = sorted(r.id for m in messages for r in [*m.rows, *m.behind])
    assert settled == sorted(rows[0].id for _, rows in batch)


# A quarter of the usual examples a run (each paper may carry 100 KB fields);
# HYPOTHESIS_PROFILE=thorough multiplies them as it does every property test's.
HOSTILE = settings(
    max_examples=max(settings().max_examples // 4, 1),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@HOSTILE
@given(st.lists(items(), min_size=1, max_size=4))
def test_alerts_of_hostile_papers_are_sendable(batch: list[Item]) -> None:
    for layout in (Layout(), Layout(compact=False)):
        messages = compose_alert(composed(batch), layout)
        assert_sendable(messages)
        assert_every_row_settled(messages, composed(batch))


@HOSTILE
@given(item=items())
def test_a_hostile_papers_card_is_sendable(item: Item) -> None:
    assert_sendable([render_fitting(item)])


@HOSTILE
@given(
    batch=st.lists(items(), min_size=1, max_size=8),
    title=TEXT,
    layout=st.builds(Layout, st.booleans(), st.integers(0, 30), st.integers(1, 100)),
)
def test_digests_and_their_pages_of_hostile_papers_are_sendable(
    batch: list[Item], title: str, layout: Layout
) -> None:
    rows = composed(batch)
    messages = compose_digest(rows, title, layout)
    assert_sendable(messages)
    assert_every_row_settled(messages, rows)
    behind = [pair for pair in rows if pair[1][0] in messages[-1].behind]
    if behind:
        first_row = messages[-1].buttons[-1][0].data.split(":")[1]
        page = compose_page(behind, title, layout, row_id=int(first_row), number=layout.page + 1)
        assert_sendable(page)


# -- work that grows with the paper, and no faster ----------------------------------------------

ABSTRACTS = {
    # an abstract of size n (the run number keeps the summaries' cache from answering)
    "a number that never ends": lambda n, run: f"We propose X{run}. It gains " + "1," * n,
    "dotted digits": lambda n, run: f"We propose X{run}. It gains " + "1." * n,
    "we, again and again": lambda n, run: f"X{run} " + "we " * n,
    "this paper, again and again": lambda n, run: f"X{run} " + "this paper " * n,
    "clauses": lambda n, run: f"We propose X{run}, " + "a, " * n,
    "open parentheses": lambda n, run: f"We propose X{run} " + "(" * n,
    "sentences": lambda n, run: f"X{run}. " + "We propose A. It gains 3%. " * n,
    "escapes": lambda n, run: f"X{run} " + "<&>" * n,
}


def card_of(abstract: str) -> str:
    paper = Paper(title="A title", abstract=abstract, source="hostile", arxiv_id="2610.00001")
    marks = [Highlight("abstract", i, i + 1) for i in range(0, min(len(abstract), 1000), 7)]
    return render_fitting(Item(paper, marks, [MatchedFilter(1, "a")]))


@pytest.mark.parametrize("name", ABSTRACTS)
def test_a_card_grows_linearly_with_its_abstract(name: str) -> None:
    """The TL;DR's sentence scoring and the card's cutting, on abstracts shaped to make a
    backtracking pattern or a cut-and-measure loop go quadratic (a number of 1,000 digits
    took 16 times the work of one of 250)."""
    assert_linear(card_of, ABSTRACTS[name], 500, largest=1 << 22)
