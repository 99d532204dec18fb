"""`paperbot` command line: argument parsing and wiring only."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot import __version__
from bot.config import Settings, SettingsError, StartupError, load_settings
from bot.config_report import config_json, config_text
from bot.core.query import InvalidQuery
from bot.core.render import plural
from bot.core.text import first_line
from bot.logs import redact, setup_logging
from bot.service import ingest
from bot.service.preview import Preview, preview
from bot.service.status import store_status
from bot.store import Database, DatabaseUrlError, SchemaAhead, SchemaBehind, StoreError

if TYPE_CHECKING:
    from bot.sender import Transport

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
# The database's schema is newer than this code (rolled back): distinct, so that systemd
# (RestartPreventExitStatus) and compose's migrate step stop instead of retrying for ever.
EXIT_SCHEMA_AHEAD = 3


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperbot",
        description="New papers that match your filters, in Telegram or the terminal.",
    )
    parser.add_argument("--version", action="version", version=f"paperbot {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = commands.add_parser("ingest", help="ingest listing files or folders once")
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ingest.add_argument("--json", action="store_true", help="one JSON document on stdout")

    preview = commands.add_parser(
        "preview", help="papers matching a filter, from files or the database (exit 2: bad filter)"
    )
    preview.add_argument("filter", metavar="FILTER")
    preview.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    preview.add_argument("--json", action="store_true", help="one JSON document on stdout")

    commands.add_parser("run", help="the service: Telegram polling, inbox, digests, delivery")
    commands.add_parser(
        "worker", help="the service without Telegram updates, beside `run` on one PostgreSQL"
    )

    console = commands.add_parser("console", help="chat with the bot in the terminal")
    console.add_argument(
        "--chat-id", type=int, default=1, help="the chat to be (default 1); each has its filters"
    )
    console.add_argument(
        "--topic",
        type=int,
        default=None,
        metavar="ID",
        help="be a forum group's topic ID: /subscribe binds filters to it, /topic moves them",
    )
    console.add_argument(
        "--language",
        default=None,
        metavar="CODE",
        help="speak as a user whose Telegram is in CODE (de, pt-br): a new chat's language",
    )

    status = commands.add_parser("status", help="files, papers, chats and pending deliveries")
    status.add_argument("--json", action="store_true", help="one JSON document on stdout")

    config = commands.add_parser(
        "config", help="the settings in effect, each with where it came from (secrets masked)"
    )
    config.add_argument("--json", action="store_true", help="one JSON document on stdout")

    database = commands.add_parser("db", help="database maintenance")
    database_commands = database.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    database_commands.add_parser("upgrade", help="apply schema migrations")
    backup = database_commands.add_parser(
        "backup", help="copy the SQLite database while it runs, to a new file (PostgreSQL: pg_dump)"
    )
    backup.add_argument("path", type=Path, metavar="PATH")
    return parser


def _print_json(document: object) -> None:
    json.dump(document, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def _cmd_ingest(args: argparse.Namespace, settings: Settings, database: Database) -> int:
    report = ingest.ingest_paths(database, args.paths, max_bytes=settings.inbox.max_bytes)
    if args.json:
        _print_json(report.as_json())
    else:
        for file in report.files:
            detail = (
                f"{plural(file.entries, 'entry', 'entries')}, {file.new} new, "
                f"{plural(file.duplicates, 'duplicate')}"
            )
            line = f"{file.status:8} {file.path} ({file.format or '?'}; {detail})"
            print(line + (f": {file.error}" if file.error else ""))
        print(report.summary_line())
    return EXIT_FAILED if report.failed else EXIT_OK


def _cmd_status(args: argparse.Namespace, database: Database) -> int:
    from bot.service.status import feed_json, feed_line, feed_status

    status, feeds = store_status(database), feed_status(database)
    if args.json:
        _print_json({**status.as_json(), "feeds": [feed_json(feed) for feed in feeds]})
    else:
        files = ", ".join(f"{n} {s}" for s, n in sorted(status.files.items())) or "none"
        print(f"papers: {status.papers}")
        print(f"files: {files}")
        print(f"last announcement: {status.last_announcement or 'none yet'}")
        chats = ", ".join(f"{n} {state}" for state, n in status.chats.items())
        print(f"chats: {chats}; filters: {status.filters}")
        ledger = (
            ", ".join(f"{n} {s}" for s, n in sorted((status.deliveries or {}).items())) or "none"
        )
        print(f"deliveries: {ledger} ({status.pending_deliveries} pending)")
        print(f"feeds: {len(feeds) or 'none polled'}")
        for feed in feeds:
            print(f"  {feed_line(feed)}")
    return EXIT_OK


def _marked(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with each matched span in **bold** (markdown-style, readable in any terminal)."""
    out, last = [], 0
    for start, end in spans:
        out += [text[last:start], "**", text[start:end], "**"]
        last = end
    return "".join(out) + text[last:]


def _print_preview(result: Preview) -> None:
    print(f"filter: {result.filter}")
    for paper, marks in result.matches:
        spans = {
            f: [(h.start, h.end) for h in marks if h.field == f] for f in ("title", "abstract")
        }
        derived = " (headline derived from the abstract)" if paper.title_derived else ""
        print()
        print(_marked(paper.title, spans["title"]) + derived)
        details = [paper.authors_line, " ".join(paper.categories), paper.abs_url or ""]
        print("  " + " · ".join(d for d in details if d))
        print("  " + _marked(paper.abstract, spans["abstract"]))
    count = len(result.matches)
    print(f"\n{count} matching paper{'s' if count != 1 else ''}")


def open_database(settings: Settings, *, upgrade: bool = False) -> Database:
    """The database of the settings, with their SQLite tuning; PostgreSQL upgraded only when
    `upgrade` (see Database.open)."""
    return Database.open(
        settings.database.url, upgrade=upgrade, sqlite_cache_mb=settings.database.sqlite_cache_mb
    )


def _cmd_preview(args: argparse.Namespace, settings: Settings) -> int:
    database = None if args.paths else open_database(settings)
    try:
        result = preview(database, args.filter, rules=settings.filters.rules, paths=args.paths)
    except InvalidQuery as error:
        print(f"paperbot: bad filter: {error}", file=sys.stderr)
        if error.position is not None:
            print(f"  {args.filter}\n  {' ' * error.position}^", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if database is not None:
            database.close()
    for problem in result.problems:
        print(f"paperbot: skipped {problem}", file=sys.stderr)
    if args.json:
        _print_json(result.as_json())
    else:
        _print_preview(result)
    return EXIT_OK


def _console_folder(settings: Settings) -> Path:
    """Where the console keeps its log and history: next to the database (`data` for PostgreSQL)."""
    return Database.folder(settings.database.url) or Path("data")


def _cmd_console(args: argparse.Namespace, settings: Settings, database: Database) -> int:
    from bot.console import ButtonBoard, TerminalTransport, run_console
    from bot.runtime import Runtime
    from bot.sender import Limits

    board = ButtonBoard()
    transport = TerminalTransport(board)
    runtime = Runtime.build(settings, database, transport, limits=Limits.off())
    transport.translator = runtime.app.translator  # a topic named in the chat's language
    return run_console(
        runtime,
        chat_id=args.chat_id,
        topic=args.topic,
        language=args.language,
        board=board,
        history=_console_folder(settings) / "console_history",  # kept only at a terminal
        log_file=_log_file(args, settings),
    )


def _cmd_service(command: str, settings: Settings, database: Database) -> int:
    """`paperbot run` (Telegram's updates and the jobs) or `paperbot worker` (the jobs)."""
    from telegram.error import InvalidToken

    from bot.runtime import Runtime
    from bot.telegram.app import run_service
    from bot.telegram.worker import run_worker

    def make_runtime(transport: Transport) -> Runtime:
        return Runtime.build(settings, database, transport)

    serve = run_service if command == "run" else run_worker
    token = settings.require_token()
    try:
        serve(settings, token, make_runtime)
    except InvalidToken:  # Telegram's answer to a wrong token (401), or a wrong address's (404)
        print(
            "paperbot: Telegram refused the token: check PAPERBOT_TELEGRAM_TOKEN (and "
            f"PAPERBOT_TELEGRAM_API_URL, now {settings.telegram.api_url})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return EXIT_OK


def _cmd_config(args: argparse.Namespace, settings: Settings) -> int:
    """No token needed, no database opened: a check before the first start."""
    if args.json:
        _print_json(config_json(settings))
    else:
        print(config_text(settings))
    return EXIT_OK


def _cmd_db(args: argparse.Namespace, settings: Settings) -> int:
    if args.db_command == "backup":
        try:
            Database.backup(settings.database.url, args.path)
        except FileExistsError as error:
            print(f"paperbot: {error}", file=sys.stderr)
            return EXIT_USAGE
        print(f"database copied to {args.path}")
        return EXIT_OK
    before, after = Database.upgrade(settings.database.url)
    print(f"database at revision {after}" + (f" (was {before})" if before != after else ""))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `paperbot preview ... | head`: the reader left, nothing is wrong
        sys.stderr.close()
        return EXIT_OK


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = load_settings()
        if args.command in ("run", "worker"):
            settings.require_token()
    except SettingsError as error:
        print(f"paperbot: {error}", file=sys.stderr)
        return EXIT_USAGE
    token = settings.telegram.token
    secret = token.get_secret_value() if token else None
    try:
        setup_logging(
            "DEBUG" if args.verbose else settings.log.level,
            json_lines=settings.log.format == "json",
            log_file=_log_file(args, settings),
            secret=secret,
        )
        return _dispatch(args, settings)
    except DatabaseUrlError as error:
        print(f"paperbot: PAPERBOT_DATABASE_URL: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SchemaAhead as error:
        print(f"paperbot: {error}", file=sys.stderr)
        return EXIT_SCHEMA_AHEAD
    except SchemaBehind as error:  # the operator's step to take; restarting would not take it
        print(f"paperbot: {error}", file=sys.stderr)
        return EXIT_USAGE
    except StoreError as error:
        print(f"paperbot: {error}", file=sys.stderr)
        return EXIT_FAILED
    except SettingsError as error:  # a setting the start met: a port not this machine's
        print(f"paperbot: {error}", file=sys.stderr)
        return EXIT_USAGE
    except StartupError as error:  # the moment's: a port another process holds
        print(f"paperbot: {error}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as error:  # the unforeseen: one line, never a secret; -v logs the traceback
        logging.getLogger(__name__).debug("%s stopped", args.command, exc_info=True)
        message, kind = first_line(error), type(error).__name__
        line = redact(message if message == kind else f"{kind}: {message}", secret)
        print(f"paperbot: {args.command} stopped: {line} (-v shows where)", file=sys.stderr)
        return EXIT_FAILED


def _log_file(args: argparse.Namespace, settings: Settings) -> Path | None:
    """At a terminal the console's screen is the chat: its logs go to a file."""
    if args.command != "console":
        return None
    from bot.console import at_terminal

    return _console_folder(settings) / "paperbot.log" if at_terminal() else None


def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "config":
        return _cmd_config(args, settings)
    if args.command == "db":
        return _cmd_db(args, settings)
    if args.command == "preview":
        return _cmd_preview(args, settings)
    alone = None
    if args.command in ("run", "worker", "console"):  # one such process per SQLite file
        alone = Database.hold_alone(settings.database.url)
    service = args.command in ("run", "worker")
    database = open_database(settings, upgrade=service and settings.database.auto_upgrade)
    try:
        if args.command == "console":
            return _cmd_console(args, settings, database)
        if args.command in ("run", "worker"):
            return _cmd_service(args.command, settings, database)
        if args.command == "ingest":
            return _cmd_ingest(args, settings, database)
        return _cmd_status(args, database)
    finally:
        database.close()
        if alone is not None:
            alone.close()
