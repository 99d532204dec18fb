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
from bot.core.i18n import Translator
from bot.core.render import escape, fit
from bot.core.schedule import WEEKDAYS
from bot.core.text import printable
from bot.i18n import translator
from bot.service.app import BadFilter, Paperbot

ECHOED = 80  # characters of what a user wrote, quoted back in a reply
NAMED_AT_MOST = 10  # lines an /import did not take, ids /like did not find: a reply names these
OUT_OF_DATE = "That button is out of date; try the command again."


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


def tr(chat: Chat) -> Translator:
    """The chat's translator: every reply is written in the chat's language."""
    return translator(chat.language)


def echo(text: str, limit: int = ECHOED) -> str:
    """What a user wrote, quoted back: escaped, control characters shown as U+FFFD, within
    `limit`."""
    return fit(visible(text), limit)


def visible(text: str) -> str:
    """Control characters shown as U+FFFD, one for one, so that a caret under the text still
    points at the right place."""
    return "".join(c if printable(c) else "\ufffd" for c in text)


def named(shown: list[str], more: str) -> str:
    """The first NAMED_AT_MOST of a list, and how many more there are."""
    rest = len(shown) - NAMED_AT_MOST
    tail = f" and {rest} more" + (f" {more}" if more else "") if rest > 0 else ""
    return ", ".join(shown[:NAMED_AT_MOST]) + tail


def bad_filter(bad: BadFilter) -> Reply:
    text = f"That filter does not work: {escape(bad.message)}."
    if bad.position is not None:
        pointer = " " * bad.position + "^"
        text += f"\n<code>{escape(visible(bad.source))}\n{pointer}</code>"
    return Reply(text + "\n/help shows the syntax with examples.")


def not_stored(arxiv_ids: list[str], then: str) -> str:
    """Papers the bot knows only from the listings it has read: when an id will work."""
    ids = named([f"<code>{echo(i, 30)}</code>" for i in arxiv_ids], "ids")
    known = "I know only the papers of the listings I have read"
    if len(arxiv_ids) == 1:
        return (
            f"{ids} is not in my database yet: {known}. "
            f"Once a listing carrying it has been read, {then}."
        )
    return (
        f"Not in my database yet: {ids}. {known}; "
        f"once a listing carrying a paper has been read, {then}."
    )


def local_time(due: datetime, chat: Chat) -> str:
    """A moment as the chat reads it: 'Fri 23 Oct 08:00 (Europe/Berlin)'."""
    return f"{due.astimezone(ZoneInfo(chat.timezone)):%a %-d %b %H:%M} ({chat.timezone})"


def weekly_when(chat: Chat) -> str:
    """When a weekly chat's digest comes: 'on Mondays at 08:00'."""
    return f"on {WEEKDAYS[chat.digest_weekday]}s at {chat.digest_time}"
