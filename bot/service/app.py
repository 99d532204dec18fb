"""The application: what a chat can ask of the bot, one method per use case, over the parts that
keep state between requests (the ranking models, the "more like this" scorers, the filter index,
the recent papers, the postman's rounds), all built in `Paperbot.build` and nowhere else.

Command handlers parse their arguments, call one method here and render what it returns. The
result types they render are re-exported from this module (its `__all__`), so that a handler
imports nothing else from bot.service (tests/test_architecture.py holds the line). The process
around it (jobs, locks, the memory policy, background rounds) is bot/runtime.py's.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from bot import i18n
from bot.config import Settings
from bot.core.buttons import Keyboard
from bot.core.chat import GROUPS, Chat, Filter
from bot.core.i18n import N_, Translator
from bot.core.library import (
    Library,
    Unreadable,
    decode_library,
    format_name,
    read_library,
    to_bibtex,
    to_csv,
    to_ris,
)
from bot.core.problems import Problem
from bot.core.query import LIKE_PREFIX, FilterKind, FilterRules, kind_of
from bot.core.schedule import held_until, next_digest_due, quiet_until
from bot.core.states import ChatMode
from bot.core.zones import ZoneFound, ZoneUnknown, read_timezone
from bot.embedding import load_embedding
from bot.sender import Sender
from bot.service import (
    Clock,
    backfill,
    chats,
    feedback,
    starters,
    status,
    subscriptions,
    utc_now,
)
from bot.service import library as chat_library
from bot.service.composing import Composer
from bot.service.delivery import DigestSent, NothingWaiting, Paused, Postman, SendReport
from bot.service.feedback import SIGNS, SPANS, ImportedRatings, Liked, Rated, RatedIds, Voted
from bot.service.library import LibraryImported, Saved, SavedPage
from bot.service.planning import Planner
from bot.service.preview import RecentMatches, RecentPapers
from bot.service.processes import process_id
from bot.service.ranking import Ranker
from bot.service.similar import NotStored, Similar
from bot.service.starters import Tuned
from bot.service.status import ChatStatus, FeedState, StoreStatus, feed_line
from bot.service.subscriptions import (
    AlreadyFollowed,
    AtLimit,
    BadFilter,
    BadLine,
    Imported,
    Moved,
    NoSuchFilter,
    OverLimit,
    Previewed,
    Subscribed,
    Unsubscribed,
)
from bot.store import Database

__all__ = [
    "SIGNS",
    "SPANS",
    "EXPORTERS",
    "SAVED_PAGE",
    "AlreadyFollowed",
    "AtLimit",
    "BadFilter",
    "BadLine",
    "ChatReport",
    "DigestSent",
    "ExportFile",
    "Exported",
    "Followed",
    "Liked",
    "ImportReport",
    "LibraryImported",
    "Moved",
    "NoSuchFilter",
    "NotStored",
    "NothingWaiting",
    "OverLimit",
    "Paperbot",
    "Paused",
    "Previewed",
    "RatedPapers",
    "RecentMatches",
    "RecentSent",
    "Saved",
    "SavedPage",
    "Stats",
    "Subscribed",
    "Tuned",
    "Unreadable",
    "Voted",
    "feed_line",
]

Followed = Subscribed | AlreadyFollowed | AtLimit | BadFilter | NotStored
ComposerFactory = Callable[[Database, FilterRules, Ranker], Composer]


Found = TypeVar("Found")  # what work on the recent papers returns (Paperbot._among_recent)


@dataclass(frozen=True)
class RecentSent:
    """A new filter's recent matches sent as a digest: how many were new to the chat, and
    whether Telegram took them all (False: the rest follows)."""

    added: int
    complete: bool = True


@dataclass(frozen=True)
class RatedPapers:
    rated: RatedIds
    likes: int  # the chat's 👍 now


@dataclass(frozen=True)
class ChatReport:
    """/status: the chat's counts, its ratings, when its next digest is due, and its quiet
    hours: when those in force now end, and how many papers they hold back."""

    found: ChatStatus
    likes: int
    dislikes: int
    next_digest: datetime
    quiet_until: datetime | None = None
    held: int = 0
    library: int = 0  # imported papers not stored here, kept to learn from
    saved: int = 0


@dataclass(frozen=True)
class Exported:
    filters: list[Filter]
    ratings: list[str]  # as /import takes them back
    votes: list[str]  # a group's members' votes, counted per paper, as #comments /import skips


@dataclass(frozen=True)
class ExportFile:
    """/export bib|ris|csv: a file for a reference manager."""

    name: str
    data: bytes
    count: int  # papers in it


EXPORTERS = {"bib": to_bibtex, "ris": to_ris, "csv": to_csv}
SAVED_PAGE = 8  # saved papers a /saved page lists, each with its remove button
NOT_A_LIBRARY = Unreadable(
    Problem.of(
        N_(
            "I could not tell what this is. I read BibTeX (.bib), RIS (.ris) and CSL-JSON "
            "(.json) exports, and arXiv ids or links one per line"
        )
    )
)


@dataclass(frozen=True)
class ImportReport:
    ratings: ImportedRatings
    filters: Imported


@dataclass(frozen=True)
class Stats:
    store: StoreStatus
    feeds: list[FeedState]
    indexed: int  # filters in the planner's index


@dataclass
class Paperbot:
    settings: Settings
    database: Database
    clock: Clock
    ranker: Ranker  # each chat's ranking model: the postman ranks digests with it
    postman: Postman
    similar: Similar
    planner: Planner
    recent: RecentPapers  # the last days' papers that /preview and /subscribe look in

    @classmethod
    def build(
        cls,
        settings: Settings,
        database: Database,
        sender: Sender,
        *,
        clock: Clock = utc_now,
        composer: ComposerFactory = Composer,
    ) -> Paperbot:
        """The parts wired once, sending through `sender`; `composer` makes what composes a
        chat's digests (tests pass one that holds a round)."""
        rules, ranking = settings.filters.rules, settings.ranking
        embedding = load_embedding(ranking.semantic)
        ranker = Ranker(database, clock=clock, window=ranking.window, embedding=embedding)
        postman = Postman(
            database, sender, clock=clock, rules=rules, ranker=ranker, holder=process_id(),
            lease=timedelta(seconds=settings.delivery.lease_seconds),
            composer=composer(database, rules, ranker),
        )  # fmt: skip
        similar = Similar(database, ranker, share=ranking.similar_share)
        planner = Planner(rules, similar)
        return cls(
            settings, database, clock, ranker, postman, similar, planner, RecentPapers(database)
        )

    @property
    def rules(self) -> FilterRules:
        """The one filter parser, bound to the settings' limits."""
        return self.settings.filters.rules

    # -- the chat ----------------------------------------------------------------------------

    def is_operator(self, chat_id: int) -> bool:
        return chat_id in self.settings.admin.chat_ids

    def enter(self, chat_id: int, kind: str, language: str | None = None) -> Chat:
        """The chat that speaks, registered at its first word; a new chat in the speaker's
        language (Telegram's language_code, read as an offered language)."""
        offered = i18n.normalize(language) if language else None
        return chats.enter(
            self.database, chat_id=chat_id, kind=kind, now=self.clock(), language=offered
        )

    def translator(self, chat_id: int, speaker: str | None = None) -> Translator:
        """The language a chat is written to in: its own, else (a chat not registered yet)
        the speaker's."""
        return i18n.translator(chats.language(self.database, chat_id=chat_id) or speaker)

    def change(self, chat: Chat, **settings: object) -> Chat:
        return chats.change(self.database, chat_id=chat.id, **settings)

    def set_timezone(self, chat: Chat, typed: str) -> tuple[Chat, ZoneFound] | ZoneUnknown:
        found = read_timezone(typed, self.clock())
        if isinstance(found, ZoneUnknown):
            return found
        return self.change(chat, timezone=found.zone), found

    def next_digest(self, chat: Chat) -> datetime:
        return next_digest_due(chat, self.clock())

    def quiet_until(self, chat: Chat) -> datetime | None:
        """When the chat's quiet hours in force now end (None: not quiet now)."""
        return quiet_until(self.clock(), chat.quiet_from, chat.quiet_to, chat.timezone)

    def report(self, chat: Chat) -> ChatReport:
        likes, dislikes = feedback.counts(self.database, chat_id=chat.id)
        found = status.chat_status(self.database, chat)
        holding = chat.mode is ChatMode.INSTANT and not chat.paused  # a digest's rows wait anyway
        held = found.waiting if holding and held_until(chat, self.clock()) else 0
        quiet = self.quiet_until(chat)
        library, saved = chat_library.counts(self.database, chat_id=chat.id)
        return ChatReport(
            found, likes, dislikes, self.next_digest(chat), quiet, held, library, saved
        )

    def forget(self, chat_id: int) -> bool:
        return chats.forget(self.database, chat_id=chat_id)

    def mark_unreachable(self, chat_id: int, reason: str) -> int:
        """The chat blocked the bot or removed it: inactive until /start."""
        return chats.mark_unreachable(self.database, chat_id=chat_id, reason=reason)

    def move_chat(self, old_id: int, new_id: int) -> bool:
        """A group became a supergroup: its filters and settings follow it to the new id."""
        return chats.move(self.database, old_id=old_id, new_id=new_id)

    def stats(self) -> Stats:
        """/stats, for operators: counts of everything, the feeds, the index's size."""
        found = status.store_status(self.database)
        return Stats(found, status.feed_status(self.database), len(self.planner))

    # -- filters -----------------------------------------------------------------------------

    async def subscribe(self, chat: Chat, source: str) -> Followed:
        return await self._subscribe(chat.id, source, chat.topic)

    async def _subscribe(self, chat_id: int, source: str, topic: int | None = None) -> Followed:
        if kind_of(source) is FilterKind.LIKE:
            return await self.follow_similar(chat_id, source, topic)
        # in a thread, as /preview: the first question after a start, or after a day's papers
        # were stored, files them in the recent papers' index (seconds on a busy day), and the
        # event loop answers everyone else meanwhile
        return await asyncio.to_thread(
            subscriptions.subscribe,
            self.database,
            chat_id=chat_id,
            source=source,
            rules=self.rules,
            now=self.clock(),
            recent=self.recent,
            scores=self.ranker.scores(chat_id),
            topic=topic,  # sent in a forum topic: the filter's papers go there
        )

    async def follow_similar(self, chat_id: int, source: str, topic: int | None = None) -> Followed:
        """A "more like this" filter (like:ID,...), in a thread: it reads and scores papers."""
        return await asyncio.to_thread(
            self.similar.follow,
            chat_id=chat_id,
            source=source,
            max_per_chat=self.rules.max_per_chat,
            now=self.clock(),
            topic=topic,
        )

    async def follow_row(
        self, chat_id: int, row_id: int, topic: int | None = None
    ) -> Followed | None:
        """The "more like this" button under a paper sent (None: not the chat's row)."""
        return await asyncio.to_thread(
            self.similar.follow_row,
            chat_id=chat_id,
            row_id=row_id,
            max_per_chat=self.rules.max_per_chat,
            now=self.clock(),
            topic=topic,
        )

    async def preview(self, chat: Chat, source: str) -> Previewed | BadFilter | NotStored:
        if kind_of(source) is FilterKind.LIKE:
            return await asyncio.to_thread(self.similar.preview, source=source)
        return await asyncio.to_thread(
            subscriptions.preview_filter,
            self.recent,
            source=source,
            rules=self.rules,
            scores=self.ranker.scores(chat.id),
        )

    def filters(self, chat_id: int) -> list[Filter]:
        return subscriptions.list_filters(self.database, chat_id=chat_id)

    def unsubscribe(self, chat: Chat, numbers: list[int] | None) -> Unsubscribed | NoSuchFilter:
        return subscriptions.unsubscribe(self.database, chat_id=chat.id, numbers=numbers)

    def move_filter(self, chat: Chat, number: int, topic: int | None) -> Moved | NoSuchFilter:
        """/topic: filter `number`'s papers go to `topic` from now on (None: General)."""
        return subscriptions.move_filter(self.database, chat_id=chat.id, number=number, topic=topic)

    def remove_filter(self, chat_id: int, filter_id: int) -> Filter | None:
        return subscriptions.remove_filter(self.database, chat_id=chat_id, filter_id=filter_id)

    def export(self, chat: Chat) -> Exported:
        ratings = feedback.export_lines(self.database, chat_id=chat.id)
        votes = feedback.export_votes(self.database, chat_id=chat.id)
        return Exported(self.filters(chat.id), ratings, votes)

    async def import_lines(self, chat: Chat, lines: list[str]) -> ImportReport:
        """/import: ratings, keyword filters, then "more like this" filters, line numbers kept
        in what was not taken."""
        ratings = feedback.import_ratings(
            self.database, chat_id=chat.id, lines=lines, now=self.clock()
        )
        if ratings.rated:
            self.ranker.changed(chat.id)
        lines = ratings.other_lines
        likes = [(n, line) for n, line in enumerate(lines, 1) if kind_of(line) is FilterKind.LIKE]
        result = subscriptions.import_filters(
            self.database,
            chat_id=chat.id,
            lines=["" if kind_of(line) is FilterKind.LIKE else line for line in lines],
            rules=self.rules,
            now=self.clock(),
        )
        for number, line in likes:
            result = _counted(result, number, line, await self.follow_similar(chat.id, line))
        result.problems.sort(key=lambda problem: problem.number)
        return ImportReport(ratings, result)

    # -- libraries --------------------------------------------------------------------------

    async def import_library(self, chat: Chat, text: str) -> LibraryImported | Unreadable:
        """A library's text (lines below /import): its papers taken as 👍 and to learn from."""
        found = await asyncio.to_thread(read_library, text)
        return await self._take_library(chat, found)

    async def import_file(self, chat: Chat, data: bytes) -> LibraryImported | Unreadable:
        """A library sent as a file: refused when too large, binary or of no format we read,
        and then nothing changes."""
        text = decode_library(data)
        if isinstance(text, Unreadable):
            return text
        found = await asyncio.to_thread(read_library, text)
        return await self._take_library(chat, found)

    async def _take_library(
        self, chat: Chat, found: Library | None
    ) -> LibraryImported | Unreadable:
        """In a thread, as parsing: 2,000 entries take a second of matching on SQLite."""
        if found is None:
            return NOT_A_LIBRARY
        if not found.entries:
            return Unreadable(
                Problem.of(
                    N_("no entry of this {format} could be read ({problems})"),
                    format=format_name(found.format),
                    problems=tuple(b.described for b in found.bad[:3]),
                )
            )
        imported = await asyncio.to_thread(
            chat_library.import_library,
            self.database,
            chat_id=chat.id,
            found=found,
            now=self.clock(),
        )
        if imported.recognised or imported.used:
            self.ranker.changed(chat.id)
        return imported

    async def follow_import(
        self, chat_id: int, import_id: int, author: int | None
    ) -> Followed | None:
        """A button under an import's reply: a "more like this" filter of its papers, or (the
        n-th of its authors) an au: filter; None when the import is not the chat's."""
        seeds, authors = chat_library.import_choice(
            self.database, chat_id=chat_id, import_id=import_id
        )
        if author is None:
            if not seeds:
                return None
            return await self.follow_similar(chat_id, LIKE_PREFIX + ",".join(seeds))
        if not 0 <= author < len(authors):
            return None
        name = authors[author].replace('"', " ")
        return await self._subscribe(chat_id, f'au:"{name}"')

    # -- saved papers -------------------------------------------------------------------------

    def toggle_saved(self, chat_id: int, row_id: int) -> Saved | None:
        """🔖 under a paper sent: saved, or taken out (None: not the chat's row)."""
        return chat_library.toggle_row(
            self.database, chat_id=chat_id, row_id=row_id, now=self.clock()
        )

    def saved(self, chat_id: int, page: int = 0) -> SavedPage:
        return chat_library.saved_page(
            self.database, chat_id=chat_id, page=page, per_page=SAVED_PAGE
        )

    def unsave(self, chat_id: int, paper_id: int) -> bool:
        return chat_library.unsave(self.database, chat_id=chat_id, paper_id=paper_id)

    def export_library(self, chat: Chat, kind: str) -> ExportFile | None:
        """The chat's saved and 👍 papers as a `kind` file (bib, ris, csv); None when there are
        none."""
        found = chat_library.references(self.database, chat_id=chat.id)
        if not found:
            return None
        text = EXPORTERS[kind](found)
        name = f"paperbot-{self.clock():%Y-%m-%d}.{kind}"
        return ExportFile(name, text.encode(), len(found))

    # -- ratings -----------------------------------------------------------------------------

    def rate(self, chat_id: int, row_id: int, value: int, *, toggle: bool = True) -> Rated | None:
        """A 👍/👎 button under a paper sent (None: not the chat's row): a press toggles, a
        reaction sets (0: none)."""
        rated = feedback.rate_row(
            self.database, chat_id=chat_id, row_id=row_id, value=value, now=self.clock(),
            toggle=toggle,
        )  # fmt: skip
        if rated is not None:
            self.ranker.changed(chat_id)
        return rated

    def vote(
        self, chat_id: int, user_id: int, row_id: int, value: int, *, toggle: bool = True
    ) -> Voted | None:
        """A group member's 👍/👎 on a paper sent (None: not the chat's row): a press toggles,
        a reaction sets (0: taken back)."""
        voted = feedback.vote_row(
            self.database, chat_id=chat_id, user_id=user_id, row_id=row_id, value=value,
            now=self.clock(), toggle=toggle,
        )  # fmt: skip
        if voted is not None and voted.changed:
            self.ranker.changed(chat_id)
        return voted

    def react(
        self, chat_id: int, kind: str, user_id: int, message_id: int, value: int
    ) -> Voted | Rated | None:
        """A 👍 or 👎 reaction put on (or taken off: 0) a message of one paper: a group member's
        vote, a private chat's rating, as its buttons would (None: the message carried no
        paper alone)."""
        row_id = feedback.one_paper_row(self.database, chat_id=chat_id, message_id=message_id)
        if row_id is None:
            return None
        if kind in GROUPS:
            return self.vote(chat_id, user_id, row_id, value, toggle=False)
        return self.rate(chat_id, row_id, value, toggle=False)

    def top(self, chat: Chat, span: str) -> list[Liked]:
        """/top: the papers with the most 👍 in the chat over the span ("week", "month"), by
        when they were given: a group's members' votes, a private chat's own ratings."""
        return feedback.most_liked(
            self.database, chat_id=chat.id, members=chat.kind in GROUPS, span=SPANS[span],
            now=self.clock(),
        )  # fmt: skip

    def rate_papers(self, chat: Chat, arxiv_ids: list[str], value: int) -> RatedPapers:
        """/like and /dislike by arXiv id."""
        rated = feedback.rate_ids(
            self.database, chat_id=chat.id, arxiv_ids=arxiv_ids, value=value, now=self.clock()
        )
        if rated.rated:
            self.ranker.changed(chat.id)
        return RatedPapers(rated, feedback.counts(self.database, chat_id=chat.id)[0])

    async def settle_ratings(self) -> None:
        """At stop: ratings of the last moments trained and stored."""
        await self.ranker.settle()

    # -- sending -----------------------------------------------------------------------------

    async def digest_now(self, chat: Chat) -> Paused | NothingWaiting | DigestSent:
        return await self.postman.digest_now(chat)

    async def send_recent(
        self, chat_id: int, kind: str, filter_id: int
    ) -> RecentSent | Paused | None:
        """A new filter's button: its recent matches the chat has not had, sent now as a
        digest (None: the filter is gone or not the chat's)."""
        chat = self.enter(chat_id, kind)
        if chat.paused:
            return Paused()
        queued = await self._among_recent(backfill.queue_recent, chat, filter_id)
        if queued is None or not queued.added:
            return None if queued is None else RecentSent(0)
        sent = await self.postman.digest_now(chat)
        return RecentSent(queued.added, not isinstance(sent, DigestSent) or sent.complete)

    async def tune(
        self, chat_id: int, kind: str, filter_id: int | None = None, topic: int | None = None
    ) -> Tuned | Paused | None:
        """Papers to rate to start (/tune: among all the chat's filters' recent matches; a new
        filter's button: its own), spread over their topics, sent now into `topic` as one alert
        with their 👍 and 👎; papers the chat had or rated are never offered (None: the filter
        is gone or not the chat's)."""
        chat = self.enter(chat_id, kind)
        if chat.paused:
            return Paused()
        chosen = await self._among_recent(starters.choose, chat, filter_id)
        if chosen is None:
            return None
        if not chosen.rows:
            return Tuned(chosen.filters, chosen.matched, 0)
        sent = await starters.send(self.postman, chat, chosen.rows, topic=topic)
        return Tuned(chosen.filters, chosen.matched, sent, sent == len(chosen.rows))

    async def _among_recent(
        self, work: Callable[..., Found], chat: Chat, filter_id: int | None
    ) -> Found:
        """`work` on a filter's (None: the chat's filters') recent matches, off the event loop:
        the recent papers' index is searched and the ledger written in a thread."""
        return await asyncio.to_thread(
            work,
            self.database,
            self.recent,
            self.similar,
            chat_id=chat.id,
            filter_id=filter_id,
            rules=self.rules,
            now=self.clock(),
        )

    async def send_card(self, chat_id: int, row_id: int, topic: int | None = None) -> bool:
        return await self.postman.send_card(chat_id, row_id, topic)

    async def send_page(
        self, chat_id: int, kind: str, row_id: int, number: int, topic: int | None = None
    ) -> bool:
        return await self.postman.send_page(self.enter(chat_id, kind), row_id, number, topic)

    async def send_text(
        self, chat_id: int, text: str, buttons: Keyboard = (), topic: int | None = None
    ) -> SendReport:
        return await self.postman.send_text(chat_id, text, buttons, topic=topic)


def _counted(result: Imported, number: int, line: str, followed: Followed) -> Imported:
    """An imported "more like this" line's outcome, counted in the import's result."""
    match followed:
        case Subscribed():
            return dataclasses.replace(result, added=result.added + 1)
        case AlreadyFollowed():
            return dataclasses.replace(result, already=result.already + 1)
        case AtLimit(_, limit):
            result.problems.append(OverLimit(number, limit))
        case BadFilter(problem=problem):
            result.problems.append(BadLine(number, line, problem))
        case NotStored(arxiv_ids):
            missing = Problem.of(N_("not in my database yet: {ids}"), ids=", ".join(arxiv_ids))
            result.problems.append(BadLine(number, line, missing))
    return result
