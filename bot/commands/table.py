"""The command table, and how a message reaches it: '/name args' read, the caller checked
(operators, a group's administrators), the chat registered, the handler run, a usage line
written where the arguments could not be read. /help lives here too: it lists the table."""

from __future__ import annotations

import dataclasses

from bot.commands.chat import start, stats, status_, stop
from bot.commands.delivery import digest, layout, mode, pause, resume, time_, timezone, updates
from bot.commands.filters import list_, preview, similar, subscribe, topic, unsubscribe
from bot.commands.followups import FOLLOWUPS_HELP, followups
from bot.commands.language import language
from bot.commands.library import export, import_, saved
from bot.commands.quiet import quiet
from bot.commands.ratings import dislike, like, top
from bot.commands.replies import Caller, Command, Reply, Usage, echo, tr, tr_caller
from bot.commands.tune import tune
from bot.core.chat import Chat
from bot.core.i18n import N_, Translator
from bot.core.render import escape
from bot.runtime import Runtime
from bot.service.app import Paperbot

SYNTAX = [
    N_("<b>Filters</b> (like arXiv search):"),
    N_("<code>diffusion models</code>: both words, in title or abstract"),
    N_('<code>"language model"</code>: the phrase (KV-cache = "kv cache")'),
    N_(
        "<code>distill*</code>: words starting with distill; <code>fine-tun*</code>: "
        "fine-tuning, fine-tuned"
    ),
    N_("<code>a OR b</code>, <code>a | b</code>: either"),
    N_("<code>-term</code>, <code>NOT term</code>: without it"),
    N_("<code>( ... )</code>: grouping"),
    N_(
        "<code>ti:</code> title, <code>abs:</code> abstract, <code>au:</code> author, "
        '<code>cat:</code> category (<code>ti:"graph neural"</code>, <code>au:Hassani</code>, '
        "<code>cat:cs.*</code>)"
    ),
    N_(
        "<code>mesh:</code> a PubMed MeSH term, <code>jr:</code> a journal (name or "
        "abbreviation), <code>src:</code> a source (arxiv, biorxiv, medrxiv, pubmed, journal)"
    ),
    N_(
        "For a biologist: <code>cat:biorxiv.neuroscience</code>, "
        '<code>mesh:"CRISPR-Cas Systems" -src:arxiv</code>, <code>au:"Reeder B"</code> '
        "(PubMed's way: finds Blaine Reeder and B. Reeder), "
        '<code>jr:"Nature Neuroscience"</code>'
    ),
    N_("Case, accents and plurals do not matter."),
]


async def help_(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    lines = [*map(t.gettext, SYNTAX), "", t.gettext("<b>Commands</b>")]
    for command in COMMANDS:
        if command.operators_only and not app.is_operator(chat.id):
            continue
        names = " ".join(f"/{n}" for n in (command.name, *command.aliases))
        arguments = f" {escape(command.usage)}" if command.usage else ""
        lines.append(f"{names}{arguments}: {escape(t.gettext(command.help))}")
    return Reply("\n".join(lines))


COMMANDS: list[Command] = [
    Command("start", "", N_("start, or come back after /stop or a block"), start),
    Command("help", "", N_("the filter syntax and these commands"), help_),
    Command("subscribe", "FILTER", N_("follow a filter"), subscribe, ("add",), manages=True),
    Command("list", "", N_("your filters, each with a remove button"), list_),
    Command(
        "unsubscribe",
        "N|all",
        N_("remove filter N (or all)"),
        unsubscribe,
        ("remove",),
        manages=True,
    ),
    Command(
        "topic",
        "N [general]",
        N_("forum groups: filter N posts in the topic this is sent in (or in General)"),
        topic,
        manages=True,
    ),
    Command("preview", "FILTER", N_("what a filter matches, without saving it"), preview),
    Command(
        "similar",
        "ARXIV_ID ...",
        N_("a filter for papers like these (more like this)"),
        similar,
        manages=True,
    ),
    Command(
        "mode",
        "instant|digest|weekly [DAY]",
        N_("each paper at once, a daily digest, or a weekly one (on Mondays, or DAY: fri)"),
        mode,
        manages=True,
        reads_alone=True,
    ),
    Command(
        "time",
        "HH:MM",
        N_("when the digest comes, daily or weekly"),
        time_,
        manages=True,
        reads_alone=True,
    ),
    Command(
        "timezone",
        "Area/City",
        N_("your time zone (or UTC)"),
        timezone,
        manages=True,
        reads_alone=True,
    ),
    Command(
        "quiet",
        "22:00-07:00|off|silent|hold",
        N_("quiet hours: alerts wait until they end (or come silently)"),
        quiet,
        manages=True,
        reads_alone=True,
    ),
    Command(
        "updates",
        "on|off",
        N_("also send new versions of papers"),
        updates,
        manages=True,
        reads_alone=True,
    ),
    Command("followups", "on|off", FOLLOWUPS_HELP, followups, manages=True, reads_alone=True),
    Command("digest", "", N_("send what is waiting now"), digest),
    Command("like", "ARXIV_ID ...", N_("👍: rank papers like these first"), like, manages=True),
    Command(
        "dislike", "ARXIV_ID ...", N_("👎: rank papers like these last"), dislike, manages=True
    ),
    Command("tune", "", N_("papers to 👍 or 👎, spread over your filters' topics"), tune),
    Command(
        "top", "[week|month]", N_("the papers with the most 👍 here this week (or month)"), top
    ),
    Command(
        "layout",
        "compact|full, abstracts N, page N",
        N_("digests and alerts at a glance or every card; abstracts shown; papers a page"),
        layout,
        manages=True,
        reads_alone=True,
    ),
    Command("pause", "", N_("hold all alerts"), pause, manages=True),
    Command("resume", "", N_("send alerts again"), resume, manages=True),
    Command("status", "", N_("settings, the last listing, what is waiting"), status_),
    Command("saved", "", N_("the papers you kept with 🔖, each removable"), saved),
    Command(
        "export",
        "[bib|ris|csv]",
        N_("your filters as lines; bib, ris, csv: your saved and 👍 papers as a file"),
        export,
    ),
    Command(
        "import",
        "LINES",
        N_(
            "add filters, one per line; or a library (BibTeX, RIS, CSL-JSON, arXiv ids; a file "
            "too), its papers as 👍"
        ),
        import_,
        manages=True,
    ),
    Command(
        "language",
        "[CODE]",
        N_("the language I write in here; alone: the choices"),
        language,
        manages=True,
        reads_alone=True,
    ),
    Command("stop", "", N_("forget this chat and everything about it"), stop, manages=True),
    Command("stats", "", N_("operators: counts of everything"), stats, operators_only=True),
]
COMMANDS_BY_NAME = {name: c for c in COMMANDS for name in (c.name, *c.aliases)}


def usage(t: Translator, command: Command, asked: Usage) -> Reply:
    """How to use a command, after the setting's current value, before a hint."""
    line = t.gettext("Usage: {syntax} ({help})").format(
        syntax=f"<code>/{command.name} {escape(command.usage)}</code>",
        help=t.gettext(command.help),
    )
    lines = [asked.now, line, asked.hint]
    return Reply("\n".join(part for part in lines if part))


def parse_command(text: str, bot_username: str | None = None) -> tuple[str, str] | None:
    """'/cmd@bot args' -> ('cmd', 'args'); None for plain text or a command for another bot.
    Only /import takes lines: for any other command, lines below it continue its arguments
    (a filter written on two lines is one filter, and stays one through /export)."""
    if not text.startswith("/"):
        return None
    first, _, more = text[1:].partition("\n")
    head, _, args = first.partition(" ")
    name, _, addressee = head.partition("@")
    if addressee and bot_username and addressee.lower() != bot_username.lower():
        return None
    name = name.lower()
    if more:
        args = f"{args}\n{more}" if name == "import" else " ".join([args, *more.splitlines()])
    return name, args.strip()


async def run_command(runtime: Runtime, caller: Caller, name: str, args: str) -> Reply:
    app = runtime.app
    command = COMMANDS_BY_NAME.get(name)
    if command is None or (command.operators_only and not app.is_operator(caller.chat_id)):
        return Reply(
            tr_caller(app, caller)
            .gettext("I do not know {command}. /help lists what I can do.")
            .format(command=f"/{echo(name, 40)}")
        )
    if command.changes(args) and not await caller.may_manage():
        return Reply(
            tr_caller(app, caller).gettext(
                "Only this group's administrators can change its filters and settings."
            )
        )
    chat = app.enter(caller.chat_id, caller.kind, caller.language_code)
    if caller.topic is not None:  # in a forum topic: where /subscribe and /topic put filters
        chat = dataclasses.replace(chat, topic=caller.topic)
    reply = await command.handler(app, chat, args)
    return reply if isinstance(reply, Reply) else usage(tr(chat), command, reply)


async def handle_text(
    runtime: Runtime, caller: Caller, text: str, bot_username: str | None = None
) -> Reply | None:
    """A message from a chat: a command's reply, a pointer to /help for plain text in a private
    chat, None when the message is not for us."""
    parsed = parse_command(text.strip(), bot_username)
    if parsed is None:
        if text.startswith("/") or caller.kind != "private":
            return None
        t = tr_caller(runtime.app, caller)
        return Reply(
            t.gettext("I understand commands. Try {example} or /help.").format(
                example='<code>/subscribe "kv cache"</code>'
            )
        )
    addressed = "@" in text.strip().split(maxsplit=1)[0]
    if parsed[0] not in COMMANDS_BY_NAME and caller.kind != "private" and not addressed:
        return None  # in a group, likely another bot's command
    return await run_command(runtime, caller, *parsed)
