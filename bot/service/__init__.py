"""The use cases: everything the bot does, in one place. Commands reach them through the
application (app.py); the console, the jobs and the CLI call these; these call the pure core
and the store. Only this package (and the store itself) talks to the database
(tests/test_architecture.py holds the line).

    app            the application: one method per use case, over the parts that keep state
    ingest         listing files in, once each (a feed's content too)
    feed_polling   the feeds job: each feed when due, backing off after failures
    planning       new papers matched into the delivery ledger (the filter index)
    delivery       the ledger sent: instant rounds, digest rounds, the chat lock
    subscriptions  a chat's filters: subscribe, unsubscribe, import, export, preview
    backfill       a new filter's recent matches, queued once when the chat asks
    chats          a chat's settings and life: register, mode, pause, forget, moves
    status         counts for /status, /stats, `paperbot status` and /metrics
    preview        what a filter matches in files or the database (`paperbot preview`)

Each use case takes the database and values and returns a value that says what happened.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)
