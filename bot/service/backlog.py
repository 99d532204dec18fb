"""How far behind the sending is, read from the database (so every process on it reports the
same): the processes alive, the rows waiting by state, and how late the oldest waiting row is
(/metrics, and /healthz against `metrics.max_waiting_seconds`).

A row is late once it could have gone and has not:
* an instant chat's row from when it was planned: it is due at once;
* a digest chat's rows from the first digest time after the chat's last digest (a weekly
  chat's: the first of its weekly times), once that time has passed and the digest has not
  gone: they wait for their hour by design, and rows planned after it has passed wait for the
  next one unless the overdue digest carries them;
* a paused chat's rows, and an inactive one's, are not waiting for anything;
* rows held by a chat's quiet hours (a digest due in them too) are late from when the window
  ends, and not at all while it lasts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from bot.core.chat import Chat
from bot.core.schedule import held_until, next_digest_due, quiet_until
from bot.core.states import DIGESTS, ChatMode
from bot.service.processes import ALIVE_WITHIN
from bot.store import Database, chats, deliveries, leases


@dataclass(frozen=True)
class Backlog:
    processes: int  # alive: a heartbeat within ALIVE_WITHIN
    waiting: dict[str, int]  # ledger rows waiting to go out, by state (pending, sending)
    oldest_waiting_seconds: float  # how late the oldest late row is (0: none is)


def read_backlog(database: Database, *, now: datetime) -> Backlog:
    with database.session() as session:
        live = leases.count_live_processes(session, now=now, within=ALIVE_WITHIN)
        waiting = deliveries.count_waiting_by_status(session)
        oldest = _oldest_late(session, now) if sum(waiting.values()) else 0.0
    return Backlog(live, waiting, oldest)


def oldest_late_seconds(database: Database, *, now: datetime) -> float:
    """How late the oldest late row is (0: none is): /healthz, which needs no more. With
    nothing waiting (most probes) the chats are not read."""
    with database.session() as session:
        return _oldest_late(session, now) if deliveries.count_waiting(session) else 0.0


def _oldest_late(session: Session, now: datetime) -> float:
    subscribed = [c for c in chats.all_chats(session, active_only=True) if not c.paused]
    instant = [c for c in subscribed if c.mode is ChatMode.INSTANT]
    late_since = _instant_late_since(session, instant, now)
    overdue = _overdue_digests(subscribed, now)
    for due in sorted(overdue):  # the earliest overdue hour with a row waiting for it
        if deliveries.waiting_before(session, chat_ids=overdue[due], before=due):
            late_since.append(due)
            break
    return max((now - min(late_since)).total_seconds(), 0.0) if late_since else 0.0


QuietHours = tuple[str | None, str | None, str]  # that hold papers: from, to, time zone


def _instant_late_since(session: Session, instant: list[Chat], now: datetime) -> list[datetime]:
    """When the instant chats' oldest waiting rows became late, one oldest row read for the
    chats of each quiet window (most share none): from when it was planned, or, planned in
    the chats' quiet hours, from when those ended; chats in their quiet hours now have none."""
    by_window: dict[QuietHours, list[int]] = defaultdict(list)
    for chat in instant:
        holding = chat.quiet_from is not None and not chat.quiet_silent
        window = (chat.quiet_from, chat.quiet_to, chat.timezone) if holding else (None, None, "")
        by_window[window].append(chat.id)
    late_since = []
    for (quiet_from, quiet_to, timezone), chat_ids in by_window.items():
        if quiet_until(now, quiet_from, quiet_to, timezone):
            continue
        planned = deliveries.oldest_waiting(session, chat_ids=chat_ids)
        if planned is not None:  # rows planned later became late later: the oldest says
            late_since.append(quiet_until(planned, quiet_from, quiet_to, timezone) or planned)
    return late_since


def _overdue_digests(subscribed: list[Chat], now: datetime) -> dict[datetime, list[int]]:
    """Digest chats whose digest hour has passed since their last digest, by that hour (a
    digest due in the chat's quiet hours: by their end)."""
    overdue: dict[datetime, list[int]] = defaultdict(list)
    for chat in subscribed:
        if chat.mode in DIGESTS:
            due = next_digest_due(chat, chat.last_digest_at)
            due = held_until(chat, due) or due
            if due <= now:
                overdue[due].append(chat.id)
    return overdue


def lateness_problem(late_seconds: float, most_seconds: float) -> str | None:
    """/healthz: one line when the oldest late row is older than `most_seconds` (0: never)."""
    if not most_seconds or late_seconds <= most_seconds:
        return None
    return (
        f"oldest waiting delivery is {late_seconds:.0f} s old, "
        f"over metrics.max_waiting_seconds={most_seconds:g}"
    )
