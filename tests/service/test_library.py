"""A chat's library in the store, on both backends: entries recognised by arXiv id, DOI or
title; the others kept once to learn from; saved papers; all of it gone with /stop and carried
to a supergroup."""

from __future__ import annotations

from datetime import date

from bot.core.library import read_library
from bot.core.paper import AnnounceType, Paper
from bot.service import chats, feedback, library
from bot.store import Database, papers
from bot.store import library as stored
from tests.conftest import Clock

DAY = date(2026, 7, 1)
STORED = [
    Paper(
        title="Sparse attention for long-context language models",
        abstract="We make attention sparse.",
        source="test",
        arxiv_id="2607.00001",
        authors=("Wei Liu",),
        announced=DAY,
        announce_type=AnnounceType.NEW,
    ),
    Paper(
        title="A journal paper on key value caches without an arXiv id",
        abstract="Caches.",
        source="test",
        doi="10.1234/joc.2025.42",
    ),
    Paper(
        title="Quantised caches: a survey of what was tried",
        abstract="A survey.",
        source="test",
        link="https://example.org/survey",
    ),
]
LIBRARY = """
@misc{a, title={Sparse attention}, eprint={2607.00001v3}, archivePrefix={arXiv}}
@article{b, title={Another title}, doi={https://doi.org/10.1234/JOC.2025.42}}
@article{c, title={Quantised Caches: A Survey of What Was Tried!}}
@article{d, title={A paper nobody stored}, abstract={It is about caches.}, author={Hopper, Grace}}
@article{e, title={A paper without an abstract}}
"""


def store(database: Database, clock: Clock) -> list[int]:
    with database.session() as session:
        return papers.insert_papers(session, papers=STORED, now=clock())


def test_entries_are_recognised_by_id_doi_and_title_and_the_rest_kept_once(
    any_database: Database, clock: Clock
) -> None:
    ids = store(any_database, clock)
    chats.enter(any_database, chat_id=5, kind="private", now=clock())
    found = read_library(LIBRARY)
    assert found is not None
    first = library.import_library(any_database, chat_id=5, found=found, now=clock())
    assert [p.title for p in first.recognised] == [p.title for p in STORED]
    assert (first.read, first.used, first.unused, first.seeds) == (5, 1, 1, ["2607.00001"])
    assert feedback.counts(any_database, chat_id=5) == (3, 0)
    again = library.import_library(any_database, chat_id=5, found=found, now=clock())
    assert len(again.recognised) == 3 and again.used == 1
    with any_database.session() as session:
        kept = stored.library_papers(session, chat_id=5)
    assert [(p.title, p.authors) for p in kept] == [("A paper nobody stored", ("Grace Hopper",))]
    assert library.toggle_row(any_database, chat_id=5, row_id=1, now=clock()) is None  # no row
    assert sorted(r.paper.title for r in library.references(any_database, chat_id=5)) == sorted(
        p.title for p in STORED
    )
    assert ids


def test_stop_forgets_the_library_and_a_supergroup_keeps_it(
    any_database: Database, clock: Clock
) -> None:
    ids = store(any_database, clock)
    for chat_id in (-5, 7):
        chats.enter(any_database, chat_id=chat_id, kind="group", now=clock())
        found = read_library(LIBRARY)
        assert found is not None
        library.import_library(any_database, chat_id=chat_id, found=found, now=clock())
        with any_database.session() as session:
            stored.toggle_saved(session, chat_id=chat_id, paper_id=ids[0], now=clock())

    def held(chat_id: int) -> tuple[list[int], int, int]:
        with any_database.session() as session:
            saved = stored.saved_ids(session, chat_id=chat_id)
            count = stored.count_library(session, chat_id=chat_id)
        page = library.saved_page(any_database, chat_id=chat_id, page=3, per_page=8)
        return saved, count, page.total

    assert held(-5) == held(7) == ([ids[0]], 1, 1)
    assert chats.move(any_database, old_id=-5, new_id=-1005)
    assert held(-1005) == ([ids[0]], 1, 1) and held(-5) == ([], 0, 0)
    assert chats.forget(any_database, chat_id=7)
    assert held(7) == ([], 0, 0)
    assert library.import_choice(any_database, chat_id=7, import_id=2) == ([], [])
