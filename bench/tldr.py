"""How well the TL;DR states each paper's contribution, and whether it reads as a sentence.

    python bench/tldr.py --json [DATA_DIR] [--labels LABELS ...] [--reference OLD_SUMMARY_PY]

DATA_DIR holds the real listings (`../shared/data/arxiv-days-2025`, one JSONL file a day). Two
hand-labelled samples (LABELS, both by default), each row a paper with its sentences as
`sentences()` splits them and the indices of the sentence(s) that state what the paper does:

    tldr_labels.jsonl    66 papers, `random.Random(12).sample(papers, 66)` from all papers in
                         day order; every third row (`split: held_out`) was kept out of tuning.
    tldr_labels_2.jsonl  100 more, `random.Random(28).sample(rest, 100)`, `rest` being all papers
                         in day order without the 66 above; labelled by reading each abstract,
                         before the TL;DR code was changed, and never tuned on (all held out).

Agreement: the TL;DR states a labelled sentence: its main sentence (the one holding its first
words) is a labelled one, or it is the sentence right before a labelled one, followed by that one
(the antecedent brought along for a sentence that says "this quadrant"). `opens_with_it` is the
stricter share that opens with a labelled sentence. Misses are listed for the tuning rows only,
so that the held-out rows stay unread while tuning.

A fragment is a TL;DR that stops inside a list or a clause. The rule is mechanical:
  * every sentence of the TL;DR that does not end in "…" must end where a sentence of the
    abstract ends (its last 40 characters are in the abstract, followed by a space, the end or
    the upper-case letter of a sentence run on): else a full stop was added to a cut
    ("... framework that plans, executes.");
  * a TL;DR ending in "…" is a fragment when the word before it cannot end a clause (an article,
    determiner, preposition, conjunction, relative word or auxiliary: "the", "of", "and",
    "which", "is", ... in CANNOT_END), when a comma, colon, dash, slash, open bracket or the
    full stop of an abbreviation comes right before it ("i.e.…"), when a bracket is left open,
    or when its last comma is followed by one word only (", executes…": a list cut after an
    item).
Also counted: TL;DRs that start with a lowercase letter, end in "…", run past 300 characters,
and that lean on what they left out: their first sentence points back with "this", "these",
"those" or "such" and a noun ("addresses this empty quadrant"), not at the paper itself.

Every paper is summarised at both limits the bot uses (300 for a card, 200 for a compact digest
entry, render.ENTRY_TLDR); the time is per 1,000 papers at 300, without the cache.
`--reference` runs the same measures with `tldr` from another copy of bot/core/summary.py (the
code before a change: `git show main:bot/core/summary.py > /tmp/summary_before.py`).
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

from bot.core import render, summary  # noqa: E402

Summarize = Callable[[str, str, int], str]
Row = dict[str, object]
WORD = re.compile(r"[a-z0-9]+")
LIMITS = (summary.TLDR_MAX, render.ENTRY_TLDR)
TAIL = 40  # characters of a TL;DR sentence looked up in the abstract
CANNOT_END = re.compile(  # the word before "…" in a fragment
    r"(?<![\w-])(?:a|an|the|this|that|these|those|its|their|our|his|her|each|every|any|some|both|"
    r"either|neither|no|of|in|on|at|to|for|with|by|from|into|onto|over|under|via|as|than|between|"
    r"among|across|through|toward|towards|without|within|upon|about|against|and|or|nor|but|which|"
    r"who|whom|whose|where|while|whereas|when|if|because|although|though|is|are|was|were|be|been|"
    r"being|has|have|had|can|could|may|might|will|would|shall|should|must|do|does|did|not|"
    r"such)$",
    re.I,
)
LEANING = re.compile(
    r"\b(?:this|these|those|such)\s+(?!(?:paper|work|study|article|letter|thesis|survey|review|"
    r"report|manuscript|chapter|position|way|end|as)\b)[a-z][\w-]*",
    re.I,
)
OPEN_PUNCTUATION = ",;:([{-–—/&."  # '.': an abbreviation, 'i.e.…'
EXAMPLES = 5


def read_jsonl(path: Path) -> Iterator[Row]:
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


def ends_a_sentence(piece: str, abstract: str) -> bool:
    """Whether the piece ends where a sentence of the abstract ends (in any case: the TL;DR
    capitalises a sentence it starts inside, 'we propose X.' -> 'We propose X.')."""
    tail, lowered = piece[-TAIL:].lower(), abstract.lower()
    start = lowered.find(tail)
    while start >= 0:
        after = start + len(tail)
        if after == len(abstract) or abstract[after].isspace() or abstract[after].isupper():
            return True  # an upper-case letter: two sentences run together, 'scenes.Unlike'
        start = lowered.find(tail, start + 1)
    return False


def fragment(tldr: str, abstract: str) -> str | None:
    """Why the TL;DR stops inside a list or a clause (the rule in the docstring), or None."""
    pieces = summary.sentences(tldr)
    for piece in pieces:
        if not piece.endswith("…") and not ends_a_sentence(piece, abstract):
            return "full stop after a cut"
    if not tldr.endswith("…"):
        return None
    before = tldr[:-1]
    words = before.split()
    if not words or before[-1] in OPEN_PUNCTUATION:
        return "punctuation before …"
    if before.count("(") > before.count(")") or before.count("[") > before.count("]"):
        return "open bracket"
    if CANNOT_END.search(before):
        return f"dangling '{words[-1]}'"
    if re.search(r",\s*[\w-]+$", before):
        return "list cut after an item"
    return None


def leans(tldr: str) -> bool:
    first = summary.sentences(tldr)[:1]
    return bool(first and LEANING.search(first[0]))


def shape(summaries: list[str], abstracts: list[str]) -> dict[str, object]:
    count = len(summaries) or 1
    reasons = [fragment(s, a) for s, a in zip(summaries, abstracts, strict=True)]
    lowercase = sum(1 for s in summaries if s[:1].islower())
    return {
        "papers": len(summaries),
        "fragments": sum(1 for r in reasons if r),
        "lowercase_start": lowercase,
        "lowercase_start_share": round(lowercase / count, 4),
        "leaning": sum(1 for s in summaries if leans(s)),
        "ends_with_ellipsis": sum(1 for s in summaries if s.endswith("…")),
        "over_300_chars": sum(1 for s in summaries if len(s) > summary.TLDR_MAX),
        "empty": sum(1 for s in summaries if not s),
        "mean_chars": round(sum(map(len, summaries)) / count, 1),
    }


def fragment_examples(
    summaries: list[str], papers: list[Row], hidden: set[str]
) -> list[dict[str, str]]:
    """A few fragments to read, none from the held-out labels."""
    examples: list[dict[str, str]] = []
    for tldr, paper in zip(summaries, papers, strict=True):
        reason = fragment(tldr, str(paper["abstract"]))
        if reason and str(paper["id"]) not in hidden and len(examples) < EXAMPLES:
            examples.append({"arxiv_id": str(paper["id"]), "why": reason, "tldr": tldr})
    return examples


def states(tldr: str, parts: list[str], labelled: list[int]) -> tuple[bool, bool]:
    """Whether the TL;DR states a labelled sentence: (it opens with one, or with the sentence
    right before one and then that one: the antecedent brought along for 'this quadrant';
    it opens with one)."""
    opening = main_sentence(tldr, parts)
    pieces = summary.sentences(tldr)
    then = main_sentence(" ".join(pieces[1:]), parts) if len(pieces) > 1 else -1
    opens = opening in labelled
    return opens or (then == opening + 1 and then in labelled), opens


def agreement(summarize: Summarize, labels: list[Row]) -> dict[str, object]:
    hits: dict[str, int] = {}
    totals: dict[str, int] = {}
    opening = 0
    misses = []
    summaries = [summarize(str(r["abstract"]), str(r["title"]), summary.TLDR_MAX) for r in labels]
    for row, tldr in zip(labels, summaries, strict=True):
        parts = summary.sentences(str(row["abstract"]))
        hit, opens = states(tldr, parts, row["contribution"])  # type: ignore[arg-type]
        split = str(row["split"])
        totals[split] = totals.get(split, 0) + 1
        hits[split] = hits.get(split, 0) + hit
        opening += opens
        if not hit and split == "tune":
            chosen = main_sentence(tldr, parts)
            misses.append({"arxiv_id": row["arxiv_id"], "chosen": chosen, "tldr": tldr})
    report: dict[str, object] = {
        "all": round(sum(hits.values()) / sum(totals.values()), 3),
        **{split: round(hits[split] / totals[split], 3) for split in sorted(totals)},
        "opens_with_it": round(opening / sum(totals.values()), 3),
        "labels": sum(totals.values()),
        **{f"{split}_labels": totals[split] for split in sorted(totals)},
        "shape": shape(summaries, [str(r["abstract"]) for r in labels]),
    }
    if misses:
        report["tune_misses"] = misses
    return report


def measure(
    summarize: Summarize, papers: list[Row], label_sets: dict[str, list[Row]]
) -> dict[str, object]:
    abstracts = [str(p["abstract"]) for p in papers]
    hidden = {
        str(r["arxiv_id"]) for rows in label_sets.values() for r in rows if r["split"] != "tune"
    }
    report: dict[str, object] = {
        name: agreement(summarize, rows) for name, rows in label_sets.items()
    }
    for limit in LIMITS:
        started = time.perf_counter()
        summaries = [summarize(str(p["abstract"]), str(p["title"]), limit) for p in papers]
        seconds = time.perf_counter() - started
        report[f"all_papers_at_{limit}"] = {
            **shape(summaries, abstracts),
            "fragment_examples": fragment_examples(summaries, papers, hidden),
        }
        if limit == summary.TLDR_MAX:
            report["seconds_per_1000_papers"] = round(seconds / len(papers) * 1000, 3)
    return report


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
        "--labels",
        nargs="+",
        type=Path,
        default=[ROOT / "bench/data/tldr_labels.jsonl", ROOT / "bench/data/tldr_labels_2.jsonl"],
    )
    parser.add_argument("--reference", type=Path, help="another summary.py to compare with")
    parser.add_argument("--json", action="store_true", help="print JSON (the default)")
    arguments = parser.parse_args()
    papers = [p for day in sorted(arguments.data.glob("*.jsonl")) for p in read_jsonl(day)]
    if not papers:
        parser.error(f"no papers in {arguments.data}: give the folder of the real days' JSONL")
    by_id = {str(p["id"]): p for p in papers}
    label_sets = {
        path.stem: [
            {**row, "abstract": by_id[str(row["arxiv_id"])]["abstract"]} for row in read_jsonl(path)
        ]
        for path in arguments.labels
    }
    report: dict[str, object] = {"current": measure(uncached(summary.tldr), papers, label_sets)}
    if arguments.reference:
        report["reference"] = measure(load_tldr(arguments.reference), papers, label_sets)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
