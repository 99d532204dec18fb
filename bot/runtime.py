"""The running process: the application (bot/service/app.py, what chats ask for) built with its
sender, and around it what only a process has: the jobs, the lock that keeps planning to one
thread, background rounds, the heartbeat, and the process's own policies, decided here and
nowhere deeper (the memory of a large index). Shared by the Telegram adapter, the console and
the jobs.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bot import memory
from bot.config import MemorySettings, Settings
from bot.core.states import FileStatus
from bot.feed_fetch import FeedFetcher
from bot.metrics import Health, Metrics
from bot.sender import Limits, Sender, Sleep, Transport
from bot.service import Clock, feed_polling, ingest, processes, retention, utc_now
from bot.service.app import ComposerFactory, Paperbot
from bot.service.backlog import lateness_problem, oldest_late_seconds
from bot.service.composing import Composer
from bot.service.delivery import Postman, SendReport
from bot.service.ingest import IngestReport, Progress
from bot.service.planning import PlanReport
from bot.service.status import FeedState, StoreStatus, feed_status, health_problem, scrape_status
from bot.store import Database

log = logging.getLogger(__name__)


@dataclass
class MemoryPolicy:
    """A large filter index is long-lived: once it has grown by `settle_after` filters (at
    start, or over time), its objects are frozen out of the garbage collector's walks
    (`gc.freeze`: a full collection otherwise walks every one of a million filters' objects)
    and, where the setting allows, the heap is moved to transparent huge pages (bot/memory.py:
    matching a million filters ~20% faster, bench/match.py --no-huge-pages to compare). The
    collector's young collections wait for `young_collection` objects
    (`memory.young_collection`)."""

    settings: MemorySettings
    settled_at: int = 0  # the index's size when last settled
    settlements: int = 0

    def __post_init__(self) -> None:
        memory.young_collection(self.settings.young_collection)

    def after_planning(self, indexed: int) -> bool:
        """Called with the index's size after each planning; True when it settled now."""
        self.settled_at = min(self.settled_at, indexed)  # shrunk: growth counts from here
        grown = indexed - self.settled_at
        if not self.settings.settle_after or grown <= self.settings.settle_after:
            return False
        gc.freeze()
        moved = memory.prefer_huge_pages() if self.settings.huge_pages else 0
        log.info("filter index settled at %d filters (%d MB in huge pages)", indexed, moved >> 20)
        self.settled_at, self.settlements = indexed, self.settlements + 1
        return True


PRUNE_EVERY = timedelta(hours=1)


@dataclass
class Runtime:
    """The process around the application: the jobs (scan, deliver, digests), the lock that
    keeps planning to one thread, the memory policy, rounds started in the background, the
    heartbeat. What a chat asks for is the application's (`app`)."""

    app: Paperbot
    metrics: Metrics  # the sender counts into the same
    fetcher: FeedFetcher
    memory: MemoryPolicy
    planning: threading.Lock = field(default_factory=threading.Lock)
    delivering: int = 0  # instant rounds under way
    pruned_at: datetime | None = None  # when the last pass over the ledger's old rows began
    prune_from: int | None = None  # where the pass goes on (None: no pass under way)
    background: set[asyncio.Task[object]] = field(default_factory=set)  # rounds started by jobs
    inbox_problem: str | None = None  # why the inbox folder could not be read at the last scan

    @classmethod
    def build(
        cls,
        settings: Settings,
        database: Database,
        transport: Transport,
        *,
        clock: Clock = utc_now,
        limits: Limits | None = None,
        sleep: Sleep = asyncio.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        composer: ComposerFactory = Composer,
    ) -> Runtime:
        """The application and the process wired to one transport: Telegram's for `paperbot
        run`, the terminal's for the console; tests pass their clocks (and a composer)."""
        metrics = Metrics()
        sender = Sender(transport, limits, sleep=sleep, monotonic=monotonic, metrics=metrics)
        app = Paperbot.build(settings, database, sender, clock=clock, composer=composer)
        fetcher = FeedFetcher(max_bytes=settings.inbox.max_bytes)
        return cls(app, metrics, fetcher, MemoryPolicy(settings.memory))

    # the application's settings, database, clock and postman: the jobs read them too

    @property
    def settings(self) -> Settings:
        return self.app.settings

    @property
    def database(self) -> Database:
        return self.app.database

    @property
    def clock(self) -> Clock:
        return self.app.clock

    @property
    def postman(self) -> Postman:
        """What the delivery and digest jobs send through."""
        return self.app.postman

    def resume(self) -> int:
        """At start: rows a crash left being sent go back to pending; how many."""
        return self.postman.resume()

    def read_store(self) -> tuple[StoreStatus, list[FeedState]]:
        """Counts of everything stored, how far behind the sending is, and the feeds' state
        (/metrics, at each scrape), but the ledger's settled rows by status."""
        return scrape_status(self.database, now=self.clock()), feed_status(self.database)

    def health(self, periods: Mapping[str, float]) -> Health:
        """/healthz from now on, for jobs run every `periods[job]` seconds."""
        return Health(self.problem, self.metrics, self.clock, periods, self.clock())

    def problem(self) -> str | None:
        """What /healthz refuses for besides the jobs, in one line: the database cannot be read,
        the inbox folder cannot be read, a delivery has waited too long."""
        found = health_problem(self.database) or ingest.inbox_problem(self.settings.inbox.dir)
        most = self.settings.metrics.max_waiting_seconds
        if found or not most:
            return found
        return lateness_problem(oldest_late_seconds(self.database, now=self.clock()), most)

    def scan(
        self, *, progress: Progress | None = None, stop: threading.Event | None = None
    ) -> tuple[IngestReport, PlanReport]:
        """The inbox job: new listing files in (and the feeds, when due), then every new paper
        matched into the ledger. With several processes on one database, one at a time does it
        (the others skip the round: it is being done). `progress` is told of each inbox file
        before it is read; `stop` (the console's Ctrl-C), once set, ends the scan between files,
        and what was read is matched by the next scan."""
        with self.database.exclusive("scan") as mine:
            if not mine:
                self.metrics.job_succeeded("scan", self.clock())
                return IngestReport(), PlanReport()
            return self._scan(progress, stop)

    def _scan(
        self, progress: Progress | None, stop: threading.Event | None
    ) -> tuple[IngestReport, PlanReport]:
        with self.metrics.job_seconds.labels("scan").time():
            self.note_inbox(ingest.inbox_problem(self.settings.inbox.dir))
            report = ingest.scan_inbox(
                self.database,
                self.settings.inbox.dir,
                settle_seconds=self.settings.inbox.settle_seconds,
                clock=self.clock,
                max_bytes=self.settings.inbox.max_bytes,
                progress=progress,
                stop=stop,
            )
            if stop is not None and stop.is_set():
                return report, PlanReport()
            report.files += self.poll_feeds_when_due().files
            self.metrics.count_ingest(report)
            plan = self.plan()
            # /preview's recent papers brought up to date here, not at the next question: made
            # at the first scan after a start (a real week 1.7 s, a busy one 8 s, which the
            # first /preview waited for), then taking in each new listing (~3 ms when none came)
            self.app.recent.index()
            self.prune_when_due()
        self.metrics.job_succeeded("scan", self.clock())
        read = (FileStatus.INGESTED, FileStatus.FAILED)
        if any(f.status in read for f in report.files) or plan.deliveries:
            log.info("inbox: %s; %s", report.summary_line(), plan.line())
        return report, plan

    def note_inbox(self, problem: str | None) -> None:
        """The inbox folder's problem logged when it begins and when it ends, not at each scan
        (/healthz says it meanwhile)."""
        if problem != self.inbox_problem:
            if problem:
                log.warning("inbox: %s; nothing is read from it", problem)
            else:
                log.info("inbox: the folder %s can be read again", self.settings.inbox.dir)
        self.inbox_problem = problem

    def prune_when_due(self) -> int:
        """The ledger's rows settled more than `delivery.keep_days` ago, deleted (the inbox job,
        one process at a time): from the first run after a start, then hourly, each run going
        on where the last stopped until it got through; how many."""
        keep_days, now = self.settings.delivery.keep_days, self.clock()
        if not keep_days:
            return 0
        if self.prune_from is None and self.pruned_at and now < self.pruned_at + PRUNE_EVERY:
            return 0
        if self.prune_from is None:  # a new pass, from the ledger's start
            self.pruned_at = now
        keep = timedelta(days=keep_days)
        deleted, self.prune_from = retention.prune_ledger(
            self.database, keep=keep, now=now, start=self.prune_from or 0
        )
        if deleted:
            log.info("ledger: %d rows settled more than %d days ago deleted", deleted, keep_days)
        return deleted

    def poll_feeds_when_due(self) -> IngestReport:
        """The feeds whose next poll has come: every `feeds.poll_seconds`, put off further for
        each failure in a row (their state, kept in the database, outlives a restart)."""
        feeds = self.settings.feeds
        if not feeds.urls:
            return IngestReport()
        return feed_polling.poll_feeds(
            self.database,
            feeds.urls,
            self.fetcher,
            poll_seconds=feeds.poll_seconds,
            clock=self.clock,
        )

    def plan(self) -> PlanReport:
        """Papers not yet matched into the ledger (one planner at a time: the filter index is
        shared by the jobs' threads)."""
        with self.planning:
            report = self.app.planner.plan(self.database, now=self.clock())
            self.memory.after_planning(len(self.app.planner))
        self.metrics.count_plan(report)
        return report

    async def deliver(self) -> SendReport:
        """The delivery job: instant alerts for whatever is pending (papers are matched into
        the ledger by `scan`, which also picks up what a crash left unmatched). Rounds overlap:
        a burst takes minutes at Telegram's 30 messages a second, and a round started meanwhile
        (the next tick's, the inbox job's) takes only the chats no round of this process holds:
        rows planned since for other chats, and a killed process's chats as soon as their lease
        has run out, not after the long round. A chat held by a round is left to it; the round
        after it sends what was planned for it meanwhile."""
        self.delivering += 1
        try:
            with self.metrics.job_seconds.labels("deliver").time():
                report = await self.postman.deliver_instant()
        finally:
            self.delivering -= 1
        self.metrics.job_succeeded("deliver", self.clock())
        if report.messages or report.failed or report.waiting:
            log.info("delivery: %s", report.line())
        return report

    def in_background(self, work: Coroutine[Any, Any, object], name: str | None = None) -> None:
        """`work` started as a task of its own (named `name`: the job's), kept until it ends; a
        failure is logged under its name."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.background.add(task)
        task.add_done_callback(self._ended)

    async def finish_rounds(self, grace: float) -> None:
        """At stop: the rounds started in the background given `grace` seconds to end, then
        cancelled (their claims are given up; what they left waits in the ledger)."""
        if not self.background:
            return
        _, going_on = await asyncio.wait(set(self.background), timeout=grace)
        for task in going_on:
            task.cancel()
        await asyncio.gather(*going_on, return_exceptions=True)

    def _ended(self, task: asyncio.Task[object]) -> None:
        self.background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s failed", task.get_name(), exc_info=task.exception())

    def heartbeat(self) -> None:
        """This process is alive and sends through Telegram (jobs.beat, every delivery tick;
        the console, which sends to the terminal, never beats); Telegram's budget is divided
        among the live ones."""
        live = processes.heartbeat(
            self.database, process_id=self.postman.holder, kind="paperbot", now=self.clock()
        )
        self.postman.sender.limiter.share(live)
        self.postman.processes = live

    def leave(self) -> None:
        """At stop: this process's heartbeat and its chats' claims go at once (the others need
        not wait for them to lapse), and digests queued for composing are dropped (their rows
        wait in the ledger). Rounds still under way are cancelled first: one that went on
        sending would send to chats another process may now take (a message in flight may go
        again, as after a crash)."""
        for task in self.background:
            task.cancel()
        self.postman.composing.shutdown(wait=False, cancel_futures=True)
        self.postman.composing_beside.shutdown(wait=False, cancel_futures=True)
        processes.leave(self.database, process_id=self.postman.holder)

    async def send_due_digests(self) -> SendReport:
        """The digest job: every chat whose local digest time has come."""
        with self.metrics.job_seconds.labels("digests").time():
            report = await self.postman.digest_tick()
        self.metrics.job_succeeded("digests", self.clock())
        if report.digests:
            log.info("digests: %s", report.line())
        return report
