"""The Application: built in one place, handlers a few lines each over the command layer."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, JobSubmissionEvent
from apscheduler.schedulers.base import BaseScheduler
from telegram import (
    BotCommand,
    ChatMemberUpdated,
    InputFile,
    Message,
    ReactionType,
    ReactionTypeEmoji,
    Update,
)
from telegram.constants import ChatMemberStatus, ParseMode
from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    Application,
    CallbackContext,
    CallbackQueryHandler,
    ChatMemberHandler,
    ContextTypes,
    ExtBot,
    MessageHandler,
    MessageReactionHandler,
    filters,
)

from bot import i18n, jobs, logs
from bot.commands import (
    COMMANDS,
    Caller,
    Reply,
    handle_text,
    import_file,
    press_button,
    react,
)
from bot.config import Settings, cannot_listen
from bot.core.buttons import relabeled
from bot.core.flood import FloodGate, Verdict
from bot.core.i18n import ENGLISH, Translator
from bot.core.summary import shorten
from bot.core.telegram_text import split_message
from bot.metrics import Metrics, serve_metrics
from bot.runtime import Runtime
from bot.sender import Transport
from bot.telegram.startup import reach_telegram, stopped_by_signals
from bot.telegram.transport import (
    NO_PREVIEW,
    TelegramTransport,
    keyboard_of,
    markup,
    telegram_request,
)

log = logging.getLogger(__name__)

ADMINS = (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
# The updates asked of Telegram, polling or by webhook: every kind, message_reaction among them
# (a 👍 or 👎 reaction on a paper votes; Telegram sends reactions only when asked, and only to a
# group's administrator bots)
ALLOWED_UPDATES = Update.ALL_TYPES
GONE = (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT)


class Context(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """Handlers reach the bot's parts through the context, never through globals."""

    @property
    def runtime(self) -> Runtime:
        found: Runtime = self.application.bot_data["runtime"]
        return found


def _caller(update: Update, context: Context) -> Caller:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None
    # a forum's topic: a message in it, or the message under a pressed button (a reply chain's
    # thread id in a group without topics is not a topic)
    message = update.effective_message
    topic = message.message_thread_id if message is not None and message.is_topic_message else None

    async def is_admin() -> bool:
        if user is None:
            return False
        member = await context.bot.get_chat_member(chat.id, user.id)
        return member.status in ADMINS

    return Caller(
        chat.id,
        chat.type,
        is_admin,
        user.id if user is not None else None,
        topic,
        user.language_code if user is not None else None,
    )


def _translator(update: object, context: Context) -> Translator:
    """The chat's language for what the adapter says itself (a flood's notice, an error): the
    speaker's before the chat has one, and English when the database cannot tell."""
    chat = update.effective_chat if isinstance(update, Update) else None
    user = update.effective_user if isinstance(update, Update) else None
    speaker = user.language_code if user is not None else None
    if chat is None:
        return i18n.translator(speaker)
    try:
        return context.runtime.app.translator(chat.id, speaker)
    except Exception:  # the database may be the very trouble being told about: say it anyway
        log.warning("could not read chat %d's language; the speaker's instead", chat.id)
        return i18n.translator(speaker)


def _admitted(update: Update, context: Context) -> Verdict:
    """Whether the user's command is answered (bot/core/flood.py)."""
    gate: FloodGate = context.application.bot_data["flood"]
    who = update.effective_user or update.effective_chat
    now = time.monotonic()
    gate.forget_idle(now)
    return gate.admit(who.id, now) if who is not None else Verdict.ANSWER


async def on_message(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or message.text is None:
        return
    caller = _caller(update, context)
    verdict = _admitted(update, context)
    if verdict is Verdict.TELL:
        gate: FloodGate = context.application.bot_data["flood"]
        who = update.effective_user or message.chat
        seconds = max(round(gate.wait(who.id, time.monotonic())), 1)
        t = _translator(update, context)
        notice = t.ngettext(
            "That is more than {count} command in a minute; I answer again in {seconds} s.",
            "That is more than {count} commands in a minute; I answer again in {seconds} s.",
            gate.per_minute,
        )
        await message.reply_text(
            notice.format(count=t.number(gate.per_minute), seconds=t.number(seconds))
        )
        return
    if verdict is Verdict.DROP:
        return
    reply = await handle_text(context.runtime, caller, message.text, context.bot.username)
    if reply is not None:
        await _answer(message, reply)


async def _answer(message: Message, reply: Reply) -> None:
    """A command's reply: its text (split where too long, the buttons under the last part),
    then its file."""
    parts = split_message(reply.text)
    for number, part in enumerate(parts, 1):
        await message.reply_text(
            part,
            parse_mode=ParseMode.HTML,
            reply_markup=markup(reply.buttons) if number == len(parts) else None,
            link_preview_options=NO_PREVIEW,
        )
    if reply.document is not None:
        document = InputFile(reply.document.data, filename=reply.document.name)
        await message.reply_document(document)


async def on_document(update: Update, context: Context) -> None:
    """A file sent to the bot: a library to import (in a group, only with /import as its
    caption). Who sent it and its size are checked before it is fetched (getFile)."""
    message = update.effective_message
    if message is None or message.document is None:
        return
    caption = (message.caption or "").strip()
    if message.chat.type != "private" and not caption.lower().startswith("/import"):
        return  # a file shared in a group is not for us
    if _admitted(update, context) is not Verdict.ANSWER:
        return
    document = message.document
    size, found = document.file_size, None
    if not size:  # Telegram leaves it out at times: getFile tells it before a byte is fetched
        found = await document.get_file()
        size = found.file_size

    async def read() -> bytes:
        fetched = found or await document.get_file()
        return bytes(await fetched.download_as_bytearray())

    caller = _caller(update, context)
    reply = await import_file(context.runtime, caller, size, read)
    await _answer(message, reply)


async def on_button(update: Update, context: Context) -> None:
    query = update.callback_query
    if query is None or query.data is None:
        return
    if _admitted(update, context) is not Verdict.ANSWER:  # a flood of presses: not acted on
        t = _translator(update, context)
        await query.answer(t.gettext("Too many at once; try again in a minute."))
        return
    reply = await press_button(context.runtime, _caller(update, context), query.data)
    if reply.notice:  # an alert to read, or nothing to say (a card or a page was sent)
        await query.answer(reply.text or None, show_alert=reply.alert and bool(reply.text))
        if reply.relabel and isinstance(query.message, Message):
            await _relabel(query.message, reply.relabel)
        return
    await query.answer()
    try:
        await query.edit_message_text(
            reply.text, parse_mode=ParseMode.HTML, reply_markup=markup(reply.buttons)
        )
    except BadRequest as error:
        if "not modified" not in error.message.lower():
            raise
        # a second press of the same button: the message already says this


async def _relabel(message: Message, labels: dict[str, str]) -> None:
    """The message's buttons named in `labels` (by their data) labelled anew: a group's vote
    counts on a paper's 👍 and 👎."""
    keyboard = keyboard_of(message.reply_markup)
    changed = relabeled(keyboard, labels)
    if changed == keyboard:
        return
    try:
        await message.edit_reply_markup(markup(changed))
    except TelegramError as error:
        # the vote is stored and the member told: a refused edit (two presses at once said it
        # already; a burst of votes met flood control; the message was deleted) only leaves
        # the counts to the next press, which draws them from the database
        if "not modified" not in error.message.lower():
            log.info("could not show the votes on message %d: %s", message.message_id, error)


async def on_reaction(update: Update, context: Context) -> None:
    """A reaction changed on one of our messages: a 👍 or 👎 on a paper counts as its button."""
    change = update.message_reaction
    if change is None or _admitted(update, context) is not Verdict.ANSWER:
        return

    def emojis(reactions: tuple[ReactionType, ...]) -> set[str]:
        return {r.emoji for r in reactions if isinstance(r, ReactionTypeEmoji)}

    old, new = emojis(change.old_reaction), emojis(change.new_reaction)
    await react(context.runtime, _caller(update, context), change.message_id, old, new)


async def on_membership(update: Update, context: Context) -> None:
    """Blocked by a user or removed from a group: the chat is inactive until /start."""
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None or change.new_chat_member.status not in GONE:
        return
    reason = "blocked by the user" if change.chat.type == "private" else "removed from the chat"
    context.runtime.app.mark_unreachable(change.chat.id, reason)
    log.info("chat %d %s: inactive", change.chat.id, reason)


async def on_migration(update: Update, context: Context) -> None:
    """A group became a supergroup: its filters and settings move to the new id."""
    message = update.effective_message
    if message is None:
        return
    old, new = message.chat.id, message.migrate_to_chat_id
    if new is None and message.migrate_from_chat_id is not None:
        old, new = message.migrate_from_chat_id, message.chat.id
    if new is not None and context.runtime.app.move_chat(old, new):
        log.info("chat %d became %d: its filters moved", old, new)


async def on_error(update: object, context: Context) -> None:
    if context.job is not None:  # a scheduled job's run failed (there is no update)
        name = context.job.name or str(context.job.id)
        with logs.in_job(name):
            log.error("job %s failed", name, exc_info=context.error)
        return
    if update is None and isinstance(context.error, NetworkError):  # polling: Telegram's trouble
        log.warning("fetching updates from Telegram failed (%s); polling again", context.error)
        return
    chat = update.effective_chat if isinstance(update, Update) else None
    with logs.about_chat(chat.id if chat is not None else None):
        log.error("error while handling an update", exc_info=context.error)
        if chat is not None:
            await _tell_about_error(context, chat.id, _translator(update, context))


async def _tell_about_error(context: Context, chat_id: int, t: Translator) -> None:
    try:
        await context.bot.send_message(
            chat_id,
            t.gettext(
                "Sorry, something went wrong on my side. It has been logged; please try again "
                "later."
            ),
        )
    except TelegramError as error:  # Telegram itself is the trouble: the log says it all
        log.warning("could not tell chat %d about the error: %s", chat_id, error)


Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]


def _about_its_chat(handler: Handler) -> Handler:
    """The handler, whose log lines name the update's chat."""

    @functools.wraps(handler)
    async def handle(update: Update, context: Context) -> None:
        chat = update.effective_chat
        with logs.about_chat(chat.id if chat is not None else None):
            await handler(update, context)

    return handle


def job_callback(
    work: Callable[[Runtime], Awaitable[object]],
) -> Callable[[Context], Coroutine[Any, Any, None]]:
    """The job as the JobQueue runs it, named as the job (its log lines, its errors, its
    skipped runs say which)."""

    async def callback(context: Context) -> None:
        await jobs.run(work, context.runtime)

    callback.__name__ = work.__name__
    return callback


MENU_DESCRIPTION = 256  # characters of a command's description in Telegram's menu


def bot_menu(t: Translator = ENGLISH) -> list[tuple[str, str]]:
    """Telegram's command menu in the reader's language: every command but the operators'
    own, each described within Telegram's limit."""
    return [
        (c.name, shorten(t.gettext(c.help), MENU_DESCRIPTION))
        for c in COMMANDS
        if not c.operators_only
    ]


def menu_languages() -> dict[str, Translator]:
    """Telegram's language_code (ISO 639-1: "pt" for pt_BR, "zh" for zh_Hans) -> the offered
    language whose menu its users see; English is the menu of every other code. A language
    offered as itself wins its code over a regional one ("pt" over "pt_BR")."""
    offered = sorted(i18n.available()[1:], key=lambda lang: "_" in lang)
    menus: dict[str, Translator] = {}
    for language in offered:
        t = i18n.translator(language)
        menus.setdefault(t.locale.language, t)
    menus.pop(ENGLISH.language, None)
    return menus


async def set_menus(bot: ExtBot[None]) -> None:
    """The command menu, in English for everyone, then in each offered language for the users
    whose app speaks it."""
    try:
        await bot.set_my_commands([BotCommand(*entry) for entry in bot_menu()])
        for code, t in menu_languages().items():
            commands = [BotCommand(*entry) for entry in bot_menu(t)]
            await bot.set_my_commands(commands, language_code=code)
    except TelegramError as error:  # the menu is a convenience: set again at the next start
        log.warning("could not set the command menu in Telegram (%s); going on", error)


async def start_bot(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """At start: the command menus, rows in flight at the last stop resumed, jobs scheduled."""
    runtime: Runtime = application.bot_data["runtime"]
    await set_menus(application.bot)
    resumed = runtime.resume()
    if resumed:
        log.info("%d deliveries were in flight at the last stop: resending", resumed)
    periods = jobs.periods(runtime.settings)
    if runtime.settings.metrics.port:  # /healthz holds the jobs to the periods scheduled below
        application.bot_data["metrics"] = await serve_metrics(
            runtime.metrics,
            runtime.read_store,
            runtime.health(periods),
            runtime.settings.metrics.host,
            runtime.settings.metrics.port,
        )
    queue = application.job_queue
    if queue is not None:
        count_skipped_runs(queue.scheduler, runtime.metrics)
    if application.bot_data.get("schedule_jobs") and queue is not None:
        queue.run_repeating(job_callback(jobs.beat), periods["deliver"], first=0)
        queue.run_repeating(job_callback(jobs.scan_inbox), periods["scan"], first=0)
        queue.run_repeating(job_callback(jobs.deliver), periods["deliver"], first=1)
        queue.run_repeating(job_callback(jobs.send_digests), periods["digests"], first=2)


SKIPPED_RUN = 'Execution of job "%s" skipped: maximum number of running instances reached'


class SkippedRunsQuiet(logging.Filter):
    """APScheduler warns each time a job's tick comes while its last run is still going (the
    inbox scan of a large drop: the delivery and digest jobs start their rounds in the
    background and return), each line saying no more than paperbot_job_runs_skipped_total
    counts."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(SKIPPED_RUN)


_SKIPPED_RUNS_QUIET = SkippedRunsQuiet()


def count_skipped_runs(scheduler: BaseScheduler, metrics: Metrics) -> None:
    """A job's run skipped because the last one is still going: counted by job, not logged."""
    logging.getLogger("apscheduler.scheduler").addFilter(_SKIPPED_RUNS_QUIET)  # added once

    def skipped(event: JobSubmissionEvent) -> None:
        job = scheduler.get_job(event.job_id)
        name = job.name if job is not None else str(event.job_id)
        metrics.job_runs_skipped.labels(jobs.JOB_NAMES.get(name, name)).inc()

    scheduler.add_listener(skipped, EVENT_JOB_MAX_INSTANCES)


async def finish_rounds(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """At stop, Telegram still reachable: the delivery rounds under way (started by the jobs,
    which python-telegram-bot does not wait for) given a few seconds to end, as the worker's."""
    runtime: Runtime = application.bot_data["runtime"]
    await runtime.finish_rounds(jobs.STOP_GRACE)


async def stop_bot(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """At stop: ratings of the last moments trained and stored, this process's claims given up,
    the metrics endpoint closed."""
    runtime: Runtime = application.bot_data["runtime"]
    await runtime.app.settle_ratings()
    runtime.leave()
    server = application.bot_data.pop("metrics", None)
    if server is not None:
        await server.stop()


MakeRuntime = Callable[[Transport], Runtime]


def build_application(
    settings: Settings,
    token: str,
    make_runtime: MakeRuntime,
    *,
    request_timeout: float | None = None,
    schedule_jobs: bool = True,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The Application with its handlers, and the running bot's parts made for its transport
    (`make_runtime`: the caller wires the database and, in tests, the clocks). Tests turn the
    scheduled jobs off to run them at the moment they choose."""
    builder = (
        Application.builder()
        .token(token)
        .base_url(settings.telegram.api_url)
        .base_file_url(settings.telegram.file_url)
        .context_types(ContextTypes(context=Context))
        .post_init(start_bot)
        .post_stop(finish_rounds)
        .post_shutdown(stop_bot)
    )
    requests = telegram_request(request_timeout), telegram_request(request_timeout, connections=1)
    application = builder.request(requests[0]).get_updates_request(requests[1]).build()
    application.bot_data["requests"] = requests
    application.bot_data["runtime"] = make_runtime(TelegramTransport(application.bot))
    application.bot_data["schedule_jobs"] = schedule_jobs
    application.bot_data["flood"] = FloodGate(settings.telegram.commands_per_minute)
    text = filters.TEXT & ~filters.UpdateType.EDITED
    application.add_handler(
        MessageHandler(filters.StatusUpdate.MIGRATE, _about_its_chat(on_migration))
    )
    application.add_handler(MessageHandler(text, _about_its_chat(on_message)))
    application.add_handler(MessageHandler(filters.Document.ALL, _about_its_chat(on_document)))
    application.add_handler(CallbackQueryHandler(_about_its_chat(on_button)))
    application.add_handler(
        MessageReactionHandler(
            _about_its_chat(on_reaction),
            message_reaction_types=MessageReactionHandler.MESSAGE_REACTION_UPDATED,
        )
    )
    application.add_handler(
        ChatMemberHandler(_about_its_chat(on_membership), ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_error_handler(on_error)
    return application


def run_service(settings: Settings, token: str, make_runtime: MakeRuntime) -> None:
    """`paperbot run`: Telegram's updates (polling, or webhook mode when a webhook URL is set)
    and the jobs until SIGTERM or Ctrl-C."""
    application = build_application(settings, token, make_runtime)
    inbox = settings.inbox
    log.info("paperbot starting; inbox %s scanned every %s s", inbox.dir, inbox.scan_seconds)
    logging.getLogger("telegram.ext").addFilter(RefusedTokenToldOnce())
    telegram = settings.telegram
    loop = asyncio.new_event_loop()  # python-telegram-bot's run_* take the current loop
    asyncio.set_event_loop(loop)
    try:
        if not loop.run_until_complete(_reach(application, telegram.api_url)):
            return  # stopped while Telegram could not be reached
        if telegram.webhook_url is None:
            application.run_polling(
                allowed_updates=ALLOWED_UPDATES, timeout=timedelta(seconds=30), close_loop=False
            )
        else:
            log.info(
                "webhook mode: %s, listening on %s", telegram.webhook_url, telegram.webhook_listen
            )
            _run_webhook(application, settings)
    finally:
        _close_requests(application)
        loop.close()
        log.info("paperbot stopped")


async def _reach(application: Application[Any, Any, Any, Any, Any, Any], api_url: str) -> bool:
    """The bot's getMe before python-telegram-bot starts (which then finds the bot ready): its
    own start gives up at the first network error."""
    stop = asyncio.Event()
    with stopped_by_signals(stop):
        return await reach_telegram(application.bot.initialize, stop, api_url)


def _run_webhook(
    application: Application[Any, Any, Any, Any, Any, Any], settings: Settings
) -> None:
    try:
        application.run_webhook(**webhook_options(settings), close_loop=False)
    except OSError as error:  # the webhook server's port (python-telegram-bot's tornado)
        listen = settings.telegram.webhook_listen
        raise cannot_listen(
            error, listen, "Telegram's webhook", "PAPERBOT_TELEGRAM_WEBHOOK_LISTEN"
        ) from None


class RefusedTokenToldOnce(logging.Filter):
    """A refused token ends `paperbot run` with one line that names the setting (bot/cli.py):
    python-telegram-bot's own traceback of it, logged as it gives up starting, is left out."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], InvalidToken))


def _close_requests(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """python-telegram-bot closes its connections only when its start-up got through: after a
    refused token they would stay open, and asyncio would log so at exit."""
    requests = application.bot_data["requests"]
    loop = asyncio.get_event_loop()  # run_service's, still open
    loop.run_until_complete(asyncio.gather(*(request.shutdown() for request in requests)))


def webhook_options(settings: Settings) -> dict[str, Any]:
    """python-telegram-bot's webhook server, as the settings have it: plain HTTP on the listen
    address behind the operator's HTTPS proxy, answering on the public URL's path; the URL and
    the secret go to Telegram (setWebhook) at start, and a request without the secret in its
    X-Telegram-Bot-Api-Secret-Token header is refused (403)."""
    telegram = settings.telegram
    assert telegram.webhook_url is not None and telegram.webhook_secret is not None  # validated
    host, port = telegram.webhook_address
    return {
        "listen": host,
        "port": port,
        "url_path": urlsplit(telegram.webhook_url).path,
        "webhook_url": telegram.webhook_url,
        "secret_token": telegram.webhook_secret.get_secret_value(),
        "allowed_updates": ALLOWED_UPDATES,
    }
