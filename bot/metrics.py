"""What the operator watches: counters, histograms and gauges (prometheus-client) in a registry
the running bot owns, and `GET /metrics` and `GET /healthz` served by aiohttp's web server on
`metrics.host`:`metrics.port`.

The registry is the bot's own, never prometheus_client's global one: tests, and several runtimes
in one process, each count their own. The jobs and the sender count what they do as they do it;
what is stored (papers, chats, the ledger, the feeds) is read from the database at scrape time
by `StoreCollector`, so every process on one database reports the same truth and a restarted
bot reports it at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import platform
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.exc import SQLAlchemyError

from bot import __version__
from bot.config import cannot_listen
from bot.core.secrets import masked_urls
from bot.core.states import FileStatus

if TYPE_CHECKING:
    from bot.service.ingest import IngestReport
    from bot.service.planning import PlanReport
    from bot.service.status import FeedState, StoreStatus

log = logging.getLogger(__name__)

JOBS = ("scan", "deliver", "digests")
FILE_OUTCOMES = tuple(FileStatus)
MESSAGE_OUTCOMES = ("sent", "failed", "retried")
# flood: 429; server: 5xx and other answers to try again; network: no answer (connection,
# timeout); chat_gone: 403 (blocked, kicked) or the chat deleted; topic_gone: a forum topic
# closed or deleted; rejected: 400 on our message
TELEGRAM_ERRORS = (
    "flood", "server", "network", "chat_gone", "chat_moved", "topic_gone", "rejected",
)  # fmt: skip
JOB_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)
SEND_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


class Metrics:
    """The counters the bot moves itself. Thread-safe (the scan job runs in a thread)."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.papers_ingested = Counter(
            "paperbot_papers_ingested", "New papers stored (listing files and feeds).",
            registry=registry,
        )  # fmt: skip
        self.files = Counter(
            "paperbot_listing_files_read", "Listing files and feed polls by outcome.",
            ["outcome"], registry=registry,
        )  # fmt: skip
        self.matches = Counter(
            "paperbot_matches", "Delivery ledger rows planned (a paper matched for a chat).",
            registry=registry,
        )  # fmt: skip
        self.messages = Counter(
            "paperbot_messages", "Messages to chats by outcome (retried: attempts tried again).",
            ["outcome"], registry=registry,
        )  # fmt: skip
        self.telegram_errors = Counter(
            "paperbot_telegram_errors", "Errors from Telegram by kind.", ["kind"],
            registry=registry,
        )  # fmt: skip
        self.database_errors = Counter(
            "paperbot_database_errors",
            "Runs of a job that met the database out of reach (the next run tries again).",
            ["job"], registry=registry,
        )  # fmt: skip
        self.job_runs_skipped = Counter(
            "paperbot_job_runs_skipped",
            "Scheduled runs of a job skipped because its last run was still going.",
            ["job"], registry=registry,
        )  # fmt: skip
        self.job_seconds = Histogram(
            "paperbot_job_duration_seconds", "How long each run of a job took.", ["job"],
            buckets=JOB_BUCKETS, registry=registry,
        )  # fmt: skip
        self.send_seconds = Histogram(
            "paperbot_send_duration_seconds", "From a message's request to Telegram's answer.",
            buckets=SEND_BUCKETS, registry=registry,
        )  # fmt: skip
        # Set by the jobs, not read from the store: a scan that found nothing new or a delivery
        # round with nothing pending succeeded too, and leaves no row behind to read.
        self.last_success = Gauge(
            "paperbot_job_last_success_timestamp_seconds",
            "When each job last finished without an error (Unix time; 0: not yet).",
            ["job"], registry=registry,
        )  # fmt: skip
        self.succeeded_at: dict[str, datetime] = {}  # the same, for /healthz
        # What runs, for dashboards and alerts across a rolling upgrade; the commit is the image's
        # build argument (deploy/Dockerfile), empty for an install from source.
        Info(
            "paperbot_build", "The running paperbot: its version, Python's and the commit.",
            registry=registry,
        ).info({
            "version": __version__, "python": platform.python_version(),
            "commit": os.environ.get("PAPERBOT_BUILD_COMMIT", ""),
        })  # fmt: skip
        for labels, metric in [
            (FILE_OUTCOMES, self.files),
            (MESSAGE_OUTCOMES, self.messages),
            (TELEGRAM_ERRORS, self.telegram_errors),
            (JOBS, self.job_seconds),
            (JOBS, self.database_errors),
            (JOBS, self.job_runs_skipped),
            (JOBS, self.last_success),
        ]:
            for label in labels:  # every series from the start, at 0
                metric.labels(label)

    def count_ingest(self, report: IngestReport) -> None:
        for file in report.files:
            self.files.labels(file.status).inc()
        self.papers_ingested.inc(sum(file.new for file in report.files))

    def count_plan(self, report: PlanReport) -> None:
        self.matches.inc(report.deliveries)

    def count_message(self, outcome: str, times: int = 1) -> None:
        if times:
            self.messages.labels(outcome).inc(times)

    def count_telegram_error(self, kind: str) -> None:
        self.telegram_errors.labels(kind).inc()

    def job_succeeded(self, job: str, at: datetime) -> None:
        self.succeeded_at[job] = at
        self.last_success.labels(job).set(at.timestamp())


StoreReading = Callable[[], "tuple[StoreStatus, list[FeedState]]"]

STORE_GAUGES = {
    "paperbot_database_up": ("1 when this scrape could read the database, else 0.", ()),
    "paperbot_papers": ("Papers stored.", ()),
    "paperbot_filters": ("Filters kept by all chats.", ()),
    "paperbot_chats": ("Chats by state (paused: of the active ones).", ("state",)),
    "paperbot_pending_deliveries": ("Delivery ledger rows still to send.", ()),
    "paperbot_listing_files": ("Listing files and feed contents stored, by status.", ("status",)),
    "paperbot_feed_failures": ("A feed's failed polls in a row.", ("feed",)),
    "paperbot_feed_papers": ("New papers a feed has brought.", ("feed",)),
    "paperbot_feed_last_success_timestamp_seconds": (
        "When a feed last answered (Unix time; 0: never).",
        ("feed",),
    ),
    "paperbot_processes": ("Processes sending for the bot, alive by their heartbeat.", ()),
    "paperbot_deliveries": ("Delivery ledger rows waiting to go out, by state.", ("state",)),
    "paperbot_oldest_waiting_seconds": (
        "How late the oldest late ledger row is (instant: since planned; digest: since the "
        "chat's digest hour passed; 0: none is).",
        (),
    ),
}


class StoreCollector(Collector):
    """The stored counts as gauges, read from the database at each scrape (in the scrape's
    thread); a database that cannot be read is `paperbot_database_up 0`, not a failed scrape."""

    def __init__(self, read: StoreReading) -> None:
        self.read = read

    def describe(self) -> Iterable[Metric]:
        """The names, so that the registry refuses a clash with the bot's own metrics."""
        return [self._family(name) for name in STORE_GAUGES]

    def collect(self) -> Iterator[Metric]:
        up = self._family("paperbot_database_up")
        try:
            status, feeds = self.read()
        except (SQLAlchemyError, OSError) as error:  # /healthz says more
            log.warning("metrics: cannot read the database: %s", error)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        values: dict[str, float | Mapping[str, float]] = {
            "paperbot_papers": status.papers,
            "paperbot_filters": status.filters,
            "paperbot_chats": status.chats,
            "paperbot_pending_deliveries": status.pending_deliveries,
            "paperbot_listing_files": status.files,
            "paperbot_feed_failures": {masked_urls(f.url): f.failures for f in feeds},
            "paperbot_feed_papers": {masked_urls(f.url): f.papers for f in feeds},
            "paperbot_feed_last_success_timestamp_seconds": {
                masked_urls(f.url): f.last_success_at.timestamp() if f.last_success_at else 0
                for f in feeds
            },
        }
        if status.backlog is not None:
            values["paperbot_processes"] = status.backlog.processes
            values["paperbot_deliveries"] = status.backlog.waiting
            values["paperbot_oldest_waiting_seconds"] = status.backlog.oldest_waiting_seconds
        for name, value in values.items():
            family = self._family(name)
            if isinstance(value, int | float):
                family.add_metric([], value)
            else:
                for label, number in sorted(value.items()):
                    family.add_metric([label], number)
            yield family

    @staticmethod
    def _family(name: str) -> GaugeMetricFamily:
        about, labels = STORE_GAUGES[name]
        return GaugeMetricFamily(name, about, labels=labels)


MISSED_PERIODS = 3


@dataclass
class Health:
    """/healthz: the database can be read (within `timeout`), and no job has gone more than
    three of its periods without a success (counted from the start before its first)."""

    check_database: Callable[[], str | None]  # one line: why it cannot be read; None: it can
    metrics: Metrics
    clock: Callable[[], datetime]
    periods: Mapping[str, float]  # seconds between a job's runs, by job
    started_at: datetime
    timeout: float = 5.0
    last_problem: str | None = field(default=None, init=False)

    async def problem(self) -> str | None:
        try:
            found = await asyncio.wait_for(asyncio.to_thread(self.check_database), self.timeout)
        except TimeoutError:
            found = f"the database did not answer in {self.timeout:g} s"
        found = found or self.missed_job()
        if found and found != self.last_problem:
            log.warning("health check: %s", found)
        self.last_problem = found
        return found

    def missed_job(self) -> str | None:
        now = self.clock()
        for job, period in self.periods.items():
            last = self.metrics.succeeded_at.get(job)
            waited = (now - (last or self.started_at)).total_seconds()
            if waited > MISSED_PERIODS * period:
                since = (
                    f"last success {waited:.0f} s ago"
                    if last
                    else f"no success in {waited:.0f} s since start"
                )
                return f"job {job} (every {period:g} s): {since}"
        return None


@dataclass
class MetricsServer:
    """The endpoints on aiohttp's web server; the exposition is prometheus_client's."""

    metrics: Metrics
    health: Health
    store: StoreCollector
    runner: web.AppRunner | None = None

    async def start(self, port: int, host: str) -> None:
        self.metrics.registry.register(self.store)
        app = web.Application()
        app.router.add_get("/metrics", self.scrape)
        app.router.add_get("/healthz", self.healthz)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        try:
            await web.TCPSite(self.runner, host, port).start()
        except OSError as error:
            await self.stop()
            shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            settings = "PAPERBOT_METRICS_HOST, PAPERBOT_METRICS_PORT"
            raise cannot_listen(error, shown, "/metrics and /healthz", settings) from None
        log.info("metrics on %s port %d: /healthz, /metrics", host, port)

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
            self.metrics.registry.unregister(self.store)

    async def scrape(self, request: web.Request) -> web.Response:
        encode, content_type = choose_encoder(request.headers.get("Accept", ""))
        body = await asyncio.to_thread(encode, self.metrics.registry)  # reads the database
        return web.Response(body=body, headers={"Content-Type": content_type})

    async def healthz(self, request: web.Request) -> web.Response:
        problem = await self.health.problem()
        if problem:
            return web.Response(status=503, text=problem.replace("\n", " ") + "\n")
        return web.Response(text="ok\n")


async def serve_metrics(
    metrics: Metrics,
    read_store: StoreReading,
    health: Health,
    host: str,
    port: int,
) -> MetricsServer:
    """/metrics and /healthz on `host`:`port` until `stop()`: `read_store` is called at each
    scrape (in a thread: it queries the database)."""
    server = MetricsServer(metrics, health, StoreCollector(read_store))
    await server.start(port, host)
    return server
