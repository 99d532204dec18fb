"""Messages for Telegram (HTML parse mode) and the terminal: papers, alerts and digests.

Everything a paper or a user supplied is escaped; no message exceeds Telegram's 4096 characters
(measured in UTF-16 units on the HTML itself, an upper bound of what Telegram counts); messages
split between papers, never inside one, and a paper too long on its own gets a shortened abstract.
Every other field is shown within a bound that real papers never reach (a title of 100 KB, a
filter named in 50 ways), and a card that still does not fit is shown as its title and link.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from bot.core.chat import DIGEST_ABSTRACTS
from bot.core.highlight import Highlight
from bot.core.i18n import ENGLISH, N_, Translator
from bot.core.paper import AnnounceType, Paper
from bot.core.query import FilterKind
from bot.core.summary import sections, shorten, tldr

MESSAGE_LIMIT = 4096
# Telegram refuses a message with more than 100 inline buttons ("reply markup is too long"). An
# entry of a digest, an alert or a follow-up section carries at most 5 (card, 👍, 👎, 🔖, more
# like this) and a digest page's last message one "N more": 19 entries leave room for both.
# Short entries (30 compact digest entries with no TL;DR fit 4,096 characters) would reach 120.
ENTRIES_A_MESSAGE = 19
AUTHORS_SHOWN = 3
COMMENTS_SHOWN = 200  # characters of arXiv's comments field ("Accepted at ICLR 2026; code: ...")
ENTRY_TLDR = 200  # a compact digest entry's TL;DR: the contribution, cut at a clause
ENTRY_AUTHORS = 2
# Bounds that real papers stay far below; a listing or a store may hold anything.
TITLE_SHOWN = 400  # characters of a title (arXiv's longest are about 250)
NAME_SHOWN = 80  # characters of an author's name
CATEGORY_SHOWN = 20  # characters of a category
FILTER_SHOWN = 80  # characters of a filter, where a paper or a digest's heading names it
FILTERS_SHOWN = 5  # filters a paper names; the others are counted
WHY_SHOWN = 200  # characters of the terms a ranked paper was ranked up for
LINK_MAX = 2000  # a longer address is not linked
UNTITLED = N_("(untitled)")  # a title with nothing to show (a message must show something)
ADDRESS_SHOWN = 80  # characters of an address shown as a link's text
JOURNAL_SHOWN = 80  # characters of a journal's name
_DERIVED = N_("<i>(headline derived from the abstract)</i>")  # after a title made from the abstract
REMOVED = N_("a filter since removed")  # a matched filter numbered 0: removed since it matched


# A "more like this" filter's name as stored: its first seed's title and how many seeds more,
# in English ('like "Title" and 2 more'), as every such filter has been stored since the first.
# It is read back where shown and written in the reader's words (filter_name).
_STORED_LIKE = re.compile(r'like "(?P<title>.*)"(?: and (?P<more>[0-9]+) more)?', re.DOTALL)


@dataclass(frozen=True)
class MatchedFilter:
    number: int  # as /list shows it
    canonical: str
    kind: FilterKind = FilterKind.KEYWORDS


@dataclass(frozen=True)
class Item:
    """One paper for one chat: why it matched and where."""

    paper: Paper
    marks: Sequence[Highlight]
    filters: Sequence[MatchedFilter]
    is_update: bool = False
    score: float | None = None  # the chat's ranking model's, when it has one
    why: Sequence[str] = ()  # a top-ranked paper: the terms that weigh most for the chat


def size(text: str) -> int:
    """Length as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def escape(text: str) -> str:
    return html.escape(text, quote=False)


def fit(text: str, units: int) -> str:
    """The text escaped within `units` (UTF-16 units, as `size` counts them): whole when it fits,
    else cut at a word with an ellipsis."""
    limit = max(units, 1)
    while True:
        shown = escape(shorten(text, limit))
        if size(shown) <= units or limit == 1:
            return shown
        limit = max(1, min(limit - 1, limit * units // size(shown)))


def short_authors(
    paper: Paper,
    shown: int = AUTHORS_SHOWN,
    marked: Sequence[int] = (),
    *,
    t: Translator = ENGLISH,
) -> str:
    """'A, B, C and 7 more': the first authors and how many others, as escaped HTML; an author a
    filter matched (`marked`: indices into the authors) is named, underlined, wherever they are
    in the list ('A, B, …, <u>X</u> and 5 more'), so an au: filter's author always shows."""
    names = list(paper.authors)
    listed = sorted({*range(min(shown, len(names))), *(i for i in marked if i < len(names))})
    parts, previous = [], -1
    for index in listed:
        if index > previous + 1:
            parts.append("…")
        name = escape(shorten(names[index], NAME_SHOWN))
        parts.append(f"<u>{name}</u>" if index in marked else name)
        previous = index
    others = max(paper.more_authors, 0) + len(names) - len(listed)
    line = ", ".join(parts)
    if others:
        if not line:
            return t.ngettext("{count} author", "{count} authors", others).format(
                count=t.number(others)
            )
        return t.ngettext(
            "{authors} and {count} more", "{authors} and {count} more", others
        ).format(authors=line, count=t.number(others))
    if paper.more_authors < 0:
        return t.gettext("{authors} et al.").format(authors=line)
    return line


def _marked(text: str, marks: Sequence[Highlight], field: str, limit: int | None = None) -> str:
    """Escaped text with the matched spans marked (bold in the abstract, underlined in the title,
    which is bold already); cut to `limit` characters with an ellipsis."""
    tag = "u" if field == "title" else "b"
    end = len(text)
    if limit is not None and len(text) > limit:
        end = len(shorten(text, limit)) - 1 if limit > 0 else 0
    out, last = [], 0
    for mark in marks:
        if mark.field != field or mark.start >= end:
            continue
        stop = min(mark.end, end)
        out += [escape(text[last : mark.start]), f"<{tag}>", escape(text[mark.start : stop])]
        out.append(f"</{tag}>")
        last = stop
    out.append(escape(text[last:end]))
    return "".join(out) + ("…" if end < len(text) else "")


def _quote(paper: Paper, marks: Sequence[Highlight], limit: int | None) -> str:
    """The abstract in an expandable quote; a structured abstract's sections each on a line of
    their own, under their label in bold ("<b>Results:</b> ...")."""
    quoted = _marked(paper.abstract, marks, "abstract", limit)
    at = 0
    for number, (label, _) in enumerate(sections(paper.abstract)):
        written = ("" if number == 0 else " ") + escape(label) + ": "
        start = quoted.find(written, at)
        if start < 0 or (number == 0 and start != 0):
            break  # cut off before it, or a match marked inside it: shown as written
        bold = ("\n" if number else "") + f"<b>{escape(label)}:</b> "
        quoted = quoted[:start] + bold + quoted[start + len(written) :]
        at = start + len(bold)
    return f"<blockquote expandable>{quoted}</blockquote>"


def day(when: date, t: Translator = ENGLISH, *, year: bool = True) -> str:
    """A day as messages name it: '6 Dec 2026' (or '6 Dec'), '6. Dez. 2026', '2026年12月6日'."""
    return t.day(when, "yMMMd" if year else "MMMd")


def _date(paper: Paper, t: Translator) -> str:
    return day(paper.announced, t) if paper.announced else ""


def close_quotes(text: str) -> str:
    """A filter's name shortened inside a quote gets its closing quote back."""
    return text + '"' if text.count('"') % 2 else text


def canonical(matched: MatchedFilter, t: Translator = ENGLISH) -> str:
    """A matched filter's text; a filter since removed said so in the reader's language."""
    if not matched.number and matched.canonical == REMOVED:
        return t.gettext(REMOVED)
    return filter_name(matched.canonical, matched.kind, t)


def like_name(title: str, more: int) -> str:
    """A "more like this" filter's name as stored: its first seed's title, and how many more
    seeds it has."""
    return f'like "{title}"' + (f" and {more} more" if more else "")


def filter_name(stored: str, kind: FilterKind, t: Translator = ENGLISH) -> str:
    """A filter as a reader is shown it: words as understood (the filter syntax, which stays as
    typed); a "more like this" filter's stored name in the reader's words, or as stored when it
    is not of that shape."""
    found = _STORED_LIKE.fullmatch(stored) if kind is FilterKind.LIKE else None
    if found is None:
        return stored
    title, more = found["title"], int(found["more"] or 0)
    if not more:
        return t.gettext('like "{title}"').format(title=title)
    shown = t.ngettext('like "{title}" and {count} more', 'like "{title}" and {count} more', more)
    return shown.format(title=title, count=t.number(more))


def _filter_name(matched: MatchedFilter, t: Translator) -> str:
    name = close_quotes(fit(canonical(matched, t), FILTER_SHOWN))
    if not matched.number:
        return name
    return t.gettext("{name} (filter {number})").format(name=name, number=t.number(matched.number))


def _filters_line(filters: Sequence[MatchedFilter], t: Translator) -> str:
    named = ", ".join(_filter_name(f, t) for f in filters[:FILTERS_SHOWN])
    if not named:
        return ""
    more = len(filters) - FILTERS_SHOWN
    if more > 0:
        return t.ngettext(
            "matched {filters} and {count} more", "matched {filters} and {count} more", more
        ).format(filters=named, count=t.number(more))
    return t.gettext("matched {filters}").format(filters=named)


def _why(item: Item, t: Translator) -> str:
    if not item.why:
        return ""
    terms = fit(", ".join(item.why), WHY_SHOWN)
    return t.gettext("<i>★ Ranked up for you:</i> {terms}").format(terms=terms)


def _derived(paper: Paper, t: Translator) -> str:
    return " " + t.gettext(_DERIVED) if paper.title_derived else ""


def _tldr(summary: str, t: Translator) -> str:
    return t.gettext("<i>TL;DR:</i> {summary}").format(summary=escape(summary))


def _title(item: Item, t: Translator) -> str:
    """The title with its marks (cut at TITLE_SHOWN), "Updated (vN): " before it for an update."""
    paper = item.paper
    title = _marked(paper.title, item.marks, "title", TITLE_SHOWN)
    if not paper.title.strip():
        title = t.gettext(UNTITLED)
    if item.is_update:
        if paper.version and paper.version < 10_000:
            updated = t.gettext("Updated (v{version}): {title}")
            return updated.format(version=paper.version, title=title)
        return t.gettext("Updated: {title}").format(title=title)
    return title


def _details(item: Item, authors: int, t: Translator) -> list[str]:
    """The line under a title, as escaped HTML: authors (the matched ones marked), categories,
    "cross-list", where it is published, the announcement's date."""
    paper = item.paper
    marked = [i for m in item.marks if m.field == "author" for i in range(m.start, m.end)]
    categories = " ".join(shorten(c, CATEGORY_SHOWN) for c in paper.categories[:3])
    cross = t.gettext("cross-list") if paper.announce_type is AnnounceType.CROSS else ""
    return [
        short_authors(paper, authors, marked, t=t),
        escape(categories),
        cross,
        published(paper, t=t),
        _date(paper, t),
    ]


def published(paper: Paper, *, t: Translator = ENGLISH) -> str:
    """Where the paper is, as escaped HTML: "preprint (bioRxiv, v2)" for a preprint of a
    server, its journal linked to the journal version's DOI (the DOI itself without a
    journal's name), "published in" the journal for a preprint that has one; "" for an arXiv
    paper without a journal's name, whose links say it all."""
    parts = []
    doi_url = paper.doi_url if paper.doi_url and len(paper.doi_url) <= LINK_MAX else None
    name = fit(paper.journal, JOURNAL_SHOWN) if paper.journal else ""
    if not name and doi_url and not paper.arxiv_id:
        name = "doi:" + fit(paper.doi or "", ADDRESS_SHOWN)
    if paper.server:
        server = escape(shorten(paper.server, NAME_SHOWN))
        if paper.version and paper.version < 10_000:
            preprint = t.gettext("preprint ({server}, v{version})")
            parts.append(preprint.format(server=server, version=paper.version))
        else:
            parts.append(t.gettext("preprint ({server})").format(server=server))
    if name:
        linked = f'<a href="{html.escape(doi_url)}">{name}</a>' if doi_url else name
        if parts or paper.arxiv_id:
            linked = t.gettext("published in {journal}").format(journal=linked)
        parts.append(linked)
    return " · ".join(parts)


def render_paper(
    item: Item,
    abstract_limit: int | None = None,
    *,
    number: int | None = None,
    t: Translator = ENGLISH,
) -> str:
    """A paper's whole card; `number`: its place in a message of several (its buttons say it)."""
    paper = item.paper
    title = _title(item, t)
    if number is not None:
        title = f"{number}. {title}"
    lines = [f"<b>{title}</b>" + _derived(paper, t)]
    details = _details(item, AUTHORS_SHOWN, t)
    lines.append(" · ".join(d for d in details if d))
    summary = tldr(paper.abstract, paper.title)
    if summary and not paper.title_derived:
        lines.append(_tldr(summary, t))
    if paper.comments:
        comments = escape(shorten(paper.comments, COMMENTS_SHOWN))
        lines.append(t.gettext("<i>Comments:</i> {comments}").format(comments=comments))
    lines.append(_why(item, t))
    lines.append("  ·  ".join(w for w in [_filters_line(item.filters, t), *_links(paper, t)] if w))
    # a replacement listed without its abstract, or no room left for it: no empty quote
    if paper.abstract and abstract_limit != 0:
        lines.append(_quote(paper, item.marks, abstract_limit))
    return "\n".join(line for line in lines if line)


def _links(paper: Paper, t: Translator) -> list[str]:
    """The abstract page (shown as its address) and, for arXiv papers, the PDF."""
    links = []
    if paper.abs_url and len(paper.abs_url) <= LINK_MAX:
        shown = paper.abs_url.removeprefix("https://").removeprefix("http://")
        links.append(f'<a href="{html.escape(paper.abs_url)}">{fit(shown, ADDRESS_SHOWN)}</a>')
    if paper.pdf_url and len(paper.pdf_url) <= LINK_MAX:
        links.append(f'<a href="{html.escape(paper.pdf_url)}">{t.gettext("PDF")}</a>')
    return links


def render_fitting(
    item: Item,
    budget: int = MESSAGE_LIMIT,
    number: int | None = None,
    *,
    t: Translator = ENGLISH,
) -> str:
    """The paper within `budget`: whole when it fits, else with the abstract cut shorter."""
    text = render_paper(item, number=number, t=t)
    limit = len(item.paper.abstract)
    while size(text) > budget and limit > 0:
        limit = max(limit - (size(text) - budget) - 20, 0)
        text = render_paper(item, abstract_limit=limit, number=number, t=t)
    return text if size(text) <= budget else _bare(item, budget, number, t)


def _bare(item: Item, budget: int, number: int | None, t: Translator) -> str:
    """A paper whose card does not fit its budget even without the abstract (only hostile
    fields do that): its title, within what is left after its links."""
    shown = f"{number}. " if number is not None else ""
    links = "  ·  ".join(_links(item.paper, t))
    if size(links) > budget // 2:
        links = ""
    room = budget - size(shown) - size(links) - 8  # <b></b> and the line break
    title = fit(item.paper.title.strip() or t.gettext(UNTITLED), max(room, 1))
    return f"<b>{shown}{title}</b>" + (f"\n{links}" if links else "")


def pack(
    blocks: Sequence[str],
    header: str = "",
    limit: int = MESSAGE_LIMIT,
    separator: str = "\n\n",
    most: int | None = None,
) -> list[Message]:
    """Blocks joined into as few messages as fit in `limit` (and hold at most `most` blocks),
    split only between blocks, each message with the indices of the blocks it carries; the
    header opens the first message."""
    messages: list[Message] = []
    current, indices = header, list[int]()
    for index, block in enumerate(blocks):
        joined = f"{current}{separator}{block}" if current else block
        if size(joined) <= limit and (most is None or len(indices) < most):
            current = joined
            indices.append(index)
            continue
        if indices:
            messages.append(Message(current, indices))
        current, indices = block, [index]
    if indices:
        messages.append(Message(current, indices))
    return messages


@dataclass(frozen=True)
class Message:
    text: str
    items: list[int]  # indices of the items it carries


def render_alert(
    items: Sequence[Item], *, compact: bool = True, t: Translator = ENGLISH
) -> list[Message]:
    """Instant alerts: the papers that arrived together, in as few messages as fit, numbered
    when there are several (their buttons name them). Compact: each paper at a glance, as a
    digest entry that names the filters it matched (its whole card a button away); else every
    paper's whole card."""
    several = len(items) > 1
    numbers = range(1, len(items) + 1) if several else [None] * len(items)
    if compact:
        return pack(
            [
                render_entry(item, abstract=False, number=n, filters=True, t=t)
                for n, item in zip(numbers, items, strict=True)
            ],
            most=ENTRIES_A_MESSAGE,
        )
    return pack(
        [render_fitting(item, number=n, t=t) for n, item in zip(numbers, items, strict=True)],
        most=ENTRIES_A_MESSAGE,
    )


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 paper', '2 papers'; `many` for a word whose plural is not an added s ('entries')."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def render_entry(
    item: Item,
    *,
    abstract: bool,
    budget: int = MESSAGE_LIMIT,
    number: int | None = None,
    filters: bool = False,
    t: Translator = ENGLISH,
) -> str:
    """A paper in a compact digest, read at a glance: its number in the digest (the card
    buttons name it), its title linked to its abstract page, the first authors, the one-line
    TL;DR; the filters it matched when asked (an alert's, which has no headings); the abstract
    in an expandable quote only when asked (the first few of a digest)."""
    paper = item.paper
    title = _title(item, t)
    if paper.abs_url and len(paper.abs_url) <= LINK_MAX:
        title = f'<a href="{html.escape(paper.abs_url)}">{title}</a>'
    if number is not None:
        title = f"{number}. {title}"
    details = _details(item, ENTRY_AUTHORS, t)
    details = details[0:1] + details[2:4]  # authors, cross-list, journal: the date is the digest's
    lines = [f"<b>{title}</b>" + _derived(paper, t)]
    lines.append(" · ".join(d for d in details if d))
    summary = tldr(paper.abstract, paper.title, ENTRY_TLDR) if not paper.title_derived else ""
    if summary:
        lines.append(_tldr(summary, t))
    lines.append(_why(item, t))
    if filters:
        lines.append(_filters_line(item.filters, t))
    text = "\n".join(line for line in lines if line)
    if size(text) > budget:
        return _bare(item, budget, number, t)
    if not (abstract and paper.abstract):
        return text
    limit = len(paper.abstract)
    while limit > 0:  # the quote shortened until the entry fits its message
        entry = f"{text}\n{_quote(paper, item.marks, limit)}"
        if size(entry) <= budget:
            return entry
        limit = max(limit - (size(entry) - budget) - 20, 0)
    return text


def render_digest(
    items: Sequence[Item],
    header: str,
    headings: Sequence[MatchedFilter | None],
    *,
    compact: bool = True,
    abstracts: int = DIGEST_ABSTRACTS,
    first: int = 1,
    counts: bool = True,
    t: Translator = ENGLISH,
) -> list[Message]:
    """Digest messages: the header, then the papers in the order given, each run of papers
    under its heading (`headings[i]`: the filter paper i is listed under; compose decides both
    the order and the filter), split into messages between papers. Compact: each paper at a
    glance, numbered from `first`, the papers numbered up to `abstracts` with their abstract;
    else every paper's whole card. `counts`: headings say how many papers their run has (a
    later page of a long digest shows only part of a group, so it says none)."""
    runs: list[tuple[MatchedFilter | None, list[int]]] = []
    for index, matched in enumerate(headings):
        if not runs or runs[-1][0] != matched:
            runs.append((matched, []))
        runs[-1][1].append(index)
    blocks: list[str] = []
    for matched, members in runs:
        name = _filter_name(matched, t) if matched else t.gettext("other")
        heading = f"<b>{name}</b>"
        if counts:
            heading = t.ngettext(
                "{heading}: {count} paper", "{heading}: {count} papers", len(members)
            ).format(heading=heading, count=t.number(len(members)))
        for position, index in enumerate(members):
            budget = MESSAGE_LIMIT - size(heading) - 2
            if not blocks and header:  # the first paper shares its message with the header
                budget -= size(header) + 2
            number = first + index
            if compact:
                quoted = number <= abstracts
                paper = render_entry(
                    items[index], abstract=quoted, budget=budget, number=number, t=t
                )
            else:
                paper = render_fitting(items[index], budget, t=t)
            blocks.append(f"{heading}\n\n{paper}" if position == 0 else paper)
    return pack(blocks, header, most=ENTRIES_A_MESSAGE)
