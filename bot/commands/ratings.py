"""👍 and 👎 by arXiv id: /like, /dislike (the buttons under papers are in buttons.py)."""

from __future__ import annotations

from bot.commands.replies import Reply, Usage, echo, named, not_stored
from bot.core.chat import Chat
from bot.core.relevance import MIN_LIKES
from bot.core.render import escape
from bot.core.summary import shorten
from bot.service.app import SIGNS, Paperbot


async def like(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return _rate(app, chat, args, 1)


async def dislike(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return _rate(app, chat, args, -1)


def _rate(app: Paperbot, chat: Chat, args: str, value: int) -> Reply | Usage:
    if not args.split():
        return Usage()
    found = app.rate_papers(chat, args.replace(",", " ").split(), value)
    result = found.rated
    lines = [f"{SIGNS[value]} {escape(shorten(p.title, 80))}" for p in result.rated]
    if result.unreadable:
        unreadable = named([f"<code>{echo(u, 30)}</code>" for u in result.unreadable], "")
        lines.append(
            f"Not an arXiv id: {unreadable} (write 2506.01234, or the paper's arxiv.org link)."
        )
    if result.unknown:
        lines.append(not_stored(result.unknown, "it can be rated"))
    if result.rated:
        lines.append(_ranking_line(found.likes))
    return Reply("\n".join(lines))


def _ranking_line(likes: int) -> str:
    if likes >= MIN_LIKES:
        return "Your digests list what you like first (within each filter), with the reason."
    return f"Ranking starts at {MIN_LIKES} 👍: {likes} so far."
