"""Where a sentence may be cut and still read as a statement: at the end of a clause or phrase,
never inside a list or a bracket, never after a word that needs more ('of', 'the', 'and'),
always with '…' and never with a full stop that the author did not write ('... a framework that
plans, executes.'). Inside an enumeration ('(1) ..., (2) ...') only after a whole item, and only
when nothing before it says more than 'We propose…' (21 of the 6,349 real papers' TL;DRs)."""

from __future__ import annotations

import re

CUT_MIN = 80  # a cut shorter than this says too little
CUT_SHORTEST = 20  # ... but more than a cut inside a clause, when there is no other

_STRONG_BREAK = re.compile(r"(?:;|:| —| –| -{1,2}) ")
_ADJUNCT = (  # what may follow a statement that stands: 'X does Y, (enabling Z)'
    r"which|where|whereby|while|whereas|when|thereby|thus|hence|yet|but|although|though|albeit|"
    r"despite|regardless|unlike|compared|rather than|instead of|because|since|unless|without|"
    r"especially|particularly|including|such as|namely|as well as|"
    r"enabling|allowing|making|leading|resulting|yielding|achieving|providing|offering|ensuring|"
    r"outperforming|demonstrating|showing|revealing|highlighting|establishing|paving|surpassing|"
    r"delivering|requiring|relying|bridging|facilitating|improving|reducing|boosting|mitigating|"
    r"eliminating|avoiding|addressing|capturing|preserving|maintaining|leveraging|using|"
    r"exploiting|incorporating|integrating|combining|followed by|inspired by|guided by|"
    r"supported by|based on|coupled with"
)
_CLAUSE_BREAK = re.compile(rf", (?=(?:{_ADJUNCT})\b|e\.g\.|i\.e\.)")
_PHRASE_BREAK = re.compile(  # no comma: 'a framework that ... (via X)'; not 'driven (by X)'
    r"(?<!ed)(?<!en)(?<!wn) (?=(?:which|whereby|while|whereas|by|via|through|using|leveraging|"
    r"comprising|including|without|across|based on|such as|in order to)\b)"
)
_PREPOSITION_BREAK = re.compile(  # only past the longest whole: '... simulation (for prediction)'
    r"(?<!ed)(?<!en)(?<!wn) (?=(?:for|in|on|with|from|into|at|over|under|between|among|within|"
    r"during|after|before|against|beyond|along|toward|towards)\b)"
)
_ITEM_BREAK = re.compile(r"[,;]?(?:\s+and)? (?=\(?(?:[2-9]|ii|iii|iv|v|[b-e])\) )")  # '; (2) '
_BOUNDARIES = (_STRONG_BREAK, _CLAUSE_BREAK, _PHRASE_BREAK)
_DANGLING = re.compile(  # a word a statement cannot end with: 'into a', 'the role of', 'and'
    r"(?:a|an|the|this|that|these|those|its|their|our|each|every|any|some|both|either|"
    r"neither|no|of|in|on|at|to|for|with|by|from|into|onto|over|under|via|as|than|between|among|"
    r"across|through|toward|towards|without|within|upon|about|against|and|or|nor|but|which|who|"
    r"whom|whose|where|while|whereas|when|if|because|although|though|is|are|was|were|be|been|"
    r"being|has|have|had|can|could|may|might|will|would|shall|should|must|do|does|did|not|such|"
    # ... or a verb that needs its object or particle: 'This work contributes: (1) ...'
    r"contributes?|includes?|comprises?|contains?|follows|involves?|consists?|results?|relies|"
    r"rely|focus(?:es)?|depends?|lies|lie|suffers?|benefits?|differs?|deals?|aims?|accounts|"
    r"allows?|leads?|enables?)",
    re.I,
)
_ENUMERATION = re.compile(r"(?:^|\s)\(?(?:[1-9]|i{1,3}|iv|v|[a-e])\)")  # '(1) ', 'ii)', '(a)'


def cut(text: str, limit: int, whole_up_to: int) -> str:
    """The text when it fits in limit; else its longest start within limit that ends where a
    statement ends, with '…' ('X, a framework that plans, executes, and aggregates
    evaluations…'); else the whole text when it fits in whole_up_to; else the best start
    within whole_up_to: at a clause, before a preposition, a short one ('We introduce X…'),
    after a whole item of an enumeration, at a word (1 of the 6,349 real papers' TL;DRs)."""
    if len(text) <= limit:
        return text
    if start := _clause_start(text, limit):
        return start
    if len(text) <= whole_up_to:
        return text
    return (
        (_clause_start(text, whole_up_to) if whole_up_to > limit else None)
        or _clause_start(text, whole_up_to, boundaries=(_PREPOSITION_BREAK,))
        or _clause_start(text, whole_up_to, shortest=CUT_SHORTEST)
        or _clause_start(text, whole_up_to, CUT_SHORTEST, (_ITEM_BREAK,), enumerated=True)
        or _word_start(text, whole_up_to)
    )


def _stands(start: str, enumerated: bool = False) -> bool:
    """Whether a start of a sentence stands as a statement: no bracket left open, not inside an
    enumeration (unless `enumerated`) nor after an item of a list, not ending on a word that
    needs more ('of', 'the', 'contributes') nor on an abbreviation ('i.e.')."""
    words = start.rsplit(maxsplit=2)
    return bool(
        words
        and start.count("(") <= start.count(")")  # '1)' opens none
        and start.count("[") <= start.count("]")
        and not _DANGLING.fullmatch(words[-1])
        and not start.endswith(".")
        and (enumerated or not _ENUMERATION.search(start))
        and not (len(words) > 1 and words[-2].endswith(","))  # 'plans, executes': in a list
    )


def _clause_start(
    text: str,
    limit: int,
    shortest: int = CUT_MIN,
    boundaries: tuple[re.Pattern[str], ...] = _BOUNDARIES,
    enumerated: bool = False,
) -> str | None:
    """The longest start of text within limit, past `shortest` characters, that ends at a
    boundary and stands, with '…': before ';' or ':', else before ', which', ', enabling',
    ..., else before 'via', 'using', ...; None when there is none."""
    for boundary in boundaries:
        ends = [m.start() for m in boundary.finditer(text, shortest) if m.start() < limit]
        for end in reversed(ends):
            start = text[:end].rstrip(" ,;:")
            if _stands(start, enumerated):
                return start + "…"
    return None


def _word_start(text: str, limit: int) -> str:
    """The longest start of text within limit that ends at a word and stands, with '…'."""
    end = limit - 1
    while (end := text.rfind(" ", 0, end)) > 0:
        start = text[:end].rstrip(" ,;:")
        if _stands(start):
            return start + "…"
    return text[: limit - 1] + "…"
