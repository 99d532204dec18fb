"""Compiled programs: a filter's query tree turned into small objects that test a Document.

Every program has one method, `matches(doc)`, so running a filter is a chain of method calls with
no dispatch on a code. There is a class per kind of query node (WordTest, PhraseTest, PrefixTest,
PhrasePrefixTest, CategoryTest, AllOf, AnyOf, NotTest); besides, an AND's plain words become one
set test per field set (AllWords, NoWords, WordsBut), and the index files an AND it finds through
an exact part as Anchored, which checks only the rest. Programs are values: nothing changes one
once compiled.

The classes are slotted, frozen dataclasses: equality and a readable repr for tests; a hash, so
that the index files a filter many people wrote in the same words once (a dict keyed by program);
and slots, which keep a leaf at 48 bytes (the tuple it replaced took 64) and each attribute one
indexed load away. Frozen costs nothing when matching: only building a program is slower.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.core.matcher.document import Document, field_bits
from bot.core.paper import Paper
from bot.core.query import And, Category, Node, Not, Or, Phrase, PhrasePrefix, Prefix, Word


class Program:
    """A compiled test of a Document."""

    __slots__ = ()

    def matches(self, doc: Document) -> bool:
        raise NotImplementedError


# -- leaves --------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class WordTest(Program):
    fields: int
    term: str

    def matches(self, doc: Document) -> bool:
        return self.term in doc.terms[self.fields]


@dataclass(slots=True, frozen=True)
class PhraseTest(Program):
    fields: int
    terms: tuple[str, ...]  # two or more

    def matches(self, doc: Document) -> bool:
        return doc.has_phrase(self.fields, self.terms)


@dataclass(slots=True, frozen=True)
class PrefixTest(Program):
    fields: int
    prefix: str

    def matches(self, doc: Document) -> bool:
        return doc.has_prefix(self.fields, self.prefix)


@dataclass(slots=True, frozen=True)
class PhrasePrefixTest(Program):
    """fine-tun*: the full words in order (as terms), then a word starting with the prefix."""

    fields: int
    terms: tuple[str, ...]  # one or more
    prefix: str  # folded, not singular

    def matches(self, doc: Document) -> bool:
        return doc.has_phrase_prefix(self.fields, self.terms, self.prefix)


@dataclass(slots=True, frozen=True)
class CategoryTest(Program):
    keys: tuple[str, ...]  # the keys of Document.categories any of which matches

    def matches(self, doc: Document) -> bool:
        return not doc.categories.isdisjoint(self.keys)


# -- combinations --------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class AllOf(Program):
    parts: tuple[Program, ...]

    def matches(self, doc: Document) -> bool:
        for part in self.parts:  # noqa: SIM110  (a plain loop: this is the hot path)
            if not part.matches(doc):
                return False
        return True


@dataclass(slots=True, frozen=True)
class AnyOf(Program):
    parts: tuple[Program, ...]

    def matches(self, doc: Document) -> bool:
        for part in self.parts:  # noqa: SIM110
            if part.matches(doc):
                return True
        return False


@dataclass(slots=True, frozen=True)
class NotTest(Program):
    part: Program

    def matches(self, doc: Document) -> bool:
        return not self.part.matches(doc)


# Words an AND needs all of, or none of, in the same fields: one C-level set test each; and both
# at once, for an AND of nothing but words and negated words on the same fields. The words are a
# sorted tuple (`words_of`), not a frozenset: set.issuperset and isdisjoint walk a tuple in C too
# (~30 ns more a test), and two words take 56 bytes where a frozenset took 216, which was the
# largest single share of a million generated filters' index (see docs/PERFORMANCE.md).
@dataclass(slots=True, frozen=True)
class AllWords(Program):
    fields: int
    words: tuple[str, ...]

    def matches(self, doc: Document) -> bool:
        return doc.terms[self.fields].issuperset(self.words)


@dataclass(slots=True, frozen=True)
class NoWords(Program):
    fields: int
    words: tuple[str, ...]

    def matches(self, doc: Document) -> bool:
        return doc.terms[self.fields].isdisjoint(self.words)


@dataclass(slots=True, frozen=True)
class WordsBut(Program):
    fields: int
    words: tuple[str, ...]
    excluded: tuple[str, ...]

    def matches(self, doc: Document) -> bool:
        terms = doc.terms[self.fields]
        return terms.issuperset(self.words) and terms.isdisjoint(self.excluded)


def words_of(words: Iterable[str]) -> tuple[str, ...]:
    """Words as the set tests keep them: each once, sorted, so that the same words in any order
    make equal programs (identical filters are filed once)."""
    return tuple(sorted(set(words)))


@dataclass(slots=True, frozen=True)
class Anchored(Program):
    """An AND as the index files it when its anchors come from a part that holds for every
    paper that has them (an exact part): a candidate passed that part already, only the rest is
    left to check."""

    part: Program
    rest: Program

    def matches(self, doc: Document) -> bool:
        return self.rest.matches(doc)


# -- compiling -----------------------------------------------------------------------------------


def compile_query(node: Node) -> Program:
    if isinstance(node, Word):
        return WordTest(field_bits(node.fields), node.term)
    if isinstance(node, Phrase):
        return PhraseTest(field_bits(node.fields), node.terms)
    if isinstance(node, Prefix):
        return PrefixTest(field_bits(node.fields), node.prefix)
    if isinstance(node, PhrasePrefix):
        return PhrasePrefixTest(field_bits(node.fields), node.terms, node.prefix)
    if isinstance(node, Category):
        if node.is_prefix or node.is_named or "." in node.value:
            return CategoryTest((node.value,))
        return CategoryTest((node.value, node.value + "."))  # an archive: itself or its subjects
    if isinstance(node, Not):
        return NotTest(compile_query(node.part))
    if isinstance(node, And):
        return _compile_and([compile_query(p) for p in node.parts])
    assert isinstance(node, Or)
    return AnyOf(tuple(compile_query(p) for p in node.parts))


def _compile_and(parts: list[Program]) -> Program:
    """Group the AND's plain words (and plain negated words) by fields into set tests, and put
    those cheap tests first."""
    needed: dict[int, set[str]] = {}
    excluded: dict[int, set[str]] = {}
    rest: list[Program] = []
    for part in parts:
        if isinstance(part, WordTest):
            needed.setdefault(part.fields, set()).add(part.term)
        elif isinstance(part, NotTest) and isinstance(part.part, WordTest):
            excluded.setdefault(part.part.fields, set()).add(part.part.term)
        else:
            rest.append(part)
    if not rest and len(needed) == 1 and set(excluded) <= set(needed):
        fields, words = next(iter(needed.items()))
        return WordsBut(fields, words_of(words), words_of(excluded.get(fields, ())))
    tests: list[Program] = [
        WordTest(fields, next(iter(words)))
        if len(words) == 1
        else AllWords(fields, words_of(words))
        for fields, words in needed.items()
    ]
    tests += [NoWords(fields, words_of(words)) for fields, words in excluded.items()]
    tests += rest
    return tests[0] if len(tests) == 1 else AllOf(tuple(tests))


def run(program: Program, doc: Document) -> bool:
    return program.matches(doc)


def matches(query: Node, paper: Paper) -> bool:
    """One filter against one paper (previews and tests; many filters go through FilterIndex)."""
    return compile_query(query).matches(Document(paper))
