"""How far the papers offered to rate to start (bot/core/starters.py) spread over a filter's
matches, on real arXiv listings.

    python bench/starters.py --json [--days ../shared/data/arxiv-days-2025]

For each filter: its matches among the last RECENT_DAYS announcement days (what /subscribe looks
back on), and three ways to pick eight of them:

    spread   choose_starters: KMeans(8) over the matches' TF-IDF, the paper nearest each centroid
    nearest  the eight nearest the matches' centroid (the "most similar" eight)
    newest   the eight newest (the filter's order, before any rating)

Each pick is measured by the distinct primary categories it holds, the distinct topics it holds
(of ten KMeans clusters of the matches, fitted apart with other seeds: the mean of three), and
how well it stands for all the matches (coverage: each match's cosine similarity to its nearest
pick, averaged; what an answer about the pick says of the others). Real data: the listings of
../shared/data.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import TfidfVectorizer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.digest import INSTANT_FILTERS, read_day  # noqa: E402
from bot.core.matcher import matches  # noqa: E402
from bot.core.paper import Paper  # noqa: E402
from bot.core.query import FilterRules  # noqa: E402
from bot.core.relevance import paper_text  # noqa: E402
from bot.core.starters import STARTERS, choose_starters  # noqa: E402
from bot.service.preview import RECENT_DAYS  # noqa: E402

DAYS = ROOT.parent / "shared" / "data" / "arxiv-days-2025"
FILTERS = [*INSTANT_FILTERS, '"language model"', "diffusion", "segmentation", "cat:cs.GR"]
TOPICS = 10  # the reference clusters a pick's topics are counted in
SEEDS = (1, 2, 3)  # of the reference clusterings (choose_starters' own is seeded 0)


def picks(matched: list[Paper]) -> dict[str, list[int]]:
    """Each way's eight, as indices into `matched` (newest first: higher arXiv ids)."""
    texts = [paper_text(p) for p in matched]
    spread = choose_starters(list(enumerate(texts)))
    matrix = TfidfVectorizer(sublinear_tf=True, stop_words="english").fit_transform(texts)
    centroid = np.asarray(matrix.mean(axis=0)).ravel()
    nearest = np.argsort(-(matrix @ centroid), kind="stable")[:STARTERS]
    newest = sorted(range(len(matched)), key=lambda i: matched[i].arxiv_id or "", reverse=True)
    return {"spread": spread, "nearest": [int(i) for i in nearest], "newest": newest[:STARTERS]}


def measure(
    matched: list[Paper], chosen: list[int], topics: list[np.ndarray], matrix: Any
) -> dict[str, float]:
    nearest = (matrix @ matrix[chosen].T).toarray().max(axis=1)
    return {
        "categories": len({matched[i].primary_category for i in chosen}),
        "topics": float(np.mean([len({int(labels[i]) for i in chosen}) for labels in topics])),
        "coverage": round(float(nearest.mean()), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=Path, default=DAYS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    paths = sorted(args.days.glob("*.jsonl"))[-RECENT_DAYS:]
    recent = [paper for path in paths for paper in read_day(path)]
    rules = FilterRules()
    results: dict[str, dict[str, Any]] = {}
    for source in FILTERS:
        query = rules.parse(source)
        matched = [paper for paper in recent if matches(query, paper)]
        if len(matched) <= TOPICS:
            continue
        texts = [paper_text(p) for p in matched]
        matrix = TfidfVectorizer(sublinear_tf=True, stop_words="english").fit_transform(texts)
        topics = [KMeans(TOPICS, n_init=10, random_state=s).fit(matrix).labels_ for s in SEEDS]
        started = time.perf_counter()
        chosen = picks(matched)
        seconds = time.perf_counter() - started
        results[source] = {"matches": len(matched), "seconds": round(seconds, 3)}
        results[source] |= {way: measure(matched, c, topics, matrix) for way, c in chosen.items()}
    ways = ("spread", "nearest", "newest")
    mean = {
        way: {
            key: round(float(np.mean([r[way][key] for r in results.values()])), 3)
            for key in ("categories", "topics", "coverage")
        }
        for way in ways
    }
    report = {"data": "real", "days": [p.stem for p in paths], "filters": results, "mean": mean}
    print(json.dumps(report, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
