"""The ledger sent: instant rounds, digest rounds, and the ledger's state changes.

A row goes pending -> sending -> sent (with Telegram's message id) or failed (with the reason);
rows left `sending` by a crash go back to pending at start (`resume`). Several processes may
share one database (PostgreSQL): a round first claims its chats (a lease in the chat's row,
renewed while the process holds it; a process killed midway loses it after LEASE, and whoever
claims the chat next sends what it left), so one process at a time sends to a chat. Within one
process, rounds run at once (the inbox job's delivery, the delivery ticks, /digest): a round
takes only the chats no other round of the process holds, so a burst's long round leaves the
ticks meanwhile free to take a killed process's chats once their lease runs out; and the chat
lock and the chat's version keep a round and /digest from sending the same rows (each reads
rows first and sends later).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Connection

from bot.core.buttons import Keyboard
from bot.core.chat import BEHIND_MORE, Chat, Delivery
from bot.core.compose import (
    Composed,
    Layout,
    Outgoing,
    card_buttons,
    compose_alert,
    compose_page,
    digest_order,
    digest_title,
)
from bot.core.i18n import Translator
from bot.core.query import FilterRules
from bot.core.render import plural, render_fitting
from bot.core.schedule import held_until, last_digest_due, silenced
from bot.core.states import DIGESTS, ChatMode, Status
from bot.core.topics import topic_lost_notice
from bot.i18n import translator
from bot.sender import ChatGone, ChatMoved, Rejected, Sender, Sent, TopicGone
from bot.service import Clock, followups
from bot.service.composing import Composer
from bot.service.ranking import Ranker
from bot.service.status import waiting
from bot.store import Database, chats, deliveries, filters, leases

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=60)  # a chat claimed by a process that stopped renewing is free after
FEW_CHATS = 50  # a round of at most this many chats reads their rows one chat at a time


@dataclass
class SendReport:
    messages: int = 0
    sent: int = 0
    failed: int = 0
    waiting: int = 0  # left pending for the next tick (Telegram kept failing)
    digests: int = 0
    retries: int = 0
    chats_gone: list[int] = field(default_factory=list)

    def add(self, other: SendReport) -> None:
        for name in ("messages", "sent", "failed", "waiting", "digests", "retries"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.chats_gone += other.chats_gone

    def line(self) -> str:
        return (
            f"{plural(self.sent, 'paper')} sent in {plural(self.messages, 'message')} "
            f"({plural(self.digests, 'digest')}), {self.failed} failed, {self.waiting} waiting, "
            f"{plural(self.retries, 'retry', 'retries')}"
        )


@dataclass(frozen=True)
class Paused:
    """/digest while the chat is paused."""


@dataclass(frozen=True)
class NothingWaiting:
    """/digest with nothing in the ledger for the chat."""


@dataclass(frozen=True)
class DigestSent:
    papers: int
    complete: bool  # False: Telegram stopped taking messages, the rest follows later


class Postman:
    def __init__(
        self,
        database: Database,
        sender: Sender,
        *,
        clock: Clock,
        rules: FilterRules,
        ranker: Ranker | None = None,
        holder: str = "paperbot",
        lease: timedelta = LEASE,
        composer: Composer | None = None,
    ) -> None:
        self.database, self.sender, self.clock, self.ranker = database, sender, clock, ranker
        self.holder = holder  # this process, as chat claims name it
        self.lease = lease  # held claims are renewed three times within it
        self.processes = 1  # live processes sharing the database: a round takes its share
        self.claims: Counter[int] = Counter()  # chats claimed, by how many rounds hold each
        self.renewer: asyncio.Task[None] | None = None
        self.composer = composer or Composer(database, rules, ranker)
        self.composing = ThreadPoolExecutor(1, thread_name_prefix="compose")  # _send_digest's
        # a digest round's beside one under way composes in its own thread: a killed process's
        # chats are not queued behind the long round's thousands
        self.composing_beside = ThreadPoolExecutor(1, thread_name_prefix="compose-beside")
        self.digest_rounds = 0  # digest rounds under way
        self.chat_locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Bumped whenever a chat's rows are being sent: rows read at an older version are read
        # again under the chat's lock, so two senders never send the same rows.
        self.chat_versions: dict[int, int] = defaultdict(int)

    def resume(self) -> int:
        """On start: rows left `sending` by a crash go back to pending (at-least-once), except
        those of chats another live process holds now (SQLite serves one process: whatever
        claims and heartbeats a crashed run left are void)."""
        with self.database.session() as session:
            if not self.database.shared:
                leases.release_all(session)
            return leases.reset_unclaimed_sending(session, now=self.clock())

    # -- the two modes -----------------------------------------------------------------------

    async def deliver_instant(self) -> SendReport:
        """Every pending row of instant chats that no other round of this process holds, but
        those of chats in their quiet hours (held there: the first tick after the window sends
        them together): the delivery job's tick."""
        now = self.clock()
        with self.database.session() as session:
            waiting = deliveries.chats_waiting(session, modes=[ChatMode.INSTANT])
            quiet = chats.quiet_chats(session) if waiting else []
        held = {chat.id for chat in quiet if held_until(chat, now)}
        waiting = [chat_id for chat_id in waiting if chat_id not in held]
        report = SendReport()
        async with self._claimed(waiting, shared=True) as mine:
            if not mine:
                return report
            by_chat = self._instant_rows(mine)  # read once claimed: nobody else sends
            versions = {chat_id: self.chat_versions[chat_id] for chat_id in by_chat}
            with self.database.session() as session:
                # the round's chats in one read, not one a chat (a burst's round: thousands)
                found = chats.get_chats(session, chat_ids=list(by_chat))
            alerts = (
                self._alert_chat(
                    c,
                    rows,
                    versions[c],
                    _layout(found.get(c)),
                    _silent(found.get(c), now),
                    _tr(found.get(c)),
                )
                for c, rows in sorted(by_chat.items())
            )
            with self.composer.round(list(by_chat)):
                for part in await asyncio.gather(*alerts):
                    report.add(part)
        return report

    def _instant_rows(self, chat_ids: set[int]) -> dict[int, list[Delivery]]:
        """The chats' waiting rows: a few chats' (a round beside a burst's: rows planned since,
        a killed process's chats) one chat at a time, through the index of waiting rows; more,
        every instant chat's in one read, kept for these chats."""
        by_chat: dict[int, list[Delivery]] = defaultdict(list)
        with self.database.session() as session:
            if len(chat_ids) <= FEW_CHATS:
                for chat_id in sorted(chat_ids):
                    by_chat[chat_id] = deliveries.unfinished_deliveries(session, chat_id=chat_id)
                return {chat_id: rows for chat_id, rows in by_chat.items() if rows}
            for row in deliveries.unfinished_deliveries(session, modes=[ChatMode.INSTANT]):
                if row.chat_id in chat_ids:
                    by_chat[row.chat_id].append(row)
        return by_chat

    async def digest_tick(self) -> SendReport:
        """Digests that are due: each chat's local hour passed since its last digest (also a
        digest missed while the bot was down), of the chats no other round of this process
        holds."""
        report = SendReport()
        # the first round composes in the postman's thread, one beside it in another
        executor = self.composing_beside if self.digest_rounds else self.composing
        self.digest_rounds += 1
        try:
            async with self._claimed([chat.id for chat in self._due()], shared=True) as mine:
                due = [chat for chat in self._due() if chat.id in mine]  # not sent meanwhile
                with self.composer.round([chat.id for chat in due]):
                    sent = (self._digest(chat, executor) for chat in due)
                    for part in await asyncio.gather(*sent):
                        report.add(part)
        finally:
            self.digest_rounds -= 1
        return report

    def _due(self) -> list[Chat]:
        """Digests due now; one due in the chat's quiet hours waits for their end."""
        now = self.clock()
        with self.database.session() as session:
            return [
                chat
                for chat in chats.all_chats(session, active_only=True)
                if chat.mode in DIGESTS
                and not chat.paused
                and chat.last_digest_at < last_digest_due(chat, now)
                and not held_until(chat, now)
            ]

    async def digest_now(self, chat: Chat) -> Paused | NothingWaiting | DigestSent:
        """/digest: what waits for the chat, now."""
        if chat.paused:
            return Paused()
        if not waiting(self.database, chat.id):
            return NothingWaiting()
        report = await self.send_digest(chat)
        return DigestSent(report.sent, complete=not report.waiting)

    async def send_digest(self, chat: Chat) -> SendReport:
        """Everything pending for the chat as one digest (several messages when long), or one
        line saying why there is nothing: no announcement, or nothing matched (/digest: composed
        at once, not behind a round's thousands)."""
        return await self._digest(chat, None)

    async def _digest(self, chat: Chat, executor: ThreadPoolExecutor | None) -> SendReport:
        """The chat's digest, composed by `executor` (a round's chats: in turn, in a postman's
        thread; None: at once, in the loop's pool)."""
        report = SendReport(digests=1)
        async with self._claimed([chat.id]) as mine, self.chat_locks[chat.id]:
            if not mine:  # another process is sending to the chat: what waits goes later
                report.waiting = 1
                return report
            with self.composer.round():
                await self._send_digest(chat, report, executor)
        return report

    # -- claims: one process at a time sends to a chat -----------------------------------------

    @contextlib.asynccontextmanager
    async def _claimed(
        self, chat_ids: Sequence[int], *, shared: bool = False
    ) -> AsyncIterator[set[int]]:
        """The chats of `chat_ids` that this process may send to (no other live process holds
        them), held for the block and renewed meanwhile. `shared`: a round's work, of which
        this process takes its share (the chats divided by the live processes), so that a burst
        is sent by all of them, each at its part of Telegram's budget; what it leaves goes to
        the others' rounds, or to its own next one. A round leaves alone the chats another
        of this process's rounds holds: rounds overlap (a burst's takes minutes, and the ticks
        meanwhile start rounds of their own for what it does not hold: rows planned since, and
        a killed process's chats as soon as their lease has run out), each chat in one."""
        if shared:  # no await from here to the claims counted: no round slips in between
            chat_ids = [chat_id for chat_id in chat_ids if chat_id not in self.claims]
        now = self.clock()
        most = -(-len(chat_ids) // self.processes) if shared and self.processes > 1 else None
        with self.database.connection() as connection:
            mine = leases.claim_chats(
                connection, chat_ids=chat_ids, holder=self.holder, now=now,
                until=now + self.lease, most=most,
            )  # fmt: skip
        self.claims.update(mine)
        if mine and (self.renewer is None or self.renewer.done()):
            self.renewer = asyncio.create_task(self._renew())
        try:
            yield set(mine)
        finally:
            self.claims.subtract(mine)
            done = [chat_id for chat_id in mine if self.claims[chat_id] <= 0]
            for chat_id in done:
                del self.claims[chat_id]
            if not self.claims and self.renewer is not None:
                self.renewer.cancel()
                self.renewer = None
            with self.database.connection() as connection:
                cooling = self.clock() + self.sender.limiter.chat_pause()
                leases.release_chats(connection, chat_ids=done, holder=self.holder, until=cooling)

    async def _renew(self) -> None:
        """While this process holds chats, their leases are renewed three times a lease."""
        while self.claims:
            await asyncio.sleep(self.lease.total_seconds() / 3)

            def renew(connection: Connection) -> None:
                until = self.clock() + self.lease
                leases.renew_chats(
                    connection, chat_ids=list(self.claims), holder=self.holder, until=until
                )

            await self.database.write(renew)  # a database out of reach is waited for

    # -- rounds ------------------------------------------------------------------------------

    async def _alert_chat(
        self,
        chat_id: int,
        rows: list[Delivery],
        version: int,
        layout: Layout,
        silent: bool,
        t: Translator,
    ) -> SendReport:
        report = SendReport()
        async with self.chat_locks[chat_id]:
            if self.chat_versions[chat_id] != version:  # sent to since `rows` were read
                with self.database.session() as session:
                    rows = deliveries.unfinished_deliveries(session, chat_id=chat_id)
            notes, rows = followups.split(rows)  # follow-ups first, each its own message
            if notes:
                told = followups.compose(self.database, chat_id, notes, digest=False)
                await self._send_messages(chat_id, told, report, silent=silent)
                if report.waiting or report.chats_gone:
                    return report
            for topic, grouped in self.composer.by_topic(chat_id, rows):
                messages = compose_alert(self.composer.items(chat_id, grouped), layout, t=t)
                await self._send_messages(chat_id, messages, report, silent=silent, topic=topic)
                if report.waiting or report.chats_gone:  # the rest waits for the next tick
                    break
        return report

    async def _send_digest(
        self, chat: Chat, report: SendReport, executor: ThreadPoolExecutor | None
    ) -> None:
        now = self.clock()
        # composed in a thread, since a busy chat's digest takes a tenth of a second or more
        # (bench/day.py), which the event loop would owe every other chat's command meanwhile.
        # A round's digests in the postman's own, one at a time: queued in the loop's pool,
        # they held up every command that runs in a thread (/preview, /subscribe) until the
        # round was composed, and six threads composing at once took 85 s where one took 70
        # (10,000 digests on PostgreSQL; command p95 362 ms against 65)
        loop = asyncio.get_running_loop()
        digest = await loop.run_in_executor(executor, self.composer.digest, chat, now)
        silent = silenced(chat, now)  # a round's digest in silent quiet hours
        for topic, messages in digest.parts:  # a digest for each topic that has papers
            await self._send_messages(chat.id, messages, report, silent=silent, topic=topic)
            if report.waiting or report.chats_gone:
                break
        if not digest.parts and digest.line:
            report.add(await self.send_text(chat.id, digest.line, silent=silent))
        if not report.waiting and chat.id not in report.chats_gone:
            with self.database.session() as session:
                chats.update_chat(session, chat_id=chat.id, last_digest_at=now)

    # -- sending and the ledger's states -------------------------------------------------------

    async def _send_messages(
        self,
        chat_id: int,
        messages: Sequence[Outgoing],
        report: SendReport,
        *,
        silent: bool = False,
        topic: int | None = None,
    ) -> None:
        """Under the chat's lock (`silent`: without a notification; `topic`: into that forum
        topic). The chat's version moves before and after, so rows read before or during this
        send are read again by the next sender."""
        self.chat_versions[chat_id] += 1
        try:
            await self._send_in_order(chat_id, messages, report, silent, topic)
        finally:
            self.chat_versions[chat_id] += 1

    async def _send_in_order(
        self,
        chat_id: int,
        messages: Sequence[Outgoing],
        report: SendReport,
        silent: bool,
        topic: int | None,
    ) -> None:
        marked: list[int] = []  # rows already marked sending (with the previous message's sent)
        for position, message in enumerate(messages):
            rows = [*message.rows, *message.behind]
            ids = [r.id for r in rows]
            if ids != marked:
                await self._mark(ids, Status.SENDING)
            try:
                sent, topic = await self._send_or_fall_back(chat_id, message, silent, topic)
            except ChatGone as error:
                self._chat_gone(chat_id, str(error), report)
                return
            except ChatMoved as moved:
                await self._mark(ids, Status.PENDING)
                with self.database.session() as session:
                    chats.move_chat(session, old_id=chat_id, new_id=moved.new_chat_id)
                log.info("chat %d moved to %d; its deliveries follow", chat_id, moved.new_chat_id)
                report.waiting += len(rows)
                return
            except Rejected as error:
                await self._mark(ids, Status.FAILED, reason=f"refused by Telegram: {error}")
                log.error("bug: chat %d: Telegram refused even plain text: %s", chat_id, error)
                report.failed += len(rows)
                continue
            report.retries += sent.retries
            if sent.message_id is None:
                await self._mark(ids, Status.PENDING)
                report.waiting += len(rows)
                return  # Telegram keeps failing: the rest waits for the next tick, in order
            following = messages[position + 1] if position + 1 < len(messages) else None
            marked = [r.id for r in (*following.rows, *following.behind)] if following else []
            shown = [r.id for r in message.rows]
            behind = [r.id for r in message.behind]
            await self._mark(
                shown, Status.SENT, message_id=sent.message_id, behind=behind, then_sending=marked
            )
            report.messages += 1
            report.sent += len({r.paper_id for r in rows})

    async def _send_or_fall_back(
        self, chat_id: int, message: Outgoing, silent: bool, topic: int | None
    ) -> tuple[Sent, int | None]:
        """The message into its topic; when Telegram says the topic is closed or deleted, the
        administrators are told in General, the filters bound to it are unbound (their papers
        go to General from now on), and the message goes there: returns how it went, and the
        topic it went to (the rest of a digest follows it)."""
        try:
            return await self.sender.send(
                chat_id, message.text, message.buttons, silent=silent, topic=topic
            ), topic
        except TopicGone as gone:
            if not await self._lose_topic(chat_id, gone):  # Telegram failing: the rows wait
                return Sent(None, 0), topic
        return await self.sender.send(chat_id, message.text, message.buttons, silent=silent), None

    async def _lose_topic(self, chat_id: int, gone: TopicGone) -> bool:
        """A topic gone: the administrators told in General which filters lost it, then those
        unbound. False when Telegram did not take the notice: nothing is unbound, so the next
        round meets the gone topic again and tells them then (a crash between the two tells
        them twice, never not at all)."""
        with self.database.session() as session:
            listed = filters.chat_filters(session, chat_id=chat_id)
            chat = chats.get_chat(session, chat_id=chat_id)
        bound = [f for f in listed if f.topic == gone.topic]
        log.info("chat %d: %s; %d filters to General", chat_id, gone, len(bound))
        if not bound:  # unbound already (by /topic, or by another process)
            return True
        numbers = {f.id: number for number, f in enumerate(listed, 1)}
        notice = topic_lost_notice(gone.topic, bound, numbers, t=_tr(chat))
        try:  # ChatGone and ChatMoved go to the caller, as for the message itself
            if (await self.sender.send(chat_id, notice)).message_id is None:
                return False
        except Rejected as error:  # the papers do not wait on a notice refused for good
            log.error("bug: chat %d: Telegram refused the lost topic's notice: %s", chat_id, error)
        with self.database.session() as session:
            filters.unbind_topic(session, chat_id=chat_id, topic=gone.topic)
        self.composer.forget_filters(chat_id)  # the round reads their topics again
        return True

    async def _mark(
        self,
        ids: list[int],
        status: Status,
        *,
        message_id: int | None = None,
        reason: str | None = None,
        behind: Sequence[int] = (),
        then_sending: Sequence[int] = (),
    ) -> None:
        """Rows to a new state; `behind`: rows sent behind the message's "more" button, in
        the order its pages list them; `then_sending`: the next message's rows. All in one
        commit (waiting for a database out of reach: a message that went out is recorded so),
        so a crash never leaves a sent digest's button without the rows behind it."""
        now = self.clock()

        def mark(connection: Connection) -> None:
            deliveries.mark_deliveries(
                connection,
                delivery_ids=ids,
                status=status,
                now=now,
                message_id=message_id,
                reason=reason,
            )
            deliveries.mark_deliveries(
                connection,
                delivery_ids=behind,
                status=status,
                now=now,
                message_id=message_id,
                reason=BEHIND_MORE,
                in_order=True,
            )
            if then_sending:
                deliveries.mark_deliveries(
                    connection, delivery_ids=then_sending, status=Status.SENDING, now=now
                )

        await self.database.write(mark)

    def _chat_gone(self, chat_id: int, reason: str, report: SendReport) -> None:
        with self.database.session() as session:
            report.failed += chats.mark_unreachable(session, chat_id=chat_id, reason=reason)
        report.chats_gone.append(chat_id)
        log.info("chat %d cannot be reached (%s): marked inactive", chat_id, reason)

    # -- messages outside the ledger -----------------------------------------------------------

    async def send_card(self, chat_id: int, row_id: int, topic: int | None = None) -> bool:
        """A digest entry's button: the paper's whole card (abstract, comments, links, the
        filters it matched), into the topic of the button's message. False when the row is not
        the chat's."""
        with self.database.session() as session:
            row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=chat_id)
            t = _tr(chats.get_chat(session, chat_id=chat_id))
        if row is None:
            return False
        with self.composer.round():
            [(item, _)] = self.composer.items(chat_id, [row])
        card, buttons = render_fitting(item, t=t), card_buttons(item, row.id, t=t)
        await self.send_text(chat_id, card, buttons, topic=topic)
        return True

    async def send_page(
        self, chat: Chat, row_id: int, number: int, topic: int | None = None
    ) -> bool:
        """A digest's "more" button: its next page (into the topic of the button's message),
        from the paper of `row_id`, numbered from `number`. The rows behind the button settled
        with the digest's last message, in the order its pages list them; pages are not in the
        ledger. False when the row is not the chat's (or not behind a button)."""
        with self.database.session() as session:
            row = deliveries.get_delivery(session, delivery_id=row_id, chat_id=chat.id)
            if row is None or row.message_id is None:
                return False
            rows, ordered = deliveries.behind_button(
                session, chat_id=chat.id, message_id=row.message_id
            )
        with self.composer.round():
            items: Composed = self.composer.items(chat.id, rows)
            if not ordered:  # a digest sent before its pages' order was stored
                items = [items[i] for i in digest_order([item for item, _ in items])]
        announced = [item.paper.announced for item, _ in items]
        weekly, t = chat.mode is ChatMode.WEEKLY, translator(chat.language)
        title = digest_title(self.clock().date(), announced, weekly=weekly, t=t)
        page = compose_page(items, title, Layout.of(chat), row_id=row_id, number=number, t=t)
        for message in page:
            report = await self.send_text(chat.id, message.text, message.buttons, topic=topic)
            if not report.messages:
                break
        return bool(page)

    async def send_text(
        self,
        chat_id: int,
        text: str,
        buttons: Keyboard = (),
        *,
        silent: bool = False,
        topic: int | None = None,
    ) -> SendReport:
        """A message outside the ledger (an empty digest's line, a card, a digest's later
        page), with the same limits; into `topic`, or General when that topic is gone (what
        it lost is the ledger's business: its filters are unbound when a ledger row meets it)."""
        report, _ = await self._send_text(chat_id, text, buttons, silent=silent, topic=topic)
        return report

    async def send_settled(
        self,
        chat_id: int,
        text: str,
        buttons: Keyboard,
        rows: Sequence[Delivery],
        *,
        reason: str,
        topic: int | None = None,
    ) -> bool:
        """A message that carries rows settled as sent before it went (papers offered to rate,
        bot/service/starters.py), sent as `send_text`; once Telegram took it, its rows are
        marked with it (their `reason` kept), as an alert's rows are, so that a reaction on it
        finds its paper (`feedback.one_paper_row`). False when Telegram did not take it."""
        _, message_id = await self._send_text(chat_id, text, buttons, topic=topic)
        if message_id is None:
            return False
        if rows:
            ids = [row.id for row in rows]
            await self._mark(ids, Status.SENT, message_id=message_id, reason=reason)
        return True

    async def _send_text(
        self,
        chat_id: int,
        text: str,
        buttons: Keyboard,
        *,
        silent: bool = False,
        topic: int | None = None,
    ) -> tuple[SendReport, int | None]:
        """`send_text`, and the id of the message when Telegram took it."""
        report = SendReport()
        try:
            try:
                sent = await self.sender.send(chat_id, text, buttons, silent=silent, topic=topic)
            except TopicGone:
                sent = await self.sender.send(chat_id, text, buttons, silent=silent)
        except ChatGone as error:
            self._chat_gone(chat_id, str(error), report)
            return report, None
        except (ChatMoved, Rejected, TopicGone) as error:
            log.warning("chat %d: %s", chat_id, error)
            return report, None
        report.retries += sent.retries
        if sent.message_id is not None:
            report.messages += 1
        return report, sent.message_id


def _layout(chat: Chat | None) -> Layout:
    return Layout.of(chat) if chat else Layout()


def _tr(chat: Chat | None) -> Translator:
    """The chat's translator (English for a chat gone from the store meanwhile)."""
    return translator(chat.language if chat else None)


def _silent(chat: Chat | None, now: datetime) -> bool:
    return chat is not None and silenced(chat, now)
