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


@lru_cache(maxsize=200_000)
def singular(folded: str) -> str:
    """A light, deterministic plural fold; the same on both sides, so only consistency matters."""
    word = folded
    if len(word) > 3 and word.isalpha():
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith(("sses", "xes", "ches", "shes")):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        if word.endswith(("che", "she")):
            word = word[:-1]
    return sys.intern(word)


_FOLDED: dict[str, str] = {}  # word as written -> folded
_TERM: dict[str, str] = {}  # word as written -> term
_MEMO_LIMIT = 500_000  # memos, not vocabularies: emptied when they grow past this


def analyse_words(text: str) -> tuple[list[str], list[str]]:
    """(folded words, terms) of a text, in order; the fast path for matching."""
    words = _WORD.findall(text)
    missing = set(words).difference(_FOLDED)  # C-level; iterates the words, not the memo
    if missing:
        if len(_FOLDED) + len(missing) > _MEMO_LIMIT:
            _FOLDED.clear()
            _TERM.clear()
            missing = set(words)
        for word in missing:
            base = _FOLDED[word] = fold_word(word)
            _TERM[word] = singular(base)
    return list(map(_FOLDED.__getitem__, words)), list(map(_TERM.__getitem__, words))


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
