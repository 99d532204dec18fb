"""How many commands one user may send in a minute: past that, the first refused one is told
why and the others go unanswered until the minute has passed, so a script or a stuck client
can't make the bot spend Telegram's budget on answering it."""

from __future__ import annotations

from collections import deque
from enum import Enum

WINDOW = 60.0  # seconds


class Verdict(Enum):
    ANSWER = "answer"
    TELL = "tell"  # refused: say so, once
    DROP = "drop"  # refused: said already


class FloodGate:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute  # 0: no limit
        self.recent: dict[int, deque[float]] = {}  # by user: when their answered commands came
        self.told: set[int] = set()

    def admit(self, user: int, now: float) -> Verdict:
        if not self.per_minute:
            return Verdict.ANSWER
        times = self.recent.setdefault(user, deque())
        while times and now - times[0] >= WINDOW:
            times.popleft()
        if len(times) < self.per_minute:
            times.append(now)
            self.told.discard(user)
            return Verdict.ANSWER
        if user in self.told:
            return Verdict.DROP
        self.told.add(user)
        return Verdict.TELL

    def wait(self, user: int, now: float) -> float:
        """Seconds until the user's next command is answered."""
        times = self.recent.get(user)
        return max(WINDOW - (now - times[0]), 0.0) if times else 0.0

    def forget_idle(self, now: float) -> None:
        """Users quiet for a minute leave the table (it would grow with every user seen)."""
        for user in [u for u, t in self.recent.items() if not t or now - t[-1] >= WINDOW]:
            del self.recent[user]
            self.told.discard(user)
