"""How long a morning's digest is: a real announcement day, filters people write, the digest
rendered compact (the default) and full (every card), counted in messages and characters.

    python bench/digest.py --json [--day ../shared/data/arxiv-days-2025/2025-05-27.jsonl]

Real data: the day's papers as arXiv announced them (../shared/data, read by path); the filters
are the four a tester followed on a real mailing (`"language model" reasoning`, `ti:agent*`,
`"reinforcement learning"`, `"kv cache"`) plus `diffusion` for a vision-heavy day. Nothing is
stored or sent: the papers are matched, composed and rendered as the postman would.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core.highlight import highlights  # noqa: E402
from bot.core.matcher import matches  # noqa: E402
from bot.core.paper import AnnounceType, Paper  # noqa: E402
from bot.core.query import FilterRules  # noqa: E402
from bot.core.render import Item, MatchedFilter, render_digest, size  # noqa: E402

DEFAULT_DAY = ROOT.parent / "shared" / "data" / "arxiv-days-2025" / "2025-05-27.jsonl"
FILTERS = [
    '"language model" reasoning',
    "ti:agent*",
    '"reinforcement learning"',
    '"kv cache"',
    "diffusion",
]


def read_day(path: Path) -> list[Paper]:
    papers = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        papers.append(
            Paper(
                title=row["title"],
                abstract=row["abstract"],
                source=path.name,
                arxiv_id=row["id"],
                authors=tuple(row["authors"]),
                categories=tuple(row["categories"]),
                announced=date.fromisoformat(row["date"]),
                announce_type=AnnounceType(row["announce_type"]),
                comments=row.get("comment"),
            )
        )
    return papers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--day", type=Path, default=DEFAULT_DAY, help="one day's JSONL")
    parser.add_argument("--json", action="store_true", help="print JSON (the default)")
    args = parser.parse_args()
    papers = read_day(args.day)
    rules = FilterRules()
    queries = [(MatchedFilter(n, source), rules.parse(source)) for n, source in
               enumerate(FILTERS, 1)]  # fmt: skip
    items = []
    for paper in papers:
        hit = [(f, q) for f, q in queries if matches(q, paper)]
        if hit:
            marks = [m for _, q in hit for m in highlights(q, paper)]
            items.append(Item(paper, sorted(marks, key=lambda m: (m.field, m.start)),
                              [f for f, _ in hit]))  # fmt: skip
    figures: dict[str, object] = {
        "day": args.day.name,
        "papers": len(papers),
        "filters": FILTERS,
        "matched_papers": len(items),
    }
    for name, compact in (("compact", True), ("full", False)):
        start = time.perf_counter()
        messages = render_digest(items, "Your digest", compact=compact)
        figures[f"{name}_messages"] = len(messages)
        figures[f"{name}_characters"] = sum(size(m.text) for m in messages)
        figures[f"{name}_render_seconds"] = round(time.perf_counter() - start, 3)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
