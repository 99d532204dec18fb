"""The plain reference matcher: one filter at a time, straight from the query tree, no index and
no compiled programs. The oracle the indexed matcher must agree with, and the benchmark's
baseline."""

from __future__ import annotations

from bot.core.analysis import fold_category, tokens
from bot.core.journal_names import JOURNAL_ACRONYMS
from bot.core.paper import Paper
from bot.core.query import And, Category, Node, Not, Or, Phrase, PhrasePrefix, Prefix, Word


def _field_token_lists(paper: Paper, fields: tuple[str, ...]) -> list[list]:
    lists = []
    if "title" in fields:
        lists.append(tokens(paper.title))
    if "abstract" in fields:
        lists.append(tokens(paper.abstract))
    if "author" in fields:
        lists.extend(tokens(name) for name in paper.authors)
        # and each name with its given names as initials: Blaine Reeder as B Reeder
        for name in paper.authors:
            found = [token.folded for token in tokens(name)]
            if any(len(word) > 1 for word in found[:-1]):
                lists.append(tokens(" ".join([*(w[0] for w in found[:-1]), found[-1]])))
    return lists


def _journal(name: str) -> str:
    """A journal's name without what NLM adds to it in PubMed (a place in parentheses at the end,
    a subtitle after " : " or " = ") and without a leading "The", as terms."""
    if name.endswith(")") and "(" in name and name.rindex("(") > 0:
        name = name[: name.rindex("(")]
    for mark in (" : ", " = "):
        name = name.split(mark)[0] if name.split(mark)[0].strip() else name
    terms = [t.term for t in tokens(name)]
    return " ".join(terms[1:] if terms[:1] == ["the"] and len(terms) > 1 else terms)


def _journal_names(paper: Paper) -> set[str]:
    """The journal's name and abbreviations, each with the names of its acronyms' row."""
    names = {_journal(name) for name in (paper.journal, *paper.journal_abbreviations) if name}
    for row in JOURNAL_ACRONYMS:
        if names & {_journal(name) for name in row}:
            names.update(_journal(name) for name in row)
    return names


def matches(node: Node, paper: Paper) -> bool:
    if isinstance(node, And):
        return all(matches(part, paper) for part in node.parts)
    if isinstance(node, Or):
        return any(matches(part, paper) for part in node.parts)
    if isinstance(node, Not):
        return not matches(node.part, paper)
    if isinstance(node, Category) and node.is_named:
        kind, name = node.value.split(":", 1)
        if kind == "mesh":
            return any(" ".join(t.term for t in tokens(term)) == name for term in paper.mesh)
        if kind == "jr":
            return name in _journal_names(paper)
        return name in paper.sources
    if isinstance(node, Category):
        for category in (fold_category(c) for c in paper.categories):
            if node.is_prefix and category.startswith(node.value):
                return True
            if not node.is_prefix and (
                category == node.value
                or ("." not in node.value and category.split(".")[0] == node.value)
            ):
                return True
        return False
    for analysed in _field_token_lists(paper, node.fields):
        if isinstance(node, Word) and any(t.term == node.term for t in analysed):
            return True
        if isinstance(node, Prefix) and any(t.folded.startswith(node.prefix) for t in analysed):
            return True
        if isinstance(node, Phrase):
            terms = [t.term for t in analysed]
            size = len(node.terms)
            if any(tuple(terms[i : i + size]) == node.terms for i in range(len(terms))):
                return True
        if isinstance(node, PhrasePrefix):
            size = len(node.terms)
            for i in range(len(analysed) - size):
                full = [t.term for t in analysed[i : i + size]]
                if tuple(full) == node.terms and analysed[i + size].folded.startswith(node.prefix):
                    return True
    return False
