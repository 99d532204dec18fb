"""The log an operator reads (bot/logs.py): the level setting, JSON lines naming the job and the
chat, names that cannot forge a line, secrets left out of every format."""

from __future__ import annotations

import io
import json
import logging
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import jobs
from bot.logs import configured, escaped
from bot.service import ingest
from bot.store import Database
from bot.telegram.app import job_callback
from tests.conftest import SEEDS
from tests.telegram import conftest as telegram
from tests.telegram.conftest import TOKEN
from tests.test_cli import CASES, paperbot

make_world = telegram.make_world  # the fixture: a running bot (tests/telegram)

ADA = 101
FORGED = "a\nERROR forged.xml"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\nERROR forged.xml", "a\\nERROR forged.xml"),
        ("carriage\rreturn", "carriage\\rreturn"),
        ("tab\there", "tab\\there"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("nul\x00 del\x7f", "nul\\x00 del\\x7f"),
        ("next line\x85c1", "next line\\x85c1"),
        ("line\u2028separator", "line\\u2028separator"),
        ("Schrödinger — Łukasz 量子", "Schrödinger — Łukasz 量子"),
    ],
)
def test_control_characters_are_escaped(text: str, shown: str) -> None:
    assert escaped(text) == shown


@pytest.fixture
def captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """paperbot's handlers (text, then JSON) on the root logger, writing to one stream each."""
    streams = io.StringIO(), io.StringIO()
    handlers = [
        configured(logging.StreamHandler(streams[0]), secret=TOKEN),
        configured(logging.StreamHandler(streams[1]), json_lines=True, secret=TOKEN),
    ]
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.INFO)
    for handler in handlers:
        root.addHandler(handler)
    yield streams
    for handler in handlers:
        root.removeHandler(handler)
    root.setLevel(level)


def test_a_file_name_with_a_newline_in_the_inbox_logs_one_line(
    database: Database, tmp_path: Path, captured: tuple[io.StringIO, io.StringIO]
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(CASES / "binary_junk.bin", inbox / FORGED)
    ingest.scan_inbox(database, inbox, settle_seconds=0)
    text, json_lines = (stream.getvalue().splitlines() for stream in captured)
    assert all(TIMESTAMP.match(line) for line in text), text
    [warning] = [line for line in text if "forged" in line]
    assert " WARNING bot.service.ingest: listing " in warning
    assert "a\\nERROR forged.xml failed" in warning
    [record] = [json.loads(line) for line in json_lines if "forged" in line]
    assert record["level"] == "WARNING" and "a\\nERROR forged.xml failed" in record["message"]


def test_a_traceback_stays_whole_and_without_the_token(
    captured: tuple[io.StringIO, io.StringIO],
) -> None:
    try:
        raise OSError(f"POST https://api.telegram.org/bot{TOKEN}/getMe failed")
    except OSError:
        logging.getLogger("test.logs").error("calling %s", "x\ny", exc_info=True)
    text, json_text = (stream.getvalue() for stream in captured)
    lines = text.splitlines()
    assert lines[0].endswith("ERROR test.logs: calling x\\ny")
    assert lines[1] == "Traceback (most recent call last):"
    assert lines[-1] == "OSError: POST https://api.telegram.org/bot<token>/getMe failed"
    [record] = [json.loads(line) for line in json_text.splitlines()]
    assert record["message"] == "calling x\\ny"
    assert record["exc"].startswith("Traceback (most recent call last):\n")
    assert record["exc"].endswith("bot<token>/getMe failed")
    assert TOKEN not in text + json_text


async def test_json_lines_name_the_job_and_the_chat(
    make_world: Any, captured: tuple[io.StringIO, io.StringIO]
) -> None:
    world = await make_world()
    json_stream = captured[1]
    await world.command(ADA, "/start")
    world.server.block(ADA)
    await world.server.wait_for(lambda: "blocked by the user" in json_stream.getvalue())
    world.place(sorted(path.name for path in SEEDS.iterdir())[0])
    world.app.job_queue.run_once(job_callback(jobs.scan_inbox), 0)
    await world.server.wait_for(lambda: '"job": "scan_inbox"' in json_stream.getvalue())

    records = [json.loads(line) for line in json_stream.getvalue().splitlines()]
    [blocked] = [r for r in records if "blocked by the user" in r["message"]]
    assert blocked["chat_id"] == ADA and "job" not in blocked
    assert (blocked["level"], blocked["logger"]) == ("INFO", "bot.telegram.app")
    [scanned] = [r for r in records if r["message"].startswith("inbox: ")]
    assert scanned["job"] == "scan_inbox" and "chat_id" not in scanned
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", scanned["time"])
    assert TOKEN not in json_stream.getvalue()


@pytest.mark.parametrize(
    ("level", "verbose", "levels"),
    [
        ("debug", False, {"DEBUG", "INFO", "WARNING"}),
        ("INFO", False, {"INFO", "WARNING"}),
        ("Warning", False, {"WARNING"}),
        ("WARNING", True, {"DEBUG", "INFO", "WARNING"}),  # -v is DEBUG whatever the setting
    ],
)
def test_the_log_level_setting_is_honoured(
    workdir: Path, level: str, verbose: bool, levels: set[str]
) -> None:
    """The console, piped: asyncio says at DEBUG which selector it uses, the inbox scan says at
    INFO what it read, and a file that is no listing is a WARNING."""
    shutil.copy(CASES / "binary_junk.bin", workdir / "seeds" / "junk.bin")
    environment = {
        "PAPERBOT_LOG_LEVEL": level,
        "PAPERBOT_LOG_FORMAT": "json",
        "PAPERBOT_INBOX_SETTLE_SECONDS": "0",
    }
    options = ["-v"] if verbose else []
    result = paperbot(workdir, *options, "console", env=environment, stdin="/help\n")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stderr.splitlines()]
    assert {record["level"] for record in records} == levels


def test_a_bad_log_setting_is_one_line_and_exit_2(workdir: Path) -> None:
    result = paperbot(workdir, "status", env={"PAPERBOT_LOG_FORMAT": "xml"})
    assert result.returncode == 2
    assert result.stderr.startswith("paperbot: setting log.format (PAPERBOT_LOG_FORMAT): ")
    assert len(result.stderr.splitlines()) == 1


def test_the_process_writes_json_lines_when_asked(workdir: Path) -> None:
    result = paperbot(workdir, "ingest", "seeds", env={"PAPERBOT_LOG_FORMAT": "JSON"})
    [record] = [json.loads(line) for line in result.stderr.splitlines()]
    assert record["logger"] == "bot.service.ingest" and record["message"].startswith("ingest: ")
