"""`paperbot run` as a process against the fake Bot API server: alerts for a dropped listing,
a clean stop on SIGTERM, and nothing lost when the process is killed mid-burst."""

from __future__ import annotations

import html
import os
import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.store import Database, chats, deliveries, filters, papers
from tests.conftest import POSTGRES_URL, ROOT, SEEDS, _reset_postgres
from tests.fake_telegram import FakeTelegram
from tests.telegram.conftest import TOKEN

ADA = 101


def start(
    tmp_path: Path,
    server: FakeTelegram,
    database_url: str,
    command: str = "run",
    log: str = "paperbot",
    **settings: str,
) -> subprocess.Popen[str]:
    """`paperbot COMMAND` as a process, its output in tmp_path/LOG.log; `settings`: more
    PAPERBOT_* variables."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    environment.update(
        PYTHONPATH=str(ROOT),
        PAPERBOT_TELEGRAM_TOKEN=TOKEN,
        PAPERBOT_TELEGRAM_API_URL=server.base_url,
        PAPERBOT_DATABASE_URL=database_url,
        PAPERBOT_INBOX_DIR=str(tmp_path / "inbox"),
        PAPERBOT_INBOX_SETTLE_SECONDS="0",
        PAPERBOT_INBOX_SCAN_SECONDS="1",
        **settings,
    )
    (tmp_path / "inbox").mkdir(exist_ok=True)
    with (tmp_path / f"{log}.log").open("a") as output:  # the child keeps its own copy
        return subprocess.Popen(
            [sys.executable, "-m", "bot", *command.split()], cwd=tmp_path, env=environment,
            stdout=output, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip


def drop_seeds(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir(exist_ok=True)
    for seed in SEEDS.iterdir():
        shutil.copy(seed, tmp_path / "inbox" / seed.name)


async def test_alerts_for_a_dropped_listing_and_a_clean_stop(
    tmp_path: Path, server: FakeTelegram
) -> None:
    process = start(tmp_path, server, f"sqlite:///{tmp_path / 'bot.db'}")
    try:
        assert "Filter 1 saved" in (await server.reply_to(ADA, '/subscribe "kv cache"'))["text"]
        await server.reply_to(ADA, "/mode instant")
        drop_seeds(tmp_path)
        await server.wait_for(lambda: "ElasticKV" in "".join(server.texts(ADA)), timeout=30)
        alerts = "".join(server.texts(ADA)[2:])
        assert "BeNice!" in alerts and alerts.count('matched "kv cache" (filter 1)') == 2
        assert [c["command"] for c in server.commands][:3] == ["start", "help", "subscribe"]
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
    assert code == 0, (tmp_path / "paperbot.log").read_text()


def prepare(database_url: str, chat_count: int) -> None:
    database = Database.open(database_url)
    now = datetime.now(UTC)
    with database.session() as session:
        for chat_id in range(1, chat_count + 1):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=now)
            # whole cards: a message a paper or two, so a burst is long enough to kill inside
            chats.update_chat(session, chat_id=chat_id, mode="instant", digest_style="full")
            for source in ("model", "learning"):
                filters.add_filter(
                    session, chat_id=chat_id, source=source, canonical=source, now=now
                )
    database.close()


TITLE = re.compile(r"^<b>(.+)</b>(?: <i>\(headline derived from the abstract\)</i>)?$", re.M)


def titles(text: str) -> list[str]:
    """The titles of the papers in an alert, as stored (each paper opens with its bold title,
    linked in a compact entry)."""
    found = TITLE.findall(text)
    return [html.unescape(re.sub(r"</?u>|^\d+\. |<a [^>]*>|</a>", "", title)) for title in found]


@pytest.mark.chaos
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_killed_mid_burst_then_restarted_delivers_the_rest(
    tmp_path: Path, server: FakeTelegram, backend: str
) -> None:
    if backend == "postgres":
        if not POSTGRES_URL:
            pytest.skip("PostgreSQL: set PAPERBOT_TEST_DATABASE_URL to run this on PostgreSQL")
        _reset_postgres(POSTGRES_URL)
        url = POSTGRES_URL
    else:
        url = f"sqlite:///{tmp_path / 'bot.db'}"
    server.enforce_limits = True  # no commands here: every message goes through the sender
    prepare(url, chat_count=30)
    drop_seeds(tmp_path)

    def accepted() -> list[tuple[int, str]]:
        calls = server.calls_to("sendMessage")
        return [(int(c.params["chat_id"]), c.params["text"]) for c in calls if c.ok]

    process = start(tmp_path, server, url)
    await server.wait_for(lambda: len(accepted()) >= 40, timeout=60)
    process.kill()
    process.wait(timeout=30)

    database = Database.open(url)
    with database.session() as session:
        in_flight = {
            (row.chat_id, row.paper_id)
            for chat_id in range(1, 31)
            for row in deliveries.all_deliveries(session, chat_id=chat_id)
            if row.status == "sending"
        }
        counts = deliveries.count_deliveries(session)
    assert counts.get("pending", 0) > 0, "the kill came after the burst: nothing left to test"

    process = start(tmp_path, server, url)
    try:

        def all_sent() -> bool:
            with database.session() as session:
                return set(deliveries.count_deliveries(session)) == {"sent"}

        await server.wait_for(all_sent, timeout=120)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0

    with database.session() as session:
        rows = [r for c in range(1, 31) for r in deliveries.all_deliveries(session, chat_id=c)]
        stored = papers.get_papers(session, paper_ids={r.paper_id for r in rows})
    title_of = {paper_id: paper.title for paper_id, paper in stored.items()}
    database.close()
    received = Counter((chat, title) for chat, text in accepted() for title in titles(text))
    expected = {(r.chat_id, title_of[r.paper_id]) for r in rows}
    assert set(received) == expected  # every matching paper arrived
    repeated = {key for key, n in received.items() if n > 1}
    allowed = {(chat, title_of[paper]) for chat, paper in in_flight}
    assert repeated <= allowed  # only what was in flight at the kill came twice


@pytest.mark.parametrize("refusal", ["401", "404"])  # a wrong token; a wrong API URL
def test_a_refused_token_is_one_line_without_the_token(
    tmp_path: Path, server: FakeTelegram, refusal: str
) -> None:
    server.fail("getMe", refusal, times=10)
    process = start(tmp_path, server, f"sqlite:///{tmp_path / 'bot.db'}")
    code = process.wait(timeout=30)
    output = (tmp_path / "paperbot.log").read_text()
    assert TOKEN.split(":")[1] not in output, output
    assert code == 2, output
    not_info = [line for line in output.splitlines() if " INFO " not in line]
    assert not_info == [  # no traceback: one line that names the setting
        "paperbot: Telegram refused the token: check PAPERBOT_TELEGRAM_TOKEN (and "
        f"PAPERBOT_TELEGRAM_API_URL, now {server.base_url})"
    ]
