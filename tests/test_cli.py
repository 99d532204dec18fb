"""The `paperbot` command as an operator runs it: a real subprocess, real files, real SQLite."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bot.logs import Redacted
from bot.store.database import create_database_engine, head_revision
from tests.conftest import POSTGRES_URL, ROOT, _reset_postgres
from tests.store.test_database import AHEAD, revision_of, schema_at

CASES = Path(__file__).parent / "data" / "listings"


def paperbot(
    workdir: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    environment["PYTHONPATH"] = str(ROOT)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=workdir,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_version_is_pyprojects(tmp_path: Path) -> None:
    """`--version` reads the installed package's metadata: the number pyproject.toml gives."""
    result = paperbot(tmp_path, "--version")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert (result.returncode, result.stdout) == (0, f"paperbot {project['version']}\n")


def test_ingest_seeds_json_then_again_all_skipped(workdir: Path) -> None:
    first = paperbot(workdir, "ingest", "seeds/", "--json")
    assert first.returncode == 0, first.stderr
    document = json.loads(first.stdout)
    assert document["totals"] == {
        "files": 3,
        "entries": 40,
        "new": 37,
        "duplicates": 3,
        "failed": 0,
    }
    assert {f["format"] for f in document["files"]} == {"numbered", "abstracts"}
    assert set(document["files"][0]) == {
        "path",
        "status",
        "format",
        "entries",
        "new",
        "duplicates",
        "error",
    }
    assert (workdir / "data" / "paperbot.db").is_file()
    second = json.loads(paperbot(workdir, "ingest", "seeds/", "--json").stdout)
    assert [f["status"] for f in second["files"]] == ["skipped"] * 3
    assert second["totals"]["new"] == 0


def test_ingest_exit_1_when_a_file_fails_but_the_others_are_read(workdir: Path) -> None:
    shutil.copy(CASES / "binary_junk.bin", workdir / "seeds" / "junk.bin")
    result = paperbot(workdir, "ingest", "seeds", "--json")
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document["totals"]["new"] == 37 and document["totals"]["failed"] == 1


def test_ingest_refuses_what_the_inbox_refuses(workdir: Path) -> None:
    """The inbox's size limit and refusals, file by file: /dev/zero is not read for ever, a
    named pipe is not waited on, and the seeds beside them go in."""
    os.mkfifo(workdir / "pipe.txt")
    with (workdir / "big.txt").open("wb") as file:
        file.truncate(2_000_000)  # sparse
    limit = {"PAPERBOT_INBOX_MAX_BYTES": "1000000"}
    result = paperbot(workdir, "ingest", "/dev/zero", "pipe.txt", "big.txt", "seeds", env=limit)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[:3] == [
        "failed   /dev/zero (?; 0 entries, 0 new, 0 duplicates): a character device, not a "
        "regular file: not read",
        "failed   pipe.txt (?; 0 entries, 0 new, 0 duplicates): a named pipe (FIFO), not a "
        "regular file: not read",
        "failed   big.txt (?; 0 entries, 0 new, 0 duplicates): too large: 2.0 MB, over the "
        "limit of 1 MB (PAPERBOT_INBOX_MAX_BYTES); not read",
    ]
    assert "37 new papers" in result.stdout and "Traceback" not in result.stderr


def test_ingest_human_output_and_a_missing_path(workdir: Path) -> None:
    result = paperbot(workdir, "ingest", "seeds", "nowhere.txt")
    assert result.returncode == 1
    assert "failed   nowhere.txt" in result.stdout and "No such file" in result.stdout
    assert "37 new papers" in result.stdout


def test_status_json(workdir: Path) -> None:
    paperbot(workdir, "ingest", "seeds")
    result = paperbot(workdir, "status", "--json")
    assert result.returncode == 0
    document = json.loads(result.stdout)
    assert document["papers"] == 37 and document["files"] == {"ingested": 3}
    assert document["chats"] == 0 and document["pending_deliveries"] == 0


def test_run_without_a_token_is_one_line_and_exit_2(workdir: Path) -> None:
    result = paperbot(workdir, "run")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "PAPERBOT_TELEGRAM_TOKEN" in result.stderr


def test_db_upgrade(workdir: Path) -> None:
    result = paperbot(workdir, "db", "upgrade")
    assert result.returncode == 0 and "database at revision" in result.stdout
    again = paperbot(workdir, "db", "upgrade")
    assert "(was" not in again.stdout


def test_a_bad_setting_is_one_line_and_exit_2(workdir: Path) -> None:
    result = paperbot(workdir, "status", env={"PAPERBOT_INBOX_SCAN_SECONDS": "soon"})
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "PAPERBOT_INBOX_SCAN_SECONDS" in result.stderr


def test_a_sqlite_url_without_a_file_is_one_line_and_exit_2(workdir: Path) -> None:
    result = paperbot(workdir, "ingest", "seeds", env={"PAPERBOT_DATABASE_URL": "sqlite:///"})
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(
        "paperbot: setting database.url (PAPERBOT_DATABASE_URL): a SQLite database in memory "
        "keeps nothing: name a file"
    )
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "url",
    ["postgresql+psycopg://postgres@127.0.0.1:5432", "postgresql+psycopg://postgres@127.0.0.1/"],
)
def test_a_postgresql_url_without_a_database_is_one_line_and_exit_2(
    workdir: Path, url: str
) -> None:
    result = paperbot(workdir, "status", env={"PAPERBOT_DATABASE_URL": url})
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "paperbot: setting database.url (PAPERBOT_DATABASE_URL): a PostgreSQL address must name "
        "its database, like postgresql+psycopg://paperbot@db:5432/paperbot "
        f"(got '{url}')\n"
    )


def test_database_url_setting_is_used(workdir: Path) -> None:
    url = f"sqlite:///{workdir / 'elsewhere.db'}"
    paperbot(workdir, "ingest", "seeds", env={"PAPERBOT_DATABASE_URL": url})
    assert (workdir / "elsewhere.db").is_file() and not (workdir / "data").exists()


def test_an_unreachable_database_is_one_clear_line(workdir: Path) -> None:
    url = "postgresql+psycopg://nobody:secret@127.0.0.1:1/none"
    result = paperbot(workdir, "status", env={"PAPERBOT_DATABASE_URL": url})
    assert result.returncode == 1
    assert (
        "cannot open the database postgresql+psycopg://nobody:***@127.0.0.1:1/none" in result.stderr
    )
    assert "secret" not in result.stderr and "Traceback" not in result.stderr


def test_postgresql_gets_its_schema_only_from_db_upgrade(workdir: Path) -> None:
    """Any other command on an empty PostgreSQL database says what to run, exit 2 (restarting
    would not run it: systemd's RestartPreventExitStatus=2 stops there), and creates nothing."""
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL: set PAPERBOT_TEST_DATABASE_URL to run this on PostgreSQL")
    env = {"PAPERBOT_DATABASE_URL": POSTGRES_URL, "PAPERBOT_TELEGRAM_TOKEN": "1:x"}
    _reset_postgres(POSTGRES_URL, upgrade=False)
    for command in (["status"], ["ingest", "seeds"], ["worker"]):
        result = paperbot(workdir, *command, env=env)
        assert (result.returncode, result.stdout) == (2, ""), command
        assert result.stderr == (
            "paperbot: the database has no paperbot schema yet: run `paperbot db upgrade`\n"
        )
    assert revision_of(POSTGRES_URL) is None
    assert paperbot(workdir, "db", "upgrade", env=env).returncode == 0
    assert paperbot(workdir, "status", env=env).returncode == 0


def test_a_schema_newer_than_the_code_exits_3_naming_both_revisions(workdir: Path) -> None:
    """A rollback: every command, `db upgrade` too, stops with exit 3, which the systemd units
    do not restart and which stops compose's migrate step (bot and workers wait for it)."""
    url = f"sqlite:///{workdir / 'ahead.db'}"
    schema_at(url, "9999")
    head = head_revision(create_database_engine(url))
    for command in (["status"], ["db", "upgrade"]):
        result = paperbot(workdir, *command, env={"PAPERBOT_DATABASE_URL": url})
        assert (result.returncode, result.stdout) == (3, ""), command
        assert result.stderr == f"paperbot: {AHEAD.format(head=head)}\n"


ALLOWED = "allowed: sqlite:///path, postgresql://user:password@host/database"
UNUSABLE = "paperbot: PAPERBOT_DATABASE_URL: {}; " + ALLOWED + "\n"


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("mysql://me:secret@db/papers", "mysql://me:***@db/papers: mysql is not supported"),
        ("nonsense", "not a database URL"),
        ("postgres://db:port/papers", "not a database URL"),
        (
            "postgresql+psycopg2://db/papers",
            "postgresql+psycopg2://db/papers: the driver psycopg2 is not installed",
        ),
    ],
)
def test_an_unusable_database_url_is_one_line_and_exit_2(
    workdir: Path, url: str, problem: str
) -> None:
    result = paperbot(workdir, "status", env={"PAPERBOT_DATABASE_URL": url})
    assert (result.returncode, result.stderr) == (2, UNUSABLE.format(problem))


@pytest.mark.parametrize(
    "command", [["console"], ["ingest", "seeds"], ["db", "upgrade"], ["run"], ["preview", "x"]]
)
def test_every_command_refuses_an_unusable_database_url(workdir: Path, command: list[str]) -> None:
    env = {"PAPERBOT_DATABASE_URL": "mysql://db/papers", "PAPERBOT_TELEGRAM_TOKEN": "1:x"}
    result = paperbot(workdir, *command, env=env, stdin="/list\n")
    problem = "mysql://db/papers: mysql is not supported"
    assert (result.returncode, result.stderr) == (2, UNUSABLE.format(problem))
    assert result.stdout == "" and not (workdir / "data").exists()


def test_preview_kv_cache_from_the_seeds_marks_the_words(workdir: Path) -> None:
    result = paperbot(workdir, "preview", '"kv cache"', "seeds/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('filter: "kv cache"\n')
    assert "BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing" in result.stdout
    assert "ElasticKV: a mixed-fidelity KV runtime" in result.stdout
    assert "**KV-caches**" in result.stdout and "(**KV**) **caches**" in result.stdout
    assert result.stdout.rstrip().endswith("2 matching papers")
    assert not (workdir / "data").exists()  # files were read, nothing stored


def test_preview_json_shape_and_no_match(workdir: Path) -> None:
    nothing = json.loads(paperbot(workdir, "preview", "distill* -self", "seeds", "--json").stdout)
    assert nothing == {"filter": "distill* AND -self", "matches": []}
    found = json.loads(paperbot(workdir, "preview", "au:Hassani", "seeds", "--json").stdout)
    (match,) = found["matches"]
    assert set(match) == {
        "title",
        "headline_derived",
        "arxiv_id",
        "authors",
        "categories",
        "sources",
        "link",
        "doi",
        "preprint_doi",
        "pmid",
        "journal",
        "journal_abbreviations",
        "mesh",
        "abstract",
        "highlights",
        "tldr",
    }
    assert match["title"] == "When to Follow the Teacher: Advantage-Based On-Policy Distillation"
    [author] = match["highlights"]  # the followed author, by name
    assert author["field"] == "author" and "Hassani" in author["text"]
    cl = json.loads(paperbot(workdir, "preview", "cat:cs.CL", "seeds", "--json").stdout)
    assert [m["title"] for m in cl["matches"]] == ["Low-Bit N-Gram Embeddings for Language Models"]
    data = Path(__file__).parent / "data" / "sources"
    mesh = json.loads(paperbot(workdir, "preview", 'mesh:"Grid Cells"', str(data), "--json").stdout)
    [grid] = mesh["matches"]  # the five records of tests/data/sources are one paper
    assert grid["sources"] == ["arxiv", "biorxiv", "pubmed", "journal"]
    assert (grid["pmid"], grid["doi"]) == ("41999001", "10.1038/s41593-026-01999-1")
    # the journal's own spelling, and PubMed's abbreviation of it, which jr: finds too
    assert (grid["journal"], grid["journal_abbreviations"]) == (
        "Nature Neuroscience",
        ["Nat Neurosci"],
    )
    named = json.loads(
        paperbot(workdir, "preview", 'jr:"nat neurosci"', str(data), "--json").stdout
    )
    assert [m["pmid"] for m in named["matches"]] == ["41999001"]
    derived = json.loads(paperbot(workdir, "preview", "lapanda", "seeds", "--json").stdout)
    assert derived["matches"][0]["headline_derived"] is True
    assert {h["text"].lower() for h in derived["matches"][0]["highlights"]} == {"lapanda"}


def test_preview_from_the_database(workdir: Path) -> None:
    paperbot(workdir, "ingest", "seeds")
    document = json.loads(paperbot(workdir, "preview", '"kv cache"', "--json").stdout)
    assert len(document["matches"]) == 2


def test_a_bad_filter_is_exit_2_and_points_at_the_problem(workdir: Path) -> None:
    result = paperbot(workdir, "preview", 'diffusion "kv cache', "seeds")
    assert result.returncode == 2
    assert result.stderr == (
        'paperbot: bad filter: unbalanced quote at 11\n  diffusion "kv cache\n            ^\n'
    )
    assert paperbot(workdir, "preview", "-self", "seeds").returncode == 2


def test_tex_the_text_module_cannot_fill_in_is_not_logged(tmp_path: Path) -> None:
    """pylatexenc warns about a macro cut short; paperbot keeps the text, so nobody is told."""
    listing = (ROOT / "tests/data/listings/numbered.txt").read_text()
    broken = listing.replace(
        "Constructing accurate", "\\underline and \\frac{x} \\href{y} Constructing"
    )
    (tmp_path / "broken_tex.txt").write_text(broken)
    result = paperbot(tmp_path, "ingest", "broken_tex.txt", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["totals"]["new"] == 2  # the broken TeX was read and kept
    assert "pylatexenc" not in result.stderr and "WARNING" not in result.stderr


def test_the_token_is_out_of_log_lines_and_every_exception_of_a_chain() -> None:
    """A request's address carries the token, in a message or in a cause deep in a traceback."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(Redacted("888:SECRET"))
    logger = logging.getLogger("test.redacted")
    logger.addHandler(handler)
    try:
        try:
            raise OSError("POST https://api.telegram.org/bot888:SECRET/getMe failed")
        except OSError as cause:
            raise RuntimeError("start-up failed") from cause
    except RuntimeError:
        logger.error("calling %s", "/bot888:SECRET/getMe", exc_info=True)
    finally:
        logger.removeHandler(handler)
    output = stream.getvalue()
    assert "SECRET" not in output
    assert "calling /bot<token>/getMe" in output and "bot<token>/getMe failed" in output


def test_config_says_where_each_setting_came_from(workdir: Path) -> None:
    """The file and the environment both set scan_seconds: the environment wins and says so."""
    (workdir / "token").write_text("888:FROM-A-FILE\n")
    (workdir / "settings.toml").write_text(
        '[inbox]\nscan_seconds = 30\ndir = "listings"\n'
        '[feeds]\nurls = ["https://ada:s3cret@feeds.example/rss"]\n'
    )
    environment = {
        "PAPERBOT_CONFIG": "settings.toml",
        "PAPERBOT_INBOX_SCAN_SECONDS": "15",
        "PAPERBOT_TELEGRAM_TOKEN_FILE": "token",
        "PAPERBOT_DATABASE_URL": "postgresql://bot:pa55word@db/paperbot",
        "PAPERBOT_TELEGRAM_WEBHOOK_URL": "https://bot.example/hook",
        "PAPERBOT_TELEGRAM_WEBHOOK_SECRET": "0123secret",
    }
    result = paperbot(workdir, "config", "--json", env=environment)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["config_file"] == "settings.toml"
    shown = {s["name"]: s for s in document["settings"]}
    assert shown["inbox.scan_seconds"] == {
        "name": "inbox.scan_seconds",
        "env": "PAPERBOT_INBOX_SCAN_SECONDS",
        "value": 15,
        "source": "environment",
        "origin": "PAPERBOT_INBOX_SCAN_SECONDS",
    }
    assert (shown["inbox.dir"]["value"], shown["inbox.dir"]["source"]) == ("listings", "file")
    assert shown["inbox.dir"]["origin"] == "settings.toml"
    assert (shown["inbox.settle_seconds"]["value"], shown["inbox.settle_seconds"]["source"]) == (
        5,
        "default",
    )
    token = shown["telegram.token"]
    assert (token["value"], token["origin"]) == ("<set>", "PAPERBOT_TELEGRAM_TOKEN_FILE")
    assert shown["telegram.webhook_secret"]["value"] == "<set>"
    assert shown["database.url"]["value"] == "postgresql://bot:***@db/paperbot"
    assert shown["feeds.urls"]["value"] == ["https://ada:***@feeds.example/rss"]
    assert len(shown) > 30 and shown["log.level"]["source"] == "default"

    text = paperbot(workdir, "config", env=environment)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "settings file: settings.toml"
    [scan] = [line for line in lines if line.startswith("PAPERBOT_INBOX_SCAN_SECONDS ")]
    assert scan.split() == [
        "PAPERBOT_INBOX_SCAN_SECONDS",
        "inbox.scan_seconds",
        "environment",
        "15",
    ]
    [dir_line] = [line for line in lines if line.startswith("PAPERBOT_INBOX_DIR ")]
    assert dir_line.split() == ["PAPERBOT_INBOX_DIR", "inbox.dir", "file", "listings"]
    [token_line] = [line for line in lines if line.startswith("PAPERBOT_TELEGRAM_TOKEN ")]
    assert token_line.split()[2:] == ["environment", "(PAPERBOT_TELEGRAM_TOKEN_FILE)", "<set>"]
    for output in (result, text):
        everything = output.stdout + output.stderr
        for secret in ("FROM-A-FILE", "pa55word", "s3cret", "0123secret"):
            assert secret not in everything
    assert not (workdir / "data").exists()  # the database was not opened


def test_config_needs_no_token_and_refuses_a_bad_setting_in_one_line(workdir: Path) -> None:
    result = paperbot(workdir, "config", env={"PAPERBOT_DATABASE_URL": "sqlite:////no/such/x.db"})
    assert result.returncode == 0, result.stderr
    assert "PAPERBOT_TELEGRAM_TOKEN " in result.stdout and "<unset>" in result.stdout
    bad = paperbot(workdir, "config", "--json", env={"PAPERBOT_METRICS_PORT": "70000"})
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr.startswith("paperbot: setting metrics.port (PAPERBOT_METRICS_PORT)")
    assert len(bad.stderr.splitlines()) == 1


def test_an_unforeseen_error_is_one_line_and_the_traceback_only_with_v(workdir: Path) -> None:
    url = f"sqlite:///{workdir / 'bot.db'}"
    paperbot(workdir, "status", env={"PAPERBOT_DATABASE_URL": url})
    engine = create_database_engine(url)
    with engine.begin() as connection:  # a table gone behind the code's back
        connection.exec_driver_sql("DROP TABLE chat")
    engine.dispose()
    env = {"PAPERBOT_DATABASE_URL": url, "PAPERBOT_TELEGRAM_TOKEN": "123:SECRET"}
    result = paperbot(workdir, "status", env=env)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "paperbot: status stopped: OperationalError: (sqlite3.OperationalError) no such table: "
        "chat (-v shows where)"
    ]
    verbose = paperbot(workdir, "-v", "status", env=env)
    assert verbose.returncode == 1 and "Traceback" in verbose.stderr
    assert "SECRET" not in verbose.stderr
