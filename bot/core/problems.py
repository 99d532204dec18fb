"""What went wrong, told to a reader whose language is not known where it is found: a parse
error in the core, a bad line of an import. A Problem keeps its message as written
(`N_`-marked, named placeholders) and its arguments, and is put into words where it is shown,
through the chat's translator (`problem.text(t)`); `problem.message` is the English, for logs,
operators and tests.

Arguments keep their kind until then: text (a word the reader typed, a syntax example, a
category code) is shown as it is, never translated; numbers are written in the reader's digits,
a count or a size grouped as the language groups it (t.number: "5,001 entries past 5,000",
"5.001" in German) and a Position (line 1234, entry 12, character 5) plain, as an editor numbers
lines; a Problem inside another (a place, a reason) is put into words in the same language."""

from __future__ import annotations

from dataclasses import dataclass, field

from babel.numbers import format_decimal

from bot.core.i18n import ENGLISH, Translator


@dataclass(frozen=True)
class Problem:
    """A message for a reader, put into words where it is shown: `text(t)` in the chat's
    language, `message` in English."""

    template: str  # the msgid, marked with N_ where the Problem is made (the singular)
    arguments: tuple[tuple[str, Argument], ...] = field(default=())
    plural: str | None = None  # the plural msgid, when the message counts something
    count: int = 1  # what picks the plural form

    @classmethod
    def of(cls, template: str, /, **arguments: Argument) -> Problem:
        """Problem.of(N_("'{text}' is not a category like cs.LG"), text=typed)."""
        return cls(template, tuple(arguments.items()))

    @classmethod
    def verbatim(cls, text: str) -> Problem:
        """Words that are not ours to translate (a library's own English reason), shown as
        they are in every language."""
        return cls("{text}", (("text", text),))

    @classmethod
    def ngettext(cls, singular: str, plural: str, n: int, /, **arguments: Argument) -> Problem:
        """A message that counts: Problem.ngettext("at most {count} level", "at most {count}
        levels", n, count=n). Named as gettext's own, so that Babel extracts both forms."""
        return cls(singular, tuple(arguments.items()), plural, n)

    def text(self, t: Translator = ENGLISH) -> str:
        """The problem in the reader's words."""
        shown = {name: _shown(value, t) for name, value in self.arguments}
        if self.plural is None:
            return t.gettext(self.template).format(**shown)
        return t.ngettext(self.template, self.plural, self.count).format(**shown)

    @property
    def message(self) -> str:
        """In English, as the code writes it."""
        return self.text(ENGLISH)

    def __str__(self) -> str:
        return self.message


class Position(int):
    """Where a reader is pointed (a file's line 1234, its entry 12, a filter's character 5): a
    whole number written in plain digits, the way an editor or a file's reader numbers lines and
    the way it is looked up; any other whole number of a Problem is a count, and is grouped."""


Argument = str | int | float | Problem | tuple[Problem, ...]


def _shown(value: Argument, t: Translator) -> str:
    if isinstance(value, Problem):
        return value.text(t)
    if isinstance(value, tuple):
        return "; ".join(part.text(t) for part in value)  # a few problems in one line
    if isinstance(value, str):
        return value
    if isinstance(value, Position):
        return format_decimal(value, locale=t.locale, group_separator=False)
    if isinstance(value, int):
        return t.number(value)  # a count: "at most 5,000 entries"
    return format_decimal(value, format="#,##0.0", locale=t.locale)  # a size: one decimal
