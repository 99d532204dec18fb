"""What a chat is sent, before it is rendered: which papers, why (the filters that matched them,
as the chat numbers them) and where (the words to mark), and the wording around a digest.

The delivery rounds read rows, papers and filters from the store and hand them here; rendering
(bot.core.render) turns the items into messages.
"""

from __future__ import annotations

import functools
import heapq
import itertools
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import overload

from babel.dates import format_interval

from bot.core.buttons import (
    Button,
    entry_buttons,
    more_button,
    paper_buttons,
)
from bot.core.chat import DIGEST_ABSTRACTS, DIGEST_PAGE, Chat, Delivery, Filter
from bot.core.highlight import (
    Analysed,
    Highlight,
    Marked,
    highlights,
    marked_leaves,
    occurs,
)
from bot.core.i18n import ENGLISH, Translator
from bot.core.paper import Paper
from bot.core.query import InvalidQuery, Node, Seeds
from bot.core.render import (
    REMOVED,
    Item,
    MatchedFilter,
    Message,
    canonical,
    close_quotes,
    day,
    fit,
    render_alert,
    render_digest,
)
from bot.core.states import DigestStyle
from bot.core.summary import shorten

_REMOVED = MatchedFilter(0, REMOVED)
TITLE_SHOWN = 200  # characters of a digest's title
GROUPS_SHOWN = 1200  # of the header's line of papers per filter


class FilterMarks:
    """The words a filter matched in a paper. Many chats share popular filters and a digest
    round meets the same papers once per chat, so filters are parsed and texts analysed once
    (`remembered` of each: a day's papers' titles and abstracts fit). Answers are found again
    each time: remembered per (filter, paper), a third of them were asked for again, and per
    (chat's filters, paper) a fifth (bench/day.py's population, 1,500 chats' digests)."""

    def __init__(self, compile: Callable[[str], Node | Seeds], remembered: int = 4096) -> None:
        self._compile = compile  # FilterRules.compile: a stored filter by its kind
        self._marked = functools.lru_cache(maxsize=remembered)(self._marked_leaves)
        self._analyse = functools.lru_cache(maxsize=2 * remembered)(Analysed)

    def _marked_leaves(self, source: str) -> tuple[Marked, ...]:
        try:
            compiled = self._compile(source)
        except InvalidQuery:  # kept from a laxer paperbot: the paper is still sent, unmarked
            return ()
        return () if isinstance(compiled, Seeds) else marked_leaves(compiled)  # like: no words

    def of(self, source: str, paper: Paper) -> tuple[Highlight, ...]:
        """One filter's marks in a paper."""
        return tuple(self.in_paper(self._marked(source), paper))

    def leaves(self, sources: Iterable[str]) -> tuple[Marked, ...]:
        """Several filters' words, to mark a paper with all of them at once (`in_paper`)."""
        return tuple(leaf for source in sources for leaf in self._marked(source))

    def in_title(self, leaves: tuple[Marked, ...], paper: Paper) -> bool:
        """Whether `in_paper` would mark the title: a dictionary lookup a word, no spans."""
        title = paper.title
        analysed = None
        for leaf in leaves:
            if "title" in leaf.fields:
                analysed = analysed or self._analyse(title)
                if occurs(leaf, title, analysed):
                    return True
        return False

    def in_paper(self, leaves: tuple[Marked, ...], paper: Paper) -> list[Highlight]:
        """Several filters' marks in a paper, merged: the same as `merge_highlights` of each
        one's, in one pass over their words."""
        return highlights(leaves, paper, self._analyse)


Scores = Mapping[int, tuple[float, Sequence[str]]]  # by paper: the chat's score, the terms


# -- a digest's order: papers grouped by filter, best first within a group --------------------

Rank = tuple[float, bool, int]  # sorts best first


def rank(item: Item, *, by_score: bool = True) -> Rank:
    """Best first: the chat's score (when ranked, and `by_score`), a hit in the title, then more
    of the chat's filters matched (`rank_of`)."""
    title = any(m.field == "title" for m in item.marks)
    return rank_of(item.score if by_score else None, title, len(item.filters))


def rank_of(score: float | None, in_title: bool, filters: int) -> Rank:
    """A paper's place in its digest group from what is known before its abstract is marked:
    a digest ranks the ~180 papers of the groups that hold its page and shows 30, and ranking
    by the matched words' count, which needs every abstract marked, made a digest cost 7.6 ms
    against 6.0 (bench/day.py's population, 1,500 chats)."""
    return (-score if score is not None else 0.0, not in_title, -filters)


def first_filter(item: Item) -> MatchedFilter | None:
    """The group a paper is listed under: its first filter in /list order (a removed filter,
    numbered 0, after the others)."""
    return first_of(item.filters)


def first_of(filters: Sequence[MatchedFilter]) -> MatchedFilter | None:
    return min(filters, key=lambda f: f.number or 1 << 30, default=None)


def digest_order(items: Sequence[Item], *, by_score: bool = True) -> list[int]:
    """Papers grouped by filter (`digest_groups`), best first within a group (`rank`), as
    indices into `items`: the order of the pages behind a digest's button sent before the
    order was stored with its rows (compose.plan_digest decides a digest's order now). Any
    subset of the items keeps its relative order."""
    return [
        i
        for _, members in digest_groups([first_filter(item) for item in items])
        for i in sorted(members, key=lambda i: rank(items[i], by_score=by_score))
    ]


Group = tuple[MatchedFilter | None, list[int]]  # a digest's filter and its papers' indices


def digest_groups(firsts: Sequence[MatchedFilter | None]) -> list[Group]:
    """The digest's groups in order, each with the indices of its papers as given (`firsts`:
    each paper's `first_filter`): each paper once, under its first filter, in /list order;
    papers of filters since removed last."""
    groups: dict[MatchedFilter | None, list[int]] = {}
    for index, first in enumerate(firsts):
        groups.setdefault(first, []).append(index)
    order = sorted(groups, key=lambda f: (f is None, not (f and f.number), f.number if f else 0))
    return [(matched, groups[matched]) for matched in order]


TOP_MARKED = 5  # a ranked digest says why for at most its five best papers


class ToCompose(Sequence[tuple[Item, list[Delivery]]], ABC):
    """A chat's papers to compose, each an item with the ledger rows it settles, and what a
    digest orders them by, known without making every item: each paper's first filter (its
    group), the filters it matched, its rank."""

    rows: list[list[Delivery]]
    first_filters: list[MatchedFilter | None]
    matched_filters: Sequence[Sequence[MatchedFilter]]

    @abstractmethod
    def rank(self, index: int, *, by_score: bool = True) -> Rank:
        """`rank` of the item at `index`."""

    @abstractmethod
    def item(self, index: int) -> Item:
        """The item at `index` (made now, when it is made lazily)."""

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> tuple[Item, list[Delivery]]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[Item, list[Delivery]]]: ...
    def __getitem__(
        self, index: int | slice
    ) -> tuple[Item, list[Delivery]] | list[tuple[Item, list[Delivery]]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self.item(index), self.rows[index]


class Made(ToCompose):
    """Items made beforehand, each with its rows (an alert's few; a test's or a benchmark's
    hostile or measured items), ordered by their own filters and marks."""

    def __init__(self, items: Sequence[tuple[Item, list[Delivery]]]) -> None:
        self.items = [item for item, _ in items]
        self.rows = [rows for _, rows in items]
        self.first_filters = [first_filter(item) for item in self.items]
        self.matched_filters = [item.filters for item in self.items]

    def rank(self, index: int, *, by_score: bool = True) -> Rank:
        return rank(self.items[index], by_score=by_score)

    def item(self, index: int) -> Item:
        return self.items[index]


class Matches(ToCompose):
    """A chat's waiting ledger rows as items, one a paper, with the rows it settles (a pending
    new version of a paper not sent yet goes out with it, as one), each item made (and marked)
    when first asked.
    `filters` are the chat's, in /list order; a filter that matched and was removed since is
    named as such: the paper still goes, as promised. Without `marks`, the items are not
    marked. With `scores` (the chat's ranking), the best few with terms to show say why.

    A digest lists ~590 papers a chat and shows 30: it groups them by `first_filters` and
    ranks them (`rank`) without their items, and makes only the items it shows
    (`compose_digest`). Making (unmarked) the items a digest does not show cost as much as
    marking those it does (bench/day.py's population, 1,500 chats: 7.4-7.9 ms a digest with
    every item made, 6.0-6.2 without)."""

    def __init__(
        self,
        rows: Sequence[Delivery],
        papers: Mapping[int, Paper],
        filters: Sequence[Filter],
        marks: FilterMarks | None,
        scores: Scores | None = None,
    ) -> None:
        self._marks, self._scores = marks, scores or {}
        # one MatchedFilter a filter, shared by its papers
        self._named = {
            f.id: MatchedFilter(n, f.canonical, f.kind) for n, f in enumerate(filters, 1)
        }
        self._sources = {f.id: f.source for f in filters}
        by_paper: dict[int, list[Delivery]] = defaultdict(list)
        for row in rows:
            by_paper[row.paper_id].append(row)
        self.rows = list(by_paper.values())
        self.papers = [papers[paper_id] for paper_id in by_paper]  # kept: the round's are not
        # what papers matched by the same filters share: their filters, as the chat numbers
        # them, and the words to mark (a chat's ~590 papers have a few dozen such sets)
        self._shared: dict[tuple[int, ...], _Matched] = {}
        self._matched = [self._matched_by(settled) for settled in self.rows]
        self.first_filters = [matched.first for matched in self._matched]
        self.matched_filters = [matched.named for matched in self._matched]
        self._made: list[Item | None] = [None] * len(self.rows)
        self._in_title: list[bool | None] = [None] * len(self.rows)
        # the best five with terms to show say why, whatever their score's sign: with three 👍
        # the model's log-odds sit below even for most papers (on the real days, 0-2 of a
        # filter's papers above), and a first ranked digest showed no reason at all
        best = sorted((s[0] for s in self._scores.values() if s[1]), reverse=True)
        self._bar = best[:TOP_MARKED][-1] if best else float("inf")

    def _matched_by(self, settled: list[Delivery]) -> _Matched:
        key = tuple(settled[0].filter_ids) if len(settled) == 1 else _filter_ids(settled)
        matched = self._shared.get(key)
        if matched is None:
            ids = _filter_ids(settled)
            named = [self._named.get(f, _REMOVED) for f in ids]
            # a filter since removed marks nothing
            sources = [self._sources[f] for f in ids if f in self._sources]
            leaves = self._marks.leaves(sources) if self._marks else ()
            matched = self._shared[key] = _Matched(named, first_of(named), leaves)
        return matched

    def rank(self, index: int, *, by_score: bool = True) -> Rank:
        """`rank` of the item at `index`, without making it."""
        matched = self._matched[index]
        title = self._in_title[index]
        if title is None:
            title = self._in_title[index] = bool(
                self._marks and self._marks.in_title(matched.leaves, self.papers[index])
            )
        score = self._scores.get(self.rows[index][0].paper_id) if by_score else None
        return rank_of(score[0] if score else None, title, len(matched.named))

    def item(self, index: int) -> Item:
        made = self._made[index]
        if made is None:
            made = self._made[index] = self._make(index)
        return made

    def _make(self, index: int) -> Item:
        settled, matched = self.rows[index], self._matched[index]
        paper = self.papers[index]
        found = self._marks.in_paper(matched.leaves, paper) if self._marks else []
        score = self._scores.get(settled[0].paper_id)
        return Item(
            paper,
            found,
            list(matched.named),
            all(r.is_update for r in settled),
            score=score[0] if score else None,
            why=tuple(score[1]) if score and score[1] and score[0] >= self._bar else (),
        )


@dataclass(frozen=True)
class _Matched:
    named: list[MatchedFilter]
    first: MatchedFilter | None
    leaves: tuple[Marked, ...]


def _filter_ids(rows: Sequence[Delivery]) -> tuple[int, ...]:
    """The filters that matched a paper's rows, in id order."""
    return tuple(sorted({f for r in rows for f in r.filter_ids}))


@dataclass
class Outgoing:
    """A message to send, the ledger rows it settles once sent, and the buttons under it."""

    text: str
    rows: list[Delivery]
    buttons: list[list[Button]] = field(default_factory=list)
    behind: list[Delivery] = field(default_factory=list)  # settled too, behind its "more" button


Composed = Sequence[tuple[Item, list[Delivery]]]  # a ToCompose, or an alert's items


def messages_with_rows(messages: Sequence[Message], items: Composed) -> list[Outgoing]:
    """Each rendered message with the ledger rows it settles once sent."""
    return [Outgoing(m.text, [row for i in m.items for row in items[i][1]]) for m in messages]


def compose_alert(items: Composed, layout: Layout, *, t: Translator = ENGLISH) -> list[Outgoing]:
    """Instant alerts, each paper with its 👍, 👎, 🔖 and "more like this", and in a compact layout
    its card (numbered when a message has several)."""
    messages = render_alert([item for item, _ in items], compact=layout.compact, t=t)
    outgoing = messages_with_rows(messages, items)
    several = len(items) > 1
    for message, out in zip(messages, outgoing, strict=True):
        for i in message.items:
            item, rows = items[i]
            number = i + 1 if several else None
            similar = bool(item.paper.arxiv_id)
            out.buttons.append(
                entry_buttons(rows[0].id, number, card=layout.compact, similar=similar, t=t)
            )
    return outgoing


def card_buttons(item: Item, row_id: int, *, t: Translator = ENGLISH) -> list[list[Button]]:
    """Under a paper's card opened from a digest: 👍, 👎, 🔖, "more like this"."""
    return [paper_buttons(row_id, similar=bool(item.paper.arxiv_id), t=t)]


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
        compact = chat.digest_style is DigestStyle.COMPACT
        return cls(compact, chat.digest_abstracts, chat.digest_page)


def compose_digest(
    items: ToCompose, title: str, layout: Layout, *, t: Translator = ENGLISH
) -> list[Outgoing]:
    """A digest as it goes out: its first page (`plan_digest`: every filter's best few, then the
    best of the rest), and the papers past it, which settle with the last message behind its
    "N more" button in the order its pages will list them (the postman stores that order with
    the rows, so a restart, a rating or a refit cannot reshuffle a page). Of `Matches`, only
    the items shown are made."""
    rows = items.rows
    groups = digest_groups(items.first_filters)
    plan = plan_digest(groups, layout.page, items.rank)
    shown, rest = plan.order[: plan.shown], plan.order[plan.shown :]
    counted = _filter_counts(items.matched_filters, groups, plan, t)
    header = _header(title, len(items), counted, plan.shown, t)
    outgoing = _page(items, shown, header, layout, first=1, counts=not rest, t=t)
    if rest:
        outgoing[-1].behind = [row for i in rest for row in rows[i]]
        button = more_button(rows[rest[0]][0].id, len(shown) + 1, len(rest), t=t)
        outgoing[-1].buttons.append([button])
    return outgoing


Ranked = Callable[[int], Rank]  # an item's `rank`, by its index


FEW = 3  # papers of every filter the first page shows before it fills with the best of the rest


@dataclass(frozen=True)
class DigestPlan:
    """Which papers a digest lists, in which order: `order` holds every paper's index once, the
    first page's `shown` first, then the rest as the later pages list them; each part grouped
    by filter in /list order, best first within a group."""

    order: list[int]
    shown: int
    places: dict[int, tuple[int, int]]  # a group's (by its index) numbers on the first page


def plan_digest(groups: Sequence[Group], page: int, ranked: Ranked) -> DigestPlan:
    """The first page covers every filter: each group (in /list order) gets its best `FEW`
    (fewer when the page is shorter than FEW a group; a group past the page's last place gets
    none), then the page fills with the best of what is left by `ranked` (the chat's score, a
    title hit, more filters matched; of equal rank, the groups in turn). A narrow filter is
    never wholly behind the button while a broad one takes more than its share."""
    keys = {i: ranked(i) for _, indices in groups for i in indices}  # ranked once each
    members = [sorted(indices, key=keys.__getitem__) for _, indices in groups]
    few = max(1, min(FEW, page // max(len(groups), 1)))
    taken, left = [], page
    for indices in members:
        taken.append(min(len(indices), few, left))
        left -= taken[-1]
    # the best of what is left, merged from the groups' sorted rests; papers of equal rank go
    # to the groups in turn (a group's 4th before another's 5th)
    rests = [_rest(g, indices, taken[g], keys) for g, indices in enumerate(members)]
    for _, _, g in itertools.islice(heapq.merge(*rests), left):
        taken[g] += 1
    first = [i for g, indices in enumerate(members) for i in indices[: taken[g]]]
    rest = [i for g, indices in enumerate(members) for i in indices[taken[g] :]]
    places, number = {}, 1
    for g, count in enumerate(taken):
        if count:
            places[g] = (number, number + count - 1)
        number += count
    return DigestPlan(first + rest, len(first), places)


def _rest(
    group: int, indices: list[int], start: int, keys: Mapping[int, Rank]
) -> Iterator[tuple[Rank, int, int]]:
    """A group's papers from `start` on, best first, each as (rank, place in group, group)."""
    return ((keys[indices[place]], place, group) for place in range(start, len(indices)))


def compose_page(
    items: Composed,
    title: str,
    layout: Layout,
    *,
    row_id: int,
    number: int,
    t: Translator = ENGLISH,
) -> list[Outgoing]:
    """A later page of a digest: `items` are the papers behind the digest's "more" button in
    the order its pages list them (as `compose_digest` left them); the page lists them from the
    paper of `row_id` on, numbered from `number`. Empty when no paper has that row."""
    starts = [i for i in range(len(items)) if any(r.id == row_id for r in items[i][1])]
    if not starts:
        return []
    rest = list(range(starts[0], len(items)))
    shown, remaining = rest[: layout.page], rest[layout.page :]
    last = number + len(shown) - 1
    title, total = f"<b>{fit(title, TITLE_SHOWN)}</b>", t.number(number - 1 + len(rest))
    if last == number:
        header = t.gettext("{title}, continued: paper {number} of {total}")
        header = header.format(title=title, number=t.number(number), total=total)
    else:
        header = t.gettext("{title}, continued: papers {first}–{last} of {total}").format(
            title=title, first=t.number(number), last=t.number(last), total=total
        )
    outgoing = _page(items, shown, header, layout, first=number, counts=False, t=t)
    if remaining:
        row = items[remaining[0]][1][0].id
        outgoing[-1].buttons.append([more_button(row, last + 1, len(remaining), t=t)])
    return outgoing


def _filter_counts(
    matched: Sequence[Sequence[MatchedFilter]],
    groups: Sequence[Group],
    plan: DigestPlan,
    t: Translator,
) -> list[str]:
    """Each filter that matched a paper of the digest, in /list order (filters since removed
    last): its name, how many of the digest's papers it matched (a paper several filters matched
    counts under each) and where they are: its group's numbers on the first page, "behind the
    button", or, for a filter whose papers all came under earlier filters, that."""
    # papers matched by the same filters share their list (a chat's ~590 Matches: a few
    # dozen lists), so each list is counted, then its filters
    shared = Counter(map(id, matched))
    lists = {id(filters): filters for filters in matched}
    counts: Counter[MatchedFilter] = Counter()
    for key, papers in shared.items():
        for f in set(lists[key]):
            counts[f] += papers
    groups_of = {group: g for g, (group, _) in enumerate(groups)}
    counted = []
    for f in sorted(counts, key=lambda f: (not f.number, f.number)):
        g = groups_of.get(f)
        if g is None:
            place = t.gettext("listed under other filters")
        else:
            place = _place(plan.places.get(g), t)
        counted.append(_counted(_group_name(f, t), counts[f], place, t))
    if None in groups_of:  # papers without a filter (not a ledger's: each row names one)
        g = groups_of[None]
        place = _place(plan.places.get(g), t)
        counted.append(_counted(t.gettext("other"), len(groups[g][1]), place, t))
    return counted


def _counted(name: str, count: int, place: str, t: Translator) -> str:
    return t.gettext("{name}: {count} ({place})").format(
        name=name, count=t.number(count), place=place
    )


def _header(title: str, count: int, counted: Sequence[str], shown: int, t: Translator) -> str:
    """The digest's first lines: its title and count, the papers per filter with where they are
    (when it has more than one filter), and how many this page lists when it doesn't list all."""
    header = t.ngettext("{title}: {count} new paper", "{title}: {count} new papers", count).format(
        title=f"<b>{fit(title, TITLE_SHOWN)}</b>", count=t.number(count)
    )
    if len(counted) > 1:  # within a third of a message, whatever the filters
        header += "\n" + fit(" · ".join(counted), GROUPS_SHOWN)
    if shown < count:
        rest = t.ngettext(
            "The first {count} here; the rest behind the button at the end.",
            "The first {count} here; the rest behind the button at the end.",
            shown,
        )
        header += "\n" + rest.format(count=t.number(shown))
    return header


def _place(numbers: tuple[int, int] | None, t: Translator) -> str:
    if numbers is None:
        return t.gettext("behind the button")
    first, last = numbers
    if first == last:
        return t.gettext("#{number}").format(number=t.number(first))
    return t.gettext("#{first}–{last}").format(first=t.number(first), last=t.number(last))


def _group_name(matched: MatchedFilter | None, t: Translator) -> str:
    if matched is None:
        return t.gettext("other")
    name = close_quotes(shorten(canonical(matched, t), 40))
    if not matched.number:  # 0: since removed
        return name
    return t.gettext("{name} (filter {number})").format(name=name, number=t.number(matched.number))


def _page(
    items: Composed,
    shown: Sequence[int],
    header: str,
    layout: Layout,
    *,
    first: int,
    counts: bool,
    t: Translator,
) -> list[Outgoing]:
    """The papers `shown` (in that order) as messages, each with its rows and, in a compact
    digest, a card button per paper."""
    listed = [items[i] for i in shown]
    messages = render_digest(
        [item for item, _ in listed],
        header,
        [first_filter(item) for item, _ in listed],
        compact=layout.compact,
        abstracts=layout.abstracts,
        first=first,
        counts=counts,
        t=t,
    )
    outgoing = messages_with_rows(messages, listed)
    for message, out in zip(messages, outgoing, strict=True):
        for i in message.items:  # a row a paper: its card (compact), 👍, 👎, 🔖
            row_id, number = listed[i][1][0].id, first + i
            out.buttons.append(entry_buttons(row_id, number, card=layout.compact, t=t))
    return outgoing


def digest_title(
    today: date,
    announced: Iterable[date | None] = (),
    *,
    weekly: bool = False,
    t: Translator = ENGLISH,
) -> str:
    """The digest's title names the announcement its papers came from (a digest read a day
    late, or after a quiet weekend, says which day it covers), else the day it was sent; a
    weekly digest's names the span of announcement days it covers."""
    days = sorted({when for when in announced if when})
    if weekly:
        return _weekly_title(today, days, t)
    if not days:
        return t.gettext("Your digest, {day}").format(day=day(today, t))
    if len(days) == 1:
        return t.gettext("Your digest: the {day} announcement").format(day=day(days[0], t))
    return t.gettext("Your digest: announcements of {first} to {last}").format(
        first=day(days[0], t, year=False), last=day(days[-1], t)
    )


def _weekly_title(today: date, days: list[date], t: Translator) -> str:
    if not days:
        return t.gettext("Your weekly digest, {day}").format(day=day(today, t))
    if len(days) == 1:
        return t.gettext("Your weekly digest: the {day} announcement").format(day=day(days[0], t))
    span = day_span(days[0], days[-1], t=t)
    return t.gettext("Your weekly digest: announcements of {span}").format(span=span)


def day_span(first: date, last: date, *, t: Translator = ENGLISH) -> str:
    """Two days as a span, saying the month and year once where they are shared:
    '1–5 Dec 2026', '30 Nov – 4 Dec 2026', '29 Dec 2026 – 2 Jan 2027' in English as the bot
    always wrote it; another language's own interval form (Babel's)."""
    if t.locale.language != "en":
        return format_interval(first, last, "yMMMd", locale=t.locale)
    if (first.year, first.month) == (last.year, last.month):
        return f"{t.date(first, format='d')}–{day(last, t)}"
    if first.year == last.year:
        return f"{day(first, t, year=False)} – {day(last, t)}"
    return f"{day(first, t)} – {day(last, t)}"


def empty_digest_line(arrived: int, *, t: Translator = ENGLISH) -> str:
    """What a digest says when nothing of the chat's waits: why (nothing matched, or nothing
    arrived at all), so a quiet day is not taken for a broken bot."""
    if arrived:
        return t.ngettext(
            "Nothing matched your filters among {count} new paper since the last digest.",
            "Nothing matched your filters among {count} new papers since the last digest.",
            arrived,
        ).format(count=t.number(arrived))
    return t.gettext("No announcement since the last digest: no new listing arrived.")
