"""`paperbot console` driven through a pipe, as the README's main command runs it, and at a
terminal (a pseudo-terminal)."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT, SEEDS
from tests.test_cli import paperbot

SETTLED = {"PAPERBOT_INBOX_SETTLE_SECONDS": "0"}


def test_subscribe_shows_the_filter_as_understood_and_the_seed_papers(tmp_path: Path) -> None:
    shutil.copytree(SEEDS, tmp_path / "seeds")
    result = paperbot(tmp_path, "console", stdin='/subscribe "kv cache"\n', env=SETTLED)
    assert result.returncode == 0, result.stderr
    assert 'Filter 1 saved, understood as "kv cache".' in result.stdout
    assert "would have matched 2 papers" in result.stdout
    assert "• BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing" in result.stdout
    assert "• ElasticKV" in result.stdout
    assert "> " not in result.stdout  # piped: no prompt, no banner


def test_alerts_are_printed_when_a_listing_arrives(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    env = {**SETTLED, "PAPERBOT_INBOX_DIR": "inbox"}
    setup = paperbot(tmp_path, "console", stdin='/subscribe "kv cache"\n/mode instant\n', env=env)
    assert "Instant" in setup.stdout
    for seed in SEEDS.iterdir():
        shutil.copy(seed, tmp_path / "inbox" / seed.name)
        os.utime(tmp_path / "inbox" / seed.name, (0, 0))
    result = paperbot(tmp_path, "console", stdin="", env=env)
    assert result.returncode == 0, result.stderr
    assert "BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing" in result.stdout
    assert "**KV-cache**" in result.stdout and 'matched "kv cache" (filter 1)' in result.stdout
    assert "<b>" not in result.stdout and "&amp;" not in result.stdout
    again = paperbot(tmp_path, "console", stdin="/status\n", env=env)
    assert "BeNice" not in again.stdout and "Waiting for you: 0 papers" in again.stdout
    status = json.loads(paperbot(tmp_path, "status", "--json").stdout)
    assert status["chats"] == 1 and status["deliveries"] == {"sent": 2}


def test_buttons_and_multi_line_import(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    script = "/import\nmamba\nfoo:bar\nau:Hassani\n\n/list\n#1\n/export\n/stop\n#1\n/list\n"
    result = paperbot(tmp_path, "console", "--chat-id", "7", stdin=script, env={
        **SETTLED, "PAPERBOT_INBOX_DIR": "inbox"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Imported 2 filters. 1 line not imported:\nline 2: unknown field" in out
    assert "  #1 Remove 1\n  #2 Remove 2" in out
    assert "Removed.\nYour filters:\n1. au:hassani" in out
    assert "Your filters, one per line (send them back with /import):\nau:Hassani" in out
    assert out.rstrip().endswith('No filters yet. Add one with /subscribe "kv cache".')


def read_until(fd: int, marker: bytes, seconds: float = 30) -> bytes:
    """What the terminal shows until `marker` appears (or the time is up)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while marker not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    return seen


def test_interactive_console_prompts_answers_and_quits_on_ctrl_d(tmp_path: Path) -> None:
    shutil.copytree(SEEDS, tmp_path / "seeds")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    environment.update(PYTHONPATH=str(ROOT), PAPERBOT_INBOX_SETTLE_SECONDS="0")
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "console"], cwd=tmp_path, env=environment,
        stdin=terminal, stdout=terminal, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(terminal)
    try:
        banner = read_until(controller, b"> ")
        assert b"paperbot console, chat 1" in banner and banner.endswith(b"> ")
        os.write(controller, b"/preview au:Hassani\n")
        answer = read_until(controller, b"\r\n> ")
        assert b"When to Follow the Teacher" in answer
        os.write(controller, b"\x04")  # Ctrl-D: end of input
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)


# The bug the one filter parser fixed: with the limit raised, /subscribe accepted a 25-term
# filter and the planner (parsing with the default 20) refused it, so it never matched.
TWENTY_FIVE_TERMS = " OR ".join(["looped", *(f"qz{n}" for n in range(24))])


def test_a_filter_allowed_by_raised_limits_is_matched_and_delivered(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    env = {**SETTLED, "PAPERBOT_INBOX_DIR": "inbox", "PAPERBOT_FILTERS_MAX_TERMS": "40"}
    setup = paperbot(
        tmp_path, "console", stdin=f"/subscribe {TWENTY_FIVE_TERMS}\n/mode instant\n", env=env
    )
    assert "Filter 1 saved, understood as looped OR qz0 OR qz1 OR" in setup.stdout, setup.stderr
    shutil.copy(SEEDS / "002_fdf517bcef682927.txt", tmp_path / "inbox")
    os.utime(tmp_path / "inbox" / "002_fdf517bcef682927.txt", (0, 0))
    result = paperbot(tmp_path, "console", stdin="", env=env)
    assert result.returncode == 0, result.stderr
    assert "BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing" in result.stdout
    assert "trained **looped** architectures" in result.stdout  # marked: highlights parse it too
    assert "matched looped OR qz0 OR" in result.stdout and "does not parse" not in result.stderr
