"""How and when a chat is sent papers: /mode, /time, /timezone, /updates, /digest, /layout,
/pause, /resume."""

from __future__ import annotations

from functools import reduce

from bot.commands.replies import Reply, Usage, echo, local_time, tr, weekly_when
from bot.core.chat import Chat
from bot.core.i18n import N_, Translator
from bot.core.render import escape
from bot.core.schedule import parse_digest_time, parse_weekday
from bot.core.states import ChatMode, DigestStyle
from bot.core.zones import ZoneUnknown
from bot.service.app import DigestSent, NothingWaiting, Paperbot, Paused

LAYOUT_LIMITS = {"abstracts": (0, 30), "page": (5, 100)}  # what /layout accepts
DAYS_HINT = N_("Days: mon, tue, wed, thu, fri, sat, sun, or their full names.")


async def mode(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    match args.lower().split():
        case [ChatMode.INSTANT | ChatMode.DIGEST as choice]:
            chat = app.change(chat, mode=ChatMode(choice))
        case [ChatMode.WEEKLY, *day] if len(day) <= 1:
            weekday = parse_weekday(day[0]) if day else 0
            if weekday is None:
                wrong = t.gettext("{day} is not a day of the week.")
                return Usage(wrong.format(day=f"<code>{echo(day[0])}</code>"), t.gettext(DAYS_HINT))
            chat = app.change(chat, mode=ChatMode.WEEKLY, digest_weekday=weekday)
        case _:
            return Usage(mode_line(t, chat))
    if chat.mode is ChatMode.INSTANT:
        return Reply(
            t.gettext("Instant: each matching paper comes as soon as its listing arrives.")
        )
    if chat.mode is ChatMode.WEEKLY:
        weekly = t.gettext("Weekly: one digest a week, {when}; the next at {next}.")
        return Reply(weekly.format(when=weekly_when(t, chat), next=_next_digest(t, app, chat)))
    daily = t.gettext("Digest: one message a day; the next at {next}.")
    return Reply(daily.format(next=_next_digest(t, app, chat)))


def mode_line(t: Translator, chat: Chat) -> str:
    """The chat's mode as /status names it, and /mode alone tells it."""
    # each mode a whole message: the keyword to type stays in it, and a language may name the
    # mode in its own words beside it
    if chat.mode is ChatMode.INSTANT:
        return t.gettext("Mode: instant")
    if chat.mode is ChatMode.WEEKLY:
        return t.gettext("Mode: weekly, {when}").format(when=weekly_when(t, chat))
    return t.gettext("Mode: digest, digest at {time}").format(time=chat.digest_time)


def _next_digest(t: Translator, app: Paperbot, chat: Chat) -> str:
    return local_time(t, app.next_digest(chat), chat)


async def time_(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    chosen = parse_digest_time(args)
    if chosen is None:
        now = t.gettext("Digest time now: {time} ({timezone}).").format(
            time=chat.digest_time, timezone=escape(chat.timezone)
        )
        if args.strip():
            wrong = t.gettext("{typed} is not a time.").format(
                typed=f"<code>{echo(args.strip())}</code>"
            )
            now = f"{wrong} {now}"
        return Usage(now, t.gettext("Also: 7, 7pm, 7:30pm, 19.30, 0730, 7h30."))
    chat = app.change(chat, digest_time=chosen)
    if chat.mode is ChatMode.INSTANT:
        text = t.gettext(
            "Digest time set to {time}; the next at {next} (used in digest mode: /mode digest)."
        )
    else:
        text = t.gettext("Digest time set to {time}; the next at {next}.")
    return Reply(text.format(time=chosen, next=_next_digest(t, app, chat)))


async def timezone(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    if not args.strip():
        return Usage(t.gettext("Time zone now: {timezone}.").format(timezone=escape(chat.timezone)))
    found = app.set_timezone(chat, args)
    if isinstance(found, ZoneUnknown):
        return Reply(_unknown_zone(t, args.strip(), found))
    chat, zone = found
    text = t.gettext("Time zone set to {timezone}; the next digest at {next}.").format(
        timezone=zone.zone, next=_next_digest(t, app, chat)
    )
    if zone.offset:  # Etc/GMT-2
        fixed = t.gettext(
            "{timezone} is {offset} all year (POSIX names count the hours the other way "
            "round), without daylight saving; to follow it, name your city, like "
            "<code>berlin</code>."
        )
        text += "\n" + fixed.format(timezone=zone.zone, offset=zone.offset)
    return Reply(text)


def _unknown_zone(t: Translator, typed: str, unknown: ZoneUnknown) -> str:
    offset, named = unknown.offset, [f"<code>{zone}</code>" for zone in unknown.suggestions]
    if offset and not named:
        text = t.gettext("No time zone is at {offset}: clocks run from UTC-12 to UTC+14.")
        return text.format(offset=offset)
    if offset:
        text = t.gettext(
            "No fixed zone is {offset} (those are whole hours: Etc/GMT-2 is UTC+2). "
            "The zones at {offset} now: {zones}; write one of them."
        )
        return text.format(offset=offset, zones=", ".join(named))
    parts = [
        t.gettext("I do not know the time zone {typed}.").format(
            typed=f"<code>{echo(typed)}</code>"
        )
    ]
    if named:
        either = t.gettext("{first} or {second}")
        zones = reduce(lambda first, second: either.format(first=first, second=second), named)
        parts.append(t.gettext("Did you mean {zones}?").format(zones=zones))
    parts.append(
        t.gettext(
            "Write it as Area/City, like <code>Europe/Berlin</code> or "
            "<code>America/New_York</code>, a city alone (<code>berlin</code>), UTC or an offset "
            "(<code>UTC+2</code>)."
        )
    )
    return " ".join(parts)


async def updates(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    choice = args.strip().lower()
    if choice not in ("on", "off"):
        return Usage(now=updates_line(t, chat))
    app.change(chat, updates=choice == "on")
    if choice == "on":
        return Reply(
            t.gettext("Updates on: new versions of matching papers come too, marked as updates.")
        )
    return Reply(t.gettext("Updates off: each paper comes once, new versions are not sent."))


def updates_line(t: Translator, chat: Chat) -> str:
    """/status's line, and /updates' without a choice."""
    return t.gettext("Updates: on") if chat.updates else t.gettext("Updates: off")


async def digest(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    match await app.digest_now(chat):
        case Paused():
            return Reply(t.gettext("Alerts are paused; /resume first."))
        case NothingWaiting():
            return Reply(t.gettext("Nothing is waiting for you right now."))
        case DigestSent(papers, complete=False):
            return Reply(
                t.gettext("Telegram is not taking messages right now; the rest follows shortly.")
            )
        case DigestSent(papers):
            text = t.ngettext(
                "That was everything waiting: {count} paper.",
                "That was everything waiting: {count} papers.",
                papers,
            )
            return Reply(text.format(count=t.number(papers)))
    raise AssertionError("every outcome of /digest is answered")


def _layout_line(t: Translator, chat: Chat) -> str:
    page = chat.digest_page
    if chat.digest_style is DigestStyle.FULL:
        text = t.ngettext(
            "full (every paper's whole card), {page} paper a page",
            "full (every paper's whole card), {page} papers a page",
            page,
        )
        return text.format(page=t.number(page))
    shown = chat.digest_abstracts
    if shown == 0:
        opened = t.gettext("no abstracts")
    elif shown == 1:
        opened = t.gettext("the first with its abstract")
    else:
        opened = t.ngettext(
            "the first {count} with their abstract", "the first {count} with their abstract", shown
        ).format(count=t.number(shown))
    text = t.ngettext(
        "compact (each paper at a glance, {opened}; every card a button away), {page} paper a page",
        "compact (each paper at a glance, {opened}; every card a button away), "
        "{page} papers a page",
        page,
    )
    return text.format(opened=opened, page=t.number(page))


async def layout(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    match args.lower().split():
        case [DigestStyle.COMPACT | DigestStyle.FULL as style]:
            chat = app.change(chat, digest_style=DigestStyle(style))
        case ["abstracts" | "page" as what, number] if number.isdecimal():
            low, high = LAYOUT_LIMITS[what]
            if len(number) > 3 or not low <= int(number) <= high:
                text = t.gettext("{command} takes a number from {low} to {high}.")
                return Reply(
                    text.format(command=f"<code>/layout {what}</code>", low=low, high=high)
                )
            chat = app.change(chat, **{f"digest_{what}": int(number)})
        case _:
            return Usage(t.gettext("Digests now: {layout}.").format(layout=_layout_line(t, chat)))
    if chat.digest_style is DigestStyle.FULL:
        text = t.gettext("Digests: {layout}.\nInstant alerts: whole cards.")
    else:
        text = t.gettext(
            "Digests: {layout}.\nInstant alerts: at a glance, every card a button away."
        )
    return Reply(text.format(layout=_layout_line(t, chat)))


async def pause(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    app.change(chat, paused=True)
    return Reply(tr(chat).gettext("Paused. Matching papers are kept for you; /resume sends them."))


async def resume(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    app.change(chat, paused=False)
    if chat.mode is ChatMode.INSTANT:
        return Reply(t.gettext("Resumed. What was kept comes with the next delivery."))
    text = t.gettext("Resumed. What was kept comes at {next}.")
    return Reply(text.format(next=_next_digest(t, app, chat)))
