"""The indexed prefixes a paper's words start with, found without trying every prefix.

The index files prefix filters (`distill*`, `au:lee*`) under their prefix, once for the text and
once for the authors. To find a paper's candidates among them it needs the indexed prefixes its
folded words start with. Prefixes of HEAD letters or more are grouped by their first HEAD
letters, so one lookup finds a word's long ones; each shorter length some prefix has costs one
more. A vocabulary repeats from paper to paper, so each word's hits are remembered, and
forgotten whenever a prefix comes or goes.
"""

from __future__ import annotations

from collections.abc import Container, Set

HEAD = 5  # prefixes this long or longer are grouped by their first HEAD letters
WORD_MEMO_LIMIT = 1_000_000  # words whose hits are remembered, before starting over


class IndexedPrefixes:
    """The prefixes filed in one posting dict (text or authors), grouped for lookup, and a memo
    of folded word -> the indexed prefixes it starts with (mostly none).

    The memo is safe to share between threads matching at once, without a lock: when full, or
    when the prefixes change, it is replaced by a new dict, never cleared; each call reads and
    writes through the dict it started with and takes a word's hits from what it found or
    learned itself, never by reading the memo again, so nothing can vanish between the two.
    (Single dict operations hold the GIL throughout: a word is in a dict or not.) Adding or
    removing filters while another thread matches is not supported: the posting lists are
    plain dicts and lists."""

    __slots__ = ("postings", "heads", "lengths", "memo", "memo_limit")

    def __init__(self, postings: Container[str], memo_limit: int = WORD_MEMO_LIMIT) -> None:
        self.postings = postings  # the prefixes filed: the index's own dict for this kind
        self.heads: dict[str, list[str]] = {}  # first HEAD letters -> the long prefixes
        self.lengths: dict[int, int] = {}  # length below HEAD -> how many prefixes have it
        # A plain dict: set operations take their C path only with an exact dict.
        self.memo: dict[str, tuple[str, ...]] = {}
        self.memo_limit = memo_limit

    def added(self, prefix: str) -> None:
        """A prefix now has a posting list (call once, when its list is created)."""
        if len(prefix) < HEAD:
            self.lengths[len(prefix)] = self.lengths.get(len(prefix), 0) + 1
        else:
            self.heads.setdefault(prefix[:HEAD], []).append(prefix)
        self.memo = {}

    def removed(self, prefix: str) -> None:
        """A prefix's posting list is gone."""
        if len(prefix) < HEAD:
            self.lengths[len(prefix)] -= 1
            if not self.lengths[len(prefix)]:
                del self.lengths[len(prefix)]
        else:
            listed = self.heads[prefix[:HEAD]]
            listed.remove(prefix)
            if not listed:
                del self.heads[prefix[:HEAD]]
        self.memo = {}

    def hits(self, words: Set[str]) -> set[str]:
        """The indexed prefixes that some of the words start with."""
        memo = self.memo  # this call's memo, whatever another thread does to self.memo
        found = list(map(memo.get, words))  # one C-level pass; None for a word never seen
        if None in found:
            unseen = [word for word, hits in zip(words, found) if hits is None]  # noqa: B905
            return set().union(*filter(None, found), *self._learn(unseen, memo))
        return set().union(*filter(None, found))

    def _learn(self, words: list[str], memo: dict[str, tuple[str, ...]]) -> list[tuple[str, ...]]:
        """The words' hits, remembered: one pass, a lookup for the long prefixes and one per
        short length."""
        heads, postings, lengths = self.heads, self.postings, tuple(self.lengths)
        if len(memo) + len(words) > self.memo_limit:
            memo = self.memo = {}  # started over: a new dict, see the class docstring
        learned = []
        for word in words:
            listed = heads.get(word[:HEAD])
            hits = () if listed is None else tuple([p for p in listed if word.startswith(p)])
            for n in lengths:  # a word shorter than n would only find itself again
                if len(word) >= n and word[:n] in postings:
                    hits += (word[:n],)
            memo[word] = hits
            learned.append(hits)
        return learned
