"""`paperbot worker`: the service without Telegram's updates (the inbox, feeds, planning,
instant alerts and digests), sending through the Bot API. Any number of workers and one
`paperbot run` (which also answers commands) share one PostgreSQL database: the inbox and
planning are done by one process at a time (an advisory lock), each chat is sent to by one
process at a time (a lease), and Telegram's budget is shared (bot/runtime.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from telegram import Bot

from bot import jobs, logs
from bot.config import Settings
from bot.metrics import serve_metrics
from bot.runtime import Runtime
from bot.sender import Transport
from bot.telegram.startup import reach_telegram, stopped_by_signals
from bot.telegram.transport import TelegramTransport, telegram_request

log = logging.getLogger(__name__)


async def every(seconds: float, job: jobs.Job, runtime: Runtime, stop: asyncio.Event) -> None:
    """The job, then again each `seconds` until `stop` is set; a failing round is logged and the
    next one comes as usual."""
    while not stop.is_set():
        try:
            await jobs.run(job, runtime)
        except Exception:
            with logs.in_job(job.__name__):
                log.exception("job %s failed; trying again in %s s", job.__name__, seconds)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds)


async def run_jobs(runtime: Runtime, stop: asyncio.Event) -> None:
    """The scheduled jobs, as `paperbot run` schedules them, until `stop` is set; /healthz and
    /metrics meanwhile on `metrics.port` (when set)."""
    periods = jobs.periods(runtime.settings)
    port = runtime.settings.metrics.port
    server = None
    if port:
        health = runtime.health(periods)
        host = runtime.settings.metrics.host
        server = await serve_metrics(runtime.metrics, runtime.read_store, health, host, port)
    try:
        await asyncio.gather(
            every(periods["deliver"], jobs.beat, runtime, stop),
            every(periods["scan"], jobs.scan_inbox, runtime, stop),
            every(periods["deliver"], jobs.deliver, runtime, stop),
            every(periods["digests"], jobs.send_digests, runtime, stop),
        )
    finally:
        await runtime.finish_rounds(jobs.STOP_GRACE)
        if server is not None:
            await server.stop()


async def work(
    settings: Settings, token: str, make_runtime: Callable[[Transport], Runtime]
) -> None:
    bot = Bot(token, base_url=settings.telegram.api_url, request=telegram_request())
    stop = asyncio.Event()
    with stopped_by_signals(stop):
        try:
            if await reach_telegram(bot.initialize, stop, settings.telegram.api_url):
                await _work(bot, make_runtime, stop)
        finally:
            await bot.shutdown()
    log.info("paperbot worker stopped")


async def _work(
    bot: Bot, make_runtime: Callable[[Transport], Runtime], stop: asyncio.Event
) -> None:
    """The jobs until `stop`, Telegram reached."""
    runtime = make_runtime(TelegramTransport(bot))
    resumed = runtime.resume()
    if resumed:
        log.info("%d deliveries were in flight at the last stop: resending", resumed)
    log.info("paperbot worker running as %s", runtime.postman.holder)
    try:
        await run_jobs(runtime, stop)
    finally:
        await runtime.app.settle_ratings()
        runtime.leave()


def run_worker(
    settings: Settings, token: str, make_runtime: Callable[[Transport], Runtime]
) -> None:
    """`paperbot worker`: until SIGTERM or Ctrl-C."""
    asyncio.run(work(settings, token, make_runtime))
