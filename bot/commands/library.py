"""A chat's library: /import of a BibTeX, RIS or CSL-JSON export or a list of arXiv ids (lines
below the command, or a file sent to the bot), /saved, /export bib|ris|csv, and the buttons
under an import's reply and under /saved."""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable

from bot.commands.filters import export_filters, import_lines, subscribed
from bot.commands.replies import (
    NAMED_AT_MOST,
    OUT_OF_DATE,
    Caller,
    Document,
    Reply,
    Usage,
    tr,
    tr_caller,
)
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
from bot.core.i18n import Translator
from bot.core.library import detect_format, format_name
from bot.core.library import too_large as library_too_large
from bot.core.render import LINK_MAX, UNTITLED, escape, fit, short_authors
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
    return imported_library(tr(chat), await app.import_library(chat, args))


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
    app = runtime.app
    t = tr_caller(app, caller)
    if not await caller.may_manage():
        return Reply(t.gettext("Only this group's administrators can import a library."))
    refused = library_too_large(size or 0)
    if refused is not None:
        return imported_library(t, refused)
    data = await read()  # its size checked again: an edge may not know it beforehand
    chat = app.enter(caller.chat_id, caller.kind, caller.language_code)
    return imported_library(tr(chat), await app.import_file(chat, data))


def imported_library(t: Translator, result: LibraryImported | Unreadable) -> Reply:
    if isinstance(result, Unreadable):
        reason = escape(result.problem.text(t))
        return Reply(t.gettext("Nothing imported: {reason}.").format(reason=reason))

    def counted(phrase: str, n: int, **values: object) -> str:
        return phrase.format(count=t.number(n), **values)

    read = t.ngettext(
        "Read {count} entry ({format}).", "Read {count} entries ({format}).", result.read
    )
    lines = [counted(read, result.read, format=format_name(result.format).text(t))]
    recognised = len(result.recognised)
    if recognised:
        known = t.ngettext(
            "👍 {count} paper I know, now rated 👍.",
            "👍 {count} papers I know, now rated 👍.",
            recognised,
        )
        lines.append(counted(known, recognised))
    if result.used:
        kept = t.ngettext(
            "📚 {count} paper not in my database, kept to learn your taste from (never sent).",
            "📚 {count} papers not in my database, kept to learn your taste from (never sent).",
            result.used,
        )
        lines.append(counted(kept, result.used))
    if result.unused:
        unused = t.ngettext(
            "{count} entry neither known here nor with an abstract to learn from: not used.",
            "{count} entries neither known here nor with an abstract to learn from: not used.",
            result.unused,
        )
        lines.append(counted(unused, result.unused))
    if result.bad:
        count = len(result.bad)
        bad = t.ngettext(
            "{count} entry could not be read:", "{count} entries could not be read:", count
        )
        lines.append(counted(bad, count))
        lines += [f"• {escape(b.described.text(t))}" for b in result.bad[:NAMED_AT_MOST]]
        if count > NAMED_AT_MOST:
            lines.append(counted(t.gettext("… and {count} more."), count - NAMED_AT_MOST))
    if result.seeds or result.authors:
        lines.append(t.gettext("Follow what this library is about:"))
    buttons = import_buttons(result.import_id, len(result.seeds), result.authors, t=t)
    return Reply("\n".join(lines), buttons)


async def follow_import(app: Paperbot, caller: Caller, press: FollowImport) -> Reply:
    t = tr_caller(app, caller)
    followed = await app.follow_import(caller.chat_id, press.import_id, press.author)
    if followed is None:
        return Reply(t.gettext(OUT_OF_DATE), notice=True)
    # a message of its own: the import's reply stays as it is
    reply = subscribed(t, followed)
    await app.send_text(caller.chat_id, reply.text, reply.buttons)
    return Reply("", notice=True)


# -- saved papers ------------------------------------------------------------------------------


async def saved(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    return saved_list(tr(chat), app.saved(chat.id))


def saved_list(t: Translator, page: SavedPage) -> Reply:
    """A page of the saved papers, the last saved first, each with a remove button."""
    if not page.total:
        return Reply(t.gettext("No saved papers yet: 🔖 under a paper keeps it here."))
    first = page.page * SAVED_PAGE + 1
    if page.pages > 1:
        heading = t.gettext(
            "Saved papers: {count}, the last saved first (page {page} of {pages}). "
            "/export bib|ris|csv takes them to a reference manager."
        )
    else:
        heading = t.gettext(
            "Saved papers: {count}, the last saved first. "
            "/export bib|ris|csv takes them to a reference manager."
        )
    count, pages = t.number(page.total), t.number(page.pages)
    lines = [heading.format(count=count, page=t.number(page.page + 1), pages=pages)]
    for number, (_, paper) in enumerate(page.papers, first):
        title = fit(paper.title or t.gettext(UNTITLED), SAVED_TITLE)
        if paper.abs_url and len(paper.abs_url) <= LINK_MAX:
            title = f'<a href="{html.escape(paper.abs_url)}">{title}</a>'
        authors = short_authors(paper, 2, t=t)
        lines.append(f"{number}. {title}" + (f" · {authors}" if authors else ""))
    removes = [
        unsave_button(paper_id, number, page.page, t=t)
        for number, (paper_id, _) in enumerate(page.papers, first)
    ]
    buttons = [removes[i : i + 4] for i in range(0, len(removes), 4)]
    moves = []
    if page.page > 0:
        moves.append(saved_page_button(page.page - 1, t.gettext("◂ Newer")))
    if page.page + 1 < page.pages:
        moves.append(saved_page_button(page.page + 1, t.gettext("Older ▸")))
    if moves:
        buttons.append(moves)
    return Reply("\n".join(lines), buttons)


async def show_saved(app: Paperbot, caller: Caller, press: ShowSaved) -> Reply:
    return saved_list(tr_caller(app, caller), app.saved(caller.chat_id, press.page))


async def unsave(app: Paperbot, caller: Caller, press: Unsave) -> Reply:
    t = tr_caller(app, caller)
    gone = app.unsave(caller.chat_id, press.paper_id)
    reply = saved_list(t, app.saved(caller.chat_id, press.page))
    done = t.gettext("Removed from your saved papers.") if gone else t.gettext("Already removed.")
    reply.text = f"{done}\n{reply.text}"
    return reply


async def save(app: Paperbot, caller: Caller, press: SavePaper) -> Reply:
    t = tr_caller(app, caller)
    found = app.toggle_saved(caller.chat_id, press.row_id)
    if found is None:
        return Reply(t.gettext(OUT_OF_DATE), notice=True)
    title = shorten(found.paper.title, 60)
    if found.saved:
        return Reply(t.gettext("🔖 Saved: {title}").format(title=title), notice=True, alert=False)
    taken = t.gettext("Taken out of your saved papers: {title}").format(title=title)
    return Reply(taken, notice=True, alert=False)


# -- /export bib|ris|csv ---------------------------------------------------------------------


def export_file(app: Paperbot, chat: Chat, kind: str) -> Reply | Usage:
    t = tr(chat)
    kind = kind.lower().removeprefix(".")
    kind = "bib" if kind == "bibtex" else kind
    if kind not in EXPORTERS:
        return Usage(
            hint=t.gettext(
                "<code>/export bib</code>, <code>ris</code> or <code>csv</code>: "
                "your saved and 👍 papers as a file; <code>/export</code>: your filters."
            )
        )
    found = app.export_library(chat, kind)
    if found is None:
        return Reply(
            t.gettext("No saved or 👍 papers to export yet: 🔖 or 👍 under a paper keeps it.")
        )
    text = t.ngettext(
        "Your saved and 👍 papers: {count} paper in {file}.",
        "Your saved and 👍 papers: {count} papers in {file}.",
        found.count,
    )
    return Reply(
        text.format(count=t.number(found.count), file=found.name),
        document=Document(found.name, found.data),
    )
