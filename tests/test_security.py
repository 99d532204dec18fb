"""What must not leak or be reachable: the token stays out of the logs (at debug level, with
Telegram failing, when python-telegram-bot and the HTTP clients log their requests), out of
/status and errors (tests/test_commands.py: a chat's buttons can't touch another chat's
filters, ratings, cards or pages)."""

from __future__ import annotations

import signal
from pathlib import Path

from tests.fake_telegram import FakeTelegram
from tests.telegram.conftest import TOKEN
from tests.test_run import drop_seeds, start

ADA = 101


async def test_the_token_never_reaches_the_logs(tmp_path: Path) -> None:
    server = FakeTelegram()
    server.start()
    try:
        process = start(tmp_path, server, f"sqlite:///{tmp_path / 'bot.db'}", "run", "bot")
        try:
            await server.reply_to(ADA, '/subscribe "kv cache"')
            await server.reply_to(ADA, "/mode instant")
            status = await server.reply_to(ADA, "/status")
            server.fail("sendMessage", "500", times=2)  # failures are logged...
            server.fail("getUpdates", "drop", times=1)
            drop_seeds(tmp_path)
            await server.wait_for(lambda: "ElasticKV" in "".join(server.texts(ADA)), timeout=30)
        finally:
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0
    finally:
        server.stop()
    log = (tmp_path / "bot.log").read_text()
    assert "retrying in" in log  # the failures were logged...
    secret = TOKEN.split(":")[1]
    assert TOKEN not in log and secret not in log  # ...without the token
    assert secret not in status["text"]


async def test_debug_logging_keeps_the_token_out(tmp_path: Path) -> None:
    server = FakeTelegram()
    server.start()
    try:
        process = start(tmp_path, server, f"sqlite:///{tmp_path / 'bot.db'}", "-v run", "debug")
        try:
            await server.reply_to(ADA, "/start")
        finally:
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0
    finally:
        server.stop()
    log = (tmp_path / "debug.log").read_text()
    assert " DEBUG " in log  # debug logging was on
    assert TOKEN.split(":")[1] not in log
