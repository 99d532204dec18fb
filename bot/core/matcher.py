"""Matching papers against many filters: a presearcher in the manner of Lucene Monitor.

Each filter is compiled to a small tuple program and indexed by its *anchors*: a set of terms at
least one of which every matching paper must contain (an AND needs one part's anchors, an OR needs
all parts' anchors, a NOT gives none). A paper's own terms then find the candidate filters, and only
candidates are verified. Adding or removing a filter touches only its own posting lists, and the
cost of matching grows with the papers and the candidates, not with the number of filters.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.core.analysis import fold_category, fold_word, singular, tokens
from bot.core.paper import Paper
from bot.core.query import (
    And,
    Category,
    Node,
    Not,
    Or,
    Phrase,
    Prefix,
    Word,
    leaves,
)

_WORD = re.compile(r"[^\W_]+")

# Field bits of a compiled leaf.
TITLE, ABSTRACT, AUTHOR = 1, 2, 4
_FIELD_BITS = {"title": TITLE, "abstract": ABSTRACT, "author": AUTHOR}
# Opcodes of the compiled program: (op, ...) tuples.
WORD, PHRASE, PREFIX, CATEGORY, AND, OR, NOT = range(7)


class Document:
    """A paper's text, analysed once for matching (terms in order, folded forms for prefixes)."""

    __slots__ = (
        "title",
        "abstract",
        "title_folded",
        "abstract_folded",
        "authors",
        "authors_folded",
        "categories",
    )

    def __init__(self, paper: Paper) -> None:
        self.title_folded = [fold_word(w) for w in _WORD.findall(paper.title)]
        self.abstract_folded = [fold_word(w) for w in _WORD.findall(paper.abstract)]
        self.title = [singular(f) for f in self.title_folded]
        self.abstract = [singular(f) for f in self.abstract_folded]
        self.authors_folded = [[fold_word(w) for w in _WORD.findall(a)] for a in paper.authors]
        self.authors = [[singular(f) for f in name] for name in self.authors_folded]
        self.categories = [fold_category(c) for c in paper.categories]

    def sequences(self, fields: int) -> list[list[str]]:
        found = []
        if fields & TITLE:
            found.append(self.title)
        if fields & ABSTRACT:
            found.append(self.abstract)
        if fields & AUTHOR:
            found.extend(self.authors)
        return found

    def folded(self, fields: int) -> list[list[str]]:
        found = []
        if fields & TITLE:
            found.append(self.title_folded)
        if fields & ABSTRACT:
            found.append(self.abstract_folded)
        if fields & AUTHOR:
            found.extend(self.authors_folded)
        return found


def _contains_phrase(sequence: list[str], phrase: tuple[str, ...]) -> bool:
    first, size = phrase[0], len(phrase)
    start = 0
    while True:
        try:
            i = sequence.index(first, start)
        except ValueError:
            return False
        if tuple(sequence[i : i + size]) == phrase:
            return True
        start = i + 1


def category_matches(category: str, value: str, is_prefix: bool) -> bool:
    if is_prefix:
        return category.startswith(value)
    return category == value or ("." not in value and category.startswith(value + "."))


# -- compiling ---------------------------------------------------------------------------------

Program = tuple  # nested (op, ...) tuples


def _bits(fields: tuple[str, ...]) -> int:
    bits = 0
    for name in fields:
        bits |= _FIELD_BITS[name]
    return bits


def compile_query(node: Node) -> Program:
    if isinstance(node, Word):
        return (WORD, _bits(node.fields), node.term)
    if isinstance(node, Phrase):
        return (PHRASE, _bits(node.fields), node.terms)
    if isinstance(node, Prefix):
        return (PREFIX, _bits(node.fields), node.prefix)
    if isinstance(node, Category):
        return (CATEGORY, node.value, node.is_prefix)
    if isinstance(node, Not):
        return (NOT, compile_query(node.part))
    if isinstance(node, And):
        return (AND, *(compile_query(p) for p in node.parts))
    assert isinstance(node, Or)
    return (OR, *(compile_query(p) for p in node.parts))


def run(program: Program, doc: Document) -> bool:
    op = program[0]
    if op == WORD:
        term = program[2]
        return any(term in seq for seq in doc.sequences(program[1]))
    if op == PHRASE:
        return any(_contains_phrase(seq, program[2]) for seq in doc.sequences(program[1]))
    if op == PREFIX:
        prefix = program[2]
        return any(f.startswith(prefix) for seq in doc.folded(program[1]) for f in seq)
    if op == CATEGORY:
        return any(category_matches(c, program[1], program[2]) for c in doc.categories)
    if op == AND:
        return all(run(p, doc) for p in program[1:])
    if op == OR:
        return any(run(p, doc) for p in program[1:])
    return not run(program[1], doc)


# -- anchors -------------------------------------------------------------------------------------

# Anchor kinds: a text term, an author term, a text prefix, an author prefix, a category.
TEXT_TERM, AUTHOR_TERM, TEXT_PREFIX, AUTHOR_PREFIX, CATEGORY_EXACT, CATEGORY_PREFIX = range(6)
Anchor = tuple[int, str]


def _leaf_anchors(program: Program) -> list[Anchor]:
    op, fields = program[0], program[1]
    if op == CATEGORY:
        value, is_prefix = program[1], program[2]
        if is_prefix or "." not in value:
            return [(CATEGORY_PREFIX, value if is_prefix else value + "."), (CATEGORY_EXACT, value)]
        return [(CATEGORY_EXACT, value)]
    # Of a phrase, the longest word is the likeliest to be rare.
    term = max(program[2], key=len) if op == PHRASE else program[2]
    anchors = []
    if fields & (TITLE | ABSTRACT):
        anchors.append((TEXT_PREFIX if op == PREFIX else TEXT_TERM, term))
    if fields & AUTHOR:
        anchors.append((AUTHOR_PREFIX if op == PREFIX else AUTHOR_TERM, term))
    return anchors


def _cost(anchors: list[Anchor], frequency: Mapping[str, float]) -> float:
    """Estimated candidates an anchor set brings: known frequencies, else shorter words and
    categories are taken to be commoner."""
    total = 0.0
    for kind, key in anchors:
        if kind in (CATEGORY_EXACT, CATEGORY_PREFIX):
            total += 0.3 if kind == CATEGORY_EXACT else 0.6
        elif key in frequency:
            total += frequency[key] * (3 if kind in (TEXT_PREFIX, AUTHOR_PREFIX) else 1)
        else:
            total += 1.0 / (1 + len(key)) * (3 if kind in (TEXT_PREFIX, AUTHOR_PREFIX) else 1)
    return total


def anchors_of(program: Program, frequency: Mapping[str, float]) -> list[Anchor] | None:
    """Anchors such that any paper the program matches holds at least one; None if none exist."""
    op = program[0]
    if op == NOT:
        return None
    if op == AND:
        options = [a for p in program[1:] if (a := anchors_of(p, frequency)) is not None]
        return min(options, key=lambda a: _cost(a, frequency)) if options else None
    if op == OR:
        union: list[Anchor] = []
        for part in program[1:]:
            found = anchors_of(part, frequency)
            if found is None:
                return None
            union.extend(a for a in found if a not in union)
        return union
    return _leaf_anchors(program)


def _is_exact(program: Program) -> bool:
    """A lone word or category: a hit on its anchor is already a match."""
    if program[0] == WORD:  # anchors join title and abstract, so only a word on both is exact
        return program[1] in (TITLE | ABSTRACT, AUTHOR)
    return program[0] == CATEGORY and not program[2] and "." in program[1]


# -- the index -------------------------------------------------------------------------------------


class FilterIndex:
    """Filters indexed by anchor; `match` returns, per paper, the ids of the filters it matches."""

    def __init__(self, frequency: Mapping[str, float] | None = None) -> None:
        self._frequency = frequency or {}
        self._postings: tuple[dict[str, array], ...] = tuple({} for _ in range(6))
        self._programs: dict[int, Program] = {}
        self._exact: set[int] = set()
        self._unanchored: set[int] = set()
        self._prefix_lengths: tuple[set[int], set[int]] = (set(), set())

    def __len__(self) -> int:
        return len(self._programs)

    def __contains__(self, filter_id: int) -> bool:
        return filter_id in self._programs

    def add(self, filter_id: int, query: Node) -> None:
        if filter_id in self._programs:
            self.remove(filter_id)
        program = compile_query(query)
        self._programs[filter_id] = program
        if _is_exact(program):
            self._exact.add(filter_id)
        anchors = anchors_of(program, self._frequency)
        if anchors is None:
            self._unanchored.add(filter_id)
            return
        for kind, key in anchors:
            postings = self._postings[kind]
            if key not in postings:
                postings[key] = array("q")
                if kind in (TEXT_PREFIX, AUTHOR_PREFIX):
                    self._prefix_lengths[kind == AUTHOR_PREFIX].add(len(key))
            postings[key].append(filter_id)

    def remove(self, filter_id: int) -> None:
        program = self._programs.pop(filter_id, None)
        if program is None:
            return
        self._exact.discard(filter_id)
        self._unanchored.discard(filter_id)
        for kind, key in anchors_of(program, self._frequency) or []:
            postings = self._postings[kind].get(key)
            if postings is not None:
                postings.remove(filter_id)
                if not postings:
                    del self._postings[kind][key]

    def candidates(self, doc: Document) -> set[int]:
        postings = self._postings
        found: set[int] = set(self._unanchored)
        text_terms = set(doc.title) | set(doc.abstract)
        for term in text_terms:
            if (hit := postings[TEXT_TERM].get(term)) is not None:
                found.update(hit)
        author_terms = {t for name in doc.authors for t in name}
        for term in author_terms:
            if (hit := postings[AUTHOR_TERM].get(term)) is not None:
                found.update(hit)
        self._probe_prefixes(set(doc.title_folded) | set(doc.abstract_folded), TEXT_PREFIX, found)
        self._probe_prefixes({f for n in doc.authors_folded for f in n}, AUTHOR_PREFIX, found)
        for category in doc.categories:
            if (hit := postings[CATEGORY_EXACT].get(category)) is not None:
                found.update(hit)
            archive, dot, _ = category.partition(".")
            for key in (archive + ".", category + ".") if dot else (category + ".",):
                if (hit := postings[CATEGORY_PREFIX].get(key)) is not None:
                    found.update(hit)
        return found

    def _probe_prefixes(self, words: set[str], kind: int, found: set[int]) -> None:
        postings = self._postings[kind]
        if not postings:
            return
        lengths = sorted(self._prefix_lengths[kind == AUTHOR_PREFIX])
        for word in words:
            for length in lengths:
                if length > len(word):
                    break
                if (hit := postings.get(word[:length])) is not None:
                    found.update(hit)

    def match_document(self, doc: Document) -> list[int]:
        exact, programs = self._exact, self._programs
        return sorted(f for f in self.candidates(doc) if f in exact or run(programs[f], doc))

    def match(self, papers: Iterable[Paper]) -> list[list[int]]:
        return [self.match_document(Document(paper)) for paper in papers]


# -- highlights ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Highlight:
    field: str  # title | abstract
    start: int
    end: int


def highlights(query: Node, paper: Paper) -> list[Highlight]:
    """The spans of title and abstract that the filter's positive words matched, merged."""
    found: list[Highlight] = []
    for field, text in (("title", paper.title), ("abstract", paper.abstract)):
        analysed = tokens(text)
        terms = [t.term for t in analysed]
        spans: list[tuple[int, int]] = []
        for leaf, positive in leaves(query):
            if not positive or isinstance(leaf, Category) or field not in leaf.fields:
                continue
            if isinstance(leaf, Word):
                spans += [(t.start, t.end) for t in analysed if t.term == leaf.term]
            elif isinstance(leaf, Prefix):
                spans += [(t.start, t.end) for t in analysed if t.folded.startswith(leaf.prefix)]
            else:
                size = len(leaf.terms)
                spans += [
                    (analysed[i].start, analysed[i + size - 1].end)
                    for i in range(len(terms) - size + 1)
                    if tuple(terms[i : i + size]) == leaf.terms
                ]
        for start, end in _merge(spans):
            found.append(Highlight(field, start, end))
    return found


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
