"""How far behind the sending is, read from the database: the live processes, the rows waiting by
state, and how late the oldest late row is (instant rows from when they were planned, a digest
chat's from its digest hour once passed, a paused chat's never). On SQLite and PostgreSQL."""

from __future__ import annotations

from bot.core.query import FilterRules
from bot.service import ingest, processes
from bot.service.backlog import lateness_problem, oldest_late_seconds, read_backlog
from bot.service.planning import Planner
from bot.store import Database, chats, deliveries, filters
from tests.conftest import SEEDS, Clock

INSTANT, DIGEST, PAUSED = 1, 2, 3  # chat ids; the clock starts at 12:00 UTC, digests are at 08:00


def subscribe(database: Database, clock: Clock, chat_id: int, mode: str, **more: object) -> None:
    with database.session() as session:
        chats.register_chat(session, chat_id=chat_id, kind="private", now=clock())
        chats.update_chat(session, chat_id=chat_id, mode=mode, **more)
        filters.add_filter(session, chat_id=chat_id, source="we", canonical="we", now=clock())


def plan(database: Database, clock: Clock) -> int:
    ingest.ingest_paths(database, [SEEDS], clock=clock)
    return Planner(FilterRules()).plan(database, now=clock()).deliveries


def settle(database: Database, clock: Clock, chat_id: int) -> None:
    with database.session() as session:
        ids = [r.id for r in deliveries.unfinished_deliveries(session, chat_id=chat_id)]
    with database.connection() as connection:
        deliveries.mark_deliveries(connection, delivery_ids=ids, status="sent", now=clock())


def test_instant_rows_are_late_from_when_they_were_planned_digests_from_their_hour(
    any_database: Database, clock: Clock
) -> None:
    subscribe(any_database, clock, INSTANT, "instant")
    subscribe(any_database, clock, DIGEST, "digest", digest_time="08:00")
    subscribe(any_database, clock, PAUSED, "instant", paused=True)
    assert plan(any_database, clock) == 3 * 37
    with any_database.session() as session:
        [first, *_] = deliveries.unfinished_deliveries(session, chat_id=INSTANT)
    with any_database.connection() as connection:
        deliveries.mark_deliveries(connection, delivery_ids=[first.id], status="sending",
                                   now=clock())  # fmt: skip
    clock.advance(seconds=100)
    backlog = read_backlog(any_database, now=clock())
    assert backlog.waiting == {"pending": 3 * 37 - 1, "sending": 1}
    assert backlog.oldest_waiting_seconds == 100  # the instant chat's
    settle(any_database, clock, INSTANT)
    clock.advance(hours=19, minutes=58)  # tomorrow 07:59:40: the digest's hour is not yet
    assert read_backlog(any_database, now=clock()).oldest_waiting_seconds == 0  # paused: never
    clock.advance(minutes=10, seconds=20)  # 08:10
    backlog = read_backlog(any_database, now=clock())
    assert backlog.oldest_waiting_seconds == 600
    assert oldest_late_seconds(any_database, now=clock()) == 600
    assert lateness_problem(600, 900) is None and lateness_problem(600, 0) is None
    assert lateness_problem(600, 599) == (
        "oldest waiting delivery is 600 s old, over metrics.max_waiting_seconds=599"
    )
    settle(any_database, clock, DIGEST)  # the digest sent: nothing is late
    with any_database.session() as session:
        chats.update_chat(session, chat_id=DIGEST, last_digest_at=clock())
    assert read_backlog(any_database, now=clock()).oldest_waiting_seconds == 0


def test_rows_planned_after_a_missed_digest_hour_wait_for_the_next(
    any_database: Database, clock: Clock
) -> None:
    """A digest chat whose 08:00 passed unsent, with rows planned only after it: they go with the
    next digest by design, and are not late; the missed digest had nothing waiting."""
    subscribe(any_database, clock, DIGEST, "digest", digest_time="08:00")
    clock.advance(hours=20, minutes=30)  # tomorrow 08:30, the 08:00 digest not sent
    plan(any_database, clock)
    backlog = read_backlog(any_database, now=clock())
    assert backlog.waiting["pending"] == 37 and backlog.oldest_waiting_seconds == 0


def test_a_weekly_chats_rows_are_late_only_once_its_weekly_hour_passed(
    any_database: Database, clock: Clock
) -> None:
    """Thursday 22 Oct 12:00 UTC; the weekly chat's digest is on Mondays at 08:00 in Berlin
    (07:00 UTC once winter time began on the 25th): its daily hours are not late."""
    subscribe(any_database, clock, DIGEST, "weekly", digest_weekday=0, timezone="Europe/Berlin")
    plan(any_database, clock)
    clock.advance(days=3, hours=18, minutes=59)  # Monday 26 Oct 06:59 UTC: not yet
    assert read_backlog(any_database, now=clock()).oldest_waiting_seconds == 0
    clock.advance(minutes=11)  # 07:10 UTC, the digest not sent
    assert read_backlog(any_database, now=clock()).oldest_waiting_seconds == 600


def test_live_processes_are_counted_by_their_heartbeat(
    any_database: Database, clock: Clock
) -> None:
    processes.heartbeat(any_database, process_id="run", kind="paperbot", now=clock())
    clock.advance(seconds=20)
    processes.heartbeat(any_database, process_id="worker", kind="paperbot", now=clock())
    assert read_backlog(any_database, now=clock()).processes == 2
    clock.advance(seconds=11)  # run's beat is 31 s old: counted out
    backlog = read_backlog(any_database, now=clock())
    assert backlog.processes == 1 and backlog.waiting == {"pending": 0, "sending": 0}


def test_rows_held_by_quiet_hours_are_late_only_from_the_windows_end(
    any_database: Database, clock: Clock
) -> None:
    """Quiet hours of 22:00-07:00: an instant chat's rows planned at 23:00, and a digest chat's
    for its digest at 23:00, are held until 07:00, and late only from then; set to silent,
    the rows go at once, so they are late from when they were planned (and the digest from its
    hour)."""
    quiet = {"quiet_from": "22:00", "quiet_to": "07:00"}
    subscribe(any_database, clock, INSTANT, "instant", **quiet)
    subscribe(any_database, clock, DIGEST, "digest", digest_time="23:00", **quiet)
    clock.advance(hours=11)  # 23:00
    assert plan(any_database, clock) == 2 * 37
    clock.advance(hours=7, minutes=59, seconds=59)  # 06:59:59: quiet still
    assert read_backlog(any_database, now=clock()).oldest_waiting_seconds == 0
    clock.advance(seconds=101)  # 07:01:40
    assert read_backlog(any_database, now=clock()).oldest_waiting_seconds == 100
    settle(any_database, clock, DIGEST)
    with any_database.session() as session:
        chats.update_chat(session, chat_id=DIGEST, last_digest_at=clock())
        chats.update_chat(session, chat_id=INSTANT, quiet_silent=True)
    assert read_backlog(any_database, now=clock()).oldest_waiting_seconds == 8 * 3600 + 100
