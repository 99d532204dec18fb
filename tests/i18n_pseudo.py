"""A pseudo language for tests: every message the code marks, extracted as the lead extracts
the real catalogs (Babel), "translated" as itself between ⟦ and ⟧. A message the bot sends to a
chat in that language shows at once what went through the catalog and what did not: any
English word outside ⟦⟧ that is not the paper's own text (or a link, a number, a code) was
written past the translator.

Load it with `use_pseudo_catalogs(monkeypatch, tmp_path)`: bot.i18n reads catalogs from
LOCALE_DIR, so the test points it at the pseudo ones and forgets the translators it made."""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

import bot.i18n
from bot.core.paper import Paper
from bot.core.render import ENTRY_TLDR
from bot.core.summary import tldr

BOT = Path(bot.i18n.__file__).parent
OPEN, CLOSE = "⟦", "⟧"


@functools.cache
def extracted() -> tuple[str | tuple[str, ...], ...]:
    """Every message the code marks (gettext, ngettext, N_), as Babel extracts them."""
    found = extract_from_dir(str(BOT), method_map=[("**.py", "python")])
    return tuple(dict.fromkeys(message for _, _, message, _, _ in found if message))


def pseudo(message: str) -> str:
    return f"{OPEN}{message}{CLOSE}"


def write_pseudo_catalog(directory: Path, language: str) -> Path:
    """The pseudo catalog of `language` (its plural forms: Babel's) under `directory`, laid
    out as bot/locale is."""
    catalog = Catalog(locale=language, domain=bot.i18n.DOMAIN)
    for message in extracted():
        if isinstance(message, tuple):
            forms = message[:2]
            plural = tuple(pseudo(forms[min(i, 1)]) for i in range(catalog.num_plurals))
            catalog.add(forms, plural)
        else:
            catalog.add(message, pseudo(message))
    path = directory / language / "LC_MESSAGES" / f"{bot.i18n.DOMAIN}.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as po:
        write_po(po, catalog)
    return path


def use_pseudo_catalogs(
    monkeypatch: pytest.MonkeyPatch, directory: Path, languages: Iterable[str] = ("de",)
) -> None:
    """bot.i18n offers the pseudo languages (and English) instead of the real catalogs."""
    for language in languages:
        write_pseudo_catalog(directory, language)
    monkeypatch.setattr(bot.i18n, "LOCALE_DIR", directory)
    bot.i18n.translator.cache_clear()  # the caller clears it again when done


_INNERMOST = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
_QUOTE = re.compile(r"<blockquote[^>]*>.*?</blockquote>", re.S)  # the abstract: the paper's
_TAG = re.compile(r"<[^>]+>")
_ADDRESS = re.compile(r"\b[\w.-]+\.(?:org|com|net)/\S*")  # a link's text: its address
_CODE = re.compile(r"\b[a-z]+(?:-[a-z]+)?\.[A-Za-z]+(?:-[A-Za-z]+)?\b")  # cs.LG, q-bio.NC
_WORD = re.compile(r"[A-Za-z]{2,}")


def paper_texts(paper: Paper) -> list[str]:
    """What of a paper a message shows as the paper wrote it, escaped as messages carry it."""
    texts = [paper.title, *paper.authors, paper.comments or "", paper.journal or ""]
    texts += [tldr(paper.abstract, paper.title), tldr(paper.abstract, paper.title, ENTRY_TLDR)]
    return sorted((html.escape(t, quote=False) for t in texts if t), key=len, reverse=True)


def untranslated(text: str, papers: Iterable[Paper] = ()) -> list[str]:
    """The English words of `text` that went past the catalog: outside every ⟦⟧ (translated
    messages, with what they carry), the tags, the abstracts' quotes, the papers' own text,
    links and codes."""
    while _INNERMOST.search(text):
        text = _INNERMOST.sub(" ", text)
    text = _TAG.sub("", _QUOTE.sub(" ", text))  # a title's marked words are tagged inside it
    for shown in (t for paper in papers for t in paper_texts(paper)):
        text = text.replace(shown, " ")
    text = _ADDRESS.sub(" ", text)
    text = _CODE.sub(" ", text)
    return _WORD.findall(text)
