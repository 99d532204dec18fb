"""What a chat is sent, before it is rendered: which papers, why (the filters that matched them,
as the chat numbers them) and where (the words to mark), and the wording around a digest.

The delivery rounds read rows, papers and filters from the store and hand them here; rendering
(bot.core.render) turns the items into messages.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from bot.core.buttons import Button, card_button, more_button, paper_buttons, rate_buttons
from bot.core.chat import DIGEST_ABSTRACTS, DIGEST_PAGE, Chat, Delivery, Filter
from bot.core.highlight import (
    Analysed,
    Highlight,
    Marked,
    highlights,
    marked_leaves,
)
from bot.core.paper import Paper
from bot.core.query import InvalidQuery, Node
from bot.core.render import (
    Group,
    Item,
    MatchedFilter,
    Message,
    digest_groups,
    digest_order,
    fit,
    plural,
    rank,
    render_alert,
    render_digest,
)
from bot.core.summary import shorten

REMOVED = "a filter since removed"
_REMOVED = MatchedFilter(0, REMOVED)
TITLE_SHOWN = 200  # characters of a digest's title
GROUPS_SHOWN = 1200  # of the header's line of papers per filter


class FilterMarks:
    """The words a filter matched in a paper. Many chats share popular filters and a digest
    round meets the same papers once per chat, so filters are parsed and texts analysed once
    (`remembered` of each: a day's papers' titles and abstracts fit). Answers are found again
    each time: remembered per (filter, paper), or per (leaf, text), they were found again 98%
    and 72% of the time (bench/day.py, 1,000 chats), and finding them costs little more than
    remembering them (a paper's hash, a leaf's)."""

    def __init__(self, parse: Callable[[str], Node], remembered: int = 4096) -> None:
        self._parse = parse
        self._marked = functools.lru_cache(maxsize=remembered)(self._marked_leaves)
        self._analyse = functools.lru_cache(maxsize=2 * remembered)(Analysed)

    def _marked_leaves(self, source: str) -> tuple[Marked, ...]:
        try:
            return marked_leaves(self._parse(source))
        except InvalidQuery:  # kept from a laxer paperbot: the paper is still sent, unmarked
            return ()

    def of(self, source: str, paper: Paper) -> tuple[Highlight, ...]:
        return tuple(highlights(self._marked(source), paper, self._analyse))

    def of_all(self, sources: Iterable[str], paper: Paper) -> list[Highlight]:
        """Several filters' marks in a paper, merged: the same as `merge_highlights` of each
        one's, in one pass over their words (a digest marks ~180 papers a chat)."""
        leaves = tuple(leaf for source in sources for leaf in self._marked(source))
        return highlights(leaves, paper, self._analyse)


def compose_items(
    rows: Sequence[Delivery],
    papers: Mapping[int, Paper],
    filters: Sequence[Filter],
    marks: FilterMarks | None,
) -> list[tuple[Item, list[Delivery]]]:
    """One item per paper, with the rows it settles (a pending new version of a paper not sent
    yet goes out with it, as one). `filters` are the chat's, in /list order; a filter that
    matched and was removed since is named as such: the paper still goes, as promised. Without
    `marks`, the items are not marked yet (`Marking` finds their marks when asked)."""
    # one MatchedFilter a filter, shared by its papers (a digest has ~590 of them)
    named = {f.id: MatchedFilter(n, f.canonical) for n, f in enumerate(filters, 1)}
    marking = Marking(filters, marks) if marks else None
    by_paper: dict[int, list[Delivery]] = defaultdict(list)
    for row in rows:
        by_paper[row.paper_id].append(row)
    items = []
    for paper_id, settled in by_paper.items():
        paper = papers[paper_id]
        matched = [named.get(f, _REMOVED) for f in _filter_ids(settled)]
        found = marking(paper, settled) if marking else []
        is_update = all(r.is_update for r in settled)
        items.append((Item(paper, found, matched, is_update), settled))
    return items


def _filter_ids(rows: Sequence[Delivery]) -> list[int]:
    """The filters that matched a paper's rows, in id order."""
    return sorted({f for r in rows for f in r.filter_ids})


class Marking:
    """The words a chat's filters marked in a paper, merged, found when asked: a digest finds
    them only for the papers its order needs (`compose_digest`)."""

    def __init__(self, filters: Sequence[Filter], marks: FilterMarks) -> None:
        self._sources = {f.id: f.source for f in filters}
        self._marks = marks

    def __call__(self, paper: Paper, rows: Sequence[Delivery]) -> list[Highlight]:
        sources = [self._sources.get(filter_id) for filter_id in _filter_ids(rows)]
        # a filter since removed marks nothing
        return self._marks.of_all([s for s in sources if s is not None], paper)


@dataclass
class Outgoing:
    """A message to send, the ledger rows it settles once sent, and the buttons under it."""

    text: str
    rows: list[Delivery]
    buttons: list[list[Button]] = field(default_factory=list)
    behind: list[Delivery] = field(default_factory=list)  # settled too, behind its "more" button


Composed = Sequence[tuple[Item, list[Delivery]]]  # compose_items' answer


def messages_with_rows(messages: Sequence[Message], items: Composed) -> list[Outgoing]:
    """Each rendered message with the ledger rows it settles once sent."""
    return [Outgoing(m.text, [row for i in m.items for row in items[i][1]]) for m in messages]


TOP_MARKED = 5  # a ranked digest says why for at most its five best papers


def ranked(items: Composed, scores: Mapping[int, tuple[float, Sequence[str]]]) -> Composed:
    """The items with the chat's scores (by paper id: the score and the terms that weigh most);
    the best few with a positive score (the model thinks the chat likes them) say why."""
    scored = [(item, rows, scores.get(rows[0].paper_id)) for item, rows in items]
    best = sorted((s[0] for _, _, s in scored if s and s[0] > 0), reverse=True)[:TOP_MARKED]
    bar = best[-1] if best else float("inf")
    return [
        (
            dataclasses.replace(
                item,
                score=score[0] if score else None,
                why=tuple(score[1]) if score and score[0] >= bar else (),
            ),
            rows,
        )
        for item, rows, score in scored
    ]


def compose_alert(items: Composed) -> list[Outgoing]:
    """Instant alerts, each paper with its 👍, 👎 and "more like this" (numbered when a message
    has several)."""
    messages = render_alert([item for item, _ in items])
    outgoing = messages_with_rows(messages, items)
    several = len(items) > 1
    for message, out in zip(messages, outgoing, strict=True):
        out.buttons = [
            paper_buttons(
                items[i][1][0].id,
                i + 1 if several else None,
                similar=bool(items[i][0].paper.arxiv_id),
            )
            for i in message.items
        ]
    return outgoing


def card_buttons(item: Item, row_id: int) -> list[list[Button]]:
    """Under a paper's card opened from a digest: 👍, 👎, "more like this"."""
    return [paper_buttons(row_id, similar=bool(item.paper.arxiv_id))]


@dataclass(frozen=True)
class Layout:
    """How a chat reads its digests: compact (each paper at a glance, the first `abstracts`
    with their abstract, every other a card button away) or full (every card), and how many
    papers a page lists before a "more" button."""

    compact: bool = True
    abstracts: int = DIGEST_ABSTRACTS
    page: int = DIGEST_PAGE

    @classmethod
    def of(cls, chat: Chat) -> Layout:
        return cls(chat.digest_style == "compact", chat.digest_abstracts, chat.digest_page)


def compose_digest(
    items: Composed, title: str, layout: Layout, marking: Marking | None = None
) -> list[Outgoing]:
    """A digest as it goes out: its first page of papers (the chat's best first, when ranked);
    the papers past it settle with the last message, behind its "N more" button, which pages
    on through them (`compose_page`) in the order of filters and matched words: the same at
    every press, whatever the chat rates meanwhile. With `marking`, the items are not marked
    yet, and only the groups the order needs are (`_first_page`)."""
    listed = list(items)  # marked in place by _first_page, when not yet
    groups, shown, rest, first = _first_page(listed, layout.page, marking)
    header = _header(title, len(listed), groups, shown=len(shown))
    outgoing = _page(listed, shown, header, layout, first=1, counts=not rest)
    if rest:
        outgoing[-1].behind = [row for i in rest for row in listed[i][1]]
        button = more_button(listed[first][1][0].id, len(shown) + 1, len(rest))
        outgoing[-1].buttons.append([button])
    return outgoing


def _first_page(
    items: list[tuple[Item, list[Delivery]]], page: int, marking: Marking | None
) -> tuple[list[Group], list[int], list[int], int]:
    """The digest's groups, and its order cut at its page: the papers shown, the rest (in
    `digest_order`, but for groups wholly past the page, whose order nothing shows), and the
    first of the rest as its pages list them (`digest_order` without the chat's scores).

    A group is ordered, and with `marking` marked in place, only when it holds part of the page
    or the first of the rest: ordering needs every paper's marks (title hits, matched words),
    and finding them is most of a digest's cost (bench/day.py, 1,000 chats: ~180 papers of a
    chat's ~590 marked, and a digest composed in 34 ms instead of 55)."""
    groups = digest_groups([item for item, _ in items])
    order: list[int] = []
    first = -1
    for _, members in groups:
        if len(order) <= page:  # the group holds part of the page, or the rest's first paper
            if marking:
                _mark(items, members, marking)
            members = sorted(members, key=lambda i: rank(items[i][0]))
            behind = members[page - len(order) :]
            if behind and first < 0:
                first = min(behind, key=lambda i: rank(items[i][0], by_score=False))
        order += members
    return groups, order[:page], order[page:], first


def _mark(
    items: list[tuple[Item, list[Delivery]]], members: Sequence[int], marking: Marking
) -> None:
    """The `members` of `items` (changed in place) with their marks."""
    for i in members:
        item, rows = items[i]
        items[i] = (dataclasses.replace(item, marks=marking(item.paper, rows)), rows)


def compose_page(
    items: Composed, title: str, layout: Layout, *, row_id: int, number: int
) -> list[Outgoing]:
    """A later page of a digest: `items` are the papers behind the digest's "more" button; the
    page lists them from the paper of `row_id` on, numbered from `number`. Empty when no paper
    has that row."""
    order = digest_order([item for item, _ in items], by_score=False)
    starts = [p for p, i in enumerate(order) if any(r.id == row_id for r in items[i][1])]
    if not starts:
        return []
    rest = order[starts[0] :]
    shown, remaining = rest[: layout.page], rest[layout.page :]
    last = number + len(shown) - 1
    span = f"paper {number}" if last == number else f"papers {number}–{last}"
    header = f"<b>{fit(title, TITLE_SHOWN)}</b>, continued: {span} of {number - 1 + len(rest)}"
    outgoing = _page(items, shown, header, layout, first=number, counts=False)
    if remaining:
        row = items[remaining[0]][1][0].id
        outgoing[-1].buttons.append([more_button(row, last + 1, len(remaining))])
    return outgoing


def _header(title: str, count: int, groups: Sequence[Group], *, shown: int) -> str:
    """The digest's first lines: its title and count, the papers per filter (when it has more
    than one group), and how many this page lists when it doesn't list all."""
    header = f"<b>{fit(title, TITLE_SHOWN)}</b>: {plural(count, 'new paper')}"
    if len(groups) > 1:  # within a third of a message, whatever the filters
        counts = (f"{_group_name(matched)}: {len(members)}" for matched, members in groups)
        header += "\n" + fit(" · ".join(counts), GROUPS_SHOWN)
    if shown < count:
        header += f"\nThe first {shown} here; the rest behind the button at the end."
    return header


def _group_name(matched: MatchedFilter | None) -> str:
    return f"{shorten(matched.canonical, 40)} (filter {matched.number})" if matched else "other"


def _page(
    items: Composed, shown: Sequence[int], header: str, layout: Layout, *, first: int, counts: bool
) -> list[Outgoing]:
    """The papers `shown` (in that order) as messages, each with its rows and, in a compact
    digest, a card button per paper."""
    listed = [items[i] for i in shown]
    messages = render_digest(
        [item for item, _ in listed],
        header,
        compact=layout.compact,
        abstracts=layout.abstracts,
        first=first,
        counts=counts,
    )
    outgoing = messages_with_rows(messages, listed)
    for message, out in zip(messages, outgoing, strict=True):
        for i in message.items:  # a row a paper: its card (compact), 👍, 👎
            row_id, number = listed[i][1][0].id, first + i
            cards = [card_button(row_id, number)] if layout.compact else []
            out.buttons.append([*cards, *rate_buttons(row_id, number)])
    return outgoing


def digest_title(today: date, announced: Iterable[date | None] = ()) -> str:
    """The digest's title names the announcement its papers came from (a digest read a day
    late, or after a quiet weekend, says which day it covers), else the day it was sent."""
    days = sorted({day for day in announced if day})
    if not days:
        return f"Your digest, {today:%-d %b %Y}"
    if len(days) == 1:
        return f"Your digest: the {days[0]:%-d %b %Y} announcement"
    return f"Your digest: announcements of {days[0]:%-d %b} to {days[-1]:%-d %b %Y}"


def empty_digest_line(arrived: int) -> str:
    """What a digest says when nothing of the chat's waits: why (nothing matched, or nothing
    arrived at all), so a quiet day is not taken for a broken bot."""
    if arrived:
        return (
            f"Nothing matched your filters among {plural(arrived, 'new paper')} since the last "
            "digest."
        )
    return "No announcement since the last digest: no new listing arrived."
