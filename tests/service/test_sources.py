"""One paper across sources: a bioRxiv preprint, its later version with the journal's DOI, the
journal's table of contents, its PubMed record and an arXiv copy naming the same DOI are stored
as one row, in any order, and a chat that got the preprint is not sent the journal version."""

from __future__ import annotations

from itertools import permutations
from pathlib import Path

import pytest

from bot.core import render
from bot.core.listings import parse_listing
from bot.core.paper import Paper
from bot.core.query import FilterRules
from bot.sender import Limits, Sender
from bot.service import ingest
from bot.service.delivery import DigestSent, Postman
from bot.service.planning import Planner
from bot.store import Database, chats, deliveries, filters, papers
from tests.conftest import Clock
from tests.transports import RecordingTransport

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
    # the card names the journal as the journal writes itself, not as PubMed does
    assert paper.journal == "Nature Neuroscience"
    assert ">Nature Neuroscience</a>" in render.published(paper)


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
        (paper_id, "Nature Neuroscience")  # as the journal writes itself, not as PubMed does
    ]


def test_a_journal_record_first_records_no_publication(database: Database, clock: Clock) -> None:
    """Only a stored preprint that gains its journal version is one a note can tell about."""
    since = clock()
    arrive(database, clock, PUBMED, PREPRINT)
    with database.session() as session:
        assert papers.papers_published_since(session, since=since) == []


LISTINGS = CASES.parent / "listings"


async def test_a_biologists_digest_brings_the_samples_papers_with_their_links(
    database: Database, clock: Clock
) -> None:
    """A chat following a bioRxiv collection, a MeSH term and an author as PubMed writes the
    name gets one digest of the real samples' papers, each linked where it lives."""
    follows = ("cat:biorxiv.neuroscience", 'mesh:"Independent Living"', 'au:"Reeder B"')
    with database.session() as session:
        chats.register_chat(session, chat_id=1, kind="private", now=clock())
        for source in follows:
            filters.add_filter(session, chat_id=1, source=source, canonical=source, now=clock())
    arrive(database, clock, LISTINGS / "biorxiv_api_details.json")
    arrive(database, clock, LISTINGS / "pubmed_efetch_2019.xml")
    Planner(FilterRules()).plan(database, now=clock())
    transport = RecordingTransport()

    async def no_sleep(seconds: float) -> None:
        return None

    sender = Sender(transport, Limits.off(), sleep=no_sleep, monotonic=lambda: 0.0)
    postman = Postman(database, sender, clock=clock, rules=FilterRules())
    with database.session() as session:
        chat = chats.get_chat(session, chat_id=1)
    assert chat is not None
    sent = await postman.digest_now(chat)
    text = "\n".join(transport.texts(1))
    neuroscience = [
        p for p in parse_listing(
            (LISTINGS / "biorxiv_api_details.json").read_bytes(), source="b"
        ).papers if "biorxiv.neuroscience" in p.categories
    ]  # fmt: skip
    pubmed = parse_listing((LISTINGS / "pubmed_efetch_2019.xml").read_bytes(), source="p").papers
    living = [p for p in pubmed if "Independent Living" in p.mesh]
    reeder = [p for p in pubmed if "Blaine Reeder" in p.authors]
    expected = {p.link for p in (*neuroscience, *living, *reeder)}
    assert neuroscience and living and reeder
    assert isinstance(sent, DigestSent) and sent.papers == len(expected)
    for link in expected:
        assert f'href="{link}"' in text
    assert "preprint (bioRxiv, v1)" in text
    for paper in (*living, *reeder):
        if paper.doi and paper.journal:
            assert f'<a href="https://doi.org/{paper.doi}">' in text
