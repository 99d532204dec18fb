"""Author lines as listings write them, turned into a list of names plus a count of the rest."""

from __future__ import annotations

import re

from bot.core.text import clean_text

MAX_AUTHORS = 100  # what we keep of a long list; the rest is counted

_AFFILIATION_BLOCK = re.compile(r"\(\(\d+\).*\)\s*$", re.S)
_AFFILIATION_MARK = re.compile(r"\s*\(\d+(?:\s*,\s*\d+)*\)")
_NOT_SHOWN = re.compile(r",?\s*et al\.?\s*\((\d+)\s+additional authors? not shown\)", re.I)
_ET_AL = re.compile(r",?\s*et al\.?\s*$", re.I)
_N_MORE = re.compile(r",?\s+and\s+(\d+)\s+more\s*$", re.I)
_COLLABORATION = re.compile(r"\(([^()]*(?:Collaboration|Consortium|Group|Team)[^()]*)\)", re.I)
_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*;\s*")


def parse_authors(line: str | None) -> tuple[tuple[str, ...], int]:
    """'A, B, C and 1 more' -> (('A', 'B', 'C'), 1). 'et al.' without a count gives -1."""
    if not line:
        return (), 0
    text = clean_text(line)
    text = _AFFILIATION_BLOCK.sub("", text)
    text = _AFFILIATION_MARK.sub("", text)
    more = 0
    if m := _NOT_SHOWN.search(text):
        more = int(m.group(1))
        text = text[: m.start()] + text[m.end() :]
    elif m := _N_MORE.search(text):
        more = int(m.group(1))
        text = text[: m.start()]
    elif m := _ET_AL.search(text):
        more = -1
        text = text[: m.start()]
    groups = [g.strip() for g in _COLLABORATION.findall(text)]
    text = _COLLABORATION.sub("", text)
    names = [n.strip(" .") for n in _SEPARATOR.split(text)]
    names = [n for n in names if n] + [g for g in groups if g]
    if len(names) > MAX_AUTHORS:
        more = max(more, 0) + len(names) - MAX_AUTHORS
        names = names[:MAX_AUTHORS]
    return tuple(names), more


_SURNAME_FIRST = re.compile(r"^(?P<surname>[^,]+),\s*(?P<given>[^,]+)$")
# Given names as initials only: "A. J.", "V. G.", "A.-B.", "AJ".
_INITIALS = re.compile(r"^(?:[^\W\d_]{1,2}(?:\.|(?=[\s-]|$))[\s-]*)+$")


def is_surname_first(name: str) -> bool:
    """'Kumar, V. G.' (bioRxiv's feeds write every author so), not 'Chen C' nor a list."""
    match = _SURNAME_FIRST.match(name.strip())
    return bool(match and _INITIALS.match(match["given"].strip()))


def surname_last(name: str) -> str:
    """'Quinn, A. J.' -> 'A. J. Quinn', 'Smith, John' -> 'John Smith', as every other listing
    writes a name; a name in any other shape is kept as it is."""
    match = _SURNAME_FIRST.match(name.strip())
    if not match:
        return name.strip()
    given = " ".join(
        f"{part}." if len(part) == 1 and part.isalpha() else part for part in match["given"].split()
    )
    return f"{given} {match['surname'].strip()}"


def parse_surname_first(names: list[str]) -> tuple[tuple[str, ...], int]:
    """Names written one a record, surname first ('Ghafari, T.'), as they read everywhere else."""
    kept = [surname_last(clean_text(name, tex=False)) for name in names]
    kept = [name for name in kept if name]
    return tuple(kept[:MAX_AUTHORS]), max(len(kept) - MAX_AUTHORS, 0)
