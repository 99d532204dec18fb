"""A chat's filters: /subscribe, /similar, /preview, /list, /unsubscribe, /topic, /export,
/import."""

from __future__ import annotations

from bot.commands.replies import (
    NAMED_AT_MOST,
    Reply,
    Usage,
    bad_filter,
    echo,
    named,
    not_stored,
    tr,
)
from bot.core.buttons import recent_button, remove_button
from bot.core.categories import UnknownCategory
from bot.core.chat import Chat, Filter
from bot.core.i18n import N_, Translator
from bot.core.query import FilterKind, kind_of
from bot.core.render import MESSAGE_LIMIT, escape, filter_name, fit, size
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
    t = tr(chat)
    result = await app.subscribe(chat, args)
    reply = subscribed(t, result)
    if chat.topic is not None and isinstance(result, Subscribed):
        here = t.gettext("Its papers come to this topic ({topic}).")
        reply.text += "\n" + here.format(topic=topic_name(chat.topic, t=t))
    elif chat.topic is not None and isinstance(result, AlreadyFollowed):
        move = t.gettext("{command} here moves it to this topic.")
        reply.text += " " + move.format(command=f"<code>/topic {result.number}</code>")
    return reply


async def similar(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    if not args.strip():
        return Usage()
    followed = await app.follow_similar(chat.id, args, chat.topic)
    return subscribed(tr(chat), followed)


def subscribed(t: Translator, result: Followed) -> Reply:
    """What a new filter was understood as and would have matched, or why it was not saved."""
    match result:
        case BadFilter():
            return bad_filter(t, result)
        case NotStored(arxiv_ids):
            return Reply(not_stored(t, arxiv_ids, t.gettext("/similar can use it")))
        case AlreadyFollowed(number, understood, kind):
            text = t.gettext("You already follow that, as filter {number}: {filter}.")
            shown = escape(filter_name(understood, kind, t))
            return Reply(text.format(number=number, filter=f"<code>{shown}</code>"))
        case AtLimit(count, limit):
            text = t.ngettext(
                "This chat has {count} filter, the most it may keep is {limit}. "
                "Remove one first (/list), or join two with OR.",
                "This chat has {count} filters, the most it may keep is {limit}. "
                "Remove one first (/list), or join two with OR.",
                count,
            )
            return Reply(text.format(count=t.number(count), limit=t.number(limit)))
        case Subscribed(number, understood, recent, filter_id, kind=kind):
            # a filter matches what arrives after it: its recent papers only when asked
            send = [[recent_button(filter_id, recent.count, t=t)]] if recent.count else []
            if number == 1 and recent.count >= 2:  # the chat's first: its ranking starts cold
                send.append([tune_button(filter_id, recent.count, t=t)])
            saved = t.gettext("Filter {number} saved, understood as {filter}.").format(
                number=number, filter=f"<code>{escape(filter_name(understood, kind, t))}</code>"
            )
            return Reply(
                saved
                + "\n"
                + _matches_line(t, recent, saved=True)
                + _categories_warning(t, result.unknown_categories),
                send,
            )


def _categories_warning(t: Translator, unknown: tuple[UnknownCategory, ...]) -> str:
    """A line for each cat: part of a filter that names no arXiv category (the categories'
    names are arXiv's own, in English)."""
    lines = []
    for category in unknown:
        written = f"<code>{escape(category.written)}</code>"
        nearest = ", ".join(f"{code} ({escape(name)})" for code, name in category.nearest)
        if nearest:
            warning = t.gettext(
                "⚠ {category} names no arXiv category, so no paper has it. The nearest: {nearest}."
            )
        else:
            warning = t.gettext("⚠ {category} names no arXiv category, so no paper has it.")
        lines.append("\n" + warning.format(category=written, nearest=nearest))
    return "".join(lines)


def _matches_line(t: Translator, recent: RecentMatches, saved: bool) -> str:
    """What a filter matches in the last days (`saved`: would have matched, before it was)."""
    days, count = t.number(recent.days), t.number(recent.count)
    if not recent.count:
        if saved:
            text = t.gettext("It would have matched nothing in the last {days} announcement days.")
        else:
            text = t.gettext("It matches nothing in the last {days} announcement days.")
        return text.format(days=days)
    if saved:
        head = t.ngettext(
            "It would have matched {count} paper in the last {days} announcement days, such as:",
            "It would have matched {count} papers in the last {days} announcement days, such as:",
            recent.count,
        )
    else:
        head = t.ngettext(
            "It matches {count} paper in the last {days} announcement days, such as:",
            "It matches {count} papers in the last {days} announcement days, such as:",
            recent.count,
        )
    derived = t.gettext("• {title} (headline derived from the abstract)")
    examples = [
        (derived if title in recent.derived else "• {title}").format(title=escape(title))
        for title in recent.titles
    ]
    return "\n".join([head.format(count=count, days=days), *examples])


async def preview(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    if not args:
        return Usage()
    t = tr(chat)
    result = await app.preview(chat, args)
    if isinstance(result, BadFilter):
        return bad_filter(t, result)
    if isinstance(result, NotStored):
        return Reply(not_stored(t, result.arxiv_ids, t.gettext("/preview can use it")))
    understood = t.gettext("{filter} (not saved; /subscribe saves it)")
    shown = escape(filter_name(result.canonical, kind_of(args), t))
    return Reply(
        understood.format(filter=f"<code>{shown}</code>")
        + "\n"
        + _matches_line(t, result.recent, saved=False)
        + _categories_warning(t, result.unknown_categories)
    )


async def list_(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return listed(tr(chat), app.filters(chat.id))


def listed(t: Translator, filters: list[Filter]) -> Reply:
    """The chat's filters, numbered, each with a remove button."""
    if not filters:
        return Reply(t.gettext('No filters yet. Add one with <code>/subscribe "kv cache"</code>.'))
    # a remove button's answer replaces the list in its one message: as many filters as a
    # chat may keep fit there, each shortened more when there are many
    width = max(min(LISTED_LENGTH, (MESSAGE_LIMIT - 100) // len(filters) - 20), 10)
    topics = any(f.topic is not None for f in filters)  # a forum group's: each filter's topic
    lines = [
        f"{n}. {_listed(f, width, t)}" + (f" · {topic_name(f.topic, t=t)}" if topics else "")
        for n, f in enumerate(filters, 1)
    ]
    buttons = [[remove_button(f.id, n, t=t)] for n, f in enumerate(filters, 1)]
    return Reply(t.gettext("Your filters:") + "\n" + "\n".join(lines), buttons)


def _listed(found: Filter, width: int, t: Translator) -> str:
    """A filter in /list: as written, and a "more like this" filter's seeds named."""
    line = f"<code>{fit(found.source, width)}</code>"
    if found.kind is FilterKind.LIKE:
        line += f": {fit(filter_name(found.canonical, found.kind, t), width)}"
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
    t = tr(chat)
    result = app.unsubscribe(chat, numbers)
    if isinstance(result, NoSuchFilter):
        return Reply(no_such_filter(t, result))
    if not result.removed:
        return Reply(t.gettext("There were no filters to remove."))
    count = len(result.removed)
    if count > NAMED_AT_MOST:
        text = t.ngettext("Removed {count} filter.", "Removed {count} filters.", count)
        return Reply(text.format(count=t.number(count)))
    gone = ", ".join(map(removed, result.removed))
    return Reply(t.gettext("Removed {filters}.").format(filters=gone))


def no_such_filter(t: Translator, missing: NoSuchFilter) -> str:
    text = t.gettext("There is no filter {number}: this chat has {count}. See /list.")
    return text.format(number=missing.number, count=t.number(missing.count))


async def topic(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    """/topic N: filter N's papers come to the forum topic the command is sent in; /topic N
    general: to General."""
    t = tr(chat)
    parts = args.lower().split()
    if not parts or len(parts) > 2 or not parts[0].isdigit() or parts[1:] not in ([], ["general"]):
        return Usage(hint=t.gettext("Send it inside the topic the filter's papers should go to."))
    if chat.kind != "supergroup" and chat.topic is None:
        return Reply(
            t.gettext(
                "Only forum groups have topics: here every paper comes to this chat. In a group "
                "with topics, send <code>/topic N</code> inside the topic filter N should post in."
            )
        )
    where = None if parts[1:] else chat.topic
    result = app.move_filter(chat, int(parts[0]), where)
    if isinstance(result, NoSuchFilter):
        return Reply(no_such_filter(t, result))
    moved = t.gettext(
        "Filter {number} ({filter}) now posts in {topic}; papers waiting for it go there too."
    )
    return Reply(
        moved.format(
            number=result.number, filter=removed(result.filter), topic=topic_name(result.topic, t=t)
        )
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
    t = tr(chat)
    found = app.export(chat)
    if not found.filters and not found.ratings and not found.votes:
        return Reply(t.gettext("No filters to export."))
    lines = [_exported(f, t) for f in found.filters] + found.ratings + found.votes
    text = "\n".join(_pre_blocks(lines))
    parts = [(FILTERS, found.filters), (RATINGS, found.ratings), (VOTES, found.votes)]
    held = [t.gettext(name) for name, lines in parts if lines]
    what = t.join(held)
    if found.votes:
        head = t.gettext(
            "Your {what}, one per line (send them back with /import; the members' votes are "
            "counted per paper in # lines, which /import passes over):"
        )
    else:
        head = t.gettext("Your {what}, one per line (send them back with /import):")
    return Reply(head.format(what=what) + "\n" + text)


# what /export lists, named in its reply
FILTERS, RATINGS, VOTES = N_("filters"), N_("ratings"), N_("votes")


def _exported(found: Filter, t: Translator) -> str:
    """A filter as /import takes it back: as written, a "more like this" filter's seeds named
    after a '#' (a comment: in the reader's words)."""
    if found.kind is FilterKind.LIKE:
        return f"{found.source}  # {filter_name(found.canonical, found.kind, t)}"
    return found.source


async def import_lines(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    lines = [line.strip() for line in args.splitlines()]
    if not any(lines):
        return Usage(
            hint=t.gettext("A library can come as a file: Zotero's Export Collection, say.")
        )

    return Reply(_imported(t, await app.import_lines(chat, lines)))


def _imported(t: Translator, report: ImportReport) -> str:
    ratings, result = report.ratings, report.filters

    def counted(phrase: str, n: int) -> str:
        return phrase.format(count=t.number(n))

    added = result.added
    parts = [
        counted(t.ngettext("Imported {count} filter.", "Imported {count} filters.", added), added)
    ]
    missed = ratings.unknown + ratings.unreadable
    if ratings.rated or missed:
        rated = len(ratings.rated)
        parts.append(
            counted(t.ngettext("{count} rating taken.", "{count} ratings taken.", rated), rated)
        )
    if missed:
        ids = named(t, [echo(u, 30) for u in missed], ids=True)
        parts.append(t.gettext("Not seen here, so not rated: {ids}.").format(ids=ids))
    if result.already:
        already = t.ngettext(
            "{count} line you follow already.", "{count} lines you follow already.", result.already
        )
        parts.append(counted(already, result.already))
    text = " ".join(parts)
    if result.problems:
        count = len(result.problems)
        problems = t.ngettext("{count} line not imported:", "{count} lines not imported:", count)
        text += " " + counted(problems, count)
        text += "\n" + "\n".join(_import_problem(t, p) for p in result.problems[:NAMED_AT_MOST])
        if count > NAMED_AT_MOST:
            text += "\n" + counted(t.gettext("… and {count} more."), count - NAMED_AT_MOST)
    return text


def _import_problem(t: Translator, problem: BadLine | OverLimit) -> str:
    if isinstance(problem, OverLimit):
        text = t.gettext("line {number}: not added, this chat is at its limit of {limit}")
        return text.format(number=problem.number, limit=t.number(problem.limit))
    text = t.gettext("line {number}: {problem}: {line}")
    return text.format(
        number=problem.number,
        problem=escape(problem.problem.text(t)),
        line=f"<code>{echo(problem.source)}</code>",
    )
