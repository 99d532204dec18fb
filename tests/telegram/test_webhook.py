"""Webhook mode: `paperbot run` as a process with a webhook URL set serves python-telegram-bot's
webhook on the listen address, gives Telegram (the fake Bot API server) the URL and the secret,
answers updates posted with the secret and refuses (403) those without it. The settings are
checked before anything starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.config import SettingsError, load_settings
from tests.conftest import ROOT
from tests.fake_telegram import FakeTelegram
from tests.telegram.conftest import TOKEN
from tests.test_cli import paperbot

URL = "https://bot.example.org/telegram/paperbot"
SECRET = "s3cret_webhook-token"
HEADER = "X-Telegram-Bot-Api-Secret-Token"


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("PAPERBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        ({"URL": URL}, "setting telegram.webhook_secret (PAPERBOT_TELEGRAM_WEBHOOK_SECRET): "
         "required in webhook mode (PAPERBOT_TELEGRAM_WEBHOOK_URL is set)"),
        ({"URL": "http://bot.example.org/hook", "SECRET": SECRET},
         "setting telegram.webhook_url (PAPERBOT_TELEGRAM_WEBHOOK_URL): must be an https:// "
         "address with a host (got 'http://bot.example.org/hook')"),
        ({"URL": "https:///hook", "SECRET": SECRET}, "must be an https:// address with a host"),
        ({"URL": URL, "SECRET": "not/a;secret"},
         "setting telegram.webhook_secret (PAPERBOT_TELEGRAM_WEBHOOK_SECRET): must be 1-256 "
         "characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)"),
        ({"URL": URL, "SECRET": "x" * 257}, "must be 1-256 characters"),
        ({"LISTEN": "8443"}, "setting telegram.webhook_listen (PAPERBOT_TELEGRAM_WEBHOOK_LISTEN): "
         "must be host:port, e.g. 127.0.0.1:8443 (got '8443')"),
        ({"LISTEN": "0.0.0.0:70000"}, "must be host:port"),
        ({"LISTEN": "0.0.0.0:0"}, "must be host:port"),
    ],
)  # fmt: skip
@pytest.mark.usefixtures("clean_environment")
def test_a_wrong_webhook_setting_is_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], message: str
) -> None:
    for key, value in environment.items():
        monkeypatch.setenv(f"PAPERBOT_TELEGRAM_WEBHOOK_{key}", value)
    with pytest.raises(SettingsError) as error:
        load_settings()
    assert message in str(error.value) and "\n" not in str(error.value)
    assert "not/a;secret" not in str(error.value)  # a secret is never echoed


@pytest.mark.parametrize(
    ("environment", "url", "address"),
    [
        ({}, None, ("127.0.0.1", 8443)),
        ({"URL": "", "SECRET": ""}, None, ("127.0.0.1", 8443)),  # empty: polling
        ({"URL": URL, "SECRET": SECRET, "LISTEN": "0.0.0.0:8443"}, URL, ("0.0.0.0", 8443)),
        ({"LISTEN": "[::]:88"}, None, ("::", 88)),
    ],
)
@pytest.mark.usefixtures("clean_environment")
def test_webhook_settings_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
    environment: dict[str, str],
    url: str | None,
    address: tuple[str, int],
) -> None:
    for key, value in environment.items():
        monkeypatch.setenv(f"PAPERBOT_TELEGRAM_WEBHOOK_{key}", value)
    telegram = load_settings().telegram
    assert (telegram.webhook_url, telegram.webhook_address) == (url, address)


def test_run_refuses_a_webhook_url_without_a_secret(tmp_path: Path, server: FakeTelegram) -> None:
    environment = {
        "PAPERBOT_TELEGRAM_TOKEN": TOKEN,
        "PAPERBOT_TELEGRAM_API_URL": server.base_url,
        "PAPERBOT_TELEGRAM_WEBHOOK_URL": URL,
    }
    result = paperbot(tmp_path, "run", env=environment)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "PAPERBOT_TELEGRAM_WEBHOOK_SECRET" in result.stderr
    assert server.calls == []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(tmp_path: Path, server: FakeTelegram, port: int) -> subprocess.Popen[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    environment.update(
        PYTHONPATH=str(ROOT),
        PAPERBOT_TELEGRAM_TOKEN=TOKEN,
        PAPERBOT_TELEGRAM_API_URL=server.base_url,
        PAPERBOT_TELEGRAM_WEBHOOK_URL=URL,
        PAPERBOT_TELEGRAM_WEBHOOK_LISTEN=f"127.0.0.1:{port}",
        PAPERBOT_TELEGRAM_WEBHOOK_SECRET=SECRET,
        PAPERBOT_DATABASE_URL=f"sqlite:///{tmp_path / 'bot.db'}",
        PAPERBOT_INBOX_DIR=str(tmp_path / "inbox"),
    )
    (tmp_path / "inbox").mkdir(exist_ok=True)
    with (tmp_path / "paperbot.log").open("a") as log:  # the child keeps its own copy
        return subprocess.Popen(
            [sys.executable, "-m", "bot", "run"], cwd=tmp_path, env=environment, stdout=log,
            stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip


def start_command(chat_id: int, update_id: int) -> dict[str, Any]:
    """A Telegram update: a user sends /start in a private chat."""
    user = {"id": chat_id, "is_bot": False, "first_name": "Ada"}
    message = {
        "message_id": update_id,
        "date": int(time.time()),
        "chat": {"id": chat_id, "type": "private", "first_name": "Ada"},
        "from": user,
        "text": "/start",
        "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
    }
    return {"update_id": update_id, "message": message}


async def listening(session: aiohttp.ClientSession, hook: str, deadline: float) -> None:
    """Until the webhook server accepts connections (it starts listening right after
    setWebhook is answered): a GET, which it answers 405, not a refused connection."""
    while True:
        try:
            async with session.get(hook) as answer:
                assert answer.status == 405
                return
        except aiohttp.ClientConnectorError:
            assert time.monotonic() < deadline, "the webhook server never listened"


async def test_webhook_mode_answers_updates_with_the_secret_only(
    tmp_path: Path, server: FakeTelegram
) -> None:
    port = free_port()
    process = start(tmp_path, server, port)
    hook = f"http://127.0.0.1:{port}/telegram/paperbot"
    try:
        await server.wait_for(lambda: bool(server.calls_to("setWebhook")), timeout=60)
        given = server.calls_to("setWebhook")[0].params
        assert (given["url"], given["secret_token"]) == (URL, SECRET)
        assert (
            "message" in given["allowed_updates"] and "my_chat_member" in given["allowed_updates"]
        )
        async with aiohttp.ClientSession() as session:
            await listening(session, hook, time.monotonic() + 30)
            for chat_id, headers in [(201, {HEADER: "wrong"}), (202, {})]:
                async with session.post(
                    hook, json=start_command(chat_id, chat_id), headers=headers
                ) as refused:
                    assert refused.status == 403
            async with session.post(
                hook, json=start_command(203, 203), headers={HEADER: SECRET}
            ) as taken:
                assert taken.status == 200
            await server.wait_for(lambda: bool(server.sent(203)), timeout=30)
        assert "/subscribe" in server.texts(203)[0]  # the how-to /start answers with
        assert server.sent(201) == server.sent(202) == []  # refused before they were queued
        assert not server.calls_to("getUpdates")
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
    assert code == 0, (tmp_path / "paperbot.log").read_text()
