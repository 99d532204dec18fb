"""A chat's library: /import of a BibTeX, RIS or CSL-JSON export or a list of arXiv ids (lines
below the command, or a file sent to the bot), /saved, /export bib|ris|csv, and the buttons
under an import's reply and under /saved."""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable

from bot.commands.filters import export_filters, import_lines, subscribed
from bot.commands.replies import NAMED_AT_MOST, OUT_OF_DATE, Caller, Document, Reply, Usage
from bot.core.buttons import (
    FollowImport,
    SavePaper,
    ShowSaved,
    Unsave,
    import_buttons,
    saved_page_button,
    unsave_button,
)
from bot.core.chat import Chat
from bot.core.library import detect_format
from bot.core.library import too_large as library_too_large
from bot.core.render import LINK_MAX, escape, fit, plural, short_authors
from bot.core.summary import shorten
from bot.runtime import Runtime
from bot.service.app import (
    EXPORTERS,
    SAVED_PAGE,
    LibraryImported,
    Paperbot,
    SavedPage,
    Unreadable,
)

SAVED_TITLE = 90  # characters of a title in /saved


async def import_(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    """/import: a library pasted below the command (or arXiv ids one per line), else filter
    and rating lines as /export writes them."""
    if detect_format(args) is None:
        return await import_lines(app, chat, args)
    return imported_library(await app.import_library(chat, args))


async def export(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    """/export: the filters and ratings as lines; /export bib|ris|csv: a file."""
    if not args.strip():
        return await export_filters(app, chat, args)
    return export_file(app, chat, args.strip())


async def import_file(
    runtime: Runtime, caller: Caller, size: int | None, read: Callable[[], Awaitable[bytes]]
) -> Reply:
    """A file sent to the bot, `read` by the edge (Telegram's getFile, the console's path) once
    the sender may import and its `size` (when the edge knows it) is within a library's: a
    library, or a clear no and nothing changed."""
    if not await caller.may_manage():
        return Reply("Only this group's administrators can import a library.")
    refused = library_too_large(size or 0)
    if refused is not None:
        return imported_library(refused)
    app = runtime.app
    data = await read()  # its size checked again: an edge may not know it beforehand
    return imported_library(await app.import_file(app.enter(caller.chat_id, caller.kind), data))


def imported_library(result: LibraryImported | Unreadable) -> Reply:
    if isinstance(result, Unreadable):
        return Reply(f"Nothing imported: {escape(result.message)}.")
    entries = plural(result.read, "entry", "entries")
    lines = [f"Read {entries} ({result.format})."]
    recognised = len(result.recognised)
    if recognised:
        lines.append(f"👍 {plural(recognised, 'paper')} I know, now rated 👍.")
    if result.used:
        lines.append(
            f"📚 {plural(result.used, 'paper')} not in my database, kept to learn your taste "
            "from (never sent)."
        )
    if result.unused:
        lines.append(
            f"{plural(result.unused, 'entry', 'entries')} neither known here nor with an "
            "abstract to learn from: not used."
        )
    if result.bad:
        count = len(result.bad)
        lines.append(f"{plural(count, 'entry', 'entries')} could not be read:")
        lines += [f"• {escape(b.where)}: {escape(b.message)}" for b in result.bad[:NAMED_AT_MOST]]
        if count > NAMED_AT_MOST:
            lines.append(f"… and {count - NAMED_AT_MOST} more.")
    if result.seeds or result.authors:
        lines.append("Follow what this library is about:")
    buttons = import_buttons(result.import_id, len(result.seeds), result.authors)
    return Reply("\n".join(lines), buttons)


async def follow_import(app: Paperbot, caller: Caller, press: FollowImport) -> Reply:
    followed = await app.follow_import(caller.chat_id, press.import_id, press.author)
    if followed is None:
        return Reply(OUT_OF_DATE, notice=True)
    reply = subscribed(followed)  # a message of its own: the import's reply stays as it is
    await app.send_text(caller.chat_id, reply.text, reply.buttons)
    return Reply("", notice=True)


# -- saved papers ------------------------------------------------------------------------------


async def saved(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return saved_list(app.saved(chat.id))


def saved_list(page: SavedPage) -> Reply:
    """A page of the saved papers, the last saved first, each with a remove button."""
    if not page.total:
        return Reply("No saved papers yet: 🔖 under a paper keeps it here.")
    first = page.page * SAVED_PAGE + 1
    heading = f"Saved papers: {page.total}, the last saved first"
    if page.pages > 1:
        heading += f" (page {page.page + 1} of {page.pages})"
    lines = [f"{heading}. /export bib|ris|csv takes them to a reference manager."]
    for number, (_, paper) in enumerate(page.papers, first):
        title = fit(paper.title or "(untitled)", SAVED_TITLE)
        if paper.abs_url and len(paper.abs_url) <= LINK_MAX:
            title = f'<a href="{html.escape(paper.abs_url)}">{title}</a>'
        authors = short_authors(paper, 2)
        lines.append(f"{number}. {title}" + (f" · {authors}" if authors else ""))
    removes = [
        unsave_button(paper_id, number, page.page)
        for number, (paper_id, _) in enumerate(page.papers, first)
    ]
    buttons = [removes[i : i + 4] for i in range(0, len(removes), 4)]
    moves = []
    if page.page > 0:
        moves.append(saved_page_button(page.page - 1, "◂ Newer"))
    if page.page + 1 < page.pages:
        moves.append(saved_page_button(page.page + 1, "Older ▸"))
    if moves:
        buttons.append(moves)
    return Reply("\n".join(lines), buttons)


async def show_saved(app: Paperbot, caller: Caller, press: ShowSaved) -> Reply:
    return saved_list(app.saved(caller.chat_id, press.page))


async def unsave(app: Paperbot, caller: Caller, press: Unsave) -> Reply:
    gone = app.unsave(caller.chat_id, press.paper_id)
    reply = saved_list(app.saved(caller.chat_id, press.page))
    reply.text = (
        "Removed from your saved papers.\n" if gone else "Already removed.\n"
    ) + reply.text
    return reply


async def save(app: Paperbot, caller: Caller, press: SavePaper) -> Reply:
    found = app.toggle_saved(caller.chat_id, press.row_id)
    if found is None:
        return Reply(OUT_OF_DATE, notice=True)
    title = shorten(found.paper.title, 60)
    if found.saved:
        return Reply(f"🔖 Saved: {title}", notice=True, alert=False)
    return Reply(f"Taken out of your saved papers: {title}", notice=True, alert=False)


# -- /export bib|ris|csv ---------------------------------------------------------------------


def export_file(app: Paperbot, chat: Chat, kind: str) -> Reply | Usage:
    kind = kind.lower().removeprefix(".")
    kind = "bib" if kind == "bibtex" else kind
    if kind not in EXPORTERS:
        return Usage(
            hint="<code>/export bib</code>, <code>ris</code> or <code>csv</code>: "
            "your saved and 👍 papers as a file; <code>/export</code>: your filters."
        )
    found = app.export_library(chat, kind)
    if found is None:
        return Reply("No saved or 👍 papers to export yet: 🔖 or 👍 under a paper keeps it.")
    papers = plural(found.count, "paper")
    return Reply(
        f"Your saved and 👍 papers: {papers} in {found.name}.",
        document=Document(found.name, found.data),
    )
