"""The command table shared by Telegram and the console: a chat's command in, a reply out.

Adapters only carry text and buttons: they turn a message into `handle_text`, a button press
into `press_button`, and show the Reply (HTML text, rows of buttons).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from bot import service
from bot.app import Paperbot
from bot.core.matcher import matches
from bot.core.query import InvalidQuery, Node, canonical, parse_query
from bot.core.render import escape
from bot.core.schedule import find_timezone, next_due, parse_digest_time
from bot.core.summary import shorten
from bot.store import chats, deliveries, files, papers
from bot.store.chats import Chat

RECENT_DAYS = 7
SHOWN_TITLES = 3
LISTED_LENGTH = 70  # /list shows filters shortened, so that 50 fit in one message; /export not


@dataclass(frozen=True)
class Button:
    label: str
    data: str  # what press_button receives


@dataclass
class Reply:
    text: str  # Telegram HTML
    buttons: list[list[Button]] = field(default_factory=list)
    notice: bool = False  # to a button press: a short notice, the message stays as it is


@dataclass(frozen=True)
class Caller:
    """Who speaks: the chat, its kind, and (asked only when it matters) whether the person may
    change the chat's filters: always in a private chat, administrators only in groups."""

    chat_id: int
    kind: str = "private"
    is_admin: Callable[[], Awaitable[bool]] | None = None

    async def may_manage(self) -> bool:
        return self.kind == "private" or self.is_admin is None or await self.is_admin()


Handler = Callable[[Paperbot, Chat, str], Awaitable[Reply]]


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    help: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    manages: bool = False  # changes the chat: administrators only in groups
    operators_only: bool = False


def usage(command: str) -> Reply:
    found = COMMANDS_BY_NAME[command]
    return Reply(f"Usage: <code>/{found.name} {escape(found.usage)}</code> ({found.help})")


def _now(bot: Paperbot) -> datetime:
    return bot.clock()


def _bad_filter(source: str, error: InvalidQuery) -> Reply:
    text = f"That filter does not work: {escape(str(error))}."
    if error.position is not None:
        pointer = " " * error.position + "^"
        text += f"\n<code>{escape(source)}\n{pointer}</code>"
    return Reply(text + "\n/help shows the syntax with examples.")


def _recent_matches(bot: Paperbot, query: Node) -> tuple[int, list[str]]:
    with bot.database.session() as session:
        recent = papers.recent_papers(session, announcement_days=RECENT_DAYS)
    titles = [paper.title for _, paper in recent if matches(query, paper)]
    return len(titles), titles[:SHOWN_TITLES]


def _matches_line(count: int, titles: list[str], verb: str) -> str:
    if not count:
        return f"It {verb} nothing in the last {RECENT_DAYS} announcement days."
    plural = "paper" if count == 1 else "papers"
    lines = [f"It {verb} {count} {plural} in the last {RECENT_DAYS} announcement days, such as:"]
    return "\n".join(lines + [f"• {escape(t)}" for t in titles])


# -- the commands ------------------------------------------------------------------------------


async def start(bot: Paperbot, chat: Chat, args: str) -> Reply:
    return Reply(
        "Hello! I tell you about new papers that match your filters.\n\n"
        'Add a filter with <code>/subscribe "kv cache"</code> (try <code>/preview</code> first), '
        "see them with /list. You get one digest a day at "
        f"{chat.digest_time} ({escape(chat.timezone)}); /mode instant sends each paper at once, "
        "/time and /timezone move the digest. /help has the filter syntax."
    )


async def help_(bot: Paperbot, chat: Chat, args: str) -> Reply:
    lines = [
        "<b>Filters</b> (like arXiv search):",
        "<code>diffusion models</code>: both words, in title or abstract",
        '<code>"language model"</code>: the phrase (KV-cache = "kv cache")',
        "<code>distill*</code>: words starting with distill",
        "<code>a OR b</code>, <code>a | b</code>: either",
        "<code>-term</code>, <code>NOT term</code>: without it",
        "<code>( ... )</code>: grouping",
        "<code>ti:</code> <code>abs:</code> <code>au:</code> <code>cat:</code>: title, abstract, "
        'author, category (<code>ti:"graph neural"</code>, <code>au:Hassani</code>, '
        "<code>cat:cs.*</code>)",
        "Case, accents and plurals do not matter.",
        "",
        "<b>Commands</b>",
    ]
    for command in COMMANDS:
        if command.operators_only and chat.id not in bot.settings.admin.chat_ids:
            continue
        names = " ".join(f"/{n}" for n in (command.name, *command.aliases))
        arguments = f" {escape(command.usage)}" if command.usage else ""
        lines.append(f"{names}{arguments}: {escape(command.help)}")
    return Reply("\n".join(lines))


def _read_filter(bot: Paperbot, command: str, args: str) -> Node | Reply:
    """The filter a command was given, or the reply that says what is wrong with it."""
    if not args:
        return usage(command)
    try:
        return parse_query(args, bot.settings.filters.limits)
    except InvalidQuery as error:
        return _bad_filter(args, error)


async def subscribe(bot: Paperbot, chat: Chat, args: str) -> Reply:
    query = _read_filter(bot, "subscribe", args)
    if isinstance(query, Reply):
        return query
    understood = canonical(query)
    with bot.database.session() as session:
        existing = chats.chat_filters(session, chat_id=chat.id)
        for number, stored in enumerate(existing, 1):
            if stored.canonical == understood:
                return Reply(
                    f"You already follow that, as filter {number}: "
                    f"<code>{escape(understood)}</code>."
                )
        limit = bot.settings.filters.max_per_chat
        if len(existing) >= limit:
            return Reply(
                f"This chat has {len(existing)} filters, the most it may keep is {limit}. "
                "Remove one first (/list), or join two with OR."
            )
        chats.add_filter(session, chat_id=chat.id, source=args, canonical=understood, now=_now(bot))
    count, titles = _recent_matches(bot, query)
    return Reply(
        f"Filter {len(existing) + 1} saved, understood as <code>{escape(understood)}</code>.\n"
        + _matches_line(count, titles, "would have matched")
    )


async def preview(bot: Paperbot, chat: Chat, args: str) -> Reply:
    query = _read_filter(bot, "preview", args)
    if isinstance(query, Reply):
        return query
    count, titles = _recent_matches(bot, query)
    return Reply(
        f"<code>{escape(canonical(query))}</code> (not saved; /subscribe saves it)\n"
        + _matches_line(count, titles, "matches")
    )


def _list_reply(chat_id: int, bot: Paperbot) -> Reply:
    with bot.database.session() as session:
        listed = chats.chat_filters(session, chat_id=chat_id)
    if not listed:
        return Reply('No filters yet. Add one with <code>/subscribe "kv cache"</code>.')
    lines = [
        f"{n}. <code>{escape(shorten(f.canonical, LISTED_LENGTH))}</code>"
        for n, f in enumerate(listed, 1)
    ]
    buttons = [[Button(f"Remove {n}", f"remove:{f.id}")] for n, f in enumerate(listed, 1)]
    return Reply("Your filters:\n" + "\n".join(lines), buttons)


async def list_(bot: Paperbot, chat: Chat, args: str) -> Reply:
    return _list_reply(chat.id, bot)


async def unsubscribe(bot: Paperbot, chat: Chat, args: str) -> Reply:
    with bot.database.session() as session:
        listed = chats.chat_filters(session, chat_id=chat.id)
        if args.strip().lower() == "all":
            chosen = list(range(1, len(listed) + 1))
        else:
            try:
                chosen = sorted({int(part) for part in args.replace(",", " ").split()})
            except ValueError:
                chosen = []
            if not chosen:
                return usage("unsubscribe")
        wrong = [n for n in chosen if not 1 <= n <= len(listed)]
        if wrong:
            return Reply(f"There is no filter {wrong[0]}: this chat has {len(listed)}. See /list.")
        chats.remove_filters(
            session, chat_id=chat.id, filter_ids=[listed[n - 1].id for n in chosen]
        )
    removed = ", ".join(f"<code>{escape(listed[n - 1].canonical)}</code>" for n in chosen)
    return Reply(f"Removed {removed}." if chosen else "There were no filters to remove.")


def _setting(bot: Paperbot, chat: Chat, **values: object) -> Chat:
    with bot.database.session() as session:
        return chats.update_chat(session, chat_id=chat.id, **values)


def _next_digest(bot: Paperbot, chat: Chat) -> str:
    due = next_due(_now(bot), chat.digest_time, chat.timezone)
    return f"{due.astimezone(ZoneInfo(chat.timezone)):%a %-d %b %H:%M} ({chat.timezone})"


async def mode(bot: Paperbot, chat: Chat, args: str) -> Reply:
    choice = args.strip().lower()
    if choice not in ("instant", "digest"):
        return usage("mode")
    chat = _setting(bot, chat, mode=choice)
    if choice == "instant":
        return Reply("Instant: each matching paper comes as soon as its listing arrives.")
    return Reply(f"Digest: one message a day; the next at {_next_digest(bot, chat)}.")


async def time_(bot: Paperbot, chat: Chat, args: str) -> Reply:
    chosen = parse_digest_time(args)
    if chosen is None:
        return usage("time")
    chat = _setting(bot, chat, digest_time=chosen)
    note = "" if chat.mode == "digest" else " (used in digest mode: /mode digest)"
    return Reply(f"Digest time set to {chosen}; the next at {_next_digest(bot, chat)}{note}.")


async def timezone(bot: Paperbot, chat: Chat, args: str) -> Reply:
    if not args.strip():
        return usage("timezone")
    zone = find_timezone(args)
    if zone is None:
        return Reply(
            f"I do not know the time zone <code>{escape(args.strip())}</code>. Write it as "
            "Area/City, like <code>Europe/Berlin</code> or <code>America/New_York</code>, or UTC."
        )
    chat = _setting(bot, chat, timezone=zone)
    return Reply(f"Time zone set to {zone}; the next digest at {_next_digest(bot, chat)}.")


async def updates(bot: Paperbot, chat: Chat, args: str) -> Reply:
    choice = args.strip().lower()
    if choice not in ("on", "off"):
        return usage("updates")
    _setting(bot, chat, updates=choice == "on")
    if choice == "on":
        return Reply("Updates on: new versions of matching papers come too, marked as updates.")
    return Reply("Updates off: each paper comes once, new versions are not sent.")


def _waiting(bot: Paperbot, chat: Chat) -> int:
    with bot.database.session() as session:
        return deliveries.unfinished(deliveries.count_deliveries(session, chat_id=chat.id))


async def digest(bot: Paperbot, chat: Chat, args: str) -> Reply:
    if chat.paused:
        return Reply("Alerts are paused; /resume first.")
    if not _waiting(bot, chat):
        return Reply("Nothing is waiting for you right now.")
    report = await bot.postman.send_digest(chat)
    if report.waiting:
        return Reply("Telegram is not taking messages right now; the rest follows shortly.")
    return Reply(f"That was everything waiting: {report.sent} papers.")


async def pause(bot: Paperbot, chat: Chat, args: str) -> Reply:
    _setting(bot, chat, paused=True)
    return Reply("Paused. Matching papers are kept for you; /resume sends them.")


async def resume(bot: Paperbot, chat: Chat, args: str) -> Reply:
    _setting(bot, chat, paused=False)
    when = "with the next delivery" if chat.mode == "instant" else f"at {_next_digest(bot, chat)}"
    return Reply(f"Resumed. What was kept comes {when}.")


async def status(bot: Paperbot, chat: Chat, args: str) -> Reply:
    with bot.database.session() as session:
        count = len(chats.chat_filters(session, chat_id=chat.id))
        last = files.last_file(session)
        announced = papers.last_announcement(session)
        arrived = papers.count_papers_since(session, since=chat.last_digest_at)
    lines = [
        f"Filters: {count} (/list)",
        f"Mode: {chat.mode}" + (f", digest at {chat.digest_time}" if chat.mode == "digest" else ""),
        f"Time zone: {chat.timezone}",
        f"Updates: {'on' if chat.updates else 'off'}"
        + ("; PAUSED (/resume)" if chat.paused else ""),
        f"Waiting for you: {_waiting(bot, chat)} papers",
    ]
    if chat.mode == "digest" and not chat.paused:
        lines.append(f"Next digest: {_next_digest(bot, chat)}")
    if arrived:
        lines.append(f"Since the last digest: {arrived} new papers arrived")
    else:
        lines.append("Since the last digest: no announcement (no new listing)")
    if last is None:
        lines.append("No listing has arrived yet.")
    else:
        seen = last.seen_at.astimezone(ZoneInfo(chat.timezone))
        day = f", announced {announced:%-d %b %Y}" if announced else ""
        lines.append(
            f"Last listing: {escape(last.path.rsplit('/', 1)[-1])}, seen {seen:%-d %b %H:%M}{day}"
        )
    return Reply("\n".join(lines))


def _pre_blocks(lines: list[str], limit: int = 3000) -> list[str]:
    """Lines in <pre> blocks of at most `limit` characters, so a long reply splits between them."""
    groups: list[list[str]] = []
    for line in lines:
        if groups and len("\n".join([*groups[-1], line])) <= limit:
            groups[-1].append(line)
        else:
            groups.append([line])
    return ["<pre>" + escape("\n".join(group)) + "</pre>" for group in groups]


async def export(bot: Paperbot, chat: Chat, args: str) -> Reply:
    with bot.database.session() as session:
        listed = chats.chat_filters(session, chat_id=chat.id)
    if not listed:
        return Reply("No filters to export.")
    text = "\n".join(_pre_blocks([f.source for f in listed]))
    return Reply(f"Your filters, one per line (send them back with /import):\n{text}")


async def import_(bot: Paperbot, chat: Chat, args: str) -> Reply:
    lines = [line.strip() for line in args.splitlines()]
    if not any(lines):
        return usage("import")
    added, problems = 0, []
    with bot.database.session() as session:
        known = {f.canonical for f in chats.chat_filters(session, chat_id=chat.id)}
        limit = bot.settings.filters.max_per_chat
        for number, line in enumerate(lines, 1):
            if not line or line.startswith("#"):
                continue
            try:
                understood = canonical(parse_query(line, bot.settings.filters.limits))
            except InvalidQuery as error:
                problems.append(f"line {number}: {escape(str(error))}: <code>{escape(line)}</code>")
                continue
            if understood in known:
                continue
            if len(known) >= limit:
                problems.append(f"line {number}: not added, this chat is at its limit of {limit}")
                continue
            chats.add_filter(
                session, chat_id=chat.id, source=line, canonical=understood, now=_now(bot)
            )
            known.add(understood)
            added += 1
    text = f"Imported {added} filter{'s' if added != 1 else ''}."
    if problems:
        text += f" {len(problems)} line{'s' if len(problems) != 1 else ''} not imported:\n"
        text += "\n".join(problems)
    return Reply(text)


async def stop(bot: Paperbot, chat: Chat, args: str) -> Reply:
    return Reply(
        "Forget this chat? Its filters, settings and waiting papers are deleted for good.",
        [[Button("Yes, forget everything", "stop:yes"), Button("Cancel", "stop:no")]],
    )


async def stats(bot: Paperbot, chat: Chat, args: str) -> Reply:
    status = service.store_status(bot.database)

    def counts(values: dict[str, int]) -> str:
        return ", ".join(f"{n} {name}" for name, n in sorted(values.items())) or "none"

    return Reply(
        f"Chats: {counts(status.chats)}\n"
        f"Filters: {status.filters} ({len(bot.filters.owner)} indexed)\n"
        f"Papers: {status.papers}\nListing files: {counts(status.files)}\n"
        f"Deliveries: {counts(status.deliveries)}"
    )


COMMANDS: list[Command] = [
    Command("start", "", "start, or come back after /stop or a block", start),
    Command("help", "", "the filter syntax and these commands", help_),
    Command("subscribe", "FILTER", "follow a filter", subscribe, ("add",), manages=True),
    Command("list", "", "your filters, each with a remove button", list_),
    Command(
        "unsubscribe", "N|all", "remove filter N (or all)", unsubscribe, ("remove",), manages=True
    ),
    Command("preview", "FILTER", "what a filter matches, without saving it", preview),
    Command("mode", "instant|digest", "each paper at once, or a daily digest", mode, manages=True),
    Command("time", "HH:MM", "when the daily digest comes", time_, manages=True),
    Command("timezone", "Area/City", "your time zone (or UTC)", timezone, manages=True),
    Command("updates", "on|off", "also send new versions of papers", updates, manages=True),
    Command("digest", "", "send what is waiting now", digest),
    Command("pause", "", "hold all alerts", pause, manages=True),
    Command("resume", "", "send alerts again", resume, manages=True),
    Command("status", "", "settings, the last listing, what is waiting", status),
    Command("export", "", "your filters as lines", export),
    Command("import", "LINES", "add filters, one per line", import_, manages=True),
    Command("stop", "", "forget this chat and everything about it", stop, manages=True),
    Command("stats", "", "operators: counts of everything", stats, operators_only=True),
]
COMMANDS_BY_NAME = {name: c for c in COMMANDS for name in (c.name, *c.aliases)}


def parse_command(text: str, bot_username: str | None = None) -> tuple[str, str] | None:
    """'/cmd@bot args' -> ('cmd', 'args'); None for plain text or a command for another bot."""
    if not text.startswith("/"):
        return None
    first, _, more = text[1:].partition("\n")  # /import takes its lines below the command
    head, _, args = first.partition(" ")
    args = f"{args}\n{more}" if more else args
    name, _, addressee = head.partition("@")
    if addressee and bot_username and addressee.lower() != bot_username.lower():
        return None
    return name.lower(), args.strip()


async def run_command(bot: Paperbot, caller: Caller, name: str, args: str) -> Reply:
    command = COMMANDS_BY_NAME.get(name)
    if command is None or (
        command.operators_only and caller.chat_id not in bot.settings.admin.chat_ids
    ):
        return Reply(f"I do not know /{escape(name)}. /help lists what I can do.")
    if command.manages and not await caller.may_manage():
        return Reply("Only this group's administrators can change its filters and settings.")
    with bot.database.session() as session:
        chat = chats.register_chat(session, chat_id=caller.chat_id, kind=caller.kind, now=_now(bot))
    return await command.handler(bot, chat, args)


async def handle_text(
    bot: Paperbot, caller: Caller, text: str, bot_username: str | None = None
) -> Reply | None:
    """A message from a chat: a command's reply, a pointer to /help for plain text in a private
    chat, None when the message is not for us."""
    parsed = parse_command(text.strip(), bot_username)
    if parsed is None:
        if text.startswith("/") or caller.kind != "private":
            return None
        return Reply('I understand commands. Try <code>/subscribe "kv cache"</code> or /help.')
    addressed = "@" in text.strip().split(maxsplit=1)[0]
    if parsed[0] not in COMMANDS_BY_NAME and caller.kind != "private" and not addressed:
        return None  # in a group, likely another bot's command
    return await run_command(bot, caller, *parsed)


async def press_button(bot: Paperbot, caller: Caller, data: str) -> Reply:
    """A button under one of our replies was pressed; the reply replaces that message."""
    action, _, value = data.partition(":")
    if not await caller.may_manage():
        return Reply("Only the group's administrators can change its filters.", notice=True)
    if action == "remove" and value.isdigit():
        with bot.database.session() as session:
            removed = chats.remove_filters(session, chat_id=caller.chat_id, filter_ids=[int(value)])
        reply = _list_reply(caller.chat_id, bot)
        reply.text = ("Removed.\n" if removed else "Already removed.\n") + reply.text
        return reply
    if action == "stop" and value == "yes":
        with bot.database.session() as session:
            chats.forget_chat(session, chat_id=caller.chat_id)
        return Reply("Forgotten: no filters, no settings, nothing waiting. /start begins again.")
    if action == "stop":
        return Reply("Nothing was deleted.")
    return Reply("That button is out of date; try the command again.")
