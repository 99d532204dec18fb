"""A fake Telegram Bot API server on 127.0.0.1: the real python-telegram-bot Application talks
HTTP to it. It answers the methods the bot uses, refuses what Telegram refuses (bad HTML, over 4096
characters, empty text), records every call, lets a test play users (messages, commands, button
presses, files sent, admins, blocking, group migration, forum topics and their closing), serves
the files users sent (getFile and the download) and keeps those the bot sends (sendDocument),
injects faults (403, 429 with retry_after, 5xx, dropped connections, answers held back), one at a
time or at random (`chaos`: Telegram's bad minutes), and can enforce Telegram's rate limits."""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import itertools
import json
import random
import re
import select
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from tests.telegram_html import check_message

BOT_USER = {
    "id": 4242,
    "is_bot": True,
    "first_name": "paperbot",
    "username": "paperbot_test_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
}
MESSAGE_FIELDS = ("message_id", "date", "chat", "from", "text")
# What Telegram sends a bot that names no allowed_updates: every kind but these three
DEFAULT_UPDATES = {
    "message", "edited_message", "channel_post", "edited_channel_post", "business_connection",
    "business_message", "edited_business_message", "deleted_business_messages",
    "inline_query", "chosen_inline_result", "callback_query", "shipping_query",
    "pre_checkout_query", "purchased_paid_media", "poll", "poll_answer", "my_chat_member",
    "chat_join_request", "chat_boost", "removed_chat_boost",
}  # fmt: skip
# what a button press carries of its message: a message in a forum topic says which
PRESSED_FIELDS = (*MESSAGE_FIELDS, "reply_markup", "message_thread_id", "is_topic_message")
PATH = re.compile(r"^/bot([^/]+)/(\w+)$")
FILE_PARAM = "__file__"  # a call's params: an uploaded file's bytes, under its field's name
FILE_PATH = re.compile(r"^/file/bot([^/]+)/(.+)$")
GET_FILE_LIMIT = 20_000_000  # the largest file a bot may fetch through the Bot API


def _multipart(content_type: str, body: bytes) -> tuple[dict[str, str], dict[str, bytes]]:
    """A multipart/form-data body (python-telegram-bot's, when it uploads a file): its fields
    as text, its files as bytes."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    fields: dict[str, str] = {}
    files: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        decoded = part.get_payload(decode=True)
        payload = decoded if isinstance(decoded, bytes) else b""
        if part.get_filename():
            files[str(name)] = payload
            fields[str(name)] = f"file:{part.get_filename()}"
        else:
            fields[str(name)] = payload.decode()
    return fields, files


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    at: float
    answer: dict[str, Any] = field(default_factory=dict)
    fault: str | None = None  # the chaos fault this call met (`Chaos.kinds`)
    held: bool = False  # held back by a "hold" fault until released

    @property
    def ok(self) -> bool:
        return bool(self.answer.get("ok"))


@dataclass
class Fault:
    method: str
    kind: str  # 400 | 401 | 403 | 404 | 429 | 500 | 502 | drop | hold
    times: int
    chat_id: int | None = None
    retry_after: int = 1
    holding: int = 0  # hold: requests waiting now for `release` (unanswered until then)
    released: bool = False


# What `chaos` injects: refusals (429 with retry_after, 500, 502: nothing sent), a connection
# reset before the request is read (nothing sent), and the two ways an answer is lost after the
# message went out: the connection dropped instead of answering ("drop"), or the answer held
# back until the client gave up waiting for it ("late": slower than the client's timeout).
CHAOS_KINDS = ("429", "500", "502", "reset", "drop", "late")
ANSWER_LOST = ("drop", "late")


@dataclass
class Chaos:
    """Faults at random on one method, at `rate`. Which request meets which fault is drawn from
    the seed, the request's chat and text, and how many times that same request came before
    (not from the order requests arrive in), so a seed replays the same faults for the same
    messages however the threads interleave."""

    rate: float
    seed: int
    kinds: tuple[str, ...] = CHAOS_KINDS
    retry_after: tuple[int, ...] = (1, 2)
    seen: Counter[str] = field(default_factory=Counter)  # requests so far, by chat and text
    injected: Counter[str] = field(default_factory=Counter)  # faults so far, by kind

    def draw(self, method: str, params: dict[str, Any]) -> tuple[str | None, int]:
        """The fault for this request (None: answered as usual) and its retry_after."""
        key = f"{method}|{params.get('chat_id')}|{params.get('text', '')}"
        self.seen[key] += 1
        rng = random.Random(f"{self.seed}|{key}|{self.seen[key]}")
        if rng.random() >= self.rate:
            return None, 0
        kind = rng.choice(self.kinds)
        self.injected[kind] += 1
        return kind, rng.choice(self.retry_after)


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # a burst of new connections is not refused
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-request (killed, or gave up) is not an error here."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ApiError(Exception):
    def __init__(self, code: int, description: str, **parameters: Any) -> None:
        super().__init__(description)
        self.code, self.description, self.parameters = code, description, parameters


class FakeTelegram:
    def __init__(self, *, enforce_limits: bool = False) -> None:
        self.enforce_limits = enforce_limits
        self.changed = threading.Condition()
        self.calls: list[Call] = []
        self.updates: list[dict[str, Any]] = []
        self.update_ids = itertools.count(1)
        self.message_ids = itertools.count(1000)
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        self.chat_types: dict[int, str] = {}
        self.admins: dict[int, set[int]] = {}
        self.blocked: set[int] = set()
        self.migrated: dict[int, int] = {}
        # forum topics closed or deleted: (chat, thread) -> what Telegram answers a message there
        self.gone_topics: dict[tuple[int, int], str] = {}
        self.forums: set[int] = set()
        self.faults: list[Fault] = []
        self.commands: list[dict[str, str]] = []  # the menu for every language (no code)
        self.menus: dict[str, list[dict[str, str]]] = {}  # language_code -> its own menu
        self.languages: dict[int, str] = {}  # user id -> the language_code their updates carry
        self.sends: list[tuple[float, int]] = []  # (monotonic time, chat id) of accepted messages
        self.flood_refusals = 0
        self.chaotic: dict[str, Chaos] = {}  # method -> its random faults
        self.lost: set[tuple[int, int]] = set()  # (chat, message id) sent, answer never received
        self.files: dict[str, bytes] = {}  # file_path -> what a user sent (getFile serves it)
        self.downloads: list[str] = []  # the file_paths the bot downloaded, in order
        self.file_ids = itertools.count(1)
        # (chat, message id) -> (file name, bytes) of the files the bot sent (sendDocument)
        self.documents: dict[tuple[int, int], tuple[str, bytes]] = {}
        self.stopped = False
        self._server: ThreadingHTTPServer | None = None
        self.base_url = ""

    # -- the server --------------------------------------------------------------------------

    def start(self) -> str:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as they are written

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                match = FILE_PATH.match(self.path)
                data = fake.files.get(match.group(2)) if match else None
                if match and data is not None:
                    fake.downloads.append(match.group(2))
                if data is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                match = PATH.match(self.path)
                if not match:
                    self.send_error(404)
                    return
                content_type = self.headers.get("Content-Type", "")
                files: dict[str, bytes] = {}
                if content_type.startswith("multipart/form-data"):
                    params, files = _multipart(content_type, raw)
                elif content_type.startswith("application/json"):
                    decoded = json.loads(raw.decode() or "{}")  # Telegram takes JSON bodies too
                    params = {
                        k: v if isinstance(v, str) else json.dumps(v) for k, v in decoded.items()
                    }
                else:
                    body = raw.decode()
                    params = {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}
                call_params: dict[str, Any] = {**params}
                call_params.update({f"{FILE_PARAM}{k}": v for k, v in files.items()})
                call = fake.handle(match.group(2), call_params)
                answer = call.answer or None
                if answer is None:  # a dropped connection
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                late = call.fault == "late" or call.held
                if late and fake.wait_gone(self.connection, wait=call.fault == "late"):
                    fake.answer_lost(call)  # answered after the client gave up (or died)
                data = json.dumps(answer).encode()
                try:
                    self.send_response(200 if answer["ok"] else answer["error_code"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout, or the bot stopping)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/bot"
        return self.base_url

    def stop(self) -> None:
        with self.changed:
            self.stopped = True
            self.changed.notify_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        with self.changed:
            self.changed.notify_all()

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        return self.handle(method, params).answer or None

    def handle(self, method: str, params: dict[str, Any]) -> Call:
        """The call answered (an empty answer: the connection is dropped instead)."""
        call = Call(method, params, time.monotonic())
        fault = self._take_fault(method, params)
        if fault is not None and fault.kind == "hold":
            if not self._hold(fault):
                return call  # the server stops: the request is never answered
            fault, call.held = None, True
        if fault is None:
            fault = self._draw_chaos(call)
        try:
            if fault is not None:
                self._raise_fault(fault)
            result = getattr(self, f"api_{method}", self.api_unknown)(params)
            call.answer = {"ok": True, "result": result}
        except ApiError as error:
            call.answer = {"ok": False, "error_code": error.code, "description": error.description}
            if error.parameters:
                call.answer["parameters"] = error.parameters
        if fault is not None and fault.kind == "drop":
            call.answer = {}  # dropped before it was read: nothing done
        if call.fault == "drop":
            self.answer_lost(call)
            call.answer = {}  # done, and the connection dropped instead of the answer
        with self.changed:
            self.calls.append(call)
            self.changed.notify_all()
        return call

    def _draw_chaos(self, call: Call) -> Fault | None:
        with self.changed:
            chaos = self.chaotic.get(call.method)
            if chaos is None:
                return None
            kind, retry_after = chaos.draw(call.method, call.params)
        call.fault = kind
        if kind in (None, *ANSWER_LOST):
            return None  # done as usual; `handle` and the handler lose the answer
        if kind == "reset":
            return Fault(call.method, "drop", 0)  # the connection dropped before it is read
        return Fault(call.method, kind, 0, retry_after=retry_after)

    def answer_lost(self, call: Call) -> None:
        """The call's answer never reached the client: a message it sent is recorded as lost
        (Telegram has it; the bot cannot know)."""
        result = call.answer.get("result")
        if call.method == "sendMessage" and call.answer.get("ok") and isinstance(result, dict):
            with self.changed:
                self.lost.add((result["chat"]["id"], result["message_id"]))
                self.changed.notify_all()

    def wait_gone(self, connection: socket.socket, *, wait: bool = True) -> bool:
        """Until the client closes the connection (True: it gave up waiting for the answer, or
        died) or the server stops (False); `wait` False: whether it has closed it already."""
        while not self.stopped:
            readable, _, _ = select.select([connection], [], [], 0.5 if wait else 0)
            if readable:
                try:
                    return connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:  # reset by the client
                    return True
            if not wait:
                break
        return False

    def chaos(
        self, method: str = "sendMessage", *, rate: float, seed: int, **options: Any
    ) -> Chaos:
        """From now on, `method`'s requests meet faults at random (see `Chaos`, `CHAOS_KINDS`),
        until `calm`. Returns the chaos, which counts what it injected."""
        chaos = Chaos(rate, seed, **options)
        with self.changed:
            self.chaotic[method] = chaos
        return chaos

    def calm(self, *methods: str) -> None:
        """No more random faults on these methods (all, when none are named)."""
        with self.changed:
            for method in methods or list(self.chaotic):
                del self.chaotic[method]

    def _hold(self, fault: Fault) -> bool:
        """The request waits until the test releases it (True) or the server stops (False): an
        answer slower than any timeout, or a send caught in the middle, without a clock."""
        with self.changed:
            fault.holding += 1
            self.changed.notify_all()
            self.changed.wait_for(lambda: fault.released or self.stopped)
            fault.holding -= 1
            return fault.released

    def release(self, fault: Fault) -> None:
        with self.changed:
            fault.released = True
            self.changed.notify_all()

    def _take_fault(self, method: str, params: dict[str, Any]) -> Fault | None:
        with self.changed:
            for fault in self.faults:
                chat = params.get("chat_id")
                wanted = fault.chat_id is None or str(fault.chat_id) == chat
                if fault.method == method and fault.times > 0 and wanted:
                    fault.times -= 1
                    return fault
        return None

    def _raise_fault(self, fault: Fault) -> None:
        if fault.kind == "401":  # what Telegram answers a refused token
            raise ApiError(401, "Unauthorized")
        if fault.kind == "403":
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if fault.kind == "404":  # what a wrong API URL answers
            raise ApiError(404, "Not Found")
        if fault.kind == "429":
            raise ApiError(
                429, f"Too Many Requests: retry after {fault.retry_after}",
                retry_after=fault.retry_after,
            )  # fmt: skip
        if fault.kind == "400":
            raise ApiError(400, "Bad Request: can't parse entities: unsupported start tag")
        if fault.kind in ("500", "502"):
            raise ApiError(int(fault.kind), "Internal Server Error")
        if fault.kind == "drop":
            raise ApiError(0, "dropped")

    # -- methods -----------------------------------------------------------------------------

    def api_unknown(self, params: dict[str, Any]) -> Any:
        raise ApiError(404, "Not Found: method not found")

    def api_getMe(self, params: dict[str, Any]) -> Any:  # noqa: N802
        return BOT_USER

    def api_deleteWebhook(self, params: dict[str, Any]) -> Any:  # noqa: N802
        return True

    def api_setWebhook(self, params: dict[str, Any]) -> Any:  # noqa: N802
        return True  # recorded in calls, like every call: the URL and secret_token given

    def api_getUpdates(self, params: dict[str, Any]) -> Any:  # noqa: N802
        offset = int(params.get("offset") or 0)
        timeout = min(float(params.get("timeout") or 0), 2.0)
        limit = int(params.get("limit") or 100)
        asked = json.loads(params.get("allowed_updates") or "[]")
        allowed = set(asked) or DEFAULT_UPDATES  # Telegram's default leaves reactions out

        def wanted(update: dict[str, Any]) -> bool:
            return update["update_id"] >= offset and not (update.keys() - {"update_id"}) - allowed

        with self.changed:
            self.updates = [u for u in self.updates if wanted(u)]  # the others are dropped
            self.changed.wait_for(lambda: any(map(wanted, self.updates)), timeout=timeout)
            self.updates = [u for u in self.updates if wanted(u)]
            return self.updates[:limit]

    def api_setMyCommands(self, params: dict[str, Any]) -> Any:  # noqa: N802
        commands = json.loads(params["commands"])
        for command in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", command["command"]):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(command["description"]) <= 256:
                raise ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        language = params.get("language_code") or ""
        if language and not re.fullmatch(r"[a-z]{2}", language):  # ISO 639-1, as Telegram wants
            raise ApiError(400, "Bad Request: LANG_CODE_INVALID")
        if language:
            self.menus[language] = commands
        else:
            self.commands = commands
        return True

    def api_getChatMember(self, params: dict[str, Any]) -> Any:  # noqa: N802
        chat_id, user_id = int(params["chat_id"]), int(params["user_id"])
        user = {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"}
        if user_id in self.admins.get(chat_id, set()):
            return {"status": "creator", "user": user, "is_anonymous": False}
        return {"status": "member", "user": user}

    def api_fakeStats(self, params: dict[str, Any]) -> Any:  # noqa: N802
        """Not Telegram's: what a benchmark in another process needs to know."""
        with self.changed:
            return {
                "sends": [t for t, _ in self.sends],
                "flood_refusals": self.flood_refusals,
                "texts": [c.params.get("text") for c in self.calls if c.method == "sendMessage"],
            }

    def api_answerCallbackQuery(self, params: dict[str, Any]) -> Any:  # noqa: N802
        return True

    def _check_chat(self, chat_id: int) -> None:
        if chat_id in self.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if chat_id in self.migrated:
            raise ApiError(
                400, "Bad Request: group chat was upgraded to a supergroup chat",
                migrate_to_chat_id=self.migrated[chat_id],
            )  # fmt: skip

    def _check_text(self, params: dict[str, Any]) -> str:
        text = params.get("text", "")
        problem = check_message(text, params.get("parse_mode"))
        if problem:
            raise ApiError(400, problem)
        return text

    @staticmethod
    def _markup(params: dict[str, Any]) -> Any:
        """The reply_markup sent, refused as Telegram refuses it: more than 100 inline buttons
        or 8 in a row."""
        markup = json.loads(params.get("reply_markup", "null"))
        rows = (markup or {}).get("inline_keyboard", [])
        if sum(len(row) for row in rows) > 100 or len(rows) > 100:
            raise ApiError(400, "Bad Request: reply markup is too long")
        if any(len(row) > 8 for row in rows):
            raise ApiError(400, "Bad Request: too many buttons in a row")
        return markup

    def _check_rate(self, chat_id: int, now: float) -> None:
        """Telegram's limits, a little stricter than Telegram: 1 message/s to a chat, 30/s in
        all, 20/min to a group."""
        recent = [(t, c) for t, c in self.sends if now - t < 60]
        last_to_chat = max((t for t, c in recent if c == chat_id), default=None)
        too_soon = last_to_chat is not None and now - last_to_chat < 0.95
        overall = sum(1 for t, _ in recent if now - t < 1.0) >= 30
        group = chat_id < 0 and sum(1 for _, c in recent if c == chat_id) >= 20
        if too_soon or overall or group:
            self.flood_refusals += 1
            raise ApiError(429, "Too Many Requests: retry after 1", retry_after=1)

    def _check_topic(self, chat_id: int, thread: int | None) -> None:
        if thread is not None and (chat_id, thread) in self.gone_topics:
            raise ApiError(400, self.gone_topics[(chat_id, thread)])

    def api_sendMessage(self, params: dict[str, Any]) -> Any:  # noqa: N802
        chat_id = int(params["chat_id"])
        thread = int(params["message_thread_id"]) if params.get("message_thread_id") else None
        self._check_chat(chat_id)
        self._check_topic(chat_id, thread)
        text = self._check_text(params)
        markup = self._markup(params)
        with self.changed:
            now = time.monotonic()
            if self.enforce_limits:
                self._check_rate(chat_id, now)
            self.sends.append((now, chat_id))
            message = self._message(chat_id, next(self.message_ids), text, BOT_USER)
            if "reply_markup" in params:
                message["reply_markup"] = markup
            message["parse_mode"] = params.get("parse_mode")
            message["link_preview_options"] = json.loads(params.get("link_preview_options", "{}"))
            if thread is not None:  # as Telegram: a message in a forum topic says which
                message.update(message_thread_id=thread, is_topic_message=True)
            self.messages[(chat_id, message["message_id"])] = message
        return message

    def api_sendDocument(self, params: dict[str, Any]) -> Any:  # noqa: N802
        chat_id = int(params["chat_id"])
        self._check_chat(chat_id)
        data = params.get(f"{FILE_PARAM}document")
        if not isinstance(data, bytes) or not data:
            raise ApiError(400, "Bad Request: file must be non-empty")
        name = str(params["document"]).removeprefix("file:")
        with self.changed:
            self.sends.append((time.monotonic(), chat_id))
            message = self._message(chat_id, next(self.message_ids), "", BOT_USER)
            del message["text"]
            message["document"] = {
                "file_id": f"sent{next(self.file_ids)}",
                "file_unique_id": f"u{len(self.documents)}",
                "file_name": name,
                "file_size": len(data),
            }
            if params.get("caption"):
                message["caption"] = params["caption"]
            self.documents[(chat_id, message["message_id"])] = (name, data)
        return message

    def api_getFile(self, params: dict[str, Any]) -> Any:  # noqa: N802
        path = f"documents/{params['file_id']}"
        data = self.files.get(path)
        if data is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        if len(data) > GET_FILE_LIMIT:
            raise ApiError(400, "Bad Request: file is too big")
        return {
            "file_id": params["file_id"],
            "file_unique_id": f"u-{params['file_id']}",
            "file_size": len(data),
            "file_path": path,
        }

    def api_editMessageText(self, params: dict[str, Any]) -> Any:  # noqa: N802
        chat_id, message_id = int(params["chat_id"]), int(params["message_id"])
        text = self._check_text(params)
        markup = self._markup(params)
        with self.changed:
            message = self.messages.get((chat_id, message_id))
            if message is None:
                raise ApiError(400, "Bad Request: message to edit not found")
            if message["text"] == text and "reply_markup" not in params:
                raise ApiError(400, "Bad Request: message is not modified")
            message["text"] = text
            message["reply_markup"] = markup
            return {k: v for k, v in message.items() if k != "parse_mode"}

    def api_editMessageReplyMarkup(self, params: dict[str, Any]) -> Any:  # noqa: N802
        chat_id, message_id = int(params["chat_id"]), int(params["message_id"])
        markup = self._markup(params)
        with self.changed:
            message = self.messages.get((chat_id, message_id))
            if message is None:
                raise ApiError(400, "Bad Request: message to edit not found")
            if message.get("reply_markup") == markup:
                raise ApiError(400, "Bad Request: message is not modified")
            message["reply_markup"] = markup
            return {k: v for k, v in message.items() if k != "parse_mode"}

    # -- playing users -----------------------------------------------------------------------

    def _chat(self, chat_id: int) -> dict[str, Any]:
        kind = self.chat_types.get(chat_id, "private" if chat_id > 0 else "group")
        chat: dict[str, Any] = {"id": chat_id, "type": kind}
        if chat_id in self.forums:
            chat["is_forum"] = True
        chat.update({"first_name": "Ada"} if kind == "private" else {"title": "Reading group"})
        return chat

    def _message(
        self, chat_id: int, message_id: int, text: str, sender: dict[str, Any]
    ) -> dict[str, Any]:
        return {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": self._chat(chat_id),
            "from": sender,
            "text": text,
        }

    def _push(self, update: dict[str, Any]) -> int:
        with self.changed:
            update["update_id"] = next(self.update_ids)
            self.updates.append(update)
            self.changed.notify_all()
        return int(update["update_id"])

    def user(self, user_id: int) -> dict[str, Any]:
        """A user as updates carry them, with their app's language when a test gave one."""
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"}
        if user_id in self.languages:
            user["language_code"] = self.languages[user_id]
        return user

    def say(
        self, chat_id: int, text: str, *, user_id: int | None = None, thread: int | None = None
    ) -> int:
        """A user writes in a chat (a private chat's id is the user's); `thread`: in that forum
        topic (None: General, or a chat without topics)."""
        sender = self.user(user_id or chat_id)
        message = self._message(chat_id, next(self.message_ids), text, sender)
        if thread is not None:
            message.update(message_thread_id=thread, is_topic_message=True)
        if text.startswith("/"):
            length = len(text.split()[0]) if text.split() else 1
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        return self._push({"message": message})

    def send_file(
        self,
        chat_id: int,
        name: str,
        data: bytes,
        *,
        caption: str | None = None,
        size: int | None = None,
        user_id: int | None = None,
    ) -> int:
        """A user sends a file to the chat; `size`: what Telegram says of its size (its bytes'
        length unless given)."""
        file_id = f"doc{next(self.file_ids)}"
        self.files[f"documents/{file_id}"] = data
        message = self._message(chat_id, next(self.message_ids), "", self.user(user_id or chat_id))
        del message["text"]
        message["document"] = {
            "file_id": file_id,
            "file_unique_id": f"u-{file_id}",
            "file_name": name,
            "file_size": len(data) if size is None else size,
        }
        if caption is not None:
            message["caption"] = caption
        return self._push({"message": message})

    def press(self, chat_id: int, message_id: int, data: str, *, user_id: int | None = None) -> int:
        message = self.messages[(chat_id, message_id)]
        query = {
            "id": f"q{next(self.update_ids)}",
            "from": self.user(user_id or chat_id),
            "chat_instance": str(chat_id),
            "data": data,
            "message": {k: v for k, v in message.items() if k in PRESSED_FIELDS},
        }
        return self._push({"callback_query": query})

    def react(
        self, chat_id: int, message_id: int, new: Sequence[str], old: Sequence[str] = (), *,
        user_id: int,
    ) -> int:  # fmt: skip
        """A member's reactions on a message change from `old` to `new` (emojis)."""
        change = {
            "chat": self._chat(chat_id),
            "message_id": message_id,
            "user": self.user(user_id),
            "date": int(time.time()),
            "old_reaction": [{"type": "emoji", "emoji": e} for e in old],
            "new_reaction": [{"type": "emoji", "emoji": e} for e in new],
        }
        return self._push({"message_reaction": change})

    def add_group(self, chat_id: int, *, admins: set[int], kind: str = "group") -> None:
        self.chat_types[chat_id] = kind
        self.admins[chat_id] = set(admins)

    def add_forum(self, chat_id: int, *, admins: set[int]) -> None:
        """A supergroup with topics: its messages in a topic carry the topic's thread id."""
        self.add_group(chat_id, admins=admins, kind="supergroup")
        self.forums.add(chat_id)

    def close_topic(self, chat_id: int, thread: int, *, deleted: bool = False) -> None:
        """The topic is closed (or deleted): a message sent there is refused, as Telegram does."""
        why = "Bad Request: message thread not found" if deleted else "Bad Request: TOPIC_CLOSED"
        with self.changed:
            self.gone_topics[(chat_id, thread)] = why

    def _membership(self, chat_id: int, old: str, new: str) -> int:
        members: list[dict[str, Any]] = [
            {"status": status, "user": BOT_USER} for status in (old, new)
        ]
        for member in members:
            if member["status"] == "kicked":
                member["until_date"] = 0
        change = {
            "chat": self._chat(chat_id),
            "from": self.user(abs(chat_id)),
            "date": int(time.time()),
            "old_chat_member": members[0],
            "new_chat_member": members[1],
        }
        return self._push({"my_chat_member": change})

    def block(self, chat_id: int) -> int:
        self.blocked.add(chat_id)
        return self._membership(chat_id, "member", "kicked")

    def unblock(self, chat_id: int) -> int:
        self.blocked.discard(chat_id)
        return self._membership(chat_id, "kicked", "member")

    def migrate(self, old_id: int, new_id: int) -> int:
        """The group becomes a supergroup: Telegram's service message in the old chat."""
        self.migrated[old_id] = new_id
        self.chat_types[new_id] = "supergroup"
        self.admins[new_id] = self.admins.get(old_id, set())
        message = self._message(old_id, next(self.message_ids), "", self.user(1))
        del message["text"]
        message["migrate_to_chat_id"] = new_id
        return self._push({"message": message})

    def fail(self, method: str, kind: str, *, times: int = 1, **details: Any) -> Fault:
        fault = Fault(method, kind, times, **details)
        with self.changed:
            self.faults.append(fault)
        return fault

    # -- observing ---------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[Call]:
        with self.changed:
            return [c for c in self.calls if c.method == method]

    def sent(self, chat_id: int) -> list[dict[str, Any]]:
        """Messages the bot sent to the chat, as they read now (after edits), oldest first."""
        with self.changed:
            return [m for (c, _), m in sorted(self.messages.items()) if c == chat_id]

    def texts(self, chat_id: int) -> list[str]:
        return [m.get("text", "") for m in self.sent(chat_id)]

    def in_topic(self, chat_id: int, thread: int | None) -> list[str]:
        """The texts of the messages the bot sent to the chat's forum topic (None: General)."""
        return [m["text"] for m in self.sent(chat_id) if m.get("message_thread_id") == thread]

    async def wait_for(self, condition: Callable[[], bool], timeout: float = 10) -> None:
        """Until the condition holds (checked on every call the server answers)."""

        def wait() -> bool:
            with self.changed:
                return self.changed.wait_for(condition, timeout=timeout)

        if not await asyncio.to_thread(wait):
            raise AssertionError(f"timed out; calls so far: {[c.method for c in self.calls]}")

    async def reply_to(self, chat_id: int, text: str, **who: Any) -> dict[str, Any]:
        """A user writes; returns the bot's answer (the next message it sends to the chat)."""
        before = len(self.sent(chat_id))
        self.say(chat_id, text, **who)
        await self.wait_for(lambda: len(self.sent(chat_id)) > before)
        return self.sent(chat_id)[before]


def main() -> None:
    """Run the server alone (benchmarks use a separate process, so that the bot and the server
    do not share one interpreter): prints its base URL, serves until stdin closes."""
    sys.setswitchinterval(1e-4)  # many connection threads: hand the GIL over quickly
    server = FakeTelegram(enforce_limits="--enforce-limits" in sys.argv)
    print(server.start(), flush=True)
    sys.stdin.read()
    server.stop()


if __name__ == "__main__":
    main()
