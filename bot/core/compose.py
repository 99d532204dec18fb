"""What a chat is sent, before it is rendered: which papers, why (the filters that matched them,
as the chat numbers them) and where (the words to mark), and the wording around a digest.

The delivery rounds read rows, papers and filters from the store and hand them here; rendering
(bot.core.render) turns the items into messages.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date

from bot.core.chat import Delivery, Filter
from bot.core.highlight import Highlight, highlights, merge_highlights
from bot.core.paper import Paper
from bot.core.query import InvalidQuery, Node
from bot.core.render import Item, MatchedFilter, Message, plural

REMOVED = "a filter since removed"


class FilterMarks:
    """The words a filter matched in a paper. Many chats share popular filters, and a digest
    round meets the same (filter, paper) pair once per chat, so answers are remembered."""

    def __init__(self, parse: Callable[[str], Node], remembered: int = 4096) -> None:
        self._parse = parse
        self.of = functools.lru_cache(maxsize=remembered)(self._of)

    def _of(self, source: str, paper: Paper) -> tuple[Highlight, ...]:
        try:
            return tuple(highlights(self._parse(source), paper))
        except InvalidQuery:  # kept from a laxer paperbot: the paper is still sent, unmarked
            return ()


def compose_items(
    rows: Sequence[Delivery],
    papers: Mapping[int, Paper],
    filters: Sequence[Filter],
    marks: FilterMarks,
) -> list[tuple[Item, list[Delivery]]]:
    """One item per paper, with the rows it settles (a pending new version of a paper not sent
    yet goes out with it, as one). `filters` are the chat's, in /list order; a filter that
    matched and was removed since is named as such: the paper still goes, as promised."""
    by_id = {f.id: f for f in filters}
    numbers = {f.id: n for n, f in enumerate(filters, 1)}
    by_paper: dict[int, list[Delivery]] = defaultdict(list)
    for row in rows:
        by_paper[row.paper_id].append(row)
    items = []
    for paper_id, settled in by_paper.items():
        paper = papers[paper_id]
        matched: list[MatchedFilter] = []
        found: list[Highlight] = []
        for filter_id in sorted({f for r in settled for f in r.filter_ids}):
            known = by_id.get(filter_id)
            if known is None:
                matched.append(MatchedFilter(0, REMOVED))
                continue
            matched.append(MatchedFilter(numbers[filter_id], known.canonical))
            found += marks.of(known.source, paper)
        is_update = all(r.is_update for r in settled)
        items.append((Item(paper, merge_highlights(found), matched, is_update), settled))
    return items


def messages_with_rows(
    messages: Sequence[Message], items: Sequence[tuple[Item, list[Delivery]]]
) -> list[tuple[str, list[Delivery]]]:
    """Each rendered message with the ledger rows it settles once sent."""
    return [(m.text, [row for i in m.items for row in items[i][1]]) for m in messages]


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
