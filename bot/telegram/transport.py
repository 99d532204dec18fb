"""One message to Telegram, with its failures translated for the postman."""

from __future__ import annotations

import json
import warnings
from datetime import timedelta
from typing import Any

import httpx
from telegram import Bot, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.request import BaseRequest, HTTPXRequest, RequestData
from telegram.warnings import PTBDeprecationWarning

from bot.postman import ChatGone, ChatMoved, Rejected, RetryLater, Transient

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
GONE = ("chat not found", "bot was kicked", "user is deactivated", "bot is not a member")


class JsonRequest(HTTPXRequest):
    """python-telegram-bot's HTTPX request, posting JSON instead of form data when no file goes
    along (the Bot API takes both). Form-encoding quotes a message character by character in
    Python; measured with bench/deliver.py, JSON makes the whole send about a fifth cheaper."""

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if request_data is None or request_data.contains_files:
            return await super().do_request(
                url, method, request_data, read_timeout, write_timeout, connect_timeout,
                pool_timeout,
            )  # fmt: skip
        defaults = self._client.timeout

        def chosen(value: Any, default: float | None) -> float | None:
            """A timeout the caller gave (a number, or None for none), else ours."""
            return value if value is None or isinstance(value, int | float) else default

        timeout = httpx.Timeout(
            connect=chosen(connect_timeout, defaults.connect),
            read=chosen(read_timeout, defaults.read),
            write=chosen(write_timeout, defaults.write),
            pool=chosen(pool_timeout, defaults.pool),
        )
        headers = {"User-Agent": self.USER_AGENT, "Content-Type": "application/json"}
        try:
            response = await self._client.request(
                method, url, headers=headers, timeout=timeout,
                content=json.dumps(request_data.parameters).encode(),
            )  # fmt: skip
        except httpx.TimeoutException as error:
            raise TimedOut from error
        except httpx.HTTPError as error:
            raise NetworkError(f"httpx.{error.__class__.__name__}: {error}") from error
        return response.status_code, response.content


CONNECTIONS = 16  # to Telegram at once: the postman's (8) and command replies; httpx's pool
# looks through every connection on each request, so more would only cost


def telegram_request(read_timeout: float | None = None) -> JsonRequest:
    """The request the bot talks to Telegram through (the benchmark uses the same)."""
    if read_timeout is None:
        return JsonRequest(connection_pool_size=CONNECTIONS)
    return JsonRequest(connection_pool_size=CONNECTIONS, read_timeout=read_timeout)


def retry_seconds(error: RetryAfter) -> float:
    with warnings.catch_warnings():  # int vs timedelta: PTB is migrating; take either
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class TelegramTransport:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def send(self, chat_id: int, text: str, *, html: bool = True) -> int:
        try:
            message = await self.bot.send_message(
                chat_id,
                text,
                parse_mode=ParseMode.HTML if html else None,
                link_preview_options=NO_PREVIEW,
            )
        except RetryAfter as error:
            raise RetryLater(retry_seconds(error)) from error
        except Forbidden as error:
            raise ChatGone(error.message) from error
        except ChatMigrated as error:
            raise ChatMoved(error.new_chat_id) from error
        except BadRequest as error:
            if any(reason in error.message.lower() for reason in GONE):
                raise ChatGone(error.message) from error
            raise Rejected(error.message) from error
        except (TimedOut, NetworkError) as error:
            raise Transient(str(error)) from error
        except TelegramError as error:  # anything else Telegram says: try again later
            raise Transient(str(error)) from error
        return message.message_id
