"""Short texts derived from an abstract: the headline of an untitled entry, the TL;DR, and the
sections of a structured abstract ("Background: ... Results: ... Conclusions: ...")."""

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
ANTECEDENT_MIN = 30  # a sentence before that says something ('Approach.' does not)
THIN = 60  # a contribution shorter than this ("PREGU (Partial ...).") gets the sentence after it

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[\"“])")
_BY_US = (  # who does the work: 'we', 'this paper', 'the present study', 'this thesis'
    r"\b(?:we|the (?:paper|thesis|study)|(?:this|the present|the current) (?:[\w-]+ ){0,2}?"
    r"(?:paper|work|article|study|letter|survey|review|manuscript|proposal|report|thesis|"
    r"dissertation|research|project|contribution))\b"
)
_SUBJECT = (
    _BY_US + r"\s+(?:\w+ly\s+)?(?:(?:also|further|then|first|now|therefore|thus|hence|instead|"
    r"here)\s+)?"
)
_MAKES = re.compile(  # verbs that put something new into the world
    _SUBJECT + r"(?:propos|introduc|present|develop|design|build|buil[dt]|construct|creat|"
    r"contribut|releas|curat|offer|describ)\w*\b",
    re.I,
)
_ANYONE_MAKES = re.compile(  # 'IGN introduces FLAIR-HUB', not 'the proposed Saten framework'
    r"\b(?:propos|introduc|present|develop|design|construct|creat|releas|curat|offer|describ)"
    r"(?:e|es|s|ing)\s+",
    re.I,
)
_ASKS = re.compile(  # verbs that say what the paper looks into
    _SUBJECT + r"(?:stud|investigat|explor|examin|revisit|address|evaluat|assess|analy[sz]|"
    r"survey|review|provid|attempt|tackl|formali[sz]|deriv|establish|prov|characteri[sz]|"
    r"quantif|conduct|benchmark|compar|focus|mine)\w*\b",
    re.I,
)
_PASSIVE = re.compile(  # 'a new method is presented', 'the model presented in this study'
    r"\b(?:(?:is|are) (?:here )?(?:propos|present|introduc|develop|describ|design)ed|"
    r"(?:propos|present|introduc|develop|describ)ed (?:in|by) (?:this|the present) "
    r"(?:paper|work|study|article|thesis)\b|"
    r"the authors (?:propos|present|introduc|develop|describ|design)\w*|"
    r"^in this (?:paper|work|study|article)\b|"
    r"\b(?:aim|objective|goal|purpose|motivation)s? of (?:this|our|the present) (?:[\w-]+ )?"
    r"(?:paper|work|study|research|thesis) (?:is|was) to\b)",
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
    r"specifically|in particular|overall|lastly|besides|further|also|then|thus|however|but|"
    r"nevertheless|nonetheless|unfortunately|consequently|hence|therefore)\s*,?\s+",
    re.I,
)
_WE = re.compile(r"\bwe\b", re.I)
_POINTER = re.compile(  # points back: 'this quadrant', 'such prompts', 'It ...'
    r"^(?:it|they|this (?:is|was|has|can|makes|allows|enables|leads))\b|"
    r"\b(?:this|these|those|such)\s+(?!(?:paper|work|study|article|letter|thesis|survey|review|"
    r"report|manuscript|chapter|research|way|end|as|that)\b)(?P<noun>[a-z][\w-]*)",
    re.I,
)
_RITUAL = re.compile(  # a pointer that loses nothing: 'to address these challenges'
    r"\b(?:address|overcome|tackle|solve|mitigate|bridge|fill|alleviate|resolve|close|remedy|"
    r"handle|meet)\w* (?:this|these|such|those) (?:[\w-]+ )?(?:challenge|gap|limitation|issue|"
    r"problem|question|shortcoming|difficult|drawback|concern|need|bottleneck|obstacle)\w*",
    re.I,
)
_WE_DO = re.compile(  # 'We start from ...', 'This research uses ...', 'our method, X, resolves'
    r"(?:" + _BY_US + r"|^our (?:[\w-]+ ){0,3}?(?:method|approach|framework|model|system|"
    r"algorithm|technique|pipeline|solution|tool|dataset|benchmark)\b(?:, [^,]{1,80},)?) "
    r"(?:\w+ly )?(?!(?:can|may|might|need|must|is|are|was|were|will|of|in|on|and|or|to|for|"
    r"with|that)\b)[a-z]+",
    re.I,
)
_BACKGROUND = re.compile(  # the field, not the paper: 'Existing 3DGS methods effectively ...'
    r"^(?:existing|recent(?:ly)?|current(?:ly)?|traditional(?:ly)?|conventional(?:ly)?|prior|"
    r"previous(?:ly)?|most|many|however|despite|although|though|while|whereas|nowadays|"
    r"in recent years|over the past|with the)\b|"
    r"\bremains? (?:a |an )?(?:\w+ )?(?:challenge|obstacle|problem|bottleneck|open|unclear|"
    r"underexplored|unexplored|limited|difficult)|"
    r"\b(?:has|have) (?:recently )?(?:been|shown|demonstrated|achieved|emerged|gained|made|"
    r"become|attracted|seen|received)\b",
    re.I,
)
_US = re.compile(_BY_US, re.I)
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
    'In this paper, we study how X.' -> 'We study how X.' (never a fragment like 'to study X');
    'To address these issues, this paper proposes X.' -> 'This paper proposes X.'"""
    we = _WE.search(sentence)
    if not we or not _DROPPED_PREFIX.match(sentence[: we.start()]):
        by_us = _US.search(sentence)
        if by_us and by_us.start() and _DROPPED_PREFIX.match(sentence[: by_us.start()]):
            return _capitalized(sentence[by_us.start() :])
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
    """How plainly a sentence says what the paper does: makes > looks into > the titled thing
    is made or is a ... > finds > the rest; more when it names the titled thing, less when it is
    a later step ('Finally, we ...')."""
    plain = _CONNECTIVE.sub("", sentence, count=1)
    if verb := _MAKES.search(plain) or _BY_THE_PAPER.match(plain):
        score = 3.0
    elif verb := _ASKS.search(plain) or _PASSIVE.search(plain):
        score = 2.0
    elif name and _names_the_titled(plain, name):
        return 1.5
    elif _FINDS.search(plain):
        return 1.0 - 1.5 * bool(_ADDED.search(sentence))
    else:
        return 0.0
    if name and name in plain[verb.end() : verb.end() + NAMED_WITHIN]:  # what it makes
        score += 2
    if _ADDED.search(sentence):
        score -= 1.5
    return score


def _names_the_titled(sentence: str, name: str) -> bool:
    """Whether the sentence is about the thing the title names, not its results: 'SDForger is a
    flexible framework for ...', 'IGN introduces FLAIR-HUB, the largest ...'."""
    if sentence.startswith(name):
        return not _RESULT.search(sentence)
    made = _ANYONE_MAKES.search(sentence) if name in sentence else None
    return bool(made and name in sentence[made.end() : made.end() + NAMED_WITHIN])


def _weak_score(sentence: str) -> float:
    """For an abstract where no sentence says what the paper does: anything we do > the rest >
    background ('Existing 3DGS methods effectively render ...')."""
    if _LINK.search(sentence):
        return -0.5  # 'Our dataset is available at https://...'
    if _WE_DO.search(sentence):
        return 0.5  # 'We start from the hypothesis that ...'
    return -0.5 * bool(_BACKGROUND.search(sentence))


def _contribution_index(parts: list[str], title: str | None) -> int:
    """The sentence that states the contribution: the best scored, the earliest among equals;
    when none says it plainly, the first that is not background."""
    if len(parts) == 1:
        return 0
    name = _name(title) if title else None
    scores = [_score(s, name) for s in parts]
    if max(scores) <= 0:
        scores = [_weak_score(s) for s in parts]
    return max(range(len(parts)), key=lambda i: (scores[i], -i))


def _leans(statement: str, ritual_too: bool = False) -> bool:
    """Whether the statement points back to something it does not say ('addresses this empty
    quadrant'), not to its own words ('a framework ... this framework') nor, unless
    `ritual_too`, as a ritual ('to address these challenges')."""
    plain = statement if ritual_too else _RITUAL.sub("", statement)
    return any(
        not pointer["noun"] or pointer["noun"] not in plain[: pointer.start()]
        for pointer in _POINTER.finditer(plain)
    )


def _with_antecedent(statement: str, before: str, limit: int) -> str:
    """The statement, after the sentence before it when it points back to it ('We present X,
    the first system that addresses this empty quadrant.') and both fit within limit."""
    if len(before) < ANTECEDENT_MIN or not _leans(statement):
        return statement
    antecedent = _without_connective(before)
    if _leans(antecedent, ritual_too=True) or len(antecedent) + 1 + len(statement) > limit:
        return statement
    return f"{antecedent} {statement}"


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


# A structured abstract's label, as PubMed's parser and the journals write it: a capitalised
# phrase of a few words and a colon, opening the abstract or a sentence ("Methods and
# procedures: ", "Clinical trial registration ID: ").
_LABEL = re.compile(
    r"(?:^|(?<=[.!?)\]] ))(?P<label>[A-Z][A-Za-z]+(?:(?: |, | & | and |/|-)[A-Za-z]+){0,4}): "
)
_CONCLUSIONS = re.compile(r"conclu|interpretation|significance|implication|discussion", re.I)
_RESULTS = re.compile(r"result|finding", re.I)


# A label names a section: one of its words is one of these ("Primary objective", "Main
# outcome and results"), so "We ask one thing: why?" is no label.
_SECTION_WORDS = frozenset(
    (
        "aim", "availability", "background", "case", "conclusion", "context", "contact",
        "database", "design", "discussion", "evidence", "exposure", "finding", "funding",
        "hypothesis", "implementation", "implication", "importance", "interpretation",
        "intervention", "introduction", "limitation", "material", "measure", "measurement",
        "method", "methodology", "motivation", "objective", "observation", "outcome",
        "participant", "patient", "presentation", "purpose", "rationale", "registration",
        "relevance", "result", "review", "setting", "significance", "subject", "summary",
        "trial",
    )
)  # fmt: skip


def _names_a_section(label: str) -> bool:
    return any(word.lower().removesuffix("s") in _SECTION_WORDS for word in label.split())


def sections(abstract: str) -> list[tuple[str, str]]:
    """A structured abstract's sections as (label, text); [] for an abstract that is not one (it
    must open with a label and have another: one colon early in a plain abstract is no label)."""
    found = [m for m in _LABEL.finditer(abstract) if _names_a_section(m["label"])]
    if len(found) < 2 or found[0].start() != 0:
        return []
    ends = [match.start() for match in found[1:]] + [len(abstract)]
    return [
        (match["label"], abstract[match.end() : end].strip())
        for match, end in zip(found, ends, strict=True)
    ]


def _structured_tldr(parts: list[tuple[str, str]], limit: int) -> str:
    """What a structured abstract concludes, with a result in numbers when both fit; without a
    Conclusions section, its Results; "" without either."""
    concluded = next((text for label, text in parts if _CONCLUSIONS.search(label) and text), "")
    found = next((text for label, text in parts if _RESULTS.search(label) and text), "")
    if not concluded:
        return cut(found, limit, TLDR_MAX) if found else ""
    summary = cut(concluded, limit, TLDR_MAX)
    result = _result(sentences(found)) if found else None
    if result and not summary.endswith("…") and len(summary) + 1 + len(result) <= limit:
        return f"{summary} {result}"
    return summary


@functools.lru_cache(maxsize=2048)  # one paper goes to many chats
def tldr(abstract: str, title: str | None = None, limit: int = TLDR_MAX) -> str:
    """One or two sentences of the abstract worth reading first: a structured abstract's
    conclusions (and a result in numbers); else the sentence that states the contribution
    (after the one before it when it points back to it, 'this empty quadrant'; the next one
    too when it is thin), plus the first later sentence with a result in numbers when they fit
    within `limit` characters. A contribution too long for `limit` is cut where a statement
    ends, with '…', or kept whole up to TLDR_MAX (bot/core/clauses.py)."""
    if (structured := sections(abstract)) and (found := _structured_tldr(structured, limit)):
        return found
    parts = sentences(abstract)
    if not parts:
        return ""
    index = _contribution_index(parts, title)
    pieces = _GLUED.split(parts[index])  # two sentences the listing ran together
    within = _contribution_index(pieces, title)
    chosen = pieces[within]
    before = pieces[within - 1] if within else _GLUED.split(parts[index - 1])[-1] if index else ""
    summary = cut(_with_antecedent(_contribution(chosen), before, limit), limit, TLDR_MAX)
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
