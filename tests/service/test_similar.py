"""'More like this' filters with a real database and real models: saved from seeds, matched by
the planner into the ledger (that topic only, each paper once), refused with a reason, and
rebuilt from their seeds when the vocabulary is refitted."""

from __future__ import annotations

from datetime import date

from bot.core.query import FilterRules
from bot.core.relevance import SimilarTo
from bot.service import ingest
from bot.service.planning import Planner
from bot.service.ranking import Ranker
from bot.service.similar import NotStored, Similar
from bot.service.subscriptions import AlreadyFollowed, AtLimit, BadFilter, Subscribed
from bot.store import Database, chats, deliveries, filters, papers
from tests.conftest import Clock
from tests.corpus import mixed_day, topic_papers

CHAT = 5
DAY_ONE, DAY_TWO = date(2026, 7, 1), date(2026, 7, 2)


def setup(database: Database, clock: Clock, window: int = 4000) -> tuple[Similar, Planner]:
    with database.session() as session:
        chats.register_chat(session, chat_id=CHAT, kind="private", now=clock())
        papers.insert_papers(session, papers=mixed_day(DAY_ONE, 10, first_id=1), now=clock())
    similar = Similar(database, Ranker(database, clock=clock, window=window), share=0.2)
    planner = Planner(FilterRules(), similar)
    planner.plan(database, now=clock())  # day one: matched before the filter existed
    return similar, planner


def follow(
    similar: Similar, clock: Clock, source: str
) -> Subscribed | AlreadyFollowed | AtLimit | BadFilter:
    return similar.follow(chat_id=CHAT, source=source, max_per_chat=50, now=clock())


def delivered(database: Database) -> list[int]:
    with database.session() as session:
        rows = deliveries.all_deliveries(session, chat_id=CHAT)
        found = papers.get_papers(session, paper_ids=[r.paper_id for r in rows])
    return [int(str(found[r.paper_id].arxiv_id)[-5:]) for r in rows]


def test_a_similar_filter_matches_its_topic_in_the_next_listing(
    database: Database, clock: Clock
) -> None:
    similar, planner = setup(database, clock)
    seed = topic_papers("graph", 1, first_id=11, day=DAY_ONE)[0]
    saved = follow(similar, clock, f"like:{seed.arxiv_id}v2")  # a version is not part of it
    assert isinstance(saved, Subscribed) and saved.number == 1
    assert saved.canonical.startswith('like "') and saved.recent.count >= 1
    assert isinstance(follow(similar, clock, f"{seed.arxiv_id}"), AlreadyFollowed)
    with database.session() as session:
        [stored] = filters.chat_filters(session, chat_id=CHAT)
    assert stored.source == f"like:{seed.arxiv_id}"

    with database.session() as session:  # day two: 5 papers a topic; graph ones are 105..109
        papers.insert_papers(
            session, papers=mixed_day(DAY_TWO, 5, first_id=100, seed=3), now=clock()
        )
    planner.plan(database, now=clock())
    got = delivered(database)
    assert got and all(105 <= n < 110 for n in got)  # the graph topic only
    planner.plan(database, now=clock())
    assert sorted(delivered(database)) == sorted(got)  # each paper once


def test_bad_seeds_are_refused_with_a_reason(database: Database, clock: Clock) -> None:
    similar, _ = setup(database, clock)
    cases = {
        "like:": "give the arXiv ids of one or more papers",
        "like:banana": "'banana' is not an arXiv id (like 2506.01234, or its arxiv.org link)",
        "like:" + ",".join(f"2607.{n:05d}" for n in range(1, 13)): "at most 10 seed papers",
    }
    for source, message in cases.items():
        refused = follow(similar, clock, source)
        assert isinstance(refused, BadFilter) and refused.message == message, source


def test_seeds_not_stored_are_named(database: Database, clock: Clock) -> None:
    similar, _ = setup(database, clock)
    refused = follow(similar, clock, "like:2607.00001 https://arxiv.org/abs/2607.99999v2")
    assert refused == NotStored(["2607.99999"])


def test_seeds_may_be_given_as_arxiv_links(database: Database, clock: Clock) -> None:
    similar, _ = setup(database, clock)
    saved = follow(similar, clock, "like:https://arxiv.org/pdf/2607.00011v3, arXiv:2607.00012")
    assert isinstance(saved, Subscribed)
    with database.session() as session:
        [stored] = filters.chat_filters(session, chat_id=CHAT)
    assert stored.source == "like:2607.00011,2607.00012"


def test_a_refitted_vocabulary_rebuilds_the_scorer_from_its_seeds(
    database: Database, clock: Clock
) -> None:
    similar, planner = setup(database, clock, window=100)
    seed = topic_papers("proteins", 1, first_id=31, day=DAY_ONE)[0]
    follow(similar, clock, f"like:{seed.arxiv_id}")
    with database.session() as session:
        [stored] = filters.chat_filters(session, chat_id=CHAT)
        before = SimilarTo.from_bytes(
            filters.filter_models(session, filter_ids=[stored.id])[stored.id]
        )
        # fifty more papers: the window (100) moved by half, the vocabulary is refitted
        papers.insert_papers(
            session, papers=mixed_day(DAY_TWO, 15, first_id=200, seed=4), now=clock()
        )
    planner.plan(database, now=clock())
    with database.session() as session:
        after = SimilarTo.from_bytes(
            filters.filter_models(session, filter_ids=[stored.id])[stored.id]
        )
    assert after.fingerprint != before.fingerprint
    assert after.fingerprint == similar.ranker.text_model().fingerprint  # type: ignore[union-attr]
    got = delivered(database)
    assert got and all(245 <= n < 260 for n in got)  # still the protein topic


def test_an_exported_line_comes_back_with_its_comment(database: Database, clock: Clock) -> None:
    """/export names the seeds after a '#': /import reads the ids and skips the name."""
    similar, _ = setup(database, clock)
    seed = topic_papers("graph", 1, first_id=11, day=DAY_ONE)[0]
    saved = follow(similar, clock, f'like:{seed.arxiv_id}  # like "{seed.title[:20]}…"')
    assert isinstance(saved, Subscribed)
    previewed = similar.preview(source=f"like:{seed.arxiv_id}")
    assert not isinstance(previewed, BadFilter) and previewed.canonical == saved.canonical
    assert previewed.recent == saved.recent  # the same papers, nothing saved twice


def test_an_abstract_merged_into_a_matched_paper_brings_it_to_a_similar_filter_once(
    database: Database, clock: Clock
) -> None:
    """A paper first stored without its abstract passes no "more like this" filter; another
    record of it with its abstract merges in, and the filter's chat gets it then, once."""
    similar, planner = setup(database, clock)
    seed = topic_papers("graph", 1, first_id=11, day=DAY_ONE)[0]
    assert isinstance(follow(similar, clock, f"like:{seed.arxiv_id}"), Subscribed)
    [full] = [p for p in mixed_day(DAY_TWO, 5, first_id=100, seed=3) if p.arxiv_id.endswith("105")]
    bare = full.with_changes(title="A note on recent results", abstract="")
    with database.session() as session:
        ingest.store_papers(session, [bare], now=clock())
    planner.plan(database, now=clock())
    assert delivered(database) == []
    with database.session() as session:
        ingest.store_papers(
            session, [full.with_changes(title="A note on recent results")], now=clock()
        )
    planner.plan(database, now=clock())
    assert delivered(database) == [105]
    planner.plan(database, now=clock())
    assert delivered(database) == [105]
