"""The log an operator reads: one line a record (words, or one JSON object for a log collector),
the token and URLs' passwords never written, control characters in names escaped so that a file
called "a\\nERROR forged.xml" cannot forge a line, and each record marked with the scheduled job
or the chat it came from.

Set up once, by main() (bot/cli.py); the job and the chat are context variables, set around a
job's run (bot/jobs.py) and an update's handling or a message's sending, and copied by asyncio
into the tasks and threads those start."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path

from bot.core.secrets import masked_urls

JOB: ContextVar[str | None] = ContextVar("paperbot_job", default=None)
CHAT: ContextVar[int | None] = ContextVar("paperbot_chat", default=None)

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# C0 and C1 controls, DEL, and the two Unicode line breaks: what a terminal, journald or a log
# collector may take for the end of a line or a command
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@contextmanager
def in_job(name: str) -> Iterator[None]:
    """Records logged meanwhile (in this task, and the tasks and threads it starts) name the job."""
    token = JOB.set(name)
    try:
        yield
    finally:
        JOB.reset(token)


@contextmanager
def about_chat(chat_id: int | None) -> Iterator[None]:
    """Records logged meanwhile name the chat (None: no chat)."""
    token = CHAT.set(chat_id)
    try:
        yield
    finally:
        CHAT.reset(token)


def redact(text: str, secret: str | None) -> str:
    """The text without the token (`secret`) nor any URL's password."""
    text = masked_urls(text)
    return text.replace(secret, "<token>") if secret else text


def escaped(text: str) -> str:
    """The text on one line: each control character written as an escape (`\\n`, `\\x1b`)."""

    def escape(found: re.Match[str]) -> str:
        character = found[0]
        code = ord(character)
        return _SHORT.get(character) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")

    return _CONTROLS.sub(escape, text)


class Redacted(logging.Filter):
    """Secrets out of every log line: python-telegram-bot logs its request addresses (at debug
    level, and in some errors), which carry the token; httpx logs a feed's, with its password.
    The traceback is formatted here, whole, because a secret can sit in any exception of its
    chain, not only the last. The message is also made one line (names come from outside: file
    names, feed titles); a traceback stays as Python writes it."""

    def __init__(self, secret: str | None = None) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = escaped(redact(message, self.secret))
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1]:
            record.exc_text = redact(
                logging.Formatter().formatException(record.exc_info), self.secret
            )
            record.exc_info = None
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secret)
        return True


class JsonLines(logging.Formatter):
    """One JSON object a record: time (ISO 8601, UTC), level, logger, message; `job` and
    `chat_id` when the record came from a job's run or about a chat; `exc`, the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        job, chat_id = JOB.get(), CHAT.get()
        if job is not None:
            entry["job"] = job
        if chat_id is not None:
            entry["chat_id"] = chat_id
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exc"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False)


def configured(
    handler: logging.Handler, *, json_lines: bool = False, secret: str | None = None
) -> logging.Handler:
    """The handler writing paperbot's lines: secrets out, then text or JSON."""
    handler.addFilter(Redacted(secret))
    handler.setFormatter(JsonLines() if json_lines else logging.Formatter(TEXT_FORMAT))
    return handler


def setup_logging(
    level: str,
    *,
    json_lines: bool = False,
    log_file: Path | None = None,
    secret: str | None = None,
) -> None:
    """Records at `level` and above on stderr, or to `log_file` (library warnings too) when
    given; `secret` (the token) and URLs' passwords never written."""
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8")
        if log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setLevel(level)  # the libraries' own records too, whatever their loggers allow
    logging.basicConfig(
        level=level, handlers=[configured(handler, json_lines=json_lines, secret=secret)]
    )
    logging.captureWarnings(log_file is not None)
    for noisy in ("httpx", "httpcore", "alembic", "apscheduler"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # pylatexenc warns about each macro it cannot fill in: a listing's problem that the text
    # module handles (it keeps the source), not an operator's or a console user's to read.
    logging.getLogger("pylatexenc").setLevel(logging.ERROR)
    # bibtexparser warns about each entry of a user's library it cannot read, quoting it: the
    # /import reply names those entries to the one who sent them; the operator needs none.
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
