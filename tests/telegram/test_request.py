"""The request python-telegram-bot talks to Telegram through (bot/telegram/transport.py), against
small aiohttp servers on 127.0.0.1: how calls and uploads are sent, timeouts, dropped connections
and proxies named by the environment."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot, InputFile
from telegram.error import NetworkError, TimedOut

from bot.telegram.transport import AiohttpRequest, telegram_request

TOKEN = "123:REQUEST"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


BOT_USER = {"id": 4242, "is_bot": True, "first_name": "paperbot", "username": "paperbot_test_bot"}


def answer(request: web.Request, chat_id: int) -> web.Response:
    """What the Bot API answers: the bot for getMe, else the message sent."""
    if request.path.endswith("/getMe"):
        return web.json_response({"ok": True, "result": BOT_USER})
    return web.json_response({"ok": True, "result": message(chat_id)})


def message(chat_id: int) -> dict[str, Any]:
    return {
        "message_id": 7,
        "date": 1_700_000_000,
        "chat": {"id": chat_id, "type": "private"},
        "text": "sent",
    }


@dataclass
class Seen:
    """What a server received, one entry per request."""

    requests: list[dict[str, Any]] = field(default_factory=list)


async def serve(handler: Handler) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}"


@pytest.fixture
async def api() -> AsyncIterator[tuple[str, Seen]]:
    """A Bot API that records each request (path, content type, fields, uploads) and answers
    with a message."""
    seen = Seen()

    async def handle(request: web.Request) -> web.Response:
        entry: dict[str, Any] = {
            "url": str(request.url),
            "path": request.path,
            "content_type": request.content_type,
        }
        if request.content_type == "multipart/form-data":
            fields = {}
            async for part in await request.multipart():
                data = await part.read()  # type: ignore[union-attr]
                fields[part.name] = (part.filename, bytes(data))  # type: ignore[union-attr]
            entry["fields"] = fields
            chat_id = int(fields["chat_id"][1])
        else:
            entry["json"] = await request.json()
            chat_id = int(entry["json"].get("chat_id", 0))
        seen.requests.append(entry)
        return answer(request, chat_id)

    runner, url = await serve(handle)
    yield url, seen
    await runner.cleanup()


async def test_a_call_goes_as_json_with_its_values_typed(api: tuple[str, Seen]) -> None:
    url, seen = api
    async with Bot(TOKEN, base_url=f"{url}/bot", request=telegram_request()) as bot:
        sent = await bot.send_message(5, "<b>hi</b> & <i>you</i>", parse_mode="HTML")
    assert sent.message_id == 7 and sent.chat.id == 5
    (call,) = [r for r in seen.requests if r["path"].endswith("/sendMessage")]
    assert call["content_type"] == "application/json"
    assert call["json"]["chat_id"] == 5  # a number, not the string form-encoding would give
    assert call["json"]["text"] == "<b>hi</b> & <i>you</i>"
    assert call["json"]["parse_mode"] == "HTML"


async def test_an_upload_goes_as_multipart_with_its_file(api: tuple[str, Seen]) -> None:
    url, seen = api
    document = InputFile(b'"kv cache"\ndistill* -self\n', filename="filters.txt")
    async with Bot(TOKEN, base_url=f"{url}/bot", request=telegram_request()) as bot:
        await bot.send_document(5, document, caption="Your 2 filters")
    (call,) = [r for r in seen.requests if r["path"].endswith("/sendDocument")]
    assert call["content_type"] == "multipart/form-data"
    fields = call["fields"]
    assert fields["chat_id"] == (None, b"5")
    assert fields["caption"] == (None, b"Your 2 filters")
    ((name, content),) = [value for value in fields.values() if value[0] is not None]
    assert (name, content) == ("filters.txt", b'"kv cache"\ndistill* -self\n')


async def test_an_answer_that_never_comes_times_out() -> None:
    release = asyncio.Event()

    async def silent(request: web.Request) -> web.Response:
        if not request.path.endswith("/getMe"):
            await release.wait()
        return answer(request, 5)

    runner, url = await serve(silent)
    try:
        request = AiohttpRequest(connections=2, read_timeout=0.2)
        async with Bot(TOKEN, base_url=f"{url}/bot", request=request) as bot:
            with pytest.raises(TimedOut):
                await bot.send_message(5, "hello")
            # a timeout the caller gives wins over ours
            quick = AiohttpRequest(connections=2, read_timeout=30.0)
            await quick.initialize()
            with pytest.raises(TimedOut):
                await quick.post(f"{url}/bot{TOKEN}/sendMessage", read_timeout=0.2)
            await quick.shutdown()
    finally:
        release.set()
        await runner.cleanup()


async def test_a_dropped_connection_is_a_network_error() -> None:
    async def hang_up(request: web.Request) -> web.Response:
        if request.path.endswith("/getMe"):
            return answer(request, 5)
        assert request.transport is not None
        request.transport.close()
        return web.Response()

    runner, url = await serve(hang_up)
    try:
        async with Bot(TOKEN, base_url=f"{url}/bot", request=telegram_request()) as bot:
            with pytest.raises(NetworkError) as caught:
                await bot.send_message(5, "hello")
        assert "aiohttp." in str(caught.value)
    finally:
        await runner.cleanup()


async def test_a_request_not_initialized_says_so() -> None:
    with pytest.raises(RuntimeError, match="not initialized"):
        await telegram_request().do_request("http://127.0.0.1:9/", "POST")


async def test_the_proxy_the_environment_names_is_used_unless_no_proxy_covers_the_host(
    api: tuple[str, Seen], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = api
    proxied: list[str] = []

    async def proxy(request: web.Request) -> web.Response:
        proxied.append(str(request.url))  # an absolute request line: the proxy's job
        return answer(request, 5)

    runner, proxy_url = await serve(proxy)
    try:
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        async with Bot(TOKEN, base_url=f"{url}/bot", request=telegram_request()) as bot:
            await bot.send_message(5, "via the proxy")
            await bot.send_message(5, "again")
        assert [u.rsplit("/", 1)[-1] for u in proxied] == ["getMe", "sendMessage", "sendMessage"]
        assert seen.requests == []  # nothing reached the API but through the proxy

        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        async with Bot(TOKEN, base_url=f"{url}/bot", request=telegram_request()) as bot:
            await bot.send_message(5, "direct")
        assert len(proxied) == 3
        assert [r["json"].get("text") for r in seen.requests] == [None, "direct"]
    finally:
        await runner.cleanup()
