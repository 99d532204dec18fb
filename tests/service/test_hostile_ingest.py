"""Hostile files through ingestion, into a real database (SQLite, and PostgreSQL when
PAPERBOT_TEST_DATABASE_URL is set): a file is stored or recorded as failed with its reason, never
an exception that would stop the scan and meet the same file again at the next one. And nothing
outside the inbox is read because of a name: not through a link dropped in the inbox, not through
what a listing or a feed names (tests/core/test_listings.py reads such names at the
parser; here the whole way into the store)."""

from __future__ import annotations

import gzip
import os
import shutil
import socket
import threading
import tracemalloc
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from hypothesis import HealthCheck, given, settings

from bot.core.listings.base import ARXIV_ID_MAX, DOI_MAX
from bot.feeds import FeedFetcher
from bot.service import ingest
from bot.service.ingest import FeedError
from bot.store import Database, files, papers
from bot.store.database import _alembic_config
from bot.store.tables import PaperTable
from tests.conftest import SEEDS, Clock
from tests.core.test_listings import mangled

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


FEED = (
    b"<rss version='2.0'><channel><title>t</title>"
    + b"<item><title>x</title></item>" * 500
    + b"</channel></rss>"
)


@pytest.fixture
def hostile_feeds() -> Iterator[str]:
    """Feed addresses that answer badly: /redirect sends to a file on this machine, /bomb is
    50 KB of gzip that unpacks to 50 MB, /damaged is gzip cut short, /brotli a coding nobody
    asked for; /gzip and /deflate are a good feed packed."""
    bodies = {
        "/bomb": ("gzip", gzip.compress(b"\0" * 50_000_000, compresslevel=9)),
        "/damaged": ("gzip", gzip.compress(FEED)[:-30] + b"\xff" * 30),
        "/brotli": ("br", b"\x0b\x01\x80hello\x03"),
        "/gzip": ("gzip", gzip.compress(FEED)),
        "/deflate": ("deflate", zlib.compress(FEED)),
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", "file:///etc/passwd")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            coding, body = bodies[self.path]
            self.send_response(200)
            self.send_header("Content-Encoding", coding)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_feed_that_redirects_to_a_file_is_not_read(hostile_feeds: str) -> None:
    with pytest.raises(FeedError, match="unsupported protocol 'file://'"):
        FeedFetcher(timeout=5).fetch(f"{hostile_feeds}/redirect")


def test_a_feed_that_unpacks_past_the_limit_is_refused(hostile_feeds: str) -> None:
    """The limit counts what the feed unpacks to, not the 50 KB that came."""
    with pytest.raises(FeedError, match="too large: at least .* over the limit of 1 MB"):
        FeedFetcher(timeout=5, max_bytes=1_000_000).fetch(f"{hostile_feeds}/bomb")


def test_a_feed_that_unpacks_past_the_limit_is_never_held_unpacked(hostile_feeds: str) -> None:
    """Refused with at most the limit and one slice in memory: the 50 KB came in one piece, and
    unpacked whole it would have been 50 MB at once."""
    tracemalloc.start()
    try:
        with pytest.raises(FeedError, match="too large"):
            FeedFetcher(timeout=5, max_bytes=1_000_000).fetch(f"{hostile_feeds}/bomb")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, f"{peak / 1e6:.1f} MB held at the peak"


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_packed_feed_is_unpacked(hostile_feeds: str, coding: str) -> None:
    assert FeedFetcher(timeout=5).fetch(f"{hostile_feeds}/{coding}") == FEED


@pytest.mark.parametrize(
    ("path", "message"),
    [("/damaged", "its gzip content is damaged"), ("/brotli", "content coding 'br', not asked")],
)
def test_a_damaged_or_unasked_packing_is_refused_with_a_reason(
    hostile_feeds: str, path: str, message: str
) -> None:
    with pytest.raises(FeedError, match=message):
        FeedFetcher(timeout=5).fetch(f"{hostile_feeds}{path}")


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
    command.downgrade(_alembic_config(any_database.engine), "0013")
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
