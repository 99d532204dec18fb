"""`paperbot console`: the command layer in a terminal, for one chat, alerts printed as they come.

At a terminal: a prompt with line editing and history (prompt_toolkit), alerts printed above it,
and the inbox, deliveries and digests run on their schedule meanwhile; Ctrl-C drops the line,
Ctrl-D quits. Piped: no prompt; every line is a command, echoed (`> /list`) before its answer; at
the end of input the pending work is finished.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from pathlib import Path
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.patch_stdout import patch_stdout

from bot.commands import Caller, Reply, handle_text, press_button
from bot.core.buttons import Button, Keyboard
from bot.core.render import plural, to_plain
from bot.runtime import Runtime


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


class TerminalTransport:
    """Messages printed as plain text, their buttons numbered on the board. Message ids count up
    from the clock's milliseconds, so that, as Telegram's, they are not used twice in a chat
    across runs (a digest's "more" button finds its papers by the message they settled with)."""

    def __init__(self, board: ButtonBoard | None = None) -> None:
        self.board = board or ButtonBoard()
        self.last_id = time.time_ns() // 1_000_000

    async def send(
        self, chat_id: int, text: str, *, html: bool = True, buttons: Keyboard = ()
    ) -> int:
        self.last_id += 1
        lines = [(to_plain(text) if html else text).rstrip(), *self.board.lines(buttons)]
        write("\n" + "\n".join(lines) + "\n\n")
        return self.last_id


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
    ) -> None:
        self.runtime, self.stdin, self.prompt, self.log_file = runtime, stdin, prompt, log_file
        self.caller = Caller(chat_id)
        self.board = board or ButtonBoard()

    @property
    def interactive(self) -> bool:
        return self.prompt is not None

    def show(self, reply: Reply) -> None:
        text = reply.text if reply.notice else to_plain(reply.text)  # a notice is plain text
        lines = [text] if text else []
        if reply.buttons:
            lines += [*self.board.lines(reply.buttons), "  (type #N to press a button)"]
        if lines:
            write("\n".join(lines) + "\n")

    async def work(self) -> None:
        """One round of the jobs: inbox, instant alerts, due digests."""
        await asyncio.to_thread(self.runtime.scan)
        await self.send_pending()

    async def send_pending(self) -> None:
        await self.runtime.deliver()
        await self.runtime.send_due_digests()

    async def first_scan(self) -> None:
        """The inbox before the first command; files still being written are waited for."""
        report, _ = await asyncio.to_thread(self.runtime.scan)
        if any(f.status == "waiting" for f in report.files):
            await asyncio.sleep(self.runtime.settings.inbox.settle_seconds)
            await asyncio.to_thread(self.runtime.scan)
        await self.send_pending()

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
        resumed = self.runtime.postman.resume()
        if resumed:
            were = "was" if resumed == 1 else "were"
            write(f"({plural(resumed, 'message')} {were} in flight at the last stop: resending)\n")
        if self.interactive:
            logs = f" Logs go to {self.log_file}." if self.log_file else ""
            write(
                f"paperbot console, chat {self.caller.chat_id}: /help lists the commands, "
                f"Up/Down recall them, Ctrl-C clears the line, Ctrl-D quits.{logs}\n"
            )
        await self.first_scan()
        ticker = asyncio.create_task(self.tick()) if self.interactive else None
        try:
            while (line := await self.read_line()) is not None:
                await self.handle(line)
        finally:
            if ticker:
                ticker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ticker
        await self.work()
        await self.runtime.ranker.settle()  # ratings of the last moments trained and stored
        return 0

    async def tick(self) -> None:
        while True:
            await asyncio.sleep(min(self.runtime.settings.inbox.scan_seconds, 60))
            await self.work()


def run_console(
    runtime: Runtime,
    *,
    chat_id: int,
    history: Path | None = None,
    log_file: Path | None = None,
    board: ButtonBoard | None = None,
) -> int:
    """Piped, or at a terminal (see `at_terminal`) with the command history kept in `history`
    (in memory when None); `board`: the one the runtime's terminal transport numbers its
    buttons on. Ctrl-C outside the prompt, in the middle of a command, stops the
    console with exit 130 and no traceback."""
    prompt = None
    if at_terminal():
        kept: History = FileHistory(history) if history else InMemoryHistory()
        prompt = PromptSession[str](history=kept)
    console = Console(
        runtime, chat_id=chat_id, stdin=sys.stdin, prompt=prompt, log_file=log_file, board=board
    )
    try:
        return asyncio.run(console.run())
    except KeyboardInterrupt:
        return 130
