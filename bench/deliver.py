"""Delivery throughput against the fake Bot API server (tests/fake_telegram.py) on 127.0.0.1.

Two runs, one JSON object:

* limits off: how many messages per second paperbot renders and pushes from the ledger (each a
  state change before and after, rendering, the HTTP call), next to plain references: the same
  pre-rendered messages sent with bare `Bot.send_message` at the same concurrency, through
  paperbot's request and through python-telegram-bot's default one. Rounds of each alternate
  (the ledger is reset between them); the figures are the rounds' medians.
* limits on: the server refuses, as Telegram would, anything over 30 messages/s overall, 1/s per
  chat or 20/min per group; the share of the allowed 30/s that paperbot reaches, and the 429s.

    python bench/deliver.py --chats 100 --limited-messages 240 --json

With --processes, instead: delivery by one and by two OS processes on one PostgreSQL database
(--database, default PAPERBOT_TEST_DATABASE_URL; its schema is dropped and created again), each
with its own connection, Bot and Runtime (Runtime.build with TelegramTransport), ticking as a
worker's delivery job does (a heartbeat, then Runtime.deliver: a round over the chats it can
claim) until the ledger is empty; every process beats its heartbeat before the start, so that
each keeps its share of Telegram's 30/s from its first tick. Two ways the work arrives:

* one burst: every chat's rows pending at the start (a mailing planned at once), both processes
  started together;
* two waves: half the chats pending at the start, the other half once the first process has
  claimed them (a second listing arriving while the first is sent), the second process started
  then.

Limits off: messages per second, rounds alternating between one and two processes (medians).
Limits on: the combined rate, the most messages accepted within any one second and the 429s.

    python bench/deliver.py --processes --database postgresql://postgres@127.0.0.1/bench --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import text  # noqa: E402
from telegram import Bot  # noqa: E402

from bot.config import DatabaseSettings, Settings  # noqa: E402
from bot.core.query import FilterRules  # noqa: E402
from bot.runtime import Runtime  # noqa: E402
from bot.sender import Limits, Sender  # noqa: E402
from bot.service import ingest, utc_now  # noqa: E402
from bot.service.delivery import Postman, SendReport  # noqa: E402
from bot.service.planning import Planner  # noqa: E402
from bot.store import Database, chats, deliveries, filters  # noqa: E402
from bot.store.database import create_database_engine, database_url  # noqa: E402
from bot.telegram.transport import (  # noqa: E402
    NO_PREVIEW,
    TelegramTransport,
    telegram_request,
)

EVERYTHING = "cat:cs.* OR cat:math.* OR cat:stat.* OR cat:physics.* OR cat:q-bio.* OR cat:eess.*"
CONCURRENCY = 8  # as the bot runs (Sender default)


def prepare(folder: Path, chat_count: int, filter_source: str) -> Database:
    """Seeds stored, chats in instant mode with one filter each, every match planned."""
    return fill(Database.open(f"sqlite:///{folder / 'bench.db'}"), chat_count, filter_source)


def fill(database: Database, chat_count: int, filter_source: str) -> Database:
    """Into an empty database: the seeds, chats 1..chat_count in instant mode with the filter,
    every match planned into the ledger."""
    ingest.ingest_paths(database, [ROOT / "seeds"])
    now = datetime.now(UTC)
    with database.session() as session:
        for chat_id in range(1, chat_count + 1):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=now)
            chats.update_chat(session, chat_id=chat_id, mode="instant")
            filters.add_filter(
                session, chat_id=chat_id, source=filter_source, canonical=filter_source, now=now
            )
    # papers ingested before the filters count as new here: this run is about sending them
    with database.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE paper SET matched_at = NULL")
    Planner(FilterRules()).plan(database, now=now)
    return database


class Server:
    """The fake Bot API server in a process of its own, as Telegram would be."""

    def __init__(self, *, enforce_limits: bool) -> None:
        command = [sys.executable, "-m", "tests.fake_telegram"]
        command += ["--enforce-limits"] if enforce_limits else []
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()

    async def stats(self, bot: Bot) -> dict[str, Any]:
        found: dict[str, Any] = await bot.do_api_request("fakeStats")
        return found

    def stats_now(self) -> dict[str, Any]:
        """fakeStats from outside an event loop."""
        request = urllib.request.Request(
            f"{self.base_url}123:BENCH/fakeStats", data=b"{}",
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=30) as answer:
            found: dict[str, Any] = json.load(answer)["result"]
        return found

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def bot_for(server: Server) -> Bot:
    return Bot("123:BENCH", base_url=server.base_url, request=telegram_request())  # as the bot


class NoTransport:
    """Messages go nowhere: what rendering and the ledger cost without HTTP."""

    def __init__(self) -> None:
        self.sent = 0

    async def send(
        self,
        chat_id: int,
        text: str,
        *,
        html: bool = True,
        buttons: Any = (),
        silent: bool = False,
        topic: int | None = None,
    ) -> int:
        self.sent += 1
        return self.sent


def reset_ledger(database: Database) -> None:
    """Every row back to pending: the next round sends the same messages again."""
    with database.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE delivery SET status = 'pending', message_id = NULL")


async def one_round(database: Database, transport: Any, limits: Limits) -> tuple[SendReport, float]:
    """The ledger back to pending, then one delivery tick through `transport`: its report and
    its messages per second."""
    reset_ledger(database)
    sender = Sender(transport, limits, concurrency=CONCURRENCY)
    postman = Postman(database, sender, clock=utc_now, rules=FilterRules())
    start = time.perf_counter()
    report = await postman.deliver_instant()
    return report, report.messages / (time.perf_counter() - start)


def median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def rates(prefix: str, rounds: list[float]) -> dict[str, object]:
    """A run's messages per second: the rounds' median, and every round."""
    return {
        f"{prefix}messages_per_second": median(rounds),
        f"{prefix}messages_per_second_rounds": [round(r) for r in rounds],
    }


async def bare_sends(bot: Bot, texts: list[str], chat_count: int) -> float:
    """The reference: pre-rendered messages sent with bare `Bot.send_message`, at the sender's
    concurrency, without ledger or rendering; messages per second."""
    semaphore = asyncio.Semaphore(CONCURRENCY)

    async def send(number: int, text: str) -> None:
        async with semaphore:
            await bot.send_message(number % chat_count + 1, text, parse_mode="HTML",
                                   link_preview_options=NO_PREVIEW)  # fmt: skip

    start = time.perf_counter()
    await asyncio.gather(*(send(n, text) for n, text in enumerate(texts)))
    return len(texts) / (time.perf_counter() - start)


async def unlimited(folder: Path, chat_count: int, rounds: int) -> dict[str, object]:
    """Rounds of paperbot and of two references, one after the other, so that all see the same
    machine (a VM's speed drifts from minute to minute); medians of the rounds. The references
    send the messages paperbot rendered with bare `Bot.send_message`: through paperbot's request
    (what the ledger and rendering cost on top), and through python-telegram-bot's default one
    (what a bot built on PTB as it comes would reach)."""
    server = Server(enforce_limits=False)
    database = prepare(folder / "unlimited", chat_count, EVERYTHING)
    bot = bot_for(server)
    plain_bot = Bot("123:BENCH", base_url=server.base_url)  # PTB's own request (httpx)
    ours: list[float] = []
    reference: list[float] = []
    plain: list[float] = []
    async with bot, plain_bot:
        for _ in range(rounds):
            report, messages_per_second = await one_round(
                database, TelegramTransport(bot), Limits.off()
            )
            ours.append(messages_per_second)
            texts = (await server.stats(bot))["texts"][-report.messages :]
            reference.append(await bare_sends(bot, texts, chat_count))
            plain.append(await bare_sends(plain_bot, texts, chat_count))
    with database.session() as session:
        ledger = deliveries.count_deliveries(session)
    without_http = [
        (await one_round(database, NoTransport(), Limits.off()))[1] for _ in range(rounds)
    ]
    database.close()
    server.stop()
    return {
        "messages": report.messages,
        "papers": report.sent,
        "ledger": ledger,
        "rounds": rounds,
        **rates("", ours),
        **rates("reference_", reference),
        "reference": "the same messages, pre-rendered, sent with bare Bot.send_message through "
        "paperbot's request (aiohttp)",
        "share_of_reference": round(statistics.median(ours) / statistics.median(reference), 3),
        **rates("ptb_default_", plain),
        "ptb_default": "the same, through python-telegram-bot's default request (httpx)",
        "times_ptb_default": round(statistics.median(ours) / statistics.median(plain), 2),
        "without_http_messages_per_second": median(without_http),
    }


async def limited(folder: Path, messages: int) -> dict[str, object]:
    """One paper per chat and one message each, so the overall 30/s is the limit that binds."""
    server = Server(enforce_limits=True)
    database = prepare(folder / "limited", messages, '"kv cache"')
    bot = bot_for(server)
    async with bot:
        sender = Sender(TelegramTransport(bot), Limits())
        postman = Postman(database, sender, clock=utc_now, rules=FilterRules())
        start = time.perf_counter()
        report = await postman.deliver_instant()
        seconds = time.perf_counter() - start
        stats = await server.stats(bot)
    database.close()
    server.stop()
    sends = sorted(stats["sends"])
    span = sends[-1] - sends[0] if len(sends) > 1 else 0.0
    rate = (len(sends) - 1) / span if span else 0.0
    return {
        "messages": report.messages,
        "seconds": round(seconds, 3),
        "messages_per_second": round(rate, 2),
        "allowed_per_second": 30,
        "share_of_allowed": round(rate / 30, 3),
        "refused_429": stats["flood_refusals"],
        "retries": report.retries,
    }


# -- several processes on one PostgreSQL ---------------------------------------------------------

IDLE_SECONDS = 0.2  # a process whose tick found nothing to claim looks again after this long
ONE_BURST, TWO_WAVES = "one_burst", "two_waves"


def fresh_postgres(url: str, chat_count: int, filter_source: str) -> None:
    """The database's schema dropped and created again, then filled (`fill`)."""
    if database_url(url).get_backend_name() != "postgresql":
        raise SystemExit(f"--database must be a PostgreSQL URL (several processes), not {url!r}")
    engine = create_database_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP SCHEMA public CASCADE")
        connection.exec_driver_sql("CREATE SCHEMA public")
    engine.dispose()
    fill(Database.open(url, upgrade=True), chat_count, filter_source).close()


def unfinished_rows(database: Database) -> int:
    with database.session() as session:
        return deliveries.count_waiting(session)


async def deliver_until_done(url: str, base_url: str, limited: bool, go: Start) -> dict[str, Any]:
    """A worker's delivery job in a process of its own: its heartbeat first (`go.wait()` then
    says so and waits for the start), then ticks until the ledger is empty."""
    database = Database.open(url)
    bot = Bot("123:BENCH", base_url=base_url, request=telegram_request())
    report = SendReport()
    async with bot:
        limits = Limits() if limited else Limits.off()
        settings = Settings(database=DatabaseSettings(url=url))
        runtime = Runtime.build(settings, database, TelegramTransport(bot), limits=limits)
        runtime.heartbeat()
        go.wait()
        budget = None
        while True:
            runtime.heartbeat()  # as jobs.beat does at each delivery tick
            tick = await runtime.deliver()
            report.add(tick)
            budget = budget or runtime.postman.sender.limiter.limits.overall_per_second
            if not unfinished_rows(database):
                break
            if not tick.messages:
                await asyncio.sleep(IDLE_SECONDS)
        runtime.leave()
    database.close()
    found: dict[str, Any] = {"messages": report.messages, "retries": report.retries}
    if limited:  # its share of the 30/s in its first round
        found["budget_per_second"] = budget
    return found


class Start:
    """Between the bench and one process: `ready` once its heartbeat is beaten, then `go`."""

    def __init__(self, context: Any) -> None:
        self.ready, self.go = context.Event(), context.Event()

    def wait(self) -> None:
        self.ready.set()
        self.go.wait()


def delivering_process(url: str, base_url: str, limited: bool, start: Start, results: Any) -> None:
    results.put(asyncio.run(deliver_until_done(url, base_url, limited, start)))


def reset_for(database: Database, chat_count: int, arrival: str) -> None:
    """Every row pending again, no claims, no heartbeats; for two waves the second half of the
    chats paused (their rows wait unseen until `release_second_wave`)."""
    with database.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE delivery SET status = 'pending', message_id = NULL")
        connection.exec_driver_sql("UPDATE chat SET busy_by = NULL, busy_until = NULL")
        connection.exec_driver_sql("DELETE FROM process")
        second_wave = chat_count // 2 if arrival == TWO_WAVES else chat_count
        connection.execute(text("UPDATE chat SET paused = (id > :after)"), {"after": second_wave})


def release_second_wave(database: Database) -> None:
    """Once the first process holds the first wave's chats, the second wave's rows appear."""
    deadline = time.monotonic() + 60
    while True:
        with database.engine.begin() as connection:
            claimed = connection.execute(
                text("SELECT count(*) FROM chat WHERE busy_by IS NOT NULL")
            ).scalar()
            if claimed:
                connection.execute(text("UPDATE chat SET paused = false"))
                return
        if time.monotonic() > deadline:
            raise SystemExit("the first process never claimed the first wave")
        time.sleep(0.01)


def most_within_a_second(times: list[float]) -> int:
    """The most accepted messages in any one-second window."""
    most, first = 0, 0
    for last, moment in enumerate(times):
        while moment - times[first] >= 1.0:
            first += 1
        most = max(most, last - first + 1)
    return most


def run_processes(
    url: str, chat_count: int, *, processes: int, arrival: str, limited: bool
) -> dict[str, Any]:
    """One measurement: a fresh fake server, `processes` delivering processes, the ledger sent
    once. Messages per second from the start to the last message the server accepted."""
    server = Server(enforce_limits=limited)
    database = Database.open(url)
    reset_for(database, chat_count, arrival)
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    starts = [Start(context) for _ in range(processes)]
    children = [
        context.Process(
            target=delivering_process, args=(url, server.base_url, limited, start, results)
        )
        for start in starts
    ]
    for child in children:
        child.start()
    for start in starts:
        start.ready.wait(timeout=300)
    started = time.monotonic()  # CLOCK_MONOTONIC: the same clock in every process here
    starts[0].go.set()
    if arrival == TWO_WAVES:
        release_second_wave(database)
    for start in starts[1:]:
        start.go.set()
    found = [results.get(timeout=900) for _ in children]
    for child in children:
        child.join(timeout=60)
    left = unfinished_rows(database)
    database.close()
    stats = server.stats_now()
    server.stop()
    sends = sorted(t for t in stats["sends"] if t >= started)
    span = sends[-1] - sends[0] if len(sends) > 1 else 0.0
    return {
        "messages": len(sends),
        "seconds": round(sends[-1] - started, 3) if sends else 0.0,
        "messages_per_second": round(len(sends) / (sends[-1] - started), 1) if sends else 0.0,
        "messages_per_second_while_sending": round((len(sends) - 1) / span, 1) if span else 0.0,
        "most_within_one_second": most_within_a_second(sends),
        "refused_429": stats["flood_refusals"],
        "per_process": sorted(found, key=lambda r: -int(r["messages"])),
        "unfinished_after": left,
    }


def compare_unlimited(url: str, chat_count: int, arrival: str, rounds: int) -> dict[str, Any]:
    """One and two processes, limits off, rounds alternating; medians."""
    runs: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
    for _ in range(rounds):
        for processes in (1, 2):
            runs[processes].append(
                run_processes(url, chat_count, processes=processes, arrival=arrival, limited=False)
            )
    found: dict[str, Any] = {}
    for processes, name in ((1, "one_process"), (2, "two_processes")):
        rates_found = [r["messages_per_second"] for r in runs[processes]]
        found[name] = {
            **rates("", rates_found),
            "per_process_rounds": [
                [p["messages"] for p in r["per_process"]] for r in runs[processes]
            ],
        }
    one, two = (statistics.median(r["messages_per_second"] for r in runs[n]) for n in (1, 2))
    found["messages"] = runs[1][0]["messages"]
    found["two_over_one"] = round(two / one, 2)
    return found


def several_processes(args: argparse.Namespace) -> dict[str, Any]:
    if not args.database:
        raise SystemExit("--processes needs --database (or PAPERBOT_TEST_DATABASE_URL)")
    shown = database_url(args.database).render_as_string(hide_password=True)
    fresh_postgres(args.database, args.chats, EVERYTHING)
    limits_off: dict[str, Any] = {"chats": args.chats, "rounds": args.rounds}
    for arrival in (ONE_BURST, TWO_WAVES):
        limits_off[arrival] = compare_unlimited(args.database, args.chats, arrival, args.rounds)
    chat_count = args.limited_messages
    fresh_postgres(args.database, chat_count, '"kv cache"')  # one message per chat
    limits_on: dict[str, Any] = {"chats": chat_count, "allowed_per_second": 30}
    for arrival in (ONE_BURST, TWO_WAVES):
        limits_on[arrival] = {
            name: run_processes(
                args.database, chat_count, processes=processes, arrival=arrival, limited=True
            )
            for processes, name in ((1, "one_process"), (2, "two_processes"))
        }
    return {"database": shown, "limits_off": limits_off, "limits_on": limits_on}


async def one_process(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        for name in ("unlimited", "limited"):
            (Path(folder) / name).mkdir()
        return {
            "limits_off": await unlimited(Path(folder), args.chats, args.rounds),
            "limits_on": await limited(Path(folder), args.limited_messages),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chats", type=int, default=100, help="chats in the unlimited runs")
    parser.add_argument(
        "--limited-messages", type=int, default=240, help="chats (one message each) limits on"
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the unlimited runs")
    parser.add_argument(
        "--processes",
        action="store_true",
        help="instead: delivery by one and by two OS processes on one PostgreSQL (--database)",
    )
    parser.add_argument(
        "--database",
        default=os.environ.get("PAPERBOT_TEST_DATABASE_URL"),
        metavar="URL",
        help="with --processes: the PostgreSQL database (default PAPERBOT_TEST_DATABASE_URL); "
        "its schema is DROPPED and created again: give it one that holds nothing you keep",
    )
    parser.add_argument("--json", action="store_true", help="only the JSON object")
    args = parser.parse_args()
    result = several_processes(args) if args.processes else asyncio.run(one_process(args))
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
