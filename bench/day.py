"""A day at scale: N chats with K filters each meet a day's listing. The listing is ingested,
every match planned into the ledger, every digest composed (not sent), and meanwhile other chats'
commands are answered; each step timed.

    python bench/day.py --chats 10000 --filters-per-chat 10 --json
    python bench/day.py --chats 10000 --filters-per-chat 10 --json \\
        --database postgresql+psycopg://postgres@127.0.0.1:5432/test [--workers 2]

Real: the papers (../shared/data/arxiv-days-2025, 6,349 papers announced on arXiv in May and
June 2025, read by path) and the words of the filters (taken from those papers' titles). Made
here: the day (by default 2,000 of those papers drawn at random and written as one arXiv RSS
listing, ingested through `paperbot ingest`'s path: parse, de-duplicate, store), the chats, and
their filters: in the shapes people write (a word, a phrase in quotes, two terms, an OR, a NOT,
ti:, cat:, a prefix), each topic drawn with a Zipf law over the topics ranked by how many titles
name them, so popular topics are far more common than rare ones and the population is dense
(thousands of matches per paper at 100,000 filters). --filters-file and --listing put real
filters and real listings in their place.

The work is the bot's own: the application's filter index built as at the bot's first inbox scan
after a start (`index_seconds`: a running bot has it when a listing arrives), listings through
bot.service.ingest, matching through the application's Planner (bot/service/planning.py) into the
ledger, digests composed as bot.service.delivery's
postman composes them (each chat's rows read as Matches, compose_digest), commands answered
by bot.commands.handle_text on a Runtime built with Runtime.build and a recording transport,
timed while planning and composing run in a thread. On PostgreSQL, `--workers N` composes in N
processes of their own, each a share of the chats, as `paperbot worker` processes share a digest
round (the commands are still answered by this one).

The reference: the plain matcher (tests/reference_matcher.py, one filter at a time) run for a
sample of the chats over every paper, its time scaled to all chats, and its (chat, paper) pairs
and filters compared with the ledger's rows of those chats.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import html
import io
import itertools
import json
import multiprocessing
import os
import pstats
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import text  # noqa: E402

from bench.digest import read_day  # noqa: E402
from bench.match import (  # noqa: E402
    STOPWORDS,
    calibration_seconds,
    peak_rss_mb,
    read_filter_file,
)
from bot.commands import Caller, handle_text  # noqa: E402
from bot.config import DatabaseSettings, MemorySettings, Settings  # noqa: E402
from bot.core.paper import Paper  # noqa: E402
from bot.core.query import FilterRules, InvalidQuery, canonical  # noqa: E402
from bot.runtime import MemoryPolicy, Runtime  # noqa: E402
from bot.service import ingest  # noqa: E402
from bot.service.composing import Composer  # noqa: E402
from bot.store import Database, chats, deliveries, filters, papers  # noqa: E402
from bot.store.database import create_database_engine, database_url  # noqa: E402
from tests import reference_matcher  # noqa: E402
from tests.transports import RecordingTransport  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "arxiv-days-2025"
DAY = date(2025, 6, 12)  # the generated listing's announcement: the day after the last real one

# Title words that name no topic anyone follows on its own ("models", "towards", "efficient"):
# left out of the topics, though phrases that contain them ("language models") stay.
GENERIC_WORDS = (
    "models model language large learning multi data framework aware through towards toward "
    "self fine guided efficient time based via using approach method methods analysis study "
    "enhancing improving driven cross dynamic adaptive evaluating benchmarking high low end "
    "real world task tasks free level scale deep neural network networks novel unified robust "
    "effective simple beyond generalization performance systems system understanding "
    "training"
)
GENERIC = frozenset(GENERIC_WORDS.split())
_TITLE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


# -- the data --------------------------------------------------------------------------------


def real_papers(folder: Path) -> list[Paper]:
    """Every paper of the real days, oldest day first."""
    return [paper for path in sorted(folder.glob("*.jsonl")) for paper in read_day(path)]


def rss_listing(day_papers: Sequence[Paper], day: date) -> str:
    """The papers as one day of rss.arxiv.org's RSS, as `paperbot ingest` reads it."""
    items = "".join(
        f"<item><title>{html.escape(p.title)}</title><link>https://arxiv.org/abs/{p.arxiv_id}"
        f"</link><description>arXiv:{p.arxiv_id}v1 Announce Type: {p.announce_type.value}\n"
        f"Abstract: {html.escape(p.abstract)}</description>"
        f'<guid isPermaLink="false">oai:arXiv.org:{p.arxiv_id}v1</guid>'
        + "".join(f"<category>{c}</category>" for c in p.categories)
        + f"<arxiv:announce_type>{p.announce_type.value}</arxiv:announce_type>"
        f"<dc:creator>{html.escape(', '.join(p.authors))}</dc:creator></item>\n"
        for p in day_papers
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        "<channel><title>cs updates on arXiv.org</title><link>http://rss.arxiv.org/rss/cs</link>"
        f"<pubDate>{day:%a, %d %b %Y} 00:00:00 -0400</pubDate>\n{items}</channel></rss>\n"
    )


def generated_day(real: Sequence[Paper], count: int, folder: Path, rng: random.Random) -> Path:
    """`count` real papers drawn at random, written as one listing file in `folder`."""
    if count > len(real):
        raise SystemExit(f"--papers {count}: the real days hold {len(real)} papers")
    path = folder / f"{DAY}-rss.xml"
    path.write_text(rss_listing(rng.sample(list(real), count), DAY))
    return path


# -- the filters -----------------------------------------------------------------------------

T = TypeVar("T")


class Zipf:
    """Draws from items ranked most popular first: rank r (from 0) with weight 1 / (r + offset)
    ** exponent, so the first few are far more common than the long tail."""

    def __init__(self, ranked: Sequence[str], rng: random.Random, exponent: float, offset: float):
        self.ranked, self.rng = ranked, rng
        weights = (1 / (rank + offset) ** exponent for rank in range(len(ranked)))
        self.cumulative = list(itertools.accumulate(weights))

    def draw(self) -> str:
        return self.rng.choices(self.ranked, cum_weights=self.cumulative)[0]

    def two(self) -> tuple[str, str]:
        first, second = self.draw(), self.draw()
        while second == first:
            second = self.draw()
        return first, second


def title_topics(titles: Sequence[str]) -> list[str]:
    """Words and two-word phrases of the titles, by how many titles name them, most first;
    generic words alone and one-off terms left out."""
    counts: Counter[str] = Counter()
    for title in titles:
        words = [w.lower() for w in _TITLE_WORD.findall(title)]
        counts.update({w for w in words if w not in STOPWORDS and w not in GENERIC})
        counts.update(
            {f"{a} {b}" for a, b in zip(words, words[1:], strict=False)
             if a not in STOPWORDS and b not in STOPWORDS and len(b) > 2}
        )  # fmt: skip
    # ties in alphabetical order: a set's order follows string hashing, which differs between
    # processes, and would deal the same seed a different population each run
    ranked = sorted(counts.items(), key=lambda counted: (-counted[1], counted[0]))
    return [topic for topic, n in ranked if n >= 2]


class FilterMaker:
    """Filters in the shapes people write, their topics drawn by popularity."""

    def __init__(self, real: Sequence[Paper], rng: random.Random, exponent: float, offset: float):
        self.rng = rng
        self.topics = Zipf(title_topics([p.title for p in real]), rng, exponent, offset)
        ranked = [c for c, _ in Counter(c for p in real for c in p.categories).most_common()]
        self.categories = Zipf(ranked, rng, exponent, 1)
        prolific = Counter(name for p in real for name in p.authors if " " in name)
        self.authors = Zipf([name for name, _ in prolific.most_common()], rng, exponent, offset)
        self.shapes: list[tuple[Callable[[], str], int]] = [
            (self.term, 25),  # diffusion, "kv cache"
            # "language model" reasoning
            (lambda: " ".join(map(self.quoted, self.topics.two())), 25),
            (lambda: f"ti:{self.term()}", 12),
            (lambda: " OR ".join(map(self.quoted, self.topics.two())), 10),
            (lambda: f"cat:{self.categories.draw()} {self.term()}", 10),
            (lambda: " -".join(map(self.quoted, self.topics.two())), 5),
            (self.prefix, 5),  # distill*, ti:agent*
            (lambda: f'au:"{self.authors.draw()}"', 5),  # the most prolific most often
            (lambda: f"cat:{self.categories.draw()}", 1),  # a whole category: rare, but heavy
        ]

    @staticmethod
    def quoted(topic: str) -> str:
        return f'"{topic}"' if " " in topic else topic

    def term(self) -> str:
        return self.quoted(self.topics.draw())

    def prefix(self) -> str:
        topic = self.topics.draw()
        if " " in topic or len(topic) < 6:
            return self.quoted(topic)
        return ("ti:" if self.rng.random() < 0.5 else "") + topic[: len(topic) - 2] + "*"

    def make(self) -> str:
        shapes, weights = zip(*self.shapes, strict=True)
        return self.rng.choices(shapes, weights)[0]()


def generated_filters(maker: FilterMaker, chat_count: int, per_chat: int) -> list[list[str]]:
    """Each chat's filters, distinct within the chat (as /subscribe keeps them)."""
    population = []
    for _ in range(chat_count):
        mine: dict[str, None] = {}
        while len(mine) < per_chat:
            mine[maker.make()] = None
        population.append(list(mine))
    return population


def filters_from_file(path: Path, chat_count: int, per_chat: int) -> list[list[str]]:
    """The filters of a file (bench/match.py's read_filter_file: lines the parser refuses are
    reported and left out), dealt out in order: chat n gets lines nK .. nK+K-1, starting over at
    the top when the file runs out."""
    sources = read_filter_file(path)
    if not sources:
        raise SystemExit(f"{path}: no filters")
    cycle = itertools.cycle(sources)
    return [[next(cycle) for _ in range(per_chat)] for _ in range(chat_count)]


# -- the database ----------------------------------------------------------------------------


def open_database(url: str | None, folder: Path) -> Database:
    """A fresh database: a SQLite file in `folder`, or the PostgreSQL database of `url` with its
    schema dropped and created again."""
    cache = DatabaseSettings().sqlite_cache_mb  # the bot's own default
    if url is None:
        return Database.open(f"sqlite:///{folder / 'day.db'}", sqlite_cache_mb=cache)
    if database_url(url).get_backend_name() == "postgresql":
        engine = create_database_engine(url)
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP SCHEMA public CASCADE")
            connection.exec_driver_sql("CREATE SCHEMA public")
        engine.dispose()
    return Database.open(url, upgrade=True, sqlite_cache_mb=cache)


def add_chats(
    database: Database, population: Sequence[Sequence[str]], *, first_id: int, rules: FilterRules
) -> None:
    """Chats numbered from `first_id`, in digest mode (the default), with their filters as
    /subscribe stores them (each read by the one parser; a filter it refuses stops the bench)."""
    now = datetime.now(UTC) - timedelta(days=1)  # their last digest: before the listing
    with database.session() as session:
        for number, sources in enumerate(population):
            chat_id = first_id + number
            chats.register_chat(session, chat_id=chat_id, kind="private", now=now)
            for source in sources:
                try:
                    understood = canonical(rules.parse(source))
                except InvalidQuery as error:
                    raise SystemExit(f"filter {source!r}: {error}") from None
                filters.add_filter(
                    session, chat_id=chat_id, source=source, canonical=understood, now=now
                )


def ledger_counts(database: Database, chat_count: int) -> tuple[int, int]:
    """The ledger rows of chats 1..chat_count, and the (filter, paper) matches they carry."""
    with database.engine.connect() as connection:
        rows, matched = connection.execute(
            text(
                "SELECT count(*), coalesce(sum(json_array_length(filter_ids)), 0) FROM delivery "
                "WHERE chat_id <= :last"
            ),
            {"last": chat_count},
        ).one()
    return int(rows), int(matched)


# -- the work, timed -------------------------------------------------------------------------


@dataclass
class Composed:
    digests: int = 0
    messages: int = 0
    characters: int = 0
    slowest_chat_ms: float = 0.0
    chats: int = 0  # chats done (fewer than asked when the time limit stopped the round)
    seconds: float = 0.0
    peak_rss_mb: float = 0.0  # composed in other processes: the largest one's


def compose_all(
    database: Database, rules: FilterRules, chat_ids: Sequence[int], limit: float
) -> Composed:
    """Every chat's digest as the postman composes it in a digest round (bot.service.composing:
    one round, its chats' filters read at once, papers read once and kept; one digest after
    another, as in the postman's composing thread), without sending.
    Ranking is left out: no chat has rated anything. Stops after `limit` seconds, having done
    `chats` of them."""
    found = Composed()
    began = time.perf_counter()
    composer = Composer(database, rules)
    wanted = set(chat_ids)
    with database.session() as session:
        due = [c for c in chats.all_chats(session, active_only=True) if c.id in wanted]
    now = datetime.now(UTC)
    with composer.round([chat.id for chat in due]):
        for chat in due:
            start = time.perf_counter()
            digest = composer.digest(chat, now)
            if digest.messages:
                found.digests += 1
                found.messages += len(digest.messages)
                found.characters += sum(len(m.text) for m in digest.messages)
            found.slowest_chat_ms = max(found.slowest_chat_ms, (time.perf_counter() - start) * 1000)
            found.chats += 1
            found.seconds = time.perf_counter() - began
            if found.seconds > limit:
                break
    return found


def compose_in_process(url: str, chat_ids: Sequence[int], limit: float) -> Composed:
    """`compose_all` in a process of its own, as a `paperbot worker` composes the chats it
    claimed: its own connection pool, papers and filters read for its own round."""
    database = Database.open(url, sqlite_cache_mb=DatabaseSettings().sqlite_cache_mb)
    MemoryPolicy(MemorySettings())  # the collector as a worker's Runtime sets it
    try:
        composed = compose_all(database, FilterRules(), chat_ids, limit)
    finally:
        database.close()
    # the high-water mark of this process's own memory (getrusage's would be its parent's at the
    # fork that started it)
    high = re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text())
    composed.peak_rss_mb = int(high[1]) / 1024 if high else 0.0
    return composed


def compose_in_workers(url: str, chat_ids: Sequence[int], limit: float, workers: int) -> Composed:
    """Every chat's digest composed by `workers` processes (started afresh, not forked from
    this one), each with a share of the chats, as `paperbot worker` processes share a digest
    round on one PostgreSQL database."""
    shares = [chat_ids[n::workers] for n in range(workers)]
    began = time.perf_counter()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        done = list(pool.map(compose_in_process, [url] * workers, shares, [limit] * workers))
    return Composed(
        digests=sum(c.digests for c in done),
        messages=sum(c.messages for c in done),
        characters=sum(c.characters for c in done),
        slowest_chat_ms=max(c.slowest_chat_ms for c in done),
        chats=sum(c.chats for c in done),
        seconds=time.perf_counter() - began,
        peak_rss_mb=max(c.peak_rss_mb for c in done),
    )


def profiled(work: Callable[[], T], path: Path | None) -> Callable[[], T]:
    """`work`, under cProfile when `path` is given (the stats written there): the profiler
    follows only the thread it runs in."""
    if path is None:
        return work

    def run() -> T:
        profile = cProfile.Profile()
        try:
            return profile.runcall(work)
        finally:
            profile.dump_stats(path)
            text = io.StringIO()
            pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(25)
            print(f"--- {path.name}\n{text.getvalue()}", file=sys.stderr)

    return run


COMMANDS = ("/status", "/list", "/preview {}")


async def while_answering(
    work: Callable[[], T], runtime: Runtime, callers: dict[int, str], pause: float
) -> tuple[T, float, list[tuple[str, float]]]:
    """`work` in a thread, timed; meanwhile /status, /list and /preview from `callers` (chat id
    -> a filter to preview), one after another with `pause` between, each one's latency in ms."""
    latencies: list[tuple[str, float]] = []
    start = time.perf_counter()
    task = asyncio.create_task(asyncio.to_thread(work))
    order = itertools.cycle(itertools.product(COMMANDS, callers.items()))
    while callers and not task.done():
        command, (chat_id, source) = next(order)
        began = time.perf_counter()
        reply = await handle_text(runtime, Caller(chat_id), command.format(source))
        latencies.append((command.split()[0], (time.perf_counter() - began) * 1000))
        assert reply is not None and reply.text, command
        await asyncio.sleep(pause)
    result = await task
    return result, time.perf_counter() - start, latencies


def note(line: str) -> None:
    """Progress on stderr (the figures go to stdout)."""
    print(f"{time.strftime('%H:%M:%S')} {line}", file=sys.stderr, flush=True)


def percentile_95(values: Sequence[float]) -> float:
    if len(values) < 2:
        return round(values[0], 1) if values else 0.0
    return round(statistics.quantiles(values, n=20, method="inclusive")[-1], 1)


def command_figures(latencies: list[tuple[str, float]]) -> dict[str, Any]:
    by_name: dict[str, list[float]] = {}
    for name, ms in latencies:
        by_name.setdefault(name, []).append(ms)
    return {
        name: {"count": len(v), "p95_ms": percentile_95(v), "max_ms": round(max(v), 1)}
        for name, v in sorted(by_name.items())
    }


# -- the reference ---------------------------------------------------------------------------


def reference(
    database: Database, population: Sequence[Sequence[str]], sample: int, rules: FilterRules
) -> dict[str, Any]:
    """The plain matcher for the first `sample` chats over every stored paper: its time, scaled
    to all chats, and whether its (chat, paper) pairs and filters are the ledger's."""
    sampled = population[:sample]
    with database.session() as session:
        stored = papers.latest_papers(session, limit=10**9)
        listed = filters.filters_of_chats(session, chat_ids=list(range(1, len(sampled) + 1)))
        ledger = {
            (row.chat_id, row.paper_id): sorted(row.filter_ids)
            for chat_id in listed
            for row in deliveries.all_deliveries(session, chat_id=chat_id)
        }
    queries = {chat_id: [(f.id, rules.parse(f.source)) for f in found]
               for chat_id, found in listed.items()}  # fmt: skip
    start = time.perf_counter()
    expected = {}
    for paper_id, paper in stored:
        for chat_id, chat_queries in queries.items():
            hit = [f for f, query in chat_queries if reference_matcher.matches(query, paper)]
            if hit:
                expected[(chat_id, paper_id)] = sorted(hit)
    seconds = time.perf_counter() - start
    return {
        "what": f"the plain matcher (tests/reference_matcher.py, one filter at a time) for the "
        f"first {len(sampled)} of {len(population)} chats over all {len(stored)} papers, "
        "compared with the ledger's rows of those chats",
        "chats": len(sampled),
        "ledger_rows": len(expected),
        "matches": sum(len(hit) for hit in expected.values()),
        "seconds": round(seconds, 2),
        "seconds_scaled_to_all_chats": round(seconds * len(population) / max(1, len(sampled)), 1),
        "agrees_with_ledger": expected == ledger,
    }


# -- the run ---------------------------------------------------------------------------------


def population_of(args: argparse.Namespace, real: Sequence[Paper], rng: random.Random):
    count = args.chats + args.command_chats
    if args.filters_file:
        return filters_from_file(args.filters_file, count, args.filters_per_chat)
    maker = FilterMaker(real, rng, args.zipf_exponent, args.zipf_offset)
    return generated_filters(maker, count, args.filters_per_chat)


async def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    rules = FilterRules()
    real = real_papers(args.data)
    listings = args.listing or [generated_day(real, args.papers, folder, rng)]
    everyone = population_of(args, real, rng)
    population, askers = everyone[: args.chats], everyone[args.chats :]
    load_before = os.getloadavg()[0]

    start = time.perf_counter()
    database = open_database(args.database, folder)
    add_chats(database, population, first_id=1, rules=rules)
    add_chats(database, askers, first_id=args.chats + 1, rules=rules)
    setup_seconds = time.perf_counter() - start
    note(f"{len(everyone)} chats and their filters stored in {setup_seconds:.1f} s")
    settings = Settings(database=DatabaseSettings(url=args.database or "sqlite:///bench.db"))
    runtime = Runtime.build(settings, database, RecordingTransport())
    callers = {args.chats + 1 + n: sources[0] for n, sources in enumerate(askers)}

    start = time.perf_counter()  # as the first inbox scan after a start: nothing to plan yet
    runtime.plan()
    index_seconds = time.perf_counter() - start
    note(f"the filter index built in {index_seconds:.1f} s")

    start = time.perf_counter()
    ingested = ingest.ingest_paths(database, listings)
    ingest_seconds = time.perf_counter() - start
    stored = sum(f.new for f in ingested.files)
    note(f"{stored} papers ingested in {ingest_seconds:.1f} s")
    plan_profile = args.profile / "plan.prof" if args.profile else None
    plan, plan_seconds, planning_commands = await while_answering(
        profiled(runtime.plan, plan_profile), runtime, callers, args.command_pause
    )
    ledger_rows, matches = ledger_counts(database, args.chats)
    note(f"{matches} matches, {ledger_rows} ledger rows planned in {plan_seconds:.1f} s")
    compose_profile = args.profile / "compose.prof" if args.profile else None
    chat_ids = list(range(1, args.chats + 1))

    def compose() -> Composed:
        if args.workers > 1:
            return compose_in_workers(args.database, chat_ids, args.compose_limit, args.workers)
        return compose_all(database, rules, chat_ids, args.compose_limit)

    composed, compose_seconds, composing_commands = await while_answering(
        profiled(compose, compose_profile), runtime, callers, args.command_pause
    )
    peak = peak_rss_mb()
    if composed.chats < args.chats:  # stopped at the limit: the whole round, extrapolated
        compose_seconds = composed.seconds * args.chats / composed.chats
    note(f"{composed.chats} chats' digests composed in {composed.seconds:.1f} s")
    latencies = planning_commands + composing_commands
    sample = max(1, args.reference_evaluations // (args.filters_per_chat * max(1, stored)))
    checked = reference(database, population, min(sample, args.chats), rules)
    database.close()
    command_p95 = percentile_95([ms for _, ms in latencies])
    return {
        "chats": args.chats,
        "filters": sum(map(len, population)),
        "distinct_filters": len({s for sources in population for s in sources}),
        "papers": stored,
        "matches": matches,
        "matches_per_paper": round(matches / max(1, stored), 1),
        "ledger_rows": ledger_rows,
        "planned_rows": plan.deliveries,
        "index_seconds": round(index_seconds, 2),
        "ingest_seconds": round(ingest_seconds, 2),
        "plan_seconds": round(plan_seconds, 2),
        "compose_seconds": round(compose_seconds, 2),
        "compose_complete": composed.chats == args.chats,
        "composed_chats": composed.chats,
        "slowest_digest_ms": round(composed.slowest_chat_ms, 1),
        "digests": composed.digests,
        "messages": composed.messages,
        "command_p95_ms": command_p95,
        "commands": {
            "while_planning": command_figures(planning_commands),
            "while_composing": command_figures(composing_commands),
        },
        "peak_rss_mb": peak,
        "compose_workers": args.workers,
        "worker_peak_rss_mb": round(composed.peak_rss_mb, 1) if args.workers > 1 else None,
        "targets_met": {
            "ingest_and_plan_within_30_s": ingest_seconds + plan_seconds <= 30,
            "compose_within_60_s": compose_seconds <= 60,
            "command_p95_under_200_ms": command_p95 < 200,
            "under_2_gb": max(peak, composed.peak_rss_mb) < 2048,  # each process
        },
        "setup_seconds": round(setup_seconds, 1),
        "database": database_url(args.database).render_as_string(hide_password=True)
        if args.database
        else "sqlite (a temporary file)",
        "calibration_seconds": calibration_seconds(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "reference": checked,
        "data": data_note(args),
    }


def data_note(args: argparse.Namespace) -> dict[str, str]:
    papers_note = (
        f"real listing files: {', '.join(str(p) for p in args.listing)}"
        if args.listing
        else f"real papers ({args.data}), {args.papers} drawn at random (seed {args.seed}) and "
        f"written as one generated arXiv RSS listing dated {DAY}"
    )
    filters_note = (
        f"from {args.filters_file}, dealt out in order"
        if args.filters_file
        else "generated: shapes people write, topics from the real titles drawn by a Zipf law "
        f"(exponent {args.zipf_exponent}, offset {args.zipf_offset})"
    )
    return {
        "papers": papers_note,
        "filters": filters_note,
        "chats": f"generated: {args.chats} chats in digest mode, and {args.command_chats} more "
        "whose /status, /list and /preview are timed",
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chats", type=int, default=10_000)
    parser.add_argument("--filters-per-chat", type=int, default=10)
    parser.add_argument("--filters-file", type=Path, help="one filter a line, dealt out in order")
    parser.add_argument(
        "--listing", type=Path, nargs="+", help="listing files, instead of the generated day"
    )
    parser.add_argument("--papers", type=int, default=2_000, help="papers of the generated day")
    parser.add_argument(
        "--database",
        metavar="URL",
        help="instead of a temporary SQLite file; a PostgreSQL database's schema is DROPPED and "
        "created again: give one that holds nothing you keep",
    )
    parser.add_argument("--data", type=Path, default=DATA, help="the real days (JSONL)")
    parser.add_argument("--command-chats", type=int, default=20, help="chats sending commands")
    parser.add_argument(
        "--command-pause", type=float, default=0.05, help="seconds between two commands"
    )
    parser.add_argument(
        "--reference-evaluations",
        type=int,
        default=100_000,
        help="filter x paper evaluations the plain matcher's sample makes (whole chats)",
    )
    parser.add_argument(
        "--compose-limit",
        type=float,
        default=600,
        metavar="SECONDS",
        help="stop composing after this long; compose_seconds is then the time for every chat, "
        "extrapolated from those done (compose_complete false)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="compose in this many processes, as `paperbot worker` processes share a digest "
        "round (PostgreSQL only: SQLite runs one process)",
    )
    parser.add_argument("--zipf-exponent", type=float, default=1.0)
    parser.add_argument("--zipf-offset", type=float, default=50.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--profile", type=Path, metavar="DIR", help="cProfile planning and composing into DIR"
    )
    parser.add_argument("--json", action="store_true", help="one JSON document on one line")
    args = parser.parse_args()
    if args.workers > 1 and not (
        args.database and database_url(args.database).get_backend_name() == "postgresql"
    ):
        parser.error(
            "--workers needs --database postgresql+psycopg://...: on SQLite the bot runs "
            "one process"
        )
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(run(args, Path(folder)))
    print(json.dumps(figures, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
