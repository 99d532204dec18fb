"""One paper across sources: a bioRxiv preprint, its later version with the journal's DOI, the
journal's table of contents, its PubMed record and an arXiv copy naming the same DOI are stored
as one row, in any order, and a chat that got the preprint is not sent the journal version."""

from __future__ import annotations

from itertools import permutations
from pathlib import Path

import pytest

from bot.core.listings import parse_listing
from bot.core.paper import Paper
from bot.core.query import FilterRules
from bot.service import ingest
from bot.service.planning import Planner
from bot.store import Database, chats, deliveries, filters, papers
from tests.conftest import Clock

CASES = Path(__file__).parent.parent / "data" / "sources"
PREPRINT = CASES / "biorxiv_preprint.json"  # v1, no journal version yet
PUBLISHED = CASES / "biorxiv_published.json"  # v2, `published` names the journal's DOI
PUBMED = CASES / "pubmed_journal.xml"  # the journal version's record, DOI in ArticleIdList
JOURNAL = CASES / "journal_toc.xml"  # Nature Neuroscience's feed, prism:doi
ARXIV = CASES / "arxiv_with_doi.xml"  # an arXiv copy whose arxiv:doi is the journal's
SOURCES = (PREPRINT, PUBLISHED, PUBMED, JOURNAL, ARXIV)
IDS = ("arxiv_id", "doi", "preprint_doi", "server", "pmid", "pmcid", "journal", "mesh")


def parsed(path: Path) -> Paper:
    [paper] = parse_listing(path.read_bytes(), source=path.name).papers
    return paper


def stored(database: Database) -> list[tuple[int, Paper]]:
    with database.session() as session:
        return papers.latest_papers(session, limit=10)


def arrive(database: Database, clock: Clock, *paths: Path) -> None:
    for path in paths:
        clock.advance(minutes=1)
        report = ingest.ingest_paths(database, [path], clock=clock)
        assert report.files[0].status == "ingested", report.files[0]


@pytest.mark.parametrize(("first", "second"), list(permutations(SOURCES, 2)), ids=lambda p: p.stem)
def test_a_paper_from_any_two_sources_is_one_row_with_the_ids_of_both(
    database: Database, clock: Clock, first: Path, second: Path
) -> None:
    arrive(database, clock, first, second)
    [(_, paper)] = stored(database)
    for record in (parsed(first), parsed(second)):
        for name in IDS:
            if name == "journal" and record.journal:  # PubMed writes it in sentence case
                assert (paper.journal or "").casefold() == record.journal.casefold()
            elif value := getattr(record, name):
                assert getattr(paper, name) == value, (name, record.source)


@pytest.mark.parametrize("order", [SOURCES, SOURCES[::-1], (PUBMED, ARXIV, PREPRINT, JOURNAL)])
def test_all_five_records_are_one_paper_in_any_order(
    database: Database, clock: Clock, order: tuple[Path, ...]
) -> None:
    arrive(database, clock, *order)
    [(_, paper)] = stored(database)
    assert (paper.arxiv_id, paper.preprint_doi, paper.pmid, paper.doi) == (
        "2603.04567",
        "10.1101/2026.03.01.612345",
        "41999001",
        "10.1038/s41593-026-01999-1",
    )
    assert paper.sources == ("arxiv", "biorxiv", "pubmed", "journal")
    assert "Grid Cells" in paper.mesh and paper.version == 2


def test_a_different_preprint_with_the_same_title_stays_apart(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    """Two preprint DOIs are two papers, however alike their titles (an editorial reposted)."""
    other = tmp_path / "other.json"
    other.write_text(PREPRINT.read_text().replace("2026.03.01.612345", "2026.04.11.700001"))
    arrive(database, clock, PREPRINT, other)
    assert len(stored(database)) == 2


def test_a_chat_that_got_the_preprint_is_not_sent_its_journal_version(
    database: Database, clock: Clock
) -> None:
    planner = Planner(FilterRules())
    with database.session() as session:
        chats.register_chat(session, chat_id=1, kind="private", now=clock())
        filters.add_filter(
            session,
            chat_id=1,
            source="cat:biorxiv.neuroscience",
            canonical="cat:biorxiv.neuroscience",
            now=clock(),
        )
    arrive(database, clock, PREPRINT)
    planner.plan(database, now=clock())
    [(paper_id, _)] = stored(database)
    since = clock()
    arrive(database, clock, PUBMED, JOURNAL)
    planner.plan(database, now=clock())
    with database.session() as session:
        rows = deliveries.all_deliveries(session, chat_id=1)
        published = papers.papers_published_since(session, since=since)
    assert [row.paper_id for row in rows] == [paper_id]  # the preprint's row, nothing new
    assert [(found, paper.journal) for found, paper in published] == [
        (paper_id, "Nature neuroscience")
    ]


def test_a_journal_record_first_records_no_publication(database: Database, clock: Clock) -> None:
    """Only a stored preprint that gains its journal version is one a note can tell about."""
    since = clock()
    arrive(database, clock, PUBMED, PREPRINT)
    with database.session() as session:
        assert papers.papers_published_since(session, since=since) == []
