"""The sender's overall window and a chat's turns, on the test's clock: however late Telegram
answered a request, no second holds more messages than the overall rate, no two messages to a
chat arrive closer than its interval, and answers on time cost nothing."""

from __future__ import annotations

import pytest

from bot.sender import MARGIN, Limits, RateLimiter
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


async def test_a_chats_next_message_waits_its_interval_after_a_late_answer() -> None:
    """A message arrives no later than its answer: the next one to the chat leaves the chat's
    interval after the answer, not after the first one left (Telegram counted 0.94 s between
    two messages to one chat when a first request was slow)."""
    time = FakeTime()
    limiter = RateLimiter(Limits(), time.sleep, time.monotonic)
    await limiter.wait_chat_turn(16)
    limiter.leaving(16)
    left = time.now
    time.now = left + 0.3  # the answer comes back late
    limiter.chat_answered(16)
    await limiter.wait_chat_turn(16)
    assert time.now == pytest.approx(left + 0.3 + MARGIN)
    await limiter.wait_chat_turn(17)  # another chat's turn is not held by it
    assert time.now == pytest.approx(left + 0.3 + MARGIN)
