"""bench/day.py at a tiny size, so that it cannot rot: it runs, prints every figure, and the
ledger it planned is what the plain matcher finds for every chat."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import POSTGRES_URL, ROOT

DATA = ROOT.parent / "shared" / "data" / "arxiv-days-2025"
KEYS = {
    "chats", "filters", "papers", "matches", "ledger_rows", "index_seconds", "ingest_seconds",
    "plan_seconds",
    "compose_seconds", "command_p95_ms", "peak_rss_mb", "reference", "data",
}  # fmt: skip


@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data/arxiv-days-2025")
def test_a_tiny_day_plans_what_the_plain_matcher_finds() -> None:
    command = [sys.executable, "bench/day.py", "--chats", "20", "--filters-per-chat", "3",
               "--papers", "12", "--command-chats", "2", "--json"]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert not KEYS - figures.keys(), KEYS - figures.keys()
    assert (figures["chats"], figures["filters"], figures["papers"]) == (20, 60, 12)
    checked = figures["reference"]
    assert checked["chats"] == 20  # every chat checked
    assert checked["agrees_with_ledger"]
    assert (figures["ledger_rows"], figures["matches"]) == (
        checked["ledger_rows"],
        checked["matches"],
    )
    assert figures["ledger_rows"] > 0
    assert figures["digests"] > 0 and figures["messages"] >= figures["digests"]


@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data/arxiv-days-2025")
@pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL: set PAPERBOT_TEST_DATABASE_URL")
def test_worker_processes_compose_every_digest_of_a_tiny_day() -> None:
    assert POSTGRES_URL
    command = [sys.executable, "bench/day.py", "--chats", "20", "--filters-per-chat", "3",
               "--papers", "12", "--command-chats", "2", "--json", "--workers", "2",
               "--database", POSTGRES_URL]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["reference"]["agrees_with_ledger"]
    assert (figures["composed_chats"], figures["compose_workers"]) == (20, 2)
    assert figures["digests"] > 0 and figures["messages"] >= figures["digests"]
    assert 0 < figures["worker_peak_rss_mb"] < figures["peak_rss_mb"]


def test_workers_need_postgresql() -> None:
    command = [sys.executable, "bench/day.py", "--chats", "20", "--workers", "2"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--workers needs --database postgresql" in done.stderr


def test_a_filter_file_line_the_parser_refuses_is_reported_and_the_rest_used(tmp_path) -> None:
    filters = tmp_path / "filters.txt"
    filters.write_text('diffusion\n# a comment\n"kv cache\n\nau:\n"kv cache" -survey\n')
    listing = next((ROOT / "seeds").iterdir())
    command = [sys.executable, "bench/match.py", "--filters-file", str(filters),
               "--listing", str(listing), "--json"]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["filters"] == 2
    assert f'{filters}: line 3: unbalanced quote at 1: "kv cache' in done.stderr
    assert f"{filters}: line 5: 'au:' needs a word" in done.stderr
