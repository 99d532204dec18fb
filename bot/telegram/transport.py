"""One message to Telegram, with its failures translated for the sender (bot/sender.py)."""

from __future__ import annotations

import json
import warnings
from datetime import timedelta
from typing import NamedTuple

import aiohttp
from aiohttp import BasicAuth
from aiohttp.helpers import get_env_proxy_for_url
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions
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
from telegram.request import BaseRequest, RequestData
from telegram.warnings import PTBDeprecationWarning
from yarl import URL

from bot.core.buttons import Button, Keyboard
from bot.sender import ChatGone, ChatMoved, Rejected, RetryLater, TopicGone, Transient

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
GONE = ("chat not found", "bot was kicked", "user is deactivated", "bot is not a member")
# what Telegram answers a message for a forum topic that was deleted, or closed
TOPIC_GONE = ("message thread not found", "topic_closed", "topic_deleted")


Proxy = tuple[URL | None, BasicAuth | None]  # a proxy's address and credentials, or none


class AiohttpRequest(BaseRequest):
    """python-telegram-bot's requests sent through aiohttp instead of its default httpx.

    Measured with bench/deliver.py on this project's 2-core machine, a bare `Bot.send_message`
    costs about 1 ms of CPU through httpx/httpcore (its pool and socket bookkeeping) and about
    0.25 ms through aiohttp (its C HTTP parser); a sender that pushes hundreds of messages a
    second spends most of its time there. Parameters go as JSON when no file goes along (the Bot
    API takes both; form-encoding quotes a message character by character in Python), files as
    multipart form data. Timeouts keep PTB's meaning: `None` is no limit, an omitted one is ours.
    """

    def __init__(
        self,
        *,
        connections: int,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
    ) -> None:
        self._connections = connections
        self._timeouts = Timeouts(read_timeout, write_timeout, connect_timeout, pool_timeout)
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[tuple[str, str | None, int | None], Proxy] = {}

    @property
    def read_timeout(self) -> float | None:
        return self._timeouts.read

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._connections)
            self._session = aiohttp.ClientSession(connector=connector)
            self._proxies.clear()

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: object = BaseRequest.DEFAULT_NONE,
        write_timeout: object = BaseRequest.DEFAULT_NONE,
        connect_timeout: object = BaseRequest.DEFAULT_NONE,
        pool_timeout: object = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data is not None and request_data.contains_files
        defaults = self._timeouts
        if files:
            defaults = defaults._replace(write=self._media_write_timeout)
        timeouts = Timeouts(
            read=chosen(read_timeout, defaults.read),
            write=chosen(write_timeout, defaults.write),
            connect=chosen(connect_timeout, defaults.connect),
            pool=chosen(pool_timeout, defaults.pool),
        )
        headers = {"User-Agent": self.USER_AGENT}
        body: bytes | aiohttp.FormData
        if request_data is None:
            body = b""
        elif files:
            body = form_data(request_data)
        else:
            headers["Content-Type"] = "application/json"
            body = json.dumps(request_data.parameters).encode()
        try:
            proxy, proxy_auth = self._proxy_for(URL(url))
            async with self._session.request(
                method, url, data=body, headers=headers, timeout=timeouts.for_aiohttp(),
                proxy=proxy, proxy_auth=proxy_auth,
            ) as response:  # fmt: skip
                return response.status, await response.read()
        except TimeoutError as error:  # aiohttp's timeouts are TimeoutErrors too
            raise TimedOut from error
        except aiohttp.ClientError as error:
            raise NetworkError(f"aiohttp.{error.__class__.__name__}: {error}") from error

    def _proxy_for(self, url: URL) -> Proxy:
        """The proxy the environment names for this URL (HTTPS_PROXY, NO_PROXY and friends), as
        python-telegram-bot's httpx honours them; read once per origin, not on every request
        (aiohttp's own `trust_env` looks again each time, in a thread: half the cost of a send)."""
        origin = (url.scheme, url.host, url.port)
        if origin not in self._proxies:
            try:
                self._proxies[origin] = get_env_proxy_for_url(url)
            except LookupError:  # none named, or NO_PROXY covers the host
                self._proxies[origin] = (None, None)
        return self._proxies[origin]


class Timeouts(NamedTuple):
    read: float | None
    write: float | None
    connect: float | None
    pool: float | None

    def for_aiohttp(self) -> aiohttp.ClientTimeout:
        """aiohttp's `connect` covers waiting for a pooled connection and opening one, its
        `sock_read` the wait between chunks of the answer; it has no write timeout, so the
        whole request is bounded by the sum of all four (when each has a limit)."""
        parts = (self.pool, self.connect, self.write, self.read)
        waiting = None if self.pool is None or self.connect is None else self.pool + self.connect
        total = None if None in parts else sum(p for p in parts if p is not None)
        return aiohttp.ClientTimeout(
            total=total, connect=waiting, sock_connect=self.connect, sock_read=self.read
        )


def chosen(value: object, default: float | None) -> float | None:
    """A timeout the caller gave (a number, or None for none), else ours (PTB passes its
    DEFAULT_NONE marker for a timeout nobody set)."""
    return value if value is None or isinstance(value, int | float) else default


def form_data(request_data: RequestData) -> aiohttp.FormData:
    """Parameters and files as multipart/form-data, as the Bot API takes uploads."""
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mimetype) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form


CONNECTIONS = 16  # to Telegram at once: the postman's (8) and command replies


def telegram_request(
    read_timeout: float | None = None, *, connections: int = CONNECTIONS
) -> AiohttpRequest:
    """A request the bot talks to Telegram through (the benchmark uses the same); getUpdates
    takes one of its own, with one connection (python-telegram-bot adds the long poll's wait
    to its read timeout)."""
    if read_timeout is None:
        return AiohttpRequest(connections=connections)
    return AiohttpRequest(connections=connections, read_timeout=read_timeout)


def markup(buttons: Keyboard) -> InlineKeyboardMarkup | None:
    """Rows of buttons as Telegram's inline keyboard (None: no keyboard)."""
    if not buttons:
        return None
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(b.label, callback_data=b.data) for b in row] for row in buttons]
    )


def keyboard_of(found: InlineKeyboardMarkup | None) -> list[list[Button]]:
    """Telegram's inline keyboard under a message as our rows of buttons (ours all carry
    callback data)."""
    if found is None:
        return []
    return [
        [Button(b.text, b.callback_data) for b in row if isinstance(b.callback_data, str)]
        for row in found.inline_keyboard
    ]


def retry_seconds(error: RetryAfter) -> float:
    with warnings.catch_warnings():  # int vs timedelta: PTB is migrating; take either
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class TelegramTransport:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def send(
        self,
        chat_id: int,
        text: str,
        *,
        html: bool = True,
        buttons: Keyboard = (),
        silent: bool = False,
        topic: int | None = None,
    ) -> int:
        try:
            message = await self.bot.send_message(
                chat_id,
                text,
                parse_mode=ParseMode.HTML if html else None,
                link_preview_options=NO_PREVIEW,
                reply_markup=markup(buttons),
                disable_notification=silent or None,  # None: the parameter is left out
                message_thread_id=topic,
            )
        except RetryAfter as error:
            raise RetryLater(retry_seconds(error)) from error
        except Forbidden as error:
            raise ChatGone(error.message) from error
        except ChatMigrated as error:
            raise ChatMoved(error.new_chat_id) from error
        except BadRequest as error:
            if topic is not None and any(r in error.message.lower() for r in TOPIC_GONE):
                raise TopicGone(topic, error.message) from error
            if any(reason in error.message.lower() for reason in GONE):
                raise ChatGone(error.message) from error
            raise Rejected(error.message) from error
        except (TimedOut, NetworkError) as error:
            raise Transient(str(error)) from error
        except TelegramError as error:  # anything else Telegram says: try again later
            raise Transient(str(error)) from error
        return message.message_id
