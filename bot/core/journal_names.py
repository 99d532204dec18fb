"""A journal's names as `jr:` finds it: the name a record gives, the abbreviations kept with it
(PubMed's ISO abbreviation and MedlineTA), and, for a few journals, the acronym readers use.
Every name is folded by `fold_journal`, so 'Nat. Neurosci.', 'NAT NEUROSCI' and 'nat neurosci'
are one name."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from bot.core.analysis import fold_journal

# Acronyms readers write for a journal that no record gives: PubMed's ISO abbreviation of PNAS is
# "Proc Natl Acad Sci U S A", and a journal's feed gives only its name. Each row is one journal:
# the acronym, then its names as the journal and PubMed write them (the ISO abbreviation last).
# A paper whose journal or kept abbreviation is one of a row's names is found by every name of
# the row (journal_keys): jr:pnas finds PubMed's "Proceedings of the National Academy of
# Sciences of the United States of America", and jr:"proc natl acad sci u s a" the journal's own
# feed's "Proceedings of the National Academy of Sciences".
# Where it comes from: written by hand for paperbot (2026), not taken from a registry: the short
# name each journal or its publisher uses for it (PNAS, NEJM, ACS's JACS, APS's PRL, IEEE's
# TPAMI, ...) for journals of paperbot's fields whose readers write the acronym; the names are
# PubMed's titles and ISO 4 abbreviations. A journal whose ISO abbreviation already is what
# readers write (JAMA, BMJ, eLife, Cell) needs no row. Keep it short: a row where readers miss
# one, never every journal's initials.
JOURNAL_ACRONYMS: tuple[tuple[str, ...], ...] = (
    (
        "PNAS",
        "Proceedings of the National Academy of Sciences",
        "Proceedings of the National Academy of Sciences of the United States of America",
        "Proc Natl Acad Sci U S A",
    ),
    ("NEJM", "The New England Journal of Medicine", "N Engl J Med"),
    ("JACS", "Journal of the American Chemical Society", "J Am Chem Soc"),
    ("PRL", "Physical Review Letters", "Phys Rev Lett"),
    ("JMLR", "Journal of Machine Learning Research", "J Mach Learn Res"),
    (
        "TPAMI",
        "IEEE Transactions on Pattern Analysis and Machine Intelligence",
        "IEEE Trans Pattern Anal Mach Intell",
    ),
    ("NAR", "Nucleic Acids Research", "Nucleic Acids Res"),
    ("ApJ", "The Astrophysical Journal", "Astrophys J"),
    ("MNRAS", "Monthly Notices of the Royal Astronomical Society", "Mon Not R Astron Soc"),
    ("JHEP", "Journal of High Energy Physics", "J High Energy Phys"),
    ("JCO", "Journal of Clinical Oncology", "J Clin Oncol"),
    ("JCI", "The Journal of Clinical Investigation", "J Clin Invest"),
    ("JNeurosci", "The Journal of Neuroscience", "J Neurosci"),
)


@cache
def _rows() -> dict[str, tuple[str, ...]]:
    """Each folded name of JOURNAL_ACRONYMS -> every folded name of its row (folded on first
    use, not at import)."""
    found: dict[str, tuple[str, ...]] = {}
    for row in JOURNAL_ACRONYMS:
        folded = tuple(dict.fromkeys(map(fold_journal, row)))
        found.update((name, folded) for name in folded)
    return found


def distinct_abbreviations(journal: str | None, names: Iterable[str]) -> tuple[str, ...]:
    """The names that tell `jr:` something the journal's name does not, first spelling kept:
    ('Journal of medical Internet research', ['J. Med. Internet Res.', 'J Med Internet Res'])
    -> ('J. Med. Internet Res.',); ('Nature', ['Nature', 'Nature']) -> ()."""
    seen = {fold_journal(journal)} if journal else set()
    kept: list[str] = []
    for name in names:
        folded = fold_journal(name) if name else ""
        if folded and folded not in seen:
            seen.add(folded)
            kept.append(name)
    return tuple(kept)


def journal_keys(journal: str | None, abbreviations: Iterable[str] = ()) -> tuple[str, ...]:
    """The folded names a paper's journal is found by: its name, its abbreviations, and the
    names of its row of JOURNAL_ACRONYMS if one of them is there."""
    names = [fold_journal(name) for name in (journal, *abbreviations) if name]
    rows = _rows()
    for name in list(names):
        names.extend(rows.get(name, ()))
    return tuple(dict.fromkeys(name for name in names if name))
