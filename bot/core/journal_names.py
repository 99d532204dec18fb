"""A journal's names as `jr:` finds it: the name a record gives and the abbreviations kept with
it (PubMed's ISO abbreviation and MedlineTA). Every name is folded by `fold_journal`, so
'Nat. Neurosci.', 'NAT NEUROSCI' and 'nat neurosci' are one name."""

from __future__ import annotations

from collections.abc import Iterable

from bot.core.analysis import fold_journal


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
    """The folded names a paper's journal is found by: its name and its abbreviations."""
    names = (fold_journal(name) for name in (journal, *abbreviations) if name)
    return tuple(dict.fromkeys(name for name in names if name))
