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
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from telegram import Bot  # noqa: E402

from bot.core.query import FilterRules  # noqa: E402
from bot.sender import Limits, Sender  # noqa: E402
from bot.service import ingest, utc_now  # noqa: E402
from bot.service.delivery import Postman, SendReport  # noqa: E402
from bot.service.planning import Planner  # noqa: E402
from bot.store import Database, chats, deliveries  # noqa: E402
from bot.telegram.transport import (  # noqa: E402
    NO_PREVIEW,
    TelegramTransport,
    telegram_request,
)

EVERYTHING = "cat:cs.* OR cat:math.* OR cat:stat.* OR cat:physics.* OR cat:q-bio.* OR cat:eess.*"
CONCURRENCY = 8  # as the bot runs (Sender default)


def prepare(folder: Path, chat_count: int, filter_source: str) -> Database:
    """Seeds stored, chats in instant mode with one filter each, every match planned."""
    database = Database.open(f"sqlite:///{folder / 'bench.db'}")
    ingest.ingest_paths(database, [ROOT / "seeds"])
    now = datetime.now(UTC)
    with database.session() as session:
        for chat_id in range(1, chat_count + 1):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=now)
            chats.update_chat(session, chat_id=chat_id, mode="instant")
            chats.add_filter(
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

    async def send(self, chat_id: int, text: str, *, html: bool = True) -> int:
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


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chats", type=int, default=100, help="chats in the unlimited run")
    parser.add_argument("--limited-messages", type=int, default=240)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the unlimited run")
    parser.add_argument("--json", action="store_true", help="only the JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name in ("unlimited", "limited"):
            (Path(folder) / name).mkdir()
        result = {
            "limits_off": await unlimited(Path(folder), args.chats, args.rounds),
            "limits_on": await limited(Path(folder), args.limited_messages),
        }
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    asyncio.run(main())
