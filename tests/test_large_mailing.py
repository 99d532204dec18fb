"""A mailing of over a thousand entries, in the layout of the real one (wrapped titles and authors,
affiliations, optional keys, cross-lists, replacements), ingests without losing an entry, and its
papers are recognised when a feed or a numbered listing brings them again."""

from __future__ import annotations

from pathlib import Path

from bot.core.listings import parse_listing
from bot.service import ingest
from bot.service.status import store_status
from bot.store import Database

DASHES = "-" * 78


def entry(n: int, *, replaced: bool = False, cross: bool = False) -> str:
    arxiv_id = f"2601.{10000 + n}"
    marker = " (*cross-listing*)" if cross else ""
    dated = (
        "replaced with revised version Mon, 19 Jan 2026 09:43:26 GMT   (398kb)"
        if replaced
        else "Date: Tue, 20 Jan 2026 16:30:02 GMT   (80kb)"
    )
    abstract = (
        ""
        if replaced
        else (
            f"\\\\\n  We study problem number {n} with Sch\\\"on's method and show that\n"
            f"$\\alpha_{n}$ "
            "converges; the rate is optimal for every instance we tried, which we confirm in\n"
            "experiments on three benchmarks.\n"
        )
    )
    return (
        f"\\\\\narXiv:{arxiv_id}{marker}\n{dated}\n\n"
        f"Title: Study {n} of Optimal Rates for a Very Long Title That Wraps Onto a Second\n"
        f"  Line in the Mailing\n"
        f"Authors: Ann Author (1), Bo Brand\\~ao (2), Cy Writer ((1) Univ A, (2) Univ\n  B)\n"
        f"Categories: cs.LG stat.ML\n"
        + (f"Comments: 12 pages, {n % 9} figures\n" if n % 2 else "")
        + (f"Journal-ref: J. Ex. {n} (2026)\n" if n % 5 == 0 else "")
        + (f"DOI: 10.1234/ex.{n}\n" if n % 7 == 0 else "")
        + abstract
        + f"\\\\ ( https://arxiv.org/abs/{arxiv_id} ,  80kb)\n{DASHES}\n"
    )


def mailing(new: int, replaced: int) -> str:
    head = f"{DASHES}\n{DASHES}\n Submissions to:\nMachine Learning\n received from  Fri 16 Jan 26"
    head += f" 19:00:00 GMT  to  Tue 20 Jan 26 19:00:00 GMT\n{DASHES}\n{DASHES}\n"
    body = "".join(entry(n, cross=n % 4 == 0) for n in range(new))
    replacements = "".join(entry(new + n, replaced=True, cross=n % 3 == 0) for n in range(replaced))
    return head + body + "%%--%%--" * 9 + "\n" + DASHES + "\n" + replacements + "%%%---" * 13 + "\n"


def test_a_mailing_of_1200_entries_loses_none(database: Database, tmp_path: Path) -> None:
    path = tmp_path / "mailing.txt"
    path.write_text(mailing(1100, 150))
    parsed = parse_listing(path.read_bytes(), source="mailing.txt")
    assert (len(parsed.papers), parsed.problems) == (1250, [])
    assert sum(p.announce_type.value == "cross" for p in parsed.papers) == 275
    assert sum(p.announce_type.is_update for p in parsed.papers) == 150
    first = parsed.papers[0]
    assert first.title == (
        "Study 0 of Optimal Rates for a Very Long Title That Wraps Onto a Second "
        "Line in the Mailing"
    )
    assert first.authors == ("Ann Author", "Bo Brandão", "Cy Writer")
    assert "Schön's method" in first.abstract and "$α_0$" in first.abstract

    report = ingest.ingest_paths(database, [path])
    assert report.totals() == {
        "files": 1,
        "entries": 1250,
        "new": 1250,
        "duplicates": 0,
        "failed": 0,
    }

    # The same papers from a feed (with ids) and a numbered listing (titles only) are known.
    items = "".join(
        f"<item><title>Study {n} of Optimal Rates for a Very Long Title That Wraps Onto a Second "
        f"Line in the Mailing</title><link>https://arxiv.org/abs/2601.{10000 + n}</link>"
        f"<description>arXiv:2601.{10000 + n}v1 Announce Type: new \nAbstract: x</description>"
        f"<guid>oai:arXiv.org:2601.{10000 + n}v1</guid></item>"
        for n in range(0, 1100, 10)
    )
    feed = tmp_path / "feed.xml"
    feed.write_text(
        f"<?xml version='1.0'?><rss version='2.0'><channel><title>t</title>{items}</channel></rss>"
    )
    listing = tmp_path / "listing.txt"
    listing.write_text(
        "".join(
            f"#{n % 100:02d}Jan 20, 2026\ncs.LG\nStudy {n} of Optimal Rates for a Very Long Title "
            f"That Wraps Onto a Second Line in the Mailing\nAnn Author and 2 more\nAbstract {n}.\n"
            for n in range(5, 1100, 10)
        )
    )
    again = ingest.ingest_paths(database, [feed, listing])
    assert [(f.entries, f.new, f.duplicates) for f in again.files] == [(110, 0, 110), (110, 0, 110)]
    assert store_status(database).papers == 1250
