"""A pseudo language for tests: every message the code marks for translation (Babel's extraction,
with the project's config) says itself between ⟦ and ⟧, so a test sees which words went through
the reader's translator and which did not. Numbers and dates keep English formats."""

from __future__ import annotations

import gettext
from collections.abc import Iterable
from functools import cache
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo

from bot.core.i18n import Translator

ROOT = Path(__file__).resolve().parent.parent
Message = str | tuple[str, str]  # a msgid, or a singular and its plural


@cache
def extracted() -> tuple[Message, ...]:
    """Every message of the code, as Babel extracts it for the catalogs."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found = extract_from_dir(str(ROOT), method_map, options_map)
    return tuple(dict.fromkeys(message for _file, _line, message, *_ in found))


def wrapped(text: str) -> str:
    return f"⟦{text}⟧"


def pseudo_translator(also: Iterable[str] = ()) -> Translator:
    """The pseudo language of the code's messages, and of `also` (words a test expects never
    to be translated: were they, they would show their brackets)."""
    catalog = Catalog(locale="en", domain="paperbot")
    for message in (*extracted(), *also):
        if isinstance(message, tuple):
            catalog.add(message, (wrapped(message[0]), wrapped(message[1])))
        elif message:
            catalog.add(message, wrapped(message))
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translator("en", gettext.GNUTranslations(compiled))


def unwrapped(text: str) -> str:
    """The text without the pseudo language's brackets: what English says."""
    return text.replace("⟦", "").replace("⟧", "")
