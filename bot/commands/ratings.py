"""👍 and 👎 by arXiv id: /like, /dislike, and the papers most liked: /top (the buttons under
papers are in buttons.py)."""

from __future__ import annotations

import html

from bot.commands.replies import Reply, Usage, echo, named, not_stored
from bot.core.chat import GROUPS, Chat
from bot.core.relevance import MIN_LIKES
from bot.core.render import LINK_MAX, escape
from bot.core.summary import shorten
from bot.service.app import SIGNS, SPANS, Liked, Paperbot

SPAN_NAMES = {"week": "the last 7 days", "month": "the last 30 days"}


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


async def top(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    """The papers with the most 👍 in the chat over the last week (or month), by when the 👍
    were given: a group's members' votes, a private chat's own."""
    span = args.strip().lower() or "week"
    if span not in SPANS:
        return Usage(hint=f"<code>{echo(args, 30)}</code> is not a span: write week or month.")
    liked = app.top(chat, span)
    group = chat.kind in GROUPS
    if not liked:
        if group:
            return Reply(
                f"No 👍 in this group over {SPAN_NAMES[span]}. Any member can vote with the 👍 "
                "under a paper."
            )
        return Reply(
            f"You gave no 👍 over {SPAN_NAMES[span]}: press 👍 under a paper, or "
            "<code>/like ARXIV_ID</code>."
        )
    head = "Most 👍 in this group" if group else "Your 👍"
    lines = [f"<b>{head}, {SPAN_NAMES[span]}</b>"]
    lines += [_top_line(number, found, group) for number, found in enumerate(liked, 1)]
    return Reply("\n".join(lines))


def _top_line(number: int, found: Liked, counted: bool) -> str:
    paper = found.paper
    title = escape(shorten(paper.title, 100))
    if paper.abs_url and len(paper.abs_url) <= LINK_MAX:
        title = f'<a href="{html.escape(paper.abs_url)}">{title}</a>'
    named = f" (arXiv:{escape(paper.arxiv_id)})" if paper.arxiv_id else ""
    likes = f" · 👍 {found.likes}" if counted else ""
    return f"{number}. {title}{named}{likes}"
