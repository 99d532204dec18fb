"""The buttons under our messages, as a table like the commands': each kind of press (as
bot/core/buttons.py reads its data) with its handler, and whether it changes the chat (then
only a group's administrators may press it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

from bot.commands.filters import listed, removed, subscribed
from bot.commands.library import follow_import, save, show_saved, unsave
from bot.commands.replies import OUT_OF_DATE, Caller, Reply, tr_caller
from bot.commands.tune import tune_pressed
from bot.core.buttons import (
    ConfirmStop,
    FollowImport,
    FollowSimilar,
    NextPage,
    Rate,
    RemoveFilter,
    SavePaper,
    SendRecent,
    ShowCard,
    ShowSaved,
    Tune,
    Unsave,
    parse_press,
    rate_buttons,
    reaction_vote,
)
from bot.core.chat import GROUPS
from bot.core.i18n import N_
from bot.core.summary import shorten
from bot.runtime import Runtime
from bot.service.app import SIGNS, Paperbot, Paused, RecentSent


async def show_card(app: Paperbot, caller: Caller, press: ShowCard) -> Reply:
    shown = await app.send_card(caller.chat_id, press.row_id, caller.topic)
    return Reply("" if shown else tr_caller(app, caller).gettext(OUT_OF_DATE), notice=True)


async def next_page(app: Paperbot, caller: Caller, press: NextPage) -> Reply:
    shown = await app.send_page(
        caller.chat_id, caller.kind, press.row_id, press.number, caller.topic
    )
    return Reply("" if shown else tr_caller(app, caller).gettext(OUT_OF_DATE), notice=True)


async def send_recent(app: Paperbot, caller: Caller, press: SendRecent) -> Reply:
    """A new filter's button: its recent matches the chat has not had, sent now as a digest."""
    t = tr_caller(app, caller)
    match await app.send_recent(caller.chat_id, caller.kind, press.filter_id):
        case Paused():
            return Reply(t.gettext("Alerts are paused; /resume first."), notice=True)
        case None:
            return Reply(t.gettext(OUT_OF_DATE), notice=True)
        case RecentSent(0):
            return Reply(
                t.gettext(
                    "Nothing new to send: these papers reached you already or wait for your "
                    "next digest."
                ),
                notice=True,
            )
        case RecentSent(complete=False):
            return Reply(
                t.gettext("Telegram is not taking messages right now; they follow shortly."),
                notice=True,
            )
        case RecentSent(added):
            sent = t.ngettext("Sent: {count} paper.", "Sent: {count} papers.", added)
            return Reply(sent.format(count=t.number(added)), notice=True, alert=False)
    raise AssertionError("every outcome of a recent papers' button is answered")


async def rate(app: Paperbot, caller: Caller, press: Rate) -> Reply:
    """👍/👎: a group member's vote (anyone in the group), else the chat's rating (a channel's
    administrators, a private chat's reader)."""
    t = tr_caller(app, caller)
    if caller.kind in GROUPS and caller.user_id is not None:
        return vote(app, caller, caller.user_id, press)
    if not await caller.may_manage():
        return Reply(t.gettext(ADMINISTRATORS_ONLY), notice=True)
    rated = app.rate(caller.chat_id, press.row_id, press.value)
    if rated is None:
        return Reply(t.gettext(OUT_OF_DATE), notice=True)
    title = shorten(rated.paper.title, 60)
    if not rated.value:
        taken = t.gettext("Rating taken back: {title}").format(title=title)
        return Reply(taken, notice=True, alert=False)
    noted = t.gettext("{sign} noted: {title}").format(sign=SIGNS[rated.value], title=title)
    return Reply(noted, notice=True, alert=False)


def vote(app: Paperbot, caller: Caller, user_id: int, press: Rate) -> Reply:
    t = tr_caller(app, caller)
    voted = app.vote(caller.chat_id, user_id, press.row_id, press.value)
    if voted is None:
        return Reply(t.gettext(OUT_OF_DATE), notice=True)
    counted = rate_buttons(press.row_id, press.number, voted.likes, voted.dislikes)
    title = shorten(voted.paper.title, 60)
    if voted.value:
        said = t.gettext("Your {sign} counted: {title}").format(
            sign=SIGNS[voted.value], title=title
        )
    else:
        said = t.gettext("Your vote taken back: {title}").format(title=title)
    return Reply(
        said, notice=True, alert=False, relabel={button.data: button.label for button in counted}
    )


async def follow_similar(app: Paperbot, caller: Caller, press: FollowSimilar) -> Reply:
    t = tr_caller(app, caller)
    followed = await app.follow_row(caller.chat_id, press.row_id, caller.topic)
    if followed is None:
        return Reply(t.gettext(OUT_OF_DATE), notice=True)
    # a message of its own: the paper's stays as it is
    reply = subscribed(t, followed)
    await app.send_text(caller.chat_id, reply.text, reply.buttons, caller.topic)
    return Reply("", notice=True)


async def remove_filter(app: Paperbot, caller: Caller, press: RemoveFilter) -> Reply:
    t = tr_caller(app, caller)
    gone = app.remove_filter(caller.chat_id, press.filter_id)
    reply = listed(t, app.filters(caller.chat_id))
    if gone:
        done = t.gettext("Removed {filters}.").format(filters=removed(gone))
    else:
        done = t.gettext("Already removed.")
    reply.text = f"{done}\n{reply.text}"
    return reply


async def confirm_stop(app: Paperbot, caller: Caller, press: ConfirmStop) -> Reply:
    t = tr_caller(app, caller)  # before the chat (and its language) is forgotten
    if not press.confirmed:
        return Reply(t.gettext("Nothing was deleted."))
    app.forget(caller.chat_id)
    return Reply(
        t.gettext("Forgotten: no filters, no settings, nothing waiting. /start begins again.")
    )


ADMINISTRATORS_ONLY = N_("Only the group's administrators can change its filters.")


async def react(
    runtime: Runtime, caller: Caller, message_id: int, old: Collection[str], new: Collection[str]
) -> None:
    """A 👍 or 👎 reaction put on or taken off one of our messages: on a message of one paper,
    it counts as the paper's button would (a group member's vote, a private chat's rating),
    silently (a reaction gets no answer; Telegram shows the reactions' own counts). Other
    emojis, messages of several papers, and people unnamed (an anonymous administrator, a
    channel) change nothing."""
    value = reaction_vote(old, new)
    if value is None or caller.user_id is None:
        return
    if caller.kind not in GROUPS and caller.kind != "private":
        return  # a channel rates by its administrators' presses only
    runtime.app.react(caller.chat_id, caller.kind, caller.user_id, message_id, value)


@dataclass(frozen=True)
class Pressed:
    # each handler takes the press type it is filed under (BUTTONS' key)
    handler: Callable[[Paperbot, Caller, Any], Awaitable[Reply]]
    manages: bool  # changes the chat: a group's administrators only


BUTTONS: dict[type, Pressed] = {
    ShowCard: Pressed(show_card, manages=False),  # reading: anyone in the chat
    NextPage: Pressed(next_page, manages=False),
    SendRecent: Pressed(send_recent, manages=False),  # like /digest: anyone in the chat
    Rate: Pressed(rate, manages=False),  # a group's members vote; rate() asks the rest
    FollowSimilar: Pressed(follow_similar, manages=True),
    RemoveFilter: Pressed(remove_filter, manages=True),
    ConfirmStop: Pressed(confirm_stop, manages=True),
    SavePaper: Pressed(save, manages=True),  # the chat's library: as a rating
    ShowSaved: Pressed(show_saved, manages=False),
    Unsave: Pressed(unsave, manages=True),
    FollowImport: Pressed(follow_import, manages=True),
    Tune: Pressed(tune_pressed, manages=False),  # papers to rate: like /digest, anyone
}


async def press_button(runtime: Runtime, caller: Caller, data: str) -> Reply:
    """A button under one of our messages was pressed: the reply replaces that message, or is
    a notice while what was asked for goes out as messages of its own."""
    press = parse_press(data)
    if press is None:
        return Reply(tr_caller(runtime.app, caller).gettext(OUT_OF_DATE))
    pressed = BUTTONS[type(press)]
    if pressed.manages and not await caller.may_manage():
        return Reply(tr_caller(runtime.app, caller).gettext(ADMINISTRATORS_ONLY), notice=True)
    return await pressed.handler(runtime.app, caller, press)
