"""Scheduled jobs (on python-telegram-bot's JobQueue): each calls one use case, which logs one
line of counts. The same use cases run by hand: `paperbot ingest`, the console's rounds."""

from __future__ import annotations

import asyncio

from bot.config import Settings
from bot.runtime import Runtime

DELIVERY_SECONDS = 5
DIGEST_SECONDS = 30


def periods(settings: Settings) -> dict[str, float]:
    """How often each job runs (what /healthz holds the jobs to)."""
    return {
        "scan": settings.inbox.scan_seconds,
        "deliver": DELIVERY_SECONDS,
        "digests": DIGEST_SECONDS,
    }


async def scan_inbox(runtime: Runtime) -> None:
    """New listings in, matched, and instant alerts out at once (not a delivery tick later)."""
    await asyncio.to_thread(runtime.scan)
    await runtime.deliver()


async def deliver(runtime: Runtime) -> None:
    await runtime.deliver()


async def send_digests(runtime: Runtime) -> None:
    await runtime.send_due_digests()
