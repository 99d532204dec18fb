"""The running bot's parts in one typed object, shared by the Telegram adapter, the console and
the jobs: settings, database, clock, the filter index and the postman."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime

from bot import service
from bot.config import Settings
from bot.feeds import FeedFetcher
from bot.ledger import FilterCache, PlanReport, plan_deliveries
from bot.postman import Postman, SendReport
from bot.service import Clock, IngestReport
from bot.store import Database

log = logging.getLogger(__name__)


@dataclass
class Paperbot:
    settings: Settings
    database: Database
    postman: Postman
    clock: Clock = service.utc_now
    filters: FilterCache = field(default_factory=FilterCache)
    fetcher: FeedFetcher = field(default_factory=FeedFetcher)
    feeds_polled_at: datetime | None = None
    planning: threading.Lock = field(default_factory=threading.Lock)

    def scan(self) -> tuple[IngestReport, PlanReport]:
        """The inbox job: new listing files in (and the feeds, when due), then every new paper
        matched into the ledger."""
        report = service.scan_inbox(
            self.database,
            self.settings.inbox.dir,
            settle_seconds=self.settings.inbox.settle_seconds,
            clock=self.clock,
        )
        report.files += self.poll_feeds_when_due().files
        plan = self.plan()
        if any(f.status in ("ingested", "failed") for f in report.files) or plan.deliveries:
            log.info("inbox: %s; %s", report.summary_line(), plan.line())
        return report, plan

    def poll_feeds_when_due(self) -> IngestReport:
        """The feeds, at most every `feeds.poll_seconds`."""
        feeds, now = self.settings.feeds, self.clock()
        if not feeds.urls or (
            self.feeds_polled_at
            and (now - self.feeds_polled_at).total_seconds() < feeds.poll_seconds
        ):
            return IngestReport()
        self.feeds_polled_at = now
        return service.poll_feeds(self.database, feeds.urls, self.fetcher.fetch, clock=self.clock)

    def plan(self) -> PlanReport:
        """Papers not yet matched into the ledger (one planner at a time: the filter index is
        shared by the jobs' threads)."""
        with self.planning:
            return plan_deliveries(self.database, self.filters, now=self.clock())

    async def deliver(self) -> SendReport:
        """The delivery job: instant alerts for whatever is pending (papers are matched into
        the ledger by `scan`, which also picks up what a crash left unmatched)."""
        report = await self.postman.deliver_instant()
        if report.messages or report.failed or report.waiting:
            log.info("delivery: %s", report.line())
        return report

    async def send_due_digests(self) -> SendReport:
        """The digest job: every chat whose local digest time has come."""
        report = await self.postman.digest_tick()
        if report.digests:
            log.info("digests: %s", report.line())
        return report
