"""The sender's overall window and a chat's turns, on the test's clock: however late Telegram
answered a request, no second holds more messages than the overall rate, no two messages to a
chat arrive closer than its interval, and answers on time cost nothing."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest

from bot.core.buttons import Keyboard
from bot.logs import configured
from bot.sender import MARGIN, Limits, RateLimiter, Sender, Transient
from tests.telegram.conftest import FakeTime


async def take_slots(limiter: RateLimiter, count: int, time: FakeTime) -> list[float]:
    leaves = []
    for _ in range(count):
        slot = await limiter.wait_overall_turn()
        leaves.append(time.now)
        if slot:  # every request but the first is answered at once
            limiter.finished(slot)
    return leaves


async def test_a_late_answer_holds_the_message_a_window_later() -> None:
    time = FakeTime()
    limiter = RateLimiter(Limits(), time.sleep, time.monotonic)
    leaves = await take_slots(limiter, 30, time)
    time.now = leaves[0] + 1.5  # the first request's answer comes back late (a cold connection)
    limiter.finished(0)
    await limiter.wait_overall_turn()
    assert time.now == pytest.approx(leaves[0] + 1.5 + 1.0)  # it may have arrived just now


async def test_answers_on_time_leave_the_spacing_alone() -> None:
    time = FakeTime()
    limiter = RateLimiter(Limits(), time.sleep, time.monotonic)
    limiter.finished(await limiter.wait_overall_turn())
    leaves = [time.now, *await take_slots(limiter, 90, time)]
    gaps = [b - a for a, b in zip(leaves, leaves[1:], strict=False)]
    assert gaps == pytest.approx([MARGIN / 30] * 90)
    assert all(leaves[i + 30] - leaves[i] >= 1.0 for i in range(len(leaves) - 30))


class SlowTransport:
    """Answers each message 0.3 s after it left, on the test's clock; records when each left."""

    def __init__(self, time: FakeTime) -> None:
        self.time = time
        self.left: list[float] = []

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
        self.left.append(self.time.now)
        self.time.now += 0.3
        return len(self.left)


async def test_a_chats_next_message_waits_its_interval_after_a_late_answer() -> None:
    """A message arrives no later than its answer: the next one to the chat leaves the chat's
    interval after the answer, not after the first one left (Telegram counted 0.94 s between
    two messages to one chat when a first request was slow)."""
    time = FakeTime()
    transport = SlowTransport(time)
    sender = Sender(transport, Limits(), sleep=time.sleep, monotonic=time.monotonic)
    await sender.send(16, "first")
    await sender.send(16, "second")
    await sender.send(17, "another chat's")
    first, second, other = transport.left
    assert second - first == pytest.approx(0.3 + MARGIN)
    assert other == pytest.approx(second + 0.3)  # another chat's turn is not held by it


class FlakyTransport:
    """Telegram answers a 502 to each chat's first message, then takes it."""

    def __init__(self) -> None:
        self.tried: set[int] = set()

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
        if chat_id not in self.tried:
            self.tried.add(chat_id)
            raise Transient("502 Bad Gateway")
        return 1


async def test_a_retry_is_logged_about_its_chat() -> None:
    """In JSON lines, `chat_id` names the chat a message was for."""
    time, stream = FakeTime(), io.StringIO()
    handler = configured(logging.StreamHandler(stream), json_lines=True)
    logger = logging.getLogger("bot.sender")
    logger.addHandler(handler)
    try:
        sender = Sender(FlakyTransport(), Limits(), sleep=time.sleep, monotonic=time.monotonic)
        await asyncio.gather(sender.send(16, "one"), sender.send(17, "two"))
        await sender.send(16, "three")  # no retry: no line
    finally:
        logger.removeHandler(handler)
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert sorted((r["chat_id"], r["message"].split(":")[0]) for r in records) == [
        (16, "chat 16"),
        (17, "chat 17"),
    ]
