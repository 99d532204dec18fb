"""A pseudo language for tests: every message the code marks for translation (Babel's extraction,
with the project's babel.cfg, as the real catalogs are extracted) "translated" as itself between
⟦ and ⟧. Shown to a chat in that language, a text says at once what went through the reader's
translator and what did not. Numbers and dates keep the language's formats (Babel's).

Two bracketings, because the tests ask two questions:

* `wrapped` brackets the whole message, placeholders and all: 'Filter {number} saved' ->
  '⟦Filter {number} saved⟧'. A text composed of messages nests as the code composed it, so a
  test can assert which message holds which (the refusals of tests/core/test_i18n_errors.py
  count one pair per message), and `unwrapped` gives back the English.
* `wrapped_words` brackets the words only and leaves each {placeholder} outside: '⟦Filter
  ⟧{number}⟦ saved⟧'. A value put into a sentence (a label, a state's name) is then checked on
  its own, where a whole-message bracket would hide it (tests/test_i18n_commands.py).

The language is offered to bot.i18n as catalogs in a directory (`write_catalog`,
`use_catalogs`) or used directly as a translator (`pseudo_translator`). Two checkers find the
English left outside the brackets: `untranslated` counts every word (the bot's own messages,
around papers whose text is known), `english_left` only the English words of the code's messages
(command replies, which echo what the reader typed: filters, time zones, files)."""

from __future__ import annotations

import gettext
import html
import re
from collections.abc import Callable, Iterable
from functools import cache
from io import BytesIO
from pathlib import Path

import pytest
from babel.dates import get_day_names, get_month_names
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import write_po

import bot.i18n
from bot.commands import COMMANDS
from bot.core.i18n import Translator
from bot.core.paper import Paper
from bot.core.render import ENTRY_TLDR, escape
from bot.core.summary import tldr

ROOT = Path(__file__).resolve().parent.parent
OPEN, CLOSE = "⟦", "⟧"
Message = str | tuple[str, str]  # a msgid, or a singular and its plural
Bracketing = Callable[[str], str]


@cache
def extracted() -> tuple[Message, ...]:
    """Every message of the code, as Babel extracts it for the catalogs."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found = extract_from_dir(str(ROOT), method_map, options_map)
    messages = (m if isinstance(m, str) else (m[0], m[1]) for _file, _line, m, *_ in found)
    return tuple(dict.fromkeys(message for message in messages if message))


def msgids() -> set[str]:
    """The ids of the code's messages (a plural by its singular), as a catalog keys them."""
    return {message if isinstance(message, str) else message[0] for message in extracted()}


def wrapped(text: str) -> str:
    """'Filter {number} saved' -> '⟦Filter {number} saved⟧'."""
    return f"{OPEN}{text}{CLOSE}"


_PLACEHOLDER = re.compile(r"(\{\w*\})")


def wrapped_words(text: str) -> str:
    """'Filter {number} saved' -> '⟦Filter ⟧{number}⟦ saved⟧'."""
    return "".join(
        part if _PLACEHOLDER.fullmatch(part) else wrapped(part)
        for part in _PLACEHOLDER.split(text)
        if part
    )


def unwrapped(text: str) -> str:
    """The text without the pseudo language's brackets: what English says."""
    return text.replace(OPEN, "").replace(CLOSE, "")


def pseudo_catalog(
    language: str, bracket: Bracketing = wrapped, also: Iterable[str] = ()
) -> Catalog:
    """The code's messages, and `also`, each translated as `bracket` writes it (in as many
    plural forms as `language` has)."""
    catalog = Catalog(locale=language, domain=bot.i18n.DOMAIN)
    for message in (*extracted(), *also):
        if isinstance(message, tuple):
            forms = tuple(bracket(message[min(i, 1)]) for i in range(catalog.num_plurals))
            catalog.add(message, forms)
        elif message:
            catalog.add(message, bracket(message))
    return catalog


def pseudo_translator(also: Iterable[str] = ()) -> Translator:
    """The pseudo language (whole messages bracketed) of the code's messages, and of `also`
    (words a test expects never to be translated: were they, they would show their brackets)."""
    compiled = BytesIO()
    write_mo(compiled, pseudo_catalog("en", wrapped, also))
    compiled.seek(0)
    return Translator("en", gettext.GNUTranslations(compiled))


def write_catalog(directory: Path, language: str, bracket: Bracketing = wrapped) -> Path:
    """The pseudo catalog of `language` under `directory`, laid out as bot/locale is."""
    path = directory / language / "LC_MESSAGES" / f"{bot.i18n.DOMAIN}.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as po:
        write_po(po, pseudo_catalog(language, bracket))
    return path


def use_catalogs(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    """bot.i18n offers the languages of `directory` (and English) instead of the real catalogs.
    It keeps the translators it made: the caller clears `bot.i18n.translator` again when done,
    before the real catalogs are back."""
    monkeypatch.setattr(bot.i18n, "LOCALE_DIR", directory)
    bot.i18n.translator.cache_clear()


_INNERMOST = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _outside_brackets(text: str) -> str:
    """The text with every bracketed message blanked, nested ones from the inside out."""
    while _INNERMOST.search(text):
        text = _INNERMOST.sub(" ", text)
    return text


_QUOTE = re.compile(r"<blockquote[^>]*>.*?</blockquote>", re.S)  # the abstract: the paper's
_TAG = re.compile(r"<[^>]+>")
_ADDRESS = re.compile(r"\b[\w.-]+\.(?:org|com|net)/\S*")  # a link's text: its address
_CATEGORY = re.compile(r"\b[a-z]+(?:-[a-z]+)?\.[A-Za-z]+(?:-[A-Za-z]+)?\b")  # cs.LG, q-bio.NC


def paper_texts(paper: Paper) -> list[str]:
    """What of a paper a message shows as the paper wrote it, escaped as messages carry it."""
    texts = [paper.title, *paper.authors, paper.comments or "", paper.journal or ""]
    texts += [tldr(paper.abstract, paper.title), tldr(paper.abstract, paper.title, ENTRY_TLDR)]
    return sorted((html.escape(t, quote=False) for t in texts if t), key=len, reverse=True)


def untranslated(text: str, papers: Iterable[Paper] = (), data: Iterable[str] = ()) -> list[str]:
    """Every word of `text` that went past the catalog: outside every ⟦⟧ (translated messages,
    with what they carry), the tags, the abstracts' quotes, the papers' own text, what the
    reader wrote (`data`: their filters), links and categories."""
    text = _TAG.sub("", _QUOTE.sub(" ", _outside_brackets(text)))  # a title's marked words
    shown = [t for paper in papers for t in paper_texts(paper)]  # are tagged inside it
    for verbatim in sorted([*shown, *(html.escape(d, quote=False) for d in data)], key=len)[::-1]:
        text = text.replace(verbatim, " ")
    text = _ADDRESS.sub(" ", text)
    text = _CATEGORY.sub(" ", text)
    return [word for word in _WORD.findall(text) if word not in _local_dates()]


@cache
def _local_dates() -> frozenset[str]:
    """Month and weekday names as the languages other than English write them (Babel's, in a
    date): a pseudo German digest's "22. Okt. 2026" is German, not English left behind."""
    english = {*_names("en")}
    return frozenset(word for lang in ("de", "es", "pt_BR") for word in _names(lang)) - english


def _names(language: str) -> set[str]:
    found: set[str] = set()
    for width in ("wide", "abbreviated"):
        for names in (
            get_month_names(width, locale=language),
            get_day_names(width, locale=language),
        ):
            found |= {word for name in names.values() for word in _WORD.findall(name)}
    return found


# shown as typed or as the parser reads them, in every language: the settings' keywords and
# the languages' codes
KEYWORDS = {"digest", "weekly", "instant", "UTC", "arXiv", "Telegram", *bot.i18n.available()}
# codes shown as they are: time zones (Europe/Berlin, Etc/GMT-2), files, the commands' arguments
_CODES = re.compile(
    r"\b[A-Z][a-z]+/[\w/+-]+|[\w-]+\.(?:bib|ris|csv)\b|"
    + "|".join(re.escape(f" {escape(c.usage)}:") for c in COMMANDS if c.usage)
)
_VERBATIM = re.compile(r"<code>.*?</code>|<pre>.*?</pre>|<[^>]+>|/\w+", re.S)


@cache
def english_words() -> frozenset[str]:
    """The words of the code's English messages, and English weekday and month names, but the
    keywords every language shows as they are."""
    words: set[str] = set()
    for message in extracted():
        for text in message if isinstance(message, tuple) else (message,):
            words |= set(_WORD.findall(_PLACEHOLDER.sub(" ", text)))
    for width in ("wide", "abbreviated"):
        words |= set(get_day_names(width, locale="en").values())
        words |= set(get_month_names(width, locale="en").values())
    return frozenset(words - KEYWORDS)


def english_left(text: str, data: Iterable[str] = ()) -> list[str]:
    """The words of `english_words` in a reply outside the brackets, leaving out user data
    (`data`, and what <code> and <pre> show: filters, commands, ids), command names, codes
    and HTML tags."""
    rest = _outside_brackets(text)
    for shown in sorted(data, key=len, reverse=True):
        rest = rest.replace(shown, " ")
    rest = _VERBATIM.sub(" ", _CODES.sub(" ", rest))
    return [word for word in _WORD.findall(rest) if word in english_words()]
