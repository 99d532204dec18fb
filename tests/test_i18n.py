"""The reader's language (bot/i18n.py): every offered catalog translates every message the code
asks for, plurals follow the language's rules, dates and numbers its formats."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from babel.messages.pofile import read_po

from bot import i18n
from bot.commands.language import language_status
from tests.pseudo import msgids


def test_the_code_asks_for_messages() -> None:
    assert "{title}: {count} new paper" in msgids()


@pytest.mark.parametrize("language", [lang for lang in i18n.available() if lang != "en"])
def test_an_offered_catalog_translates_every_message(language: str) -> None:
    with i18n.catalog_path(language).open("rb") as po:
        catalog = read_po(po, locale=language)
    translated = {
        (m.id[0] if isinstance(m.id, tuple) else m.id)
        for m in catalog
        if m.id and all(m.string if isinstance(m.string, tuple) else (m.string,))
    }
    missing = msgids() - translated
    assert not missing, f"{language} lacks {sorted(missing)}"


PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
TAG = re.compile(r"</?[a-z]+[^>]*>")
COMMAND = re.compile(r"(?<![\w/])/[a-z]+\b")


def _parts(text: str) -> tuple[list[str], list[str], set[str]]:
    return sorted(PLACEHOLDER.findall(text)), sorted(TAG.findall(text)), set(COMMAND.findall(text))


@pytest.mark.parametrize("language", [lang for lang in i18n.available() if lang != "en"])
def test_a_translation_keeps_placeholders_tags_and_commands(language: str) -> None:
    """A translation that drops {count}, a <code> tag or a /command breaks the message (a
    KeyError at .format, Telegram refusing the HTML, a command the reader cannot find)."""
    with i18n.catalog_path(language).open("rb") as po:
        catalog = read_po(po, locale=language)
    wrong = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        want = _parts(ids[-1])
        for string in strings:
            got = _parts(string)
            # a plural form may say "one" in words where English writes {count}
            placeholders_ok = set(got[0]) <= set(want[0]) if len(ids) > 1 else got[0] == want[0]
            if not placeholders_ok or got[1] != want[1] or not want[2] <= got[2]:
                wrong.append(f"{ids[0]!r} -> {string!r}")
    assert not wrong, "\n".join(wrong)


def new_papers(language: str, n: int) -> str:
    """A digest's count, as its header writes it (bot/core/compose.py)."""
    t = i18n.translator(language)
    counted = t.ngettext("{title}: {count} new paper", "{title}: {count} new papers", n)
    return counted.format(title="D", count=t.number(n))


def test_plurals_and_numbers_follow_the_language() -> None:
    assert new_papers("de", 1) == "D: 1 neue Arbeit"
    assert new_papers("de", 2) == "D: 2 neue Arbeiten"
    assert new_papers("de", 1234) == "D: 1.234 neue Arbeiten"
    assert new_papers("en", 1) == "D: 1 new paper"
    assert new_papers("en", 1234) == "D: 1,234 new papers"
    assert [new_papers("ru", n) for n in (1, 3, 5, 21)] == [
        "D: 1 новая статья",
        "D: 3 новые статьи",
        "D: 5 новых статей",
        "D: 21 новая статья",
    ]


def test_german_dates() -> None:
    de = i18n.translator("de")
    assert de.date(dt.date(2026, 3, 5)) == "5. März 2026"
    assert i18n.translator("en").date(dt.date(2026, 3, 5)) == "March 5, 2026"


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("de", "de"), ("de-AT", "de"), ("DE", "de"), (None, "en"), ("", "en"), ("xx", "en"),
        ("pt", "pt_BR"), ("pt-br", "pt_BR"), ("pt-PT", "pt_BR"),  # the one Portuguese offered
        ("zh", "zh_Hans"), ("zh-hans", "zh_Hans"), ("zh-CN", "zh_Hans"), ("zh-SG", "zh_Hans"),
        ("zh-Hans-HK", "zh_Hans"),
        # Traditional characters: not the Simplified catalog, English until one is offered
        ("zh-hant", "en"), ("zh-TW", "en"), ("zh-HK", "en"), ("zh-MO", "en"),
        ("zh-Hant-TW", "en"), ("zh-Hant-x-foo", "en"), ("zh-TW-x-private", "en"),
    ],
)  # fmt: skip
def test_telegram_language_codes_map_to_an_offered_language(
    code: str | None, language: str
) -> None:
    assert i18n.normalize(code) == language


def test_language_status_lists_the_choices_in_the_chat_language() -> None:
    text = language_status(i18n.translator("de"))
    assert text.startswith("Sprache dieses Chats: Deutsch (de).")
    assert "en (English)" in text and "de (Deutsch)" in text
