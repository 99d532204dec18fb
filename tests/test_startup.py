"""Start-up as an operator meets it: every failure one line that names its cause and setting,
no traceback (exit 2 when a setting must change, 1 otherwise), and Telegram out of reach at
start waited out rather than a process that exits."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from telegram import Bot

from bot.telegram.startup import reach_telegram
from bot.telegram.transport import telegram_request
from tests.fake_telegram import FakeTelegram
from tests.telegram.conftest import TOKEN
from tests.test_cli import paperbot
from tests.test_run import ADA, start


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port of 127.0.0.1 another process (here: this one) listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def problems(output: str) -> list[str]:
    """What the operator reads beyond the INFO lines."""
    return [line for line in output.splitlines() if " INFO " not in line]


def run_until_exit(tmp_path: Path, server: FakeTelegram, command: str, **settings: str) -> int:
    process = start(tmp_path, server, f"sqlite:///{tmp_path / 'bot.db'}", command, **settings)
    try:
        return process.wait(timeout=60)
    finally:
        process.kill()


@pytest.mark.parametrize("command", ["run", "worker"])
def test_a_metrics_port_in_use_is_one_line_and_exit_1(
    tmp_path: Path, server: FakeTelegram, taken_port: int, command: str
) -> None:
    code = run_until_exit(tmp_path, server, command, PAPERBOT_METRICS_PORT=str(taken_port))
    output = (tmp_path / "paperbot.log").read_text()
    assert code == 1, output
    assert problems(output) == [
        f"paperbot: cannot listen on 127.0.0.1:{taken_port} for /metrics and /healthz: the port "
        "is in use by another process (PAPERBOT_METRICS_HOST, PAPERBOT_METRICS_PORT)"
    ]


def test_a_metrics_address_not_this_machines_is_one_line_and_exit_2(
    tmp_path: Path, server: FakeTelegram
) -> None:
    settings = {"PAPERBOT_METRICS_HOST": "192.0.2.1", "PAPERBOT_METRICS_PORT": "9100"}  # TEST-NET
    code = run_until_exit(tmp_path, server, "run", **settings)
    output = (tmp_path / "paperbot.log").read_text()
    assert code == 2, output
    assert problems(output) == [
        "paperbot: cannot listen on 192.0.2.1:9100 for /metrics and /healthz: the address is not "
        "one of this machine's (PAPERBOT_METRICS_HOST, PAPERBOT_METRICS_PORT)"
    ]


def test_a_webhook_port_in_use_is_one_line_and_exit_1(
    tmp_path: Path, server: FakeTelegram, taken_port: int
) -> None:
    settings = {
        "PAPERBOT_TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram",
        "PAPERBOT_TELEGRAM_WEBHOOK_SECRET": "s3cret",
        "PAPERBOT_TELEGRAM_WEBHOOK_LISTEN": f"127.0.0.1:{taken_port}",
    }
    code = run_until_exit(tmp_path, server, "run", **settings)
    output = (tmp_path / "paperbot.log").read_text()
    assert code == 1, output
    assert problems(output) == [
        f"paperbot: cannot listen on 127.0.0.1:{taken_port} for Telegram's webhook: the port is "
        "in use by another process (PAPERBOT_TELEGRAM_WEBHOOK_LISTEN)"
    ]


NOT_A_DATABASE = b"root:x:0:0:root:/root:/bin/bash\n" * 200


@pytest.mark.parametrize("command", [["status"], ["db", "upgrade"], ["ingest", "seeds"], ["run"]])
@pytest.mark.parametrize("case", ["not a database", "folder not creatable"])
def test_a_database_file_that_cannot_be_used_is_one_line_and_exit_2(
    tmp_path: Path, command: list[str], case: str
) -> None:
    (tmp_path / "seeds").mkdir()
    if case == "not a database":
        (tmp_path / "passwd").write_bytes(NOT_A_DATABASE)
        url, reason = f"sqlite:///{tmp_path / 'passwd'}", "file is not a database"
    else:  # /proc takes no new folder, even from root
        url, reason = "sqlite:////proc/paperbot/bot.db", "cannot create the folder /proc/paperbot"
    env = {"PAPERBOT_DATABASE_URL": url, "PAPERBOT_TELEGRAM_TOKEN": TOKEN}
    result = paperbot(tmp_path, *command, env=env)
    assert result.returncode == 2, result.stderr
    assert problems(result.stderr) == [result.stderr.strip()]
    assert result.stderr.startswith("paperbot: PAPERBOT_DATABASE_URL: ") and reason in result.stderr


def test_db_upgrade_on_an_unreachable_server_is_one_line_and_exit_1(tmp_path: Path) -> None:
    url = "postgresql+psycopg://paperbot:secret@127.0.0.1:1/paperbot"
    result = paperbot(tmp_path, "db", "upgrade", env={"PAPERBOT_DATABASE_URL": url})
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "cannot open the database postgresql+psycopg://paperbot:***@127.0.0.1:1" in result.stderr
    assert "secret" not in result.stderr


# -- Telegram out of reach at start ------------------------------------------------------------


async def test_telegram_out_of_reach_is_tried_again_until_it_answers(
    server: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    server.fail("getMe", "502", times=2)
    server.fail("getMe", "drop", times=1)
    bot = Bot(TOKEN, base_url=server.base_url, request=telegram_request())
    with caplog.at_level(logging.WARNING, logger="bot.telegram.startup"):
        reached = await reach_telegram(bot.initialize, asyncio.Event(), "the URL", waits=(0,))
    await bot.shutdown()
    assert reached and bot.username == "paperbot_test_bot"
    tries = [r.getMessage() for r in caplog.records]
    assert len(tries) == 3 and all(
        m.startswith("Telegram cannot be reached at the URL") for m in tries
    )


async def test_a_stop_while_telegram_is_out_of_reach_ends_the_waiting(server: FakeTelegram) -> None:
    server.fail("getMe", "500", times=100)
    stop = asyncio.Event()
    stop.set()  # SIGTERM came during the first try
    bot = Bot(TOKEN, base_url=server.base_url, request=telegram_request())
    # an hour's wait would not end within the test's bound: the stop ends it
    reaching = reach_telegram(bot.initialize, stop, "the URL", waits=(3600,))
    assert not await asyncio.wait_for(reaching, 30)
    await bot.shutdown()
    assert len([c for c in server.calls if c.method == "getMe"]) == 1


def wait_for_line(process: subprocess.Popen[str], log: Path, text: str) -> None:
    """Until the process's output holds `text` (or the process ended, or 30 s)."""
    deadline = time.monotonic() + 30
    while text not in log.read_text() and time.monotonic() < deadline:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.05)  # returns early when the process ends
        if process.poll() is not None:
            return


@pytest.mark.process
@pytest.mark.parametrize(
    ("command", "running"), [("run", "Application started"), ("worker", "worker running")]
)
async def test_a_service_started_while_telegram_is_away_serves_once_it_is_back(
    tmp_path: Path, server: FakeTelegram, command: str, running: str
) -> None:
    server.fail("getMe", "502", times=2)  # waited 1 s, then 2 s
    process = start(tmp_path, server, f"sqlite:///{tmp_path / 'bot.db'}", command)
    log = tmp_path / "paperbot.log"
    try:
        wait_for_line(process, log, running)
        if command == "run":
            assert "Filter 1 saved" in (await server.reply_to(ADA, '/subscribe "kv cache"'))["text"]
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
    output = log.read_text()
    assert code == 0 and running in output, output
    tries = [line.split(": ", 1)[1] for line in problems(output)]
    assert len(tries) == 2, output
    assert all(t.startswith(f"Telegram cannot be reached at {server.base_url}") for t in tries)


@pytest.mark.process
@pytest.mark.parametrize("command", ["run", "worker"])
def test_sigterm_while_telegram_is_away_stops_at_once_with_exit_0(
    tmp_path: Path, server: FakeTelegram, command: str
) -> None:
    server.fail("getMe", "500", times=1000)
    process = start(tmp_path, server, f"sqlite:///{tmp_path / 'bot.db'}", command)
    log = tmp_path / "paperbot.log"
    try:
        wait_for_line(process, log, "Telegram cannot be reached")
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)  # not the minute its next try would come in
    output = log.read_text()
    assert code == 0 and "Traceback" not in output, output
    assert len([c for c in server.calls if c.method == "getMe"]) <= 2
