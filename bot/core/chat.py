"""A chat, its filters and its ledger rows: the values the store returns and the use cases pass
around (the store keeps the tables; these are what the rest of the program sees)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from bot.core.query import FilterKind, kind_of
from bot.core.states import ChatMode, DigestStyle, Status

DIGEST_ABSTRACTS = 5  # in a compact digest, the first papers open with their abstract
DIGEST_PAGE = 30  # papers a digest lists before its "N more" button
# Telegram's kinds of chat whose members vote one by one on papers (a channel's buttons rate
# as its administrators do, a private chat's as its one reader)
GROUPS = frozenset({"group", "supergroup"})
BEHIND_MORE = "behind the digest's 'more' button"  # the ledger's note on a row sent so


@dataclass(frozen=True)
class Chat:
    id: int
    kind: str  # private | group | supergroup | channel
    mode: ChatMode
    digest_time: str  # HH:MM, local
    timezone: str
    updates: bool
    paused: bool
    active: bool
    inactive_reason: str | None
    created_at: datetime
    last_digest_at: datetime
    digest_style: DigestStyle = DigestStyle.COMPACT
    digest_abstracts: int = DIGEST_ABSTRACTS
    digest_page: int = DIGEST_PAGE
    digest_weekday: int = 0  # weekly mode's day: 0 Monday .. 6 Sunday
    quiet_from: str | None = None  # quiet hours, local HH:MM to HH:MM (None: none)
    quiet_to: str | None = None
    quiet_silent: bool = False  # in the window: sent without a notification, not held
    # the reader's language (bot/i18n.py): the language_code of the update that made the chat,
    # or /language's; None: English (a chat made before languages were kept, or without one)
    language: str | None = None
    # follow-ups of the papers the chat 👍'd or saved (/followups): on unless turned off
    followups: bool = True
    # the forum topic a command was sent in (None: General, or a chat without topics): set by
    # the command layer for the command at hand, never stored with the chat
    topic: int | None = None


@dataclass(frozen=True)
class Filter:
    id: int
    chat_id: int
    source: str  # as the user wrote it (what /export gives back)
    canonical: str  # as it was understood (what /list shows)
    created_at: datetime
    topic: int | None = None  # the forum topic its papers go to (None: General)

    @property
    def kind(self) -> FilterKind:
        return kind_of(self.source)


class Delivery(NamedTuple):
    """One row of the delivery ledger: a paper (or a new version of it) for a chat, with every
    filter that matched; pending -> sending -> sent | failed.

    A named tuple where the other values are frozen dataclasses: a day's digests read every
    row waiting, ~590 a chat, and a frozen dataclass took 0.65 us to make against 0.15
    (bench/day.py, 10,000 chats: 3 s of composing)."""

    id: int
    chat_id: int
    paper_id: int
    revision: int  # 0: the paper itself; n: its version n, sent as an update
    filter_ids: list[int]
    status: Status
    message_id: int | None
    reason: str | None
    created_at: datetime

    @property
    def is_update(self) -> bool:
        return self.revision > 0
