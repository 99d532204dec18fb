"""Messages Telegram accepts: valid HTML, never over 4096 characters, whatever the paper says."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.compose import digest_order, first_filter
from bot.core.highlight import Highlight, highlights
from bot.core.paper import AnnounceType, Paper
from bot.core.query import FilterKind, FilterRules
from bot.core.render import (
    MESSAGE_LIMIT,
    Item,
    MatchedFilter,
    Message,
    canonical,
    escape,
    filter_name,
    like_name,
    plural,
    published,
    render_alert,
    render_digest,
    render_entry,
    render_paper,
    short_authors,
    size,
)
from bot.core.telegram_text import split_message, to_plain
from tests.pseudo import pseudo_translator
from tests.telegram_html import check_message


def digest(batch: list[Item], header: str, **layout: Any) -> list[Message]:
    """`render_digest` with each paper under its first filter, as compose lists them."""
    return render_digest(batch, header, [first_filter(item) for item in batch], **layout)


PIECES = [*"<>&\"'ab $\\{}_^é𝒪 \n", "</b>", "&amp;", "<i>", "\\emph{", "<blockquote>"]
HOSTILE = st.lists(st.sampled_from(PIECES), max_size=200).map("".join)


@st.composite
def items(draw: st.DrawFn) -> Item:
    title = draw(HOSTILE.filter(str.strip)).strip() or "t"
    abstract = draw(st.one_of(HOSTILE, st.text(max_size=6000))) or "a"
    marks = []
    for field, text in (("title", title), ("abstract", abstract)):
        points = sorted(draw(st.sets(st.integers(0, len(text)), max_size=6)))
        spans = zip(points[::2], points[1::2], strict=False)
        marks += [Highlight(field, a, b) for a, b in spans if a < b]
    paper = Paper(
        title=title,
        abstract=abstract,
        source="test",
        arxiv_id=draw(st.sampled_from([None, "2610.00001"])),
        authors=tuple(draw(st.lists(HOSTILE, max_size=8))),
        categories=("cs.LG",),
        announced=date(2026, 10, 22),
        title_derived=draw(st.booleans()),
    )
    filters = [MatchedFilter(n, draw(HOSTILE) or "f") for n in range(1, draw(st.integers(1, 3)))]
    return Item(
        paper, sorted(marks, key=lambda m: (m.field, m.start)), filters, draw(st.booleans())
    )


@given(st.lists(items(), min_size=1, max_size=6))
def test_alerts_and_digests_are_valid_telegram_html_within_the_limit(batch: list[Item]) -> None:
    alerts = [render_alert(batch), render_alert(batch, compact=False)]
    for messages in (*alerts, digest(batch, "Your digest, 22 Oct 2026")):
        assert sorted(i for m in messages for i in m.items) == list(range(len(batch)))
        for message in messages:
            assert size(message.text) <= MESSAGE_LIMIT
            assert check_message(message.text, "HTML") is None, message.text


def paper(**changes: object) -> Paper:
    values: dict[str, object] = {
        "title": "BeNice! Closing the Gap",
        "abstract": "We propose BeNice!, a method. It gains 31.4% on <cache> & more.",
        "source": "seed",
        "arxiv_id": "2610.00001",
        "authors": ("Hayden Prairie", "Jacob M. Ryan", "Taylor Berg-Kirkpatrick", "Ann Lee"),
        "categories": ("cs.LG", "cs.CL"),
        "announced": date(2026, 10, 22),
    }
    return Paper(**{**values, **changes})  # type: ignore[arg-type]


def test_a_paper_reads_as_the_design_shows() -> None:
    start = paper().abstract.index("<cache>")
    item = Item(
        paper(), [Highlight("abstract", start, start + 7)], [MatchedFilter(2, '"kv cache"')]
    )
    assert render_paper(item).split("\n") == [
        "<b>BeNice! Closing the Gap</b>",
        "Hayden Prairie, Jacob M. Ryan, Taylor Berg-Kirkpatrick and 1 more · cs.LG cs.CL · "
        "22 Oct 2026",
        "<i>TL;DR:</i> BeNice!, a method. It gains 31.4% on &lt;cache&gt; &amp; more.",
        'matched "kv cache" (filter 2)  ·  <a href="https://arxiv.org/abs/2610.00001">'
        'arxiv.org/abs/2610.00001</a>  ·  <a href="https://arxiv.org/pdf/2610.00001">PDF</a>',
        "<blockquote expandable>We propose BeNice!, a method. It gains 31.4% on "
        "<b>&lt;cache&gt;</b> &amp; more.</blockquote>",
    ]


def test_the_card_names_comments_and_cross_lists_and_quotes_no_empty_abstract() -> None:
    item = Item(
        paper(
            abstract="",
            comments="Accepted at ICLR 2026; code: https://github.com/x/benice",
            announce_type=AnnounceType.CROSS,
            version=3,
        ),
        [],
        [MatchedFilter(1, "benice")],
        is_update=True,
    )
    assert render_paper(item).split("\n") == [
        "<b>Updated (v3): BeNice! Closing the Gap</b>",
        "Hayden Prairie, Jacob M. Ryan, Taylor Berg-Kirkpatrick and 1 more · cs.LG cs.CL · "
        "cross-list · 22 Oct 2026",
        "<i>Comments:</i> Accepted at ICLR 2026; code: https://github.com/x/benice",
        'matched benice (filter 1)  ·  <a href="https://arxiv.org/abs/2610.00001">'
        'arxiv.org/abs/2610.00001</a>  ·  <a href="https://arxiv.org/pdf/2610.00001">PDF</a>',
    ]


def test_a_paper_too_long_for_one_message_gets_a_shortened_abstract() -> None:
    long = paper(abstract="word " * 2000)
    [message] = render_alert([Item(long, [], [MatchedFilter(1, "word")])], compact=False)
    assert size(message.text) <= MESSAGE_LIMIT and "…</blockquote>" in message.text
    assert "arxiv.org/abs/2610.00001" in message.text


def test_a_digest_groups_by_filter_best_first_with_a_count() -> None:
    abstract_hit = Item(
        paper(title="Abstract hit"), [Highlight("abstract", 0, 2)], [MatchedFilter(1, "a")]
    )
    title_hit = Item(paper(title="Title hit"), [Highlight("title", 0, 5)], [MatchedFilter(1, "a")])
    other = Item(paper(title="Other"), [], [MatchedFilter(2, "b"), MatchedFilter(1, "a")])
    later = Item(paper(title="Later"), [], [MatchedFilter(2, "b")])
    batch = [abstract_hit, title_hit, other, later]
    # under filter 1: the title hit, then the paper both filters matched
    assert digest_order(batch) == [1, 2, 0, 3]
    assert digest_order([later, title_hit]) == [1, 0]  # a subset keeps its relative order
    [message] = digest([batch[i] for i in digest_order(batch)], "<b>Your digest</b>")
    text = message.text
    assert text.startswith("<b>Your digest</b>\n\n<b>a (filter 1)</b>: 3 papers")
    order = [text.index(t) for t in ("<b>a (filter 1)</b>: 3 papers", "<u>Title</u> hit",
                                     "Other", "Abstract hit", "<b>b (filter 2)</b>: 1 paper",
                                     "Later")]  # fmt: skip
    assert order == sorted(order)


def test_authors_are_shortened_and_plain_text_keeps_the_marks() -> None:
    assert short_authors(paper(authors=("A", "B"))) == "A, B"
    assert short_authors(paper(authors=("A",), more_authors=-1)) == "A et al."
    item = Item(paper(), [Highlight("title", 0, 6), Highlight("abstract", 3, 10)], [])
    plain = to_plain(render_paper(item))
    assert plain.startswith("**BeNice**! Closing the Gap") and "We **propose** BeNice!" in plain
    assert "<" not in plain.replace("<cache>", "") and "(https://arxiv.org/abs" not in plain
    assert "PDF (https://arxiv.org/pdf/2610.00001)" in plain  # a terminal shows where it goes


EIGHT = ("Ziang Cao", "Yinghao Liu", "C D", "E F", "G H", "I J", "K L", "Ziwei Liu")


@pytest.mark.parametrize(
    ("authors", "shown", "marked", "line"),
    [
        (EIGHT, 2, [7], "Ziang Cao, Yinghao Liu, …, <u>Ziwei Liu</u> and 5 more"),
        (EIGHT, 2, [1], "Ziang Cao, <u>Yinghao Liu</u> and 6 more"),
        (
            EIGHT,
            3,
            [4, 7],
            "Ziang Cao, Yinghao Liu, C D, …, <u>G H</u>, …, <u>Ziwei Liu</u> and 3 more",
        ),
        (EIGHT[:3], 2, [2], "Ziang Cao, Yinghao Liu, <u>C D</u>"),
        (EIGHT, 1, [3, 4], "Ziang Cao, …, <u>E F</u>, <u>G H</u> and 5 more"),
        (("A & B", "C"), 3, [], "A &amp; B, C"),  # escaped HTML
    ],
)
def test_a_matched_author_is_named_wherever_they_are_in_the_list(
    authors: tuple[str, ...], shown: int, marked: list[int], line: str
) -> None:
    assert short_authors(paper(authors=authors), shown, marked) == line


def test_an_author_filter_marks_its_author_in_the_card_and_the_entry() -> None:
    found = highlights(FilterRules().parse('au:"ziwei liu" -au:cao'), paper(authors=EIGHT))
    assert found == [Highlight("author", 7, 8)]  # a negative part marks nothing
    item = Item(paper(authors=EIGHT), found, [MatchedFilter(1, 'au:"ziwei liu"')])
    assert "…, <u>Ziwei Liu</u> and 5 more" in render_entry(item, abstract=False)
    assert "…, <u>Ziwei Liu</u> and 4 more" in render_paper(item)
    assert "…, **Ziwei Liu** and 4 more" in to_plain(render_paper(item))
    merged = Item(paper(authors=EIGHT), [Highlight("author", 3, 5)], [])  # two authors, merged
    assert "C D, <u>E F</u>, <u>G H</u> and 3 more" in render_paper(merged)


LINES = st.lists(
    st.one_of(
        HOSTILE.filter(str.strip).map(lambda t: f"<code>{escape(t)}</code>"),
        st.lists(HOSTILE.filter(str.strip), min_size=1, max_size=8).map(
            lambda block: "<pre>" + "\n".join(escape(t) for t in block) + "</pre>"
        ),
    ),
    min_size=1,
    max_size=60,
)


@given(LINES)
def test_long_replies_split_between_lines_into_valid_messages(lines: list[str]) -> None:
    text = "\n".join(lines)
    parts = split_message(text, limit=600)
    for part in parts:
        assert size(part) <= 600 and check_message(part, "HTML") is None, part
    if all(size(line) <= 600 for line in lines):
        assert "\n".join(parts) == text  # nothing lost, nothing cut inside a tag


def test_a_compact_entry_is_read_at_a_glance() -> None:
    item = Item(paper(announce_type=AnnounceType.CROSS), [Highlight("title", 0, 6)], [])
    assert render_entry(item, abstract=False).split("\n") == [
        '<b><a href="https://arxiv.org/abs/2610.00001"><u>BeNice</u>! Closing the Gap</a></b>',
        "Hayden Prairie, Jacob M. Ryan and 2 more · cross-list",
        "<i>TL;DR:</i> BeNice!, a method. It gains 31.4% on &lt;cache&gt; &amp; more.",
    ]
    assert render_entry(item, abstract=True).endswith(
        "<blockquote expandable>We propose BeNice!, a method. It gains 31.4% on &lt;cache&gt; "
        "&amp; more.</blockquote>"
    )


def test_a_compact_digest_quotes_only_the_first_abstracts() -> None:
    batch = [Item(paper(title=f"Paper {n}"), [], [MatchedFilter(1, "a")]) for n in range(8)]
    compact = digest(batch, "<b>Your digest</b>", abstracts=3)
    full = digest(batch, "<b>Your digest</b>", compact=False)
    assert "".join(m.text for m in compact).count("<blockquote expandable>") == 3
    assert "".join(m.text for m in full).count("<blockquote expandable>") == 8
    assert len(compact) == 1 and sorted(compact[0].items) == list(range(8))
    assert compact[0].text.startswith("<b>Your digest</b>\n\n<b>a (filter 1)</b>: 8 papers")
    assert "\n<b>8. " in compact[0].text and "8. " not in full[0].text  # numbered for buttons
    later = digest(batch[5:], "<b>Your digest</b>, continued", first=6, counts=False)
    assert "<b>a (filter 1)</b>\n\n<b>6. " in later[0].text


@pytest.mark.parametrize(
    ("count", "words", "said"),
    [
        (1, ("paper",), "1 paper"),
        (2, ("paper",), "2 papers"),
        (0, ("paper",), "0 papers"),
        (1, ("entry", "entries"), "1 entry"),
        (3, ("entry", "entries"), "3 entries"),
    ],
)
def test_plural(count: int, words: tuple[str, ...], said: str) -> None:
    assert plural(count, *words) == said


GRID = "Grid cells map odour space in the mouse entorhinal cortex"
STRUCTURED = (
    "Background: Grid cells fire in hexagonal patterns as an animal moves. "
    "Methods: We recorded 1,412 grid cells in 23 mice. "
    "Results: A third (31%) fired in hexagonal patterns across the odour plane. "
    "Conclusions: Grid cells chart odour space with the code they use for physical space."
)


def source_paper(**fields: object) -> Paper:
    base: dict[str, object] = {"title": GRID, "abstract": STRUCTURED, "source": "t"}
    base.update(fields)
    return Paper(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        ({"preprint_doi": "10.1101/286609", "server": "bioRxiv", "version": 2},
         "preprint (bioRxiv, v2)"),
        ({"doi": "10.1038/s41593-026-01999-1", "journal": "Nature Neuroscience", "pmid": "1"},
         '<a href="https://doi.org/10.1038/s41593-026-01999-1">Nature Neuroscience</a>'),
        ({"doi": "10.1038/s41593-026-01999-1"},
         '<a href="https://doi.org/10.1038/s41593-026-01999-1">doi:10.1038/s41593-026-01999-1</a>'),
        ({"preprint_doi": "10.1101/286609", "server": "medRxiv", "doi": "10.1/x",
          "journal": "Cell"},
         'preprint (medRxiv) · published in <a href="https://doi.org/10.1/x">Cell</a>'),
        ({"arxiv_id": "2603.04567", "doi": "10.1/x", "journal": "Cell"},
         'published in <a href="https://doi.org/10.1/x">Cell</a>'),
        ({"arxiv_id": "2603.04567", "doi": "10.1/x"}, ""),  # arXiv's own links say it
        ({"journal": "A & B <journal>"}, "A &amp; B &lt;journal&gt;"),
    ],
)  # fmt: skip
def test_a_card_says_where_the_paper_is_published(fields: dict[str, object], shown: str) -> None:
    paper = source_paper(**fields)
    assert published(paper) == shown
    details = render_paper(Item(paper, [], [])).split("\n")[1]
    entry = render_entry(Item(paper, [], []), abstract=False).split("\n")[1]
    assert (shown in details and shown in entry) if shown else "·" not in entry


def test_a_structured_abstract_keeps_its_labels_and_its_tldr_is_the_conclusion() -> None:
    start = STRUCTURED.index("hexagonal")
    item = Item(source_paper(), [Highlight("abstract", start, start + 9)], [])
    lines = render_paper(item).split("\n")
    assert lines[1] == (  # no authors, date or journal: no line for them
        "<i>TL;DR:</i> Grid cells chart odour space with the code they use for physical "
        "space. A third (31%) fired in hexagonal patterns across the odour plane."
    )
    assert lines[-4:] == [
        "<blockquote expandable><b>Background:</b> Grid cells fire in <b>hexagonal</b> "
        "patterns as an animal moves.",
        "<b>Methods:</b> We recorded 1,412 grid cells in 23 mice.",
        "<b>Results:</b> A third (31%) fired in hexagonal patterns across the odour plane.",
        "<b>Conclusions:</b> Grid cells chart odour space with the code they use for "
        "physical space.</blockquote>",
    ]


def test_a_structured_abstract_cut_short_keeps_the_labels_it_shows() -> None:
    quote = render_entry(Item(source_paper(), [], []), abstract=True, budget=400).split(
        "<blockquote expandable>"
    )[1]
    assert quote.startswith("<b>Background:</b> ") and quote.endswith("…</blockquote>")
    assert "Conclusions" not in quote


@pytest.mark.parametrize(
    ("stored", "kind", "shown"),
    [
        ('like "BeNice! Closing Looping"', FilterKind.LIKE, '⟦like "BeNice! Closing Looping"⟧'),
        ('like "A "quoted" title" and 2 more', FilterKind.LIKE,
         '⟦like "A "quoted" title" and 2 more⟧'),
        ('like "Ends in" and 3 more"', FilterKind.LIKE, '⟦like "Ends in" and 3 more"⟧'),
        # words that read like a name are a keyword filter's own: shown as understood
        ('like "language model"', FilterKind.KEYWORDS, 'like "language model"'),
        ("2607.00001", FilterKind.LIKE, "2607.00001"),  # not a name of that shape: as stored
    ],
)  # fmt: skip
def test_a_like_filters_stored_name_is_shown_in_the_readers_words(
    stored: str, kind: FilterKind, shown: str
) -> None:
    assert filter_name(stored, kind, pseudo_translator()) == shown
    assert filter_name(stored, kind) == stored  # English: as stored


@given(st.text(min_size=1, max_size=60), st.integers(min_value=0, max_value=9))
def test_a_like_name_reads_back_whatever_its_title(title: str, more: int) -> None:
    named = filter_name(like_name(title, more), FilterKind.LIKE, pseudo_translator())
    if more:
        assert named == f'⟦like "{title}" and {more} more⟧'
    else:
        assert named == f'⟦like "{title}"⟧'


def test_a_digest_names_a_like_filter_in_the_readers_words() -> None:
    t = pseudo_translator()
    matched = MatchedFilter(3, like_name("WorldCraft", 1), FilterKind.LIKE)
    assert canonical(matched, t) == '⟦like "WorldCraft" and 1 more⟧'
