"""The command table shared by Telegram and the console: a chat's command in, a reply out.

Adapters only carry text and buttons: they turn a message into `handle_text`, a button press
into `press_button`, and show the Reply (HTML text, rows of buttons).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from bot.core.buttons import (
    Button,
    ConfirmStop,
    FollowSimilar,
    NextPage,
    Rate,
    RemoveFilter,
    SendRecent,
    ShowCard,
    parse_press,
    recent_button,
    remove_button,
    stop_buttons,
)
from bot.core.categories import UnknownCategory
from bot.core.chat import Chat, Filter
from bot.core.query import FilterKind, kind_of
from bot.core.relevance import MIN_LIKES
from bot.core.render import MESSAGE_LIMIT, escape, fit, plural, size
from bot.core.schedule import next_due, parse_digest_time
from bot.core.states import ChatMode, DigestStyle
from bot.core.summary import shorten
from bot.core.text import printable
from bot.core.zones import ZoneUnknown, read_timezone
from bot.runtime import Runtime
from bot.service import backfill, chats, feedback, status, subscriptions
from bot.service.delivery import DigestSent, NothingWaiting, Paused
from bot.service.feedback import SIGNS
from bot.service.preview import RecentMatches
from bot.service.similar import NotStored
from bot.service.subscriptions import (
    AlreadyFollowed,
    AtLimit,
    BadFilter,
    BadLine,
    NoSuchFilter,
    OverLimit,
    Subscribed,
)

LISTED_LENGTH = 70  # /list shows filters shortened, so that 50 fit in one message; /export not
ECHOED = 80  # characters of what a user wrote, quoted back in a reply
NAMED_AT_MOST = 10  # lines an /import did not take, ids /like did not find: a reply names these


@dataclass
class Reply:
    text: str  # Telegram HTML
    buttons: list[list[Button]] = field(default_factory=list)
    # To a button press: the message stays as it is, and the text (if any) is a short notice in
    # plain text, an alert to acknowledge or (alert False) a line that fades; what the press
    # asked for (a card, a digest's next page, a new filter's answer) went out as messages of
    # its own.
    notice: bool = False
    alert: bool = True


@dataclass(frozen=True)
class Caller:
    """Who speaks: the chat, its kind, and (asked only when it matters) whether the person may
    change the chat's filters: always in a private chat, administrators only in groups."""

    chat_id: int
    kind: str = "private"
    is_admin: Callable[[], Awaitable[bool]] | None = None

    async def may_manage(self) -> bool:
        return self.kind == "private" or self.is_admin is None or await self.is_admin()


Handler = Callable[[Runtime, Chat, str], Awaitable[Reply]]


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    help: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    manages: bool = False  # changes the chat: administrators only in groups
    operators_only: bool = False


def _echo(text: str, limit: int = ECHOED) -> str:
    """What a user wrote, quoted back: escaped, control characters shown as U+FFFD, within
    `limit`."""
    return fit(_visible(text), limit)


def _visible(text: str) -> str:
    """Control characters shown as U+FFFD, one for one, so that a caret under the text still
    points at the right place."""
    return "".join(c if printable(c) else "\ufffd" for c in text)


def _named(shown: list[str], more: str) -> str:
    """The first NAMED_AT_MOST of a list, and how many more there are."""
    rest = len(shown) - NAMED_AT_MOST
    tail = f" and {rest} more" + (f" {more}" if more else "") if rest > 0 else ""
    return ", ".join(shown[:NAMED_AT_MOST]) + tail


def usage(command: str, now: str = "") -> Reply:
    """How to use a command; `now`: the setting's current value, for commands that change one."""
    found = COMMANDS_BY_NAME[command]
    line = f"Usage: <code>/{found.name} {escape(found.usage)}</code> ({found.help})"
    return Reply(f"{now}\n{line}" if now else line)


def _bad_filter(bad: BadFilter) -> Reply:
    text = f"That filter does not work: {escape(bad.message)}."
    if bad.position is not None:
        pointer = " " * bad.position + "^"
        text += f"\n<code>{escape(_visible(bad.source))}\n{pointer}</code>"
    return Reply(text + "\n/help shows the syntax with examples.")


def _not_stored(arxiv_ids: list[str], then: str) -> str:
    """Papers the bot knows only from the listings it has read: when an id will work."""
    named = _named([f"<code>{_echo(i, 30)}</code>" for i in arxiv_ids], "ids")
    known = "I know only the papers of the listings I have read"
    if len(arxiv_ids) == 1:
        return (
            f"{named} is not in my database yet: {known}. "
            f"Once a listing carrying it has been read, {then}."
        )
    return (
        f"Not in my database yet: {named}. {known}; "
        f"once a listing carrying a paper has been read, {then}."
    )


def _categories_warning(unknown: tuple[UnknownCategory, ...]) -> str:
    """A line for each cat: part of a filter that names no arXiv category."""
    lines = []
    for category in unknown:
        nearest = ", ".join(f"{code} ({escape(name)})" for code, name in category.nearest)
        lines.append(
            f"\n⚠ <code>{escape(category.written)}</code> names no arXiv category, so no paper "
            "has it." + (f" The nearest: {nearest}." if nearest else "")
        )
    return "".join(lines)


def _matches_line(recent: RecentMatches, verb: str) -> str:
    if not recent.count:
        return f"It {verb} nothing in the last {recent.days} announcement days."
    plural = "paper" if recent.count == 1 else "papers"
    lines = [
        f"It {verb} {recent.count} {plural} in the last {recent.days} announcement days, such as:"
    ]
    derived = " (headline derived from the abstract)"
    examples = [f"• {escape(t)}{derived if t in recent.derived else ''}" for t in recent.titles]
    return "\n".join(lines + examples)


# -- the commands: each parses its arguments, calls one use case and renders what happened --------


async def start(runtime: Runtime, chat: Chat, args: str) -> Reply:
    return Reply(
        "Hello! I tell you about new papers that match your filters.\n\n"
        'Add a filter with <code>/subscribe "kv cache"</code> (try <code>/preview</code> first), '
        "see them with /list. You get one digest a day at "
        f"{chat.digest_time} ({escape(chat.timezone)}); /mode instant sends each paper at once, "
        "/time and /timezone move the digest. /help has the filter syntax."
    )


async def help_(runtime: Runtime, chat: Chat, args: str) -> Reply:
    lines = [
        "<b>Filters</b> (like arXiv search):",
        "<code>diffusion models</code>: both words, in title or abstract",
        '<code>"language model"</code>: the phrase (KV-cache = "kv cache")',
        "<code>distill*</code>: words starting with distill; <code>fine-tun*</code>: fine-tuning, "
        "fine-tuned",
        "<code>a OR b</code>, <code>a | b</code>: either",
        "<code>-term</code>, <code>NOT term</code>: without it",
        "<code>( ... )</code>: grouping",
        "<code>ti:</code> title, <code>abs:</code> abstract, <code>au:</code> author, "
        '<code>cat:</code> category (<code>ti:"graph neural"</code>, <code>au:Hassani</code>, '
        "<code>cat:cs.*</code>)",
        "Case, accents and plurals do not matter.",
        "",
        "<b>Commands</b>",
    ]
    for command in COMMANDS:
        if command.operators_only and chat.id not in runtime.settings.admin.chat_ids:
            continue
        names = " ".join(f"/{n}" for n in (command.name, *command.aliases))
        arguments = f" {escape(command.usage)}" if command.usage else ""
        lines.append(f"{names}{arguments}: {escape(command.help)}")
    return Reply("\n".join(lines))


async def subscribe(runtime: Runtime, chat: Chat, args: str) -> Reply:
    if not args:
        return usage("subscribe")
    if kind_of(args) is FilterKind.LIKE:
        return _subscribed(await _follow_similar(runtime, chat.id, args))
    # in a thread, as /preview: the first question after a start, or after a day's papers were
    # stored, files them in the recent papers' index (seconds on a busy day), and the event
    # loop answers everyone else meanwhile
    result = await asyncio.to_thread(
        subscriptions.subscribe,
        runtime.database,
        chat_id=chat.id,
        source=args,
        rules=runtime.app.rules,
        now=runtime.clock(),
        recent=runtime.app.recent,
        scores=runtime.app.ranker.scores(chat.id),
    )
    return _subscribed(result)


async def similar(runtime: Runtime, chat: Chat, args: str) -> Reply:
    if not args.strip():
        return usage("similar")
    return _subscribed(await _follow_similar(runtime, chat.id, args))


async def _follow_similar(
    runtime: Runtime, chat_id: int, source: str
) -> Subscribed | AlreadyFollowed | AtLimit | BadFilter | NotStored:
    return await asyncio.to_thread(
        runtime.app.similar.follow,
        chat_id=chat_id,
        source=source,
        max_per_chat=runtime.app.rules.max_per_chat,
        now=runtime.clock(),
    )


def _subscribed(result: Subscribed | AlreadyFollowed | AtLimit | BadFilter | NotStored) -> Reply:
    match result:
        case BadFilter():
            return _bad_filter(result)
        case NotStored(arxiv_ids):
            return Reply(_not_stored(arxiv_ids, "/similar can use it"))
        case AlreadyFollowed(number, understood):
            return Reply(
                f"You already follow that, as filter {number}: <code>{escape(understood)}</code>."
            )
        case AtLimit(count, limit):
            return Reply(
                f"This chat has {plural(count, 'filter')}, the most it may keep is {limit}. "
                "Remove one first (/list), or join two with OR."
            )
        case Subscribed(number, understood, recent, filter_id):
            # a filter matches what arrives after it: its recent papers only when asked
            send = [[recent_button(filter_id, recent.count)]] if recent.count else []
            return Reply(
                f"Filter {number} saved, understood as <code>{escape(understood)}</code>.\n"
                + _matches_line(recent, "would have matched")
                + _categories_warning(result.unknown_categories),
                send,
            )


async def _send_recent(runtime: Runtime, caller: Caller, filter_id: int) -> Reply:
    """A new filter's button: its recent matches the chat has not had, sent now as a digest."""
    chat = chats.enter(
        runtime.database, chat_id=caller.chat_id, kind=caller.kind, now=runtime.clock()
    )
    if chat.paused:
        return Reply("Alerts are paused; /resume first.", notice=True)
    queued = await asyncio.to_thread(
        backfill.queue_recent,
        runtime.database,
        runtime.app.recent,
        runtime.app.similar,
        chat_id=chat.id,
        filter_id=filter_id,
        rules=runtime.app.rules,
        now=runtime.clock(),
    )
    if queued is None:
        return Reply(OUT_OF_DATE, notice=True)
    if not queued.added:
        return Reply(
            "Nothing new to send: these papers reached you already or wait for your next digest.",
            notice=True,
        )
    match await runtime.postman.digest_now(chat):
        case DigestSent(complete=False):
            return Reply(
                "Telegram is not taking messages right now; they follow shortly.", notice=True
            )
        case _:
            return Reply(f"Sent: {plural(queued.added, 'paper')}.", notice=True, alert=False)


async def preview(runtime: Runtime, chat: Chat, args: str) -> Reply:
    if not args:
        return usage("preview")
    if kind_of(args) is FilterKind.LIKE:
        result = await asyncio.to_thread(runtime.app.similar.preview, source=args)
    else:
        result = await asyncio.to_thread(
            subscriptions.preview_filter,
            runtime.app.recent,
            source=args,
            rules=runtime.app.rules,
            scores=runtime.app.ranker.scores(chat.id),
        )
    if isinstance(result, BadFilter):
        return _bad_filter(result)
    if isinstance(result, NotStored):
        return Reply(_not_stored(result.arxiv_ids, "/preview can use it"))
    return Reply(
        f"<code>{escape(result.canonical)}</code> (not saved; /subscribe saves it)\n"
        + _matches_line(result.recent, "matches")
        + _categories_warning(result.unknown_categories)
    )


def _list_reply(runtime: Runtime, chat_id: int) -> Reply:
    listed = subscriptions.list_filters(runtime.database, chat_id=chat_id)
    if not listed:
        return Reply('No filters yet. Add one with <code>/subscribe "kv cache"</code>.')
    # a remove button's answer replaces the list in its one message: as many filters as a
    # chat may keep fit there, each shortened more when there are many
    width = max(min(LISTED_LENGTH, (MESSAGE_LIMIT - 100) // len(listed) - 20), 10)
    lines = [f"{n}. {_listed(f, width)}" for n, f in enumerate(listed, 1)]
    buttons = [[remove_button(f.id, n)] for n, f in enumerate(listed, 1)]
    return Reply("Your filters:\n" + "\n".join(lines), buttons)


def _listed(listed: Filter, width: int) -> str:
    """A filter in /list: as written, and a "more like this" filter's seeds named."""
    line = f"<code>{fit(listed.source, width)}</code>"
    if listed.kind is FilterKind.LIKE:
        line += f": {fit(listed.canonical, width)}"
    return line


async def list_(runtime: Runtime, chat: Chat, args: str) -> Reply:
    return _list_reply(runtime, chat.id)


def _numbers(args: str) -> list[int] | None:
    """'1 3', '1,3' -> [1, 3]; 'all' -> None (every filter); [] when unreadable."""
    if args.strip().lower() == "all":
        return None
    try:
        return [int(part) for part in args.replace(",", " ").split()]
    except ValueError:
        return []


async def unsubscribe(runtime: Runtime, chat: Chat, args: str) -> Reply:
    numbers = _numbers(args)
    if numbers == []:
        return usage("unsubscribe")
    result = subscriptions.unsubscribe(runtime.database, chat_id=chat.id, numbers=numbers)
    if isinstance(result, NoSuchFilter):
        return Reply(
            f"There is no filter {result.number}: this chat has {result.count}. See /list."
        )
    if not result.removed:
        return Reply("There were no filters to remove.")
    if len(result.removed) > NAMED_AT_MOST:
        return Reply(f"Removed {plural(len(result.removed), 'filter')}.")
    removed = ", ".join(f"<code>{_echo(f.source, LISTED_LENGTH)}</code>" for f in result.removed)
    return Reply(f"Removed {removed}.")


def _next_digest(runtime: Runtime, chat: Chat) -> str:
    due = next_due(runtime.clock(), chat.digest_time, chat.timezone)
    return f"{due.astimezone(ZoneInfo(chat.timezone)):%a %-d %b %H:%M} ({chat.timezone})"


def _change(runtime: Runtime, chat: Chat, **settings: object) -> Chat:
    return chats.change(runtime.database, chat_id=chat.id, **settings)


async def mode(runtime: Runtime, chat: Chat, args: str) -> Reply:
    choice = args.strip().lower()
    if choice not in tuple(ChatMode):
        return usage("mode", f"Mode now: {chat.mode}.")
    chat = _change(runtime, chat, mode=ChatMode(choice))
    if choice == ChatMode.INSTANT:
        return Reply("Instant: each matching paper comes as soon as its listing arrives.")
    return Reply(f"Digest: one message a day; the next at {_next_digest(runtime, chat)}.")


async def time_(runtime: Runtime, chat: Chat, args: str) -> Reply:
    chosen = parse_digest_time(args)
    if chosen is None:
        now = f"Digest time now: {chat.digest_time} ({escape(chat.timezone)})."
        if args.strip():
            now = f"<code>{_echo(args.strip())}</code> is not a time. {now}"
        reply = usage("time", now)
        reply.text += "\nAlso: 7, 7pm, 7:30pm, 19.30, 0730, 7h30."
        return reply
    chat = _change(runtime, chat, digest_time=chosen)
    note = "" if chat.mode is ChatMode.DIGEST else " (used in digest mode: /mode digest)"
    return Reply(f"Digest time set to {chosen}; the next at {_next_digest(runtime, chat)}{note}.")


async def timezone(runtime: Runtime, chat: Chat, args: str) -> Reply:
    if not args.strip():
        return usage("timezone", f"Time zone now: {escape(chat.timezone)}.")
    found = read_timezone(args, runtime.clock())
    if isinstance(found, ZoneUnknown):
        return Reply(_unknown_zone(args.strip(), found))
    chat = _change(runtime, chat, timezone=found.zone)
    text = f"Time zone set to {found.zone}; the next digest at {_next_digest(runtime, chat)}."
    if found.offset:  # Etc/GMT-2
        text += (
            f"\n{found.zone} is {found.offset} all year (POSIX names count the hours the other "
            "way round), without daylight saving; to follow it, name your city, like "
            "<code>berlin</code>."
        )
    return Reply(text)


def _unknown_zone(typed: str, unknown: ZoneUnknown) -> str:
    offset, named = unknown.offset, [f"<code>{zone}</code>" for zone in unknown.suggestions]
    if offset and not named:
        return f"No time zone is at {offset}: clocks run from UTC-12 to UTC+14."
    if offset:
        return (
            f"No fixed zone is {offset} (those are whole hours: Etc/GMT-2 is UTC+2). "
            f"The zones at {offset} now: {', '.join(named)}; write one of them."
        )
    text = f"I do not know the time zone <code>{_echo(typed)}</code>."
    text += f" Did you mean {' or '.join(named)}?" if named else ""
    return text + (
        " Write it as Area/City, like <code>Europe/Berlin</code> or <code>America/New_York</code>, "
        "a city alone (<code>berlin</code>), UTC or an offset (<code>UTC+2</code>)."
    )


async def updates(runtime: Runtime, chat: Chat, args: str) -> Reply:
    choice = args.strip().lower()
    if choice not in ("on", "off"):
        return usage("updates")
    _change(runtime, chat, updates=choice == "on")
    if choice == "on":
        return Reply("Updates on: new versions of matching papers come too, marked as updates.")
    return Reply("Updates off: each paper comes once, new versions are not sent.")


async def digest(runtime: Runtime, chat: Chat, args: str) -> Reply:
    match await runtime.postman.digest_now(chat):
        case Paused():
            return Reply("Alerts are paused; /resume first.")
        case NothingWaiting():
            return Reply("Nothing is waiting for you right now.")
        case DigestSent(papers, complete=False):
            return Reply("Telegram is not taking messages right now; the rest follows shortly.")
        case DigestSent(papers):
            return Reply(f"That was everything waiting: {plural(papers, 'paper')}.")
    raise AssertionError("every outcome of /digest is answered")


async def _rate(runtime: Runtime, chat: Chat, args: str, value: int, name: str) -> Reply:
    if not args.split():
        return usage(name)
    result = feedback.rate_ids(
        runtime.database,
        chat_id=chat.id,
        arxiv_ids=args.replace(",", " ").split(),
        value=value,
        now=runtime.clock(),
    )
    lines = [f"{SIGNS[value]} {escape(shorten(p.title, 80))}" for p in result.rated]
    if result.unreadable:
        unreadable = _named([f"<code>{_echo(u, 30)}</code>" for u in result.unreadable], "")
        lines.append(
            f"Not an arXiv id: {unreadable} (write 2506.01234, or the paper's arxiv.org link)."
        )
    if result.unknown:
        lines.append(_not_stored(result.unknown, "it can be rated"))
    if result.rated:
        runtime.app.ranker.changed(chat.id)
        likes, _ = feedback.counts(runtime.database, chat_id=chat.id)
        lines.append(_ranking_line(likes))
    return Reply("\n".join(lines))


def _ranking_line(likes: int) -> str:
    if likes >= MIN_LIKES:
        return "Your digests list what you like first (within each filter), with the reason."
    return f"Ranking starts at {MIN_LIKES} 👍: {likes} so far."


async def like(runtime: Runtime, chat: Chat, args: str) -> Reply:
    return await _rate(runtime, chat, args, 1, "like")


async def dislike(runtime: Runtime, chat: Chat, args: str) -> Reply:
    return await _rate(runtime, chat, args, -1, "dislike")


LAYOUT_LIMITS = {"abstracts": (0, 30), "page": (5, 100)}  # what /layout accepts


def _layout_line(chat: Chat) -> str:
    if chat.digest_style is DigestStyle.FULL:
        return f"full (every paper's whole card), {chat.digest_page} papers a page"
    shown = chat.digest_abstracts
    opened = {0: "no abstracts", 1: "the first with its abstract"}.get(
        shown, f"the first {shown} with their abstract"
    )
    return (
        f"compact (each paper at a glance, {opened}; every card a button away), "
        f"{chat.digest_page} papers a page"
    )


async def layout(runtime: Runtime, chat: Chat, args: str) -> Reply:
    words = args.lower().split()
    match words:
        case [DigestStyle.COMPACT | DigestStyle.FULL as style]:
            chat = _change(runtime, chat, digest_style=DigestStyle(style))
        case ["abstracts" | "page" as what, number] if number.isdecimal():
            low, high = LAYOUT_LIMITS[what]
            if len(number) > 3 or not low <= int(number) <= high:
                return Reply(f"<code>/layout {what}</code> takes a number from {low} to {high}.")
            chat = _change(runtime, chat, **{f"digest_{what}": int(number)})
        case _:
            return usage("layout", f"Digests now: {_layout_line(chat)}.")
    full = chat.digest_style is DigestStyle.FULL
    alerts = "whole cards" if full else "at a glance, every card a button away"
    return Reply(f"Digests: {_layout_line(chat)}.\nInstant alerts: {alerts}.")


async def pause(runtime: Runtime, chat: Chat, args: str) -> Reply:
    _change(runtime, chat, paused=True)
    return Reply("Paused. Matching papers are kept for you; /resume sends them.")


async def resume(runtime: Runtime, chat: Chat, args: str) -> Reply:
    _change(runtime, chat, paused=False)
    instant = chat.mode is ChatMode.INSTANT
    when = "with the next delivery" if instant else f"at {_next_digest(runtime, chat)}"
    return Reply(f"Resumed. What was kept comes {when}.")


async def status_(runtime: Runtime, chat: Chat, args: str) -> Reply:
    found = status.chat_status(runtime.database, chat)
    digest = chat.mode is ChatMode.DIGEST
    lines = [
        f"Filters: {found.filters} (/list)",
        f"Mode: {chat.mode}" + (f", digest at {chat.digest_time}" if digest else ""),
        f"Time zone: {chat.timezone}",
        f"Updates: {'on' if chat.updates else 'off'}"
        + ("; PAUSED (/resume)" if chat.paused else ""),
        f"Waiting for you: {plural(found.waiting, 'paper')}",
    ]
    likes, dislikes = feedback.counts(runtime.database, chat_id=chat.id)
    if likes or dislikes:
        ranking = "digests ranked for you" if likes >= MIN_LIKES else f"ranking from {MIN_LIKES} 👍"
        lines.append(f"Ratings: {likes} 👍, {dislikes} 👎 ({ranking})")
    else:
        lines.append(f"Ratings: none yet (👍 under {MIN_LIKES} papers ranks your digests)")
    if chat.mode is ChatMode.DIGEST and not chat.paused and found.filters:
        lines.append(f"Next digest: {_next_digest(runtime, chat)}")
    # a chat starts with its last digest at its first contact: none has gone out yet
    since = "the last digest" if chat.last_digest_at > chat.created_at else "you started"
    if found.arrived_since_digest:
        arrived = plural(found.arrived_since_digest, "new paper")
        lines.append(f"Since {since}: {arrived} arrived")
    else:
        lines.append(f"Since {since}: no announcement (no new listing)")
    last = found.last_listing
    if last is None:
        lines.append("No listing has arrived yet.")
    else:
        seen = last.seen_at.astimezone(ZoneInfo(chat.timezone))
        day = f", announced {last.announced:%-d %b %Y}" if last.announced else ""
        lines.append(f"Last listing: {escape(last.name)}, seen {seen:%-d %b %H:%M}{day}")
    return Reply("\n".join(lines))


def _pre_blocks(lines: list[str], limit: int = 3000) -> list[str]:
    """Lines in <pre> blocks of at most `limit` characters, so a long reply splits between them."""
    groups: list[list[str]] = []
    for line in lines:  # measured escaped: a line of '&' is five times as long in a message
        if groups and size(escape("\n".join([*groups[-1], line]))) <= limit:
            groups[-1].append(line)
        else:
            groups.append([line])
    return ["<pre>" + escape("\n".join(group)) + "</pre>" for group in groups]


async def export(runtime: Runtime, chat: Chat, args: str) -> Reply:
    listed = subscriptions.list_filters(runtime.database, chat_id=chat.id)
    ratings = feedback.export_lines(runtime.database, chat_id=chat.id)
    if not listed and not ratings:
        return Reply("No filters to export.")
    text = "\n".join(_pre_blocks([_exported(f) for f in listed] + ratings))
    what = "filters and ratings" if ratings and listed else "ratings" if ratings else "filters"
    return Reply(f"Your {what}, one per line (send them back with /import):\n{text}")


def _exported(listed: Filter) -> str:
    """A filter as /import takes it back: as written, a "more like this" filter's seeds named
    after a '#'."""
    if listed.kind is FilterKind.LIKE:
        return f"{listed.source}  # {listed.canonical}"
    return listed.source


def _import_problem(problem: BadLine | OverLimit) -> str:
    if isinstance(problem, OverLimit):
        return f"line {problem.number}: not added, this chat is at its limit of {problem.limit}"
    return f"line {problem.number}: {escape(problem.message)}: <code>{_echo(problem.source)}</code>"


async def import_(runtime: Runtime, chat: Chat, args: str) -> Reply:
    lines = [line.strip() for line in args.splitlines()]
    if not any(lines):
        return usage("import")
    ratings = feedback.import_ratings(
        runtime.database, chat_id=chat.id, lines=lines, now=runtime.clock()
    )
    if ratings.rated:
        runtime.app.ranker.changed(chat.id)
    lines = ratings.other_lines
    like_lines = [(n, line) for n, line in enumerate(lines, 1) if kind_of(line) is FilterKind.LIKE]
    result = subscriptions.import_filters(
        runtime.database,
        chat_id=chat.id,
        lines=["" if kind_of(line) is FilterKind.LIKE else line for line in lines],
        rules=runtime.app.rules,
        now=runtime.clock(),
    )
    for number, line in like_lines:  # "more like this" filters, after the others
        match await _follow_similar(runtime, chat.id, line):
            case Subscribed():
                result = dataclasses.replace(result, added=result.added + 1)
            case AlreadyFollowed():
                result = dataclasses.replace(result, already=result.already + 1)
            case AtLimit(_, limit):
                result.problems.append(OverLimit(number, limit))
            case BadFilter(message=message):
                result.problems.append(BadLine(number, line, message))
            case NotStored(arxiv_ids):
                missing = ", ".join(arxiv_ids)
                result.problems.append(BadLine(number, line, f"not in my database yet: {missing}"))
    result.problems.sort(key=lambda problem: problem.number)
    text = f"Imported {plural(result.added, 'filter')}."
    missed = ratings.unknown + ratings.unreadable
    if ratings.rated or missed:
        text += f" {plural(len(ratings.rated), 'rating')} taken."
    if missed:
        unknown = _named([_echo(u, 30) for u in missed], "ids")
        text += f" Not seen here, so not rated: {unknown}."
    if result.already:
        text += f" {plural(result.already, 'line')} you follow already."
    if result.problems:
        count = len(result.problems)
        text += f" {count} line{'s' if count != 1 else ''} not imported:\n"
        text += "\n".join(map(_import_problem, result.problems[:NAMED_AT_MOST]))
        if count > NAMED_AT_MOST:
            text += f"\n… and {count - NAMED_AT_MOST} more."
    return Reply(text)


async def stop(runtime: Runtime, chat: Chat, args: str) -> Reply:
    return Reply(
        "Forget this chat? Its filters, settings and waiting papers are deleted for good.",
        [stop_buttons()],
    )


async def stats(runtime: Runtime, chat: Chat, args: str) -> Reply:
    found, feeds = status.store_status(runtime.database), status.feed_status(runtime.database)

    def counts(values: dict[str, int]) -> str:
        return ", ".join(f"{n} {name}" for name, n in sorted(values.items())) or "none"

    return Reply(
        f"Chats: {counts(found.chats)}\n"
        f"Filters: {found.filters} ({len(runtime.app.planner)} indexed)\n"
        f"Papers: {found.papers}\nListing files: {counts(found.files)}\n"
        f"Deliveries: {counts(found.deliveries or {})}"
        + ("\nFeeds:" if feeds else "")
        + "".join(f"\n• {escape(status.feed_line(feed))}" for feed in feeds)
    )


COMMANDS: list[Command] = [
    Command("start", "", "start, or come back after /stop or a block", start),
    Command("help", "", "the filter syntax and these commands", help_),
    Command("subscribe", "FILTER", "follow a filter", subscribe, ("add",), manages=True),
    Command("list", "", "your filters, each with a remove button", list_),
    Command(
        "unsubscribe", "N|all", "remove filter N (or all)", unsubscribe, ("remove",), manages=True
    ),
    Command("preview", "FILTER", "what a filter matches, without saving it", preview),
    Command(
        "similar",
        "ARXIV_ID ...",
        "a filter for papers like these (more like this)",
        similar,
        manages=True,
    ),
    Command("mode", "instant|digest", "each paper at once, or a daily digest", mode, manages=True),
    Command("time", "HH:MM", "when the daily digest comes", time_, manages=True),
    Command("timezone", "Area/City", "your time zone (or UTC)", timezone, manages=True),
    Command("updates", "on|off", "also send new versions of papers", updates, manages=True),
    Command("digest", "", "send what is waiting now", digest),
    Command("like", "ARXIV_ID ...", "👍: rank papers like these first", like, manages=True),
    Command("dislike", "ARXIV_ID ...", "👎: rank papers like these last", dislike, manages=True),
    Command(
        "layout",
        "compact|full, abstracts N, page N",
        "digests and alerts at a glance or every card; abstracts shown; papers a page",
        layout,
        manages=True,
    ),
    Command("pause", "", "hold all alerts", pause, manages=True),
    Command("resume", "", "send alerts again", resume, manages=True),
    Command("status", "", "settings, the last listing, what is waiting", status_),
    Command("export", "", "your filters as lines", export),
    Command("import", "LINES", "add filters, one per line", import_, manages=True),
    Command("stop", "", "forget this chat and everything about it", stop, manages=True),
    Command("stats", "", "operators: counts of everything", stats, operators_only=True),
]
COMMANDS_BY_NAME = {name: c for c in COMMANDS for name in (c.name, *c.aliases)}


def parse_command(text: str, bot_username: str | None = None) -> tuple[str, str] | None:
    """'/cmd@bot args' -> ('cmd', 'args'); None for plain text or a command for another bot.
    Only /import takes lines: for any other command, lines below it continue its arguments
    (a filter written on two lines is one filter, and stays one through /export)."""
    if not text.startswith("/"):
        return None
    first, _, more = text[1:].partition("\n")
    head, _, args = first.partition(" ")
    name, _, addressee = head.partition("@")
    if addressee and bot_username and addressee.lower() != bot_username.lower():
        return None
    name = name.lower()
    if more:
        args = f"{args}\n{more}" if name == "import" else " ".join([args, *more.splitlines()])
    return name, args.strip()


async def run_command(runtime: Runtime, caller: Caller, name: str, args: str) -> Reply:
    command = COMMANDS_BY_NAME.get(name)
    if command is None or (
        command.operators_only and caller.chat_id not in runtime.settings.admin.chat_ids
    ):
        return Reply(f"I do not know /{_echo(name, 40)}. /help lists what I can do.")
    if command.manages and not await caller.may_manage():
        return Reply("Only this group's administrators can change its filters and settings.")
    chat = chats.enter(
        runtime.database, chat_id=caller.chat_id, kind=caller.kind, now=runtime.clock()
    )
    return await command.handler(runtime, chat, args)


async def handle_text(
    runtime: Runtime, caller: Caller, text: str, bot_username: str | None = None
) -> Reply | None:
    """A message from a chat: a command's reply, a pointer to /help for plain text in a private
    chat, None when the message is not for us."""
    parsed = parse_command(text.strip(), bot_username)
    if parsed is None:
        if text.startswith("/") or caller.kind != "private":
            return None
        return Reply('I understand commands. Try <code>/subscribe "kv cache"</code> or /help.')
    addressed = "@" in text.strip().split(maxsplit=1)[0]
    if parsed[0] not in COMMANDS_BY_NAME and caller.kind != "private" and not addressed:
        return None  # in a group, likely another bot's command
    return await run_command(runtime, caller, *parsed)


OUT_OF_DATE = "That button is out of date; try the command again."


async def press_button(runtime: Runtime, caller: Caller, data: str) -> Reply:
    """A button under one of our messages was pressed: the reply replaces that message, or is
    a notice while what was asked for goes out as messages of its own."""
    press = parse_press(data)
    postman = runtime.postman
    match press:  # reading: anyone in the chat
        case ShowCard(row_id):
            shown = await postman.send_card(caller.chat_id, row_id)
            return Reply("" if shown else OUT_OF_DATE, notice=True)
        case NextPage(row_id, number):
            chat = chats.enter(
                runtime.database, chat_id=caller.chat_id, kind=caller.kind, now=runtime.clock()
            )
            shown = await postman.send_page(chat, row_id, number)
            return Reply("" if shown else OUT_OF_DATE, notice=True)
        case SendRecent(filter_id):  # like /digest: anyone in the chat
            return await _send_recent(runtime, caller, filter_id)
    if press is None:
        return Reply(OUT_OF_DATE)
    if not await caller.may_manage():
        return Reply("Only the group's administrators can change its filters.", notice=True)
    match press:  # changing the chat: its administrators in a group
        case Rate(row_id, value):
            rated = feedback.rate_row(
                runtime.database,
                chat_id=caller.chat_id,
                row_id=row_id,
                value=value,
                now=runtime.clock(),
            )
            if rated is None:
                return Reply(OUT_OF_DATE, notice=True)
            runtime.app.ranker.changed(caller.chat_id)
            title = shorten(rated.paper.title, 60)
            if not rated.value:
                return Reply(f"Rating taken back: {title}", notice=True, alert=False)
            return Reply(f"{SIGNS[rated.value]} noted: {title}", notice=True, alert=False)
        case FollowSimilar(row_id):
            followed = await asyncio.to_thread(
                runtime.app.similar.follow_row,
                chat_id=caller.chat_id,
                row_id=row_id,
                max_per_chat=runtime.app.rules.max_per_chat,
                now=runtime.clock(),
            )
            if followed is None:
                return Reply(OUT_OF_DATE, notice=True)
            reply = _subscribed(followed)
            await runtime.postman.send_text(caller.chat_id, reply.text, reply.buttons)
            return Reply("", notice=True)
        case RemoveFilter(filter_id):
            removed = subscriptions.remove_filter(
                runtime.database, chat_id=caller.chat_id, filter_id=filter_id
            )
            reply = _list_reply(runtime, caller.chat_id)
            done = (
                f"Removed <code>{_echo(removed.source, LISTED_LENGTH)}</code>."
                if removed
                else "Already removed."
            )
            reply.text = f"{done}\n{reply.text}"
            return reply
        case ConfirmStop(confirmed=True):
            chats.forget(runtime.database, chat_id=caller.chat_id)
            return Reply(
                "Forgotten: no filters, no settings, nothing waiting. /start begins again."
            )
        case ConfirmStop(confirmed=False):
            return Reply("Nothing was deleted.")
    raise AssertionError(f"every press is answered: {press}")
