"""Sending the ledger: instant alerts, daily digests, Telegram's limits, retries and failures.

A transport (Telegram, or the terminal) carries one message and raises one of the errors below;
everything else (which rows, which messages, rates, retries, the ledger's states) is here.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.core.highlight import Highlight, highlights, merge_highlights
from bot.core.paper import Paper
from bot.core.query import InvalidQuery, parse_query
from bot.core.render import (
    Item,
    MatchedFilter,
    Message,
    render_alert,
    render_digest,
    to_plain,
)
from bot.core.schedule import last_due
from bot.service import Clock
from bot.store import Database, chats, deliveries, papers
from bot.store.chats import Chat, Filter
from bot.store.deliveries import Delivery

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class TransportError(Exception):
    """A message did not go out; the subclass says what to do about it."""


class RetryLater(TransportError):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"flood control: retry after {seconds} s")
        self.seconds = seconds


class Transient(TransportError):
    """A 5xx, a timeout or a network error: back off and try again."""


class ChatGone(TransportError):
    """Blocked, kicked, deactivated: the chat cannot be reached until it comes back."""


class Rejected(TransportError):
    """Telegram refused the message itself (bad HTML, too long): a bug on our side."""


class ChatMoved(TransportError):
    def __init__(self, new_chat_id: int) -> None:
        super().__init__(f"the group is now the supergroup {new_chat_id}")
        self.new_chat_id = new_chat_id


class Transport(Protocol):
    async def send(self, chat_id: int, text: str, *, html: bool = True) -> int:
        """Send one message; returns its message id or raises a TransportError."""
        ...


@dataclass(frozen=True)
class Limits:
    """Telegram's limits: messages per second overall, seconds between messages to one chat,
    messages per minute to one group. Zero switches a limit off."""

    overall_per_second: float = 30
    chat_interval: float = 1.0
    group_per_minute: float = 20
    max_attempts: int = 8
    backoff_seconds: float = 1.0

    @classmethod
    def off(cls) -> Limits:
        return cls(0, 0, 0)


MARGIN = 1.04  # messages leave a little under the limits: network jitter must not cross them


class RateLimiter:
    """Spaces messages so that no limit is exceeded: each chat's turn first, then a slot of the
    overall rate taken just before the request goes out (so requests never leave in a bunch)."""

    def __init__(self, limits: Limits, sleep: Sleep, monotonic: Callable[[], float]) -> None:
        self.limits, self.sleep, self.monotonic = limits, sleep, monotonic
        self.next_overall = 0.0
        self.overall_lock = asyncio.Lock()
        self.next_for_chat: dict[int, float] = {}
        # The window: a message arrives at Telegram no later than its answer comes back, so the
        # n-th may leave only a second after the answer to the (n - rate)-th: however late that
        # one arrived (a cold connection, a slow first request), no second holds more than the
        # rate. Slots are numbered; finished(slot) records when each was answered.
        self.window = int(limits.overall_per_second)
        self.slots = 0
        self.answered: dict[int, float] = {}

    async def _until(self, moment: float, now: float) -> None:
        if moment > now:
            await self.sleep(moment - now)

    async def wait_chat_turn(self, chat_id: int) -> None:
        per_chat = self.limits.chat_interval
        if chat_id < 0 and self.limits.group_per_minute:
            per_chat = max(per_chat, 60 / self.limits.group_per_minute)
        now = self.monotonic()
        slot = max(now, self.next_for_chat.get(chat_id, 0.0))
        self.next_for_chat[chat_id] = slot + per_chat * MARGIN
        await self._until(slot, now)

    async def wait_overall_turn(self) -> int:
        """One sender at a time; the next slot counts from the moment this one really leaves, so
        a busy moment never lets several go at once to catch up. Returns the slot's number."""
        async with self.overall_lock:
            rate = self.limits.overall_per_second
            interval = MARGIN / rate if rate else 0
            now = self.monotonic()
            target = max(now, self.next_overall)
            slot, self.slots = self.slots, self.slots + 1
            if self.window and slot >= self.window:  # unanswered yet: taken as answered now
                target = max(target, self.answered.pop(slot - self.window, now) + 1.0)
            await self._until(target, now)
            left = self.monotonic()
            # a sleep's small overshoot is not added up; a stall of the loop is not caught up
            self.next_overall = (target if left - target < interval / 2 else left) + interval
            return slot

    def finished(self, slot: int) -> None:
        """The request of `slot` was answered (or failed): the window counts from now."""
        if self.window and slot >= self.slots - self.window:
            self.answered[slot] = self.monotonic()


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
            f"{self.sent} papers sent in {self.messages} messages ({self.digests} digests), "
            f"{self.failed} failed, {self.waiting} waiting, {self.retries} retries"
        )


class Postman:
    def __init__(
        self,
        database: Database,
        transport: Transport,
        *,
        clock: Clock,
        limits: Limits | None = None,
        sleep: Sleep = asyncio.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        concurrency: int = 8,
    ) -> None:
        self.database, self.transport, self.clock = database, transport, clock
        self.limits = limits or Limits()
        self.sleep = sleep
        self.limiter = RateLimiter(self.limits, sleep, monotonic)
        self.in_flight = asyncio.Semaphore(concurrency)  # requests to Telegram at once
        self.chat_locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Bumped whenever a chat's rows are being sent: rows read at an older version are read
        # again under the chat's lock, so two senders never send the same rows.
        self.chat_versions: dict[int, int] = defaultdict(int)
        self.papers: dict[int, Paper] = {}  # read once per tick, whatever the number of chats
        self.filters: dict[int, list[Filter]] = {}  # the tick's chats' filters, by chat
        self.ticks = 0

    @contextlib.contextmanager
    def _tick(self, chat_ids: Sequence[int] = ()) -> Iterator[None]:
        """Papers (and the given chats' filters) are read once per tick for all its chats, and
        forgotten after it."""
        if chat_ids:
            with self.database.session() as session:
                self.filters.update(chats.filters_of_chats(session, chat_ids=chat_ids))
        self.ticks += 1
        try:
            yield
        finally:
            self.ticks -= 1
            if not self.ticks:
                self.papers.clear()
                self.filters.clear()

    def resume(self) -> int:
        """On start: rows left `sending` by a crash go back to pending (at-least-once)."""
        with self.database.session() as session:
            return deliveries.reset_sending(session)

    # -- composing ---------------------------------------------------------------------------

    def _items(self, chat_id: int, rows: Sequence[Delivery]) -> list[tuple[Item, list[Delivery]]]:
        """One item per paper (a pending new version of an unsent paper goes out as one), with
        the rows it settles."""
        with self.database.session() as session:
            missing = {r.paper_id for r in rows} - self.papers.keys()
            self.papers.update(papers.get_papers(session, paper_ids=missing))
            listed = self.filters.get(chat_id)
            if listed is None:
                listed = chats.chat_filters(session, chat_id=chat_id)
        filters = {f.id: f for f in listed}  # a filter not among them was removed since
        numbers = {f.id: n for n, f in enumerate(listed, 1)}
        by_paper: dict[int, list[Delivery]] = defaultdict(list)
        for row in rows:
            by_paper[row.paper_id].append(row)
        items = []
        for paper_id, settled in by_paper.items():
            paper = self.papers[paper_id]
            matched: list[MatchedFilter] = []
            marks: list[Highlight] = []
            for filter_id in sorted({f for r in settled for f in r.filter_ids}):
                known = filters.get(filter_id)
                if known is None:  # removed since it matched: the paper still goes, as promised
                    matched.append(MatchedFilter(0, "a filter since removed"))
                    continue
                matched.append(MatchedFilter(numbers.get(filter_id, 0), known.canonical))
                marks += _marks(known.source, paper)
            is_update = all(r.is_update for r in settled)
            items.append((Item(paper, merge_highlights(marks), matched, is_update), settled))
        return items

    # -- sending -----------------------------------------------------------------------------

    async def _send_one(self, chat_id: int, text: str, report: SendReport) -> int | None:
        """One message, through limits and retries. Returns its message id, or None when it
        must wait for a later tick; raises ChatGone (and ChatMoved)."""
        html, backoff = True, self.limits.backoff_seconds
        for _attempt in range(self.limits.max_attempts):
            await self.limiter.wait_chat_turn(chat_id)
            try:
                shown = text if html else to_plain(text)
                async with self.in_flight:
                    slot = await self.limiter.wait_overall_turn()
                    try:
                        return await self.transport.send(chat_id, shown, html=html)
                    finally:
                        self.limiter.finished(slot)
            except RetryLater as error:
                report.retries += 1
                log.warning("chat %d: %s", chat_id, error)
                await self.sleep(error.seconds)
            except Transient as error:
                report.retries += 1
                log.warning("chat %d: %s; retrying in %.0f s", chat_id, error, backoff)
                await self.sleep(backoff)
                backoff = min(backoff * 2, 60)
            except Rejected as error:
                if not html:
                    raise
                log.error("bug: Telegram refused our HTML (%s); sending plain text", error)
                html = False
        return None

    async def _send_messages(
        self, chat_id: int, messages: Sequence[tuple[str, list[Delivery]]], report: SendReport
    ) -> None:
        """Under the chat's lock. The chat's version moves before and after, so rows read
        before or during this send are read again by the next sender."""
        self.chat_versions[chat_id] += 1
        try:
            await self._send_in_order(chat_id, messages, report)
        finally:
            self.chat_versions[chat_id] += 1

    async def _send_in_order(
        self, chat_id: int, messages: Sequence[tuple[str, list[Delivery]]], report: SendReport
    ) -> None:
        marked: list[int] = []  # rows already marked sending (with the previous message's sent)
        for position, (text, rows) in enumerate(messages):
            ids = [r.id for r in rows]
            if ids != marked:
                self._mark(ids, "sending")
            try:
                message_id = await self._send_one(chat_id, text, report)
            except ChatGone as error:
                self._chat_gone(chat_id, str(error), report)
                return
            except ChatMoved as moved:
                self._mark(ids, "pending")
                with self.database.session() as session:
                    chats.move_chat(session, old_id=chat_id, new_id=moved.new_chat_id)
                log.info("chat %d moved to %d; its deliveries follow", chat_id, moved.new_chat_id)
                report.waiting += len(rows)
                return
            except Rejected as error:
                self._mark(ids, "failed", reason=f"refused by Telegram: {error}")
                log.error("bug: chat %d: Telegram refused even plain text: %s", chat_id, error)
                report.failed += len(rows)
                continue
            if message_id is None:
                self._mark(ids, "pending")
                report.waiting += len(rows)
                return  # Telegram keeps failing: the rest waits for the next tick, in order
            following = messages[position + 1][1] if position + 1 < len(messages) else []
            marked = [r.id for r in following]
            self._mark(ids, "sent", message_id=message_id, then_sending=marked)
            report.messages += 1
            report.sent += len({r.paper_id for r in rows})

    def _mark(
        self,
        ids: list[int],
        status: str,
        *,
        message_id: int | None = None,
        reason: str | None = None,
        then_sending: Sequence[int] = (),
    ) -> None:
        """Rows to a new state; `then_sending`: the next message's rows, in the same commit."""
        now = self.clock()
        with self.database.connection() as connection:
            deliveries.mark_deliveries(
                connection,
                delivery_ids=ids,
                status=status,
                now=now,
                message_id=message_id,
                reason=reason,
            )
            if then_sending:
                deliveries.mark_deliveries(
                    connection, delivery_ids=then_sending, status="sending", now=now
                )

    def _chat_gone(self, chat_id: int, reason: str, report: SendReport) -> None:
        with self.database.session() as session:
            report.failed += chats.mark_unreachable(session, chat_id=chat_id, reason=reason)
        report.chats_gone.append(chat_id)
        log.info("chat %d cannot be reached (%s): marked inactive", chat_id, reason)

    async def send_text(self, chat_id: int, text: str) -> SendReport:
        """A message outside the ledger (an empty digest's line), with the same limits."""
        report = SendReport()
        try:
            if await self._send_one(chat_id, text, report) is not None:
                report.messages += 1
        except ChatGone as error:
            self._chat_gone(chat_id, str(error), report)
        except (ChatMoved, Rejected) as error:
            log.warning("chat %d: %s", chat_id, error)
        return report

    # -- the two modes -----------------------------------------------------------------------

    async def _alert_chat(self, chat_id: int, rows: list[Delivery], version: int) -> SendReport:
        report = SendReport()
        async with self.chat_locks[chat_id]:
            if self.chat_versions[chat_id] != version:  # sent to since `rows` were read
                with self.database.session() as session:
                    rows = deliveries.unfinished_deliveries(session, chat_id=chat_id)
            items = self._items(chat_id, rows)
            messages = render_alert([item for item, _ in items])
            await self._send_messages(chat_id, _with_rows(messages, items), report)
        return report

    async def deliver_instant(self) -> SendReport:
        """Every pending row of instant chats: the delivery job's tick."""
        by_chat: dict[int, list[Delivery]] = defaultdict(list)
        with self.database.session() as session:
            for row in deliveries.unfinished_deliveries(session, modes=["instant"]):
                by_chat[row.chat_id].append(row)
        versions = {chat_id: self.chat_versions[chat_id] for chat_id in by_chat}
        report = SendReport()
        with self._tick(list(by_chat)):
            for part in await asyncio.gather(
                *(self._alert_chat(c, rows, versions[c]) for c, rows in sorted(by_chat.items()))
            ):
                report.add(part)
        return report

    async def send_digest(self, chat: Chat) -> SendReport:
        """Everything pending for the chat as one digest (several messages when long), or one
        line saying why there is nothing: no announcement, or nothing matched."""
        report = SendReport(digests=1)
        async with self.chat_locks[chat.id]:
            with self._tick():
                await self._send_digest(chat, report)
        return report

    async def _send_digest(self, chat: Chat, report: SendReport) -> None:
        now = self.clock()
        with self.database.session() as session:
            rows = deliveries.unfinished_deliveries(session, chat_id=chat.id)
            arrived = papers.count_papers_since(session, since=chat.last_digest_at)
            has_filters = bool(chats.chat_filters(session, chat_id=chat.id))
        if rows:
            items = self._items(chat.id, rows)
            title = f"Your digest, {now.date():%-d %b %Y}"
            messages = render_digest([item for item, _ in items], title)
            await self._send_messages(chat.id, _with_rows(messages, items), report)
        elif has_filters:
            line = (
                f"Nothing matched your filters among {arrived} new papers since the last digest."
                if arrived
                else "No announcement since the last digest: no new listing arrived."
            )
            report.add(await self.send_text(chat.id, line))
        if not report.waiting and chat.id not in report.chats_gone:
            with self.database.session() as session:
                chats.update_chat(session, chat_id=chat.id, last_digest_at=now)

    async def digest_tick(self) -> SendReport:
        """Digests that are due: each chat's local hour passed since its last digest (also a
        digest missed while the bot was down)."""
        now = self.clock()
        with self.database.session() as session:
            due = [
                chat
                for chat in chats.all_chats(session, active_only=True)
                if chat.mode == "digest"
                and not chat.paused
                and chat.last_digest_at < last_due(now, chat.digest_time, chat.timezone)
            ]
        report = SendReport()
        with self._tick([chat.id for chat in due]):
            for part in await asyncio.gather(*(self.send_digest(chat) for chat in due)):
                report.add(part)
        return report


@functools.lru_cache(maxsize=4096)
def _marks(source: str, paper: Paper) -> tuple[Highlight, ...]:
    """The words a filter matched in a paper; many chats share popular filters, so remembered."""
    try:
        return tuple(highlights(parse_query(source), paper))
    except InvalidQuery:  # stored by an older paperbot: the paper is still sent, unmarked
        return ()


def _with_rows(
    messages: Sequence[Message], items: Sequence[tuple[Item, list[Delivery]]]
) -> list[tuple[str, list[Delivery]]]:
    return [(m.text, [row for i in m.items for row in items[i][1]]) for m in messages]
