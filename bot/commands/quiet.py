"""Quiet hours: /quiet. In the window, alerts (and a digest due) wait for its end and come
together then, or, set to silent, come at once without a notification."""

from __future__ import annotations

from bot.commands.replies import Reply, Usage, echo, local_time, tr
from bot.core.chat import Chat
from bot.core.i18n import N_, Translator
from bot.core.render import escape
from bot.core.schedule import parse_quiet_hours
from bot.service.app import Paperbot

EXAMPLES = N_(
    "Like <code>/quiet 22:00-07:00</code>, <code>/quiet 22-7</code> or "
    "<code>/quiet 10pm-7am</code>, in your local time."
)


async def quiet(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    choice = args.strip().lower()
    if not choice:
        return Usage(setting(t, app, chat), t.gettext(EXAMPLES))
    if choice == "off":
        app.change(chat, quiet_from=None, quiet_to=None)
        return Reply(t.gettext("Quiet hours off: alerts come at any hour."))
    if choice in ("silent", "hold"):
        if chat.quiet_from is None:
            return Reply(t.gettext("Set the hours first.") + " " + t.gettext(EXAMPLES))
        return Reply(setting(t, app, app.change(chat, quiet_silent=choice == "silent")))
    window = parse_quiet_hours(choice)
    if window is None:
        wrong = t.gettext("{typed} is not a window of hours.").format(
            typed=f"<code>{echo(args.strip())}</code>"
        )
        return Usage(f"{wrong} {setting(t, app, chat)}", t.gettext(EXAMPLES))
    quiet_from, quiet_to = window
    return Reply(setting(t, app, app.change(chat, quiet_from=quiet_from, quiet_to=quiet_to)))


def setting(t: Translator, app: Paperbot, chat: Chat) -> str:
    """The chat's quiet hours, what they do, and whether they are in force now."""
    if chat.quiet_from is None:
        return t.gettext("No quiet hours: alerts come at any hour.")
    if chat.quiet_silent:
        text = t.gettext(
            "Quiet hours: {start}-{end} ({timezone}); alerts come then without a notification "
            "(/quiet hold holds them)."
        )
    else:
        text = t.gettext(
            "Quiet hours: {start}-{end} ({timezone}); alerts that arrive then wait and come "
            "together when they end, and so does a digest due then (/quiet silent sends them "
            "without a notification)."
        )
    text = text.format(start=chat.quiet_from, end=chat.quiet_to, timezone=escape(chat.timezone))
    ends = app.quiet_until(chat)
    if ends is None:
        return text
    until = t.gettext("Quiet now, until {when}.").format(when=local_time(t, ends, chat))
    return f"{text}\n{until}"
