"""/preview's answer over a week of real papers: the recent papers' index against the plain loop
it replaced (every recent paper read and matched), in the same run.

    python bench/preview.py --json
    python bench/preview.py ../shared/data/arxiv-days-2025 --per-day 2000 --json  # a busy week

The real days of DIR (JSONL, as ../shared/data/arxiv-days-2025 holds them, read by path) are
stored in a temporary SQLite database through ingest's de-duplicating path, every day, so that
the window holds the last 7 and the older ones lie outside it. With --per-day N the last 7 days
instead hold N papers each, drawn from all the days with new arXiv ids (a busy week: 2,000 a
day; the 18 shared days hold 6,349 texts, so each text then comes about twice in the week).
The last day is stored after the index is made, and bringing the index up to date with it is
timed on its own.

The filters: --filters realistic ones, bench/day.py's FilterMaker (the shapes people write,
topics drawn from the real titles by a Zipf law), or --filters-file F (one a line, as
`python bench/match.py --write-filters F` writes them). Each is answered by recent_matches
through RecentPapers (the index made at the first question, which is timed apart) and by the
plain loop; the two answers are compared.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.day import FilterMaker, generated_filters  # noqa: E402
from bench.digest import read_day  # noqa: E402
from bench.match import calibration_seconds, filters_from_file  # noqa: E402
from bot.core.matcher import matches  # noqa: E402
from bot.core.paper import Paper  # noqa: E402
from bot.core.query import FilterRules, Node  # noqa: E402
from bot.service.ingest import store_papers  # noqa: E402
from bot.service.preview import (  # noqa: E402
    RECENT_DAYS,
    SHOWN_TITLES,
    RecentMatches,
    RecentPapers,
    recent_matches,
)
from bot.store import Database, papers  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "arxiv-days-2025"
STORED_AT = datetime(2025, 6, 12, 6, 0, tzinfo=UTC)


def plain_recent_matches(database: Database, query: Node) -> RecentMatches:
    """The loop recent_matches was before the index (without a chat's ranking)."""
    with database.session() as session:
        recent = papers.recent_papers(session, announcement_days=RECENT_DAYS)
    shown = [paper for _, paper in recent if matches(query, paper)]
    derived = frozenset(p.title for p in shown[:SHOWN_TITLES] if p.title_derived)
    return RecentMatches(len(shown), [p.title for p in shown[:SHOWN_TITLES]], derived=derived)


def days_of(folder: Path, per_day: int | None, rng: random.Random) -> list[list[Paper]]:
    """Each day's papers, oldest day first: the real days, or with `per_day` the last week's
    days made of that many papers drawn from all of them."""
    real = [read_day(path) for path in sorted(folder.glob("*.jsonl"))]
    if not real:
        raise SystemExit(f"{folder}: no *.jsonl days")
    if per_day is None:
        return real
    every = [paper for day in real for paper in day]
    if per_day > len(every):
        raise SystemExit(f"--per-day {per_day}: {folder} holds {len(every)} papers")
    week = [day[0].announced for day in real[-RECENT_DAYS:]]
    return real[:-RECENT_DAYS] + [
        [
            paper.with_changes(arxiv_id=f"{day:%y%m}.{number:05d}x{n}", announced=day)
            for n, paper in enumerate(rng.sample(every, per_day))
        ]
        for number, day in enumerate(week)
    ]


def store_day(database: Database, day: Sequence[Paper], now: datetime, *, busy: bool) -> None:
    """Through ingest's de-duplication; a busy day's drawn copies are inserted as they are
    (their texts repeat other days', which de-duplication would merge)."""
    with database.session() as session:
        if busy:
            papers.insert_papers(session, papers=day, now=now)
        else:
            store_papers(session, day, now=now)


def percentiles(seconds: Sequence[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[round(0.95 * (len(ordered) - 1))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def rss_mb() -> float:
    """The process's resident memory now (not the peak)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def sources_of(args: argparse.Namespace, rng: random.Random) -> list[str]:
    if args.filters_file:
        return filters_from_file(args.filters_file, args.filters)
    real = [paper for path in sorted(args.data.glob("*.jsonl")) for paper in read_day(path)]
    maker = FilterMaker(real, rng, args.zipf_exponent, args.zipf_offset)
    return generated_filters(maker, 1, args.filters or 50)[0]  # one "chat": distinct filters


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    rules = FilterRules()
    sources = sources_of(args, rng)
    queries = [rules.parse(source) for source in sources]
    days = days_of(args.data, args.per_day, rng)
    drawn = len(days) - RECENT_DAYS if args.per_day else len(days)  # the first drawn day
    load_before = os.getloadavg()[0]
    database = Database.open(f"sqlite:///{folder / 'preview.db'}")
    for number, day in enumerate(days[:-1]):
        store_day(database, day, STORED_AT + timedelta(hours=number), busy=number >= drawn)

    gc.collect()
    rss_before = rss_mb()
    recent = RecentPapers(database)
    index, build_seconds = timed(recent.index)
    store_day(database, days[-1], STORED_AT + timedelta(days=1), busy=bool(args.per_day))
    index, last_day_seconds = timed(recent.index)
    gc.collect()
    rss_after = rss_mb()
    unchanged = [timed(recent.index)[1] for _ in range(20)]  # what each question pays first

    indexed, plain, disagree = [], [], []
    for source, query in zip(sources, queries, strict=True):
        found, seconds = timed(partial(recent_matches, recent, query))
        indexed.append(seconds)
        expected, seconds = timed(partial(plain_recent_matches, database, query))
        plain.append(seconds)
        if found != expected:
            disagree.append(source)
    database.close()
    window: list[date] = sorted({p.announced for p in index.papers().values() if p.announced})
    drawn_note = f", the last {RECENT_DAYS} days drawn at {args.per_day} a day"
    return {
        "calibration_seconds": calibration_seconds(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "papers_stored": sum(map(len, days)),
        "papers_in_window": len(index),
        "window": [str(window[0]), str(window[-1])] if window else None,
        "filters": len(queries),
        "build_seconds": round(build_seconds, 2),
        "last_day_papers": len(days[-1]),
        "last_day_seconds": round(last_day_seconds, 2),
        "up_to_date_check_ms": percentiles(unchanged),
        "index": percentiles(indexed),
        "reference": percentiles(plain),
        "speedup_p50": round(statistics.median(plain) / statistics.median(indexed), 1),
        "agree": not disagree,
        "disagreements": disagree[:10],
        "rss_before_index_mb": rss_before,
        "rss_with_index_mb": rss_after,
        "index_mb": round(rss_after - rss_before, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "data": {
            "papers": str(args.data) + (drawn_note if args.per_day else ""),
            "filters": str(args.filters_file) if args.filters_file else "bench/day.py FilterMaker",
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path, nargs="?", default=DATA, help="the real days (JSONL)")
    parser.add_argument("--per-day", type=int, help="papers on each of the last 7 days (drawn)")
    parser.add_argument("--filters", type=int, help="how many filters (default 50; a file: all)")
    parser.add_argument("--filters-file", type=Path, metavar="F", help="one filter a line")
    parser.add_argument("--zipf-exponent", type=float, default=1.0, help="as bench/day.py")
    parser.add_argument("--zipf-offset", type=float, default=50.0, help="as bench/day.py")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="paperbot-preview-") as folder:
        figures = run(args, Path(folder))
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:24} {value}")


if __name__ == "__main__":
    main()
