"""Anchors: the terms a paper must hold for a filter to have a chance, chosen as cheaply as can be.

A filter's anchors are a set of (kind, key) pairs at least one of which every paper it matches
holds: a word's term, the rarest adjacent pair of a phrase, a prefix, a category key. An AND
needs the anchors of one of its parts (the cheapest), an OR needs those of all its parts, a NOT
gives none (the filter is then checked against every paper). The cost of a choice is the share
of papers it is expected to bring as candidates, from the term frequencies of recent papers.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from enum import IntEnum
from typing import TypeGuard

from bot.core.analysis import analyse_words
from bot.core.matcher.document import ABSTRACT, AUTHOR, TEXT, TITLE
from bot.core.matcher.program import (
    AllOf,
    AllWords,
    Anchored,
    AnyOf,
    CategoryTest,
    NotTest,
    NoWords,
    PhraseTest,
    PrefixTest,
    Program,
    WordsBut,
    WordTest,
)
from bot.core.paper import Paper


class AnchorKind(IntEnum):
    """What an anchor's key is, and so where a paper's keys are looked up: the terms, or the
    adjacent term pairs, of the title, of the whole text or of the authors; prefixes of the
    text's or the authors' folded words; category keys. Abstract-only leaves are filed with the
    whole text (and checked), which spares every paper a lookup of its abstract's terms and
    pairs; title-only ones have kinds of their own (titles are short, cheap to look up). The
    index keeps one dict of posting lists per kind, at the kind's value."""

    TITLE_TERM = 0
    TEXT_TERM = 1
    AUTHOR_TERM = 2
    TITLE_PAIR = 3
    TEXT_PAIR = 4
    AUTHOR_PAIR = 5
    TEXT_PREFIX = 6
    AUTHOR_PREFIX = 7
    CATEGORY = 8

    @property
    def fields(self) -> int:
        """The field bits whose terms, pairs or folded words a paper is looked up in (0 for a
        category)."""
        return _FIELDS[self]

    @property
    def is_pair(self) -> bool:
        return self in (AnchorKind.TITLE_PAIR, AnchorKind.TEXT_PAIR, AnchorKind.AUTHOR_PAIR)

    @property
    def is_prefix(self) -> bool:
        return self in (AnchorKind.TEXT_PREFIX, AnchorKind.AUTHOR_PREFIX)

    @staticmethod
    def term(fields: int) -> AnchorKind:
        """The kind for a term in TITLE, TEXT or AUTHOR."""
        return _TERM_KINDS[fields]

    @staticmethod
    def pair(fields: int) -> AnchorKind:
        return _PAIR_KINDS[fields]

    @staticmethod
    def prefix(fields: int) -> AnchorKind:
        return _PREFIX_KINDS[fields]


_TERM_KINDS = {
    TITLE: AnchorKind.TITLE_TERM,
    TEXT: AnchorKind.TEXT_TERM,
    AUTHOR: AnchorKind.AUTHOR_TERM,
}
_PAIR_KINDS = {
    TITLE: AnchorKind.TITLE_PAIR,
    TEXT: AnchorKind.TEXT_PAIR,
    AUTHOR: AnchorKind.AUTHOR_PAIR,
}
_PREFIX_KINDS = {TEXT: AnchorKind.TEXT_PREFIX, AUTHOR: AnchorKind.AUTHOR_PREFIX}
_FIELDS = {
    kind: fields
    for kinds in (_TERM_KINDS, _PAIR_KINDS, _PREFIX_KINDS)
    for fields, kind in kinds.items()
} | {AnchorKind.CATEGORY: 0}

Anchor = tuple[AnchorKind, str]
Leaf = WordTest | PhraseTest | PrefixTest | CategoryTest


def leaf_anchors(leaf: Leaf, frequency: Mapping[str, float]) -> list[Anchor]:
    """A leaf's anchors: one per field set it is looked up in (text, authors), or its category
    keys; a phrase is anchored on the adjacent pair whose rarer word is rarest."""
    if isinstance(leaf, CategoryTest):
        return [(AnchorKind.CATEGORY, key) for key in leaf.keys]
    if isinstance(leaf, PrefixTest):
        return [
            (AnchorKind.prefix(fields), leaf.prefix)
            for fields in (TEXT if leaf.fields & TEXT else 0, leaf.fields & AUTHOR)
            if fields
        ]
    if isinstance(leaf, WordTest):
        return _word_anchors(leaf.fields, leaf.term, pair=False)
    pairs = zip(leaf.terms, leaf.terms[1:])  # noqa: B905
    first, second = min(
        pairs, key=lambda p: min(word_cost(p[0], frequency), word_cost(p[1], frequency))
    )
    # Interned, so that the posting lists' key and every filter's stored anchor are one string.
    return _word_anchors(leaf.fields, sys.intern(f"{first} {second}"), pair=True)


def _word_anchors(fields: int, key: str, *, pair: bool) -> list[Anchor]:
    kind = AnchorKind.pair if pair else AnchorKind.term
    text = TEXT if fields & TEXT == ABSTRACT else fields & TEXT  # abstract: the whole text
    return [(kind(part), key) for part in (text, fields & AUTHOR) if part]


def cost(anchors: Iterable[Anchor], frequency: Mapping[str, float]) -> float:
    """Estimated share of papers an anchor set brings as candidates: known word frequencies,
    else longer words (and pairs of words) are taken to be rarer, categories common."""
    total = 0.0
    for kind, key in anchors:
        if kind is AnchorKind.CATEGORY:
            total += 0.6 if key.endswith(".") else 0.3  # an archive, or one subject
        elif kind.is_prefix:
            total += 3 * word_cost(key, frequency)
        else:
            if kind.is_pair:
                first, second = key.split(" ")
                share = min(word_cost(first, frequency), word_cost(second, frequency)) * 0.1
            else:
                share = word_cost(key, frequency)
            total += share * (0.3 if kind.fields == TITLE else 1.0)  # titles are short
    return total


def word_cost(word: str, frequency: Mapping[str, float]) -> float:
    """With frequencies, a word never seen is the rarest of all (length breaks ties); without,
    longer words are taken to be rarer."""
    by_length = 1.0 / (1 + len(word))
    if frequency:
        return frequency.get(word, 0.0) + by_length * 1e-6
    return by_length


def _cheapest(options: list[list[Anchor]], frequency: Mapping[str, float]) -> list[Anchor]:
    """Ties are broken by the anchors themselves: the same program and frequencies always give
    the same anchors."""
    return min(options, key=lambda anchors: (cost(anchors, frequency), anchors))


def anchors_of(program: Program, frequency: Mapping[str, float]) -> list[Anchor] | None:
    """Anchors such that any paper the program matches holds at least one; None if none exist.
    Of several choices the cheapest."""
    if isinstance(program, NotTest | NoWords):
        return None
    if isinstance(program, Anchored):
        return anchors_of(program.part, frequency)
    if isinstance(program, AllWords | WordsBut):
        words = program.words
        return _cheapest([_word_anchors(program.fields, w, pair=False) for w in words], frequency)
    if isinstance(program, AllOf):
        options = [a for p in program.parts if (a := anchors_of(p, frequency)) is not None]
        return _cheapest(options, frequency) if options else None
    if isinstance(program, AnyOf):
        union: list[Anchor] = []
        for part in program.parts:
            found = anchors_of(part, frequency)
            if found is None:
                return None
            union.extend(a for a in found if a not in union)
        return union
    assert isinstance(program, Leaf), program
    return leaf_anchors(program, frequency)


def is_exact(program: Program) -> TypeGuard[Leaf]:
    """A hit on the program's anchors is a match: a lone word, two-word phrase or category, or a
    prefix in the whole text or the authors (prefixes are probed in the text as a whole), except
    in the abstract alone (filed with the whole text). An exact program's anchors never depend on
    frequencies."""
    if isinstance(program, CategoryTest):
        return True
    if isinstance(program, WordTest):
        return program.fields & TEXT != ABSTRACT
    if isinstance(program, PhraseTest):
        return len(program.terms) == 2 and program.fields & TEXT != ABSTRACT
    if isinstance(program, PrefixTest):
        return program.fields & TEXT in (0, TEXT)
    return False


def anchor_program(
    program: Program, frequency: Mapping[str, float]
) -> tuple[Program, tuple[Anchor, ...]]:
    """The program as the index keeps it, and its anchors (none: checked against every paper).
    An AND whose anchors come from an exact part is kept as Anchored(part, rest), since every
    candidate already passes that part."""
    anchors = anchors_of(program, frequency)
    if anchors is None:
        return program, ()
    if isinstance(program, AllOf):
        parts = program.parts
        for i, part in enumerate(parts):
            if is_exact(part) and leaf_anchors(part, frequency) == anchors:
                rest = parts[:i] + parts[i + 1 :]
                return Anchored(part, rest[0] if len(rest) == 1 else AllOf(rest)), tuple(anchors)
    return program, tuple(anchors)


def term_frequencies(papers: Iterable[Paper]) -> dict[str, float]:
    """The share of papers each term occurs in (title or abstract): what FilterIndex uses to
    anchor a filter on its rarest part. Recent papers are a good sample."""
    counts: dict[str, int] = {}
    total = 0
    for paper in papers:
        total += 1
        for term in set(analyse_words(paper.title)[1]) | set(analyse_words(paper.abstract)[1]):
            counts[term] = counts.get(term, 0) + 1
    return {term: count / total for term, count in counts.items()} if total else {}
