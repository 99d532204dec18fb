"""One paper across sources: a bioRxiv preprint, its later version with the journal's DOI, the
journal's table of contents, its PubMed record and an arXiv copy naming the same DOI are stored
as one row, in any order, and a chat that got the preprint is not sent the journal version."""

from __future__ import annotations

from itertools import permutations
from pathlib import Path

import pytest

from bot.core import render
from bot.core.followups import JOURNAL as JOURNAL_REVISION
from bot.core.listings import parse_listing
from bot.core.paper import Paper
from bot.core.query import FilterRules
from bot.sender import Limits, Sender
from bot.service import ingest
from bot.service.delivery import DigestSent, Postman
from bot.service.planning import Planner
from bot.store import Database, chats, deliveries, filters, library, papers
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


# A chat per filter: what the preprint matches, and what only the PubMed record brings.
WATCHERS = {
    1: "cat:biorxiv.neuroscience",
    2: 'mesh:"Grid Cells"',
    3: 'jr:"Nature Neuroscience"',
    4: "src:pubmed",
}


def watch(database: Database, clock: Clock, watchers: dict[int, str] = WATCHERS) -> None:
    with database.session() as session:
        for chat_id, source in watchers.items():
            chats.register_chat(session, chat_id=chat_id, kind="private", now=clock())
            filters.add_filter(
                session, chat_id=chat_id, source=source, canonical=source, now=clock()
            )


def ledger(database: Database) -> dict[int, list[tuple[int, int]]]:
    """Each chat's rows: (paper id, revision)."""
    with database.session() as session:
        return {
            chat.id: [(row.paper_id, row.revision) for row in rows]
            for chat in chats.all_chats(session)
            if (rows := deliveries.all_deliveries(session, chat_id=chat.id))
        }


def test_a_pubmed_record_merged_into_a_matched_preprint_reaches_the_chats_it_newly_matches(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    """The preprint matched chat 1's collection; its PubMed record brings MeSH terms, the
    journal and the source: chats 2-4 get the paper once, as new, and chat 1 nothing again.
    The same record read again (another copy of the file) brings nothing."""
    watch(database, clock)
    planner = Planner(FilterRules())
    arrive(database, clock, PREPRINT)
    planner.plan(database, now=clock())
    [(paper_id, _)] = stored(database)
    assert ledger(database) == {1: [(paper_id, 0)]}
    arrive(database, clock, PUBMED)
    report = planner.plan(database, now=clock())
    assert (report.papers, report.updates, report.again, report.deliveries) == (0, 0, 1, 3)
    assert ledger(database) == {chat_id: [(paper_id, 0)] for chat_id in WATCHERS}
    copy = tmp_path / "pubmed_again.xml"  # another file's bytes: read, merged, nothing new
    copy.write_bytes(PUBMED.read_bytes() + b"\n")
    arrive(database, clock, copy)
    assert ingest.ingest_paths(database, [PUBMED], clock=clock).files[0].status == "skipped"
    assert planner.plan(database, now=clock()).deliveries == 0
    assert ledger(database) == {chat_id: [(paper_id, 0)] for chat_id in WATCHERS}


def test_a_preprint_merged_into_a_matched_pubmed_record_reaches_the_chats_it_newly_matches(
    database: Database, clock: Clock
) -> None:
    """The other order: the PubMed record matched chats 2-4; the preprint brings its bioRxiv
    collection, and only chat 1 gets the paper then."""
    watch(database, clock)
    planner = Planner(FilterRules())
    arrive(database, clock, PUBMED)
    planner.plan(database, now=clock())
    [(paper_id, _)] = stored(database)
    assert ledger(database) == {chat_id: [(paper_id, 0)] for chat_id in (2, 3, 4)}
    arrive(database, clock, PREPRINT)
    assert planner.plan(database, now=clock()).deliveries == 1
    assert ledger(database) == {chat_id: [(paper_id, 0)] for chat_id in WATCHERS}


async def test_a_chat_naming_the_journal_by_its_abbreviation_gets_the_pubmed_record(
    database: Database, clock: Clock
) -> None:
    """PubMed's record names Nature Neuroscience "Nat Neurosci" (its ISO abbreviation): a chat
    that writes the journal so, with dots or without, is sent the paper."""
    watch(database, clock, {7: 'jr:"nat neurosci"', 8: 'jr:"Nat. Neurosci." grid'})
    arrive(database, clock, PUBMED)
    Planner(FilterRules()).plan(database, now=clock())
    [(paper_id, paper)] = stored(database)
    assert paper.journal_abbreviations == ("Nat Neurosci",)
    assert ledger(database) == {7: [(paper_id, 0)], 8: [(paper_id, 0)]}

    async def no_sleep(seconds: float) -> None:
        return None

    transport = RecordingTransport()
    sender = Sender(transport, Limits.off(), sleep=no_sleep, monotonic=lambda: 0.0)
    postman = Postman(database, sender, clock=clock, rules=FilterRules())
    with database.session() as session:
        chat = chats.get_chat(session, chat_id=7)
    assert chat is not None
    assert isinstance(await postman.digest_now(chat), DigestSent)
    assert "Grid cells map odour space" in "\n".join(transport.texts(7))


def test_the_journals_feed_then_pubmed_reaches_a_chat_naming_the_abbreviation(
    database: Database, clock: Clock
) -> None:
    """The journal's feed names no abbreviation; the PubMed record merged into the matched
    paper brings "Nat Neurosci", and the chat that follows it gets the paper then, once."""
    watch(database, clock, {3: WATCHERS[3], 7: 'jr:"nat neurosci"'})
    planner = Planner(FilterRules())
    arrive(database, clock, JOURNAL)
    planner.plan(database, now=clock())
    [(paper_id, _)] = stored(database)
    assert ledger(database) == {3: [(paper_id, 0)]}
    arrive(database, clock, PUBMED)
    assert planner.plan(database, now=clock()).deliveries == 1
    assert ledger(database) == {3: [(paper_id, 0)], 7: [(paper_id, 0)]}
    [(_, paper)] = stored(database)
    assert (paper.journal, paper.journal_abbreviations) == (
        "Nature Neuroscience",
        ("Nat Neurosci",),
    )


def test_a_merge_stored_before_a_crash_is_matched_again_by_the_next_process(
    database: Database, clock: Clock
) -> None:
    """The mark is stored with the merged record: a process that stops before planning leaves
    it to the next one, which plans the paper once for the chats it newly matches."""
    watch(database, clock)
    Planner(FilterRules()).plan(database, now=clock())
    arrive(database, clock, PREPRINT)
    Planner(FilterRules()).plan(database, now=clock())
    arrive(database, clock, PUBMED)  # ... and the process stops here
    restarted = Planner(FilterRules())
    assert restarted.plan(database, now=clock()).deliveries == 3
    assert restarted.plan(database, now=clock()).deliveries == 0
    [(paper_id, _)] = stored(database)
    assert ledger(database) == {chat_id: [(paper_id, 0)] for chat_id in WATCHERS}


def test_records_merged_one_after_the_other_are_matched_against_the_paper_as_first_matched(
    database: Database, clock: Clock
) -> None:
    """PubMed's record, then the journal's feed, both before planning: what the chats newly
    match is judged against the preprint as it was matched, not against PubMed's record."""
    watch(database, clock)
    planner = Planner(FilterRules())
    arrive(database, clock, PREPRINT)
    planner.plan(database, now=clock())
    arrive(database, clock, PUBMED, JOURNAL)
    assert planner.plan(database, now=clock()).deliveries == 3
    [(paper_id, _)] = stored(database)
    assert ledger(database) == {chat_id: [(paper_id, 0)] for chat_id in WATCHERS}


def test_a_chat_whose_row_was_pruned_is_not_sent_the_paper_again(
    database: Database, clock: Clock
) -> None:
    """A sent row is deleted after delivery.keep_days, and a journal version comes months
    after its preprint: the chat whose filter matched the preprint still does not get it."""
    watch(database, clock, {1: WATCHERS[1], 2: WATCHERS[2]})
    planner = Planner(FilterRules())
    arrive(database, clock, PREPRINT)
    planner.plan(database, now=clock())
    [(paper_id, _)] = stored(database)
    with database.session() as session:
        assert deliveries.delete_deliveries(session, chat_ids=[1], paper_ids=[paper_id]) == 1
    arrive(database, clock, PUBMED)
    assert planner.plan(database, now=clock()).deliveries == 1
    assert ledger(database) == {2: [(paper_id, 0)]}


def test_a_newer_version_with_the_journals_doi_is_an_update_to_some_and_new_to_others(
    database: Database, clock: Clock
) -> None:
    """bioRxiv's v2 names its journal version: chat 1 (updates on) got v1 and gets the update;
    chat 5, following journal papers, never had it and gets it as new; chat 6, updates on but
    matching neither version, nothing."""
    watch(database, clock, {1: WATCHERS[1], 5: "src:journal", 6: "zebrafish"})
    with database.session() as session:
        for chat_id in (1, 6):
            chats.update_chat(session, chat_id=chat_id, updates=True)
    planner = Planner(FilterRules())
    arrive(database, clock, PREPRINT)
    planner.plan(database, now=clock())
    arrive(database, clock, PUBLISHED)
    report = planner.plan(database, now=clock())
    assert (report.updates, report.deliveries) == (1, 2)
    [(paper_id, _)] = stored(database)
    assert ledger(database) == {1: [(paper_id, 0), (paper_id, 2)], 5: [(paper_id, 0)]}


def test_a_chat_that_saved_the_preprint_gets_the_journal_version_as_a_follow_up_only(
    database: Database, clock: Clock
) -> None:
    """Chat 2 saved the preprint (its filters never matched it): the PubMed record that its
    MeSH filter matches is news of a paper it has, one follow-up row, not a new paper."""
    watch(database, clock, {1: WATCHERS[1], 2: WATCHERS[2]})
    planner = Planner(FilterRules())
    arrive(database, clock, PREPRINT)
    planner.plan(database, now=clock())
    [(paper_id, _)] = stored(database)
    with database.session() as session:
        assert library.toggle_saved(session, chat_id=2, paper_id=paper_id, now=clock())
    arrive(database, clock, PUBMED)
    assert planner.plan(database, now=clock()).deliveries == 0
    assert ledger(database) == {1: [(paper_id, 0)], 2: [(paper_id, JOURNAL_REVISION)]}
