"""Matching papers against many filters: a presearcher in the manner of Lucene Monitor.

Each filter is compiled to a small tuple program and indexed by its *anchors*: a set of terms at
least one of which every matching paper must contain (an AND needs one part's anchors, an OR needs
all parts' anchors, a NOT gives none). A paper's own terms then find the candidate filters, and only
candidates are verified. Adding or removing a filter touches only its own posting lists, and the
cost of matching grows with the papers and the candidates, not with the number of filters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bot.core.analysis import analyse_words, fold_category
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
)

# Field bits of a compiled leaf.
TITLE, ABSTRACT, AUTHOR = 1, 2, 4
TEXT = TITLE | ABSTRACT
_FIELD_BITS = {"title": TITLE, "abstract": ABSTRACT, "author": AUTHOR}
# Opcodes of the compiled program: (op, ...) tuples.
WORD, PHRASE, PREFIX, CATEGORY, AND, OR, NOT = range(7)
# Words an AND needs all of, or none of, in the same fields: one C-level set test each; and
# both at once, for an AND of nothing but words and negated words on the same fields.
ALL_WORDS, NO_WORDS, WORDS_BUT = 7, 8, 9


class Document:
    """A paper analysed once for matching: the terms of each field as a set (words), their
    adjacent pairs (phrases) and folded forms (prefixes)."""

    __slots__ = ("terms", "pairs", "folded", "sequences", "categories", "prefixes")

    def __init__(self, paper: Paper) -> None:
        title_folded, title = analyse_words(paper.title)
        abstract_folded, abstract = analyse_words(paper.abstract)
        author_folded, authors = [], []
        for name in paper.authors:
            folded, found = analyse_words(name)
            author_folded.extend(folded)
            authors.append(found)
        self.sequences: dict[int, list[list[str]]] = {
            TITLE: [title],
            ABSTRACT: [abstract],
            TEXT: [title, abstract],
            AUTHOR: authors,
        }
        title_terms, abstract_terms = set(title), set(abstract)
        self.terms: dict[int, set[str]] = {
            TITLE: title_terms,
            ABSTRACT: abstract_terms,
            TEXT: title_terms | abstract_terms,
            AUTHOR: {t for name in authors for t in name},
        }
        # Adjacent pairs as "a b" strings (terms hold no spaces): strings are not tracked by
        # the garbage collector, tuples are, and a paper has hundreds of pairs.
        self.pairs: dict[int, set[str]] = {
            TEXT: {*_pairs(title), *_pairs(abstract)},
            AUTHOR: {pair for name in authors for pair in _pairs(name)},
        }
        title_words, abstract_words = set(title_folded), set(abstract_folded)
        self.folded: dict[int, set[str]] = {
            TITLE: title_words,
            ABSTRACT: abstract_words,
            TEXT: title_words | abstract_words,
            AUTHOR: set(author_folded),
        }
        self.categories = [fold_category(c) for c in paper.categories]
        # "fields:prefix" -> whether a word of those fields starts with it; the index fills it in
        # while it looks for candidates, so most prefix checks are one lookup. (String keys, not
        # tuples: nothing for the garbage collector to track.)
        self.prefixes: dict[str, bool] = {}

    def has_phrase(self, fields: int, phrase: tuple[str, ...]) -> bool:
        size = len(phrase)
        if size == 2 and fields in self.pairs:
            return f"{phrase[0]} {phrase[1]}" in self.pairs[fields]
        for sequence in self.sequences[fields]:
            start = 0
            while True:
                try:
                    i = sequence.index(phrase[0], start)
                except ValueError:
                    break
                if tuple(sequence[i : i + size]) == phrase:
                    return True
                start = i + 1
        return False

    def has_prefix(self, fields: int, prefix: str) -> bool:
        key = f"{fields}:{prefix}"
        found = self.prefixes.get(key)
        if found is None:
            found = any(word.startswith(prefix) for word in self.folded[fields])
            self.prefixes[key] = found
        return found


def _pairs(sequence: list[str]) -> list[str]:
    return [f"{a} {b}" for a, b in zip(sequence, sequence[1:])]  # noqa: B905


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
        return _compile_and([compile_query(p) for p in node.parts])
    assert isinstance(node, Or)
    return (OR, *(compile_query(p) for p in node.parts))


def _compile_and(parts: list[Program]) -> Program:
    """Group the AND's plain words (and plain negated words) by fields into set tests, and put
    those cheap tests first."""
    needed: dict[int, set[str]] = {}
    excluded: dict[int, set[str]] = {}
    rest: list[Program] = []
    for part in parts:
        if part[0] == WORD:
            needed.setdefault(part[1], set()).add(part[2])
        elif part[0] == NOT and part[1][0] == WORD:
            excluded.setdefault(part[1][1], set()).add(part[1][2])
        else:
            rest.append(part)
    if not rest and len(needed) == 1 and set(excluded) <= set(needed):
        fields, words = next(iter(needed.items()))
        return (WORDS_BUT, fields, frozenset(words), frozenset(excluded.get(fields, ())))
    tests: list[Program] = [
        (WORD, fields, next(iter(words)))
        if len(words) == 1
        else (ALL_WORDS, fields, frozenset(words))
        for fields, words in needed.items()
    ]
    tests += [(NO_WORDS, fields, frozenset(words)) for fields, words in excluded.items()]
    tests += rest
    return tests[0] if len(tests) == 1 else (AND, *tests)


def run(program: Program, doc: Document) -> bool:
    op = program[0]
    if op == AND:
        for part in program[1:]:  # noqa: SIM110  (a plain loop: this is the hot path)
            if not run(part, doc):
                return False
        return True
    if op == WORDS_BUT:
        terms = doc.terms[program[1]]
        return program[2] <= terms and terms.isdisjoint(program[3])
    if op == WORD:
        return program[2] in doc.terms[program[1]]
    if op == ALL_WORDS:
        return program[2] <= doc.terms[program[1]]
    if op == NO_WORDS:
        return doc.terms[program[1]].isdisjoint(program[2])
    if op == OR:
        for part in program[1:]:  # noqa: SIM110
            if run(part, doc):
                return True
        return False
    if op == PHRASE:
        return doc.has_phrase(program[1], program[2])
    if op == PREFIX:
        return doc.has_prefix(program[1], program[2])
    if op == CATEGORY:
        return any(category_matches(c, program[1], program[2]) for c in doc.categories)
    return not run(program[1], doc)


# -- anchors -------------------------------------------------------------------------------------

# Anchor kinds: a text term, an author term, a text prefix, an author prefix, a category, and
# adjacent word pairs (phrases) in the text or in one author's name.
TEXT_TERM, AUTHOR_TERM, TEXT_PREFIX, AUTHOR_PREFIX, CATEGORY_EXACT, CATEGORY_PREFIX = range(6)
TEXT_PAIR, AUTHOR_PAIR = 6, 7
ANCHOR_KINDS = 8
HEAD = 5  # prefixes this long or longer are grouped by their first HEAD letters
Anchor = tuple[int, str]


def _leaf_anchors(program: Program, frequency: Mapping[str, float]) -> list[Anchor]:
    op, fields = program[0], program[1]
    if op == CATEGORY:
        value, is_prefix = program[1], program[2]
        if is_prefix or "." not in value:
            return [(CATEGORY_PREFIX, value if is_prefix else value + "."), (CATEGORY_EXACT, value)]
        return [(CATEGORY_EXACT, value)]
    if op == PHRASE:
        # The adjacent pair whose rarer word is rarest.
        pairs = zip(program[2], program[2][1:])  # noqa: B905
        first, second = min(
            pairs, key=lambda p: min(_word_cost(p[0], frequency), _word_cost(p[1], frequency))
        )
        key = f"{first} {second}"
        text_kind, author_kind = TEXT_PAIR, AUTHOR_PAIR
    elif op == PREFIX:
        key, text_kind, author_kind = program[2], TEXT_PREFIX, AUTHOR_PREFIX
    else:
        key, text_kind, author_kind = program[2], TEXT_TERM, AUTHOR_TERM
    anchors: list[Anchor] = []
    if fields & TEXT:
        anchors.append((text_kind, key))
    if fields & AUTHOR:
        anchors.append((author_kind, key))
    return anchors


def _cost(anchors: list[Anchor], frequency: Mapping[str, float]) -> float:
    """Estimated share of papers an anchor set brings as candidates: known word frequencies,
    else longer words (and pairs of words) are taken to be rarer, categories common."""
    total = 0.0
    for kind, key in anchors:
        if kind in (CATEGORY_EXACT, CATEGORY_PREFIX):
            total += 0.3 if kind == CATEGORY_EXACT else 0.6
        elif kind in (TEXT_PAIR, AUTHOR_PAIR):
            first, second = key.split(" ")
            total += min(_word_cost(first, frequency), _word_cost(second, frequency)) * 0.1
        elif kind in (TEXT_PREFIX, AUTHOR_PREFIX):
            total += 3 * _word_cost(key, frequency)
        else:
            total += _word_cost(key, frequency)
    return total


def _word_cost(word: str, frequency: Mapping[str, float]) -> float:
    """With frequencies, a word never seen is the rarest of all (length breaks ties); without,
    longer words are taken to be rarer."""
    by_length = 1.0 / (1 + len(word))
    if frequency:
        return frequency.get(word, 0.0) + by_length * 1e-6
    return by_length


def anchors_of(program: Program, frequency: Mapping[str, float]) -> list[Anchor] | None:
    """Anchors such that any paper the program matches holds at least one; None if none exist."""
    op = program[0]
    if op in (NOT, NO_WORDS):
        return None
    if op in (ALL_WORDS, WORDS_BUT):
        words = [(WORD, program[1], word) for word in sorted(program[2])]
        return min((_leaf_anchors(w, frequency) for w in words), key=lambda a: _cost(a, frequency))
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
    return _leaf_anchors(program, frequency)


def _is_exact(program: Program) -> bool:
    """A lone word, prefix, two-word phrase or category: a hit on its anchor is a match."""
    op = program[0]
    if op == WORD:  # text anchors join title and abstract: only a word on both is exact
        return program[1] in (TEXT, AUTHOR)
    if op == PHRASE:
        return len(program[2]) == 2 and program[1] in (TEXT, AUTHOR)
    if op == PREFIX:
        return program[1] in (TEXT, AUTHOR)
    return op == CATEGORY and not program[2] and "." in program[1]


# -- the index -------------------------------------------------------------------------------------


class FilterIndex:
    """Filters indexed by anchor; `match` returns, per paper, the ids of the filters it matches."""

    def __init__(self, frequency: Mapping[str, float] | None = None) -> None:
        self._frequency = frequency or {}
        # Posting lists hold the very int objects that key self._programs, so a list costs one
        # pointer per entry, like an array, but iterating it allocates nothing.
        self._postings: tuple[dict[str, list[int]], ...] = tuple({} for _ in range(ANCHOR_KINDS))
        self._programs: dict[int, Program] = {}
        self._exact: set[int] = set()
        self._unanchored: set[int] = set()
        # Indexed prefixes of HEAD letters or more, grouped by their first HEAD letters: a word
        # then needs one lookup for its long prefixes (plus one per shorter length).
        self._heads: tuple[dict[str, list[str]], dict[str, list[str]]] = ({}, {})
        # How many indexed prefixes of each length below HEAD, for text and for authors.
        self._short_lengths: tuple[dict[int, int], dict[int, int]] = ({}, {})

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
                postings[key] = []
                if kind in (TEXT_PREFIX, AUTHOR_PREFIX):
                    self._track_prefix(kind, key, +1)
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
                    if kind in (TEXT_PREFIX, AUTHOR_PREFIX):
                        self._track_prefix(kind, key, -1)

    def _track_prefix(self, kind: int, prefix: str, change: int) -> None:
        """Keep the grouping of long prefixes and the count of short ones in step."""
        author = kind == AUTHOR_PREFIX
        if len(prefix) < HEAD:
            lengths = self._short_lengths[author]
            lengths[len(prefix)] = lengths.get(len(prefix), 0) + change
            if not lengths[len(prefix)]:
                del lengths[len(prefix)]
            return
        heads = self._heads[author]
        if change > 0:
            heads.setdefault(prefix[:HEAD], []).append(prefix)
        else:
            heads[prefix[:HEAD]].remove(prefix)
            if not heads[prefix[:HEAD]]:
                del heads[prefix[:HEAD]]

    def candidates(self, doc: Document) -> set[int]:
        found: set[int] = set(self._unanchored)
        for kind, keys in (
            (TEXT_TERM, doc.terms[TEXT]),
            (AUTHOR_TERM, doc.terms[AUTHOR]),
            (TEXT_PAIR, doc.pairs[TEXT]),
            (AUTHOR_PAIR, doc.pairs[AUTHOR]),
        ):
            postings = self._postings[kind]
            for key in postings.keys() & keys:  # C-level intersection, smaller side iterated
                found.update(postings[key])
        self._probe_prefixes(doc, TEXT_PREFIX, found)
        self._probe_prefixes(doc, AUTHOR_PREFIX, found)
        exact, prefixes = self._postings[CATEGORY_EXACT], self._postings[CATEGORY_PREFIX]
        for category in doc.categories:
            if (hit := exact.get(category)) is not None:
                found.update(hit)
            archive, dot, _ = category.partition(".")
            for key in (archive + ".", category + ".") if dot else (category + ".",):
                if (hit := prefixes.get(key)) is not None:
                    found.update(hit)
        return found

    def _probe_prefixes(self, doc: Document, kind: int, found: set[int]) -> None:
        postings = self._postings[kind]
        if not postings:
            return
        fields = AUTHOR if kind == AUTHOR_PREFIX else TEXT
        author = kind == AUTHOR_PREFIX
        words = doc.folded[fields]
        hits: list[str] = []
        for length in self._short_lengths[author]:
            hits += postings.keys() & {w[:length] for w in words if len(w) >= length}
        heads = self._heads[author]
        shared = heads.keys() & {w[:HEAD] for w in words if len(w) >= HEAD}
        for word in words:
            if word[:HEAD] in shared:
                hits += [prefix for prefix in heads[word[:HEAD]] if word.startswith(prefix)]
        for prefix in hits:
            found.update(postings[prefix])
            doc.prefixes[f"{fields}:{prefix}"] = True

    def match_document(self, doc: Document) -> list[int]:
        candidates = self.candidates(doc)
        matched = candidates & self._exact
        programs = self._programs
        matched.update([f for f in candidates - matched if run(programs[f], doc)])
        return sorted(matched)

    def match(self, papers: Iterable[Paper]) -> list[list[int]]:
        return [self.match_document(Document(paper)) for paper in papers]


def matches(query: Node, paper: Paper) -> bool:
    """One filter against one paper (previews and tests; many filters go through FilterIndex)."""
    return run(compile_query(query), Document(paper))


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
