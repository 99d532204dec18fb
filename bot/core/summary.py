"""Short texts derived from an abstract: the headline of an untitled entry."""

from __future__ import annotations

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
