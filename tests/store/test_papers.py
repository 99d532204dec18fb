"""Paper queries on SQLite and PostgreSQL: stored and read back whole, found by any identity key,
updated, counted, the recent announcement days, and the papers planning has not matched yet."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import update
from sqlmodel import Session, col

from bot.core.identity import Identity, filter_view
from bot.core.paper import AnnounceType, Paper
from bot.store import Database, papers
from bot.store.tables import PaperTable

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)
FULL = Paper(
    title="Looped transformers share their KV cache across iterations",
    abstract="We show that looped transformers can share one KV cache across all of their loops, "
    "at no cost in accuracy.",
    source="000_seed.txt",
    arxiv_id="2610.00001",
    version=2,
    doi="10.1000/looped",
    announce_type=AnnounceType.REPLACE,
    authors=("Ada Lovelace", "Alan Turing"),
    more_authors=3,
    categories=("cs.LG", "cs.CL"),
    announced=date(2026, 10, 22),
    link="https://arxiv.org/abs/2610.00001",
    journal_ref="J. Loops 1 (2026)",
    comments="12 pages",
)


def paper(n: int, announced: date | None = None) -> Paper:
    return Paper(
        title=f"Paper number {n} on something rather specific",
        abstract=f"Abstract {n}.",
        source="t",
        arxiv_id=f"2609.{n:05d}",
        announced=announced,
    )


def insert(session: Session, *batch: Paper, now: datetime = NOW) -> list[int]:
    return papers.insert_papers(session, papers=list(batch), now=now)


def test_a_paper_is_stored_and_read_back_whole(any_database: Database) -> None:
    with any_database.session() as session:
        ids = insert(session, paper(1), FULL, paper(2))
        assert len(set(ids)) == 3 and ids == sorted(ids)  # in the order given
        assert papers.get_papers(session, paper_ids=ids) == {
            ids[0]: paper(1), ids[1]: FULL, ids[2]: paper(2),
        }  # fmt: skip
        assert papers.get_papers(session, paper_ids=[ids[1], 10_000]) == {ids[1]: FULL}
        assert papers.all_papers(session) == [paper(1), FULL, paper(2)]
        assert papers.insert_papers(session, papers=[], now=NOW) == []


@pytest.mark.parametrize(
    "incoming",
    [
        Paper(title="Other", abstract="Other.", source="t", arxiv_id="2610.00001"),
        Paper(title="Other", abstract="Other.", source="t", doi="10.1000/looped"),
        Paper(title=FULL.title.upper(), abstract="Other.", source="t"),  # the title's key
        Paper(title="Other", abstract=FULL.abstract, source="t"),
    ],
    ids=["arxiv id", "doi", "title", "abstract"],
)
def test_known_papers_are_found_by_any_identity_key(
    any_database: Database, incoming: Paper
) -> None:
    with any_database.session() as session:
        [full_id, _] = insert(session, FULL, paper(2))
        found = papers.find_known_papers(session, identities=[Identity.of(incoming)])
        assert found == [(full_id, FULL)]


def test_an_unknown_paper_finds_nothing(any_database: Database) -> None:
    with any_database.session() as session:
        insert(session, FULL)
        stranger = Paper(title="Short", abstract="Short.", source="t")  # too short to identify
        assert papers.find_known_papers(session, identities=[Identity.of(stranger)]) == []
        assert papers.find_known_papers(session, identities=[]) == []


def test_update_paper_replaces_the_record(any_database: Database) -> None:
    with any_database.session() as session:
        [paper_id] = insert(session, paper(1))
        papers.update_paper(session, paper_id=paper_id, paper=FULL, now=NOW)
        assert papers.get_papers(session, paper_ids=[paper_id]) == {paper_id: FULL}
        assert papers.count_papers(session) == 1
        with pytest.raises(LookupError, match="^paper 10000 is not stored$"):
            papers.update_paper(session, paper_id=10_000, paper=FULL, now=NOW)


def test_counts_and_the_last_announcement(any_database: Database) -> None:
    with any_database.session() as session:
        assert (papers.count_papers(session), papers.last_announcement(session)) == (0, None)
        insert(session, paper(1, date(2026, 10, 20)), paper(2), now=NOW)
        insert(session, paper(3, date(2026, 10, 22)), now=NOW + timedelta(hours=1))
        insert(session, paper(4, date(2026, 10, 21)), now=NOW + timedelta(hours=2))
        assert papers.count_papers(session) == 4
        assert papers.last_announcement(session) == date(2026, 10, 22)
        assert papers.count_papers_since(session, since=NOW - timedelta(seconds=1)) == 4
        assert papers.count_papers_since(session, since=NOW) == 2  # stored after, not at
        assert papers.count_papers_since(session, since=NOW + timedelta(hours=2)) == 0


@pytest.mark.parametrize(
    ("days", "expected"),
    [
        (1, [2, 5]),  # the last day, and the paper without a date
        (2, [2, 3, 5]),
        (3, [1, 2, 3, 4, 5]),
        (9, [1, 2, 3, 4, 5]),
    ],
)
def test_recent_papers_are_those_of_the_last_announcement_days(
    any_database: Database, days: int, expected: list[int]
) -> None:
    # announcement days, not the wall clock: a week's gap between them counts for nothing
    announced = {
        1: date(2026, 10, 1), 2: date(2026, 10, 16), 3: date(2026, 10, 9),
        4: date(2026, 10, 1), 5: None,
    }  # fmt: skip
    with any_database.session() as session:
        ids = insert(session, *(paper(n, day) for n, day in announced.items()))
        recent = papers.recent_papers(session, announcement_days=days)
    number = {paper_id: n for n, paper_id in enumerate(ids, 1)}
    assert [number[paper_id] for paper_id, _ in recent] == expected
    assert [p for _, p in recent] == [paper(n, announced[n]) for n in expected]


def test_recent_papers_without_any_date(any_database: Database) -> None:
    with any_database.session() as session:
        ids = insert(session, paper(1))
        assert papers.recent_papers(session, announcement_days=7) == [(ids[0], paper(1))]


@pytest.mark.parametrize(
    ("day", "after", "up_to", "expected"),
    [
        (date(2026, 10, 9), 0, None, [2, 3, 5]),  # that day or later, and the undated
        (date(2026, 10, 9), 2, None, [3, 5]),  # stored after the second
        (date(2026, 10, 9), 2, 4, [3]),  # ... and up to the fourth
        (None, 0, None, [5]),  # no day: the undated only
    ],
)
def test_papers_announced_since_a_day_and_stored_after_an_id(
    any_database: Database, day: date | None, after: int, up_to: int | None, expected: list[int]
) -> None:
    announced = [date(2026, 10, 1), date(2026, 10, 16), date(2026, 10, 9), date(2026, 10, 1), None]
    with any_database.session() as session:
        ids = insert(session, *(paper(n, day) for n, day in enumerate(announced, 1)))
        assert papers.recent_days(session, announcement_days=2) == [announced[1], announced[2]]
        assert papers.last_paper_id(session) == ids[-1]
        found = papers.papers_announced_since(
            session,
            day=day,
            after_id=ids[after - 1] if after else 0,
            up_to_id=ids[up_to - 1] if up_to else None,
        )
    assert found == [(ids[n - 1], paper(n, announced[n - 1])) for n in expected]


def test_update_stamps_are_those_of_papers_updated_since(any_database: Database) -> None:
    later = NOW + timedelta(hours=1)
    with any_database.session() as session:
        assert papers.last_paper_id(session) == 0
        ids = insert(session, paper(1), paper(2), paper(3), paper(4))
        papers.update_paper(session, paper_id=ids[0], paper=paper(1), now=NOW)
        papers.update_paper(session, paper_id=ids[2], paper=paper(3), now=later)
        papers.update_paper(session, paper_id=ids[3], paper=paper(4), now=later)
        every = papers.update_stamps(session, first_id=ids[0], last_id=ids[3], since=None)
        since = papers.update_stamps(session, first_id=ids[0], last_id=ids[2], since=later)
    assert every == {ids[0]: NOW, ids[2]: later, ids[3]: later}
    assert since == {ids[2]: later}  # at `since` or after, of ids up to the third


def test_papers_are_unmatched_until_marked_and_again_for_a_newer_version(
    any_database: Database,
) -> None:
    with any_database.session() as session:
        first, second, third = insert(session, paper(1), paper(2), paper(3))
        unmatched = papers.unmatched_papers(session, limit=10)
        assert unmatched == [(first, paper(1), False), (second, paper(2), False),
                             (third, paper(3), False)]  # fmt: skip
        assert [row[0] for row in papers.unmatched_papers(session, limit=2)] == [first, second]
        papers.mark_matched(session, paper_ids=[first, second], now=NOW)
        assert papers.unmatched_papers(session, limit=10) == [(third, paper(3), False)]
        # a newer version of a matched paper comes back as an update, of an unmatched one not
        newer = paper(1).with_changes(version=2, abstract="Abstract 1, revised.")
        papers.update_paper(session, paper_id=first, paper=newer, now=NOW, newer=True)
        papers.update_paper(
            session, paper_id=third, paper=paper(3).with_changes(version=2), now=NOW, newer=True
        )
        assert papers.unmatched_papers(session, limit=10) == [
            (first, newer, True), (third, paper(3).with_changes(version=2), False),
        ]  # fmt: skip
        # a better record that is not a newer version leaves a matched paper matched
        papers.update_paper(session, paper_id=second, paper=paper(2), now=NOW)
        papers.mark_matched(session, paper_ids=[first, third], now=NOW)
        assert papers.unmatched_papers(session, limit=10) == []


def test_a_matched_paper_given_another_record_waits_as_its_filters_first_saw_it(
    any_database: Database,
) -> None:
    """`matched_as` marks a matched paper to be matched again, keeping the record as matched
    (the first, when several records merge before planning); an unmatched paper is matched
    whole anyway; marking it matched ends the wait."""
    with any_database.session() as session:
        first, second = insert(session, paper(1), paper(2))
        papers.update_paper(session, paper_id=second, paper=paper(2), now=NOW, matched_as=paper(2))
        assert papers.rematch_records(session, paper_ids=[first, second]) == {}
        papers.mark_matched(session, paper_ids=[first, second], now=NOW)
        pubmed = paper(1).with_changes(pmid="41999001", mesh=("Grid Cells",), journal="Cell")
        papers.update_paper(session, paper_id=first, paper=pubmed, now=NOW, matched_as=paper(1))
        later = pubmed.with_changes(journal="Cell Reports")
        papers.update_paper(session, paper_id=first, paper=later, now=NOW, matched_as=pubmed)
        assert papers.rematch_records(session, paper_ids=[first, second]) == {
            first: filter_view(paper(1))
        }
        assert papers.unmatched_papers(session, limit=10) == [(first, later, False)]
        papers.mark_matched(session, paper_ids=[first], now=NOW)
        assert papers.unmatched_papers(session, limit=10) == []
        assert papers.rematch_records(session, paper_ids=[first]) == {}


PUBMED = Paper(
    title="RSK2 phosphorylates T-bet to attenuate colon cancer metastasis and growth",
    abstract="T-bet is a transcription factor.",
    source="pubmed.xml",
    doi="10.1073/pnas.1710756114",
    pmid="29133416",
    pmcid="PMC5715759",
    journal="Proceedings of the National Academy of Sciences of the United States of America",
    journal_abbreviations=("Proc. Natl. Acad. Sci. U.S.A.", "Proc Natl Acad Sci"),
    mesh=("Animals", "Mice"),
)


def test_a_journals_abbreviations_are_stored_and_kept_for_matching_again(
    any_database: Database,
) -> None:
    """Read back in their order, and kept with the record as its filters saw it (jr: reads
    them); a record kept so by an older paperbot, without them, reads as having none."""
    with any_database.session() as session:
        [first] = insert(session, PUBMED)
        assert papers.get_papers(session, paper_ids=[first]) == {first: PUBMED}
        papers.mark_matched(session, paper_ids=[first], now=NOW)
        feed = PUBMED.with_changes(journal="PNAS", journal_abbreviations=())
        papers.update_paper(session, paper_id=first, paper=feed, now=NOW, matched_as=PUBMED)
        assert papers.get_papers(session, paper_ids=[first]) == {first: feed}
        assert papers.rematch_records(session, paper_ids=[first]) == {first: filter_view(PUBMED)}
        older = {  # as 0022's paperbot wrote it
            "title": PUBMED.title, "abstract": PUBMED.abstract, "arxiv_id": None,
            "doi": PUBMED.doi, "authors": [], "categories": [], "preprint_doi": None,
            "server": None, "pmid": PUBMED.pmid, "journal": PUBMED.journal,
            "mesh": ["Animals", "Mice"],
        }  # fmt: skip
        session.execute(
            update(PaperTable).where(col(PaperTable.id) == first).values(rematch_from=older)
        )
        assert papers.rematch_records(session, paper_ids=[first]) == {
            first: filter_view(PUBMED.with_changes(journal_abbreviations=()))
        }


def test_a_replacement_of_a_paper_never_seen_is_stored_but_not_counted_as_new(
    any_database: Database,
) -> None:
    with any_database.session() as session:
        insert(session, paper(1), FULL, replace(paper(2), announce_type=AnnounceType.REPLACE_CROSS))
        assert papers.count_papers(session) == 3
        assert papers.count_papers_since(session, since=NOW - timedelta(seconds=1)) == 1


def test_papers_are_found_by_arxiv_id_past_one_query_of_ids(any_database: Database) -> None:
    """A library imported names thousands of ids: they are asked in chunks, all found."""
    with any_database.session() as session:
        ids = insert(session, *(paper(n) for n in range(1, 1_001)))
        wanted = [f"2609.{n:05d}" for n in range(1, 1_201)]  # 200 never stored
        found = papers.papers_by_arxiv_id(session, arxiv_ids=wanted)
    assert len(found) == 1_000
    assert [found[f"2609.{n:05d}"][0] for n in (1, 1_000)] == [ids[0], ids[-1]]
