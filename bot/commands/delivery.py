"""How and when a chat is sent papers: /mode, /time, /timezone, /updates, /digest, /layout,
/pause, /resume."""

from __future__ import annotations

from bot.commands.replies import Reply, Usage, echo, local_time, weekly_when
from bot.core.chat import Chat
from bot.core.render import escape, plural
from bot.core.schedule import parse_digest_time, parse_weekday
from bot.core.states import ChatMode, DigestStyle
from bot.core.zones import ZoneUnknown
from bot.service.app import DigestSent, NothingWaiting, Paperbot, Paused

LAYOUT_LIMITS = {"abstracts": (0, 30), "page": (5, 100)}  # what /layout accepts
DAYS_HINT = "Days: mon, tue, wed, thu, fri, sat, sun, or their full names."


async def mode(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    match args.lower().split():
        case [ChatMode.INSTANT | ChatMode.DIGEST as choice]:
            chat = app.change(chat, mode=ChatMode(choice))
        case [ChatMode.WEEKLY, *day] if len(day) <= 1:
            weekday = parse_weekday(day[0]) if day else 0
            if weekday is None:
                return Usage(f"<code>{echo(day[0])}</code> is not a day of the week.", DAYS_HINT)
            chat = app.change(chat, mode=ChatMode.WEEKLY, digest_weekday=weekday)
        case _:
            weekly = f", {weekly_when(chat)}" if chat.mode is ChatMode.WEEKLY else ""
            return Usage(f"Mode now: {chat.mode}{weekly}.")
    if chat.mode is ChatMode.INSTANT:
        return Reply("Instant: each matching paper comes as soon as its listing arrives.")
    if chat.mode is ChatMode.WEEKLY:
        return Reply(
            f"Weekly: one digest a week, {weekly_when(chat)}; the next at "
            f"{_next_digest(app, chat)}."
        )
    return Reply(f"Digest: one message a day; the next at {_next_digest(app, chat)}.")


def _next_digest(app: Paperbot, chat: Chat) -> str:
    return local_time(app.next_digest(chat), chat)


async def time_(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    chosen = parse_digest_time(args)
    if chosen is None:
        now = f"Digest time now: {chat.digest_time} ({escape(chat.timezone)})."
        if args.strip():
            now = f"<code>{echo(args.strip())}</code> is not a time. {now}"
        return Usage(now, "Also: 7, 7pm, 7:30pm, 19.30, 0730, 7h30.")
    chat = app.change(chat, digest_time=chosen)
    note = " (used in digest mode: /mode digest)" if chat.mode is ChatMode.INSTANT else ""
    return Reply(f"Digest time set to {chosen}; the next at {_next_digest(app, chat)}{note}.")


async def timezone(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    if not args.strip():
        return Usage(f"Time zone now: {escape(chat.timezone)}.")
    found = app.set_timezone(chat, args)
    if isinstance(found, ZoneUnknown):
        return Reply(_unknown_zone(args.strip(), found))
    chat, zone = found
    text = f"Time zone set to {zone.zone}; the next digest at {_next_digest(app, chat)}."
    if zone.offset:  # Etc/GMT-2
        text += (
            f"\n{zone.zone} is {zone.offset} all year (POSIX names count the hours the other "
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
    text = f"I do not know the time zone <code>{echo(typed)}</code>."
    text += f" Did you mean {' or '.join(named)}?" if named else ""
    return text + (
        " Write it as Area/City, like <code>Europe/Berlin</code> or <code>America/New_York</code>, "
        "a city alone (<code>berlin</code>), UTC or an offset (<code>UTC+2</code>)."
    )


async def updates(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    choice = args.strip().lower()
    if choice not in ("on", "off"):
        return Usage()
    app.change(chat, updates=choice == "on")
    if choice == "on":
        return Reply("Updates on: new versions of matching papers come too, marked as updates.")
    return Reply("Updates off: each paper comes once, new versions are not sent.")


async def digest(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    match await app.digest_now(chat):
        case Paused():
            return Reply("Alerts are paused; /resume first.")
        case NothingWaiting():
            return Reply("Nothing is waiting for you right now.")
        case DigestSent(papers, complete=False):
            return Reply("Telegram is not taking messages right now; the rest follows shortly.")
        case DigestSent(papers):
            return Reply(f"That was everything waiting: {plural(papers, 'paper')}.")
    raise AssertionError("every outcome of /digest is answered")


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


async def layout(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    match args.lower().split():
        case [DigestStyle.COMPACT | DigestStyle.FULL as style]:
            chat = app.change(chat, digest_style=DigestStyle(style))
        case ["abstracts" | "page" as what, number] if number.isdecimal():
            low, high = LAYOUT_LIMITS[what]
            if len(number) > 3 or not low <= int(number) <= high:
                return Reply(f"<code>/layout {what}</code> takes a number from {low} to {high}.")
            chat = app.change(chat, **{f"digest_{what}": int(number)})
        case _:
            return Usage(f"Digests now: {_layout_line(chat)}.")
    full = chat.digest_style is DigestStyle.FULL
    alerts = "whole cards" if full else "at a glance, every card a button away"
    return Reply(f"Digests: {_layout_line(chat)}.\nInstant alerts: {alerts}.")


async def pause(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    app.change(chat, paused=True)
    return Reply("Paused. Matching papers are kept for you; /resume sends them.")


async def resume(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    app.change(chat, paused=False)
    instant = chat.mode is ChatMode.INSTANT
    when = "with the next delivery" if instant else f"at {_next_digest(app, chat)}"
    return Reply(f"Resumed. What was kept comes {when}.")
