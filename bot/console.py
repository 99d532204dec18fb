"""`paperbot console`: the command layer in a terminal, for one chat, alerts printed as they come.

At a terminal: a prompt with line editing and history (prompt_toolkit), alerts printed above it,
and the inbox, deliveries and digests run on their schedule meanwhile; Ctrl-C drops the line,
Ctrl-D quits. Piped: no prompt; every line is a command, echoed (`> /list`) before its answer; at
the end of input the pending work is finished. Before the first command the inbox is read (a
missing or empty one said in the chat, a large one's progress shown); Ctrl-C stops that reading
between files, keeping what was read.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.patch_stdout import patch_stdout

from bot.commands import Caller, Document, Reply, handle_text, import_file, press_button
from bot.core.buttons import Button, Keyboard
from bot.core.i18n import ENGLISH, Translator
from bot.core.render import plural
from bot.core.states import FileStatus
from bot.core.telegram_text import to_plain
from bot.core.topics import topic_name
from bot.runtime import Runtime
from bot.service.ingest import IngestReport, list_listing_files

PROGRESS_SECONDS = 1.0  # a scan that takes longer says how far it is, a line a second


def at_terminal() -> bool:
    """A person types and reads: the prompt, and logs kept off the screen."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def write(text: str) -> None:
    """To `sys.stdout` as it is now: while the prompt is up, patch_stdout's proxy, which prints
    above the prompt instead of into the half-typed line."""
    sys.stdout.write(text)
    sys.stdout.flush()


class ButtonBoard:
    """The buttons on screen, numbered for `#N`: a command's reply starts the count again at
    #1; messages that arrive meanwhile (a digest's cards, its "more" button) go on counting,
    so every button shown since the last command can be pressed."""

    def __init__(self) -> None:
        self.buttons: list[Button] = []

    def clear(self) -> None:
        self.buttons = []

    def lines(self, keyboard: Keyboard) -> list[str]:
        first = len(self.buttons) + 1
        self.buttons += [button for row in keyboard for button in row]
        return [f"  #{n} {b.label}" for n, b in enumerate(self.buttons[first - 1 :], first)]

    def data(self, number: int) -> str | None:
        return self.buttons[number - 1].data if 1 <= number <= len(self.buttons) else None


def inbox_note(inbox: Path) -> str | None:
    """What the chat is told when there is nothing to read in the inbox, and how to point the
    console to listings; None when the inbox holds files."""
    shown = str(inbox) if inbox.is_absolute() else f"{inbox} ({inbox.absolute()})"
    point = "set PAPERBOT_INBOX_DIR (or inbox.dir in the config file) to a folder of listings"
    if not inbox.is_dir():
        return f"There is no inbox folder {shown}, so no listing files are read: {point}."
    if not list_listing_files([inbox]):
        return f"The inbox folder {shown} is empty: put listing files in it, or {point}."
    return None


class ScanProgress:
    """'Reading the inbox: 12 of 28 files', from the scan's thread, once the scan has taken
    PROGRESS_SECONDS, then at most a line every PROGRESS_SECONDS: a scan that is over sooner
    (a few files, or files read before: only their hash is taken) says nothing."""

    def __init__(
        self, monotonic: Callable[[], float] = time.monotonic, *, stoppable: bool = True
    ) -> None:
        self.monotonic, self.stoppable = monotonic, stoppable
        self.started = monotonic()
        self.shown_at: float | None = None
        self.total = 0

    def __call__(self, number: int, total: int) -> None:
        self.total, now = total, self.monotonic()
        if now - (self.started if self.shown_at is None else self.shown_at) < PROGRESS_SECONDS:
            return
        first = self.shown_at is None and self.stoppable  # a scan at the prompt: Ctrl-C clears it
        how = " (Ctrl-C stops, keeping what was read)" if first else ""
        self.shown_at = now
        write(f"Reading the inbox: {number} of {total} files{how}\n")


@contextlib.contextmanager
def stopped_by_ctrl_c(stop: threading.Event) -> Iterator[None]:
    """Within the block, Ctrl-C (SIGINT) sets `stop` rather than interrupting; after it, the
    handler before it is back (asyncio.run's, which cancels the console: exit 130). Where
    SIGINT is ignored (started in the background), it stays ignored."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous == signal.SIG_IGN:
        yield
        return
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, stop.set)  # wakes the loop, wherever it waits
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, previous)


class TerminalTransport:
    """Messages printed as plain text, their buttons numbered on the board. Message ids count up
    from the clock's milliseconds, so that, as Telegram's, they are not used twice in a chat
    across runs (a digest's "more" button finds its papers by the message they settled with)."""

    def __init__(self, board: ButtonBoard | None = None) -> None:
        self.board = board or ButtonBoard()
        self.last_id = time.time_ns() // 1_000_000
        # a chat's translator, for the topic named above its messages: the application's,
        # once it is built around this transport (English until then)
        self.translator: Callable[[int], Translator] = lambda chat_id: ENGLISH

    async def send(
        self,
        chat_id: int,
        text: str,
        *,
        html: bool = True,
        buttons: Keyboard = (),
        silent: bool = False,  # a terminal does not ring: nothing to silence
        topic: int | None = None,
    ) -> int:
        self.last_id += 1
        lines = [(to_plain(text) if html else text).rstrip(), *self.board.lines(buttons)]
        if topic is not None:  # a forum group's topic: said above the message, as the chat reads
            lines.insert(0, f"[{topic_name(topic, t=self.translator(chat_id))}]")
        write("\n" + "\n".join(lines) + "\n\n")
        return self.last_id


def library_path(text: str) -> Path | None:
    """`/import PATH` naming a file (a library to read), else None (filter lines)."""
    command, _, argument = text.partition(" ")
    if command != "/import" or "\n" in argument or not argument.strip():
        return None
    path = Path(argument.strip().strip("'\"")).expanduser()
    try:
        return path if path.is_file() else None
    except OSError:  # a filter too long to be a file's name
        return None


def save_document(document: Document, folder: Path) -> Path:
    """A reply's file written into `folder`, under a name no file there has yet."""
    path = folder / document.name
    stem, suffix, number = path.stem, path.suffix, 1
    while path.exists():
        number += 1
        path = folder / f"{stem}-{number}{suffix}"
    path.write_bytes(document.data)
    return path.absolute()


class Console:
    """One chat in the terminal. With a prompt session, lines are typed at a prompt; without,
    they are read from `stdin` and echoed."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        chat_id: int,
        stdin: TextIO,
        prompt: PromptSession[str] | None = None,
        log_file: Path | None = None,
        board: ButtonBoard | None = None,
        topic: int | None = None,
        language: str | None = None,
    ) -> None:
        self.runtime, self.stdin, self.prompt, self.log_file = runtime, stdin, prompt, log_file
        # in a topic: a forum supergroup's, where the one at the terminal is its administrator
        # `language`: the speaker's, as Telegram's language_code gives it (a new chat's language)
        kind = "supergroup" if topic else "private"
        self.caller = Caller(chat_id, kind, topic=topic, language_code=language)
        self.board = board or ButtonBoard()
        self.stopped = False  # Ctrl-C stopped the last scan: quitting does not read on

    @property
    def interactive(self) -> bool:
        return self.prompt is not None

    def show(self, reply: Reply) -> None:
        text = reply.text if reply.notice else to_plain(reply.text)  # a notice is plain text
        lines = [text] if text else []
        if reply.buttons:
            lines += [*self.board.lines(reply.buttons), "  (type #N to press a button)"]
        if reply.document is not None:
            lines.append(f"Written to {save_document(reply.document, Path.cwd())}")
        if lines:
            write("\n".join(lines) + "\n")

    async def import_path(self, path: Path) -> Reply:
        """/import PATH: a library file, read here as Telegram's edge fetches a file sent."""

        async def read() -> bytes:
            return await asyncio.to_thread(path.read_bytes)

        return await import_file(self.runtime, self.caller, path.stat().st_size, read)

    async def work(self, *, stoppable: bool = False) -> None:
        """One round of the jobs: inbox, instant alerts, due digests."""
        if await self.scan(stoppable=stoppable) is not None:
            await self.send_pending()

    async def send_pending(self) -> None:
        await self.runtime.deliver()
        await self.runtime.send_due_digests()

    async def scan(self, *, stoppable: bool) -> IngestReport | None:
        """The inbox read in a thread, a large one's progress shown. `stoppable`: Ctrl-C stops
        it between files (None then: what was read is kept, and matched by the next scan)."""
        stop, progress = threading.Event(), ScanProgress(stoppable=stoppable)
        with stopped_by_ctrl_c(stop) if stoppable else contextlib.nullcontext():
            report, _ = await asyncio.to_thread(self.runtime.scan, progress=progress, stop=stop)
        read, self.stopped = len(report.files), stop.is_set()
        if self.stopped:
            done = f"{read} of {progress.total} files read and kept"
            write(f"Stopped reading the inbox: {done}; the next scan reads the rest.\n")
            return None
        if progress.shown_at is not None:
            new = plural(report.totals()["new"], "new paper")
            write(f"Read the inbox: {plural(read, 'file')}, {new}.\n")
        return report

    async def first_scan(self) -> bool:
        """The inbox before the first command, files still being written waited for; False
        when Ctrl-C stopped it. A missing or empty inbox is said in the chat."""
        note = inbox_note(self.runtime.settings.inbox.dir)
        if note is not None:
            write(note + "\n")
        report = await self.scan(stoppable=True)
        if report is not None and any(f.status == FileStatus.WAITING for f in report.files):
            await asyncio.sleep(self.runtime.settings.inbox.settle_seconds)
            report = await self.scan(stoppable=True)
        if report is None:
            return False
        await self.send_pending()
        return True

    async def read_line(self, prompt: str = "> ") -> str | None:
        """The next line, None at the end of input (Ctrl-D at the prompt)."""
        if self.prompt is not None:
            while True:
                try:
                    return await self.prompt.prompt_async(prompt)
                except KeyboardInterrupt:  # Ctrl-C: the line is dropped, a fresh prompt
                    continue
                except EOFError:
                    return None
        line = await asyncio.to_thread(self.stdin.readline)
        if not line:
            return None
        if line.strip():  # piped: each command echoed, so each answer shows its question
            write(f"{prompt}{line.rstrip()}\n")
        return line.rstrip("\n")

    async def handle(self, line: str) -> None:
        text = line.strip()
        if not text:
            return
        if text.startswith("#") and text[1:].isdigit():
            data = self.board.data(int(text[1:]))
            if data is None:
                write("No such button.\n")
                return
            self.show(await press_button(self.runtime, self.caller, data))
        else:
            self.board.clear()
            if text.split(maxsplit=1)[0] in ("/import", "/import@"):
                text = await self.read_more(text)
            path = library_path(text)
            if path is not None:
                reply: Reply | None = await self.import_path(path)
            else:
                reply = await handle_text(self.runtime, self.caller, text)
            if reply is not None:
                self.show(reply)
        await self.runtime.deliver()

    async def read_more(self, text: str) -> str:
        """/import alone on its line takes the lines that follow, up to an empty line."""
        if text.strip() != "/import":
            return text
        lines = [text]
        while (line := await self.read_line("... ")) not in (None, ""):
            lines.append(line)
        return "\n".join(lines)

    async def run(self) -> int:
        if self.prompt is None:
            return await self.converse()
        with patch_stdout():
            return await self.converse()

    async def converse(self) -> int:
        resumed = self.runtime.resume()
        if resumed:
            were = "was" if resumed == 1 else "were"
            write(f"({plural(resumed, 'message')} {were} in flight at the last stop: resending)\n")
        if self.interactive:
            logs = f" Logs go to {self.log_file}." if self.log_file else ""
            where = f", {topic_name(self.caller.topic)}" if self.caller.topic else ""
            write(
                f"paperbot console, chat {self.caller.chat_id}{where}: /help lists the commands, "
                f"Up/Down recall them, Ctrl-C clears the line, Ctrl-D quits.{logs}\n"
            )
        if not await self.first_scan() and not self.interactive:
            return 0  # piped, Ctrl-C: the scan stopped, and so does the console
        ticker = asyncio.create_task(self.tick()) if self.interactive else None
        try:
            while (line := await self.read_line()) is not None:
                await self.handle(line)
        finally:
            if ticker:
                ticker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ticker
        await (self.send_pending() if self.stopped else self.work(stoppable=True))
        await self.runtime.app.settle_ratings()  # ratings of the last moments trained and stored
        return 0

    async def tick(self) -> None:
        while True:
            await asyncio.sleep(min(self.runtime.settings.inbox.scan_seconds, 60))
            await self.work()


def run_console(
    runtime: Runtime,
    *,
    chat_id: int,
    topic: int | None = None,
    language: str | None = None,
    history: Path | None = None,
    log_file: Path | None = None,
    board: ButtonBoard | None = None,
) -> int:
    """Piped, or at a terminal (see `at_terminal`) with the command history kept in `history`
    (in memory when None); `board`: the one the runtime's terminal transport numbers its
    buttons on. Ctrl-C while the inbox is read stops the reading (piped, the console too: exit
    0); outside the prompt, in the middle of a command, it stops the console with exit 130 and
    no traceback. `topic`: the console is inside that forum topic (its commands say so);
    `language`: the speaker's language code, as Telegram would give it."""
    prompt = None
    if at_terminal():
        kept: History = FileHistory(history) if history else InMemoryHistory()
        prompt = PromptSession[str](history=kept)
    console = Console(
        runtime,
        chat_id=chat_id,
        stdin=sys.stdin,
        prompt=prompt,
        log_file=log_file,
        board=board,
        topic=topic,
        language=language,
    )
    try:
        return asyncio.run(console.run())
    except KeyboardInterrupt:
        return 130
