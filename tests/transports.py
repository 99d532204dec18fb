"""Transports for tests that run the postman without Telegram: one that records what it carries,
one for tests where nothing may be sent."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field

from bot.core.buttons import Button, Keyboard
from bot.sender import TopicGone, TransportError


@dataclass(frozen=True)
class Carried:
    chat_id: int
    text: str
    html: bool
    buttons: list[list[Button]]
    silent: bool = False
    topic: int | None = None  # the forum topic (None: General)


@dataclass
class RecordingTransport:
    """Records what it carries and answers with increasing message ids; raises the errors it
    was given for a chat, one a call, before it sends anything more there; a message to a
    topic in `gone_topics` raises TopicGone, as Telegram refuses a closed or deleted topic."""

    sent: list[Carried] = field(default_factory=list)
    errors: dict[int, list[TransportError]] = field(default_factory=lambda: defaultdict(list))
    last_id: int = 100
    gone_topics: set[tuple[int, int]] = field(default_factory=set)  # (chat, topic)
    refused: list[Carried] = field(default_factory=list)  # sent to a gone topic

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
        if self.errors[chat_id]:
            raise self.errors[chat_id].pop(0)
        keyboard = [list(row) for row in buttons]
        carried = Carried(chat_id, text, html, keyboard, silent, topic)
        if topic is not None and (chat_id, topic) in self.gone_topics:
            self.refused.append(carried)
            raise TopicGone(topic, "Bad Request: TOPIC_CLOSED")
        self.sent.append(carried)
        self.last_id += 1
        return self.last_id

    def texts(self, chat_id: int) -> list[str]:
        return [m.text for m in self.sent if m.chat_id == chat_id]

    def in_topic(self, chat_id: int, topic: int | None) -> list[str]:
        """The texts carried to the chat's topic (None: General)."""
        return [m.text for m in self.sent if m.chat_id == chat_id and m.topic == topic]

    def chats(self) -> list[int]:
        return [m.chat_id for m in self.sent]


@dataclass
class SilentTransport:
    """For tests of work that must send nothing: any message fails the test."""

    why: str = "nothing should be sent here"

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
        raise AssertionError(self.why)


class HoldingTransport(RecordingTransport):
    """Records what it carries, but a message to `held` waits until the test lets it go: a
    long round, under way for as long as the test wants."""

    def __init__(self, held: int) -> None:
        super().__init__()
        self.held, self.holding, self.go = held, asyncio.Event(), asyncio.Event()

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
        if chat_id == self.held:
            self.holding.set()
            await self.go.wait()
        return await super().send(
            chat_id, text, html=html, buttons=buttons, silent=silent, topic=topic
        )
