"""What every handler shares: who speaks (Caller), what goes back (Reply, or Usage when the
arguments could not be read), the table's row (Command), and the few phrasings several
commands and buttons use."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.core.buttons import Button
from bot.core.chat import Chat
from bot.core.i18n import N_, Translator
from bot.core.render import escape, fit
from bot.core.text import printable
from bot.i18n import translator
from bot.service.app import BadFilter, Paperbot

ECHOED = 80  # characters of what a user wrote, quoted back in a reply
NAMED_AT_MOST = 10  # lines an /import did not take, ids /like did not find: a reply names these
OUT_OF_DATE = N_("That button is out of date; try the command again.")
# when a weekly chat's digest comes, by its weekday: whole phrases, as languages say them
# ("montags um 08:00")
WEEKLY_WHEN = (
    N_("on Mondays at {time}"),
    N_("on Tuesdays at {time}"),
    N_("on Wednesdays at {time}"),
    N_("on Thursdays at {time}"),
    N_("on Fridays at {time}"),
    N_("on Saturdays at {time}"),
    N_("on Sundays at {time}"),
)
# how a reply writes a day (CLDR's skeletons): in English as the bot always has ('Fri 23 Oct'),
# in another language as CLDR writes it there ('Fr., 23. Okt.', '10月23日(金)')


@dataclass(frozen=True)
class Document:
    """A file a reply sends (Telegram: a document; the console: a file written, its path
    shown)."""

    name: str
    data: bytes


@dataclass
class Reply:
    text: str  # Telegram HTML
    buttons: list[list[Button]] = field(default_factory=list)
    document: Document | None = None  # sent after the text
    # To a button press: the message stays as it is, and the text (if any) is a short notice in
    # plain text, an alert to acknowledge or (alert False) a line that fades; what the press
    # asked for (a card, a digest's next page, a new filter's answer) went out as messages of
    # its own.
    notice: bool = False
    alert: bool = True
    # To a button press: buttons of the pressed message (by their data) given new labels, the
    # message otherwise as it is (a group's vote counts on its 👍 and 👎)
    relabel: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Usage:
    """A handler's answer to arguments it could not read: the table writes the command's usage
    line, after what the setting is `now` and before a `hint`."""

    now: str = ""
    hint: str = ""


@dataclass(frozen=True)
class Caller:
    """Who speaks: the chat, its kind, and (asked only when it matters) whether the person may
    change the chat's filters: always in a private chat, administrators only in groups. In a
    group, `user_id` is the member's (their votes are theirs); in a forum supergroup, `topic`
    is the topic spoken in (None: General)."""

    chat_id: int
    kind: str = "private"
    is_admin: Callable[[], Awaitable[bool]] | None = None
    user_id: int | None = None
    topic: int | None = None
    language_code: str | None = None  # the speaker's (Telegram's): a new chat's language

    async def may_manage(self) -> bool:
        return self.kind == "private" or self.is_admin is None or await self.is_admin()


Handler = Callable[[Paperbot, Chat, str], Awaitable[Reply | Usage]]


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    help: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    manages: bool = False  # changes the chat: administrators only in groups
    operators_only: bool = False
    # alone (no argument) it only tells what is set: a group's members may ask, as they may
    # read /status; only a change stays with the administrators
    reads_alone: bool = False

    def changes(self, args: str) -> bool:
        """Whether `/name args` may change the chat (so, in a group, is an administrator's)."""
        return self.manages and not (self.reads_alone and not args.strip())


def tr(chat: Chat) -> Translator:
    """The chat's translator: every reply is written in the chat's language."""
    return translator(chat.language)


def tr_caller(app: Paperbot, caller: Caller) -> Translator:
    """The translator of the chat a button was pressed in (or a command came from before the
    chat is entered): its language, else the speaker's."""
    return app.translator(caller.chat_id, caller.language_code)


def echo(text: str, limit: int = ECHOED) -> str:
    """What a user wrote, quoted back: escaped, control characters shown as U+FFFD, within
    `limit`."""
    return fit(visible(text), limit)


def visible(text: str) -> str:
    """Control characters shown as U+FFFD, one for one, so that a caret under the text still
    points at the right place."""
    return "".join(c if printable(c) else "\ufffd" for c in text)


def named(t: Translator, shown: list[str], ids: bool = False) -> str:
    """The first NAMED_AT_MOST of a list, and how many more there are (`ids`: more ids)."""
    rest = len(shown) - NAMED_AT_MOST
    names = ", ".join(shown[:NAMED_AT_MOST])
    if rest <= 0:
        return names
    if ids:
        more = t.ngettext("{names} and {count} more id", "{names} and {count} more ids", rest)
    else:
        more = t.ngettext("{names} and {count} more", "{names} and {count} more", rest)
    return more.format(names=names, count=t.number(rest))


def bad_filter(t: Translator, bad: BadFilter) -> Reply:
    """Why a filter was refused, in the chat's language, with a caret under the place."""
    problem = escape(bad.problem.text(t))
    text = t.gettext("That filter does not work: {problem}.").format(problem=problem)
    if bad.position is not None:
        pointer = " " * bad.position + "^"
        text += f"\n<code>{escape(visible(bad.source))}\n{pointer}</code>"
    return Reply(text + "\n" + t.gettext("/help shows the syntax with examples."))


def not_stored(t: Translator, arxiv_ids: list[str], then: str) -> str:
    """Papers the bot knows only from the listings it has read: when an id will work (`then`,
    translated: "/similar can use it")."""
    ids = named(t, [f"<code>{echo(i, 30)}</code>" for i in arxiv_ids], ids=True)
    if len(arxiv_ids) == 1:
        text = t.gettext(
            "{ids} is not in my database yet: I know only the papers of the listings I have "
            "read. Once a listing carrying it has been read, {then}."
        )
    else:
        text = t.gettext(
            "Not in my database yet: {ids}. I know only the papers of the listings I have "
            "read; once a listing carrying a paper has been read, {then}."
        )
    return text.format(ids=ids, then=then)


def local_time(t: Translator, due: datetime, chat: Chat) -> str:
    """A moment as the chat reads it: 'Fri 23 Oct 08:00 (Europe/Berlin)'."""
    pattern = f"{t.day_pattern('MMMEd')} HH:mm"
    moment = t.datetime(due.astimezone(ZoneInfo(chat.timezone)), format=pattern)
    return f"{moment} ({chat.timezone})"


def weekly_when(t: Translator, chat: Chat) -> str:
    """When a weekly chat's digest comes: 'on Mondays at 08:00'."""
    return t.gettext(WEEKLY_WHEN[chat.digest_weekday]).format(time=chat.digest_time)
