"""Two processes on one database, each with its postman (a holder of its own): every ledger row
goes out once, a chat is sent to by one at a time, and a process that stops renewing its claim
(killed) leaves its chats to the other after the lease. On SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.core.query import FilterRules
from bot.sender import Limits, Sender
from bot.service import ingest, processes
from bot.service.delivery import LEASE, Postman
from bot.service.planning import Planner
from bot.store import Database, chats, deliveries, filters, leases
from tests.conftest import SEEDS, Clock
from tests.transports import HoldingTransport, RecordingTransport

CHATS = range(1, 9)


async def no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)  # a turn for the other process's round


def process(database: Database, clock: Clock, name: str) -> tuple[Postman, RecordingTransport]:
    transport = RecordingTransport()
    sender = Sender(transport, Limits.off(), sleep=no_sleep, monotonic=lambda: 0.0)
    return Postman(database, sender, clock=clock, rules=FilterRules(), holder=name), transport


def papers_arrive(database: Database, clock: Clock) -> int:
    with database.session() as session:
        for chat_id in CHATS:
            chats.register_chat(session, chat_id=chat_id, kind="private", now=clock())
            chats.update_chat(session, chat_id=chat_id, mode="instant")
            filters.add_filter(session, chat_id=chat_id, source="we", canonical="we", now=clock())
    ingest.ingest_paths(database, [SEEDS], clock=clock)
    return Planner(FilterRules()).plan(database, now=clock()).deliveries


def sent_rows(database: Database) -> dict[int, int]:
    """Message ids of sent rows, by row."""
    with database.session() as session:
        rows = [r for c in CHATS for r in deliveries.all_deliveries(session, chat_id=c)]
    assert all(r.status == "sent" for r in rows), {r.status for r in rows}
    return {r.id: r.message_id or 0 for r in rows}


async def test_two_processes_send_every_row_once(any_database: Database, clock: Clock) -> None:
    planned = papers_arrive(any_database, clock)
    (first, one), (second, two) = (process(any_database, clock, n) for n in ("a", "b"))
    reports = await asyncio.gather(first.deliver_instant(), second.deliver_instant())
    assert sum(r.sent for r in reports) == planned == 8 * 37
    assert len(sent_rows(any_database)) == planned
    by_one, by_two = set(one.chats()), set(two.chats())
    assert by_one | by_two == set(CHATS) and not by_one & by_two  # a chat: one sender
    assert await first.deliver_instant() == await second.deliver_instant()  # nothing left


async def test_a_killed_process_leaves_its_chats_after_the_lease(
    any_database: Database, clock: Clock
) -> None:
    papers_arrive(any_database, clock)
    killed, _ = process(any_database, clock, "killed")
    with any_database.connection() as connection:  # it claimed every chat, marked rows sending,
        now = clock()  # and died before sending (or while a message was in flight)
        leases.claim_chats(connection, chat_ids=list(CHATS), holder="killed", now=now,
                           until=now + LEASE)  # fmt: skip
    with any_database.session() as session:
        rows = deliveries.unfinished_deliveries(session, chat_id=1)
    await killed._mark([r.id for r in rows[:3]], "sending")

    survivor, carried = process(any_database, clock, "survivor")
    if any_database.shared:  # (SQLite serves one process: there, a start voids all claims)
        assert survivor.resume() == 0  # the killed one's chats are claimed: not yet
    report = await survivor.deliver_instant()
    assert report.sent == 0 and carried.sent == []  # held by the other until the lease ends
    clock.now += LEASE + timedelta(seconds=1)
    report = await survivor.deliver_instant()
    assert report.sent == 8 * 37 and set(carried.chats()) == set(CHATS)
    assert len(sent_rows(any_database)) == 8 * 37  # the three in flight went too


def test_a_restart_on_sqlite_forgets_the_killed_runs_heartbeat(
    any_database: Database, clock: Clock
) -> None:
    """SQLite serves one process: a run killed a moment ago is not alive beside the one that
    starts, whose rate would be halved for 30 s if it were counted. PostgreSQL may serve
    others: there a heartbeat counts until it is ALIVE_WITHIN old."""
    processes.heartbeat(any_database, process_id="killed", kind="paperbot", now=clock())
    clock.advance(seconds=2)
    restarted, _ = process(any_database, clock, "restarted")
    restarted.resume()
    live = processes.heartbeat(any_database, process_id="restarted", kind="paperbot", now=clock())
    assert live == (2 if any_database.shared else 1)


async def test_a_claim_is_released_after_the_round_and_renewed_while_held(
    any_database: Database, clock: Clock
) -> None:
    papers_arrive(any_database, clock)
    postman, _ = process(any_database, clock, "a")
    other, _ = process(any_database, clock, "b")
    await postman.deliver_instant()
    assert postman.claims == {} and postman.renewer is None
    with any_database.connection() as connection:  # released: the other may claim at once
        now = clock()
        got = leases.claim_chats(connection, chat_ids=[1], holder="b", now=now, until=now + LEASE)
    assert got == [1]
    async with other._claimed([2]) as mine:
        assert mine == {2} and other.renewer is not None
        with any_database.connection() as connection:
            now = clock()
            taken = leases.claim_chats(connection, chat_ids=[2], holder="a", now=now,
                                       until=now + LEASE)  # fmt: skip
        assert taken == []  # held
    assert other.claims == {}


async def test_with_two_processes_alive_a_round_takes_its_share_of_a_burst(
    any_database: Database, clock: Clock
) -> None:
    papers_arrive(any_database, clock)
    (first, one), (second, two) = (process(any_database, clock, n) for n in ("a", "b"))
    first.processes = second.processes = 2  # as their heartbeats count them
    await asyncio.gather(first.deliver_instant(), second.deliver_instant())
    assert len(set(one.chats())) == len(set(two.chats())) == 4  # half of the eight chats each
    assert not set(one.chats()) & set(two.chats())
    assert len(sent_rows(any_database)) == 8 * 37


async def test_a_killed_processs_chats_are_taken_while_the_survivors_round_goes_on(
    any_database: Database, clock: Clock
) -> None:
    """The survivor is in the middle of a long round (one of its chats' messages held): its next
    tick after the killed process's lease ran out takes the killed one's chats, rows it left
    `sending` included, and sends them before the long round ends; every row goes out once."""
    planned = papers_arrive(any_database, clock)
    with any_database.connection() as connection:  # killed holding half of the chats
        now = clock()
        leases.claim_chats(connection, chat_ids=[5, 6, 7, 8], holder="killed", now=now,
                           until=now + LEASE)  # fmt: skip
    with any_database.session() as session:
        in_flight = deliveries.unfinished_deliveries(session, chat_id=5)[:2]
    killed, _ = process(any_database, clock, "killed")
    await killed._mark([r.id for r in in_flight], "sending")

    transport = HoldingTransport(held=1)
    sender = Sender(transport, Limits.off(), sleep=no_sleep, monotonic=lambda: 0.0)
    survivor = Postman(any_database, sender, clock=clock, rules=FilterRules(), holder="survivor")
    long_round = asyncio.create_task(survivor.deliver_instant())
    await transport.holding.wait()  # the round took chats 1-4 and is held at chat 1

    tick = await survivor.deliver_instant()  # the lease holds: nothing to take yet
    assert tick.sent == 0 and not set(transport.chats()) & {5, 6, 7, 8}
    clock.now += LEASE + timedelta(seconds=1)
    tick = await survivor.deliver_instant()  # the next tick: the killed one's chats
    assert not long_round.done()
    assert tick.sent == 4 * 37 and set(transport.chats()) >= {5, 6, 7, 8}
    assert 1 not in transport.chats()  # still held in the long round, not sent by the tick

    transport.go.set()
    assert (await long_round).sent == 4 * 37
    ids = sent_rows(any_database)
    assert len(ids) == planned and len(set(ids.values())) == len(transport.sent)


async def test_a_killed_processs_due_digests_are_taken_while_the_survivors_round_goes_on(
    any_database: Database, clock: Clock
) -> None:
    """The same for digests: a morning's round takes half an hour, and the chats a killed
    process held are sent their digests by the next digest tick's round beside it."""
    papers_arrive(any_database, clock)
    with any_database.session() as session:
        for chat_id in CHATS:
            chats.update_chat(session, chat_id=chat_id, mode="digest")
    clock.advance(days=1)  # each chat's digest hour has come
    with any_database.connection() as connection:
        now = clock()
        leases.claim_chats(connection, chat_ids=[5, 6, 7, 8], holder="killed", now=now,
                           until=now + LEASE)  # fmt: skip
    transport = HoldingTransport(held=1)
    sender = Sender(transport, Limits.off(), sleep=no_sleep, monotonic=lambda: 0.0)
    survivor = Postman(any_database, sender, clock=clock, rules=FilterRules(), holder="survivor")
    long_round = asyncio.create_task(survivor.digest_tick())
    await transport.holding.wait()

    assert (await survivor.digest_tick()).digests == 0  # within the lease
    clock.now += LEASE + timedelta(seconds=1)
    tick = await survivor.digest_tick()
    assert not long_round.done()
    assert tick.digests == 4 and tick.sent == 4 * 37 and 1 not in transport.chats()
    transport.go.set()
    assert (await long_round).digests == 4
    assert len(sent_rows(any_database)) == 8 * 37  # every row sent, once
