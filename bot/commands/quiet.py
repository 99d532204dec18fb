"""Quiet hours: /quiet. In the window, alerts (and a digest due) wait for its end and come
together then, or, set to silent, come at once without a notification."""

from __future__ import annotations

from bot.commands.replies import Reply, Usage, echo, local_time
from bot.core.chat import Chat
from bot.core.render import escape
from bot.core.schedule import parse_quiet_hours
from bot.service.app import Paperbot

EXAMPLES = (
    "Like <code>/quiet 22:00-07:00</code>, <code>/quiet 22-7</code> or "
    "<code>/quiet 10pm-7am</code>, in your local time."
)


async def quiet(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    choice = args.strip().lower()
    if not choice:
        return Usage(setting(app, chat), EXAMPLES)
    if choice == "off":
        app.change(chat, quiet_from=None, quiet_to=None)
        return Reply("Quiet hours off: alerts come at any hour.")
    if choice in ("silent", "hold"):
        if chat.quiet_from is None:
            return Reply(f"Set the hours first. {EXAMPLES}")
        return Reply(setting(app, app.change(chat, quiet_silent=choice == "silent")))
    window = parse_quiet_hours(choice)
    if window is None:
        now = f"<code>{echo(args.strip())}</code> is not a window of hours. {setting(app, chat)}"
        return Usage(now, EXAMPLES)
    quiet_from, quiet_to = window
    return Reply(setting(app, app.change(chat, quiet_from=quiet_from, quiet_to=quiet_to)))


def setting(app: Paperbot, chat: Chat) -> str:
    """The chat's quiet hours, what they do, and whether they are in force now."""
    if chat.quiet_from is None:
        return "No quiet hours: alerts come at any hour."
    hours = f"Quiet hours: {chat.quiet_from}-{chat.quiet_to} ({escape(chat.timezone)})"
    if chat.quiet_silent:
        text = f"{hours}; alerts come then without a notification (/quiet hold holds them)."
    else:
        text = (
            f"{hours}; alerts that arrive then wait and come together when they end, and so "
            "does a digest due then (/quiet silent sends them without a notification)."
        )
    ends = app.quiet_until(chat)
    return text + (f"\nQuiet now, until {local_time(ends, chat)}." if ends else "")
