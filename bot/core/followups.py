"""What a new record of a paper a chat liked or saved brings that is worth a follow-up, and the
follow-up as the chat reads it.

Pure: the service compares the stored record with the new one, leaves out what the paper's
earlier follow-ups told (`untold`), and, for a chat that 👍'd or saved the paper, writes a
ledger row for what is left, under the paper's next news revision (`revision_of`); the rows are
sent as `render_followup` writes them, with the paper's buttons (`followup_buttons`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from bot.core.buttons import Button, entry_buttons
from bot.core.chat import Delivery
from bot.core.i18n import ENGLISH, Translator
from bot.core.paper import Paper, normalise_doi
from bot.core.render import (
    ENTRIES_A_MESSAGE,
    LINK_MAX,
    MESSAGE_LIMIT,
    TITLE_SHOWN,
    UNTITLED,
    fit,
    size,
)
from bot.core.text import fold_key

# Comments that say the paper found a venue: "Accepted at ICLR 2027", "to appear in JHEP",
# "Published in Nature", "camera-ready version for ...".
_VENUE = re.compile(
    r"\b(?:accepted|to appear|published|camera[- ]ready|in press)\b[^.;]*", re.IGNORECASE
)
# The ledger's revision of a paper's journal version (its versions are 1, 2, ...); the news
# that comes without a new version goes out as JOURNAL - 1, JOURNAL - 2, ... in turn.
JOURNAL = -1
VENUE_SHOWN = 120  # characters of a venue note or a journal reference
DOI_SHOWN = 80
ICON = "🔁"


@dataclass(frozen=True)
class Followup:
    """The news of one paper: its new version, venue note, journal reference and DOI (each
    only when new), and the journal a preprint was published in."""

    version: int | None
    venue: str | None
    journal_ref: str | None
    doi: str | None
    journal: str | None


def venue_of(comments: str | None) -> str | None:
    """The part of a paper's comments that names its acceptance or publication, or None."""
    found = _VENUE.search(comments or "")
    return found.group(0).strip(" ,") if found else None


def note_key(note: str | None) -> str | None:
    """A venue note, journal reference or journal name as news is compared: case, accents,
    spacing and punctuation folded, so that a record writing the same reference another way
    ('J. mach. learn. res., 25 (2026).' for 'J. Mach. Learn. Res. 25 (2026)', both
    'j mach learn res 25 2026') tells nothing new; None for no note."""
    return (fold_key(note) or None) if note else None


def followup(before: Paper, after: Paper) -> Followup | None:
    """What `after` adds to `before` that a reader who liked the paper wants to hear, or None.

    A new version alone is news only with a venue, journal reference or DOI: a typo fix is not
    worth a message."""
    venue = venue_of(after.comments)
    venue = venue if venue and note_key(venue) != note_key(venue_of(before.comments)) else None
    journal_ref = after.journal_ref
    journal_ref = journal_ref if note_key(journal_ref) != note_key(before.journal_ref) else None
    doi = after.doi if after.doi and normalise_doi(after.doi) != normalise_doi(before.doi) else None
    journal = after.journal if after.journal and not before.journal else None
    if not (venue or journal_ref or doi or journal):
        return None
    newer = (after.version or 0) > (before.version or 0)
    return Followup(after.version if newer else None, venue, journal_ref, doi, journal)


def untold(news: Followup, told: Iterable[Followup]) -> Followup | None:
    """`news` without what the paper's recorded follow-ups told (an older record read after a
    newer one brings its journal reference back as a change), each compared as `note_key` and
    `normalise_doi` fold them, or None when nothing is left."""
    told = list(told)
    venue = None if note_key(news.venue) in {note_key(f.venue) for f in told} else news.venue
    journal_ref = news.journal_ref
    if note_key(journal_ref) in {note_key(f.journal_ref) for f in told}:
        journal_ref = None
    doi = None if normalise_doi(news.doi) in {normalise_doi(f.doi) for f in told} else news.doi
    journal = news.journal
    journal = None if note_key(journal) in {note_key(f.journal) for f in told} else journal
    if not (venue or journal_ref or doi or journal):
        return None
    version = None if news.version in {f.version for f in told} else news.version
    return Followup(version, venue, journal_ref, doi, journal)


def revision_of(news: Followup, taken: Collection[int]) -> int:
    """The ledger revision a follow-up goes out as, given the revisions of the paper's recorded
    follow-ups: its new version (the slot of that version's update, so a chat that follows
    updates and matched the paper gets one message); JOURNAL for a journal version; else the
    paper's next news below them (JOURNAL - 1, ...), so each piece of news about one version (a
    venue, then a journal reference, then a DOI) has a row of its own in every chat's ledger."""
    if news.version and news.version not in taken:
        return news.version
    if news.journal and JOURNAL not in taken:
        return JOURNAL
    return min([JOURNAL, *taken]) - 1


def is_followup(row: Delivery) -> bool:
    """A follow-up row: planned for a paper the chat 👍'd or saved, so no filter matched it (a
    matched paper's rows, updates included, name their filters)."""
    return row.revision != 0 and not row.filter_ids


def render_followup(
    paper: Paper,
    news: Followup | None,
    *,
    revision: int = 0,
    number: int | None = None,
    t: Translator = ENGLISH,
) -> str:
    """One line, as escaped HTML: "🔁 v3 · Accepted at ICLR 2027 · J. Mach. Learn. Res. 25 (2026)
    · doi:10.… — <title>", the title linked to the paper; "2. 🔁 …" as the `number`-th of a
    digest's section, which its buttons name. Without its news (recorded before the chat's row
    was sent, so never missing but for a paper since forgotten) it says what the paper has
    now."""
    if news is None:
        version = revision if revision > 0 else None
        journal = paper.journal if revision == JOURNAL else None
        news = Followup(version, venue_of(paper.comments), paper.journal_ref, paper.doi, journal)
    parts = []
    if news.version:
        parts.append(t.gettext("v{version}").format(version=news.version))
    reference = news.journal_ref
    if news.journal:  # PubMed's reference starts with the journal's name: said once
        named = (
            reference if (reference or "").casefold().startswith(news.journal.casefold()) else None
        )
        journal = fit(named or news.journal, VENUE_SHOWN)
        parts.append(t.gettext("Published in {journal}").format(journal=journal))
        reference = None if named else reference
    parts += [fit(note, VENUE_SHOWN) for note in (news.venue, reference) if note]
    if news.doi:
        doi = fit(news.doi, DOI_SHOWN)
        url = f"https://doi.org/{news.doi}"
        parts.append(f'doi:<a href="{html.escape(url)}">{doi}</a>' if len(url) <= LINK_MAX else doi)
    title = fit(paper.title, TITLE_SHOWN) if paper.title.strip() else t.gettext(UNTITLED)
    link = paper.abs_url or paper.doi_url
    if link and len(link) <= LINK_MAX:
        title = f'<a href="{html.escape(link)}">{title}</a>'
    numbered = f"{number}. " if number is not None else ""
    return f"{numbered}{ICON} {' · '.join(parts)} — {title}"


def followup_buttons(
    row_id: int, paper: Paper, number: int | None = None, *, t: Translator = ENGLISH
) -> list[Button]:
    """Under a follow-up, keyed to its ledger row (whose paper is the one followed up): the
    paper's card, since a follow-up is one line, then what an alert of the paper alone carries
    (👍, 👎, 🔖, "more like this" for an arXiv paper), or, for the `number`-th line of a
    digest's section, what a digest entry carries (👍, 👎, 🔖, numbered)."""
    similar = number is None and bool(paper.arxiv_id)
    return entry_buttons(row_id, number, card=True, similar=similar, t=t)


def followup_messages(
    lines: Sequence[str], *, t: Translator = ENGLISH, limit: int = MESSAGE_LIMIT
) -> list[tuple[str, list[int]]]:
    """A digest's "Follow-ups" section: its lines under the heading, as many messages as they
    need (each within Telegram's buttons: ENTRIES_A_MESSAGE), each with the indices of the
    lines it carries."""
    heading = f"<b>{ICON} {t.gettext('Follow-ups')}</b>"
    messages: list[tuple[str, list[int]]] = []
    text, carried = heading, list[int]()
    for index, line in enumerate(lines):
        if carried and (size(text) + 2 + size(line) > limit or len(carried) == ENTRIES_A_MESSAGE):
            messages.append((text, carried))
            text, carried = heading, list[int]()
        text, carried = f"{text}\n\n{line}", [*carried, index]
    if carried:
        messages.append((text, carried))
    return messages
