"""/preview and /subscribe's examples: the recent papers' index answers as matching every paper of
the last announcement days would (the loop it replaced, kept here as the reference), after
papers are stored, updated and leave the window, and to threads asking at once."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bot.core.matcher import matches
from bot.core.paper import Paper
from bot.core.query import Node, parse_query
from bot.service import ingest
from bot.service.preview import RECENT_DAYS, RecentMatches, RecentPapers, recent_matches
from bot.store import Database, papers
from tests.conftest import Clock
from tests.core.test_matcher import seed_papers
from tests.core.test_paper_index import FILTERS
from tests.corpus import mixed_day, topic_papers
from tests.threads import race

FIRST_DAY = date(2026, 10, 1)
# Filters on the corpus's topics, besides the matcher's own of every shape (FILTERS).
TOPICAL = [
    '"kv cache"', "graph*", "ti:graph", 'au:"Author kv 1"', "au:author", "protein -docking",
    '"protein language models"', "cache OR graph", "cat:cs.LG kv", '"kv cache" -quantized',
    "abs:latency", "ti:kv-cach*", "we -(kv OR graph OR vision)", "method",
]  # fmt: skip


def plain_recent_matches(database: Database, query: Node) -> dict[int, Paper]:
    """The reference: every paper of the last announcement days read and matched."""
    with database.session() as session:
        recent = papers.recent_papers(session, announcement_days=RECENT_DAYS)
    return {paper_id: paper for paper_id, paper in recent if matches(query, paper)}


def store(database: Database, clock: Clock, batch: list[Paper]) -> None:
    clock.advance(minutes=1)
    with database.session() as session:
        ingest.store_papers(session, batch, now=clock())


def store_days(database: Database, clock: Clock, first: int, count: int) -> None:
    """Days of the corpus, `first` days after FIRST_DAY on, 8 papers a day."""
    for number in range(first, first + count):
        day = FIRST_DAY + timedelta(days=number)
        store(database, clock, mixed_day(day, 2, first_id=100 * number, seed=number))


def assert_agrees(recent: RecentPapers, database: Database, sources: list[str]) -> None:
    with database.session() as session:
        held = dict(papers.recent_papers(session, announcement_days=RECENT_DAYS))
    assert recent.index().papers() == held
    for source in sources:
        query = parse_query(source)
        assert recent.index().matching(query) == plain_recent_matches(database, query), source


def test_recent_matches_agree_with_matching_every_recent_paper(
    any_database: Database, clock: Clock
) -> None:
    """The seed papers spread over the days too, for the matcher's filters of every shape."""
    days = RECENT_DAYS + 2  # two more than the window
    seeds = [p.with_changes(announced=FIRST_DAY + timedelta(days=n % days))
             for n, p in enumerate(seed_papers())]  # fmt: skip
    store(any_database, clock, seeds)
    store_days(any_database, clock, 0, days)
    recent = RecentPapers(any_database)
    assert_agrees(recent, any_database, FILTERS + TOPICAL)
    for source in ("kv", "transformer"):  # examples with headlines derived from the abstract
        found = list(plain_recent_matches(any_database, parse_query(source)).values())
        derived = frozenset(p.title for p in found[:3] if p.title_derived)
        assert derived and recent_matches(recent, parse_query(source)) == RecentMatches(
            len(found), [p.title for p in found[:3]], derived=derived
        )


def test_papers_stored_after_the_index_was_made_are_found(
    any_database: Database, clock: Clock
) -> None:
    store_days(any_database, clock, 0, RECENT_DAYS)
    recent = RecentPapers(any_database)
    before = recent.index()
    assert_agrees(recent, any_database, TOPICAL)
    last_day = FIRST_DAY + timedelta(days=RECENT_DAYS - 1)
    store(any_database, clock, topic_papers("kv", 3, first_id=900, day=last_day))  # the same day
    store(any_database, clock, topic_papers("kv", 2, first_id=950, day=date(2026, 1, 1)))  # old
    assert_agrees(recent, any_database, TOPICAL)
    assert len(recent.index()) == len(before) + 3
    kv = parse_query('"kv cache"')
    assert len(before.matching(kv)) < len(recent.index().matching(kv))  # an index is a value


def test_a_day_leaving_the_window_takes_its_papers(any_database: Database, clock: Clock) -> None:
    store_days(any_database, clock, 0, RECENT_DAYS)
    recent = RecentPapers(any_database)
    assert recent.index().start == FIRST_DAY
    store_days(any_database, clock, RECENT_DAYS, 2)
    index = recent.index()
    assert index.start == FIRST_DAY + timedelta(days=2)
    assert {p.announced for p in index.papers().values()} == {
        FIRST_DAY + timedelta(days=n) for n in range(2, RECENT_DAYS + 2)
    }
    assert_agrees(recent, any_database, TOPICAL)


def test_a_newer_version_is_matched_by_its_new_text(any_database: Database, clock: Clock) -> None:
    store_days(any_database, clock, 0, 2)
    recent = RecentPapers(any_database)
    first = topic_papers("kv", 1, first_id=0, day=FIRST_DAY)[0]
    assert recent_matches(recent, parse_query("ti:sourdough")).count == 0
    store(any_database, clock, [first.with_changes(version=2, title="Sourdough and KV caches")])
    assert recent_matches(recent, parse_query("ti:sourdough")) == RecentMatches(
        1, ["Sourdough and KV caches"]
    )
    # a second version stored at the same instant as the first, of another paper
    clock.advance(minutes=-1)
    second = topic_papers("graph", 1, first_id=2, day=FIRST_DAY)[0]
    store(any_database, clock, [second.with_changes(version=2, title="Sourdough graphs")])
    assert recent_matches(recent, parse_query("ti:sourdough")).count == 2
    assert_agrees(recent, any_database, TOPICAL + ["ti:sourdough", "sourdough -graph"])


def test_undated_papers_are_recent_until_they_get_a_date(database: Database, clock: Clock) -> None:
    undated = topic_papers("graph", 2, first_id=500, day=FIRST_DAY)
    store(database, clock, [p.with_changes(announced=None) for p in undated])
    recent = RecentPapers(database)
    assert recent_matches(recent, parse_query("graph")).count == 2
    store_days(database, clock, 0, RECENT_DAYS + 1)
    assert_agrees(recent, database, TOPICAL)
    store(database, clock, [undated[0].with_changes(version=2)])  # dated: the first day, gone
    assert_agrees(recent, database, TOPICAL)


@pytest.mark.parametrize("stored_meanwhile", [False, True])
def test_threads_asking_at_once_get_the_same_answers(
    database: Database, clock: Clock, stored_meanwhile: bool
) -> None:
    """Two threads ask for every filter, over and over: the first questions race to make the
    index (or, with a day stored meanwhile, to bring it up to date) and the later ones read it
    while the other thread brings it up to date again."""
    store_days(database, clock, 0, RECENT_DAYS)
    recent = RecentPapers(database)
    if stored_meanwhile:
        recent.index()
        store_days(database, clock, RECENT_DAYS, 1)
    queries = [parse_query(source) for source in TOPICAL]
    expected = [plain_recent_matches(database, query) for query in queries]

    def agrees(number: int) -> bool:
        return recent.index().matching(queries[number]) == expected[number]

    assert race(agrees, len(queries), 5) == []
