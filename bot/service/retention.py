"""How long the ledger keeps rows that went out: at the density bench/day.py plans (10,000 chats
of 10 filters, a 2,000-paper day), ~6 million rows a day, which nothing else would ever delete.

A row sent (or failed) more than `delivery.keep_days` ago is deleted; the buttons of its message
(its card, the digest's next pages, 👍/👎, "more like this") then answer that the message is out
of date. Deleting it cannot send its paper again: a paper is matched once (`paper.matched_at`),
and the same paper in a later listing or feed is recognised as stored. Rows still waiting are
kept whatever their age (a paused chat's).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from bot.store import Database, deliveries

log = logging.getLogger(__name__)

# Ids a transaction, which planning and the delivery marks wait for on SQLite: ~40 ms a range
# of a busy day's rows on SQLite and on PostgreSQL alike (5.85 million rows in 4.7-4.8 s).
PRUNE_IDS = 50_000
# Ranges a call: a ledger never pruned before (months of it) is pruned over several calls, each
# bounded, rather than holding up the inbox job that calls it for minutes.
PRUNE_RANGES = 20


def prune_ledger(
    database: Database,
    *,
    keep: timedelta,
    now: datetime,
    ids: int = PRUNE_IDS,
    ranges: int = PRUNE_RANGES,
) -> tuple[int, bool]:
    """The rows settled before `now - keep`, deleted a range of ids at a time, from the first
    settled row up to the rows planned since then; how many, and whether it got there (False:
    `ranges` ranges were done, and another call goes on)."""
    before = now - keep
    with database.session() as session:
        found = deliveries.settled_ids(session)
    if found is None:
        return 0, True
    start, highest = found
    deleted = 0
    for _ in range(ranges):
        with database.session() as session:
            count, newer = deliveries.prune_deliveries(
                session, start=start, stop=start + ids, before=before
            )
        deleted += count
        start += ids
        if newer or start > highest:
            return deleted, True
    return deleted, False
