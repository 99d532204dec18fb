"""Short texts derived from an abstract: the headline of an untitled entry."""

from __future__ import annotations

import functools
import re

HEADLINE_MAX = 140

_CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work|article|study)|here,? we)\s+"
    r"(?:propose|introduce|present|develop|design|describe|build|put forward|introduces|"
    r"proposes|presents|develops|describes)s?\s+(?P<rest>.+?)(?:\.(?:\s|$)|;|$)",
    re.I,
)
_NAMED = re.compile(r"^(?P<name>[^,]{1,80}?),\s+(?P<what>(?:a|an|the)\s.+)$", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def shorten(text: str, limit: int) -> str:
    """Cut at a word boundary and add an ellipsis when the text is longer than limit."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def derive_headline(abstract: str) -> str:
    """A headline for an entry without a title, from the sentence that states the contribution:
    'we propose lapanda, a matrix-free solver ...' -> 'lapanda: a matrix-free solver ...'."""
    match = _CONTRIBUTION.search(abstract)
    if match:
        rest = match.group("rest").strip()
        named = _NAMED.match(rest)
        if named:
            headline = f"{named.group('name')}: {named.group('what')}"
        else:
            headline = rest[0].upper() + rest[1:]
        return shorten(headline, HEADLINE_MAX)
    first_sentence = _SENTENCE_END.split(abstract.strip(), maxsplit=1)[0].rstrip(".")
    return shorten(first_sentence, HEADLINE_MAX)


TLDR_MAX = 300

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[\"“])")
_STATES_CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work|article|study|letter)|our (?:method|approach|work|model))\s+"
    r"(?:(?:also|further|then|first)\s+)?"
    r"(?:propose|introduce|present|show|develop|design|demonstrate|establish|prove|report|"
    r"describe|derive|study|investigate|quantif(?:y|ies)|provide|find|build|"
    r"proposes|introduces|presents|shows|develops|demonstrates|establishes|proves|reports|"
    r"describes|derives|studies|investigates|provides|finds)\b",
    re.I,
)
_PROPOSES = re.compile(r"\b(?:we|this (?:paper|work))\s+(?:propose|introduce|present)s?\b", re.I)
_LEAD_IN = re.compile(
    r"^(?:[^,]{1,80},\s*)?we (?:propose|introduce|present)\s+(?P<rest>.+)$", re.I | re.S
)
_RESULT = re.compile(
    r"\d(?:[\d.,]*)\s*(?:%|×|x\b|times|fold|points?|pp\b|dB|ms\b|s\b)|"
    r"\b(?:outperform|improv|achiev|reduc|speed|accelerat|surpass|faster|state-of-the-art)",
    re.I,
)


def sentences(text: str) -> list[str]:
    """The text cut into sentences (not after decimals, initials in lower case or 'e.g.')."""
    return [s.strip() for s in _SENTENCE_BREAK.split(text.strip()) if s.strip()]


def _contribution(sentence: str) -> str:
    """'To address X, we propose Y, a Z' -> 'Y, a Z' (the thing itself, not the ritual)."""
    lead = _LEAD_IN.match(sentence)
    if not lead:
        return sentence
    return lead.group("rest")


def _name(title: str) -> str | None:
    """The name a title gives its contribution ('BeNice! Closing ...', 'VERA: A ...')."""
    head = title.split(":", 1)[0].split()
    return head[0] if head and len(head[0]) >= 3 and not head[0].islower() else None


def _contribution_index(parts: list[str], title: str | None) -> int:
    """The sentence that states the contribution: one that proposes the titled thing, else the
    first that proposes something, else the first that shows or studies something, else 0."""
    name = _name(title) if title else None
    proposing = [i for i, s in enumerate(parts) if _PROPOSES.search(s)]
    named = [i for i in proposing if name and name in parts[i]]
    stating = [i for i, s in enumerate(parts) if _STATES_CONTRIBUTION.search(s)]
    return (named or proposing or stating or [0])[0]


@functools.lru_cache(maxsize=2048)  # one paper goes to many chats
def tldr(abstract: str, title: str | None = None, limit: int = TLDR_MAX) -> str:
    """One or two sentences of the abstract worth reading first: the sentence that states the
    contribution, plus the first later sentence with a result in numbers when both fit within
    `limit` characters."""
    parts = sentences(abstract)
    if not parts:
        return ""
    index = _contribution_index(parts, title)
    chosen = _contribution(parts[index])
    result = next(
        (s for s in parts[index + 1 :] if _RESULT.search(s) and any(c.isdigit() for c in s)),
        None,
    )
    if result and len(chosen) + 1 + len(result) <= limit:
        return f"{chosen} {result}"
    return shorten(chosen, limit)
