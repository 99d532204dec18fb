"""Anchors: the terms a paper must hold for a filter to have a chance, chosen as cheaply as can be.

A filter's anchors are a set of (kind, key) pairs at least one of which every paper it matches
holds: a word's term, the rarest adjacent pair of a phrase, a prefix, a category key. A phrase
whose last word is a prefix (fine-tun*) is anchored as the phrase of its full words would be (a
lone full word: its term), never on the prefix. An AND
needs the anchors of one of its parts (the cheapest), an OR needs those of all its parts, a NOT
gives none (the filter is then checked against every paper). The cost of a choice is the share
of papers it is expected to bring as candidates, from the term frequencies of recent papers.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from enum import IntEnum

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
    PhrasePrefixTest,
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
    folded words of the same; category keys. Abstract-only leaves are filed with the whole text
    (and checked), which spares every paper a lookup of its abstract's terms, pairs and
    prefixes; title-only ones have kinds of their own (titles are short, cheap to look up: with
    its own kind, `ti:agent*` is found without a check, which on realistic filters was a sixth
    of the checks). The index keeps one dict of postings per kind, at the kind's value."""

    # What each member knows, as plain attributes (set once, in __new__): the field bits whose
    # terms, pairs or folded words a paper is looked up in (0 for a category), and the shape of
    # its keys. Plain attributes, not properties: anchoring a million filters reads them a few
    # million times, and a property call costs five times as much.
    fields: int
    is_term: bool
    is_pair: bool
    is_prefix: bool
    is_category: bool

    def __new__(cls, value: int, fields: int, shape: str) -> AnchorKind:
        kind = int.__new__(cls, value)
        kind._value_ = value
        kind.fields = fields
        kind.is_term, kind.is_pair = shape == "term", shape == "pair"
        kind.is_prefix, kind.is_category = shape == "prefix", shape == "category"
        return kind

    TITLE_TERM = 0, TITLE, "term"
    TEXT_TERM = 1, TEXT, "term"
    AUTHOR_TERM = 2, AUTHOR, "term"
    TITLE_PAIR = 3, TITLE, "pair"
    TEXT_PAIR = 4, TEXT, "pair"
    AUTHOR_PAIR = 5, AUTHOR, "pair"
    TEXT_PREFIX = 6, TEXT, "prefix"
    AUTHOR_PREFIX = 7, AUTHOR, "prefix"
    CATEGORY = 8, 0, "category"
    TITLE_PREFIX = 9, TITLE, "prefix"


# The kind for a term, a pair or a prefix in given fields (TITLE, TEXT or AUTHOR).
TERM_KINDS = {kind.fields: kind for kind in AnchorKind if kind.is_term}
PAIR_KINDS = {kind.fields: kind for kind in AnchorKind if kind.is_pair}
PREFIX_KINDS = {kind.fields: kind for kind in AnchorKind if kind.is_prefix}

Anchor = tuple[AnchorKind, str]
Leaf = WordTest | PhraseTest | PrefixTest | PhrasePrefixTest | CategoryTest


def leaf_anchors(leaf: Leaf, frequency: Mapping[str, float]) -> list[Anchor]:
    """A leaf's anchors: one per field set it is looked up in (text, authors), or its category
    keys; a phrase is anchored on the adjacent pair whose rarer word is rarest, a phrase ending
    in a prefix on its full words alike (on the term of a lone one)."""
    if isinstance(leaf, WordTest):
        return _field_anchors(leaf.fields, leaf.term, TERM_KINDS)
    if isinstance(leaf, PhrasePrefixTest) and len(leaf.terms) == 1:
        return _field_anchors(leaf.fields, leaf.terms[0], TERM_KINDS)
    if isinstance(leaf, CategoryTest):
        return [(AnchorKind.CATEGORY, key) for key in leaf.keys]
    if isinstance(leaf, PrefixTest):
        return _field_anchors(leaf.fields, leaf.prefix, PREFIX_KINDS)
    pairs = zip(leaf.terms, leaf.terms[1:])  # noqa: B905
    first, second = min(
        pairs, key=lambda p: min(word_cost(p[0], frequency), word_cost(p[1], frequency))
    )
    # Interned, so that the posting lists' key and every filter's stored anchor are one string.
    return _field_anchors(leaf.fields, sys.intern(f"{first} {second}"), PAIR_KINDS)


def _field_anchors(fields: int, key: str, kinds: Mapping[int, AnchorKind]) -> list[Anchor]:
    """The key under the kind for the text part of the fields (abstract only: the whole text),
    and under the kind for authors."""
    text = fields & TEXT
    if text == ABSTRACT:
        text = TEXT
    if fields & AUTHOR:
        return [(kinds[text], key), (kinds[AUTHOR], key)] if text else [(kinds[AUTHOR], key)]
    return [(kinds[text], key)]


def cost(anchors: Iterable[Anchor], frequency: Mapping[str, float]) -> float:
    """Estimated share of papers an anchor set brings as candidates: known word frequencies,
    else longer words (and pairs of words) are taken to be rarer, categories common."""
    total = 0.0
    for kind, key in anchors:
        if kind.is_category:
            total += 0.6 if key.endswith(".") else 0.3  # an archive, or one subject
        elif kind.is_prefix:
            total += 3 * word_cost(key, frequency) * (0.3 if kind.fields == TITLE else 1.0)
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
    # (isinstance with tuples, commonest first: a union type is slower to test against, and
    # anchoring a million filters runs this a few million times)
    if isinstance(program, (WordTest, PhraseTest, PrefixTest, CategoryTest, PhrasePrefixTest)):
        return leaf_anchors(program, frequency)
    if isinstance(program, (AllWords, WordsBut)):
        fields, words = program.fields, program.words
        return _cheapest([_field_anchors(fields, w, TERM_KINDS) for w in words], frequency)
    if isinstance(program, (NotTest, NoWords)):
        return None
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
    assert isinstance(program, Anchored), program
    return anchors_of(program.part, frequency)


def is_exact(program: Program) -> bool:
    """A hit on the program's anchors is a match: a lone word, two-word phrase, prefix or
    category, except in the abstract alone (filed with the whole text); or an OR of such
    programs (its anchors are theirs, and a hit on one of them is a match of that part). An
    exact program's anchors never depend on frequencies."""
    if isinstance(program, AnyOf):
        return all(map(is_exact, program.parts))
    if isinstance(program, CategoryTest):
        return True
    if isinstance(program, WordTest):
        return program.fields & TEXT != ABSTRACT
    if isinstance(program, PhraseTest):
        return len(program.terms) == 2 and program.fields & TEXT != ABSTRACT
    if isinstance(program, PrefixTest):
        return program.fields & TEXT != ABSTRACT
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
    parts = _and_parts(program)
    for i, part in enumerate(parts):
        if is_exact(part) and anchors_of(part, frequency) == anchors:
            rest = parts[:i] + parts[i + 1 :]
            return Anchored(part, rest[0] if len(rest) == 1 else AllOf(rest)), tuple(anchors)
    return program, tuple(anchors)


def _and_parts(program: Program) -> tuple[Program, ...]:
    """The parts of an AND (none if it is not one). An AND of plain words compiled to one set
    test (`alpha beta`, `alpha -beta`) comes back as its two parts when it has two, so that it
    can be kept as Anchored and filed as a pair (see `pair_anchors`)."""
    if isinstance(program, AllOf):
        return program.parts
    if isinstance(program, AllWords | WordsBut):
        parts: tuple[Program, ...] = tuple(
            WordTest(program.fields, word) for word in sorted(program.words)
        )
        if isinstance(program, WordsBut) and program.excluded:
            parts += (NoWords(program.fields, program.excluded),)
        return parts if len(parts) == 2 else ()
    return ()


def pair_anchors(program: Program) -> tuple[tuple[Anchor, ...], bool] | None:
    """For an AND of an exact part and one more exact part (or the NOT of one), kept as
    Anchored(part, rest) and filed under the part's anchors: the rest's anchors, and whether a
    match must lack them. A paper that holds the part then matches when it holds one of the
    rest's anchors (negated: none of them), so the index looks them up among the paper's keys
    instead of checking the filter. None for any other program, and for a rest (not negated)
    with a prefix among its anchors: the index finds those of a paper's prefixes only that
    something is filed under, and files a pair under its first part."""
    if not isinstance(program, Anchored):
        return None
    rest, negated = program.rest, False
    if isinstance(rest, NotTest):
        rest, negated = rest.part, True
    elif isinstance(rest, NoWords):
        rest, negated = AnyOf(tuple(WordTest(rest.fields, w) for w in sorted(rest.words))), True
    if not is_exact(rest):
        return None
    anchors = anchors_of(rest, {})  # an exact program's anchors need no frequencies
    if anchors is None or (not negated and any(kind.is_prefix for kind, _ in anchors)):
        return None
    return tuple(anchors), negated


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
