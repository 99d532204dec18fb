"""How long a morning's digest is: a real announcement day, filters people write, the digest
composed as the postman sends it, compact (the default: a page of 30 papers at a glance, the
rest behind a "more" button) and full (every card), counted in messages and characters; which
filters the first page shows (at pages of 30 and of 10), and whether its pages, pressed through,
add up to the digest, also when a chat's ranking model (trained on four liked papers of the days
before) orders them. Then instant alerts: the seven filters a tester followed in instant mode,
a day's matches arriving at once, compact (the default) and as whole cards.

    python bench/digest.py --json [--day ../shared/data/arxiv-days-2025/2025-05-27.jsonl]

Real data: the day's papers as arXiv announced them (../shared/data, read by path); the filters
are the four a tester followed on a real mailing (`"language model" reasoning`, `ti:agent*`,
`"reinforcement learning"`, `"kv cache"`) plus `diffusion` for a vision-heavy day. Nothing is
stored or sent: the papers are matched, composed and rendered as the postman would.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core.chat import Delivery  # noqa: E402
from bot.core.compose import (  # noqa: E402
    Composed,
    Layout,
    Made,
    compose_alert,
    compose_digest,
    compose_page,
    first_filter,  # noqa: E402
)
from bot.core.highlight import highlights  # noqa: E402
from bot.core.matcher import matches  # noqa: E402
from bot.core.paper import AnnounceType, Paper  # noqa: E402
from bot.core.query import FilterRules  # noqa: E402
from bot.core.relevance import ChatModel, TextModel  # noqa: E402
from bot.core.render import Item, MatchedFilter, size  # noqa: E402
from bot.core.states import Status  # noqa: E402

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


INSTANT_FILTERS = [  # the seven filters a tester followed in instant mode (issue 28)
    '"video generation" OR "video diffusion"',
    'au:"Ziwei Liu"',
    '"gaussian splatting" OR 3dgs',
    'ti:"world model"',
    '"flow matching" -ti:audio',
    'ti:agent* "large language model"',
    '"theorem prov*" OR lean4',
]


def matched_items(papers: list[Paper], sources: list[str]) -> list[Item]:
    """The papers the filters match, each with the filters (numbered as /list would) and the
    words to mark."""
    rules = FilterRules()
    queries = [(MatchedFilter(n, source), rules.parse(source)) for n, source in
               enumerate(sources, 1)]  # fmt: skip
    items = []
    for paper in papers:
        hit = [(f, q) for f, q in queries if matches(q, paper)]
        if hit:
            marks = [m for _, q in hit for m in highlights(q, paper)]
            items.append(Item(paper, sorted(marks, key=lambda m: (m.field, m.start)),
                              [f for f, _ in hit]))  # fmt: skip
    return items


def as_rows(items: list[Item]) -> Made:
    """One ledger row per paper, as the planner writes them."""
    now = datetime.now(UTC)
    return Made(
        [
            (item, [Delivery(n, 1, n, 0, [], Status.PENDING, None, None, now)])
            for n, item in enumerate(items, 1)
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--day", type=Path, default=DEFAULT_DAY, help="one day's JSONL")
    parser.add_argument("--json", action="store_true", help="print JSON (the default)")
    args = parser.parse_args()
    papers = read_day(args.day)
    composed = as_rows(matched_items(papers, FILTERS))
    figures: dict[str, object] = {
        "day": args.day.name,
        "papers": len(papers),
        "filters": FILTERS,
        "matched_papers": len(composed),
    }
    for name, layout in (("compact", Layout()), ("full", Layout(compact=False, page=1000))):
        start = time.perf_counter()
        messages = compose_digest(composed, "Your digest", layout)
        figures[f"{name}_messages"] = len(messages)
        figures[f"{name}_characters"] = sum(size(m.text) for m in messages)
        figures[f"{name}_render_seconds"] = round(time.perf_counter() - start, 3)
    figures["compact_listed"] = min(len(composed), Layout().page)
    for page in (30, 10):
        pages = page_through(composed, Layout(page=page))
        figures[f"page_{page}"] = {
            "filters_with_papers": len({first_filter(item) for item, _ in composed}),
            "filters_on_first_page": len({first_filter(composed[i][0]) for i in pages[0]}),
            "papers_of_later_pages": [len(p) for p in pages[1:]],
            "pages_add_up": sorted(i for p in pages for i in p) == list(range(len(composed))),
        }
    figures["ranked"] = ranked(args.day, composed)
    figures["instant"] = instant(args.day)
    print(json.dumps(figures))


def page_through(composed: Made, layout: Layout) -> list[list[int]]:
    """The papers (as indices into `composed`) of each page, pressing "more" until the digest
    ends, each later page composed from the rows behind the button in their stored order."""
    index = {rows[0].id: i for i, (_, rows) in enumerate(composed)}
    first = compose_digest(composed, "Your digest", layout)
    pages = [[index[r.id] for m in first for r in m.rows]]
    behind = [composed[index[r.id]] for r in first[-1].behind]
    more = [b.data for row in first[-1].buttons for b in row if b.data.startswith("more:")]
    while more:
        row_id, number = (int(part) for part in more[0].split(":")[1:])
        page = compose_page(behind, "Your digest", layout, row_id=row_id, number=number)
        pages.append([index[r.id] for m in page for r in m.rows])
        more = [b.data for row in page[-1].buttons for b in row if b.data.startswith("more:")]
    return pages


def ranked(day: Path, composed: Composed) -> dict[str, object]:
    """The same digest for a chat whose ranking model liked four papers of the days before
    (the first matches of `"kv cache"` and `ti:agent*` there): its scores order the pages, and
    the pages still list every paper once, at pages of 30 and of 10."""
    past = [p for d in sorted(day.parent.glob("*.jsonl")) if d < day for p in read_day(d)]
    if not past:
        return {"skipped": "no day before this one to learn from"}
    liked = [i.paper for s in ('"kv cache"', "ti:agent*") for i in matched_items(past, [s])[:2]]
    text = TextModel.fit(past[-4000:])
    background = random.Random(1).sample([p for p in past if p not in liked], 300)
    model = ChatModel.train(text, liked, [], background)
    assert model is not None
    scores = model.scores(text.vectors([item.paper for item, _ in composed]))
    scored = Made(
        [
            (dataclasses.replace(item, score=float(score)), rows)
            for (item, rows), score in zip(composed, scores, strict=True)
        ]
    )
    figures: dict[str, object] = {"liked": [p.arxiv_id for p in liked]}
    for page in (30, 10):
        pages = page_through(scored, Layout(page=page))
        listed = sorted(i for p in pages for i in p)
        figures[f"page_{page}_pages_add_up"] = listed == list(range(len(scored)))
    return figures


def instant(day: Path) -> dict[str, object]:
    """A day's matches of the seven instant filters arriving at once, as alerts: compact (the
    default) and whole cards, on the given day and on the day of the shared data with the
    most matches."""
    matched = {d: matched_items(read_day(d), INSTANT_FILTERS) for d in day.parent.glob("*.jsonl")}
    matched.setdefault(day, matched_items(read_day(day), INSTANT_FILTERS))
    busiest = max(sorted(matched), key=lambda d: len(matched[d]))
    figures: dict[str, object] = {"filters": INSTANT_FILTERS}
    for name, path in (("day", day), ("busiest_day", busiest)):
        composed = as_rows(matched[path])
        shown = {"day": path.name, "matched_papers": len(composed)}
        for style, layout in (("compact", Layout()), ("full", Layout(compact=False))):
            messages = compose_alert(composed, layout)
            shown[f"{style}_messages"] = len(messages)
            shown[f"{style}_characters"] = sum(size(m.text) for m in messages)
        figures[name] = shown
    return figures


if __name__ == "__main__":
    main()
