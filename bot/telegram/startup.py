"""Reaching Telegram at start, for `paperbot run` and `paperbot worker`: a network blip or
Telegram's bad minute at boot is waited out, not a process that exits (and a restart loop)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Iterator, Sequence

from telegram.error import NetworkError, RetryAfter

from bot.telegram.transport import retry_seconds

log = logging.getLogger(__name__)

# Seconds between tries to reach Telegram at start, the last repeated until it answers.
START_WAITS = (1, 2, 4, 8, 15, 30, 60)


@contextlib.contextmanager
def stopped_by_signals(stop: asyncio.Event) -> Iterator[None]:
    """SIGTERM and Ctrl-C set `stop` while the block runs (python-telegram-bot installs its own
    handlers later, for the service itself)."""
    loop = asyncio.get_running_loop()
    signals = (signal.SIGTERM, signal.SIGINT)
    for stopping in signals:
        loop.add_signal_handler(stopping, stop.set)
    try:
        yield
    finally:
        for stopping in signals:
            loop.remove_signal_handler(stopping)


async def reach_telegram(
    initialize: Callable[[], Awaitable[object]],
    stop: asyncio.Event,
    api_url: str,
    *,
    waits: Sequence[float] = START_WAITS,
) -> bool:
    """`initialize` (the bot's getMe), tried again while Telegram cannot be reached, one
    warning a try; True once it answered, False when `stop` was set first. A refused token
    (InvalidToken) is raised at once: trying again would not change the answer."""
    attempt = 0
    while True:
        try:
            await initialize()
            return True
        except RetryAfter as error:
            wait, reason = retry_seconds(error), "flood control"
        except NetworkError as error:  # no connection, a time-out, Telegram's 5xx
            wait, reason = waits[min(attempt, len(waits) - 1)], str(error)
            attempt += 1
        log.warning(
            "Telegram cannot be reached at %s (%s): trying again in %g s "
            "(PAPERBOT_TELEGRAM_API_URL)",
            api_url,
            reason,
            wait,
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)
        if stop.is_set():
            return False
