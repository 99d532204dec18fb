"""How well the TL;DR states each paper's contribution, on real arXiv abstracts.

    python bench/tldr.py [DATA_DIR] [LABELS] [--reference OLD_SUMMARY_PY]

DATA_DIR holds the real listings (`../shared/data/arxiv-days-2025`, one JSONL file a day). LABELS
(`bench/data/tldr_labels.jsonl`) is a hand-labelled sample: 66 papers drawn with
`random.Random(12).sample(papers, 66)` from all papers in day order, each with its sentences as
`sentences()` splits them and the indices of the sentence(s) that state the contribution; every
third row (`split: held_out`) was kept out of tuning.

Reports, as JSON: agreement (the TL;DR's main sentence is a labelled one) on all labels and on
the held-out third; the share of TL;DRs starting with a lowercase word, ending with "…", over 300
characters, on the labelled sample and on every paper; and the time per 1,000 papers.
`--reference` runs the same measures with `tldr` from another copy of bot/core/summary.py (the
code before a change, say `git show HEAD~1:bot/core/summary.py > /tmp/summary_before.py`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core import summary  # noqa: E402

Summarize = Callable[[str, str], str]
WORD = re.compile(r"[a-z0-9]+")


def read_jsonl(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def main_sentence(tldr: str, parts: list[str]) -> int:
    """The sentence the TL;DR opens with: the one holding its first words, else the one sharing
    most of them."""
    words = WORD.findall(tldr.lower())[1:9]
    phrase = " ".join(words)
    sentence_words = [" ".join(WORD.findall(s.lower())) for s in parts]
    for index, text in enumerate(sentence_words):
        if phrase and phrase in text:
            return index
    return max(range(len(parts)), key=lambda i: len(set(words) & set(sentence_words[i].split())))


def shape(summaries: list[str]) -> dict[str, object]:
    count = len(summaries) or 1
    lowercase = sum(1 for s in summaries if s[:1].islower())
    ellipsis = sum(1 for s in summaries if s.endswith("…"))
    too_long = sum(1 for s in summaries if len(s) > summary.TLDR_MAX)
    return {
        "papers": len(summaries),
        "lowercase_start": lowercase,
        "lowercase_start_share": round(lowercase / count, 4),
        "ends_with_ellipsis": ellipsis,
        "over_300_chars": too_long,
        "empty": sum(1 for s in summaries if not s),
        "mean_chars": round(sum(map(len, summaries)) / count, 1),
    }


def agreement(summarize: Summarize, labels: list[dict[str, object]]) -> dict[str, object]:
    hits = {"tune": 0, "held_out": 0}
    totals = {"tune": 0, "held_out": 0}
    misses = []
    for row in labels:
        parts = summary.sentences(str(row["abstract"]))
        tldr = summarize(str(row["abstract"]), str(row["title"]))
        chosen = main_sentence(tldr, parts)
        split = str(row["split"])
        totals[split] += 1
        if chosen in row["contribution"]:  # type: ignore[operator]
            hits[split] += 1
        else:
            misses.append({"arxiv_id": row["arxiv_id"], "chosen": chosen, "tldr": tldr})
    everything = sum(totals.values())
    return {
        "all": round(sum(hits.values()) / everything, 3),
        "held_out": round(hits["held_out"] / totals["held_out"], 3),
        "tune": round(hits["tune"] / totals["tune"], 3),
        "labels": everything,
        "held_out_labels": totals["held_out"],
        "misses": misses,
        "shape": shape([summarize(str(r["abstract"]), str(r["title"])) for r in labels]),
    }


def measure(
    summarize: Summarize, papers: list[dict[str, object]], labels: list[dict[str, object]]
) -> dict[str, object]:
    started = time.perf_counter()
    summaries = [summarize(str(p["abstract"]), str(p["title"])) for p in papers]
    seconds = time.perf_counter() - started
    return {
        "agreement": agreement(summarize, labels),
        "all_papers": shape(summaries),
        "seconds_per_1000_papers": round(seconds / len(papers) * 1000, 3),
    }


def load_tldr(path: Path) -> Summarize:
    spec = importlib.util.spec_from_file_location("reference_summary", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return uncached(module.tldr)


def uncached(function: Callable[..., str]) -> Summarize:
    return getattr(function, "__wrapped__", function)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "data", nargs="?", type=Path, default=ROOT.parent / "shared/data/arxiv-days-2025"
    )
    parser.add_argument(
        "labels", nargs="?", type=Path, default=ROOT / "bench/data/tldr_labels.jsonl"
    )
    parser.add_argument("--reference", type=Path, help="another summary.py to compare with")
    arguments = parser.parse_args()
    papers = [p for day in sorted(arguments.data.glob("*.jsonl")) for p in read_jsonl(day)]
    by_id = {str(p["id"]): p for p in papers}
    labels = [
        {**row, "abstract": by_id[str(row["arxiv_id"])]["abstract"]}
        for row in read_jsonl(arguments.labels)
    ]
    report: dict[str, object] = {"current": measure(uncached(summary.tldr), papers, labels)}
    if arguments.reference:
        report["reference"] = measure(load_tldr(arguments.reference), papers, labels)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
