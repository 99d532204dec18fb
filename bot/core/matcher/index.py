"""FilterIndex: many filters filed under their anchors, and papers matched against all of them.

Each filter is compiled (program.py) and filed in one posting list per anchor (anchors.py). A
paper's own terms, pairs, prefixes and categories then find the candidate filters in a few C-level
set operations, and only candidates are checked; an exact filter is a match as soon as it is a
candidate. Adding or removing a filter touches only its own posting lists, so the cost of matching
grows with the papers and the candidates, not with the number of filters. Each filter's anchors
are kept with it, so removing it needs no recomputation, and `reanchor` can move filters when
newer term frequencies make other anchors cheaper.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bot.core.matcher.anchors import Anchor, AnchorKind, anchor_program, is_exact
from bot.core.matcher.document import Document
from bot.core.matcher.prefixes import WORD_MEMO_LIMIT, IndexedPrefixes
from bot.core.matcher.program import Anchored, Program, compile_query
from bot.core.paper import Paper
from bot.core.query import Node


class Filed:
    """A filter as the index keeps it: the program its candidacy is checked with, and the
    anchors it is filed under (none: it is a candidate for every paper).

    The first anchor takes two slots and any further ones (an OR, several fields) a tuple: most
    filters have one anchor, and this keeps a record at 64 bytes, where a slot holding a tuple
    of (kind, key) tuples would make it 160 (a million filters: 100 MB more)."""

    __slots__ = ("program", "kind", "key", "more")

    program: Program
    kind: AnchorKind | None
    key: str
    more: tuple[Anchor, ...]

    def __init__(self, program: Program, anchors: Sequence[Anchor]) -> None:
        self.program = program
        self.kind, self.key = anchors[0] if anchors else (None, "")
        self.more = tuple(anchors[1:])  # mostly the empty tuple, which is shared

    @property
    def anchors(self) -> tuple[Anchor, ...]:
        return () if self.kind is None else ((self.kind, self.key), *self.more)


class Probe(Document):
    """A Document as one match reads it: the document's own fields (shared, not copied), plus
    what this match learns about its prefixes. The index records the indexed prefixes it found
    in the paper while collecting candidates, so most prefix tests are one lookup; the Document
    itself stays unchanged."""

    __slots__ = ("prefixes",)

    def __init__(self, doc: Document) -> None:  # the paper is analysed already: no super()
        self.terms, self.pairs, self.folded = doc.terms, doc.pairs, doc.folded
        self.sequences, self.texts, self.categories = doc.sequences, doc.texts, doc.categories
        self.prefixes: list[dict[str, bool]] = [{}, {}, {}, {}, {}]  # per field bits

    def has_prefix(self, fields: int, prefix: str) -> bool:
        known = self.prefixes[fields]
        found = known.get(prefix)
        if found is None:
            found = known[prefix] = any(word.startswith(prefix) for word in self.folded[fields])
        return found


# Where a paper's keys are looked up, per kind of term and pair anchor: (kind, is a pair, fields),
# worked out once rather than for every paper.
_LOOKUPS = tuple(
    (kind, kind.is_pair, kind.fields)
    for kind in AnchorKind
    if not kind.is_prefix and kind is not AnchorKind.CATEGORY
)


class FilterIndex:
    """Filters indexed by anchor; `match` returns, per paper, the ids of the filters it matches.

    `frequency` is the share of recent papers each term occurs in (`term_frequencies`): filters
    are anchored on their rarest part. Matching may run in several threads at once; adding,
    removing and reanchoring may not run alongside it."""

    def __init__(
        self,
        frequency: Mapping[str, float] | None = None,
        *,
        word_memo_limit: int = WORD_MEMO_LIMIT,
    ) -> None:
        self._frequency: Mapping[str, float] = frequency or {}
        # Posting lists hold the very int objects that key self._filed, so a list costs one
        # pointer per entry, like an array, but iterating it allocates nothing.
        self._postings: tuple[dict[str, list[int]], ...] = tuple({} for _ in AnchorKind)
        self._filed: dict[int, Filed] = {}
        self._exact: set[int] = set()
        self._unanchored: set[int] = set()
        self._prefixes = {
            kind: IndexedPrefixes(self._postings[kind], word_memo_limit)
            for kind in (AnchorKind.TEXT_PREFIX, AnchorKind.AUTHOR_PREFIX)
        }

    def __len__(self) -> int:
        return len(self._filed)

    def __contains__(self, filter_id: int) -> bool:
        return filter_id in self._filed

    # -- filing ----------------------------------------------------------------------------------

    def add(self, filter_id: int, query: Node) -> None:
        if filter_id in self._filed:
            self.remove(filter_id)
        program, anchors = anchor_program(compile_query(query), self._frequency)
        self._filed[filter_id] = Filed(program, anchors)
        if is_exact(program):
            self._exact.add(filter_id)
        self._file(filter_id, anchors)

    def remove(self, filter_id: int) -> None:
        filed = self._filed.pop(filter_id, None)
        if filed is None:
            return
        self._exact.discard(filter_id)
        self._unfile(filter_id, filed.anchors)

    def reanchor(self, frequency: Mapping[str, float]) -> int:
        """Take newer term frequencies (as the stored vocabulary grows): every filter whose
        anchors change under them is filed anew. Returns how many moved. What matches stays the
        same; only which papers bring a filter as a candidate changes. Filters added later are
        anchored with these frequencies too."""
        self._frequency = frequency or {}
        moved = 0
        for filter_id, filed in self._filed.items():  # values replaced, none added or removed
            program = filed.program
            whole = program.whole() if isinstance(program, Anchored) else program
            refiled, anchors = anchor_program(whole, self._frequency)
            if anchors == filed.anchors:
                continue  # (an exact filter never moves: a leaf's anchors need no frequencies)
            self._unfile(filter_id, filed.anchors)
            self._filed[filter_id] = Filed(refiled, anchors)
            self._file(filter_id, anchors)
            moved += 1
        return moved

    def anchors(self, filter_id: int) -> tuple[Anchor, ...]:
        """The anchors a filter is filed under (none: it is checked against every paper)."""
        return self._filed[filter_id].anchors

    def postings(self) -> dict[Anchor, list[int]]:
        """Every posting list, by anchor: a copy, for tests and inspection."""
        return {
            (kind, key): list(ids)
            for kind in AnchorKind
            for key, ids in self._postings[kind].items()
        }

    def _file(self, filter_id: int, anchors: tuple[Anchor, ...]) -> None:
        if not anchors:
            self._unanchored.add(filter_id)
        for kind, key in anchors:
            postings = self._postings[kind]
            listed = postings.get(key)
            if listed is None:
                listed = postings[key] = []
                if kind.is_prefix:
                    self._prefixes[kind].added(key)
            listed.append(filter_id)

    def _unfile(self, filter_id: int, anchors: tuple[Anchor, ...]) -> None:
        if not anchors:
            self._unanchored.discard(filter_id)
        for kind, key in anchors:
            postings = self._postings[kind]
            listed = postings[key]
            listed.remove(filter_id)
            if not listed:
                del postings[key]
                if kind.is_prefix:
                    self._prefixes[kind].removed(key)

    # -- matching --------------------------------------------------------------------------------

    def candidates(self, doc: Document) -> set[int]:
        """The filters the paper holds an anchor of, and those with no anchors."""
        return self._collect(Probe(doc))

    def _collect(self, probe: Probe) -> set[int]:
        found: set[int] = set(self._unanchored)
        postings = self._postings
        for kind, is_pair, fields in _LOOKUPS:
            listed = postings[kind]
            if listed:  # every posting list of a key the paper holds, in one C-level call
                keys = probe.pairs[fields] if is_pair else probe.terms[fields]
                found.update(*map(listed.__getitem__, listed.keys() & keys))
        listed = postings[AnchorKind.CATEGORY]
        if listed:
            found.update(*map(listed.__getitem__, listed.keys() & probe.categories))
        for prefix_kind, prefixes in self._prefixes.items():
            listed = prefixes.postings
            if listed:
                fields = prefix_kind.fields
                hits = prefixes.hits(probe.folded[fields])
                found.update(*map(listed.__getitem__, hits))
                # The probe now knows these prefixes are in the paper (and, for any prefix of
                # these fields it is asked about later, scans the words once).
                probe.prefixes[fields] = dict.fromkeys(hits, True)
        return found

    def match_document(self, doc: Document) -> list[int]:
        probe = Probe(doc)
        candidates = self._collect(probe)
        matched = candidates & self._exact
        filed = self._filed
        matched.update([f for f in candidates - matched if filed[f].program.matches(probe)])
        return sorted(matched)

    def match(self, papers: Iterable[Paper]) -> list[list[int]]:
        return [self.match_document(Document(paper)) for paper in papers]
