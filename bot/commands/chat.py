"""The chat itself: /start, /status, /stop, and /stats for operators (/help, which lists the
table, is beside it in table.py)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.commands.delivery import mode_line, updates_line
from bot.commands.followups import status_line as followups_line
from bot.commands.replies import Reply, Usage, local_time, tr, weekly_when
from bot.core.buttons import stop_buttons
from bot.core.chat import Chat
from bot.core.i18n import N_, Translator
from bot.core.relevance import MIN_LIKES
from bot.core.render import escape
from bot.core.states import DIGESTS, ChatMode
from bot.service.app import ChatReport, Paperbot, feed_line

# /start by the chat's mode: a chat back after blocking the bot keeps the mode it had
START = {
    ChatMode.DIGEST: N_(
        "Hello! I tell you about new papers that match your filters.\n\n"
        'Add a filter with <code>/subscribe "kv cache"</code> (try <code>/preview</code> first), '
        "see them with /list. You get one digest a day at {time} ({timezone}); /mode instant "
        "sends each paper at once, /time and /timezone move the digest. /help has the filter "
        "syntax.\n\n"
        "Keep a library (Zotero, a .bib file)? Send me its BibTeX, RIS or CSL-JSON export: "
        "its papers rank what I send you from the start."
    ),
    ChatMode.INSTANT: N_(
        "Hello! I tell you about new papers that match your filters.\n\n"
        'Add a filter with <code>/subscribe "kv cache"</code> (try <code>/preview</code> first), '
        "see them with /list. Each paper comes as soon as its listing arrives; /mode digest "
        "gathers them in one digest a day at {time} ({timezone}). /help has the filter "
        "syntax.\n\n"
        "Keep a library (Zotero, a .bib file)? Send me its BibTeX, RIS or CSL-JSON export: "
        "its papers rank what I send you from the start."
    ),
    ChatMode.WEEKLY: N_(
        "Hello! I tell you about new papers that match your filters.\n\n"
        'Add a filter with <code>/subscribe "kv cache"</code> (try <code>/preview</code> first), '
        "see them with /list. You get one digest a week, {when} ({timezone}); /mode digest "
        "sends one a day, /mode instant each paper at once, /time and /timezone move the "
        "digest. /help has the filter syntax.\n\n"
        "Keep a library (Zotero, a .bib file)? Send me its BibTeX, RIS or CSL-JSON export: "
        "its papers rank what I send you from the start."
    ),
}


async def start(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    text = t.gettext(START[chat.mode]).format(
        time=chat.digest_time, timezone=escape(chat.timezone), when=weekly_when(t, chat)
    )
    return Reply(text)


async def status_(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    report = app.report(chat)
    found, digest = report.found, chat.mode in DIGESTS
    updates = updates_line(t, chat)
    if chat.paused:
        updates = t.gettext("{updates}; PAUSED (/resume)").format(updates=updates)
    waiting = t.ngettext(
        "Waiting for you: {count} paper", "Waiting for you: {count} papers", found.waiting
    )
    lines = [
        t.gettext("Filters: {count} (/list)").format(count=t.number(found.filters)),
        mode_line(t, chat),
        t.gettext("Time zone: {timezone}").format(timezone=chat.timezone),
        _quiet_line(t, report),
        updates,
        followups_line(chat),
        waiting.format(count=t.number(found.waiting)),
        _ratings_line(t, report),
    ]
    if digest and not chat.paused and found.filters:
        next_digest = local_time(t, report.next_digest, chat)
        lines.append(t.gettext("Next digest: {when}").format(when=next_digest))
    return Reply("\n".join(lines + _arrivals(t, report)))


def _quiet_line(t: Translator, report: ChatReport) -> str:
    chat = report.found.chat
    if chat.quiet_from is None:
        return t.gettext("Quiet hours: none (/quiet)")
    if chat.quiet_silent:
        line = t.gettext("Quiet hours: {start}-{end}, alerts sent silently")
    else:
        line = t.gettext("Quiet hours: {start}-{end}, alerts held")
    line = line.format(start=chat.quiet_from, end=chat.quiet_to)
    if report.quiet_until is None:
        return line
    until = local_time(t, report.quiet_until, chat)
    holding = chat.mode is ChatMode.INSTANT and not chat.quiet_silent
    if not holding:
        return t.gettext("{hours}; quiet now until {until}").format(hours=line, until=until)
    held = t.ngettext(
        "{hours}; quiet now until {until}, {count} paper held",
        "{hours}; quiet now until {until}, {count} papers held",
        report.held,
    )
    return held.format(hours=line, until=until, count=t.number(report.held))


def _ratings_line(t: Translator, report: ChatReport) -> str:
    likes, dislikes = report.likes, report.dislikes
    library = ""
    if report.library:
        learned = t.ngettext(
            "Library: {count} imported paper to learn from",
            "Library: {count} imported papers to learn from",
            report.library,
        )
        library += "\n" + learned.format(count=t.number(report.library))
    if report.saved:
        saved = t.ngettext(
            "Saved: {count} paper (/saved)", "Saved: {count} papers (/saved)", report.saved
        )
        library += "\n" + saved.format(count=t.number(report.saved))
    if not likes and not dislikes and not report.library:
        none = t.gettext("Ratings: none yet (👍 under {count} papers ranks your digests)")
        return none.format(count=t.number(MIN_LIKES)) + library
    # imported papers teach the model as 👍 do
    if likes + report.library >= MIN_LIKES:
        ratings = t.gettext("Ratings: {likes} 👍, {dislikes} 👎 (digests ranked for you)")
    else:
        ratings = t.gettext("Ratings: {likes} 👍, {dislikes} 👎 (ranking from {count} 👍)")
    counts = {"likes": t.number(likes), "dislikes": t.number(dislikes)}
    return ratings.format(**counts, count=t.number(MIN_LIKES)) + library


def _arrivals(t: Translator, report: ChatReport) -> list[str]:
    """What arrived since the last digest, and the last listing read."""
    found, chat = report.found, report.found.chat
    # a chat starts with its last digest at its first contact: none has gone out yet
    started = chat.last_digest_at <= chat.created_at
    arrived = found.arrived_since_digest
    if arrived and started:
        text = t.ngettext(
            "Since you started: {count} new paper arrived",
            "Since you started: {count} new papers arrived",
            arrived,
        )
    elif arrived:
        text = t.ngettext(
            "Since the last digest: {count} new paper arrived",
            "Since the last digest: {count} new papers arrived",
            arrived,
        )
    elif started:
        text = t.gettext("Since you started: no announcement (no new listing)")
    else:
        text = t.gettext("Since the last digest: no announcement (no new listing)")
    lines = [text.format(count=t.number(arrived))]
    last = found.last_listing
    if last is None:
        return [*lines, t.gettext("No listing has arrived yet.")]
    seen_at = last.seen_at.astimezone(ZoneInfo(chat.timezone))
    seen = t.datetime(seen_at, format=f"{t.day_pattern('MMMd')} HH:mm")
    if last.announced:
        text = t.gettext("Last listing: {name}, seen {seen}, announced {day}")
    else:
        text = t.gettext("Last listing: {name}, seen {seen}")
    day = t.day(last.announced) if last.announced else ""
    return [*lines, text.format(name=escape(last.name), seen=seen, day=day)]


async def stop(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    return Reply(
        t.gettext(
            "Forget this chat? Its filters, settings and waiting papers are deleted for good."
        ),
        [stop_buttons(t=t)],
    )


async def stats(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    found = app.stats()  # for operators: in English, as the logs and `paperbot status` are

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
