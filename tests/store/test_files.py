"""Listing files on SQLite and PostgreSQL: one record per content, replaced when the same content
is read again; counted by status; the last one ingested."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.store import Database, files
from bot.store.files import ListingFile

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)


def listing(content_hash: str, status: str = "ingested", minutes: int = 0) -> ListingFile:
    return ListingFile(
        content_hash=content_hash,
        path=f"inbox/{content_hash}.txt",
        size=1234,
        format="numbered" if status == "ingested" else None,
        status=status,
        entries=5 if status == "ingested" else 0,
        new=4 if status == "ingested" else 0,
        duplicates=1 if status == "ingested" else 0,
        error="unrecognised listing format" if status == "failed" else None,
        seen_at=NOW + timedelta(minutes=minutes),
    )


def test_a_file_is_recorded_and_found_by_its_content(any_database: Database) -> None:
    with any_database.session() as session:
        assert files.find_file(session, content_hash="aa") is None
        files.record_file(session, listing=listing("aa"))
        files.record_file(session, listing=listing("bb", "failed"))
    with any_database.session() as session:
        assert files.find_file(session, content_hash="aa") == listing("aa")
        assert files.find_file(session, content_hash="bb") == listing("bb", "failed")
        assert files.find_file(session, content_hash="cc") is None


def test_the_same_content_again_replaces_its_record(any_database: Database) -> None:
    failed = listing("aa", "failed")
    retried = replace(listing("aa", minutes=5), path="inbox/renamed.txt")
    with any_database.session() as session:
        files.record_file(session, listing=failed)
    with any_database.session() as session:
        files.record_file(session, listing=retried)
    with any_database.session() as session:
        assert files.find_file(session, content_hash="aa") == retried
        assert files.count_files_by_status(session) == {"ingested": 1}


def test_files_are_counted_by_status(any_database: Database) -> None:
    with any_database.session() as session:
        assert files.count_files_by_status(session) == {}
        for content_hash in ("aa", "bb", "cc"):
            files.record_file(session, listing=listing(content_hash))
        files.record_file(session, listing=listing("dd", "failed"))
    with any_database.session() as session:
        assert files.count_files_by_status(session) == {"ingested": 3, "failed": 1}


def test_the_last_file_is_the_last_one_ingested(any_database: Database) -> None:
    with any_database.session() as session:
        assert files.last_file(session) is None
        files.record_file(session, listing=listing("aa", minutes=1))
        files.record_file(session, listing=listing("bb", minutes=3))
        files.record_file(session, listing=listing("cc", minutes=2))
        files.record_file(session, listing=listing("dd", "failed", minutes=4))
    with any_database.session() as session:
        assert files.last_file(session) == listing("bb", minutes=3)


def test_only_failed_files_is_no_last_file(any_database: Database) -> None:
    with any_database.session() as session:
        files.record_file(session, listing=listing("aa", "failed"))
    with any_database.session() as session:
        assert files.last_file(session) is None
