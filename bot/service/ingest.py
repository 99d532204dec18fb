"""Listing files in: each content read once, every paper stored once (de-duplicated against the
batch and the database), a bad file recorded with its reason while the others go on. Files are
only ever read. A feed's content comes in through `ingest_bytes` too (bot/service/feed_polling.py
decides when a feed is polled)."""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from sqlmodel import Session

from bot.core.identity import Identity, PaperSet, deduplicate, filter_view
from bot.core.listings import EmptyListing, ListingError, parse_listing
from bot.core.paper import Paper
from bot.core.render import plural
from bot.core.states import FileStatus
from bot.core.text import first_line
from bot.service import Clock, followups, utc_now
from bot.store import Database, files, papers

log = logging.getLogger(__name__)

MAX_BYTES = 50_000_000  # the default of PAPERBOT_INBOX_MAX_BYTES


IGNORED_SUFFIXES = (".part", ".tmp", "~", ".crdownload", ".swp")


def is_ignored(path: Path) -> bool:
    """Hidden and temporary files are never listings."""
    return path.name.startswith(".") or path.name.endswith(IGNORED_SUFFIXES)


@dataclass
class FileReport:
    path: str
    status: FileStatus
    format: str | None = None
    entries: int = 0
    new: int = 0
    duplicates: int = 0
    error: str | None = None
    announced: date | None = None  # the latest announcement date the file's papers carry
    new_paper_ids: list[int] = field(default_factory=list)
    updated_paper_ids: list[int] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "status": self.status,
            "format": self.format,
            "entries": self.entries,
            "new": self.new,
            "duplicates": self.duplicates,
            "error": self.error,
        }


@dataclass
class IngestReport:
    files: list[FileReport] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return sum(1 for f in self.files if f.status == FileStatus.FAILED)

    @property
    def new_paper_ids(self) -> list[int]:
        return [i for f in self.files for i in f.new_paper_ids]

    @property
    def updated_paper_ids(self) -> list[int]:
        return [i for f in self.files for i in f.updated_paper_ids]

    def totals(self) -> dict[str, int]:
        return {
            "files": len(self.files),
            "entries": sum(f.entries for f in self.files),
            "new": sum(f.new for f in self.files),
            "duplicates": sum(f.duplicates for f in self.files),
            "failed": self.failed,
        }

    def as_json(self) -> dict[str, object]:
        return {"files": [f.as_json() for f in self.files], "totals": self.totals()}

    def summary_line(self) -> str:
        t = self.totals()
        counts = {s: sum(1 for f in self.files if f.status == s) for s in FileStatus}
        parts = [f"{n} {s}" for s, n in counts.items() if n]
        return (
            f"{plural(t['files'], 'file')} ({', '.join(parts) or 'none'}): "
            f"{plural(t['entries'], 'entry', 'entries')}, {plural(t['new'], 'new paper')}, "
            f"{plural(t['duplicates'], 'duplicate')}"
        )


def store_papers(
    session: Session, incoming: Sequence[Paper], *, now: datetime
) -> tuple[list[int], list[int], int]:
    """Store a batch of parsed papers, de-duplicated against each other and the database, and
    the follow-ups of the stored papers they bring news of (bot/service/followups.py).
    Returns (ids of new papers, ids of stored papers that got a newer version, duplicates)."""
    identities = [Identity.of(p) for p in incoming]
    known = papers.find_known_papers(session, identities=identities)
    distinct = PaperSet(known)
    for paper in incoming:
        distinct.add(paper)
    new_ids = papers.insert_papers(
        session, papers=[e.paper for e in distinct.entries if e.paper_id is None], now=now
    )
    updated_ids: list[int] = []
    before = dict(known)
    for entry in distinct.entries:
        if entry.paper_id is not None and entry.changed:
            stored = before[entry.paper_id]
            # Another source's record (PubMed's MeSH terms, a journal's name, an abstract where
            # there was none) can match filters the stored record did not: the paper is then
            # matched again, in this transaction's mark, for the chats it newly matches.
            changes_view = filter_view(stored) != filter_view(entry.paper)
            papers.update_paper(
                session,
                paper_id=entry.paper_id,
                paper=entry.paper,
                now=now,
                newer=entry.newer,
                published=entry.published,
                matched_as=stored if changes_view else None,
            )
            if entry.newer:
                updated_ids.append(entry.paper_id)
    changes = [
        (entry.paper_id, before[entry.paper_id], entry.paper)
        for entry in distinct.entries
        if entry.paper_id is not None and entry.changed
    ]
    followups.record_followups(session, changes=changes, now=now)  # in the papers' transaction
    return new_ids, updated_ids, distinct.duplicates


PROBLEMS_NAMED = 10  # a file's report names its first problems and counts the others


def problems_line(problems: Sequence[str]) -> str | None:
    """A file's problems in one line for its report, the first few named (a hostile file may
    have a hundred thousand bad entries)."""
    if not problems:
        return None
    more = len(problems) - PROBLEMS_NAMED
    return "; ".join(problems[:PROBLEMS_NAMED]) + (f"; and {more} more" if more > 0 else "")


def ingest_bytes(
    database: Database,
    data: bytes,
    *,
    path: str,
    file_date: date | None,
    now: datetime,
    retry_failed: bool,
) -> FileReport:
    """Ingest one file's content, once per content hash. A file recorded as failed is read again
    only with retry_failed (an operator's explicit `paperbot ingest`), never by the inbox scan."""
    content_hash = hashlib.sha256(data).hexdigest()
    with database.session() as session:
        seen = files.find_file(session, content_hash=content_hash)
    if seen and not (seen.status == FileStatus.FAILED and retry_failed):
        note = f"already read as {seen.path}" if seen.path != path else "already read"
        if seen.status == FileStatus.FAILED:
            note = f"failed before and unchanged since: {seen.error}"
        return FileReport(path, FileStatus.SKIPPED, seen.format, error=note)
    try:
        parsed = parse_listing(data, source=Path(path).name, file_date=file_date)
    except ListingError as error:
        if isinstance(error, EmptyListing):  # read, and nothing in it: a feed's quiet day
            report = FileReport(path, FileStatus.INGESTED, error.format, error=str(error))
        else:
            report = FileReport(path, FileStatus.FAILED, error=str(error))
            log.warning("listing %s failed: %s", path, error)
        with database.session() as session:
            _record(session, report, content_hash, len(data), now)
        return report
    with database.session() as session:
        new_ids, updated_ids, duplicates = store_papers(session, parsed.papers, now=now)
        report = FileReport(
            path,
            FileStatus.INGESTED,
            parsed.format,
            entries=len(parsed.papers),
            new=len(new_ids),
            duplicates=duplicates,
            error=problems_line(parsed.problems),
            announced=max((p.announced for p in parsed.papers if p.announced), default=None),
            new_paper_ids=new_ids,
            updated_paper_ids=updated_ids,
        )
        _record(session, report, content_hash, len(data), now)
    return report


def _record(
    session: Session, report: FileReport, content_hash: str, size: int, now: datetime
) -> None:
    files.record_file(
        session,
        listing=files.ListingFile(
            content_hash=content_hash,
            path=report.path,
            size=size,
            format=report.format,
            status=report.status,
            entries=report.entries,
            new=report.new,
            duplicates=report.duplicates,
            error=report.error,
            seen_at=now,
            announced=report.announced,
        ),
    )


def _listed(path: Path) -> bool:
    """Anything in a folder but folders (walked themselves): a named pipe or a device is listed
    so that it is refused with its reason, not passed over in silence. A link to nothing is no
    file."""
    try:
        return not stat.S_ISDIR(path.stat().st_mode)
    except OSError:
        return False


def list_listing_files(paths: Iterable[Path]) -> list[Path]:
    """Files named directly, plus the files inside named folders (recursively, sorted), hidden
    and temporary ones left out."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                p
                for p in sorted(path.rglob("*"))
                if _listed(p)
                and not any(is_ignored(Path(part)) for part in p.relative_to(path).parts)
            )
        else:
            found.append(path)
    return found


def _outside(path: Path, folder: Path) -> Path | None:
    """Where a file found in `folder` really is, when that is outside it (a symbolic link to
    /etc/passwd dropped in the inbox); None when it is inside (or gone: reading it will say)."""
    try:
        target, root = path.resolve(strict=True), folder.resolve(strict=True)
    except (OSError, RuntimeError):  # gone meanwhile, or a loop of links
        return None
    return None if target.is_relative_to(root) else target


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


NOT_REGULAR = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def refusal(status: os.stat_result, max_bytes: int) -> str | None:
    """Why a file is not read, judged by its stat alone (a named pipe is never opened: opening
    one waits for a writer; /dev/zero never ends), for a person; None to read it."""
    for is_kind, kind in NOT_REGULAR:
        if is_kind(status.st_mode):
            return f"{kind}, not a regular file: not read"
    return too_large(status.st_size, max_bytes) if status.st_size > max_bytes else None


def _read_listing(path: Path, max_bytes: int = MAX_BYTES) -> bytes | str:
    """The file's bytes, or why they are not read, for a person. Judged by its stat before it is
    opened, and again by what was opened (without waiting: a pipe put in its place meanwhile
    does not hang the scan), read no further than the limit (a file that grew meanwhile). A
    file's own date (its mtime) is not an announcement date: a listing that carries none leaves
    its papers undated, rather than "announced today" by whenever the file was copied."""
    try:
        if (why := refusal(path.stat(), max_bytes)) is not None:
            return why
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            if (why := refusal(os.fstat(file.fileno()), max_bytes)) is not None:
                return why
            data = file.read(max_bytes + 1)
    except OSError as error:
        return f"cannot read the file: {error.strerror or error}"
    return data if len(data) <= max_bytes else too_large(len(data), max_bytes, at_least=True)


def too_large(size: int, max_bytes: int, *, at_least: bool = False) -> str:
    """Why a file or feed is not read, for a person (`at_least`: a feed cut off as it came)."""
    shown = f"{'at least ' if at_least else ''}{size / 1e6:.1f} MB"
    return (
        f"too large: {shown}, over the limit of {max_bytes / 1e6:g} MB "
        "(PAPERBOT_INBOX_MAX_BYTES); not read"
    )


def _ingest_file(
    database: Database, path: Path, *, now: datetime, retry_failed: bool, max_bytes: int
) -> FileReport:
    """One file inside its own guard: whatever goes wrong with it (an error nobody foresaw, a
    value the database refuses) is recorded as its failure with the reason, logged once, and
    the next file is read. Only the database out of reach ends the scan: every file after
    would fail alike, and the job says so in one line."""
    try:
        return _ingest_path(database, path, now=now, retry_failed=retry_failed, max_bytes=max_bytes)
    except Exception as error:
        if database.out_of_reach(error) is not None:
            raise
        log.debug("listing %s failed", path, exc_info=True)
        reason = f"could not be ingested: {first_line(error)[:500]}"
        try:
            return _refuse(database, path, reason, now=now, retry_failed=retry_failed)
        except Exception as also:
            if database.out_of_reach(also) is not None:
                raise
            log.warning("listing %s failed: %s (not recorded: %s)", path, reason, also)
            return FileReport(str(path), FileStatus.FAILED, error=reason)


def _ingest_path(
    database: Database, path: Path, *, now: datetime, retry_failed: bool, max_bytes: int
) -> FileReport:
    content = _read_listing(path, max_bytes)
    if isinstance(content, str):
        return _refuse(database, path, content, now=now, retry_failed=retry_failed)
    return ingest_bytes(
        database, content, path=str(path), file_date=None, now=now, retry_failed=retry_failed
    )


def _refuse(
    database: Database, path: Path, reason: str, *, now: datetime, retry_failed: bool
) -> FileReport:
    """A file not read (over the limit, not a regular file, unreadable) or not ingested,
    recorded as failed with its reason: keyed by its name and stat instead of its content, so
    that the scan reports it once, until it changes (a chmod that makes it readable, too). A
    file that is not there (gone meanwhile, or misnamed to `paperbot ingest`) is only reported:
    there is nothing to recognise at the next scan."""
    report = FileReport(str(path), FileStatus.FAILED, error=reason)
    try:
        found = path.stat()
    except OSError:
        return report
    stamp = f"{found.st_size}:{found.st_mtime_ns}:{found.st_mode:o}:{found.st_uid}:{found.st_gid}"
    key = hashlib.sha256(f"refused:{path}:{stamp}".encode()).hexdigest()
    with database.session() as session:
        seen = files.find_file(session, content_hash=key)
        if seen is not None and not retry_failed:
            return FileReport(str(path), FileStatus.SKIPPED, error=f"failed before: {seen.error}")
        _record(session, report, key, found.st_size, now)
    log.warning("listing %s failed: %s", path, reason)
    return report


def ingest_paths(
    database: Database,
    paths: Iterable[Path],
    *,
    clock: Clock = utc_now,
    max_bytes: int = MAX_BYTES,
) -> IngestReport:
    """`paperbot ingest`: every file named or inside a named folder, once each."""
    report = IngestReport()
    for path in list_listing_files(paths):
        now = clock()
        found = _ingest_file(database, path, now=now, retry_failed=True, max_bytes=max_bytes)
        report.files.append(found)
    log.info("ingest: %s", report.summary_line())
    return report


Progress = Callable[[int, int], None]  # (the file about to be read, counted from 1; of how many)


def scan_inbox(
    database: Database,
    inbox: Path,
    *,
    settle_seconds: float,
    clock: Clock = utc_now,
    max_bytes: int = MAX_BYTES,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
) -> IngestReport:
    """The inbox job: new contents only, files still being written wait for the next scan, a bad
    file is recorded and not retried until its content changes, a link to a file outside the
    inbox is not followed. Files are only ever read. `progress` is told of each file before it
    is read; `stop`, once set, ends the scan before the next file (each file read is stored in
    its own transaction: what was read stays, the rest is read by the next scan)."""
    report = IngestReport()
    if inbox_problem(inbox) is not None:  # said once by the caller, and by /healthz
        return report
    paths = list_listing_files([inbox])
    for number, path in enumerate(paths, 1):
        if stop is not None and stop.is_set():
            log.info("inbox scan stopped after %d of %d files", number - 1, len(paths))
            break
        if progress is not None:
            progress(number, len(paths))
        if (target := _outside(path, inbox)) is not None:
            error = f"a link to {target}, outside the inbox: not read"
            report.files.append(FileReport(str(path), FileStatus.SKIPPED, error=error))
            continue
        now, mtime = clock(), _mtime(path)
        if mtime is not None and now.timestamp() - mtime < settle_seconds:
            written = FileReport(str(path), FileStatus.WAITING, error="still being written")
            report.files.append(written)
            continue
        found = _ingest_file(database, path, now=now, retry_failed=False, max_bytes=max_bytes)
        report.files.append(found)
    return report


def inbox_problem(inbox: Path) -> str | None:
    """Why the inbox folder cannot be read now (gone, as an NFS mount that went away; not a
    folder; not readable), in one line naming it and its setting; None when it can be read.
    Listing a folder it cannot read, Python's glob finds nothing, and says nothing."""
    shown = inbox if inbox.is_absolute() else f"{inbox} ({inbox.absolute()})"
    try:
        # opened and its first entry read: one directory read of 32 KiB whatever the folder
        # holds, not a listing (/healthz at each probe: 0.3 ms at 100,000 files, 58 ms to list)
        with os.scandir(inbox) as entries:
            next(entries, None)
    except FileNotFoundError:
        why = "is missing"
    except NotADirectoryError:
        why = "is not a folder"
    except OSError as error:
        why = f"cannot be read ({error.strerror or type(error).__name__})"
    else:
        return None
    return f"the inbox folder {shown} {why} (PAPERBOT_INBOX_DIR, inbox.dir)"


def papers_from_files(paths: Iterable[Path]) -> tuple[list[Paper], list[str]]:
    """Every paper in the given files or folders, de-duplicated as ingestion would, nothing
    stored; plus one problem line per file that could not be read."""
    found: list[Paper] = []
    problems: list[str] = []
    for path in list_listing_files(paths):
        content = _read_listing(path)
        if isinstance(content, str):
            problems.append(f"{path}: {content}")
            continue
        try:
            found += parse_listing(content, source=path.name).papers
        except ListingError as error:
            problems.append(f"{path}: {error}")
    return deduplicate(found), problems
