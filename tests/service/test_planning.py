"""Planning: every stored paper matched once against the filters of active chats, each filter
read by the settings' one parser."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlmodel import Session

from bot.core.matcher import AnchorKind
from bot.core.paper import Paper
from bot.core.query import FilterRules, QueryLimits
from bot.service import ingest
from bot.service.planning import Batch, Planner
from bot.store import Database, chats, deliveries, filters, papers
from bot.store.deliveries import Chunks
from tests.conftest import SEEDS, Clock


def follow(database: Database, chat_id: int, *sources: str, now: datetime) -> None:
    with database.session() as session:
        chats.register_chat(session, chat_id=chat_id, kind="private", now=now)
        for source in sources:
            filters.add_filter(session, chat_id=chat_id, source=source, canonical=source, now=now)


def test_new_papers_are_planned_once_per_chat_naming_every_filter(
    any_database: Database, clock: Clock
) -> None:
    follow(any_database, 1, '"kv cache"', "looped", now=clock())
    follow(any_database, 2, "au:Hassani", now=clock())
    follow(any_database, 3, "looped", now=clock())
    with any_database.session() as session:
        chats.deactivate_chat(session, chat_id=3, reason="blocked")
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)
    planner = Planner(FilterRules())
    report = planner.plan(any_database, now=clock())
    assert (report.papers, report.updates, report.deliveries) == (37, 0, 3)
    with any_database.session() as session:
        first = deliveries.all_deliveries(session, chat_id=1)
        titles = papers.get_papers(session, paper_ids=[r.paper_id for r in first])
        assert deliveries.all_deliveries(session, chat_id=3) == []
        assert len(deliveries.all_deliveries(session, chat_id=2)) == 1
    by_title = {titles[r.paper_id].title.split()[0]: len(r.filter_ids) for r in first}
    assert by_title == {"BeNice!": 2, "ElasticKV:": 1}
    assert planner.plan(any_database, now=clock()).papers == 0  # nothing twice


def test_papers_stored_but_not_planned_before_a_crash_are_planned_next_time(
    any_database: Database, clock: Clock
) -> None:
    follow(any_database, 1, "looped", now=clock())
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)  # the process dies here
    report = Planner(FilterRules()).plan(any_database, now=clock())  # a new process
    assert (report.papers, report.deliveries) == (37, 1)


def test_removed_filters_and_inactive_chats_leave_the_index(
    database: Database, clock: Clock
) -> None:
    follow(database, 1, "looped", "kv", now=clock())
    follow(database, 2, "mamba", now=clock())
    planner = Planner(FilterRules())
    with database.session() as session:
        planner.sync(session)
    assert len(planner) == 3
    with database.session() as session:
        chats.deactivate_chat(session, chat_id=2, reason="blocked")
        first = filters.chat_filters(session, chat_id=1)[0]
        filters.remove_filters(session, chat_id=1, filter_ids=[first.id])
        planner.sync(session)
    assert len(planner) == 1 and list(planner.owner.values()) == [1]


# The bug this parser fixes: with the limit raised, a filter that /subscribe accepted was refused
# by the planner (which parsed with the default limit of 20 terms) and silently never matched.
TWENTY_FIVE_TERMS = " OR ".join(["looped", *(f"qz{n}" for n in range(24))])


@pytest.mark.parametrize(("max_terms", "planned"), [(40, 1), (20, 0)])
def test_a_filter_is_planned_under_the_settings_limits(
    database: Database, clock: Clock, max_terms: int, planned: int
) -> None:
    follow(database, 1, TWENTY_FIVE_TERMS, now=clock())
    ingest.ingest_paths(database, [SEEDS], clock=clock)
    planner = Planner(FilterRules(QueryLimits(max_terms=max_terms)))
    assert planner.plan(database, now=clock()).deliveries == planned
    assert len(planner.refused) == 1 - planned  # refused under a lower limit: logged once, kept


def arrive(database: Database, *abstracts: str, now: datetime) -> None:
    with database.session() as session:
        papers.insert_papers(
            session,
            papers=[
                Paper(title=f"Paper {n}", abstract=text, source="test", announced=now.date())
                for n, text in enumerate(abstracts, papers.count_papers(session))
            ],
            now=now,
        )


def test_term_frequencies_are_sampled_again_as_papers_grow(
    database: Database, clock: Clock
) -> None:
    """A filter is filed under its rarest word; which word is rarer is learnt from the stored
    papers, and learnt again once they have grown by half."""
    arrive(database, *["A zebra crossing."] * 4, now=clock())
    follow(database, 1, "zebra quagga", now=clock())
    planner = Planner(FilterRules())
    planner.plan(database, now=clock())
    [filter_id] = planner.owner
    assert planner.sampled_papers == 4  # quagga never seen: the rarest
    assert planner.index.anchors(filter_id) == ((AnchorKind.TEXT_TERM, "quagga"),)
    arrive(database, "A quagga.", now=clock())  # 5 < 4 x 1.5: not yet
    planner.plan(database, now=clock())
    assert planner.sampled_papers == 4
    quaggas = ("Quaggas.", "Quagga herds.", "The quagga.", "Quagga stripes.")
    arrive(database, *quaggas, "A zebra and a quagga.", now=clock())
    report = planner.plan(database, now=clock())
    assert planner.sampled_papers == 10  # quagga in 6 of the 10 papers, zebra in 5: rarer
    assert planner.index.anchors(filter_id) == ((AnchorKind.TEXT_TERM, "zebra"),)
    assert (report.papers, report.deliveries) == (5, 1)  # the zebra and the quagga, once


def test_a_group_that_became_a_supergroup_is_planned_under_its_new_id(
    any_database: Database, clock: Clock
) -> None:
    follow(any_database, -5, "looped", now=clock())
    planner = Planner(FilterRules())
    ingest.ingest_paths(any_database, [SEEDS / "003_41440b21456fdd3f.txt"], clock=clock)
    assert planner.plan(any_database, now=clock()).deliveries == 0  # indexed under the group
    with any_database.session() as session:
        chats.move_chat(session, old_id=-5, new_id=-1005)
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)  # BeNice!, on looped models
    assert planner.plan(any_database, now=clock()).deliveries == 1
    with any_database.session() as session:
        [row] = deliveries.all_deliveries(session, chat_id=-1005)
        assert deliveries.all_deliveries(session, chat_id=-5) == []


def test_the_index_is_ready_before_the_first_listing_arrives(
    any_database: Database, clock: Clock
) -> None:
    """A planning with nothing to plan (the first inbox scan after a start) builds the index,
    so the first listing's alerts don't wait for it; a filter added later joins it then."""
    follow(any_database, 1, "looped", '"kv cache"', now=clock())
    planner = Planner(FilterRules())
    assert planner.plan(any_database, now=clock()).deliveries == 0
    assert len(planner) == 2
    follow(any_database, 2, "distill*", now=clock())
    planner.plan(any_database, now=clock())
    assert len(planner) == 3


class ChatLeavesMidway(Planner):
    """A planner during whose first batch the chat `leaving` is forgotten (/forget, from another
    session), after its filters were read and before its rows are written; with `back`, it is
    registered again at once (/stop, then /start), with a filter of its new life."""

    def __init__(self, database: Database, leaving: int, back: bool = False) -> None:
        super().__init__(FilterRules())
        self.database, self.leaving, self.back, self.batches = database, leaving, back, 0

    def _rows(
        self, session: Session, batch: Batch, earlier: dict[int, Paper] | None = None
    ) -> tuple[Chunks, list[int]]:
        self.batches += 1
        if self.batches == 1:
            with self.database.session() as other:
                chats.forget_chat(other, chat_id=self.leaving)
            if self.back:
                follow(self.database, self.leaving, "distill*", now=datetime.now(UTC))
        return super()._rows(session, batch, earlier)


def test_a_chat_forgotten_while_its_batch_is_planned_gets_no_rows_and_the_rest_do(
    any_database: Database, clock: Clock
) -> None:
    """The ledger checks a batch's chats once (it has no foreign keys): the batch that named a
    chat forgotten meanwhile is rolled back and planned again without it, once for the rest."""
    follow(any_database, 1, "looped", now=clock())
    follow(any_database, 2, "looped", '"kv cache"', now=clock())
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)
    planner = ChatLeavesMidway(any_database, leaving=1)
    report = planner.plan(any_database, now=clock())
    assert (planner.batches, report.papers, report.deliveries) == (2, 37, 2)
    with any_database.session() as session:
        assert deliveries.count_deliveries(session) == {"pending": 2}  # chat 2's, none of 1's
        assert len(deliveries.all_deliveries(session, chat_id=2)) == 2
        assert papers.unmatched_papers(session, limit=10) == []


def test_a_chat_that_stops_and_starts_again_while_its_batch_is_planned_gets_no_old_matches(
    any_database: Database, clock: Clock
) -> None:
    """/stop, then /start, while a batch is planned: the chat's id is stored again, but none of
    the filters the batch matched for it is, so its rows of the batch go (as if it had left
    before the batch), and the other chats keep theirs; the batch is not planned again."""
    follow(any_database, 2, "looped", '"kv cache"', now=clock())
    follow(any_database, 1, "looped", now=clock())  # its filter has the highest id
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)
    planner = ChatLeavesMidway(any_database, leaving=1, back=True)
    report = planner.plan(any_database, now=clock())
    assert planner.batches == 1
    with any_database.session() as session:
        assert deliveries.all_deliveries(session, chat_id=1) == []
        assert len(deliveries.all_deliveries(session, chat_id=2)) == 2
        assert report.deliveries == 2
        assert papers.unmatched_papers(session, limit=10) == []


def test_a_filter_removed_and_another_added_between_two_plannings_is_matched_by_its_own_words(
    any_database: Database, clock: Clock
) -> None:
    """The planner knows a filter by its id: a new filter never gets the id of one deleted (on
    SQLite it got the newest deleted one's, and was matched with that filter's words)."""
    follow(any_database, 1, "looped", now=clock())
    planner = Planner(FilterRules())
    planner.plan(any_database, now=clock())
    with any_database.session() as session:
        (old,) = filters.chat_filters(session, chat_id=1)
        filters.remove_filters(session, chat_id=1, filter_ids=[old.id])
        new = filters.add_filter(session, chat_id=1, source="zzqx", canonical="zzqx", now=clock())
    assert new.id != old.id
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)
    assert planner.plan(any_database, now=clock()).deliveries == 0


class FilterRemovedMidway(Planner):
    """A planner during whose first batch the filter `removed` is removed (/unsubscribe, from
    another session), after the index was synced."""

    def __init__(self, database: Database, chat_id: int, removed: str) -> None:
        super().__init__(FilterRules())
        self.database, self.chat_id, self.removed = database, chat_id, removed

    def _rows(
        self, session: Session, batch: Batch, earlier: dict[int, Paper] | None = None
    ) -> tuple[Chunks, list[int]]:
        with self.database.session() as other:
            ids = [f.id for f in filters.chat_filters(other, chat_id=self.chat_id)]
            gone = [
                f.id
                for f in filters.chat_filters(other, chat_id=self.chat_id)
                if f.source == self.removed
            ]
            filters.remove_filters(other, chat_id=self.chat_id, filter_ids=gone)
        assert gone and len(ids) > len(gone)
        return super()._rows(session, batch, earlier)


def test_a_filter_removed_while_its_batch_is_planned_leaves_the_chats_other_matches(
    any_database: Database, clock: Clock
) -> None:
    """/unsubscribe while a batch is planned: a chat that kept another of its matched filters
    keeps its rows, the removed filter still named (its papers matched before it went)."""
    follow(any_database, 1, "looped", '"kv cache"', now=clock())
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)
    report = FilterRemovedMidway(any_database, 1, "looped").plan(any_database, now=clock())
    assert report.deliveries == 2
    with any_database.session() as session:
        assert len(deliveries.all_deliveries(session, chat_id=1)) == 2


def test_an_update_left_out_for_a_chat_does_not_shift_the_other_rows_revisions(
    database: Database, clock: Clock
) -> None:
    """A batch of a known paper's new version and a new paper: the update goes only to the chat
    that follows updates, and every other row keeps revision 0 (the revisions were once read
    by position before the rows were masked and sorted: a new paper went out as "Updated")."""
    follow(database, 2, "sparse", now=clock())
    follow(database, 1, "sparse", now=clock())
    with database.session() as session:
        chats.update_chat(session, chat_id=2, updates=True)
    old = Paper(title="Sparse attention at length", abstract="Sparse heads.", source="t",
                arxiv_id="2701.00001", version=1)  # fmt: skip
    planner = Planner(FilterRules())
    with database.session() as session:
        ingest.store_papers(session, [old], now=clock())
    planner.plan(database, now=clock())
    new = Paper(title="Sparse codes in the cortex", abstract="Sparse codes.", source="t",
                arxiv_id="2701.00002", version=1)  # fmt: skip
    with database.session() as session:
        ingest.store_papers(session, [old.with_changes(version=2), new], now=clock())
    planner.plan(database, now=clock())
    with database.session() as session:
        stored = papers.papers_by_arxiv_id(session, arxiv_ids=["2701.00001", "2701.00002"])
        ids = {paper_id: arxiv_id[-1] for arxiv_id, (paper_id, _) in stored.items()}
        planned = {
            chat_id: sorted((ids[r.paper_id], r.revision) for r in rows)
            for chat_id in (1, 2)
            if (rows := deliveries.all_deliveries(session, chat_id=chat_id))
        }
    assert planned == {1: [("1", 0), ("2", 0)], 2: [("1", 0), ("1", 2), ("2", 0)]}
