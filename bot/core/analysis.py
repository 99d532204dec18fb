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


_FOLDED: dict[str, str] = {}  # non-ASCII word as written -> folded
_TERM: dict[str, str] = {}  # folded word -> term
_MEMO_LIMIT = 500_000  # memos, not vocabularies: emptied when they grow past this


def analyse_words(text: str) -> tuple[set[str], list[str]]:
    """(the set of folded words, the terms in order) of a text: the fast path for matching, with
    the same words and folds as `tokens`.

    ASCII text (nearly every abstract) is lower-cased whole, which folds each word as `fold_word`
    would; other text is folded word by word. Words seen before cost a dictionary lookup."""
    if text.isascii():
        folded = _WORD.findall(text.lower())
    else:
        words = _WORD.findall(text)
        unseen = set(words).difference(_FOLDED)  # C-level; iterates the words, not the memo
        if len(_FOLDED) + len(unseen) > _MEMO_LIMIT:
            _FOLDED.clear()
            unseen = set(words)
        for word in unseen:
            _FOLDED[word] = fold_word(word)
        folded = list(map(_FOLDED.__getitem__, words))
    distinct = set(folded)
    found = list(map(_TERM.get, folded))  # one C-level pass; None for a word never seen
    if None not in found:
        return distinct, found  # type: ignore[return-value]  # no None in it
    unseen = distinct.difference(_TERM)
    if len(_TERM) + len(unseen) > _MEMO_LIMIT:
        _TERM.clear()
        unseen = distinct
    for word in unseen:
        _TERM[word] = _term(word)
    return distinct, list(map(_TERM.__getitem__, folded))


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


def fold_category(category: str) -> str:
    return sys.intern(category.strip().casefold())
