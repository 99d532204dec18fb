"""The chat itself: /start, /status, /stop, and /stats for operators (/help, which lists the
table, is beside it in table.py)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.commands.followups import status_line as followups_line
from bot.commands.replies import Reply, Usage, local_time, weekly_when
from bot.core.buttons import stop_buttons
from bot.core.chat import Chat
from bot.core.relevance import MIN_LIKES
from bot.core.render import escape, plural
from bot.core.states import DIGESTS, ChatMode
from bot.service.app import ChatReport, Paperbot, feed_line


async def start(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return Reply(
        "Hello! I tell you about new papers that match your filters.\n\n"
        'Add a filter with <code>/subscribe "kv cache"</code> (try <code>/preview</code> first), '
        "see them with /list. You get one digest a day at "
        f"{chat.digest_time} ({escape(chat.timezone)}); /mode instant sends each paper at once, "
        "/time and /timezone move the digest. /help has the filter syntax.\n\n"
        "Keep a library (Zotero, a .bib file)? Send me its BibTeX, RIS or CSL-JSON export: "
        "its papers rank what I send you from the start."
    )


async def status_(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    report = app.report(chat)
    found, digest = report.found, chat.mode in DIGESTS
    when = weekly_when(chat) if chat.mode is ChatMode.WEEKLY else f"digest at {chat.digest_time}"
    lines = [
        f"Filters: {found.filters} (/list)",
        f"Mode: {chat.mode}" + (f", {when}" if digest else ""),
        f"Time zone: {chat.timezone}",
        _quiet_line(report),
        f"Updates: {'on' if chat.updates else 'off'}"
        + ("; PAUSED (/resume)" if chat.paused else ""),
        followups_line(chat),
        f"Waiting for you: {plural(found.waiting, 'paper')}",
        _ratings_line(report),
    ]
    if digest and not chat.paused and found.filters:
        lines.append(f"Next digest: {local_time(report.next_digest, chat)}")
    return Reply("\n".join(lines + _arrivals(report)))


def _quiet_line(report: ChatReport) -> str:
    chat = report.found.chat
    if chat.quiet_from is None:
        return "Quiet hours: none (/quiet)"
    line = f"Quiet hours: {chat.quiet_from}-{chat.quiet_to}"
    line += ", alerts sent silently" if chat.quiet_silent else ", alerts held"
    if report.quiet_until is None:
        return line
    line += f"; quiet now until {local_time(report.quiet_until, chat)}"
    holding = chat.mode is ChatMode.INSTANT and not chat.quiet_silent
    return line + (f", {plural(report.held, 'paper')} held" if holding else "")


def _ratings_line(report: ChatReport) -> str:
    likes, dislikes = report.likes, report.dislikes
    library = ""
    if report.library:
        library += f"\nLibrary: {plural(report.library, 'imported paper')} to learn from"
    if report.saved:
        library += f"\nSaved: {plural(report.saved, 'paper')} (/saved)"
    if not likes and not dislikes and not report.library:
        return f"Ratings: none yet (👍 under {MIN_LIKES} papers ranks your digests){library}"
    # imported papers teach the model as 👍 do
    ranked = likes + report.library >= MIN_LIKES
    ranking = "digests ranked for you" if ranked else f"ranking from {MIN_LIKES} 👍"
    return f"Ratings: {likes} 👍, {dislikes} 👎 ({ranking}){library}"


def _arrivals(report: ChatReport) -> list[str]:
    """What arrived since the last digest, and the last listing read."""
    found, chat = report.found, report.found.chat
    # a chat starts with its last digest at its first contact: none has gone out yet
    since = "the last digest" if chat.last_digest_at > chat.created_at else "you started"
    if found.arrived_since_digest:
        lines = [f"Since {since}: {plural(found.arrived_since_digest, 'new paper')} arrived"]
    else:
        lines = [f"Since {since}: no announcement (no new listing)"]
    last = found.last_listing
    if last is None:
        return [*lines, "No listing has arrived yet."]
    seen = last.seen_at.astimezone(ZoneInfo(chat.timezone))
    day = f", announced {last.announced:%-d %b %Y}" if last.announced else ""
    return [*lines, f"Last listing: {escape(last.name)}, seen {seen:%-d %b %H:%M}{day}"]


async def stop(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return Reply(
        "Forget this chat? Its filters, settings and waiting papers are deleted for good.",
        [stop_buttons()],
    )


async def stats(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    found = app.stats()

    def counts(values: dict[str, int]) -> str:
        return ", ".join(f"{n} {name}" for name, n in sorted(values.items())) or "none"

    store = found.store
    return Reply(
        f"Chats: {counts(store.chats)}\n"
        f"Filters: {store.filters} ({found.indexed} indexed)\n"
        f"Papers: {store.papers}\nListing files: {counts(store.files)}\n"
        f"Deliveries: {counts(store.deliveries or {})}"
        + ("\nFeeds:" if found.feeds else "")
        + "".join(f"\n• {escape(feed_line(feed))}" for feed in found.feeds)
    )
