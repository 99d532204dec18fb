"""arXiv's categories and bioRxiv's and medRxiv's subject collections, to tell a `cat:` filter
that names none (cat:cs.XY) from one that does, and to name the nearest real ones. arXiv's
taxonomy is a text file of the package (bot/core/data/arxiv_categories.txt), handed in by the
edge that reads it; the preprint servers' collections are few and fixed, kept in code."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from bot.core.analysis import fold_category
from bot.core.listings.biorxiv import subject_categories
from bot.core.query import Category, Node, leaves

NEAREST = 3  # categories named at most for one that does not exist


@dataclass(frozen=True)
class Taxonomy:
    categories: dict[str, tuple[str, str]]  # folded code (cs.lg) -> (cs.LG, Machine Learning)

    def knows(self, category: Category) -> bool:
        """cat:cs.LG, cat:hep-th, an archive (cat:cs, cat:cond-mat) or its subjects (cat:cs.*);
        bioRxiv's and medRxiv's collections (cat:biorxiv.neuroscience, cat:medrxiv). A MeSH
        term, journal or source is no category, and checked by the parser where it can be."""
        if category.is_named:
            return True
        value = category.value  # folded; 'cs.' for cat:cs.*
        if category.is_prefix:
            return any(code.startswith(value) for code in self.categories)
        archive = value + "."
        return value in self.categories or any(c.startswith(archive) for c in self.categories)

    def nearest(self, category: Category) -> tuple[tuple[str, str], ...]:
        """The categories most like it, closest first: (code, name). The same subject in
        another archive comes first (cat:cs.ML: stat.ML), then the closest spellings."""
        value = category.value.rstrip(".")
        _, dot, subject = value.rpartition(".")
        same = [c for c in self.categories if dot and c.rpartition(".")[2] == subject]
        close = difflib.get_close_matches(value, self.categories, n=NEAREST, cutoff=0.6)
        return tuple(self.categories[c] for c in dict.fromkeys(same + close))[:NEAREST]


def read_taxonomy(text: str) -> Taxonomy:
    """The taxonomy file: 'cs.LG Machine Learning' a line; '#' lines are comments."""
    categories = dict(subject_categories())
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            code, _, name = line.strip().partition(" ")
            categories[fold_category(code)] = (code, name)
    return Taxonomy(categories)


@dataclass(frozen=True)
class UnknownCategory:
    written: str  # as the filter was understood: cat:cs.xy, cat:hep-.*
    nearest: tuple[tuple[str, str], ...]  # (code, name) of the closest real categories


def unknown_categories(query: Node, taxonomy: Taxonomy) -> tuple[UnknownCategory, ...]:
    """The filter's cat: parts that name no arXiv category (each once, in the filter's order)."""
    found: dict[str, UnknownCategory] = {}
    for leaf, _ in leaves(query):
        if isinstance(leaf, Category) and not taxonomy.knows(leaf):
            written = "cat:" + (leaf.value + "*" if leaf.is_prefix else leaf.value)
            found.setdefault(written, UnknownCategory(written, taxonomy.nearest(leaf)))
    return tuple(found.values())
