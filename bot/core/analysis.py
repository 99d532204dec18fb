"""Text analysis shared by papers and filters, so both sides fold words the same way.

A word is a run of letters and digits; hyphens, slashes and spaces all separate words, so
`"kv cache"` and `KV-cache` give the same tokens. Each token keeps its `folded` form (case and
accents folded: `Quériaux` -> `queriaux`), used for prefixes, and its `term` (the folded form with
plurals folded to the singular: `models` -> `model`), used for words and phrases.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache

from bot.core.text import strip_accents

_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=200_000)
def fold_word(word: str) -> str:
    return sys.intern(strip_accents(word.casefold()))


def _singular(word: str) -> str:
    """A light, deterministic plural fold; the same on both sides, so only consistency matters:
    studies -> study, classes -> class, boxes -> box, caches -> cach, models -> model (but not
    class, corpus, analysis), and cache -> cach so that cache and caches meet."""
    if len(word) <= 3 or not word.isalpha():
        return word
    last = word[-1]
    if last == "s":
        if word.endswith("ies") and len(word) > 4:
            return word[:-3] + "y"
        if word.endswith(("sses", "xes", "ches", "shes")):
            return word[:-2]
        return word if word.endswith(("ss", "us", "is")) else word[:-1]
    if last == "e" and word.endswith(("che", "she")):
        return word[:-1]
    return word


def _term(folded: str) -> str:
    """A folded word's term: its singular, interned (the filters' terms are, so that lookups
    meet by identity)."""
    return sys.intern(_singular(folded))


singular = lru_cache(maxsize=200_000)(_term)


class AnalysisMemo:
    """The folds of words seen before, so that a text's words cost a dictionary lookup each:
    non-ASCII words as written -> folded, folded words -> terms. Memos, not vocabularies: each
    starts afresh when it would grow past `limit` words.

    One memo is shared by threads without a lock (the planner's and the event loop's): a full
    memo is replaced by a new dict, never cleared in place, and each call reads and writes
    through the dicts it started with. So a word a call found or put there is still there when
    it reads it back, whatever another thread does meanwhile; the other thread's new dict is
    simply used from its next call on. This relies on single dict operations (a lookup, a store,
    `set.difference(dict)`, a C-level `map` over lookups) holding the GIL throughout, as they
    do in CPython: a word is in a dict or not, never half-stored."""

    __slots__ = ("limit", "_folded", "_terms")

    def __init__(self, limit: int = 500_000) -> None:
        self.limit = limit
        self._folded: dict[str, str] = {}  # non-ASCII word as written -> folded
        self._terms: dict[str, str] = {}  # folded word -> term

    def analyse_words(self, text: str) -> tuple[set[str], list[str]]:
        """See the module function `analyse_words`."""
        if text.isascii():
            folded = _WORD.findall(text.lower())
        else:
            words = _WORD.findall(text)
            memo = self._folded  # this call's dict, whatever another thread does meanwhile
            unseen = set(words).difference(memo)  # C-level; iterates the words, not the memo
            if len(memo) + len(unseen) > self.limit:
                memo = self._folded = {}
                unseen = set(words)
            for word in unseen:
                memo[word] = fold_word(word)
            folded = list(map(memo.__getitem__, words))
        distinct = set(folded)
        terms = self._terms  # as above: read back only from the dict this call wrote to
        found = list(map(terms.get, folded))  # one C-level pass; None for a word never seen
        if None not in found:
            return distinct, found  # type: ignore[return-value]  # no None in it
        unseen = distinct.difference(terms)
        if len(terms) + len(unseen) > self.limit:
            terms = self._terms = {}
            unseen = distinct
        for word in unseen:
            terms[word] = _term(word)
        return distinct, list(map(terms.__getitem__, folded))


_SHARED_MEMO = AnalysisMemo()  # what matching uses, in every thread


def analyse_words(text: str, memo: AnalysisMemo = _SHARED_MEMO) -> tuple[set[str], list[str]]:
    """(the set of folded words, the terms in order) of a text: the fast path for matching, with
    the same words and folds as `tokens`.

    ASCII text (nearly every abstract) is lower-cased whole, which folds each word as `fold_word`
    would; other text is folded word by word. Words seen before cost a dictionary lookup (in
    `memo`, shared by default)."""
    return memo.analyse_words(text)


@dataclass(frozen=True, slots=True)
class Token:
    term: str  # folded and singular: what words and phrases match
    folded: str  # folded only: what prefixes match
    start: int  # character span in the analysed text, for highlights
    end: int


def tokens(text: str) -> list[Token]:
    result = []
    for match in _WORD.finditer(text):
        folded = fold_word(match.group())
        result.append(Token(singular(folded), folded, match.start(), match.end()))
    return result


def words(text: str) -> list[str]:
    """The words of a text as written: runs of letters and digits."""
    return _WORD.findall(text)


def initials_form(name: str) -> str | None:
    """'Blaine Reeder' -> 'B Reeder', 'Adaeze N. Okafor' -> 'A N Okafor': how PubMed and
    bioRxiv write a name whose given names they cut to initials, so that au:"B Reeder" finds
    the author however a source wrote them; None for a name already so written, or one word."""
    found = words(name)
    if len(found) < 2 or all(len(word) == 1 for word in found[:-1]):
        return None
    return " ".join([*(word[0] for word in found[:-1]), found[-1]])


def surname_first(words_: list[str]) -> list[str] | None:
    """PubMed's 'Reeder B', 'Jankowski CM' (a surname, then up to three capital initials) as
    'B Reeder', 'C M Jankowski'; None for words in any other order."""
    if len(words_) < 2:
        return None
    initials, surname = words_[-1], words_[:-1]
    if not (initials.isupper() and initials.isalpha() and len(initials) <= 3):
        return None
    if any(word.isupper() for word in surname):
        return None  # 'DNA MS', two capitalised words: not a name
    return [*initials, *surname]


def fold_name(name: str) -> str:
    """A name matched whole (a MeSH term, a journal): its folded words, one space apart, so
    'CRISPR-Cas Systems' and 'crispr cas system' meet."""
    return sys.intern(" ".join(singular(fold_word(word)) for word in words(name)))


# What NLM adds to a journal's title in PubMed: the place that tells two journals of one name
# apart ("Lancet (London, England)", "Structure (London, England : 1993)"), and a subtitle or
# parallel title after " : " or " = " ("Molecular cancer research : MCR"). A journal's own
# subtitle is written "Journal of Physics: Condensed Matter", without the space before.
_JOURNAL_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")
_JOURNAL_SUBTITLE = re.compile(r"\s[:=]\s")


def fold_journal(name: str) -> str:
    """A journal's name as `jr:` matches it, so that however a source writes the journal, and
    however a filter names it, they meet: case and accents folded (as `fold_name`: 'NATURE',
    'Nature', 'Revista Médica' and 'REVISTA MEDICA' are one), NLM's additions dropped
    ('Nature (London)', 'Technology and health care : official journal of ...'), and a leading
    'The' ('The Lancet', 'Lancet (London, England)')."""
    bare = _JOURNAL_SUBTITLE.split(_JOURNAL_QUALIFIER.sub("", name), maxsplit=1)[0]
    folded = fold_name(bare) or fold_name(name)
    return sys.intern(folded.removeprefix("the ")) if folded.startswith("the ") else folded


def fold_category(category: str) -> str:
    return sys.intern(category.strip().casefold())
