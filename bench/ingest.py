"""Parse and store throughput for every listing format, on generated listings of N entries.

    python bench/ingest.py --json [--entries 10000]

Entries are built from the bundled seeds' real titles, authors and abstracts (TeX included), made
unique per entry. For the XML formats feedparser's own parse of the same bytes is timed too, so the
overhead of paperbot's mapping above feedparser is visible; for the text formats the reference is
a plain `str.split` of the file into lines.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import feedparser

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core.listings import parse_listing  # noqa: E402
from bot.service.ingest import store_papers  # noqa: E402
from bot.store import Database  # noqa: E402


@dataclass
class Sample:
    title: str
    authors: str
    category: str
    abstract: str


def seed_samples() -> list[Sample]:
    samples: list[Sample] = []
    for seed in sorted((ROOT / "seeds").iterdir()):
        lines = seed.read_text().split("\n")
        if lines[0].startswith("#"):
            for i in range(0, len(lines) - 4, 5):
                samples.append(Sample(lines[i + 2], lines[i + 3], lines[i + 1], lines[i + 4]))
        else:
            for n, block in enumerate(seed.read_text().split("\n\n")[1:]):
                if block.strip():
                    samples.append(
                        Sample(
                            f"Untitled study {n}", "Ann Author, Bo Writer", "cs.LG", block.strip()
                        )
                    )
    return samples


def entries(n: int) -> list[tuple[str, Sample]]:
    samples = seed_samples()
    return [
        (f"26{10 + i // 90000:02d}.{i % 90000 + 10000:05d}", samples[i % len(samples)])
        for i in range(n)
    ]


def unique(sample: Sample, arxiv_id: str) -> str:
    return f"{sample.title} (part {arxiv_id})"


def numbered(n: int) -> str:
    return "".join(
        f"#{i % 100:02d}Oct 22, 2026\n{s.category}\n{unique(s, a)}\n{s.authors}\n{s.abstract} {a}\n"
        for i, (a, s) in enumerate(entries(n))
    )


def abstracts(n: int) -> str:
    return "Papers\n\n" + "".join(f"{s.abstract} Entry {a}.\n\n" for a, s in entries(n))


def email(n: int) -> str:
    head = ("-" * 78 + "\n") * 2 + " Submissions to:\nMachine Learning\n received from  Wed 21 Oct"
    head += " 26 18:00:00 GMT  to  Thu 22 Oct 26 18:00:00 GMT\n" + ("-" * 78 + "\n") * 2
    body = []
    for a, s in entries(n):
        wrapped = "\n".join(s.abstract[i : i + 78] for i in range(0, len(s.abstract), 78))
        body.append(
            f"\\\\\narXiv:{a}\nDate: Thu, 22 Oct 2026 10:00:00 GMT   (80kb)\n\n"
            f"Title: {unique(s, a)}\nAuthors: {s.authors}\nCategories: {s.category}\n"
            f"\\\\\n  {wrapped}\n\\\\ ( https://arxiv.org/abs/{a} ,  80kb)\n" + "-" * 78
        )
    return head + "\n".join(body) + "\n" + "%%%---" * 13 + "\n"


def rss(n: int) -> str:
    items = "".join(
        f"<item><title>{html.escape(unique(s, a))}</title><link>https://arxiv.org/abs/{a}</link>"
        f"<description>arXiv:{a}v1 Announce Type: new \nAbstract: {html.escape(s.abstract)}"
        f'</description><guid isPermaLink="false">oai:arXiv.org:{a}v1</guid>'
        f"<category>{s.category}</category><arxiv:announce_type>new</arxiv:announce_type>"
        f"<dc:creator>{html.escape(s.authors)}</dc:creator></item>\n"
        for a, s in entries(n)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        "<channel><title>cs.LG updates on arXiv.org</title>"
        f"<pubDate>Thu, 22 Oct 2026 00:00:00 -0400</pubDate>{items}</channel></rss>\n"
    )


def rdf(n: int) -> str:
    items = "".join(
        f'<item rdf:about="http://arxiv.org/abs/{a}"><title>{html.escape(unique(s, a))}. '
        f"(arXiv:{a}v1 [{s.category}])</title><link>http://arxiv.org/abs/{a}</link>"
        f"<description>{html.escape('<p>' + html.escape(s.abstract) + '</p>')}</description>"
        f"<dc:creator>{html.escape(s.authors)}</dc:creator></item>\n"
        for a, s in entries(n)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rdf:RDF '
        'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="http://arxiv.org/">'
        "<title>cs updates on arXiv.org</title><dc:date>2026-10-22T20:30:00-05:00</dc:date>"
        f"</channel>{items}</rdf:RDF>\n"
    )


def api(n: int) -> str:
    items = "".join(
        f"<entry><id>http://arxiv.org/abs/{a}v1</id><published>2026-10-21T10:00:00Z</published>"
        f"<updated>2026-10-21T10:00:00Z</updated><title>{html.escape(unique(s, a))}</title>"
        f"<summary>{html.escape(s.abstract)}</summary>"
        + "".join(
            f"<author><name>{html.escape(x.strip())}</name></author>" for x in s.authors.split(",")
        )
        + f'<arxiv:primary_category term="{s.category}"/><category term="{s.category}"/></entry>\n'
        for a, s in entries(n)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom"><id>http://arxiv.org/api/bench</id>'
        f"<title>ArXiv Query</title>{items}</feed>\n"
    )


def generic(n: int) -> str:
    items = "".join(
        f"<item><title>{html.escape(unique(s, a))}</title><link>https://journal.example/{a}</link>"
        f"<description>{html.escape('<p>' + html.escape(s.abstract) + '</p>')}</description>"
        f"<pubDate>Mon, 19 Oct 2026 08:00:00 GMT</pubDate></item>\n"
        for a, s in entries(n)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
        f"<title>Journal</title><link>https://journal.example/</link>{items}</channel></rss>\n"
    )


GENERATORS: dict[str, tuple[Callable[[int], str], bool]] = {
    "numbered": (numbered, False),
    "abstracts": (abstracts, False),
    "arxiv-email": (email, False),
    "arxiv-rss": (rss, True),
    "arxiv-rdf": (rdf, True),
    "arxiv-api": (api, True),
    "feed": (generic, True),
}


def timed(work: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def measure(name: str, n: int, workdir: Path) -> dict[str, object]:
    generate, xml = GENERATORS[name]
    data = generate(n).encode()
    parse_seconds, parsed = timed(lambda: parse_listing(data, source=name))
    papers = parsed.papers  # type: ignore[attr-defined]
    assert parsed.format == name, parsed.format  # type: ignore[attr-defined]
    database = Database.open(f"sqlite:///{workdir / (name + '.db')}")
    now = datetime.now(UTC)

    def store() -> tuple[list[int], list[int], int]:
        with database.session() as session:
            return store_papers(session, papers, now=now)

    store_seconds, (new_ids, _, duplicates) = timed(store)  # type: ignore[misc]
    database.close()
    figures: dict[str, object] = {
        "format": name,
        "bytes": len(data),
        "entries": len(papers),
        "stored_new": len(new_ids),
        "duplicates": duplicates,
        "parse_seconds": round(parse_seconds, 3),
        "parse_entries_per_second": round(len(papers) / parse_seconds),
        "store_seconds": round(store_seconds, 3),
        "store_entries_per_second": round(len(papers) / store_seconds),
    }
    if xml:
        reference, _ = timed(lambda: feedparser.parse(data))
        figures["reference"] = "feedparser.parse of the same bytes"
        figures["reference_seconds"] = round(reference, 3)
        figures["overhead_above_feedparser"] = round(parse_seconds / reference, 2)
    else:
        reference, _ = timed(lambda: data.decode().split("\n"))
        figures["reference"] = "bytes.decode().split of the same file"
        figures["reference_seconds"] = round(reference, 4)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--formats", nargs="*", default=list(GENERATORS))
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        results = [measure(name, args.entries, Path(workdir)) for name in args.formats]
    if args.json:
        print(json.dumps({"entries_per_listing": args.entries, "formats": results}, indent=2))
    else:
        for r in results:
            print(
                f"{r['format']:12} parse {r['parse_entries_per_second']:>7}/s  "
                f"store {r['store_entries_per_second']:>6}/s  reference {r['reference_seconds']}s"
            )


if __name__ == "__main__":
    main()
