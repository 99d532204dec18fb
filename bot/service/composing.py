"""What a chat is sent, read from the store and composed (not sent): the postman's rounds use it,
and so does bench/day.py, which composes a day's digests for thousands of chats without sending.

A round reads papers (and its chats' filters) once for all its chats; a paper's analysed text
and the words a filter marks in it are kept by FilterMarks, since many chats share popular
filters and papers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bot.core.chat import Chat, Delivery, Filter
from bot.core.compose import (
    FilterMarks,
    Layout,
    Matches,
    Outgoing,
    Scores,
    compose_digest,
    digest_title,
    empty_digest_line,
)
from bot.core.paper import Paper
from bot.core.query import FilterRules
from bot.core.states import ChatMode
from bot.core.topics import Topic, filter_topics, split_by_topic
from bot.i18n import translator
from bot.memory import cycles_uncollected
from bot.service import followups
from bot.service.ranking import Ranker
from bot.store import Database, deliveries, filters, papers


@dataclass
class Digest:
    """A chat's digest as composed: its messages, one digest for each forum topic that has
    papers (`parts`: General first; a chat without topics has one part, General's), or (nothing
    waiting) the line saying why, for General, or neither (a chat without filters is sent
    nothing)."""

    parts: list[tuple[Topic, list[Outgoing]]] = field(default_factory=list)
    line: str | None = None

    @property
    def messages(self) -> list[Outgoing]:
        return [message for _, messages in self.parts for message in messages]


class Composer:
    def __init__(self, database: Database, rules: FilterRules, ranker: Ranker | None = None):
        self.database, self.ranker = database, ranker
        self.marks = FilterMarks(rules.compile)
        self.papers: dict[int, Paper] = {}  # read once per round, whatever the number of chats
        self.filters: dict[int, list[Filter]] = {}  # the round's chats' filters, by chat
        self.rounds = 0  # rounds going on (they overlap: the inbox job's, the tick's, /digest)

    @contextlib.contextmanager
    def round(self, chat_ids: Sequence[int] = ()) -> Iterator[None]:
        """Papers (and the given chats' filters) are read once per round for all its chats, and
        forgotten when the last round going on ends."""
        if chat_ids:
            with self.database.session() as session:
                self.filters.update(filters.filters_of_chats(session, chat_ids=chat_ids))
        self.rounds += 1
        try:
            yield
        finally:
            self.rounds -= 1
            if not self.rounds:
                self.papers.clear()
                self.filters.clear()

    def forget_filters(self, chat_id: int) -> None:
        """The chat's filters changed (a lost topic's unbound): read again when next asked."""
        self.filters.pop(chat_id, None)

    def items(self, chat_id: int, rows: Sequence[Delivery]) -> Matches:
        """The rows' papers as the chat is sent them: why each matched, and where."""
        return Matches(rows, self.papers, self._read(chat_id, rows), self.marks)

    def _read(self, chat_id: int, rows: Sequence[Delivery]) -> list[Filter]:
        """The chat's filters, and the rows' papers read into the round: from the database only
        what the round does not hold yet."""
        listed = self.filters.get(chat_id)
        missing = {r.paper_id for r in rows} - self.papers.keys()
        if listed is None or missing:
            with self.database.session() as session:
                self.papers.update(papers.get_papers(session, paper_ids=missing))
                if listed is None:
                    listed = filters.chat_filters(session, chat_id=chat_id)
        return listed

    def by_topic(
        self, chat_id: int, rows: Sequence[Delivery]
    ) -> list[tuple[Topic, list[Delivery]]]:
        """The rows in groups, one a forum topic (bot/core/topics.py): each its own message,
        or its own digest."""
        return split_by_topic(rows, filter_topics(self._read(chat_id, rows)))

    def scores(self, chat_id: int, rows: Sequence[Delivery]) -> Scores | None:
        """The chat's scores of the rows' papers, when it has a ranking model (vectorising a
        digest's papers and training a chat's model take milliseconds to a tenth of a second:
        callers on the event loop run this in a thread)."""
        if self.ranker is None:
            return None
        scores = self.ranker.rank(chat_id, {r.paper_id: self.papers[r.paper_id] for r in rows})
        return {paper_id: (s.value, s.why) for paper_id, s in scores.items()}

    def digest(self, chat: Chat, now: datetime) -> Digest:
        """Everything waiting for the chat as one digest, best first when it has a ranking."""
        with cycles_uncollected():
            return self._digest(chat, now)

    def _digest(self, chat: Chat, now: datetime) -> Digest:
        with self.database.reading() as connection:
            rows = deliveries.unfinished_deliveries(connection, chat_id=chat.id)
        notes, rows = followups.split(rows)
        digest = self._papers_digest(chat, now, rows) if rows or not notes else Digest()
        if notes:  # under their heading after General's papers (or alone: nothing else waits)
            section = followups.compose(self.database, chat.id, notes, digest=True)
            general = next((messages for topic, messages in digest.parts if topic is None), None)
            if general is None:
                digest.parts.insert(0, (None, section))
            else:
                general.extend(section)
        return digest

    def _papers_digest(self, chat: Chat, now: datetime, rows: list[Delivery]) -> Digest:
        t = translator(chat.language)
        if not rows:
            with self.database.session() as session:
                if not filters.chat_filters(session, chat_id=chat.id):
                    return Digest()
                arrived = papers.count_papers_since(session, since=chat.last_digest_at)
            return Digest(line=empty_digest_line(arrived, t=t))
        listed = self._read(chat.id, rows)
        scores, weekly = self.scores(chat.id, rows), chat.mode is ChatMode.WEEKLY
        digest = Digest()
        for topic, grouped in split_by_topic(rows, filter_topics(listed)):
            items = Matches(grouped, self.papers, listed, self.marks, scores)
            announced = [paper.announced for paper in items.papers]
            title = digest_title(now.date(), announced, weekly=weekly, t=t)
            digest.parts.append((topic, compose_digest(items, title, Layout.of(chat), t=t)))
        return digest
