"""The states things move through, named once: a chat's mode and digest layout, a ledger row's
status, a listing file's. Each is a StrEnum, stored as its value (the store's columns are text),
so adding a state is one member here and the code that acts on it."""

from __future__ import annotations

from enum import StrEnum


class ChatMode(StrEnum):
    """How a chat gets its papers: each as it arrives, or one digest a day at its hour, or one
    a week, on its day at its hour."""

    INSTANT = "instant"
    DIGEST = "digest"
    WEEKLY = "weekly"


DIGESTS = (ChatMode.DIGEST, ChatMode.WEEKLY)  # modes whose papers wait for the chat's digest


class DigestStyle(StrEnum):
    """How a digest shows its papers: each at a glance (its card a button away), or every card."""

    COMPACT = "compact"
    FULL = "full"


class Status(StrEnum):
    """A ledger row's: pending -> sending -> sent | failed (sending goes back to pending when the
    process that sent it died)."""

    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


UNFINISHED = (Status.PENDING, Status.SENDING)  # ledger rows that still wait to go out
SETTLED = (Status.SENT, Status.FAILED)  # rows that will not go out again


class FileStatus(StrEnum):
    """A listing file's (or a feed poll's) outcome: read and stored, skipped (seen before, not
    modified), failed (with its reason), or waiting (still being written)."""

    INGESTED = "ingested"
    SKIPPED = "skipped"
    FAILED = "failed"
    WAITING = "waiting"
