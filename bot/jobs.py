"""Scheduled jobs (on python-telegram-bot's JobQueue): each calls one use case, which logs one
line of counts. The same use cases run by hand: `paperbot ingest`, the console's rounds."""

from __future__ import annotations

import asyncio

from bot.app import Paperbot

DELIVERY_SECONDS = 5
DIGEST_SECONDS = 30


async def scan_inbox(paperbot: Paperbot) -> None:
    """New listings in, matched, and instant alerts out at once (not a delivery tick later)."""
    await asyncio.to_thread(paperbot.scan)
    await paperbot.deliver()


async def deliver(paperbot: Paperbot) -> None:
    await paperbot.deliver()


async def send_digests(paperbot: Paperbot) -> None:
    await paperbot.send_due_digests()
