"""`paperbot console`: the command layer in a terminal, for one chat, alerts printed as they come.

Interactive: a prompt, and the inbox, deliveries and digests run on their schedule meanwhile.
Piped: no prompt; every line is a command; at the end of input the pending work is finished.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import TextIO

from bot.commands import Button, Caller, Reply, handle_text, press_button
from bot.core.render import to_plain
from bot.runtime import Runtime


class TerminalTransport:
    """Messages printed as plain text; message ids count up."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.sent = 0

    async def send(self, chat_id: int, text: str, *, html: bool = True) -> int:
        self.sent += 1
        self.out.write(("\n" + (to_plain(text) if html else text)).rstrip() + "\n\n")
        self.out.flush()
        return self.sent


class Console:
    def __init__(
        self, runtime: Runtime, *, chat_id: int, stdin: TextIO, out: TextIO, interactive: bool
    ) -> None:
        self.runtime, self.stdin, self.out, self.interactive = runtime, stdin, out, interactive
        self.caller = Caller(chat_id)
        self.buttons: list[Button] = []

    def show(self, reply: Reply) -> None:
        self.out.write(to_plain(reply.text) + "\n")
        self.buttons = [button for row in reply.buttons for button in row]
        for number, button in enumerate(self.buttons, 1):
            self.out.write(f"  #{number} {button.label}\n")
        if self.buttons:
            self.out.write("  (type #N to press a button)\n")
        self.out.flush()

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

    async def read_line(self) -> str | None:
        if self.interactive:
            self.out.write("> ")
            self.out.flush()
        line = await asyncio.to_thread(self.stdin.readline)
        return line.rstrip("\n") if line else None

    async def handle(self, line: str) -> None:
        text = line.strip()
        if not text:
            return
        if text.startswith("#") and text[1:].isdigit():
            number = int(text[1:])
            if not 1 <= number <= len(self.buttons):
                self.out.write("No such button.\n")
                return
            self.show(await press_button(self.runtime, self.caller, self.buttons[number - 1].data))
        else:
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
        while (line := await self.read_line()) not in (None, ""):
            lines.append(line)
        return "\n".join(lines)

    async def run(self) -> int:
        resumed = self.runtime.postman.resume()
        if resumed:
            self.out.write(f"({resumed} messages were in flight at the last stop: resending)\n")
        if self.interactive:
            self.out.write(
                f"paperbot console, chat {self.caller.chat_id}: /help lists the commands, "
                "Ctrl-D quits.\n"
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
        return 0

    async def tick(self) -> None:
        while True:
            await asyncio.sleep(min(self.runtime.settings.inbox.scan_seconds, 60))
            await self.work()


def run_console(runtime: Runtime, *, chat_id: int) -> int:
    console = Console(
        runtime, chat_id=chat_id, stdin=sys.stdin, out=sys.stdout, interactive=sys.stdin.isatty()
    )
    return asyncio.run(console.run())
