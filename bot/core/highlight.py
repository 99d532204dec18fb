"""Which words of a paper made a filter match: spans of title and abstract for the renderer."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.core.analysis import Token, initials_form, tokens
from bot.core.paper import Paper
from bot.core.query import Category, Node, Phrase, PhrasePrefix, Prefix, Word, leaves


@dataclass(frozen=True, slots=True)
class Highlight:
    field: str  # title | abstract | author (start: the author's index in Paper.authors)
    start: int
    end: int


class Analysed:
    """A text's tokens and where each term occurs, so that a filter's words are looked up rather
    than searched for. A digest round marks ~600 papers for each of thousands of chats, the same
    few thousand texts over and over: analysed once each (FilterMarks keeps them), marking a
    (filter, paper) pair took 4 ms and takes about 0.05 (bench/day.py)."""

    __slots__ = ("tokens", "terms", "at", "_starting")

    def __init__(self, text: str) -> None:
        self.tokens = tokens(text)
        self.terms = [t.term for t in self.tokens]
        at: dict[str, list[int]] = {}
        for i, term in enumerate(self.terms):
            at.setdefault(term, []).append(i)
        self.at = at
        self._starting: dict[str, list[int]] = {}

    def starting(self, prefix: str) -> list[int]:
        """Where the words that start with `prefix` are: a scan of every word, once per text and
        prefix (a prefix leaf cost 100 us a paper, scanned again for every filter that has it)."""
        found = self._starting.get(prefix)
        if found is None:
            found = [i for i, t in enumerate(self.tokens) if t.folded.startswith(prefix)]
            self._starting[prefix] = found
        return found


Marked = Word | Phrase | Prefix | PhrasePrefix


def marked_leaves(query: Node) -> tuple[Marked, ...]:
    """The filter's positive words, phrases and prefixes: what highlights mark."""
    return tuple(
        leaf for leaf, positive in leaves(query) if positive and not isinstance(leaf, Category)
    )


def highlights(
    query: Node | tuple[Marked, ...],
    paper: Paper,
    analyse: Callable[[str], Analysed] = Analysed,
) -> list[Highlight]:
    """The spans of title and abstract that the filter's positive words matched, merged, and the
    authors its positive `au:` words matched (the
    filter, or its `marked_leaves`, which a caller marking many papers keeps). `analyse`: a
    text's `Analysed`, which such a caller may remember; each text is analysed once a call."""
    marked = query if isinstance(query, tuple) else marked_leaves(query)
    found: list[Highlight] = []
    # one loop a field, no list made but the spans: a digest marks ~180 papers a chat, each
    # with one or two words (bench/day.py's population: 6.9 us a paper with a list per step, 5.0)
    for field, text in (("title", paper.title), ("abstract", paper.abstract)):
        analysed = None
        spans: list[tuple[int, int]] = []
        for leaf in marked:
            if field in leaf.fields:
                analysed = analysed or analyse(text)
                spans += leaf_spans(leaf, text, analysed)
        found += [Highlight(field, start, end) for start, end in _merge(spans)]
    author_leaves = [leaf for leaf in marked if "author" in leaf.fields]
    for index, name in enumerate(paper.authors if author_leaves else ()):
        # the name as written, or with initials as the matcher also reads it (au:"B Reeder")
        forms = [name, *filter(None, [initials_form(name)])]
        if any(occurs(leaf, form, analyse(form)) for form in forms for leaf in author_leaves):
            found.append(Highlight("author", index, index + 1))
    return found


def occurs(leaf: Marked, text: str, analysed: Analysed) -> bool:
    """Whether a word, phrase or prefix of a filter occurs in the (analysed) text."""
    if isinstance(leaf, Word):
        return leaf.term in analysed.at
    if isinstance(leaf, Prefix):
        return bool(analysed.starting(leaf.prefix))
    return bool(leaf_spans(leaf, text, analysed))


def leaf_spans(leaf: Marked, text: str, analysed: Analysed) -> list[tuple[int, int]]:
    """Where a word, phrase or prefix of a filter occurs in the (analysed) text."""
    words, terms = analysed.tokens, analysed.terms
    if isinstance(leaf, Word):
        return [(words[i].start, words[i].end) for i in analysed.at.get(leaf.term, ())]
    if isinstance(leaf, Prefix):
        return [(words[i].start, words[i].end) for i in analysed.starting(leaf.prefix)]
    spans: list[tuple[int, int]] = []
    size = len(leaf.terms)
    if isinstance(leaf, PhrasePrefix):  # the full words, then the one the prefix starts
        for i in _starts(analysed, leaf.terms):
            if i + size >= len(words) or not words[i + size].folded.startswith(leaf.prefix):
                continue
            if tuple(terms[i : i + size]) == leaf.terms:
                spans += _phrase_spans(text, words[i : i + size + 1])
        return spans
    for i in _starts(analysed, leaf.terms):
        if tuple(terms[i : i + size]) == leaf.terms:
            spans += _phrase_spans(text, words[i : i + size])
    return spans


def _starts(analysed: Analysed, terms: tuple[str, ...]) -> Iterable[int]:
    """Where a phrase may start: where its first word occurs (anywhere, for no words)."""
    return analysed.at.get(terms[0], ()) if terms else range(len(analysed.tokens))


def merge_highlights(marks: Iterable[Highlight]) -> list[Highlight]:
    """Several filters' highlights of one paper as one list: overlaps joined, in order."""
    marks = list(marks)
    merged: list[Highlight] = []
    for field in ("title", "abstract", "author"):
        spans = [(m.start, m.end) for m in marks if m.field == field]
        merged += [Highlight(field, start, end) for start, end in _merge(spans)]
    return merged


def _phrase_spans(text: str, words: list[Token]) -> list[tuple[int, int]]:
    """One span over a phrase whose words are joined by spaces or hyphens (KV-cache); a span per
    word where other characters stand between them ("(KV) caches")."""
    joined = all(
        not text[a.end : b.start].strip(" -\u2010\u2011")
        for a, b in zip(words, words[1:])  # noqa: B905
    )
    if joined:
        return [(words[0].start, words[-1].end)]
    return [(w.start, w.end) for w in words]


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    if len(spans) < 2:  # most often: a word found once, or not at all
        return spans
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
