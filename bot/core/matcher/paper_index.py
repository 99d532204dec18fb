"""PaperIndex: recent papers filed under their keys, and a filter's matches among them found
from its anchors (FilterIndex the other way round: one filter, many papers).

A paper is analysed once (a Document), filed under its keys of every AnchorKind (for the
prefix kinds, its folded words), and the Document is dropped. A filter is anchored as
FilterIndex anchors it (`anchor_program`, on the rarest part by these papers' own term
frequencies); the papers holding one of its anchors are its candidates. As in FilterIndex, an
exact filter's candidates are its matches, a pair's are those that also hold one of its second
anchors, an unless-filter's those that hold none of them; only other filters are run, on the
candidates' Documents made again (0.7 ms a paper), and a filter with no anchor on every paper.

Papers are kept by announcement day (undated papers as one more day), in segments that are never
changed once made: a paper stored later goes into a new segment of its day, a newer version of
a paper too, and the older version stays behind as dead (left out of every answer) until its day
leaves the window or the day is filed again as one segment. An index is a value: `updated`
returns a new one and shares the segments that did not change, so threads read an index while
the next is made, without a lock.

Memory: the keys, not the Documents (72 KB a paper), and the papers themselves (3 KB), for the
window's days and no others; an older version stays until its day leaves or the day is filed
again. Measured with tracemalloc, what the index keeps besides the papers: 28 MB for 7 real days
(2,283 papers, 12 KB a paper), 132 MB for a busy week of 2,000 papers a day (9.4 KB a paper, a
third of it the pairs); the process grows by 46 MB and 224 MB (bench/preview.py).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import date
from itertools import chain

import numpy as np
import numpy.typing as npt

from bot.core.matcher.anchors import Anchor, AnchorKind, anchor_program, is_exact, pair_anchors
from bot.core.matcher.document import Document
from bot.core.matcher.index import Probe
from bot.core.matcher.program import Program, compile_query
from bot.core.paper import Paper
from bot.core.query import Node

# The ids of the papers holding a key: most keys are held by one paper, kept as its id itself,
# which the paper's other keys share (a tuple for each key would take a third more).
Held = int | tuple[int, ...]
Ids = npt.NDArray[np.int64]
MERGE_AT = 8  # a day's segments are filed again as one when it has more


class Segment:
    """Papers of one announcement day (None: undated) filed at one time: per AnchorKind, the
    ids of the papers holding each key (for the prefix kinds, each folded word), and the folded
    words sorted, so that the words a prefix begins are found by bisection.

    Adjacent pairs are kept apart: most of them are held by one paper in a week, and as "a b"
    strings in a dict they took 58% of the memory on a real week (107 bytes a pair). Each word
    of a pair gets a number in the segment, a pair is the two numbers in one 64-bit code, and
    the codes are kept sorted in an array beside the ids of their papers (16 bytes a pair
    held)."""

    __slots__ = ("day", "papers", "postings", "words", "numbers", "pairs")

    def __init__(self, day: date | None, papers: dict[int, Paper]) -> None:
        """The papers analysed and filed (their Documents dropped once their keys are read)."""
        self.day, self.papers = day, papers
        filed: list[dict[str, list[int]]] = [{} for _ in AnchorKind]
        self.numbers: dict[str, int] = {}  # the words of the pairs, numbered
        codes: dict[AnchorKind, list[int]] = {kind: [] for kind in AnchorKind if kind.is_pair}
        holders: dict[AnchorKind, list[int]] = {kind: [] for kind in codes}
        for paper_id, paper in papers.items():
            for kind, keys in zip(AnchorKind, paper_keys(Document(paper)), strict=True):
                if kind.is_pair:
                    codes[kind] += map(self._code, keys)
                    holders[kind] += [paper_id] * len(keys)
                    continue
                postings = filed[kind]
                for key in keys:
                    held = postings.get(key)
                    if held is None:
                        postings[key] = [paper_id]
                    else:
                        held.append(paper_id)
        self.postings = [{key: packed(ids) for key, ids in p.items()} for p in filed]
        self.words = [
            tuple(sorted(p)) if kind.is_prefix else ()
            for kind, p in zip(AnchorKind, self.postings, strict=True)
        ]
        self.pairs: dict[AnchorKind, tuple[Ids, Ids]] = {}
        for kind, kind_codes in codes.items():
            coded = np.array(kind_codes, dtype=np.int64)
            order = np.argsort(coded, kind="stable")
            self.pairs[kind] = coded[order], np.array(holders[kind], dtype=np.int64)[order]

    def _code(self, pair: str) -> int:
        """A pair "a b" as one integer: a's number, then b's (numbering the words unseen)."""
        first, _, second = pair.partition(" ")
        numbers = self.numbers
        first_number = numbers.setdefault(first, len(numbers))
        return first_number << 32 | numbers.setdefault(second, len(numbers))

    def holding(self, kind: AnchorKind, key: str) -> Iterable[int]:
        """The ids of the papers holding the key (of a prefix kind: a word it begins)."""
        if kind.is_pair:
            first, _, second = key.partition(" ")
            a, b = self.numbers.get(first), self.numbers.get(second)
            if a is None or b is None:
                return ()
            codes, ids = self.pairs[kind]
            code = a << 32 | b
            found = ids[codes.searchsorted(code) : codes.searchsorted(code, "right")]
            return found.tolist()  # type: ignore[no-any-return]
        postings = self.postings[kind]
        if not kind.is_prefix:
            held = postings.get(key)
            return () if held is None else unpacked(held)
        words = self.words[kind]
        begun = []
        at = bisect_left(words, key)
        while at < len(words) and words[at].startswith(key):
            begun.append(postings[words[at]])
            at += 1
        return chain.from_iterable(map(unpacked, begun))


def paper_keys(doc: Document) -> list[frozenset[str]]:
    """A paper's keys of each kind, at the kind's value: for prefix kinds its folded words,
    which is what a prefix anchor is looked for in."""
    keys = Probe(doc).keys_by_kind()
    return [doc.folded[kind.fields] if kind.is_prefix else keys[kind] for kind in AnchorKind]


def packed(ids: Sequence[int]) -> Held:
    return ids[0] if len(ids) == 1 else tuple(ids)


def unpacked(held: Held) -> tuple[int, ...]:
    return (held,) if isinstance(held, int) else held


class TermShares(Mapping[str, float]):
    """The share of the index's papers whose title or abstract holds each term, counted when
    asked (anchoring a filter asks for a few): what `anchor_program` takes as frequencies.
    Dead versions count too; this only steers which anchor is chosen."""

    def __init__(self, segments: Sequence[Segment], papers: int) -> None:
        self._segments = segments
        self._papers = papers

    def __getitem__(self, term: str) -> float:
        text = AnchorKind.TEXT_TERM
        count = sum(len(unpacked(s.postings[text].get(term, ()))) for s in self._segments)
        if not count:
            raise KeyError(term)
        return count / self._papers

    def __iter__(self) -> Iterator[str]:
        return iter({t for s in self._segments for t in s.postings[AnchorKind.TEXT_TERM]})

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __bool__(self) -> bool:
        return self._papers > 0


class PaperIndex:
    """The papers of a window of announcement days, by key; `matching(query)` finds a filter's
    papers among them. Never changed: `updated` gives the next index."""

    __slots__ = ("_segments", "_live", "_dead", "_start", "first_id")

    def __init__(self) -> None:
        self._segments: tuple[Segment, ...] = ()
        self._live: dict[int, Segment] = {}  # paper id -> the segment of its newest version
        self._dead: dict[Segment, frozenset[int]] = {}  # older versions left in a segment
        self._start: date | None = None  # the window's first day (None: undated papers only)
        self.first_id: int | None = None  # the lowest paper id held

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, paper_id: object) -> bool:
        return paper_id in self._live

    @property
    def start(self) -> date | None:
        return self._start

    @property
    def segments(self) -> int:
        """How many segments the papers are in (for tests and inspection)."""
        return len(self._segments)

    def papers(self) -> dict[int, Paper]:
        """Every paper held, by id in order."""
        return {i: self._live[i].papers[i] for i in sorted(self._live)}

    def updated(self, papers: Iterable[tuple[int, Paper]], *, start: date | None) -> PaperIndex:
        """The index with these papers filed (a paper held already: its newer version), and
        only the papers announced on `start` or later, or undated, kept (start None: the
        undated only); what the window leaves is dropped."""
        index = PaperIndex()
        index._start = start
        kept = [s for s in self._segments if in_window(s.day, start)]
        index._live = {i: s for i, s in self._live.items() if in_window(s.day, start)}
        dead = {s: self._dead[s] for s in kept if s in self._dead}
        by_day: dict[date | None, dict[int, Paper]] = {}
        for paper_id, paper in papers:
            older = index._live.pop(paper_id, None)
            if older is not None:
                dead[older] = dead.get(older, frozenset()) | {paper_id}
            for filed in by_day.values():  # given twice: the later stands
                filed.pop(paper_id, None)
            if in_window(paper.announced, start):
                by_day.setdefault(paper.announced, {})[paper_id] = paper
        for day, filed in by_day.items():
            segment = Segment(day, filed)
            kept.append(segment)
            index._live.update(dict.fromkeys(filed, segment))
        index._segments, index._dead = tuple(kept), dead
        for day in by_day:
            if sum(s.day == day for s in kept) > MERGE_AT:
                index._file_again(day)
        index.first_id = min(index._live, default=None)
        return index

    def _file_again(self, day: date | None) -> None:
        """A day's live papers in one segment instead of many (while the index is being made):
        rare, a day stored in many parts; its papers are analysed again."""
        live = {i: s.papers[i] for i, s in sorted(self._live.items()) if s.day == day}
        one = Segment(day, live)
        self._segments = (*(s for s in self._segments if s.day != day), one)
        self._dead = {s: ids for s, ids in self._dead.items() if s.day != day}
        self._live.update(dict.fromkeys(live, one))

    # -- matching --------------------------------------------------------------------------------

    def matching(self, query: Node) -> dict[int, Paper]:
        """The papers the filter matches, by id in order."""
        compiled = compile_query(query)
        program, anchors = anchor_program(compiled, TermShares(self._segments, len(self._live)))
        if not anchors:
            found = self._checked(compiled, self._live)
        else:
            candidates = self._holding(anchors)
            pair = pair_anchors(program)
            if pair is not None:
                seconds, negated = pair
                if negated:
                    found = candidates - self._holding(seconds)
                else:
                    found = candidates & self._holding(seconds)
            elif is_exact(program):
                found = candidates
            else:
                found = self._checked(program, candidates)
        return {i: self._live[i].papers[i] for i in sorted(found)}

    def _holding(self, anchors: Sequence[Anchor]) -> set[int]:
        """The live papers holding one of the anchors."""
        found: set[int] = set()
        for segment in self._segments:
            held = set(chain.from_iterable(segment.holding(k, key) for k, key in anchors))
            found |= held.difference(self._dead.get(segment, ())) if held else held
        return found

    def _checked(self, program: Program, candidates: Iterable[int]) -> set[int]:
        """The candidates the program matches, each analysed again."""
        live = self._live
        return {i for i in candidates if program.matches(Document(live[i].papers[i]))}


def in_window(day: date | None, start: date | None) -> bool:
    return day is None or (start is not None and day >= start)
