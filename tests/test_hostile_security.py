"""Security, each point with a test that can fail (tests/test_security.py has the token's; the
inbox and the names in listings and feeds are in tests/service/test_ingest.py and
tests/test_feeds.py).

* SQL only with bound parameters: ruff's S608 for SQL built from strings, and a scan of bot/ for
  what S608 cannot see (DDL built from strings, and text()/execute() given a string built at run
  time), with an allow-list for DDL that cannot take parameters; and hostile text that reaches the
  store through the commands comes back as it was written, the tables intact.
* A group's filters and settings change only by its administrators: every command of the table
  and every button, pressed by a member who is not one, leaves the chat as it was (whatever
  flag a new command forgets to set).
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.commands import COMMANDS, Caller, handle_text, import_file, press_button
from bot.config import InboxSettings, Settings
from bot.runtime import Runtime
from bot.sender import Limits
from bot.service import feedback, subscriptions
from bot.store import Database, chats, deliveries, filters, library
from tests.conftest import ROOT, Clock
from tests.listing_cases import CASES
from tests.transports import RecordingTransport

# -- SQL only with bound parameters ---------------------------------------------------------------

# ruff's S608 (pyproject.toml) fails on SELECT, INSERT, UPDATE and DELETE built from strings. This
# scan stays for what S608 does not look at: DDL built from strings (it takes no bound parameters,
# so a value gets formatted into it), and a string built at run time handed to what runs SQL,
# through a name or with no SQL word in its constant part.
DDL = re.compile(r"\b(?:DROP|CREATE|ALTER|PRAGMA|TRUNCATE|GRANT|VACUUM)\b")  # upper case, as here
RUNS_SQL = {"text", "exec_driver_sql", "execute", "executemany", "executescript"}
# DDL built from a string: (file, the SQL's start), and why it is safe. An entry needs its reason.
ALLOWED: dict[tuple[str, str], str] = {
    ("bot/store/database.py", "PRAGMA cache_size=-"): (
        "a PRAGMA takes no bound parameters; its value is int() of the validated setting "
        "database.sqlite_cache_mb"
    ),
}


def _literal_text(node: ast.AST) -> str:
    """The constant text inside a formatted string (f-string parts, the left of % or +)."""
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp):
        return _literal_text(node.left) + _literal_text(node.right)
    return ""


def _is_formatted(node: ast.AST) -> bool:
    """A string built at run time: an f-string with values, % or + on strings, .format, .join."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod | ast.Add):
        return bool(_literal_text(node)) or _is_formatted(node.left) or _is_formatted(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("format", "join") and isinstance(node.func.value, ast.Constant)
    return False


def _runs_sql(node: ast.AST) -> ast.expr | None:
    """The SQL a call to text(), execute() and the like is given, if it is one."""
    if not (isinstance(node, ast.Call) and node.args):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return node.args[0] if name in RUNS_SQL else None


def sql_findings(source: str, file: str) -> list[str]:
    """DDL built from strings in `source`, and SQL run from a string built at run time."""
    tree = ast.parse(source)
    built = {  # names some assignment binds to a string built at run time
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _is_formatted(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        sql = _runs_sql(node)
        if _is_formatted(node) and DDL.search(_literal_text(node)):
            found.append((node, "DDL built from a string"))
        elif sql is not None and (
            _is_formatted(sql) or (isinstance(sql, ast.Name) and sql.id in built)
        ):
            found.append((sql, "SQL run from a string built at run time"))
    return [
        f"{file}:{node.lineno}: {what}: {ast.unparse(node)[:40]}"
        for node, what in found
        if (file, _literal_text(node).strip()[:30]) not in ALLOWED
    ]


def test_sql_is_only_run_with_bound_parameters() -> None:
    found = [
        finding
        for path in sorted((ROOT / "bot").rglob("*.py"))
        for finding in sql_findings(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert found == []
    assert all(reason.strip() for reason in ALLOWED.values())


@pytest.mark.parametrize(
    "source",
    [
        'query = "WHERE id = " + name\nconnection.exec_driver_sql(query)',
        'text("; ".join(parts))',
        'op.execute(f"DROP TABLE {name}")',
        'index = f"CREATE INDEX {name} ON paper (title)"',
        'cursor.execute("PRAGMA cache_size=%d" % size)',
    ],
)
def test_the_scan_finds_sql_built_from_strings(source: str) -> None:
    assert sql_findings(source, "example.py")


@pytest.mark.parametrize(
    "source",
    [
        'connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key})',
        'REVISION = "SELECT version_num FROM alembic_version"\nconnection.execute(text(REVISION))',
        "connection.exec_driver_sql(insert.sql, values)",  # compiled from SQLAlchemy's insert()
        'cursor.execute("PRAGMA journal_mode=WAL")',
        'message = f"Select {n} papers"',
    ],
)
def test_the_scan_lets_bound_and_constant_sql_pass(source: str) -> None:
    assert sql_findings(source, "example.py") == []


@pytest.mark.parametrize(
    "source",
    [
        'session.execute(text(f"SELECT * FROM chat WHERE id = {chat_id}"))',
        'connection.exec_driver_sql("DELETE FROM filter WHERE id = %s" % filter_id)',
        'query = "UPDATE chat SET mode = \'" + mode + "\'"',
        "connection.execute(text(\"SELECT * FROM paper WHERE title = '{}'\".format(title)))",
    ],
)
def test_ruff_finds_sql_built_from_strings_in_bot(source: str) -> None:
    """What the scan left to ruff: the project's configuration holds S608 for bot/."""
    ruff = [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise"]
    checked = subprocess.run(
        [*ruff, "--stdin-filename", "bot/example.py", "-"],
        input=source,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert " S608 " in checked.stdout, checked.stdout + checked.stderr


INJECTIONS = [  # each a filter the parser takes
    "x'; DROP TABLE chat; SELECT 1",
    "y' OR '1'='1",
    "z%' OR 1=1",
    "w_%\\",
    "v OR 1; DELETE FROM filter WHERE 1=1",
    "u' UNION SELECT token FROM settings",
    't"; DROP TABLE paper; "',
]


@pytest.fixture
def runtime(database: Database, clock: Clock, tmp_path: Path) -> Runtime:
    settings = Settings(inbox=InboxSettings(dir=tmp_path, settle_seconds=0))
    return Runtime.build(settings, database, RecordingTransport(), clock=clock, limits=Limits.off())


async def say(runtime: Runtime, text: str, caller: Caller) -> str:
    reply = await handle_text(runtime, caller, text, bot_username="paperbot")
    assert reply is not None
    return reply.text


async def test_text_shaped_like_sql_is_stored_as_written(runtime: Runtime) -> None:
    bob = Caller(2)
    await say(runtime, "/subscribe mamba", bob)
    for text in INJECTIONS:
        assert "saved" in await say(runtime, f"/subscribe {text}", Caller(1))
    await say(runtime, "/timezone x'; DROP TABLE chat; --", Caller(1))
    await say(runtime, "/like 2601.00001'; DROP TABLE feedback; --", Caller(1))
    assert [f.source for f in subscriptions.list_filters(runtime.database, chat_id=1)] == INJECTIONS
    assert [f.source for f in subscriptions.list_filters(runtime.database, chat_id=2)] == ["mamba"]
    with runtime.database.session() as session:
        assert len(chats.all_chats(session)) == 2


# -- a group's filters change only by its administrators ------------------------------------------

GROUP = -5
NOW = datetime(2026, 10, 22, tzinfo=UTC)
# Every command, with arguments that would change something if anyone could.
SAID = {
    "start": "/start",
    "help": "/help",
    "subscribe": "/subscribe diffusion",
    "list": "/list",
    "unsubscribe": "/unsubscribe all",
    "topic": "/topic 1 general",
    "preview": "/preview diffusion",
    "similar": "/similar 2610.18001",
    "mode": "/mode instant",
    "time": "/time 13:30",
    "timezone": "/timezone Europe/Berlin",
    "quiet": "/quiet 22:00-07:00",
    "updates": "/updates on",
    "followups": "/followups off",
    "digest": "/digest",
    "like": "/like 2610.18001",
    "dislike": "/dislike 2610.18001",
    "tune": "/tune",
    "top": "/top month",
    "layout": "/layout full",
    "pause": "/pause",
    "resume": "/resume",
    "status": "/status",
    "export": "/export",
    "import": "/import\ndiffusion\nlike 2610.18001",
    "saved": "/saved",
    "language": "/language de",
    "stop": "/stop",
    "stats": "/stats",
}


async def unread() -> bytes:
    raise AssertionError("a member's file is not fetched")


async def _no() -> bool:
    return False


async def _yes() -> bool:
    return True


MEMBER_ONLY = Caller(GROUP, "supergroup", _no)


def state(runtime: Runtime) -> tuple[object, ...]:
    """What the chat's administrators decide: its settings, filters and ratings (its ledger
    moves with deliveries: /digest, open to all, sends what waits)."""
    with runtime.database.session() as session:
        chat = chats.get_chat(session, chat_id=GROUP)
        kept = filters.chat_filters(session, chat_id=GROUP)
        saved = library.saved_ids(session, chat_id=GROUP)
        imported = library.count_library(session, chat_id=GROUP)
    assert chat is not None
    settings = dataclasses.replace(chat, last_digest_at=NOW, created_at=NOW)
    ratings = feedback.counts(runtime.database, chat_id=GROUP)
    return (
        settings,
        [(f.source, f.canonical, f.topic) for f in kept],
        ratings,
        saved,
        imported,
    )


def ledger(runtime: Runtime) -> list[int]:
    with runtime.database.session() as session:
        return [row.id for row in deliveries.all_deliveries(session, chat_id=GROUP)]


async def test_a_member_who_is_not_an_administrator_changes_nothing(
    runtime: Runtime, tmp_path: Path
) -> None:
    assert set(SAID) == {c.name for c in COMMANDS}  # a new command is added here too
    shutil.copy(CASES / "arxiv_rss_three.xml", tmp_path / "day.xml")
    os.utime(tmp_path / "day.xml", (0, 0))  # long settled
    admin = Caller(GROUP, "supergroup", _yes, topic=5)  # a forum's: the filter in topic 5
    await say(runtime, '/subscribe "kv cache"', admin)
    runtime.scan()  # the day's papers, matched into the group's ledger
    await say(runtime, "/like 2610.18002", admin)
    before = state(runtime)
    [row] = ledger(runtime)
    assert before[1] and before[2] == (1, 0)
    for text in SAID.values():
        await say(runtime, text, MEMBER_ONLY)
        assert state(runtime) == before, text
    for command in (c for c in COMMANDS if c.reads_alone):  # alone: asked, answered to anyone
        await say(runtime, f"/{command.name}", MEMBER_ONLY)
        assert state(runtime) == before, command.name
    await press_button(runtime, admin, f"save:{row}")  # a saved paper a member cannot take out
    before = state(runtime)
    assert before[3] and before[2] == (1, 0)
    presses = (f"like:{row}", f"dislike:{row}", f"similar:{row}", "remove:1", "stop:yes")
    presses += (f"save:{row}", f"unsave:{before[3][0]}:0", "libsim:1", "libau:1:0")
    for data in presses:
        await press_button(runtime, MEMBER_ONLY, data)
        assert state(runtime) == before, data
    await say(runtime, "/import\n2610.18001", MEMBER_ONLY)  # a library: arXiv ids
    refused = await import_file(runtime, MEMBER_ONLY, 11, unread)
    assert refused.text == "Only this group's administrators can import a library."
    assert state(runtime) == before
