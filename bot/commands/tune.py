"""/tune and a first filter's "🎯 Rate 8 papers" button: a few recent papers among the chat's
filters' matches, spread over their topics, sent with their 👍 and 👎 so that the ranking starts
from the answers."""

from __future__ import annotations

from bot.commands.replies import OUT_OF_DATE, Caller, Reply, Usage, tr, tr_caller
from bot.core.buttons import Tune
from bot.core.chat import Chat
from bot.core.i18n import Translator
from bot.core.relevance import MIN_LIKES
from bot.service.app import Paperbot, Paused, Tuned


async def tune(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    if args.strip():
        return Usage()
    found = await app.tune(chat.id, chat.kind, topic=chat.topic)
    return Reply(tuned(found, tr(chat)))


async def tune_pressed(app: Paperbot, caller: Caller, press: Tune) -> Reply:
    """The button under a chat's first filter: papers among that filter's recent matches."""
    t = tr_caller(app, caller)  # app.tune registers the chat
    found = await app.tune(caller.chat_id, caller.kind, press.filter_id, caller.topic)
    if found is None:
        return Reply(t.gettext(OUT_OF_DATE), notice=True)
    if isinstance(found, Tuned) and found.offered:
        count = found.offered
        sent = t.ngettext("Sent: {count} paper to rate.", "Sent: {count} papers to rate.", count)
        return Reply(sent.format(count=t.number(count)), notice=True, alert=False)
    return Reply(tuned(found, t), notice=True)


def tuned(found: Tuned | Paused | None, t: Translator) -> str:
    """What was offered, or why nothing was, and when to ask again."""
    again = t.gettext("Try /tune again after the next announcement day brings new papers.")
    match found:
        case Paused():
            return t.gettext("Alerts are paused; /resume first.")
        case None | Tuned(filters=0):
            return t.gettext(
                'No filters yet: add one (<code>/subscribe "kv cache"</code>), then /tune offers '
                "papers among its matches to rate."
            )
        case Tuned(matched=0):
            return t.gettext("No recent paper matches your filters yet.") + " " + again
        case Tuned(offered=0, complete=False):
            return t.gettext("Telegram is not taking messages right now; try /tune again soon.")
        case Tuned(offered=0):
            return (
                t.gettext("Every recent paper your filters match has reached you or is rated.")
                + " "
                + again
            )
        case Tuned(offered=offered):
            return t.ngettext(
                "Above: a recent paper your filters match. Its 👍 and 👎 teach your ranking: "
                "once you have given {likes} 👍, your digests list what you like first.",
                "Above: {count} recent papers your filters match, picked to cover their topics. "
                "Each one's 👍 and 👎 (numbered as the papers) teach your ranking: once you have "
                "given {likes} 👍, your digests list what you like first.",
                offered,
            ).format(count=t.number(offered), likes=t.number(MIN_LIKES))
    raise AssertionError("every outcome of /tune is answered")
