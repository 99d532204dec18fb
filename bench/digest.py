"""How long a morning's digest is: a real announcement day, filters people write, the digest
composed as the postman sends it, compact (the default: a page of 30 papers at a glance, the
rest behind a "more" button) and full (every card), counted in messages and characters.

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
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core.chat import Delivery  # noqa: E402
from bot.core.compose import Layout, compose_digest, compose_page  # noqa: E402
from bot.core.highlight import highlights  # noqa: E402
from bot.core.matcher import matches  # noqa: E402
from bot.core.paper import AnnounceType, Paper  # noqa: E402
from bot.core.query import FilterRules  # noqa: E402
from bot.core.render import Item, MatchedFilter, size  # noqa: E402

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
    now = datetime.now(UTC)
    composed = [  # one ledger row per paper, as the planner writes them
        (item, [Delivery(n, 1, n, 0, [], "pending", None, None, now)])
        for n, item in enumerate(items, 1)
    ]
    for name, layout in (("compact", Layout()), ("full", Layout(compact=False, page=1000))):
        start = time.perf_counter()
        messages = compose_digest(composed, "Your digest", layout)
        figures[f"{name}_messages"] = len(messages)
        figures[f"{name}_characters"] = sum(size(m.text) for m in messages)
        figures[f"{name}_render_seconds"] = round(time.perf_counter() - start, 3)
    figures["compact_listed"] = min(len(items), Layout().page)
    figures["compact_pages_for_the_rest"] = count_pages(composed)
    print(json.dumps(figures))


def count_pages(composed: list[tuple[Item, list[Delivery]]]) -> list[int]:
    """Messages of each later page, pressing "more" until the digest ends."""
    first = compose_digest(composed, "Your digest", Layout())
    pages: list[int] = []
    more = [b.data for row in first[-1].buttons for b in row if b.data.startswith("more:")]
    while more:
        row_id, number = (int(part) for part in more[0].split(":")[1:])
        page = compose_page(composed, "Your digest", Layout(), row_id=row_id, number=number)
        pages.append(len(page))
        more = [b.data for row in page[-1].buttons for b in row if b.data.startswith("more:")]
    return pages


if __name__ == "__main__":
    main()
