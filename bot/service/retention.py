"""How long the ledger keeps rows that went out: at the density bench/day.py plans (10,000 chats
of 10 filters, a 2,000-paper day), ~6 million rows a day, which nothing else would ever delete.

A row sent more than `delivery.keep_days` ago (failed: planned that long ago) is deleted; the
buttons of its message (its card, the digest's next pages, 👍/👎, "more like this") then answer
that the message is out of date. Deleting it cannot send its paper again: a paper is matched
once (`paper.matched_at`), the same paper in a later listing or feed is recognised as
stored, and a record merged into it is matched again only for chats none of whose filters
matched it before (bot/service/planning.py). Rows still waiting are kept whatever their age
(a paused chat's).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.store import Database, deliveries

# Ids a transaction, which planning and the delivery marks wait for on SQLite: ~40 ms a range
# of a busy day's rows on SQLite and on PostgreSQL alike (5.85 million rows in 4.7-4.8 s).
PRUNE_IDS = 50_000
# Ranges a call: a ledger never pruned before (months of it), or a busy day's rows, is pruned
# over several calls, each going on where the last stopped and bounded, rather than holding up
# the inbox job that calls it for minutes.
PRUNE_RANGES = 20


def prune_ledger(
    database: Database,
    *,
    keep: timedelta,
    now: datetime,
    start: int = 0,
    ids: int = PRUNE_IDS,
    ranges: int = PRUNE_RANGES,
) -> tuple[int, int | None]:
    """The rows settled before `now - keep`, deleted a range of ids at a time from `start` (a
    range begins at the next id stored: a stretch of ids deleted before is passed in one step)
    up to the rows planned since then; how many, and the id the next call goes on from after
    `ranges` ranges (None: it got there)."""
    before = now - keep
    deleted = 0
    for _ in range(ranges):
        with database.session() as session:
            first = deliveries.next_id(session, start)
            if first is None:
                return deleted, None
            count, newer = deliveries.prune_deliveries(
                session, start=first, stop=first + ids, before=before
            )
        deleted += count
        if newer:
            return deleted, None
        start = first + ids
    return deleted, start
