"""The reader's language: a translator (bot/core/i18n.py) per language, read from the gettext
catalogs under bot/locale/<lang>/LC_MESSAGES/paperbot.po.

Catalogs are read from the .po files at run time (Babel parses them), so a plain `pip install .`
carries everything the bot needs: no compile step to forget. A language is offered only when its
catalog translates every message English has (tests/test_i18n.py checks it)."""

from __future__ import annotations

import gettext
from functools import cache
from io import BytesIO
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.core.i18n import ENGLISH, N_, Translator

__all__ = [
    "ENGLISH",
    "N_",
    "Translator",
    "available",
    "language_name",
    "normalize",
    "offered",
    "translator",
]

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "paperbot"
DEFAULT = "en"


def catalog_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def available() -> tuple[str, ...]:
    """English and every language with a catalog, English first."""
    return _languages(LOCALE_DIR)


@cache
def _languages(directory: Path) -> tuple[str, ...]:
    """Read once per folder: every command's speaker is looked up here (Paperbot.enter), and a
    folder listing per command would be file-system work for an answer that never changes."""
    found = sorted(p.parent.parent.name for p in directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (DEFAULT, *(lang for lang in found if lang != DEFAULT))


def normalize(code: str | None) -> str:
    """Telegram's language_code ("de", "pt-br", "zh-hans") to an offered language, or English
    ("zh-hant": none is offered in Traditional characters)."""
    return offered(code) or DEFAULT


def offered(code: str | None) -> str | None:
    """The offered language a code names (the exact tag first, then its base language), or
    None for one not offered."""
    if not code:
        return None
    tag = code.strip().replace("-", "_")
    languages = available()
    by_lower = {lang.lower(): lang for lang in languages}
    if tag.lower() in by_lower:
        return by_lower[tag.lower()]
    base = tag.split("_")[0].lower()
    if base == "pt" and "pt_BR" in languages:  # Portugal's Portuguese too: the one offered
        return "pt_BR"
    if base == "zh":
        # Chinese by its script, never the other's: zh-TW, zh-HK and zh-Hant read Traditional
        # characters, which the Simplified catalog does not give them (English until a
        # Traditional one is offered); zh, zh-CN and zh-Hans read Simplified
        return by_lower.get(f"zh_{_script(tag).lower()}")
    return by_lower.get(base)


def _script(tag: str) -> str:
    """The script a Chinese tag writes in: Traditional for zh-Hant and the regions that read it
    (Taiwan, Hong Kong, Macao: CLDR's likely scripts), Simplified otherwise. Read from the
    subtags, so a tag with a private or unknown part (zh-Hant-x-foo) keeps its script."""
    subtags = {part.lower() for part in tag.split("_")[1:]}
    return "Hant" if subtags & {"hant", "tw", "hk", "mo"} and "hans" not in subtags else "Hans"


def language_name(code: str, t: Translator) -> str | None:
    """The language a code names, in the reader's words and without a region ("Chinese
    (Traditional)" for zh-TW, "Französisch" for fr-CA in German); None for a code CLDR does
    not know."""
    tag = code.strip().replace("-", "_")
    try:
        found = Locale.parse(tag)
    except (ValueError, UnknownLocaleError):
        return None
    if found.language != tag.split("_")[0].lower():  # "C" parses as POSIX English, "und" too
        return None
    return Locale(found.language, script=found.script).get_display_name(t.locale)


@cache
def translator(language: str | None) -> Translator:
    lang = normalize(language)
    if lang == DEFAULT:
        return ENGLISH
    with catalog_path(lang).open("rb") as po:
        catalog = read_po(po, locale=lang, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translator(lang, gettext.GNUTranslations(compiled))
