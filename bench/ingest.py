"""Parse and store throughput for every listing format, on generated listings of N entries, and
parse throughput on real files of the other sources.

    python bench/ingest.py --json [--entries 10000] [--samples ../shared/samples/sources]

Entries are built from the bundled seeds' real titles, authors and abstracts (TeX included), made
unique per entry. For the XML formats feedparser's own parse of the same bytes is timed too, so the
overhead of paperbot's mapping above feedparser is visible; for the text formats the reference is
a plain `str.split` of the file into lines.

`--samples DIR` times each real file in DIR that paperbot reads (bioRxiv/medRxiv API JSON, bioRxiv
subject RSS, PubMed XML, journal table-of-contents feeds; ../shared/samples/sources/SOURCES.md
describes them), read where it lies: entries a second for paperbot's parser and for a plain
reference on the same bytes: feedparser.parse for a feed; for the bioRxiv API's JSON and PubMed's
XML, which feedparser does not read, json.loads and xml.etree.ElementTree.fromstring alone.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import feedparser

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core.listings import ListingError, parse_listing  # noqa: E402
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


def surname_first(authors: str) -> list[tuple[str, str]]:
    """'Ann Author, Bo Writer' -> [('Author', 'Ann'), ('Writer', 'Bo')]."""
    names = [name.strip().rsplit(" ", 1) for name in authors.split(",") if name.strip()]
    return [(name[-1], name[0] if len(name) > 1 else "") for name in names]


def biorxiv_api(n: int) -> str:
    records = [
        {
            "doi": f"10.1101/2026.10.22.{500000 + i}",
            "title": unique(s, a),
            "authors": "; ".join(
                f"{last}, {given[:1]}." for last, given in surname_first(s.authors)
            ),
            "author_corresponding": s.authors.split(",")[0],
            "author_corresponding_institution": "University of Somewhere",
            "date": "2026-10-22",
            "version": "1",
            "type": "new results",
            "license": "cc_by",
            "category": "neuroscience",
            "abstract": s.abstract,
            "published": "NA",
            "server": "bioRxiv",
        }
        for i, (a, s) in enumerate(entries(n))
    ]
    header = {"status": "ok", "interval": "2026-10-22:2026-10-22", "cursor": 0, "count": n}
    return json.dumps({"messages": [{**header, "total": str(n)}], "collection": records})


def pubmed_xml(n: int) -> str:
    def author(last: str, first: str) -> str:
        return (
            f"<Author><LastName>{html.escape(last)}</LastName><ForeName>{html.escape(first)}"
            f"</ForeName><Initials>{first[:1]}</Initials></Author>"
        )

    def article(i: int, a: str, s: Sample) -> str:
        half = len(s.abstract) // 2
        return (
            f'<PubmedArticle><MedlineCitation Status="MEDLINE"><PMID Version="1">{41000000 + i}'
            "</PMID><Article><Journal><JournalIssue><PubDate><Year>2026</Year><Month>Oct</Month>"
            "</PubDate></JournalIssue><Title>Journal of Benchmarks</Title></Journal>"
            f"<ArticleTitle>{html.escape(unique(s, a))}</ArticleTitle><Abstract>"
            f'<AbstractText Label="BACKGROUND">{html.escape(s.abstract[:half])}</AbstractText>'
            f'<AbstractText Label="RESULTS">{html.escape(s.abstract[half:])}</AbstractText>'
            "</Abstract><AuthorList>"
            + "".join(author(last, first) for last, first in surname_first(s.authors))
            + "</AuthorList></Article><MeshHeadingList><MeshHeading><DescriptorName>Neurons"
            "</DescriptorName></MeshHeading></MeshHeadingList></MedlineCitation><PubmedData>"
            f'<ArticleIdList><ArticleId IdType="pubmed">{41000000 + i}</ArticleId>'
            f'<ArticleId IdType="doi">10.5555/bench.{i}</ArticleId></ArticleIdList>'
            "</PubmedData></PubmedArticle>\n"
        )

    articles = "".join(article(i, a, s) for i, (a, s) in enumerate(entries(n)))
    return f'<?xml version="1.0"?>\n<PubmedArticleSet>\n{articles}</PubmedArticleSet>\n'


# Each format's generator, and the plain reference its parse is set beside: feedparser for the
# XML feeds, the standard library's parse alone for the formats feedparser does not read, the
# file split into lines for the text formats.
GENERATORS: dict[str, tuple[Callable[[int], str], str]] = {
    "numbered": (numbered, "lines"),
    "abstracts": (abstracts, "lines"),
    "arxiv-email": (email, "lines"),
    "arxiv-rss": (rss, "feedparser"),
    "arxiv-rdf": (rdf, "feedparser"),
    "arxiv-api": (api, "feedparser"),
    "feed": (generic, "feedparser"),
    "biorxiv-api": (biorxiv_api, "json"),
    "pubmed-xml": (pubmed_xml, "etree"),
}


# The plain reference for the formats feedparser does not read: the standard library's parse of
# the same bytes alone. Every other XML listing is set beside feedparser, which paperbot reads it
# with.
REFERENCES: dict[str, tuple[str, Callable[[bytes], object]]] = {
    "biorxiv-api": ("json.loads", json.loads),
    "pubmed-xml": ("xml.etree.ElementTree.fromstring", ElementTree.fromstring),
}
FEEDPARSER = ("feedparser.parse", feedparser.parse)
# The options bot/core/listings/feeds.py passes: feeds are cleaned by paperbot's own text code.
FEEDPARSER_AS_CALLED = {"sanitize_html": False, "resolve_relative_uris": False}


def timed(work: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def measure(name: str, n: int, workdir: Path) -> dict[str, object]:
    generate, kind = GENERATORS[name]
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
    if kind == "feedparser":
        reference, _ = timed(lambda: feedparser.parse(data))
        figures["reference"] = "feedparser.parse of the same bytes"
        figures["reference_seconds"] = round(reference, 3)
        figures["overhead_above_feedparser"] = round(parse_seconds / reference, 2)
    elif kind in ("json", "etree"):
        named, parse = REFERENCES[name]
        reference, _ = timed(lambda: parse(data))
        figures["reference"] = f"{named} of the same bytes (feedparser does not read {name})"
        figures["reference_seconds"] = round(reference, 3)
        figures["reference_entries_per_second"] = round(len(papers) / reference)
        figures["overhead_above_reference"] = round(parse_seconds / reference, 2)
    else:
        reference, _ = timed(lambda: data.decode().split("\n"))
        figures["reference"] = "bytes.decode().split of the same file"
        figures["reference_seconds"] = round(reference, 4)
    return figures


MIN_SECONDS = 1.0  # each file is parsed again until this much time is spent, at least 5 times


def best_of(work: Callable[[], object]) -> float:
    """The fastest of repeated runs: the files are small, and the cores shared."""
    times: list[float] = []
    while len(times) < 5 or sum(times) < MIN_SECONDS:
        times.append(timed(work)[0])
    return min(times)


def measure_sample(path: Path) -> dict[str, object] | None:
    """Parse figures for one real file; None for a file paperbot does not read as a listing."""
    data = path.read_bytes()
    try:
        parsed = parse_listing(data, source=path.name)
    except ListingError:
        return None
    seconds = best_of(lambda: parse_listing(data, source=path.name))
    reference, parse = REFERENCES.get(parsed.format, FEEDPARSER)
    reference_seconds = best_of(lambda: parse(data))
    count = len(parsed.papers)
    figures: dict[str, object] = {
        "file": path.name,
        "format": parsed.format,
        "bytes": len(data),
        "entries": count,
        "parse_entries_per_second": round(count / seconds),
        "reference": reference,
        "reference_entries_per_second": round(count / reference_seconds),
        "overhead_above_reference": round(seconds / reference_seconds, 2),
    }
    if parse is feedparser.parse:  # and as paperbot calls it, without its HTML clean-up
        called = best_of(lambda: feedparser.parse(data, **FEEDPARSER_AS_CALLED))
        figures["feedparser_as_called_entries_per_second"] = round(count / called)
    return figures


def measure_samples(directory: Path) -> list[dict[str, object]]:
    found = (measure_sample(path) for path in sorted(directory.iterdir()) if path.is_file())
    return [figures for figures in found if figures]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--formats", nargs="*", default=list(GENERATORS))
    parser.add_argument("--samples", type=Path, help="a directory of real files to time too")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        results = [measure(name, args.entries, Path(workdir)) for name in args.formats]
    samples = measure_samples(args.samples) if args.samples else []
    if args.json:
        document = {"entries_per_listing": args.entries, "data": "generated", "formats": results}
        if args.samples:
            document["samples"] = {"data": f"real files in {args.samples}", "files": samples}
        print(json.dumps(document, indent=2))
        return
    for r in results:
        print(
            f"{r['format']:12} parse {r['parse_entries_per_second']:>7}/s  "
            f"store {r['store_entries_per_second']:>6}/s  reference {r['reference_seconds']}s"
        )
    for r in samples:
        print(
            f"{r['file']:56} {r['format']:12} {r['entries']:>3} entries  "
            f"parse {r['parse_entries_per_second']:>6}/s  "
            f"{r['reference']} {r['reference_entries_per_second']:>7}/s"
        )


if __name__ == "__main__":
    main()
