"""The ledger keeps what went out for `delivery.keep_days`: older rows sent or failed are deleted
(rows still waiting stay, whatever their age), their buttons then answer out of date, and no
paper is sent again for it. On SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.commands import OUT_OF_DATE, Caller, Reply, handle_text, press_button
from bot.config import DeliverySettings, InboxSettings, Settings
from bot.core.paper import Paper
from bot.runtime import Runtime
from bot.sender import Limits
from bot.service.retention import prune_ledger
from bot.store import Database, chats, deliveries, papers
from bot.store.deliveries import NewDeliveries
from tests.conftest import SEEDS, Clock
from tests.transports import RecordingTransport

DAY, HOUR = timedelta(days=1), timedelta(hours=1)
START = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)


def ledger(database: Database) -> dict[tuple[int, int], str]:
    with database.session() as session:
        return {
            (r.chat_id, r.paper_id): r.status
            for chat_id in (1, 2)
            for r in deliveries.all_deliveries(session, chat_id=chat_id)
        }


def plan_day(database: Database, day: int, paper_ids: list[int], chat_id: int) -> list[int]:
    """The chat's rows for the papers, planned on day `day`; their ids."""
    with database.session() as session:
        rows = NewDeliveries.of((chat_id, p, 0, [1]) for p in paper_ids)
        deliveries.add_deliveries(session, rows=[rows], now=START + day * DAY)
        return [
            r.id
            for r in deliveries.all_deliveries(session, chat_id=chat_id)
            if r.paper_id in paper_ids
        ]


def settle(database: Database, ids: list[int], status: str, day: int) -> None:
    with database.connection() as connection:
        deliveries.mark_deliveries(
            connection, delivery_ids=ids, status=status, now=START + day * DAY, message_id=1
        )


def test_rows_settled_before_the_cutoff_go_and_the_rest_stay(any_database: Database) -> None:
    with any_database.session() as session:
        for chat_id in (1, 2):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=START)
        batch = [Paper(title=f"P{n}", abstract="A.", source="t") for n in range(8)]
        p = papers.insert_papers(session, papers=batch, now=START)
    old = plan_day(any_database, 0, p[:4], chat_id=1)  # planned on day 0
    settle(any_database, old[:1], "sent", 1)  # sent on day 1: goes
    settle(any_database, old[1:2], "failed", 2)  # failed on day 2: goes
    settle(any_database, old[2:3], "sent", 35)  # sent late (a paused chat), day 35: stays
    # old[3] still pending (paused since): stays
    waiting = plan_day(any_database, 0, p[4:6], chat_id=2)
    settle(any_database, waiting[:1], "sending", 3)  # in flight: stays
    recent = plan_day(any_database, 33, p[6:8], chat_id=1)
    settle(any_database, recent, "sent", 33)  # within the 30 days: stays

    deleted, going_on = prune_ledger(any_database, keep=30 * DAY, now=START + 40 * DAY, ids=2)
    assert (deleted, going_on) == (2, None)
    assert ledger(any_database) == {
        (1, p[2]): "sent", (1, p[3]): "pending", (2, p[4]): "sending", (2, p[5]): "pending",
        (1, p[6]): "sent", (1, p[7]): "sent",
    }  # fmt: skip
    assert prune_ledger(any_database, keep=30 * DAY, now=START + 40 * DAY) == (0, None)
    assert prune_ledger(any_database, keep=30 * DAY, now=START + 66 * DAY) == (2, None)
    # the waiting ones, and the newest row, whose id SQLite would otherwise give again
    assert set(ledger(any_database)) == {(1, p[3]), (2, p[4]), (2, p[5]), (1, p[7])}


def test_a_long_ledger_is_pruned_over_several_bounded_calls(any_database: Database) -> None:
    with any_database.session() as session:
        chats.register_chat(session, chat_id=1, kind="private", now=START)
        batch = [Paper(title=f"P{n}", abstract="A.", source="t") for n in range(20)]
        p = papers.insert_papers(session, papers=batch, now=START)
    for day in range(10):  # two papers a day (ids 2 day + 1 and 2 day + 2), sent the same day
        planned = plan_day(any_database, day, p[2 * day : 2 * day + 2], 1)
        settle(any_database, planned, "sent", day or 8)  # but day 0's, sent late: not yet old
    now = START + 9 * DAY + 12 * HOUR  # days 0-6 are 3 days old
    calls, start = [], 0
    while start is not None:  # each call goes on where the last stopped, past day 0's rows
        deleted, start = prune_ledger(any_database, keep=3 * DAY, now=now, start=start, ids=3,
                                      ranges=2)  # fmt: skip
        calls.append(deleted)
        assert len(calls) < 10
    assert calls == [4, 6, 2]  # ids 1-6, 7-12, 13-15 (15: day 7, newer)
    assert sorted(paper for _, paper in ledger(any_database)) == p[:2] + p[14:]


async def test_a_pruned_paper_is_not_sent_again_and_its_buttons_are_out_of_date(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    settings = Settings(
        inbox=InboxSettings(dir=inbox, settle_seconds=0), delivery=DeliverySettings(keep_days=30)
    )
    transport = RecordingTransport()
    runtime = Runtime.build(settings, database, transport, clock=clock, limits=Limits.off())
    ada = Caller(1)
    await handle_text(runtime, ada, "/subscribe KV-cache", bot_username="paperbot")
    await handle_text(runtime, ada, "/mode instant", bot_username="paperbot")
    for seed in SEEDS.iterdir():
        drop_in(seed, inbox / seed.name)
    _, plan = runtime.scan()
    planned = plan.deliveries
    assert planned >= 2
    await runtime.deliver()
    alerts = [m for m in transport.sent if m.buttons]
    assert alerts and all(r.status == "sent" for r in _rows(database))
    # 👍, naming the first paper's ledger row
    rate = next(b.data for b in alerts[0].buttons[0] if b.label.startswith("👍"))
    assert rate.startswith("like:")
    assert (await press_button(runtime, ada, rate)).text.startswith("👍 noted")

    clock.advance(days=29)
    assert runtime.prune_when_due() == 0  # a pass an hour after the scan's: none 30 days old
    clock.advance(days=2)
    assert runtime.prune_when_due() == planned - 1  # all but the newest
    assert len(_rows(database)) == 1
    assert await press_button(runtime, ada, rate) == Reply(OUT_OF_DATE, notice=True)

    for seed in SEEDS.iterdir():  # the same listings dropped in again
        drop_in(seed, inbox / f"again-{seed.name}")
    sent = len(transport.sent)
    report, plan = runtime.scan()
    assert report.files and plan.deliveries == 0
    await runtime.deliver()
    assert len(transport.sent) == sent  # nothing sent twice


def drop_in(listing: Path, path: Path) -> None:
    shutil.copy(listing, path)
    os.utime(path, (0, 0))  # written long ago, as far as the test's clock knows


def _rows(database: Database) -> list[deliveries.Delivery]:
    with database.session() as session:
        return deliveries.all_deliveries(session, chat_id=1)


def test_keep_days_zero_keeps_every_row(database: Database, clock: Clock, tmp_path: Path) -> None:
    settings = Settings(inbox=InboxSettings(dir=tmp_path), delivery=DeliverySettings(keep_days=0))
    runtime = Runtime.build(settings, database, RecordingTransport(), clock=clock)
    with database.session() as session:
        chats.register_chat(session, chat_id=1, kind="private", now=clock())
        [paper] = papers.insert_papers(
            session, papers=[Paper(title="P", abstract="A.", source="t")], now=clock()
        )
        rows = NewDeliveries.of([(1, paper, 0, [1])])
        deliveries.add_deliveries(session, rows=[rows], now=clock())
    settle(database, [r.id for r in _rows(database)], "sent", 0)
    clock.advance(days=3650)
    assert runtime.prune_when_due() == 0 and len(_rows(database)) == 1
