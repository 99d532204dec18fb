"""Sending one message through Telegram's limits and retries. No database here: what a message
settles in the ledger is bot.service.delivery's business.

A transport (Telegram, or the terminal) carries one message and raises one of the errors below;
the sender spaces messages so that no limit is crossed, waits out flood control, backs off on
transient failures and falls back to plain text when Telegram refuses our HTML.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

import aiohttp

from bot import logs
from bot.core.buttons import Keyboard
from bot.core.telegram_text import to_plain
from bot.metrics import Metrics

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


class TopicGone(TransportError):
    """The forum topic the message was for is closed or deleted: the chat itself is there."""

    def __init__(self, topic: int, why: str) -> None:
        super().__init__(f"topic {topic}: {why}")
        self.topic = topic


class ChatMoved(TransportError):
    def __init__(self, new_chat_id: int) -> None:
        super().__init__(f"the group is now the supergroup {new_chat_id}")
        self.new_chat_id = new_chat_id


class Transport(Protocol):
    async def send(
        self,
        chat_id: int,
        text: str,
        *,
        html: bool = True,
        buttons: Keyboard = (),
        silent: bool = False,
        topic: int | None = None,
    ) -> int:
        """Send one message (with rows of buttons under it; `silent`: without a notification,
        as in a chat's quiet hours; `topic`: into that forum topic, None: General); returns its
        message id or raises a TransportError."""
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
        self.whole = limits.overall_per_second  # the token's budget, shared by `share`

    def share(self, processes: int) -> None:
        """Several processes send for one token: this one keeps its part of the budget (30/s
        over 2 processes: 15/s each), so that together they stay under Telegram's limit."""
        rate = self.whole / max(processes, 1)
        if rate != self.limits.overall_per_second:
            self.limits = dataclasses.replace(self.limits, overall_per_second=rate)
            self.window = int(rate)

    async def _until(self, moment: float, now: float) -> None:
        if moment > now:
            await self.sleep(moment - now)

    def chat_pause(self) -> timedelta:
        """The longest pause Telegram wants between two messages to one chat (a group's): a
        chat another process sent to last waits this long before this one sends."""
        pause = self.limits.chat_interval
        if self.limits.group_per_minute:
            pause = max(pause, 60 / self.limits.group_per_minute)
        return timedelta(seconds=pause * MARGIN)

    def _chat_interval(self, chat_id: int) -> float:
        per_chat = self.limits.chat_interval
        if chat_id < 0 and self.limits.group_per_minute:
            per_chat = max(per_chat, 60 / self.limits.group_per_minute)
        return per_chat * MARGIN

    async def wait_chat_turn(self, chat_id: int) -> None:
        now = self.monotonic()
        slot = max(now, self.next_for_chat.get(chat_id, 0.0))
        self.next_for_chat[chat_id] = slot + self._chat_interval(chat_id)
        await self._until(slot, now)

    def leaving(self, chat_id: int) -> None:
        """A message to the chat leaves now (its overall slot may have come later than its
        chat's turn): the chat's next turn counts from now, so two messages to a chat are never
        closer than its interval however long the first waited for a slot."""
        self._next_turn_from_now(chat_id)

    def chat_answered(self, chat_id: int) -> None:
        """The chat's message was answered (or failed): its next turn counts from now, too. A
        message arrives no later than its answer comes back, so however long its request took
        (a cold connection, a slow first request) the next one arrives at least the interval
        later; counted from the departure alone, two messages to one chat arrived 0.94 s apart
        and Telegram refused the second (tests/test_worker.py, in CI)."""
        self._next_turn_from_now(chat_id)

    def _next_turn_from_now(self, chat_id: int) -> None:
        following = self.monotonic() + self._chat_interval(chat_id)
        self.next_for_chat[chat_id] = max(self.next_for_chat.get(chat_id, 0.0), following)

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


@dataclass(frozen=True)
class Sent:
    """How one message went: its id (None: Telegram kept failing, try at a later round) and how
    many times it was tried again on the way."""

    message_id: int | None
    retries: int


class Sender:
    def __init__(
        self,
        transport: Transport,
        limits: Limits | None = None,
        *,
        sleep: Sleep = asyncio.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        concurrency: int = 8,
        metrics: Metrics | None = None,
    ) -> None:
        self.transport = transport
        self.metrics = metrics or Metrics()  # messages by outcome, errors by kind, latency
        self.limits = limits or Limits()
        self.sleep = sleep
        self.limiter = RateLimiter(self.limits, sleep, monotonic)
        self.in_flight = asyncio.Semaphore(concurrency)  # requests to Telegram at once

    async def send(
        self,
        chat_id: int,
        text: str,
        buttons: Keyboard = (),
        *,
        silent: bool = False,
        topic: int | None = None,
    ) -> Sent:
        """One message (Telegram HTML, buttons under it; `silent`: without a notification;
        `topic`: into that forum topic), through limits and retries; raises ChatGone,
        ChatMoved, TopicGone, and Rejected when even the plain text was refused. Its log lines
        name the chat."""
        with logs.about_chat(chat_id):
            return await self._send(chat_id, text, buttons, silent, topic)

    async def _send(
        self, chat_id: int, text: str, buttons: Keyboard, silent: bool, topic: int | None
    ) -> Sent:
        html, backoff, retries = True, self.limits.backoff_seconds, 0
        for attempt in range(1, self.limits.max_attempts + 1):
            await self.limiter.wait_chat_turn(chat_id)
            try:
                shown = text if html else to_plain(text)
                async with self.in_flight:
                    slot = await self.limiter.wait_overall_turn()
                    self.limiter.leaving(chat_id)
                    asked = self.limiter.monotonic()
                    try:
                        sent = await self.transport.send(
                            chat_id, shown, html=html, buttons=buttons, silent=silent, topic=topic
                        )
                        self.metrics.count_message("sent")
                        return Sent(sent, retries)
                    finally:
                        self.limiter.finished(slot)
                        self.limiter.chat_answered(chat_id)
                        self.metrics.send_seconds.observe(self.limiter.monotonic() - asked)
            except RetryLater as error:
                self.metrics.count_telegram_error("flood")
                wait, why = error.seconds, str(error)
            except Transient as error:
                self.metrics.count_telegram_error(_transient_kind(error))
                wait, why = backoff, f"{error}; retrying in {backoff:.0f} s"
                backoff = min(backoff * 2, 60)
            except (ChatGone, ChatMoved, TopicGone) as error:
                self.metrics.count_telegram_error(_gone_kind(error))
                self.metrics.count_message("failed")
                raise
            except Rejected as error:
                self.metrics.count_telegram_error("rejected")
                if not html:
                    self.metrics.count_message("failed")
                    raise
                log.error("bug: Telegram refused our HTML (%s); sending plain text", error)
                html = False
                continue
            retries += 1  # a failed attempt (counted whether or not another follows)
            self.metrics.count_message("retried")
            log.warning("chat %d: %s", chat_id, why)
            if attempt < self.limits.max_attempts:  # giving up waits for nothing
                await self.sleep(wait)
        self.metrics.count_message("failed")
        return Sent(None, retries)


def _gone_kind(error: ChatGone | ChatMoved | TopicGone) -> str:
    if isinstance(error, ChatGone):
        return "chat_gone"
    return "chat_moved" if isinstance(error, ChatMoved) else "topic_gone"


def _transient_kind(error: Transient) -> str:
    """`network` when no answer came back (a connection that failed or dropped, a timeout, found
    among the causes the transport chained), `server` when Telegram answered with a 5xx."""
    cause = error.__cause__
    while cause is not None:
        if isinstance(cause, OSError | TimeoutError | aiohttp.ClientError):
            return "network"
        cause = cause.__cause__
    return "server"
