"""A running bot: the real Application polling the fake Bot API server, a real SQLite database,
time under the test's control (the wall clock for the ledger and digests, and the monotonic
clock and sleep of the sender's limits and retries)."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import Application

from bot.config import Settings
from bot.runtime import Runtime
from bot.sender import Limits, Transport
from bot.store import Database
from bot.telegram.app import ALLOWED_UPDATES, build_application, start_bot, stop_bot
from tests.conftest import SEEDS, Clock
from tests.fake_telegram import FakeTelegram

TOKEN = "123456:TEST-TOKEN"
OPERATOR = 777


@dataclass
class FakeTime:
    """The sender's monotonic clock and sleep: sleeping moves time on at once, and is recorded."""

    now: float = 1000.0
    slept: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


@dataclass
class World:
    server: FakeTelegram
    app: Application[Any, Any, Any, Any, Any, Any]
    runtime: Runtime
    clock: Clock
    time: FakeTime
    inbox: Path

    async def drop(self, *names: str, **contents: str) -> None:
        """Seed listings (by name) and other files (name=text) land in the inbox, a minute ago
        in the test's time, and the scan job runs."""
        self.place(*names, **contents)
        await asyncio.to_thread(self.runtime.scan)

    def place(self, *names: str, **contents: str) -> None:
        """Seed listings (by name) and other files (name=text) land in the inbox, a minute ago
        in the test's time."""
        files = {name: (SEEDS / name).read_bytes() for name in names}
        files.update({name.replace("_", "."): text.encode() for name, text in contents.items()})
        arrived = self.clock().timestamp() - 60
        for name, data in files.items():
            path = self.inbox / name
            path.write_bytes(data)
            os.utime(path, (arrived, arrived))

    async def command(self, chat_id: int, text: str, **who: Any) -> str:
        return str((await self.server.reply_to(chat_id, text, **who))["text"])


def make_settings(tmp_path: Path, api_url: str, **sections: dict[str, Any]) -> Settings:
    (tmp_path / "inbox").mkdir(exist_ok=True)
    values: dict[str, Any] = {
        "telegram": {"token": TOKEN, "api_url": api_url},
        "database": {"url": f"sqlite:///{tmp_path / 'bot.db'}"},
        "inbox": {"dir": tmp_path / "inbox", "settle_seconds": 0},
        "admin": {"chat_ids": [OPERATOR]},
    }
    for name, overrides in sections.items():
        values[name] = {**values.get(name, {}), **overrides}
    return Settings(**values)


@pytest.fixture
async def make_world(
    tmp_path: Path, clock: Clock, sqlite_template: Path
) -> AsyncIterator[Callable[..., Any]]:
    """Starts a bot (settings sections and sender limits as keyword arguments); a second one
    in the same test finds the first one's database."""
    started: list[tuple[FakeTelegram, Application[Any, Any, Any, Any, Any, Any], Database]] = []

    async def start(limits: Limits | None = None, **sections: dict[str, Any]) -> World:
        server = FakeTelegram()
        settings = make_settings(tmp_path, server.start(), **sections)
        if not (tmp_path / "bot.db").exists():
            shutil.copyfile(sqlite_template, tmp_path / "bot.db")
        database = Database.open(settings.database.url)
        fake_time = FakeTime()

        def make_runtime(transport: Transport) -> Runtime:
            return Runtime.build(
                settings, database, transport, clock=clock, limits=limits or Limits.off(),
                sleep=fake_time.sleep, monotonic=fake_time.monotonic,
            )  # fmt: skip

        app = build_application(
            settings, TOKEN, make_runtime, request_timeout=1.0, schedule_jobs=False
        )
        await app.initialize()
        await start_bot(app)
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=1, allowed_updates=ALLOWED_UPDATES)
        await app.start()
        started.append((server, app, database))
        return World(server, app, app.bot_data["runtime"], clock, fake_time, settings.inbox.dir)

    yield start
    for server, app, database in started:
        assert app.updater is not None
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
        await stop_bot(app)
        server.stop()
        database.close()


@pytest.fixture
async def world(make_world: Callable[..., Any]) -> World:
    return await make_world()  # type: ignore[no-any-return]
