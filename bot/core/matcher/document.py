"""A paper analysed once for matching: the Document every compiled program reads.

Words are matched as terms (folded, singular), phrases as adjacent pairs of terms (and then in
order), prefixes against the folded words, categories against their keys. Each is kept per field
set and indexed by field bits (TITLE, ABSTRACT, TEXT, AUTHOR), so the hot path reads them without
a dictionary lookup. A phrase whose last word is a prefix (fine-tun*) needs the folded words in
order, which no other test does: the texts are kept, and read again only where its full words
stand and a word starts with its prefix. A Document is a value: built once from a paper and
never changed afterwards; what a match learns about it (the prefixes found in it) lives in the
index's per-match `Probe`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from bot.core.analysis import (
    analyse_words,
    fold_category,
    fold_name,
    fold_word,
    initials_form,
    words,
)
from bot.core.journal_names import journal_keys
from bot.core.paper import Paper

# Field bits: a compiled leaf's fields, and the index into a Document's per-field tuples
# (0 is unused: every leaf names at least one field).
TITLE, ABSTRACT, AUTHOR = 1, 2, 4
TEXT = TITLE | ABSTRACT
FIELD_BITS = {"title": TITLE, "abstract": ABSTRACT, "author": AUTHOR}


def field_bits(fields: Iterable[str]) -> int:
    """The bits of field names: ("title", "abstract") -> TEXT."""
    bits = 0
    for name in fields:
        bits |= FIELD_BITS[name]
    return bits


class Document:
    """A paper's terms, adjacent term pairs, folded words and term sequences per field set,
    and its category keys."""

    __slots__ = ("terms", "pairs", "folded", "sequences", "texts", "categories")

    terms: tuple[frozenset[str], ...]  # per field bits: the terms (words match these)
    pairs: tuple[frozenset[str], ...]  # per field bits: adjacent terms as "a b"
    folded: tuple[frozenset[str], ...]  # per field bits: folded words (prefixes match these)
    sequences: tuple[tuple[tuple[str, ...], ...], ...]  # per field bits: terms in order
    texts: tuple[tuple[str, ...], ...]  # per field bits: the texts the sequences come from
    categories: frozenset[str]  # each category and its prefixes up to a dot; named_keys

    def __init__(self, paper: Paper) -> None:
        title_words, title_list = analyse_words(paper.title)
        abstract_words, abstract_list = analyse_words(paper.abstract)
        title, abstract = tuple(title_list), tuple(abstract_list)
        author_words: set[str] = set()
        authors: list[tuple[str, ...]] = []
        names = author_names(paper)
        for name in names:
            folded, found = analyse_words(name)
            author_words |= folded
            authors.append(tuple(found))
        title_terms, abstract_terms = frozenset(title), frozenset(abstract)
        author_terms = frozenset([t for name in authors for t in name])
        none: frozenset[str] = frozenset()
        self.sequences = ((), (title,), (abstract,), (title, abstract), tuple(authors))
        self.texts = (
            (), (paper.title,), (paper.abstract,), (paper.title, paper.abstract), names,
        )  # fmt: skip
        self.terms = (
            none, title_terms, abstract_terms, title_terms | abstract_terms, author_terms,
        )  # fmt: skip
        title_folded, abstract_folded = frozenset(title_words), frozenset(abstract_words)
        self.folded = (
            none, title_folded, abstract_folded, title_folded | abstract_folded,
            frozenset(author_words),
        )  # fmt: skip
        # Adjacent pairs as "a b" strings (terms hold no spaces): strings are not tracked by
        # the garbage collector, tuples are, and a paper has hundreds of pairs.
        title_pairs, abstract_pairs = pairs_of(title), pairs_of(abstract)
        author_pairs = frozenset([pair for name in authors for pair in pairs_of(name)])
        self.pairs = (
            none, title_pairs, abstract_pairs, title_pairs | abstract_pairs, author_pairs,
        )  # fmt: skip
        # Each category and each of its prefixes up to a dot: "math.na", "math.": what any
        # category test (exact, archive, prefix) looks up.
        categories: set[str] = set()
        for category in map(fold_category, paper.categories):
            categories.add(category)
            categories.update(
                category[: i + 1] for i, letter in enumerate(category) if letter == "."
            )
        categories.update(named_keys(paper))
        self.categories = frozenset(categories)

    def has_phrase(self, fields: int, phrase: tuple[str, ...]) -> bool:
        size = len(phrase)
        pairs = self.pairs[fields]
        if size == 2:
            return f"{phrase[0]} {phrase[1]}" in pairs
        if not pairs.issuperset(pairs_of(phrase)):
            return False  # a pair of it is missing; otherwise find the words in order
        for sequence in self.sequences[fields]:  # a plain loop: phrases of 3+ words are common
            start = 0
            while True:
                try:
                    i = sequence.index(phrase[0], start)
                except ValueError:
                    break
                if sequence[i : i + size] == phrase:
                    return True
                start = i + 1
        return False

    def has_prefix(self, fields: int, prefix: str) -> bool:
        return any(word.startswith(prefix) for word in self.folded[fields])

    def has_phrase_prefix(self, fields: int, phrase: tuple[str, ...], prefix: str) -> bool:
        """The phrase's terms in order, then a word whose folded form starts with the prefix.
        Sets first (the terms, or the pairs of a longer phrase, and the prefix), then the term
        sequences; a text's folded words are found again only where the terms stand."""
        size = len(phrase)
        if size == 1:
            if phrase[0] not in self.terms[fields]:
                return False
        elif not self.pairs[fields].issuperset(pairs_of(phrase)):
            return False
        if not self.has_prefix(fields, prefix):
            return False
        for number, sequence in enumerate(self.sequences[fields]):
            folded: tuple[str, ...] | None = None
            for i in positions(sequence, phrase[0]):
                if i + size < len(sequence) and sequence[i : i + size] == phrase:
                    if folded is None:  # the words as written, only once the terms are found
                        folded = self.folded_words(fields, number)
                    if folded[i + size].startswith(prefix):
                        return True
        return False

    def folded_words(self, fields: int, number: int) -> tuple[str, ...]:
        """The folded words in order of the number-th text of the fields (as `sequences`)."""
        return tuple(map(fold_word, words(self.texts[fields][number])))


def author_names(paper: Paper) -> tuple[str, ...]:
    """The authors as written, then each in its initials form where it differs ('Blaine
    Reeder', then 'B Reeder'): au:"B Reeder" finds Blaine Reeder as PubMed's 'Reeder B' would."""
    forms = [form for name in paper.authors if (form := initials_form(name))]
    return (*paper.authors, *forms)


def named_keys(paper: Paper) -> list[str]:
    """The keys `mesh:`, `jr:` and `src:` look up, kept with the category keys (a name is
    matched whole, as a category is): mesh:grid cell, jr:nature neuroscience, src:pubmed; a
    journal under each of its names (jr:nat neurosci too)."""
    keys = [f"mesh:{fold_name(term)}" for term in paper.mesh]
    keys.extend(f"jr:{name}" for name in journal_keys(paper.journal, paper.journal_abbreviations))
    keys.extend(f"src:{source}" for source in paper.sources)
    return keys


def positions(sequence: Sequence[str], word: str) -> Iterator[int]:
    """Where the word stands in the sequence, first to last."""
    start = 0
    while True:
        try:
            found = sequence.index(word, start)
        except ValueError:
            return
        yield found
        start = found + 1


def pairs_of(sequence: Sequence[str]) -> frozenset[str]:
    """The adjacent pairs of a sequence of terms, as "a b" strings."""
    return frozenset(map(" ".join, zip(sequence, sequence[1:])))  # noqa: B905
