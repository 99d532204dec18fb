"""`paperbot console --topic ID`: the console inside a forum group's topic, for trying topics
without Telegram."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.conftest import SEEDS
from tests.test_cli import paperbot

ENV = {"PAPERBOT_INBOX_SETTLE_SECONDS": "0", "PAPERBOT_INBOX_DIR": "inbox"}
LAB = ("--chat-id", "-1009")


def test_a_filter_subscribed_in_a_topic_prints_its_alerts_under_the_topic(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    setup = paperbot(
        tmp_path, "console", *LAB, "--topic", "5",
        stdin='/subscribe "kv cache"\n/mode instant\n/subscribe au:Hassani\n', env=ENV,
    )  # fmt: skip
    assert setup.returncode == 0, setup.stderr
    assert "Its papers come to this topic (topic 5)." in setup.stdout
    moved = paperbot(tmp_path, "console", *LAB, "--topic", "6", stdin="/topic 2\n/list\n", env=ENV)
    assert "Filter 2 (au:Hassani) now posts in topic 6" in moved.stdout
    assert '1. "kv cache" · topic 5\n2. au:Hassani · topic 6' in moved.stdout
    for seed in SEEDS.iterdir():
        shutil.copy(seed, tmp_path / "inbox" / seed.name)
        os.utime(tmp_path / "inbox" / seed.name, (0, 0))
    result = paperbot(tmp_path, "console", *LAB, "--topic", "5", stdin="", env=ENV)
    assert result.returncode == 0, result.stderr
    # each message for a topic opens with its name: what follows, up to the next, is its own
    sections = {part.split("]", 1)[0]: part for part in result.stdout.split("\n[topic ")[1:]}
    assert sorted(sections) == ["5", "6"]
    assert "BeNice!" in sections["5"] and "ElasticKV" in sections["5"]
    assert "When to Follow the Teacher" in sections["6"] and "BeNice" not in sections["6"]
    back = paperbot(tmp_path, "console", *LAB, "--topic", "5", stdin="/topic 2 general\n", env=ENV)
    assert "Filter 2 (au:Hassani) now posts in General" in back.stdout


def test_topic_outside_a_forum_says_topics_need_one(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    result = paperbot(tmp_path, "console", stdin="/topic 1\n/topic\n", env=ENV)
    assert "Only forum groups have topics" in result.stdout
    assert "Usage: /topic N [general]" in result.stdout


def test_a_topic_is_named_above_its_messages_in_the_chats_language(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    said = '/subscribe "kv cache"\n/mode instant\n'
    german = ("--topic", "5", "--language", "de")
    setup = paperbot(tmp_path, "console", *LAB, *german, stdin=said, env=ENV)
    assert "Seine Arbeiten kommen in dieses Thema (Thema 5)." in setup.stdout, setup.stderr
    for seed in SEEDS.iterdir():
        shutil.copy(seed, tmp_path / "inbox" / seed.name)
        os.utime(tmp_path / "inbox" / seed.name, (0, 0))
    result = paperbot(tmp_path, "console", *LAB, "--topic", "5", stdin="", env=ENV)
    assert result.returncode == 0, result.stderr
    assert "\n[Thema 5]\n" in result.stdout and "[topic 5]" not in result.stdout
