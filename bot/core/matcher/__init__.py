"""Matching papers against many filters: a presearcher in the manner of Lucene Monitor.

    document.py   Document: a paper analysed once (terms, pairs, folded words, categories)
    program.py    a filter compiled into small program objects, each with `matches(doc)`
    anchors.py    AnchorKind, and the anchors a filter is filed under: chosen by cost
    prefixes.py   the indexed prefixes a paper's words start with (and a memo of them)
    index.py      FilterIndex: posting lists, a paper's candidates, verification
    paper_index.py  PaperIndex: the other way round, recent papers by key, one filter's matches

A filter's anchors are terms at least one of which every matching paper must contain; a paper's
own terms find the candidate filters, and only candidates are checked. One filter against one
paper needs no index: `matches(query, paper)`; one filter against a week of papers goes through
PaperIndex, where the filter's anchors find the candidate papers.
"""

from bot.core.matcher.anchors import Anchor, AnchorKind, term_frequencies
from bot.core.matcher.document import Document
from bot.core.matcher.index import FilterIndex
from bot.core.matcher.paper_index import PaperIndex
from bot.core.matcher.program import Program, compile_query, matches, run

__all__ = [
    "Anchor",
    "AnchorKind",
    "Document",
    "FilterIndex",
    "PaperIndex",
    "Program",
    "compile_query",
    "matches",
    "run",
    "term_frequencies",
]
