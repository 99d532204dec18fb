"""Ingestion and the inbox rules (DESIGN section 2), on real SQLite and PostgreSQL; then hostile
files through ingestion into the store: a file is stored or recorded as failed with its reason,
never an exception that would stop the scan and meet the same file again at the next one; and
nothing outside the inbox is read because of a name: not through a link dropped in the inbox, not
through what a listing or a feed names (tests/core/test_listings.py reads such names at the
parser; here the whole way into the store)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import threading
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from sqlalchemy import text

from bot.core.listings.base import ARXIV_ID_MAX, DOI_MAX
from bot.service import ingest
from bot.service.status import store_status
from bot.store import Database, files, papers
from bot.store.tables import PaperTable
from tests.conftest import ROOT, SEEDS, Clock
from tests.core.test_listings import mangled
from tests.listing_cases import expected_path

CASES = ROOT / "tests" / "data" / "listings"


def copy_seeds(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for seed in SEEDS.iterdir():
        shutil.copy(seed, folder / seed.name)
    return folder


def settle(folder: Path, clock: Clock) -> None:
    """Give every file an mtime well before the clock, as if written long ago."""
    old = clock().timestamp() - 3600
    for path in folder.rglob("*"):
        os.utime(path, (old, old))


def test_seeds_read_40_entries_store_37_papers_and_count_3_duplicates(
    any_database: Database, tmp_path: Path
) -> None:
    report = ingest.ingest_paths(any_database, [copy_seeds(tmp_path / "seeds")])
    assert report.totals() == {"files": 3, "entries": 40, "new": 37, "duplicates": 3, "failed": 0}
    again = ingest.ingest_paths(any_database, [tmp_path / "seeds"])
    assert [f.status for f in again.files] == ["skipped"] * 3
    assert again.totals()["new"] == 0
    assert store_status(any_database).papers == 37


def test_a_paper_first_seen_without_id_gets_it_from_a_feed(
    any_database: Database, tmp_path: Path
) -> None:
    ingest.ingest_paths(any_database, [copy_seeds(tmp_path / "seeds")])
    report = ingest.ingest_paths(any_database, [CASES / "arxiv_rss_three.xml"])
    assert report.files[0].new == 2 and report.files[0].duplicates == 1  # BeNice! is known
    with any_database.session() as session:
        benice = [
            p
            for _, p in papers.recent_papers(session, announcement_days=30)
            if p.title.startswith("BeNice!")
        ]
    assert len(benice) == 1 and benice[0].arxiv_id == "2610.18001"
    assert benice[0].more_authors == 1  # the listing's author information is kept


def test_a_later_version_updates_the_stored_paper(any_database: Database, tmp_path: Path) -> None:
    first = ingest.ingest_paths(any_database, [CASES / "api_atom.xml"])
    assert first.files[0].new == 2
    newer = tmp_path / "v4.xml"
    newer.write_text(
        (CASES / "api_atom.xml")
        .read_text()
        .replace("2401.01234v3", "2401.01234v4")
        .replace("Reeb dynamics.", "Reeb dynamics, revised.")
    )
    report = ingest.ingest_paths(any_database, [newer])
    assert (report.files[0].new, report.files[0].duplicates) == (0, 2)
    assert len(report.updated_paper_ids) == 1
    with any_database.session() as session:
        stored = papers.get_papers(session, paper_ids=report.updated_paper_ids)
    (paper,) = stored.values()
    assert paper.version == 4 and paper.abstract.endswith("revised.")
    assert store_status(any_database).papers == 2


def test_duplicates_within_one_file_are_one_paper(database: Database, tmp_path: Path) -> None:
    listing = tmp_path / "twice.txt"
    entry = (SEEDS / "000_d8ca0602e3945843.txt").read_text().split("\n")[:5]
    listing.write_text("\n".join(entry + [entry[0].replace("#01", "#02"), *entry[1:]]) + "\n")
    report = ingest.ingest_paths(database, [listing])
    assert (report.files[0].entries, report.files[0].new, report.files[0].duplicates) == (2, 1, 1)


def test_a_bad_file_is_reported_and_the_others_still_ingest(
    database: Database, tmp_path: Path
) -> None:
    folder = copy_seeds(tmp_path / "inbox")
    shutil.copy(CASES / "binary_junk.bin", folder / "junk.bin")
    report = ingest.ingest_paths(database, [folder])
    failed = [f for f in report.files if f.status == "failed"]
    assert [f.path for f in failed] == [str(folder / "junk.bin")]
    assert "binary file" in (failed[0].error or "")
    assert report.totals()["new"] == 37


def test_partly_bad_file_keeps_good_entries_and_reports_the_bad(database: Database) -> None:
    report = ingest.ingest_paths(database, [CASES / "numbered_partly_bad.txt"])
    (file,) = report.files
    assert (file.status, file.new) == ("ingested", 2)
    assert "entry #02 at line 6" in (file.error or "")


@pytest.mark.parametrize(
    ("case", "listing_format"),
    [
        ("biorxiv_api_details.json", "biorxiv-api"),
        ("pubmed_efetch_2019.xml", "pubmed-xml"),
        ("journal_tandf_rss10.xml", "feed"),
        ("pubmed_rss20_search.xml", "feed"),
    ],
)
def test_papers_beyond_arxiv_are_stored_with_their_links_and_journals(
    database: Database, case: str, listing_format: str
) -> None:
    expected = json.loads(expected_path(CASES / case).read_text())["papers"]
    report = ingest.ingest_paths(database, [CASES / case])
    (file,) = report.files
    assert (file.status, file.format, file.new) == ("ingested", listing_format, len(expected))
    with database.session() as session:
        stored = papers.all_papers(session)
    assert sorted((p.link, p.doi, p.journal_ref) for p in stored) == sorted(
        (p["link"], p["doi"], p.get("journal_ref")) for p in expected
    )


def test_a_pubmed_esearch_answer_fails_saying_what_to_fetch(database: Database) -> None:
    (file,) = ingest.ingest_paths(database, [CASES / "pubmed_esearch.json"]).files
    assert file.status == "failed"
    assert "esearch answer (32 PMIDs) holds ids, not papers: fetch them with efetch" in (
        file.error or ""
    )


def test_inbox_rules(database: Database, tmp_path: Path, clock: Clock) -> None:
    inbox = copy_seeds(tmp_path / "inbox")
    (inbox / ".hidden.txt").write_text((SEEDS / "000_d8ca0602e3945843.txt").read_text())
    (inbox / "download.part").write_bytes(b"half")
    (inbox / "notes.tmp").write_bytes(b"x")
    (inbox / "backup~").write_bytes(b"x")
    shutil.copy(CASES / "not_a_listing.txt", inbox / "letter.txt")
    settle(inbox, clock)
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in inbox.iterdir()}

    first = ingest.scan_inbox(database, inbox, settle_seconds=5, clock=clock)
    assert sorted(Path(f.path).name for f in first.files) == [
        "000_d8ca0602e3945843.txt",
        "002_fdf517bcef682927.txt",
        "003_41440b21456fdd3f.txt",
        "letter.txt",
    ]
    assert first.totals()["new"] == 37 and first.failed == 1

    # A renamed copy is not new; the failed file is not retried while unchanged.
    shutil.copy(inbox / "000_d8ca0602e3945843.txt", inbox / "copy-of-000.txt")
    settle(inbox, clock)
    second = ingest.scan_inbox(database, inbox, settle_seconds=5, clock=clock)
    assert {f.status for f in second.files} == {"skipped"}
    letter = next(f for f in second.files if f.path.endswith("letter.txt"))
    assert "failed before" in (letter.error or "")

    # A file still being written waits; once settled it is read, and only its unseen papers count.
    growing = inbox / "growing.txt"
    growing.write_text((SEEDS / "002_fdf517bcef682927.txt").read_text())
    os.utime(growing, (clock().timestamp() - 1, clock().timestamp() - 1))
    third = ingest.scan_inbox(database, inbox, settle_seconds=5, clock=clock)
    assert [f.status for f in third.files if f.path.endswith("growing.txt")] == ["waiting"]
    clock.advance(seconds=10)
    fourth = ingest.scan_inbox(database, inbox, settle_seconds=5, clock=clock)
    grown = next(f for f in fourth.files if f.path.endswith("growing.txt"))
    assert (grown.status, grown.new, grown.duplicates) == ("skipped", 0, 0)  # same content as 002

    # An edited file is new content: only its unseen papers are new.
    edited = (
        (SEEDS / "002_fdf517bcef682927.txt")
        .read_text()
        .replace("Low-Bit N-Gram Embeddings", "Two-Bit N-Gram Embeddings")
    )
    growing.write_text(edited)
    settle(inbox, clock)
    fifth = ingest.scan_inbox(database, inbox, settle_seconds=5, clock=clock)
    grown = next(f for f in fifth.files if f.path.endswith("growing.txt"))
    assert (grown.status, grown.entries, grown.new, grown.duplicates) == ("ingested", 5, 1, 4)

    # The user's files are never touched.
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in inbox.iterdir()}
    assert {k: after[k] for k in before} == before


def test_a_failed_file_is_retried_when_its_content_changes(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    listing = inbox / "later.txt"
    listing.write_text("")
    settle(inbox, clock)
    assert ingest.scan_inbox(database, inbox, settle_seconds=5, clock=clock).failed == 1
    listing.write_text((SEEDS / "000_d8ca0602e3945843.txt").read_text())
    settle(inbox, clock)
    report = ingest.scan_inbox(database, inbox, settle_seconds=5, clock=clock)
    assert [(f.status, f.new) for f in report.files] == [("ingested", 5)]
    with database.session() as session:
        assert files.count_files_by_status(session) == {"failed": 1, "ingested": 1}


def test_a_missing_inbox_is_not_fatal(database: Database, tmp_path: Path, clock: Clock) -> None:
    assert ingest.scan_inbox(database, tmp_path / "nope", settle_seconds=5, clock=clock).files == []


def test_an_inbox_that_cannot_be_read_is_said_with_its_folder_and_setting(tmp_path: Path) -> None:
    setting = "(PAPERBOT_INBOX_DIR, inbox.dir)"
    (tmp_path / "a_file").write_text("not a folder")
    (tmp_path / "inbox").mkdir()
    assert ingest.inbox_problem(tmp_path / "inbox") is None
    assert ingest.inbox_problem(tmp_path / "nope") == (
        f"the inbox folder {tmp_path / 'nope'} is missing {setting}"
    )
    assert ingest.inbox_problem(tmp_path / "a_file") == (
        f"the inbox folder {tmp_path / 'a_file'} is not a folder {setting}"
    )
    assert ingest.inbox_problem(Path("nope")) == (
        f"the inbox folder nope ({Path('nope').absolute()}) is missing {setting}"
    )
    if os.geteuid() != 0:  # root reads a folder of mode 000
        (tmp_path / "inbox").chmod(0)
        try:
            assert ingest.inbox_problem(tmp_path / "inbox") == (
                f"the inbox folder {tmp_path / 'inbox'} cannot be read (Permission denied) "
                f"{setting}"
            )
        finally:
            (tmp_path / "inbox").chmod(0o755)


def test_a_file_over_the_size_limit_is_refused_unread_once(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    inbox = tmp_path / "inbox"
    shutil.copytree(SEEDS, inbox)
    huge = inbox / "huge.txt"
    with huge.open("wb") as file:
        file.truncate(12_000_000)  # sparse: twelve megabytes that cost no disk
    for written in inbox.iterdir():
        os.utime(written, (0, 0))  # long ago: none still being written
    limit = 10_000_000
    first = ingest.scan_inbox(database, inbox, settle_seconds=0, clock=clock, max_bytes=limit)
    [refused] = [f for f in first.files if f.path == str(huge)]
    assert (refused.status, refused.error) == (
        "failed",
        "too large: 12.0 MB, over the limit of 10 MB (PAPERBOT_INBOX_MAX_BYTES); not read",
    )
    assert first.totals()["new"] == 37  # the other files went in
    again = ingest.scan_inbox(database, inbox, settle_seconds=0, clock=clock, max_bytes=limit)
    assert [f.status for f in again.files if f.path == str(huge)] == ["skipped"]  # said once
    with huge.open("r+b") as file:
        file.truncate(13_000_000)  # it changed: said again
    os.utime(huge, (0, 0))
    changed = ingest.scan_inbox(database, inbox, settle_seconds=0, clock=clock, max_bytes=limit)
    assert [f.error for f in changed.files if f.path == str(huge)] == [
        "too large: 13.0 MB, over the limit of 10 MB (PAPERBOT_INBOX_MAX_BYTES); not read"
    ]


def test_a_scan_tells_its_progress_and_stops_between_files(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    inbox = tmp_path / "inbox"
    shutil.copytree(SEEDS, inbox)  # three files
    for path in inbox.iterdir():
        os.utime(path, (0, 0))  # long settled
    told: list[tuple[int, int]] = []
    stop = threading.Event()

    def progress(number: int, total: int) -> None:
        told.append((number, total))
        if number == 2:  # Ctrl-C while the second file is read: it is read to its end
            stop.set()

    report = ingest.scan_inbox(
        database, inbox, settle_seconds=0, clock=clock, progress=progress, stop=stop
    )
    assert told == [(1, 3), (2, 3)]
    assert [Path(f.path).name for f in report.files] == sorted(p.name for p in SEEDS.iterdir())[:2]
    assert store_status(database).files == {"ingested": 2}
    rest = ingest.scan_inbox(database, inbox, settle_seconds=0, clock=clock)
    assert [f.status for f in rest.files] == ["skipped", "skipped", "ingested"]


def test_the_summary_of_one_file_of_one_entry_is_singular(database: Database) -> None:
    one = ROOT / "tests" / "data" / "listings" / "cutoff_one_entry.xml"
    report = ingest.ingest_paths(database, [one])
    assert report.summary_line() == "1 file (1 ingested): 1 entry, 1 new paper, 0 duplicates"


def test_a_file_not_there_is_reported_not_recorded(database: Database, tmp_path: Path) -> None:
    report = ingest.ingest_paths(database, [tmp_path / "nowhere.txt"])
    assert [(f.status, f.error) for f in report.files] == [
        ("failed", "cannot read the file: No such file or directory")
    ]
    with database.session() as session:
        assert files.count_files_by_status(session) == {}


# -- hostile files ---------------------------------------------------------------------------------

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)
EMAIL = "\\\\\narXiv:{id}\nTitle: {title}\nAuthors: A. Lee\n\\\\\nAn abstract.\n\\\\ ( x )\n"
RSS = (
    "<rss version='2.0' xmlns:prism='http://prismstandard.org/namespaces/basic/2.0/'><channel>"
    "<item><title>{title}</title><description>d{text}</description>{more}</item></channel></rss>"
)
ARXIV_LINK = "https://arxiv.org/abs/" + "a" * 300 + "/1234567"  # an old-style id, 300 letters
HOSTILE = {
    # (what the file holds, the status ingestion gives it)
    "a DOI of 400 characters": (
        RSS.format(title="T", text="", more=f"<prism:doi>10.{'1' * 400}</prism:doi>"),
        "ingested",
    ),
    "an old-style arXiv id of 100 letters": (
        EMAIL.format(id="a" * 100 + "/1234567", title="T"),
        "failed",
    ),
    "a version of 40 digits": (EMAIL.format(id="2601.00001v" + "9" * 40, title="T"), "failed"),
    "a version past 32 bits": (EMAIL.format(id="2601.00002v3000000000", title="T"), "failed"),
    "an arXiv link of 300 letters": (
        RSS.format(title="T", text="", more=f"<link>{ARXIV_LINK}</link>"),
        "failed",
    ),
    "a NUL past the first 8 KB": (
        "#01Oct 22, 2026\ncs.LG\nTitle\nA, B\n" + "x" * 9000 + "\x00abstract\n",
        "ingested",
    ),
    "control characters and surrogates as references": (
        RSS.format(title="T&#1;&#xD800;&#0;", text="&#x1b;[31m", more="<link>https://e.org/&#0;</link>"),
        "ingested",
    ),
    "a category of 200 letters": (
        "#01Oct 22, 2026\ncs." + "a" * 200 + "\nTitle\nA, B\nabstract\n",
        "ingested",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_file_is_stored_or_recorded_as_failed(any_database: Database, name: str) -> None:
    content, status = HOSTILE[name]
    report = ingest.ingest_bytes(
        any_database, content.encode(), path=name, file_date=None, now=NOW, retry_failed=False
    )
    assert report.status == status, report.error
    with any_database.session() as session:
        stored = papers.all_papers(session)
    assert len(stored) == (1 if status == "ingested" else 0)


def test_a_file_of_a_hundred_thousand_bad_entries_reports_the_first_few(database: Database) -> None:
    bad = "#01Oct 22, 2026\ncs.LG\n" * 100_000  # each entry cut after its category
    data = (bad + "#02Oct 22, 2026\ncs.LG\nTitle\nA, B\nAn abstract.\n").encode()
    report = ingest.ingest_bytes(
        database, data, path="bad.txt", file_date=None, now=NOW, retry_failed=False
    )
    assert report.status == "ingested" and report.entries == 1 and report.error is not None
    assert report.error.startswith("entry #01 at line 1: expected category, title, authors")
    assert report.error.endswith("; and 99990 more") and len(report.error) < 2000


def test_the_bounds_are_the_stores() -> None:
    columns = PaperTable.__table__.c  # type: ignore[attr-defined]
    assert (columns.arxiv_id.type.length, columns.doi.type.length) == (ARXIV_ID_MAX, DOI_MAX)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=mangled())
def test_any_mangled_file_is_stored_or_recorded_as_failed(database: Database, data: bytes) -> None:
    report = ingest.ingest_bytes(
        database, data, path="mangled", file_date=None, now=NOW, retry_failed=True
    )
    assert report.status in ("ingested", "failed", "skipped")


# -- nothing outside the inbox is read ------------------------------------------------------------

SECRET = "#01Oct 22, 2026\ncs.LG\nSECRET title\nA, B\nThe secret abstract.\n"
LISTING = "#01Oct 22, 2026\ncs.LG\nAn inbox title\nA, B\nAn abstract.\n"


def stored_text(database: Database) -> str:
    with database.session() as session:
        return repr(papers.all_papers(session))


def test_a_link_in_the_inbox_to_a_file_outside_is_not_read(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    outside, inbox = tmp_path / "outside", tmp_path / "inbox"
    (outside / "folder").mkdir(parents=True)
    (inbox / "sub").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET)
    (outside / "folder" / "secret.txt").write_text(SECRET.replace("SECRET", "SECRET2"))
    (inbox / "sub" / "listing.txt").write_text(LISTING)
    (inbox / "absolute.txt").symlink_to(outside / "secret.txt")
    (inbox / "relative.txt").symlink_to(Path("..") / "outside" / "secret.txt")
    (inbox / "folder").symlink_to(outside / "folder")  # a folder outside: not walked
    (inbox / "inside.txt").symlink_to(inbox / "sub" / "listing.txt")  # a link within: read
    (inbox / "broken.txt").symlink_to(tmp_path / "nowhere.txt")
    old = clock().timestamp() - 3600
    for path in [*outside.rglob("*"), *inbox.rglob("*")]:
        os.utime(path, (old, old), follow_symlinks=False)
    report = ingest.scan_inbox(database, inbox, settle_seconds=0, clock=clock)
    found = {Path(f.path).name: (f.status, f.error) for f in report.files}
    assert found["absolute.txt"] == (
        "skipped",
        f"a link to {(outside / 'secret.txt').resolve()}, outside the inbox: not read",
    )
    assert found["relative.txt"][0] == "skipped"
    assert found["inside.txt"][0] == "ingested"  # read once, by its first name
    assert found["listing.txt"] == ("skipped", f"already read as {inbox / 'inside.txt'}")
    assert "broken.txt" not in found  # a link to nothing is no file
    assert "secret" not in found and "SECRET" not in stored_text(database)


NAMING = [
    '<!DOCTYPE rss SYSTEM "file://{secret}"><rss version="2.0"><channel><item><title>T</title>'
    "</item></channel></rss>",
    '<?xml-stylesheet href="file://{secret}"?><rss version="2.0"><channel><item><title>T</title>'
    "</item></channel></rss>",
    '<rss version="2.0" xmlns:xi="http://www.w3.org/2001/XInclude"><channel><item><title>T'
    '</title><description><xi:include href="file://{secret}" parse="text"/></description></item>'
    "</channel></rss>",
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:base="file://{secret}"><entry><title>T</title>'
    '<link href="file://{secret}"/><content src="file://{secret}"/></entry></feed>',
    "#01Oct 22, 2026\ncs.LG\n../../../../../..{secret}\nA, B\nfile://{secret}\n",
    "{secret}",
]


@pytest.mark.parametrize("content", NAMING)
def test_a_file_named_by_a_listing_is_never_read(
    database: Database, tmp_path: Path, content: str
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-CONTENT")
    data = content.format(secret=secret).encode()
    ingest.ingest_bytes(database, data, path="naming", file_date=None, now=NOW, retry_failed=True)
    assert "SECRET-CONTENT" not in stored_text(database)


# -- one bad file never stops a scan --------------------------------------------------------------

NOT_READ = "not a regular file: not read"
OVER = "over the limit of 0.01 MB (PAPERBOT_INBOX_MAX_BYTES); not read"
BAD_FILES = {
    "pipe.txt": f"a named pipe (FIFO), {NOT_READ}",
    "socket.txt": f"a socket, {NOT_READ}",
    "unreadable.txt": "cannot read the file: Permission denied",
    "big.txt": f"too large: 2.0 MB, {OVER}",
    "huge.txt": f"too large: 3221.2 MB, {OVER}",  # past 32 bits: recorded on PostgreSQL too
    "binary.txt": "binary file (contains NUL bytes), not a listing",
}


def hostile_inbox(inbox: Path) -> dict[str, str]:
    """Every hostile kind beside a real listing, long settled; the reasons each bad file is
    expected to be refused with."""
    inbox.mkdir()
    shutil.copy(SEEDS / "000_d8ca0602e3945843.txt", inbox / "listing.txt")  # 5 papers
    os.mkfifo(inbox / "pipe.txt")  # opening it would wait for a writer
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(inbox / "socket.txt"))
    (inbox / "folder.txt").mkdir()  # named like a listing, walked as the folder it is
    (inbox / "binary.txt").write_bytes(bytes(range(256)) * 32)
    for name, size in (("big.txt", 2_000_000), ("huge.txt", 3 * 2**30)):
        with (inbox / name).open("wb") as file:
            file.truncate(size)  # sparse: costs no disk
    unreadable = inbox / "unreadable.txt"
    unreadable.write_text(LISTING)
    unreadable.chmod(0)
    expected = dict(BAD_FILES)
    if os.access(unreadable, os.R_OK):  # root reads a file of mode 000: nothing to refuse
        del expected["unreadable.txt"]
        unreadable.unlink()
    for path in inbox.iterdir():
        os.utime(path, (0, 0))
    return expected


def test_no_bad_file_stops_a_scan(
    any_database: Database, tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    expected = hostile_inbox(tmp_path / "inbox")
    scan = partial(ingest.scan_inbox, any_database, tmp_path / "inbox", settle_seconds=0)
    first = scan(clock=clock, max_bytes=10_000)
    found = {Path(f.path).name: (f.status, f.error) for f in first.files}
    assert found.pop("listing.txt") == ("ingested", None)
    assert found == {name: ("failed", reason) for name, reason in expected.items()}
    with any_database.session() as session:
        assert len(papers.all_papers(session)) == 5
        assert files.count_files_by_status(session) == {"failed": len(expected), "ingested": 1}
    clock.advance(minutes=1)
    again = scan(clock=clock, max_bytes=10_000)
    assert {f.status for f in again.files} == {"skipped"}  # each bad file said once
    logged = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert sorted(logged) == sorted(
        f"listing {tmp_path / 'inbox' / name} failed: {reason}" for name, reason in expected.items()
    )


def test_a_file_the_database_refuses_fails_alone(any_database: Database, tmp_path: Path) -> None:
    """The guard around each file, met as operators met it: on PostgreSQL before migration 0014,
    recording a 3 GiB file's refusal fails (a 32-bit size); that file fails with the reason
    and the listing after it is still read."""
    if not any_database.shared:
        pytest.skip("SQLite's sizes were always 64-bit: nothing refuses them")
    # the size column as it was before 0014; later migrations stay (the code reads their
    # columns), so the column is set back alone, as 0014's downgrade sets it
    with any_database.engine.begin() as connection:
        connection.execute(text("ALTER TABLE listing_file ALTER COLUMN size TYPE integer"))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    with (inbox / "a-huge.txt").open("wb") as file:
        file.truncate(3 * 2**30)
    shutil.copy(SEEDS / "000_d8ca0602e3945843.txt", inbox / "b-listing.txt")
    report = ingest.ingest_paths(any_database, [inbox])
    assert [(Path(f.path).name, f.status, f.error) for f in report.files] == [
        (
            "a-huge.txt",
            "failed",
            "could not be ingested: (psycopg.errors.NumericValueOutOfRange) integer out of range",
        ),
        ("b-listing.txt", "ingested", None),
    ]
