"""Short texts derived from an abstract: the headline of an untitled entry."""

from __future__ import annotations

import functools
import re

from bot.core.clauses import cut

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
NAMED_WITHIN = 60  # characters after the verb where the titled name counts as its object
THIN = 60  # a contribution shorter than this ("PREGU (Partial ...).") gets the sentence after it

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[\"“])")
_SUBJECT = (
    r"\b(?:we|this (?:[\w-]+ ){0,2}?(?:paper|work|article|study|letter|survey|review|manuscript|"
    r"proposal|report))\s+(?:\w+ly\s+)?(?:(?:also|further|then|first|now)\s+)?"
)
_MAKES = re.compile(  # verbs that put something new into the world
    _SUBJECT + r"(?:propos|introduc|present|develop|design|build|buil[dt]|construct|creat|"
    r"contribut|releas|curat|offer|describ)\w*\b",
    re.I,
)
_ASKS = re.compile(  # verbs that say what the paper looks into
    _SUBJECT + r"(?:stud|investigat|explor|examin|revisit|address|evaluat|assess|analy[sz]|"
    r"survey|review|provid|attempt|tackl|formali[sz]|deriv|establish|prov|characteri[sz]|"
    r"quantif|conduct|benchmark|compar|focus|mine)\w*\b",
    re.I,
)
_PASSIVE = re.compile(  # 'a new method is presented', 'the authors developed X'
    r"\b(?:(?:is|are) (?:here )?(?:propos|present|introduc|develop|describ|design)ed|"
    r"the authors (?:propos|present|introduc|develop|describ|design)\w*|"
    r"^in this (?:paper|work|study|article)\b)",
    re.I,
)
_FINDS = re.compile(_SUBJECT + r"(?:show|demonstrat|find|found|report|observ)\w*\b", re.I)
_BY_THE_PAPER = re.compile(
    r"^(?:this|our) (?:[\w-]+ ){0,2}?(?:paper|work|study|survey|manuscript|report)\b", re.I
)
_ADDED = re.compile(  # a later or lesser step, not the contribution itself
    r"^(?:finally|additionally|in addition|furthermore|moreover|also|further|next|then|"
    r"secondly|lastly)\b|\bwe (?:also|further|then|additionally|finally)\b",
    re.I,
)
_CONNECTIVE = re.compile(
    r"^(?:finally|additionally|in addition|furthermore|moreover|notably|importantly|"
    r"specifically|in particular|overall|lastly|besides|further|also|then|thus)\s*,?\s+",
    re.I,
)
_WE = re.compile(r"\bwe\b", re.I)
_DROPPED_PREFIX = re.compile(
    r"^(?:|.{0,160},|here|herein|in this (?:paper|work|study|article))\s*$", re.I | re.S
)
_APPOSITIVE = re.compile(  # 'X, a method that ...' / 'X (Y), which ...': the name, then what it is
    r"^(?P<verb>\w+)\s+(?P<rest>[A-Z0-9\\][^,;]{0,100}?,\s+(?:a|an|the|which|that|one|"
    r"\w+ing)\b.+)$",
    re.S,
)
_GLUED = re.compile(r"(?<=[a-z)]{2}[.!?])(?=[A-Z][a-z])")  # 'in scenes.Unlike X, ...'
_RESULT = re.compile(  # a number is tried from its first digit only: linear on '1,1,1,...'
    r"(?<![\d.,])\d[\d.,]*+\s*(?:%|×|x\b|times|fold|points?|pp\b|dB|ms\b|s\b)|"
    r"\b(?:outperform|improv|achiev|reduc|speed|accelerat|surpass|faster|state-of-the-art)",
    re.I,
)
_LINK = re.compile(r"https?://|github\.com|\\\w+\{", re.I)


def sentences(text: str) -> list[str]:
    """The text cut into sentences (not after decimals, initials in lower case or 'e.g.')."""
    return [s.strip() for s in _SENTENCE_BREAK.split(text.strip()) if s.strip()]


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _without_connective(sentence: str) -> str:
    """'Finally, we evaluate X.' -> 'We evaluate X.'"""
    return _capitalized(_CONNECTIVE.sub("", sentence, count=1))


def _contribution(sentence: str) -> str:
    """The sentence as a clean statement: 'To address X, we propose Y, a Z.' -> 'Y, a Z.';
    'In this paper, we study how X.' -> 'We study how X.' (never a fragment like 'to study X')."""
    we = _WE.search(sentence)
    if not we or not _DROPPED_PREFIX.match(sentence[: we.start()]):
        return _without_connective(sentence)
    statement = _capitalized(sentence[we.start() :])
    named = _APPOSITIVE.match(statement[3:])
    if named and _MAKES.match(statement):
        return named.group("rest")
    return statement


def _name(title: str) -> str | None:
    """The name a title gives its contribution ('BeNice! Closing ...', 'VERA: A ...')."""
    head, colon, _ = title.partition(":")
    if colon and 0 < len(head.split()) <= 3:
        return head.strip()
    first = title.split()[0] if title.split() else ""
    looks_coined = sum(c.isupper() or c.isdigit() for c in first) >= 2
    return first.rstrip(",") if looks_coined and len(first) >= 3 else None


def _score(sentence: str, name: str | None) -> float:
    """How plainly a sentence says what the paper does: makes > looks into > finds, more when it
    names the titled thing, less when it is a later step ('Finally, we ...')."""
    verb = _MAKES.search(sentence) or _BY_THE_PAPER.match(sentence)
    if verb:
        score = 3.0
    elif verb := _ASKS.search(sentence) or _PASSIVE.search(sentence):
        score = 2.0
    elif _FINDS.search(sentence):
        return 1.0 - 1.5 * bool(_ADDED.search(sentence))
    else:
        return 0.0
    if name and name in sentence[verb.end() : verb.end() + NAMED_WITHIN]:  # what it makes
        score += 2
    if _ADDED.search(sentence):
        score -= 1.5
    return score


def _contribution_index(parts: list[str], title: str | None) -> int:
    """The sentence that states the contribution: the best scored, the earliest among equals,
    else the first."""
    name = _name(title) if title else None
    scores = [_score(s, name) for s in parts]
    return max(range(len(parts)), key=lambda i: (scores[i], -i))


def _result(parts: list[str]) -> str | None:
    """The first sentence with a result in numbers, as a clean sentence."""
    for sentence in parts:
        if (
            _RESULT.search(sentence)
            and any(c.isdigit() for c in sentence)
            and not _LINK.search(sentence)
            and sentence.endswith((".", "!"))
        ):
            return _without_connective(sentence)
    return None


@functools.lru_cache(maxsize=2048)  # one paper goes to many chats
def tldr(abstract: str, title: str | None = None, limit: int = TLDR_MAX) -> str:
    """One or two sentences of the abstract worth reading first: the sentence that states the
    contribution (the next one too when it is thin), plus the first later sentence with a result
    in numbers when they fit within `limit` characters. A contribution too long for `limit` is
    cut where a statement ends, with '…', or kept whole up to TLDR_MAX (bot/core/clauses.py)."""
    parts = sentences(abstract)
    if not parts:
        return ""
    index = _contribution_index(parts, title)
    pieces = _GLUED.split(parts[index])  # two sentences the listing ran together
    chosen = pieces[_contribution_index(pieces, title)]
    summary = cut(_contribution(chosen), limit, TLDR_MAX)
    following = parts[index + 1 :]
    result = _result(following)
    if len(summary) < THIN and not summary.endswith("…") and _MAKES.search(chosen) and following:
        described = f"{summary} {_without_connective(following[0])}"
        if not _RESULT.search(following[0]) and len(described) <= limit:
            summary = described  # 'PREGU (Partial ...).' says little: add what it is
            result = _result(following[1:])
    if result and not summary.endswith("…") and len(summary) + 1 + len(result) <= limit:
        return f"{summary} {result}"
    return summary
