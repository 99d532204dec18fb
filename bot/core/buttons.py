"""Buttons under messages, and what their callback data says.

The data names a ledger row or a filter by its id (Telegram allows 64 bytes); whoever acts on
a press checks that the row or filter belongs to the chat that pressed, so data copied from
another chat does nothing. Made and read here only, so the two never drift apart.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bot.core.i18n import ENGLISH, Translator


@dataclass(frozen=True)
class Button:
    label: str
    data: str  # what comes back when it is pressed


Keyboard = Sequence[Sequence[Button]]  # rows of buttons under a message


@dataclass(frozen=True)
class ShowCard:
    """A digest entry's full card (abstract, comments, links), as a message of its own."""

    row_id: int


@dataclass(frozen=True)
class NextPage:
    """A digest's next papers past its page: from the paper of `row_id`, numbered from
    `number`."""

    row_id: int
    number: int


@dataclass(frozen=True)
class Rate:
    """👍 (1) or 👎 (-1) for the paper of a ledger row; the same again takes it back. `number`:
    the paper's number in a message that carries several (None: the only one, or a button
    made before buttons carried it)."""

    row_id: int
    value: int
    number: int | None = None


@dataclass(frozen=True)
class FollowSimilar:
    """A "more like this" filter seeded with the paper of `row_id`."""

    row_id: int


@dataclass(frozen=True)
class RemoveFilter:
    filter_id: int


@dataclass(frozen=True)
class ConfirmStop:
    confirmed: bool


@dataclass(frozen=True)
class SendRecent:
    """A new filter's matches among the recent papers, sent now as a digest (once: papers the
    chat has had are not sent again)."""

    filter_id: int


@dataclass(frozen=True)
class SavePaper:
    """🔖: the paper of a ledger row saved for the chat; the same again takes it out."""

    row_id: int


@dataclass(frozen=True)
class ShowSaved:
    """A page of /saved (from 0)."""

    page: int


@dataclass(frozen=True)
class Unsave:
    """A saved paper taken out from /saved's page `page`."""

    paper_id: int
    page: int


@dataclass(frozen=True)
class FollowImport:
    """Under an import's reply: a "more like this" filter of its papers (author None), or an
    au: filter for the n-th of its most frequent authors."""

    import_id: int
    author: int | None = None


@dataclass(frozen=True)
class Tune:
    """A new filter's recent matches, a few of them spread over their topics, sent to rate."""

    filter_id: int


Press = (
    ShowCard
    | NextPage
    | Rate
    | FollowSimilar
    | RemoveFilter
    | ConfirmStop
    | SendRecent
    | SavePaper
    | ShowSaved
    | Unsave
    | FollowImport
    | Tune
)


def card_button(row_id: int, number: int | None, *, t: Translator = ENGLISH) -> Button:
    """A paper's whole card (its abstract, comments, links), by its number in the message."""
    label = f"📄 {number}" if number is not None else t.gettext("📄 Abstract")
    return Button(label, f"card:{row_id}")


def more_button(row_id: int, number: int, remaining: int, *, t: Translator = ENGLISH) -> Button:
    label = t.ngettext("{count} more paper ▸", "{count} more papers ▸", remaining)
    return Button(label.format(count=t.number(remaining)), f"more:{row_id}:{number}")


def rate_buttons(
    row_id: int, number: int | None = None, likes: int = 0, dislikes: int = 0
) -> list[Button]:
    """👍 and 👎 for a paper (numbered when a message carries several), with a group's votes
    counted on them once there are any: "👍 3", or "2. 👍 3" for paper 2 of a digest."""
    numbered = f":{number}" if number is not None else ""
    return [
        Button(rate_label("👍", number, likes), f"like:{row_id}{numbered}"),
        Button(rate_label("👎", number, dislikes), f"dislike:{row_id}{numbered}"),
    ]


def rate_label(sign: str, number: int | None, count: int) -> str:
    if not count:
        return f"{sign} {number}" if number is not None else sign
    return f"{number}. {sign} {count}" if number is not None else f"{sign} {count}"


def relabeled(keyboard: Keyboard, labels: Mapping[str, str]) -> list[list[Button]]:
    """The keyboard with the buttons named in `labels` (by their data) labelled anew."""
    return [[Button(labels.get(b.data, b.label), b.data) for b in row] for row in keyboard]


def save_button(row_id: int, number: int | None = None, *, t: Translator = ENGLISH) -> Button:
    """🔖: keep the paper for /saved and /export."""
    label = f"🔖 {number}" if number is not None else t.gettext("🔖 Save")
    return Button(label, f"save:{row_id}")


def paper_buttons(
    row_id: int, number: int | None = None, *, similar: bool, t: Translator = ENGLISH
) -> list[Button]:
    """A paper's 👍, 👎, 🔖 and (for an arXiv paper: its id seeds the filter) "more like
    this"."""
    buttons = [*rate_buttons(row_id, number), save_button(row_id, number, t=t)]
    if similar:
        label = t.gettext("≈ More like this") if number is None else f"≈ {number}"
        buttons.append(Button(label, f"similar:{row_id}"))
    return buttons


def entry_buttons(
    row_id: int,
    number: int | None,
    *,
    card: bool,
    similar: bool = False,
    t: Translator = ENGLISH,
) -> list[Button]:
    """A paper's row under a message that lists it: its card where the message shows it at a
    glance, then 👍, 👎, 🔖 and, with `similar`, "more like this"."""
    cards = [card_button(row_id, number, t=t)] if card else []
    return [*cards, *paper_buttons(row_id, number, similar=similar, t=t)]


def unsave_button(paper_id: int, number: int, page: int, *, t: Translator = ENGLISH) -> Button:
    label = t.gettext("Remove {number}").format(number=number)
    return Button(label, f"unsave:{paper_id}:{page}")


def saved_page_button(page: int, label: str) -> Button:
    return Button(label, f"saved:{page}")


def import_buttons(
    import_id: int, seeds: int, authors: list[str], *, t: Translator = ENGLISH
) -> list[list[Button]]:
    """Under an import's reply: follow papers like its papers, or its most frequent authors."""
    rows = []
    if seeds:
        label = t.ngettext(
            "≈ Follow papers like these {count}", "≈ Follow papers like these {count}", seeds
        ).format(count=t.number(seeds))
        rows.append([Button(label, f"libsim:{import_id}")])
    for number, name in enumerate(authors):
        label = t.gettext("Follow au:{name}").format(name=name[:40])
        rows.append([Button(label, f"libau:{import_id}:{number}")])
    return rows


def remove_button(filter_id: int, number: int, *, t: Translator = ENGLISH) -> Button:
    return Button(t.gettext("Remove {number}").format(number=number), f"remove:{filter_id}")


def recent_button(filter_id: int, count: int, *, t: Translator = ENGLISH) -> Button:
    label = t.ngettext(
        "📬 Send me this recent paper now", "📬 Send me these {count} recent papers now", count
    )
    return Button(label.format(count=t.number(count)), f"recent:{filter_id}")


def stop_buttons(*, t: Translator = ENGLISH) -> list[Button]:
    return [
        Button(t.gettext("Yes, forget everything"), "stop:yes"),
        Button(t.gettext("Cancel"), "stop:no"),
    ]


LIKE, DISLIKE = "👍", "👎"


def reaction_vote(old: Collection[str], new: Collection[str]) -> int | None:
    """What a change of a person's reactions on a paper's message says, as its 👍/👎 buttons
    would: 1 or -1 for the one added (or the one kept when the other was taken off), 0 when
    both are off now; None when neither 👍 nor 👎 changed (another emoji)."""
    before = (LIKE in old, DISLIKE in old)
    after = (LIKE in new, DISLIKE in new)
    if before == after:
        return None
    if after[0] and not before[0]:
        return 1
    if after[1] and not before[1]:
        return -1
    return 1 if after[0] else -1 if after[1] else 0


def parse_press(data: str) -> Press | None:
    """What a button's data asks for; None for data we never made (or an older bot's)."""
    action, _, value = data.partition(":")
    parts = value.split(":")
    # ids as we write them: ASCII digits ('²'.isdigit() too), within the store's 64-bit integers
    numbers = [int(part) for part in parts if part.isascii() and part.isdigit() and len(part) < 19]
    if len(numbers) != len(parts):
        numbers = []
    match action, numbers:
        case "card", [row_id]:
            return ShowCard(row_id)
        case "more", [row_id, number] if number >= 1:
            return NextPage(row_id, number)
        case "like" | "dislike", [row_id]:
            return Rate(row_id, 1 if action == "like" else -1)
        case "like" | "dislike", [row_id, number] if number >= 1:
            return Rate(row_id, 1 if action == "like" else -1, number)
        case "similar", [row_id]:
            return FollowSimilar(row_id)
        case "remove", [filter_id]:
            return RemoveFilter(filter_id)
        case "recent", [filter_id]:
            return SendRecent(filter_id)
        case "save", [row_id]:
            return SavePaper(row_id)
        case "saved", [page]:
            return ShowSaved(page)
        case "unsave", [paper_id, page]:
            return Unsave(paper_id, page)
        case "libsim", [import_id]:
            return FollowImport(import_id)
        case "libau", [import_id, author]:
            return FollowImport(import_id, author)
        case "tune", [filter_id]:
            return Tune(filter_id)
    if action == "stop" and value in ("yes", "no"):
        return ConfirmStop(value == "yes")
    return None
