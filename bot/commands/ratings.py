"""👍 and 👎 by arXiv id: /like, /dislike, and the papers most liked: /top (the buttons under
papers are in buttons.py)."""

from __future__ import annotations

import html

from bot.commands.replies import Reply, Usage, echo, named, not_stored, tr
from bot.core.chat import GROUPS, Chat
from bot.core.i18n import Translator
from bot.core.relevance import MIN_LIKES
from bot.core.render import LINK_MAX, escape
from bot.core.summary import shorten
from bot.service.app import SIGNS, SPANS, Liked, Paperbot

SPAN_DAYS = {"week": 7, "month": 30}  # /top's spans, as its replies name them


async def like(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return _rate(app, chat, args, 1)


async def dislike(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return _rate(app, chat, args, -1)


def _rate(app: Paperbot, chat: Chat, args: str, value: int) -> Reply | Usage:
    if not args.split():
        return Usage()
    t = tr(chat)
    found = app.rate_papers(chat, args.replace(",", " ").split(), value)
    result = found.rated
    lines = [f"{SIGNS[value]} {escape(shorten(p.title, 80))}" for p in result.rated]
    if result.unreadable:
        unreadable = named(t, [f"<code>{echo(u, 30)}</code>" for u in result.unreadable])
        text = t.gettext(
            "Not an arXiv id: {ids} (write 2506.01234, or the paper's arxiv.org link)."
        )
        lines.append(text.format(ids=unreadable))
    if result.unknown:
        lines.append(not_stored(t, result.unknown, t.gettext("it can be rated")))
    if result.rated:
        lines.append(_ranking_line(t, found.likes))
    return Reply("\n".join(lines))


def _ranking_line(t: Translator, likes: int) -> str:
    if likes >= MIN_LIKES:
        return t.gettext(
            "Your digests list what you like first (within each filter), with the reason."
        )
    text = t.gettext("Ranking starts at {needed} 👍: {likes} so far.")
    return text.format(needed=t.number(MIN_LIKES), likes=t.number(likes))


async def top(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    """The papers with the most 👍 in the chat over the last week (or month), by when the 👍
    were given: a group's members' votes, a private chat's own."""
    t = tr(chat)
    span = args.strip().lower() or "week"
    if span not in SPANS:
        wrong = t.gettext("{typed} is not a span: write week or month.")
        return Usage(hint=wrong.format(typed=f"<code>{echo(args, 30)}</code>"))
    liked = app.top(chat, span)
    group = chat.kind in GROUPS
    days = t.number(SPAN_DAYS[span])
    if not liked:
        if group:
            none = t.gettext(
                "No 👍 in this group over the last {days} days. Any member can vote with the 👍 "
                "under a paper."
            )
        else:
            none = t.gettext(
                "You gave no 👍 over the last {days} days: press 👍 under a paper, or "
                "<code>/like ARXIV_ID</code>."
            )
        return Reply(none.format(days=days))
    if group:
        head = t.gettext("<b>Most 👍 in this group, the last {days} days</b>")
    else:
        head = t.gettext("<b>Your 👍, the last {days} days</b>")
    lines = [head.format(days=days)]
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
