"""The reader's language as the core sees it: a Translator hands out one language's messages,
plural forms, dates and numbers (Babel's formats). The catalogs are read at the edge
(bot/i18n.py); the core only asks. ENGLISH is the messages as written in the code.

Every user-visible string goes through one: `t.gettext("...")`, `t.ngettext(one, many, n)`, or
`N_("...")` where a message is written in a table and translated where it is shown. Babel
extracts all three (babel.cfg); tests/test_i18n.py fails when a catalog lacks one."""

from __future__ import annotations

import datetime as dt
import gettext
from collections.abc import Sequence
from dataclasses import dataclass

from babel import Locale
from babel.dates import format_date, format_datetime
from babel.lists import format_list
from babel.numbers import format_decimal

ENGLISH_DAYS = {"MMMEd": "EEE d MMM", "MMMd": "d MMM", "yMMMd": "d MMM yyyy"}


def N_(message: str) -> str:
    """Marks a message for extraction where it is written (a table); translated where shown."""
    return message


@dataclass(frozen=True)
class Translator:
    """One language's messages and formats; handlers and renderers get it per chat, never from
    a global."""

    language: str
    _messages: gettext.NullTranslations

    def gettext(self, message: str) -> str:
        return self._messages.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._messages.ngettext(singular, plural, n)

    @property
    def locale(self) -> Locale:
        return Locale.parse(self.language)

    def date(self, day: dt.date, format: str = "long") -> str:
        return format_date(day, format=format, locale=self.locale)

    def datetime(self, moment: dt.datetime, format: str = "medium") -> str:
        return format_datetime(moment, format=format, locale=self.locale)

    def day_pattern(self, skeleton: str) -> str:
        """Babel's pattern for a day in this language, by CLDR skeleton: 'MMMEd' (weekday, day,
        month), 'MMMd', 'yMMMd'. English keeps the day-first form the bot has always written
        ('Fri 23 Oct', '6 Dec 2026'), where CLDR's English would say 'Fri, Oct 23'."""
        if self.language == "en":
            return ENGLISH_DAYS[skeleton]
        return str(self.locale.datetime_skeletons[skeleton].pattern)

    def day(self, when: dt.date, skeleton: str = "yMMMd") -> str:
        """A day as messages name it: '6 Dec 2026', '6. Dez. 2026', '2026年12月6日'."""
        return self.date(when, format=self.day_pattern(skeleton))

    def number(self, value: float) -> str:
        return format_decimal(value, locale=self.locale)

    def join(self, items: Sequence[str]) -> str:
        """ "a, b and c" as the language writes a list ("a, b und c", "a、b和c")."""
        return format_list(list(items), locale=self.locale)

    def name(self) -> str:
        """The language's own name for itself ("Deutsch", "日本語")."""
        return self.locale.get_display_name(self.locale) or self.language


ENGLISH = Translator("en", gettext.NullTranslations())
