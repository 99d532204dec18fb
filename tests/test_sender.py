"""The sender's overall window, on the test's clock: however late Telegram answered a request, no
second holds more messages than the overall rate, and answers on time cost nothing."""

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
