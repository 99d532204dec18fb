"""Ranking never touches the network: a chat's model is trained and its papers ranked, and a
"more like this" filter calibrated, in a process where every socket connection and name lookup
raises. Once as the default install has it (the `semantic` extra hidden from the process) and
once with the extra, whose embedding then loads from its wheel with downloads disabled."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import SettingsError
from bot.embedding import EmbeddingMissing, load_embedding

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r"""
import json, socket, sys
from datetime import date, datetime, UTC

def no_network(event, args):
    if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                 "socket.gethostbyname_ex", "socket.gethostbyaddr"):
        raise ConnectionRefusedError(f"the network is forbidden here ({event})")

sys.addaudithook(no_network)
if sys.argv[2] == "hidden":
    sys.modules["wordllama"] = None  # as if the extra were not installed

try:  # the guard works: a connection to the local PostgreSQL port is refused by it
    socket.create_connection(("127.0.0.1", 5432), timeout=1)
    guarded = False
except ConnectionRefusedError as error:
    guarded = "forbidden" in str(error)

from bot.core.relevance import TextModel
from bot.embedding import load_embedding
from bot.service import feedback
from bot.service.ranking import Ranker
from bot.service.similar import Similar
from bot.store import Database, chats, papers
from tests.corpus import mixed_day, topic_of, topic_papers

now = datetime(2026, 7, 1, 8, tzinfo=UTC)
database = Database.open(f"sqlite:///{sys.argv[1]}/bot.db")
with database.session() as session:
    papers.insert_papers(session, papers=mixed_day(date(2026, 7, 1), 10, first_id=1), now=now)
    chats.register_chat(session, chat_id=1, kind="private", now=now)
liked = [p.arxiv_id for p in topic_papers("kv", 4, first_id=1, day=date(2026, 7, 1))]
feedback.rate_ids(database, chat_id=1, arxiv_ids=liked, value=1, now=now)
ranker = Ranker(database, clock=lambda: now, embedding=load_embedding(sys.argv[3]))
later = mixed_day(date(2026, 7, 2), 5, first_id=100, seed=2)
scores = ranker.rank(1, dict(enumerate(later)))
order = sorted(scores, key=lambda i: -scores[i].value)
followed = Similar(database, ranker, share=0.2).follow(
    chat_id=1, source="like:" + liked[0], max_per_chat=50, now=now
)
print(json.dumps({
    "guarded": guarded,
    "semantic": not isinstance(ranker.features(), TextModel),
    "top": [topic_of(later[i]) for i in order[:5]],
    "why": scores[order[0]].why,
    "similar": type(followed).__name__,
}))
"""


def rank_offline(tmp_path: Path, extra: str, mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), extra, mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_default_install_ranks_with_the_network_forbidden(tmp_path: Path) -> None:
    found = rank_offline(tmp_path, "hidden", "auto")
    assert found["guarded"] is True
    assert found["semantic"] is False  # without the extra: TF-IDF alone
    assert found["top"] == ["kv"] * 5 and found["why"]
    assert found["similar"] == "Subscribed"


def test_the_semantic_extra_loads_from_its_wheel_with_the_network_forbidden(
    tmp_path: Path,
) -> None:
    found = rank_offline(tmp_path, "installed", "on")
    assert found["guarded"] is True
    assert found["semantic"] is True  # the embedding beside TF-IDF, loaded without a download
    assert found["top"] == ["kv"] * 5 and found["why"]
    assert found["similar"] == "Subscribed"


def test_semantic_on_without_the_extra_is_a_clear_settings_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # as if the extra were not installed
    with pytest.raises(EmbeddingMissing) as raised:
        load_embedding("on")
    assert isinstance(raised.value, SettingsError)  # the CLI tells it as a bad setting, exit 2
    assert "pip install 'paperbot[semantic]'" in str(raised.value)
    assert load_embedding("auto") is None and load_embedding("off") is None
