"""Matching throughput of the indexed matcher against the plain reference matcher.

    python bench/match.py --filters 1000000 --papers 2000 --json
    python bench/match.py --write-filters /tmp/realistic.txt --filters 1000000
    python bench/match.py --filters-file /tmp/realistic.txt --json \\
        --listing ../shared/data/arxiv-days-2025/2025-05-2[012].jsonl

Two populations. Generated (the default): sparse, about 200 matches per paper at a million
filters. Realistic (`--filters-file` and `--listing`): real filters or ones written by
`--write-filters` (bench/day.py's FilterMaker: the shapes people write, topics drawn from real
titles by a Zipf law, so popular topics are followed by many people in the same words), over real
listing files or days of ../shared/data/arxiv-days-2025 (JSONL); dense, thousands of matches per
paper. `matches_per_second` is what both are compared by.

Generated papers are the bundled seeds and samples, repeated and varied: every content word may
be swapped for one of its variants (`model` -> `qxmodel`), drawn from a Zipf law, so the generated
corpus has a long-tailed vocabulary like arXiv's instead of the few thousand words of the seeds.
Generated filters are drawn from the same vocabulary in the shapes people write: single words,
two- and three-word phrases taken from the papers' own text, AND of two or three parts, OR
groups, a negative part, field prefixes (ti:, abs:, au:), prefixes with `*`, and a category with
a word.

The reference is the plain matcher (tests/reference_matcher.py: one filter at a time, straight
from the query tree) timed on a sample of the papers against every filter and scaled linearly.
With real listings, the term frequencies that anchor the filters come from the listed papers
themselves (the bot takes them from the papers it stored, the day's included).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.digest import read_day  # noqa: E402
from bot.core.analysis import fold_word  # noqa: E402
from bot.core.listings import parse_listing  # noqa: E402
from bot.core.matcher import FilterIndex, term_frequencies  # noqa: E402
from bot.core.matcher.document import Document  # noqa: E402
from bot.core.matcher.index import Ids  # noqa: E402
from bot.core.paper import Paper  # noqa: E402
from bot.core.query import InvalidQuery, canonical, parse_query  # noqa: E402
from bot.memory import prefer_huge_pages  # noqa: E402
from tests import reference_matcher  # noqa: E402

STOPWORDS = set(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "in",
        "on",
        "for",
        "to",
        "with",
        "by",
        "from",
        "as",
        "at",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "this",
        "that",
        "these",
        "those",
        "we",
        "our",
        "their",
        "its",
        "it",
        "which",
        "while",
        "can",
        "not",
        "but",
        "also",
        "such",
        "than",
        "then",
        "thus",
        "into",
        "over",
        "under",
        "between",
        "both",
        "each",
        "more",
        "most",
        "other",
        "some",
        "only",
        "via",
        "using",
        "based",
        "show",
        "shows",
        "use",
        "uses",
        "used",
        "new",
        "two",
        "one",
        "three",
        "has",
        "have",
        "had",
        "however",
        "whether",
        "when",
        "where",
        "what",
        "how",
        "does",
        "do",
    ]
)
LETTERS = "abcdefghijklmnopqrstuvwxyz"
VARIANT_MARKS = [a + b for a in LETTERS for b in LETTERS] + [
    a + b + c for a in LETTERS for b in LETTERS for c in LETTERS
]  # aa .. zzz


def base_papers() -> list[Paper]:
    papers: list[Paper] = []
    for folder in (ROOT / "seeds", ROOT.parent / "shared" / "samples", ROOT / "tests" / "data"):
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.suffix in (".txt", ".xml") and ".expected" not in path.name:
                try:
                    papers += parse_listing(path.read_bytes(), source=path.name).papers
                except ValueError:
                    continue
    return [p for p in papers if len(p.abstract) > 200]


class Vocabulary:
    def __init__(self, rng: random.Random, variants: int) -> None:
        self.rng = rng
        # Zipf-like weights: variant k is ~1/k as common; the plain word about as common as the
        # first variant, so common words stay common without every filter naming them.
        self.weights = [1.0] + [1.0 / k for k in range(1, variants + 1)]
        self.choices = [""] + VARIANT_MARKS[:variants]

    def vary(self, word: str) -> str:
        if word.casefold() in STOPWORDS or not word.isalpha() or len(word) < 3:
            return word
        return self.rng.choices(self.choices, self.weights)[0] + word


def generate_papers(count: int, vocabulary: Vocabulary, bases: list[Paper]) -> list[Paper]:
    papers = []
    for i in range(count):
        base = bases[i % len(bases)]
        papers.append(
            base.with_changes(
                title=" ".join(vocabulary.vary(w) for w in base.title.split()),
                abstract=" ".join(vocabulary.vary(w) for w in base.abstract.split()),
                authors=tuple(
                    " ".join(vocabulary.vary(part) for part in name.split())
                    for name in base.authors
                ),
            )
        )
    return papers


def content_words(text: str) -> list[str]:
    return [
        w
        for w in (fold_word(x) for x in text.replace("-", " ").split())
        if w.isalpha() and len(w) > 2 and w not in STOPWORDS
    ]


class FilterMaker:
    """Filters from the distinct vocabulary (words, surnames, two- and three-word sequences) of a
    separate generated corpus: people follow specific terms, and most distinct terms are rare, as
    in a real arXiv vocabulary. Drawing from running text instead would make every filter name
    the commonest words."""

    def __init__(self, rng: random.Random, papers: list[Paper]) -> None:
        self.rng = rng
        texts = [content_words(p.title + " " + p.abstract) for p in papers]
        self.vocabulary = sorted({w for text in texts for w in text})
        self.sequences = {
            size: sorted({" ".join(t[i : i + size]) for t in texts for i in range(len(t) - size)})
            for size in (2, 3)
        }
        self.surnames = sorted(
            {name.split()[-1] for p in papers for name in p.authors if name.split()}
        )
        self.categories = sorted({c for p in papers for c in p.categories}) or ["cs.LG"]
        self.shapes = [
            (self.word, 15),
            (lambda: self.phrase(2), 15),
            (lambda: self.phrase(3), 5),
            (lambda: " ".join(self.word() for _ in range(2)), 15),
            (lambda: " ".join(self.word() for _ in range(3)), 10),
            (lambda: f"({self.word()} OR {self.word()}) {self.word()}", 10),
            (lambda: f"{self.word()} -{self.word()}", 10),
            (lambda: f"ti:{self.word()}", 3),
            (lambda: f"abs:{self.phrase(2)}", 2),
            (lambda: f"au:{self.rng.choice(self.surnames)}", 3),
            (self.prefix, 7),
            (lambda: f"cat:{self.rng.choice(self.categories)} {self.word()}", 5),
        ]
        self.makers = [shape for shape, _ in self.shapes]
        self.weights = [weight for _, weight in self.shapes]

    def word(self) -> str:
        return self.rng.choice(self.vocabulary)

    def phrase(self, size: int) -> str:
        return '"' + self.rng.choice(self.sequences[size]) + '"'

    def prefix(self) -> str:
        word = self.word()
        return word[: max(4, len(word) - 1)] + "*"

    def make(self) -> str:
        return self.rng.choices(self.makers, self.weights)[0]()


def calibration_seconds() -> float:
    """A fixed pure-Python loop, best of three: this VM's speed drifts by up to a factor of two
    from minute to minute, and this figure says how fast the machine was during the run."""
    best = float("inf")
    for _ in range(3):
        start, total = time.perf_counter(), 0
        for number in range(2_000_000):
            total += number
        best = min(best, time.perf_counter() - start)
    return round(best, 3)


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


# -- realistic populations: real listings, and filters from a file ---------------------------


def listed_papers(paths: list[Path]) -> list[Paper]:
    """The papers of listing files (any format parse_listing reads) and of real days in JSONL (as
    ../shared/data/arxiv-days-2025 holds them), each paper once (by arXiv id, else title)."""
    found: dict[str, Paper] = {}
    for path in paths:
        if path.suffix == ".jsonl":
            papers = read_day(path)
        else:
            papers = parse_listing(path.read_bytes(), source=path.name).papers
        for paper in papers:
            found.setdefault(paper.arxiv_id or paper.title_key, paper)
    return list(found.values())


def read_filter_file(path: Path) -> list[str]:
    """One filter a line (blank lines and # comments skipped), as /import reads them: a line the
    parser refuses is reported on stderr with its number and the parser's reason, and left out."""
    kept: list[str] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        source = line.strip()
        if not source or source.startswith("#"):
            continue
        try:
            parse_query(source)
        except InvalidQuery as error:
            print(f"{path}: line {number}: {error}: {source}", file=sys.stderr)
            continue
        kept.append(source)
    return kept


def filters_from_file(path: Path, count: int | None) -> list[str]:
    """The filters of a file (see read_filter_file); the first `count` if given."""
    sources = read_filter_file(path)
    if count is not None and count > len(sources):
        raise SystemExit(f"--filters {count}: {path} holds {len(sources)} filters")
    return sources[:count]


def write_filters(path: Path, count: int, args: argparse.Namespace) -> None:
    """`count` filters written as bench/day.py makes them (its FilterMaker, topics from the real
    days' titles by a Zipf law), dealt out to chats of ten, each chat's distinct."""
    from bench.day import FilterMaker as RealisticFilters  # (imports bench.match: not at the top)
    from bench.day import generated_filters, real_papers

    maker = RealisticFilters(
        real_papers(args.data), random.Random(args.seed), args.zipf_exponent, args.zipf_offset
    )
    per_chat = 10
    chats = generated_filters(maker, -(-count // per_chat), per_chat)
    sources = [source for chat in chats for source in chat][:count]
    path.write_text("".join(source + "\n" for source in sources))
    distinct = len({canonical(parse_query(source)) for source in sources})
    print(f"{path}: {len(sources)} filters, {distinct} distinct", file=sys.stderr)


def population(args: argparse.Namespace) -> tuple[list[Paper], dict[str, float], list[str]]:
    """The papers to match, the term frequencies to anchor with, and the filters."""
    rng = random.Random(args.seed)
    vocabulary = Vocabulary(rng, args.variants)
    if args.listing:
        papers = listed_papers(args.listing)
        frequency = term_frequencies(papers)
    else:
        papers = generate_papers(args.papers, vocabulary, base_papers())
    if args.filters_file:
        sources = filters_from_file(args.filters_file, args.filters)
    if args.listing and args.filters_file:
        return papers, frequency, sources
    # Yesterday's papers: the filters' vocabulary, and the term frequencies the index uses to
    # anchor each filter on its rarest part (the bot takes them from the papers it stored).
    yesterday = generate_papers(args.vocabulary_papers, vocabulary, base_papers())
    if not args.listing:
        frequency = term_frequencies(yesterday)
    if not args.filters_file:
        maker = FilterMaker(rng, yesterday)
        sources = [maker.make() for _ in range(args.filters or 100_000)]
    return papers, frequency, sources


# -- the run -----------------------------------------------------------------------------------


def match_all(index: FilterIndex, papers: list[Paper]) -> list[Ids]:
    """Each paper's matches as the bot keeps them while planning: a numpy array (a million
    realistic filters bring 40 million matches over two days; as Python lists they took 1.6 GB
    of the peak, which the bot never holds)."""
    return [index.match_ids(Document(paper)) for paper in papers]


def reference(
    papers: list[Paper], sources: list[str], results: list[Ids], evaluations: int
) -> dict[str, Any]:
    """The plain matcher on a sample (papers x filters, at most `evaluations` pairs), its time
    scaled linearly to all papers and all filters, and whether the index found the same. None
    of it for no evaluations."""
    if evaluations <= 0:
        return {"reference_seconds": None, "agree_on_sample": None}
    paper_sample = max(1, min(len(papers), evaluations // len(sources)))
    filter_sample = min(len(sources), evaluations // paper_sample)
    nodes = [parse_query(s) for s in sources[:filter_sample]]
    start = time.perf_counter()
    reference_pairs = [
        (p, f)
        for p, paper in enumerate(papers[:paper_sample])
        for f, node in enumerate(nodes)
        if reference_matcher.matches(node, paper)
    ]
    sample_seconds = time.perf_counter() - start
    scale = (len(papers) / paper_sample) * (len(sources) / filter_sample)
    indexed_pairs = [
        (p, f)
        for p, hits in enumerate(results[:paper_sample])
        for f in hits.tolist()
        if f < filter_sample
    ]
    return {
        "reference_seconds": round(sample_seconds * scale, 1),
        "reference_matches_per_second": round(len(reference_pairs) / sample_seconds),
        "reference_sample": f"first {paper_sample} of {len(papers)} papers against the first "
        f"{filter_sample} of {len(sources)} filters, scaled by {scale:.0f}",
        "agree_on_sample": reference_pairs == indexed_pairs,
        "sample_matches": len(reference_pairs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--filters",
        type=int,
        help="how many filters (generated: default 100,000; from a file: the first N, else all)",
    )
    parser.add_argument("--papers", type=int, default=2_000, help="generated papers")
    parser.add_argument("--variants", type=int, default=10_000, help="variants per content word")
    parser.add_argument(
        "--filters-file", type=Path, metavar="F", help="the filters, one a line (# comments)"
    )
    parser.add_argument(
        "--listing",
        type=Path,
        nargs="+",
        metavar="PATH",
        help="listing files or JSONL days to match, instead of generated papers",
    )
    parser.add_argument(
        "--write-filters",
        type=Path,
        metavar="F",
        help="write --filters realistic filters (bench/day.py's) to F, and stop",
    )
    parser.add_argument("--data", type=Path, help="the real days --write-filters draws from")
    parser.add_argument("--zipf-exponent", type=float, default=1.0, help="as bench/day.py")
    parser.add_argument("--zipf-offset", type=float, default=50.0, help="as bench/day.py")
    parser.add_argument(
        "--reference-evaluations",
        type=int,
        default=100_000,
        help="filter x paper evaluations the reference sample makes (0: no reference)",
    )
    parser.add_argument(
        "--vocabulary-papers",
        type=int,
        default=3_000,
        help="size of the separate corpus the generated filters' vocabulary comes from",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-huge-pages", action="store_true", help="leave the heap in the kernel's small pages"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    if args.write_filters:
        args.data = args.data or ROOT.parent / "shared" / "data" / "arxiv-days-2025"
        write_filters(args.write_filters, args.filters or 100_000, args)
        return

    papers, frequency, sources = population(args)
    gc.collect()
    rss_before = peak_rss_mb()

    gc.disable()  # as a long-running service would after warm-up; collection is not the subject
    start = time.perf_counter()
    index = FilterIndex(frequency)
    for number, source in enumerate(sources):
        index.add(number, parse_query(source))
    index.restock()  # as the planner does once it has loaded the filters
    build_seconds = time.perf_counter() - start
    gc.enable()
    gc.collect()
    gc.freeze()  # the index is long-lived: keep it out of the collector's way, as the bot does
    start = time.perf_counter()
    huge_pages = prefer_huge_pages() if not args.no_huge_pages else 0  # as the bot does, too
    huge_pages_seconds = time.perf_counter() - start

    start, cpu_start = time.perf_counter(), time.process_time()
    results = match_all(index, papers)
    match_seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    # Again, with the word-analysis memo warm: a running bot has seen most words before, while
    # the generated variants make nearly every paper bring dozens of words never seen.
    start, cpu_start = time.perf_counter(), time.process_time()
    match_all(index, papers)
    warm_seconds = time.perf_counter() - start
    warm_cpu_seconds = time.process_time() - cpu_start
    matches = sum(len(hits) for hits in results)
    peak = peak_rss_mb()
    checked = reference(papers, sources, results, args.reference_evaluations)

    figures = {
        "calibration_seconds": calibration_seconds(),
        "filters": len(sources),
        "distinct_filters": len({canonical(parse_query(s)) for s in sources}),
        "papers": len(papers),
        "build_seconds": round(build_seconds, 2),
        "huge_pages_mb": huge_pages >> 20,
        "huge_pages_seconds": round(huge_pages_seconds, 2),
        "seconds": round(match_seconds, 3),
        "match_seconds": round(match_seconds, 3),
        "match_seconds_warm": round(warm_seconds, 3),
        # CPU time of this process: on a shared machine, what other work takes drops out
        "match_cpu_seconds": round(cpu_seconds, 3),
        "match_cpu_seconds_warm": round(warm_cpu_seconds, 3),
        "papers_per_second": round(len(papers) / match_seconds),
        "matches": matches,
        "matches_per_paper": round(matches / len(papers), 1),
        "matches_per_second": round(matches / match_seconds),
        "matches_per_second_warm": round(matches / warm_seconds),
        "matches_per_cpu_second": round(matches / cpu_seconds),
        "peak_rss_mb": peak,
        "rss_before_index_mb": rss_before,
        **checked,
        "speedup": round(checked["reference_seconds"] / match_seconds, 1)
        if checked["reference_seconds"]
        else None,
        "data": {
            "papers": ", ".join(map(str, args.listing)) if args.listing else "generated",
            "filters": str(args.filters_file) if args.filters_file else "generated",
        },
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:24} {value}")


if __name__ == "__main__":
    main()
