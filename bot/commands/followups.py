"""/followups on|off: whether the chat hears of the papers it 👍'd or saved (a new version with
a venue note, a journal reference, a DOI, the journal version). On unless turned off; in groups,
administrators change it, and anyone may ask (/followups alone)."""

from __future__ import annotations

from bot.commands.replies import Reply, Usage, tr
from bot.core.chat import Chat
from bot.core.i18n import N_
from bot.service.app import Paperbot

FOLLOWUPS_HELP = N_(
    "hear when a paper you 👍'd or saved gets a new version with a venue, a journal reference "
    "or a DOI, or its journal version"
)


async def followups(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    choice = args.strip().lower()
    if choice not in ("on", "off"):
        return Usage(now=status_line(chat))
    app.change(chat, followups=choice == "on")
    if choice == "on":
        return Reply(
            t.gettext(
                "Follow-ups on: when a paper you 👍'd or saved gets a new version with a venue, "
                "a journal reference or a DOI, or its journal version, you hear of it once."
            )
        )
    return Reply(t.gettext("Follow-ups off: papers you 👍'd or saved are not followed up."))


def status_line(chat: Chat) -> str:
    """/status's line, and /followups' without a choice."""
    t = tr(chat)
    if chat.followups:
        return t.gettext("Follow-ups of papers you 👍'd or saved: on (/followups off)")
    return t.gettext("Follow-ups of papers you 👍'd or saved: off (/followups on)")
