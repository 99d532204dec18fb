"""Matching papers against many filters: a presearcher in the manner of Lucene Monitor.

Each filter is compiled to a small tuple program and indexed by its *anchors*: a set of terms at
least one of which every matching paper must contain (an AND needs one part's anchors, an OR needs
all parts' anchors, a NOT gives none). A paper's own terms then find the candidate filters, and only
candidates are verified. Adding or removing a filter touches only its own posting lists, and the
cost of matching grows with the papers and the candidates, not with the number of filters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

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

# Field bits of a compiled leaf; a Document's per-field lists are indexed by them.
TITLE, ABSTRACT, AUTHOR = 1, 2, 4
TEXT = TITLE | ABSTRACT
_FIELD_BITS = {"title": TITLE, "abstract": ABSTRACT, "author": AUTHOR}


class Document:
    """A paper analysed once for matching: the terms of each field as a set (words), their
    adjacent pairs (phrases) and folded forms (prefixes). Each is a list indexed by field bits
    (TITLE, ABSTRACT, TEXT, AUTHOR): the hot path reads them without a dictionary lookup."""

    __slots__ = ("terms", "pairs", "folded", "sequences", "categories", "prefixes")

    categories: set[str]

    def __init__(self, paper: Paper) -> None:
        title_words, title = analyse_words(paper.title)
        abstract_words, abstract = analyse_words(paper.abstract)
        author_words: set[str] = set()
        authors: list[list[str]] = []
        for name in paper.authors:
            folded, found = analyse_words(name)
            author_words |= folded
            authors.append(found)
        title_terms, abstract_terms = set(title), set(abstract)
        author_terms = {t for name in authors for t in name}
        self.sequences: list[list[list[str]]] = [
            [], [title], [abstract], [title, abstract], authors,
        ]  # fmt: skip
        self.terms: list[set[str]] = [
            set(), title_terms, abstract_terms, title_terms | abstract_terms, author_terms,
        ]  # fmt: skip
        self.folded: list[set[str]] = [
            set(), title_words, abstract_words, title_words | abstract_words, author_words,
        ]  # fmt: skip
        # Adjacent pairs as "a b" strings (terms hold no spaces): strings are not tracked by
        # the garbage collector, tuples are, and a paper has hundreds of pairs.
        title_pairs, abstract_pairs = _pairs(title), _pairs(abstract)
        author_pairs = {pair for name in authors for pair in _pairs(name)}
        self.pairs: list[set[str]] = [
            set(), title_pairs, abstract_pairs, title_pairs | abstract_pairs, author_pairs,
        ]  # fmt: skip
        # Each category and each of its prefixes up to a dot: "math.na", "math.": what any
        # category test (exact, archive, prefix) looks up.
        self.categories = set()
        for category in map(fold_category, paper.categories):
            self.categories.add(category)
            self.categories.update(
                category[: i + 1] for i, letter in enumerate(category) if letter == "."
            )
        # Per field set, prefix -> whether a word there starts with it; the index fills in the
        # text's and the authors' while it looks for candidates, so most checks are one lookup.
        self.prefixes: list[dict[str, bool]] = [{}, {}, {}, {}, {}]

    def has_phrase(self, fields: int, phrase: tuple[str, ...]) -> bool:
        size = len(phrase)
        pairs = self.pairs[fields]
        if size == 2:
            return f"{phrase[0]} {phrase[1]}" in pairs
        if not pairs.issuperset(_pairs(phrase)):
            return False  # a pair of it is missing; otherwise find the words in order
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
        known = self.prefixes[fields]
        found = known.get(prefix)
        if found is None:
            found = known[prefix] = any(word.startswith(prefix) for word in self.folded[fields])
        return found


def _pairs(sequence: Sequence[str]) -> set[str]:
    return set(map(" ".join, zip(sequence, sequence[1:])))  # noqa: B905


# -- compiled programs ---------------------------------------------------------------------------
#
# A program is a tuple whose first item is the function that runs it: (op, ...). Running one is a
# single call, with no dispatch on a code; the functions double as the opcodes.

Program = tuple  # nested (op, ...) tuples


def run(program: Program, doc: Document) -> bool:
    return bool(program[0](program, doc))


def _word(program: Program, doc: Document) -> bool:
    return program[2] in doc.terms[program[1]]


def _phrase(program: Program, doc: Document) -> bool:
    return doc.has_phrase(program[1], program[2])


def _prefix(program: Program, doc: Document) -> bool:
    return doc.has_prefix(program[1], program[2])


def _category(program: Program, doc: Document) -> bool:
    return not doc.categories.isdisjoint(program[1])


def _and(program: Program, doc: Document) -> bool:
    for part in program[1:]:  # noqa: SIM110  (a plain loop: this is the hot path)
        if not part[0](part, doc):
            return False
    return True


def _or(program: Program, doc: Document) -> bool:
    for part in program[1:]:  # noqa: SIM110
        if part[0](part, doc):
            return True
    return False


def _not(program: Program, doc: Document) -> bool:
    part = program[1]
    return not part[0](part, doc)


def _anchored(program: Program, doc: Document) -> bool:
    """(ANCHORED, part, rest): an AND in the index whose part gave its anchors and holds for
    every paper that hits them (an exact part): only the rest is left to check."""
    rest = program[2]
    return rest[0](rest, doc)


# Words an AND needs all of, or none of, in the same fields: one C-level set test each; and both
# at once, for an AND of nothing but words and negated words on the same fields.
def _all_words(program: Program, doc: Document) -> bool:
    return program[2] <= doc.terms[program[1]]


def _no_words(program: Program, doc: Document) -> bool:
    return doc.terms[program[1]].isdisjoint(program[2])


def _words_but(program: Program, doc: Document) -> bool:
    terms = doc.terms[program[1]]
    return program[2] <= terms and terms.isdisjoint(program[3])


WORD, PHRASE, PREFIX, CATEGORY, AND, OR, NOT = _word, _phrase, _prefix, _category, _and, _or, _not
ALL_WORDS, NO_WORDS, WORDS_BUT, ANCHORED = _all_words, _no_words, _words_but, _anchored


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
    if isinstance(node, Category):  # the keys of Document.categories any of which matches
        if node.is_prefix or "." in node.value:
            return (CATEGORY, (node.value,))
        return (CATEGORY, (node.value, node.value + "."))  # an archive: itself or its subjects
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
        if part[0] is WORD:
            needed.setdefault(part[1], set()).add(part[2])
        elif part[0] is NOT and part[1][0] is WORD:
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


# -- anchors -------------------------------------------------------------------------------------

# Anchor kinds: the terms and the adjacent word pairs (phrases) of the title, of the whole text
# and of the authors (the kind is the field bits, plus PAIR for pairs; abstract-only leaves are
# filed with the whole text), text and author prefixes, and category keys.
PAIR = 5
TEXT_PREFIX, AUTHOR_PREFIX, CATEGORY_KEY = 10, 11, 12
ANCHOR_KINDS = 13
HEAD = 5  # prefixes this long or longer are grouped by their first HEAD letters
WORD_MEMO_LIMIT = 1_000_000  # words whose indexed prefixes are remembered, before starting over
Anchor = tuple[int, str]


def _leaf_anchors(program: Program, frequency: Mapping[str, float]) -> list[Anchor]:
    op = program[0]
    if op == CATEGORY:
        return [(CATEGORY_KEY, value) for value in program[1]]
    fields = program[1]
    if op == PREFIX:
        return [
            (kind, program[2])
            for kind, part in ((TEXT_PREFIX, fields & TEXT), (AUTHOR_PREFIX, fields & AUTHOR))
            if part
        ]
    if op == PHRASE:
        # The adjacent pair whose rarer word is rarest.
        pairs = zip(program[2], program[2][1:])  # noqa: B905
        first, second = min(
            pairs, key=lambda p: min(_word_cost(p[0], frequency), _word_cost(p[1], frequency))
        )
        key, base = f"{first} {second}", PAIR
    else:
        key, base = program[2], 0
    # Title-only leaves have kinds of their own (titles are short: cheap to look up); abstract-
    # only ones are filed with the whole text and checked, which spares every paper a lookup of
    # its abstract's terms and pairs.
    text = TEXT if fields & TEXT == ABSTRACT else fields & TEXT
    return [(base + part, key) for part in (text, fields & AUTHOR) if part]


def _cost(anchors: list[Anchor], frequency: Mapping[str, float]) -> float:
    """Estimated share of papers an anchor set brings as candidates: known word frequencies,
    else longer words (and pairs of words) are taken to be rarer, categories common."""
    total = 0.0
    for kind, key in anchors:
        if kind == CATEGORY_KEY:
            total += 0.6 if key.endswith(".") else 0.3
        elif kind in (TEXT_PREFIX, AUTHOR_PREFIX):
            total += 3 * _word_cost(key, frequency)
        else:
            if kind > PAIR:
                first, second = key.split(" ")
                cost = min(_word_cost(first, frequency), _word_cost(second, frequency)) * 0.1
            else:
                cost = _word_cost(key, frequency)
            total += cost * (0.3 if kind % PAIR == TITLE else 1.0)  # titles are short
    return total


def _word_cost(word: str, frequency: Mapping[str, float]) -> float:
    """With frequencies, a word never seen is the rarest of all (length breaks ties); without,
    longer words are taken to be rarer."""
    by_length = 1.0 / (1 + len(word))
    if frequency:
        return frequency.get(word, 0.0) + by_length * 1e-6
    return by_length


def anchors_of(program: Program, frequency: Mapping[str, float]) -> list[Anchor] | None:
    """Anchors such that any paper the program matches holds at least one; None if none exist.
    Of several choices the cheapest, ties broken by the anchors themselves, so the same program
    always gets the same anchors (removing a filter finds them again)."""
    op = program[0]
    if op in (NOT, NO_WORDS):
        return None
    if op == ANCHORED:
        return anchors_of(program[1], frequency)
    if op in (ALL_WORDS, WORDS_BUT):
        options = [_leaf_anchors((WORD, program[1], word), frequency) for word in program[2]]
        return min(options, key=lambda a: (_cost(a, frequency), a))
    if op == AND:
        options = [a for p in program[1:] if (a := anchors_of(p, frequency)) is not None]
        return min(options, key=lambda a: (_cost(a, frequency), a)) if options else None
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
    """A hit on the program's anchors is a match: a lone word, two-word phrase or category, or a
    prefix in the whole text or the authors (prefixes are probed in the text as a whole), except
    in the abstract alone (filed with the whole text)."""
    op = program[0]
    if op == CATEGORY:
        return True
    if op not in (WORD, PHRASE, PREFIX):
        return False
    text = program[1] & TEXT
    if op == WORD:
        return text != ABSTRACT
    if op == PHRASE:
        return len(program[2]) == 2 and text != ABSTRACT
    return text in (0, TEXT)  # a prefix


def _anchor(program: Program, frequency: Mapping[str, float]) -> tuple[Program, list | None]:
    """The program as the index keeps it, and its anchors: an AND whose anchors come from an
    exact part becomes (ANCHORED, part, rest), since every candidate already passes that part."""
    anchors = anchors_of(program, frequency)
    if anchors is None or program[0] != AND:
        return program, anchors
    parts = program[1:]
    for i, part in enumerate(parts):
        if _is_exact(part) and _leaf_anchors(part, frequency) == anchors:
            rest = parts[:i] + parts[i + 1 :]
            return (ANCHORED, part, rest[0] if len(rest) == 1 else (AND, *rest)), anchors
    return program, anchors


class _WordPrefixes:
    """Folded word -> the indexed prefixes it starts with (mostly none), in a plain dict (set
    operations take their C path only with an exact dict). A word never seen is looked up once:
    its long prefixes through its first HEAD letters, the short ones by length."""

    __slots__ = ("known", "postings", "heads", "lengths")

    def __init__(
        self, postings: dict[str, list[int]], heads: dict[str, list[str]], lengths: dict[int, int]
    ) -> None:
        self.known: dict[str, tuple[str, ...]] = {}
        self.postings, self.heads, self.lengths = postings, heads, lengths

    def hits(self, words: set[str]) -> set[str]:
        """The indexed prefixes that some of the words start with."""
        known = self.known
        found = list(map(known.get, words))  # one C-level pass; None for a word never seen
        if None in found:
            unseen = {word for word, hits in zip(words, found) if hits is None}  # noqa: B905
            self._learn(unseen)
            return set().union(*filter(None, found), *map(known.__getitem__, unseen))
        return set().union(*filter(None, found))

    def _learn(self, words: set[str]) -> None:
        heads, postings, lengths = self.heads, self.postings, tuple(self.lengths)
        if len(self.known) + len(words) > WORD_MEMO_LIMIT:
            self.known.clear()
        known = self.known
        for word in words:  # one pass: a lookup for the long prefixes, one per short length
            listed = heads.get(word[:HEAD])
            hits = () if listed is None else tuple([p for p in listed if word.startswith(p)])
            for n in lengths:  # a word shorter than n would only find itself again
                if len(word) >= n and word[:n] in postings:
                    hits += (word[:n],)
            known[word] = hits

    def forget(self) -> None:
        self.known.clear()


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
        # Folded word -> the indexed prefixes it starts with, for text and for authors: a
        # vocabulary repeats from paper to paper, so most words are probed once. Forgotten
        # whenever an indexed prefix comes or goes.
        self._word_prefixes = tuple(
            _WordPrefixes(self._postings[kind], self._heads[author], self._short_lengths[author])
            for author, kind in enumerate((TEXT_PREFIX, AUTHOR_PREFIX))
        )

    def __len__(self) -> int:
        return len(self._programs)

    def __contains__(self, filter_id: int) -> bool:
        return filter_id in self._programs

    def add(self, filter_id: int, query: Node) -> None:
        if filter_id in self._programs:
            self.remove(filter_id)
        program, anchors = _anchor(compile_query(query), self._frequency)
        self._programs[filter_id] = program
        if _is_exact(program):
            self._exact.add(filter_id)
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
        """Keep the grouping of long prefixes and the count of short ones in step; words'
        remembered prefixes are forgotten, since the indexed prefixes changed."""
        author = kind == AUTHOR_PREFIX
        self._word_prefixes[author].forget()
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
        postings = self._postings
        for kind, keys in (
            (TEXT, doc.terms[TEXT]),
            (AUTHOR, doc.terms[AUTHOR]),
            (PAIR + TEXT, doc.pairs[TEXT]),
            (TITLE, doc.terms[TITLE]),
            (PAIR + TITLE, doc.pairs[TITLE]),
            (PAIR + AUTHOR, doc.pairs[AUTHOR]),
            (CATEGORY_KEY, doc.categories),
        ):
            listed = postings[kind]
            if listed:  # every posting list of a key the paper holds, in one C-level call
                found.update(*map(listed.__getitem__, listed.keys() & keys))
        self._probe_prefixes(doc, TEXT_PREFIX, found)
        self._probe_prefixes(doc, AUTHOR_PREFIX, found)
        return found

    def _probe_prefixes(self, doc: Document, kind: int, found: set[int]) -> None:
        postings = self._postings[kind]
        if not postings:
            return
        author = kind == AUTHOR_PREFIX
        fields = AUTHOR if author else TEXT
        hits = self._word_prefixes[author].hits(doc.folded[fields])
        found.update(*map(postings.__getitem__, hits))
        doc.prefixes[fields] = dict.fromkeys(hits, True)

    def match_document(self, doc: Document) -> list[int]:
        candidates = self.candidates(doc)
        matched = candidates & self._exact
        programs = self._programs
        matched.update([f for f in candidates - matched if (p := programs[f])[0](p, doc)])
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
