"""Scheduled jobs (on python-telegram-bot's JobQueue): each calls one use case, which logs one
line of counts. The same use cases run by hand: `paperbot ingest`, the console's rounds."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot import logs
from bot.config import Settings
from bot.runtime import Runtime

log = logging.getLogger(__name__)

Job = Callable[[Runtime], Awaitable[object]]

DELIVERY_SECONDS = 5
STOP_GRACE = 5.0  # seconds the rounds under way at a stop have to end before they are cancelled
DIGEST_SECONDS = 30
JOB_NAMES = {  # metrics'
    "scan_inbox": "scan",
    "deliver": "deliver",
    "send_instant": "deliver",
    "beat": "deliver",
    "send_digests": "digests",
    "digest_round": "digests",
}


def periods(settings: Settings) -> dict[str, float]:
    """How often each job runs (what /healthz holds the jobs to)."""
    return {
        "scan": settings.inbox.scan_seconds,
        "deliver": DELIVERY_SECONDS,
        "digests": DIGEST_SECONDS,
    }


async def scan_inbox(runtime: Runtime) -> None:
    """New listings in and matched, and instant alerts started at once (not a delivery tick
    later) in a round of their own: the job goes back to the inbox rather than wait minutes for
    a burst to be sent (the next scan would be skipped meanwhile, the next listing kept)."""
    await asyncio.to_thread(runtime.scan)
    await deliver(runtime)


async def deliver(runtime: Runtime) -> None:
    """The delivery tick starts a round and returns: a burst's round takes minutes, and the
    ticks meanwhile (skipped by the scheduler while a tick waited for its round) start rounds of
    their own, which take what the long one does not hold, among it a killed process's chats
    once their lease has run out."""
    runtime.in_background(run(send_instant, runtime), name="deliver")


async def send_instant(runtime: Runtime) -> None:
    await runtime.deliver()


async def beat(runtime: Runtime) -> None:
    """The heartbeat, a job of its own: a burst's delivery round takes minutes, and the
    delivery job's scheduler waits for it (the worker's loop) or skips its ticks meanwhile (the
    JobQueue). When the delivery job beat it, the process went silent for as long, and another
    counted it out and sent at the whole 30/s beside it."""
    runtime.heartbeat()


async def send_digests(runtime: Runtime) -> None:
    """The digest tick, started as the delivery tick is: a morning's round takes half an hour,
    and a killed process's due chats are taken by the next tick's round, beside it."""
    runtime.in_background(run(digest_round, runtime), name="send_digests")


async def digest_round(runtime: Runtime) -> None:
    await runtime.send_due_digests()


async def run(job: Job, runtime: Runtime) -> None:
    """One run of a job, whose log lines name it. The database out of reach (restarting, a
    network cut) fails it with one line in the log, no traceback: nothing is lost (the ledger
    says what is left) and the next run tries again."""
    with logs.in_job(job.__name__):
        try:
            await job(runtime)
        except Exception as error:
            reason = runtime.database.out_of_reach(error)
            if reason is None:
                raise
            runtime.metrics.database_errors.labels(JOB_NAMES[job.__name__]).inc()
            log.warning(
                "%s: the database is out of reach (%s); the next run tries again",
                job.__name__,
                reason,
            )
