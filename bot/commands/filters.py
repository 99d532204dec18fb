"""A chat's filters: /subscribe, /similar, /preview, /list, /unsubscribe, /topic, /export,
/import."""

from __future__ import annotations

from bot.commands.replies import NAMED_AT_MOST, Reply, Usage, bad_filter, echo, named, not_stored
from bot.core.buttons import recent_button, remove_button
from bot.core.categories import UnknownCategory
from bot.core.chat import Chat, Filter
from bot.core.query import FilterKind
from bot.core.render import MESSAGE_LIMIT, escape, fit, plural, size
from bot.core.starters import tune_button
from bot.core.topics import topic_name
from bot.service.app import (
    AlreadyFollowed,
    AtLimit,
    BadFilter,
    BadLine,
    Followed,
    ImportReport,
    NoSuchFilter,
    NotStored,
    OverLimit,
    Paperbot,
    RecentMatches,
    Subscribed,
)

LISTED_LENGTH = 70  # /list shows filters shortened, so that 50 fit in one message; /export not


async def subscribe(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    if not args:
        return Usage()
    result = await app.subscribe(chat, args)
    reply = subscribed(result)
    if chat.topic is not None and isinstance(result, Subscribed):
        reply.text += f"\nIts papers come to this topic ({topic_name(chat.topic)})."
    elif chat.topic is not None and isinstance(result, AlreadyFollowed):
        reply.text += f" <code>/topic {result.number}</code> here moves it to this topic."
    return reply


async def similar(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    if not args.strip():
        return Usage()
    return subscribed(await app.follow_similar(chat.id, args, chat.topic))


def subscribed(result: Followed) -> Reply:
    """What a new filter was understood as and would have matched, or why it was not saved."""
    match result:
        case BadFilter():
            return bad_filter(result)
        case NotStored(arxiv_ids):
            return Reply(not_stored(arxiv_ids, "/similar can use it"))
        case AlreadyFollowed(number, understood):
            return Reply(
                f"You already follow that, as filter {number}: <code>{escape(understood)}</code>."
            )
        case AtLimit(count, limit):
            return Reply(
                f"This chat has {plural(count, 'filter')}, the most it may keep is {limit}. "
                "Remove one first (/list), or join two with OR."
            )
        case Subscribed(number, understood, recent, filter_id):
            # a filter matches what arrives after it: its recent papers only when asked
            send = [[recent_button(filter_id, recent.count)]] if recent.count else []
            if number == 1 and recent.count >= 2:  # the chat's first: its ranking starts cold
                send.append([tune_button(filter_id, recent.count)])
            return Reply(
                f"Filter {number} saved, understood as <code>{escape(understood)}</code>.\n"
                + _matches_line(recent, "would have matched")
                + _categories_warning(result.unknown_categories),
                send,
            )


def _categories_warning(unknown: tuple[UnknownCategory, ...]) -> str:
    """A line for each cat: part of a filter that names no arXiv category."""
    lines = []
    for category in unknown:
        nearest = ", ".join(f"{code} ({escape(name)})" for code, name in category.nearest)
        lines.append(
            f"\n⚠ <code>{escape(category.written)}</code> names no arXiv category, so no paper "
            "has it." + (f" The nearest: {nearest}." if nearest else "")
        )
    return "".join(lines)


def _matches_line(recent: RecentMatches, verb: str) -> str:
    if not recent.count:
        return f"It {verb} nothing in the last {recent.days} announcement days."
    papers = "paper" if recent.count == 1 else "papers"
    lines = [
        f"It {verb} {recent.count} {papers} in the last {recent.days} announcement days, such as:"
    ]
    derived = " (headline derived from the abstract)"
    examples = [f"• {escape(t)}{derived if t in recent.derived else ''}" for t in recent.titles]
    return "\n".join(lines + examples)


async def preview(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    if not args:
        return Usage()
    result = await app.preview(chat, args)
    if isinstance(result, BadFilter):
        return bad_filter(result)
    if isinstance(result, NotStored):
        return Reply(not_stored(result.arxiv_ids, "/preview can use it"))
    return Reply(
        f"<code>{escape(result.canonical)}</code> (not saved; /subscribe saves it)\n"
        + _matches_line(result.recent, "matches")
        + _categories_warning(result.unknown_categories)
    )


async def list_(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return listed(app.filters(chat.id))


def listed(filters: list[Filter]) -> Reply:
    """The chat's filters, numbered, each with a remove button."""
    if not filters:
        return Reply('No filters yet. Add one with <code>/subscribe "kv cache"</code>.')
    # a remove button's answer replaces the list in its one message: as many filters as a
    # chat may keep fit there, each shortened more when there are many
    width = max(min(LISTED_LENGTH, (MESSAGE_LIMIT - 100) // len(filters) - 20), 10)
    topics = any(f.topic is not None for f in filters)  # a forum group's: each filter's topic
    lines = [
        f"{n}. {_listed(f, width)}" + (f" · {topic_name(f.topic)}" if topics else "")
        for n, f in enumerate(filters, 1)
    ]
    buttons = [[remove_button(f.id, n)] for n, f in enumerate(filters, 1)]
    return Reply("Your filters:\n" + "\n".join(lines), buttons)


def _listed(found: Filter, width: int) -> str:
    """A filter in /list: as written, and a "more like this" filter's seeds named."""
    line = f"<code>{fit(found.source, width)}</code>"
    if found.kind is FilterKind.LIKE:
        line += f": {fit(found.canonical, width)}"
    return line


def _numbers(args: str) -> list[int] | None:
    """'1 3', '1,3' -> [1, 3]; 'all' -> None (every filter); [] when unreadable."""
    if args.strip().lower() == "all":
        return None
    try:
        return [int(part) for part in args.replace(",", " ").split()]
    except ValueError:
        return []


async def unsubscribe(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    numbers = _numbers(args)
    if numbers == []:
        return Usage()
    result = app.unsubscribe(chat, numbers)
    if isinstance(result, NoSuchFilter):
        return Reply(
            f"There is no filter {result.number}: this chat has {result.count}. See /list."
        )
    if not result.removed:
        return Reply("There were no filters to remove.")
    if len(result.removed) > NAMED_AT_MOST:
        return Reply(f"Removed {plural(len(result.removed), 'filter')}.")
    return Reply(f"Removed {', '.join(map(removed, result.removed))}.")


async def topic(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    """/topic N: filter N's papers come to the forum topic the command is sent in; /topic N
    general: to General."""
    parts = args.lower().split()
    if not parts or len(parts) > 2 or not parts[0].isdigit() or parts[1:] not in ([], ["general"]):
        return Usage(hint="Send it inside the topic the filter's papers should go to.")
    if chat.kind != "supergroup" and chat.topic is None:
        return Reply(
            "Only forum groups have topics: here every paper comes to this chat. In a group "
            "with topics, send <code>/topic N</code> inside the topic filter N should post in."
        )
    where = None if parts[1:] else chat.topic
    result = app.move_filter(chat, int(parts[0]), where)
    if isinstance(result, NoSuchFilter):
        return Reply(
            f"There is no filter {result.number}: this chat has {result.count}. See /list."
        )
    return Reply(
        f"Filter {result.number} ({removed(result.filter)}) now posts in "
        f"{topic_name(result.topic)}; papers waiting for it go there too."
    )


def removed(found: Filter) -> str:
    return f"<code>{echo(found.source, LISTED_LENGTH)}</code>"


def _pre_blocks(lines: list[str], limit: int = 3000) -> list[str]:
    """Lines in <pre> blocks of at most `limit` characters, so a long reply splits between them."""
    groups: list[list[str]] = []
    for line in lines:  # measured escaped: a line of '&' is five times as long in a message
        if groups and size(escape("\n".join([*groups[-1], line]))) <= limit:
            groups[-1].append(line)
        else:
            groups.append([line])
    return ["<pre>" + escape("\n".join(group)) + "</pre>" for group in groups]


async def export_filters(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    found = app.export(chat)
    if not found.filters and not found.ratings and not found.votes:
        return Reply("No filters to export.")
    lines = [_exported(f) for f in found.filters] + found.ratings + found.votes
    text = "\n".join(_pre_blocks(lines))
    parts = [("filters", found.filters), ("ratings", found.ratings), ("votes", found.votes)]
    held = [name for name, lines in parts if lines]
    what = f"{', '.join(held[:-1])} and {held[-1]}" if len(held) > 1 else held[0]
    votes = (
        "; the members' votes are counted per paper in # lines, which /import passes over"
        if found.votes
        else ""
    )
    return Reply(f"Your {what}, one per line (send them back with /import{votes}):\n{text}")


def _exported(found: Filter) -> str:
    """A filter as /import takes it back: as written, a "more like this" filter's seeds named
    after a '#'."""
    if found.kind is FilterKind.LIKE:
        return f"{found.source}  # {found.canonical}"
    return found.source


async def import_lines(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    lines = [line.strip() for line in args.splitlines()]
    if not any(lines):
        return Usage(hint="A library can come as a file: Zotero's Export Collection, say.")

    return Reply(_imported(await app.import_lines(chat, lines)))


def _imported(report: ImportReport) -> str:
    ratings, result = report.ratings, report.filters
    text = f"Imported {plural(result.added, 'filter')}."
    missed = ratings.unknown + ratings.unreadable
    if ratings.rated or missed:
        text += f" {plural(len(ratings.rated), 'rating')} taken."
    if missed:
        text += f" Not seen here, so not rated: {named([echo(u, 30) for u in missed], 'ids')}."
    if result.already:
        text += f" {plural(result.already, 'line')} you follow already."
    if result.problems:
        count = len(result.problems)
        text += f" {plural(count, 'line')} not imported:\n"
        text += "\n".join(map(_import_problem, result.problems[:NAMED_AT_MOST]))
        if count > NAMED_AT_MOST:
            text += f"\n… and {count - NAMED_AT_MOST} more."
    return text


def _import_problem(problem: BadLine | OverLimit) -> str:
    if isinstance(problem, OverLimit):
        return f"line {problem.number}: not added, this chat is at its limit of {problem.limit}"
    return f"line {problem.number}: {escape(problem.message)}: <code>{echo(problem.source)}</code>"
