"""Chaos: `paperbot run` as a process delivering a few hundred papers to a few dozen chats while
things go wrong, and afterwards every (chat, paper) of the ledger delivered, nothing twice but what
the design allows, the bot up, the trouble counted.

* Telegram's bad minutes: the fake Bot API refuses, fails, drops and stalls requests at random.
* Repeated kills: the process SIGKILLed again and again during ingest, planning and delivery.
* Database outages (PostgreSQL): connections terminated, the database unreachable for seconds.

What may come twice (DESIGN.md, section 4): a message that was in flight when its answer was lost,
at-least-once. A message Telegram took whose answer never came back (a dropped connection, an
answer slower than the bot's timeout) is sent again; a row left `sending` by a kill is sent again.
Nothing else: every message the bot saw accepted carries exactly the rows the ledger says it does.

Faults are drawn from a seeded generator: CHAOS_SEED=N replays a run (the seed is printed with
each test's output, shown when it fails).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bot.config import FilterSettings
from bot.core.paper import Paper
from bot.store import Database, chats, deliveries, filters, papers
from tests.conftest import POSTGRES_URL, _reset_postgres
from tests.corpus import TOPICS, mixed_day, rss
from tests.fake_telegram import ANSWER_LOST, FakeTelegram
from tests.reference_matcher import matches
from tests.test_run import start, titles

pytestmark = pytest.mark.chaos

SEED = int(os.environ.get("CHAOS_SEED", "20261203"))
DAY = date(2026, 10, 22)
CHATS = 30


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    """The test's random choices, from CHAOS_SEED (printed: pytest shows it with a failure)."""
    print(f"CHAOS_SEED={SEED} (replay: CHAOS_SEED={SEED} pytest {request.node.nodeid})")
    return random.Random(f"{SEED}-{request.node.name}")


# -- the day: listing files, chats and what each should get ----------------------------------------


def listing_waves(waves: int, per_topic: int) -> list[list[Paper]]:
    """A day of papers on the corpus's topics, in `waves` listing files; each title made unique
    (the corpus draws titles from few phrases)."""
    day = mixed_day(DAY, per_topic * waves, first_id=1, seed=SEED % 1000)
    unique = [dataclasses.replace(p, title=f"{p.title} ({n})") for n, p in enumerate(day, 1)]
    size = -(-len(unique) // waves)
    return [unique[i : i + size] for i in range(0, len(unique), size)]


def drop_listing(tmp_path: Path, number: int, wave: list[Paper]) -> None:
    """A listing file into the inbox, whole at once (written aside, then renamed)."""
    partial = tmp_path / "inbox" / f"day-{number}.xml.part"
    partial.write_text(rss(wave, DAY))
    partial.rename(partial.with_suffix(""))


def subscribe_chats(url: str, rng: random.Random, count: int = CHATS) -> dict[int, str]:
    """`count` private chats in instant mode, each following one topic phrase (about half of its
    topic's papers). Returns each chat's filter."""
    phrases = [phrase for topic in TOPICS.values() for phrase in topic]
    chosen = {chat_id: f'"{rng.choice(phrases)}"' for chat_id in range(1, count + 1)}
    database = Database.open(url)
    now = datetime.now(UTC)
    with database.session() as session:
        for chat_id, source in chosen.items():
            chats.register_chat(session, chat_id=chat_id, kind="private", now=now)
            chats.update_chat(session, chat_id=chat_id, mode="instant")
            filters.add_filter(session, chat_id=chat_id, source=source, canonical=source, now=now)
    database.close()
    return chosen


def expected_pairs(filters: dict[int, str], day: list[Paper]) -> set[tuple[int, str]]:
    """(chat, title) for every paper each chat's filter matches, by the plain reference matcher."""
    parse = FilterSettings().rules.parse
    return {
        (chat_id, paper.title)
        for chat_id, source in filters.items()
        for paper in day
        if matches(parse(source), paper)
    }


# -- what happened ---------------------------------------------------------------------------------


@dataclasses.dataclass
class Ledger:
    """The ledger at the end: (chat, title, status, message id) of every row."""

    rows: list[tuple[int, str, str, int | None]]

    @classmethod
    def read(cls, url: str, chat_ids: range) -> Ledger:
        database = Database.open(url)
        try:
            with database.session() as session:
                rows = [r for c in chat_ids for r in deliveries.all_deliveries(session, chat_id=c)]
                stored = papers.get_papers(session, paper_ids={r.paper_id for r in rows})
        finally:
            database.close()
        return cls([(r.chat_id, stored[r.paper_id].title, r.status, r.message_id) for r in rows])

    @property
    def pairs(self) -> set[tuple[int, str]]:
        return {(chat, title) for chat, title, _, _ in self.rows}


def check_deliveries(
    server: FakeTelegram,
    ledger: Ledger,
    expected: set[tuple[int, str]],
    in_flight: set[tuple[int, str]] | None = None,
) -> Counter[tuple[int, str]]:
    """Everything expected arrived and is recorded sent, and each message carries exactly the
    rows recorded with its id, except copies the design allows: without kills (`in_flight`
    None), a message whose answer never reached the bot; with kills, a row a kill left
    `sending` (its message taken by Telegram, and sent again after the restart). So each
    (chat, paper) arrived in exactly one recorded message, and otherwise only in those.
    Returns how often each (chat, title) arrived."""
    assert ledger.pairs == expected, "the ledger is not what the filters match"
    assert {status for _, _, status, _ in ledger.rows} == {"sent"}
    recorded: dict[tuple[int, int], set[str]] = defaultdict(set)
    for chat, title, _, message_id in ledger.rows:
        assert message_id is not None
        recorded[(chat, message_id)].add(title)
    with server.changed:
        sent = {key: message["text"] for key, message in server.messages.items()}
        lost = set(server.lost)
    arrived: Counter[tuple[int, str]] = Counter()
    for (chat, message_id), written in sent.items():
        carried = set(titles(written))
        arrived.update((chat, title) for title in carried)
        extra = {(chat, title) for title in carried - recorded.get((chat, message_id), set())}
        if in_flight is None:
            assert not extra or (chat, message_id) in lost, f"sent twice: {extra}"
        else:
            assert extra <= in_flight, f"sent twice, not in flight at a kill: {extra - in_flight}"
    for (chat, message_id), titles_recorded in recorded.items():
        assert (chat, message_id) in sent and (chat, message_id) not in lost
        assert titles_recorded <= set(titles(sent[(chat, message_id)]))
    assert set(arrived) == expected, "papers missing or not asked for"
    return arrived


async def wait_until(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    """Until the condition holds, looked at every 10 ms (for states no server call signals)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def scrape(port: int) -> dict[str, float]:
    """The /metrics samples, by name and labels as written."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    found = re.findall(r"^(\w+(?:\{[^}]*\})?) (\S+)$", text, re.M)
    return {name: float(value) for name, value in found}


def healthz(port: int) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def stop(process: subprocess.Popen[str], log: Path) -> None:
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0, log.read_text()[-5000:]


class Watch:
    """The bot's database as the test reads it while the bot runs."""

    def __init__(self, url: str) -> None:
        self.database = Database.open(url)

    def state(self) -> tuple[int, bool, int]:
        """(papers stored, whether any is not yet matched, ledger rows not yet sent)."""
        with self.database.session() as session:
            stored = papers.count_papers(session)
            unmatched = bool(papers.unmatched_papers(session, limit=1))
            unfinished = deliveries.count_waiting(session)
        return stored, unmatched, unfinished

    def phase(self, dropped: int) -> str:
        """Where the work stood: a listing not yet stored, papers not yet matched, rows not yet
        sent, or nothing left."""
        stored, unmatched, unfinished = self.state()
        if stored < dropped:
            return "ingest"
        if unmatched:
            return "planning"
        return "delivery" if unfinished else "idle"

    def sending(self, chat_ids: range) -> set[tuple[int, str]]:
        """(chat, title) of the rows left `sending`."""
        with self.database.session() as session:
            rows = [r for c in chat_ids for r in deliveries.all_deliveries(session, chat_id=c)]
            rows = [r for r in rows if r.status == "sending"]
            stored = papers.get_papers(session, paper_ids={r.paper_id for r in rows})
        return {(r.chat_id, stored[r.paper_id].title) for r in rows}

    def close(self) -> None:
        self.database.close()


# -- 1. Telegram's bad minutes ---------------------------------------------------------------------


async def test_telegram_failing_at_random_loses_nothing_and_repeats_only_lost_answers(
    tmp_path: Path, server: FakeTelegram, rng: random.Random
) -> None:
    """The fake Bot API fails 30% of sendMessage calls at random (429 with retry_after 1-2 s,
    500, 502, a reset connection, a dropped answer, an answer later than the bot's 5 s read
    timeout) and 30% of getUpdates calls, while three listings (240 papers) go to 30 chats.
    Afterwards: the ledger is what the reference matcher finds, all sent; repeats only in
    messages whose answer was lost; /metrics counts exactly the faults met; the bot answers a
    command; no traceback in its log."""
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    filters = subscribe_chats(url, rng)
    waves = listing_waves(3, per_topic=20)  # 240 papers in three files
    day = [paper for wave in waves for paper in wave]
    expected = expected_pairs(filters, day)
    sending = server.chaos("sendMessage", rate=0.3, seed=rng.randrange(1 << 30))
    polling = server.chaos(
        "getUpdates", rate=0.3, seed=rng.randrange(1 << 30), kinds=("429", "500", "502", "reset")
    )
    port = free_port()
    log = tmp_path / "paperbot.log"
    (tmp_path / "inbox").mkdir()
    drop_listing(tmp_path, 1, waves[0])
    watch = Watch(url)
    process = start(tmp_path, server, url, PAPERBOT_METRICS_PORT=str(port))
    try:
        for number, wave in enumerate(waves[1:], 2):  # the next file while the last goes out
            await server.wait_for(lambda n=number: len(server.sends) >= 25 * (n - 1), timeout=120)
            drop_listing(tmp_path, number, wave)
        await server.wait_for(lambda: watch.state() == (len(day), False, 0), timeout=240)
        server.calm()
        assert process.poll() is None, "the bot died"
        assert "Waiting for you: 0 papers" in (await server.reply_to(1, "/status"))["text"]
        samples = scrape(port)
    finally:
        watch.close()
        stop(process, log)

    arrived = check_deliveries(server, Ledger.read(url, range(1, CHATS + 1)), expected)
    repeated = {pair for pair, n in arrived.items() if n > 1}
    print(
        f"{len(server.messages)} messages, {len(server.lost)} answers lost, "
        f"{len(repeated)} (chat, paper) twice; faults {dict(sending.injected)}, "
        f"polling faults {dict(polling.injected)}"
    )
    assert set(sending.injected) == {"429", "500", "502", "reset", "drop", "late"}
    assert repeated and len(server.lost) <= sending.injected["drop"] + sending.injected["late"]
    errors = {
        kind: samples[f'paperbot_telegram_errors_total{{kind="{kind}"}}']
        for kind in ("flood", "server", "network")
    }
    assert errors == {
        "flood": sending.injected["429"],
        "server": sending.injected["500"] + sending.injected["502"],
        "network": sum(sending.injected[kind] for kind in ("reset", *ANSWER_LOST)),
    }
    assert sum(polling.injected.values()) > 0
    assert "Traceback" not in log.read_text()


# -- 2. Repeated kills -----------------------------------------------------------------------------


KILLS = ["ingest", "planning"] * 3 + ["delivery", "in flight"] * 2  # each before a restart


async def test_killed_again_and_again_delivers_everything_once_but_what_was_in_flight(
    tmp_path: Path, server: FakeTelegram, rng: random.Random
) -> None:
    """`paperbot run` SIGKILLed ten times, each at a moment the seeded generator picks: while
    a listing dropped just before the start is read (a random moment after the bot's first call
    to Telegram), as soon as a new listing's papers are stored (planning), after a random number
    of messages sent, or with a message held in flight by the fake Bot API (Telegram takes it
    after the bot died). Restarted each time; at the end, everything delivered."""
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    filters = subscribe_chats(url, rng)
    waves = listing_waves(6, per_topic=10)  # 240 papers in six files, one before each restart
    expected = expected_pairs(filters, [paper for wave in waves for paper in wave])
    (tmp_path / "inbox").mkdir()
    kills = rng.sample(KILLS, len(KILLS))
    watch = Watch(url)
    in_flight: set[tuple[int, str]] = set()
    phases: list[tuple[str, str]] = []  # (how the kill was chosen, where the work stood)
    dropped, waiting = 0, list(waves)
    try:
        for number, kill in enumerate(kills, 1):
            if kill in ("ingest", "planning"):
                wave = waiting.pop(0)
                drop_listing(tmp_path, number, wave)
                dropped += len(wave)
            await kill_at(kill, tmp_path, server, url, watch, rng, number, dropped)
            in_flight |= watch.sending(range(1, CHATS + 1))
            phases.append((kill, watch.phase(dropped)))
        process = start(tmp_path, server, url, log="final")
        try:
            await wait_until(
                lambda: watch.state() == (dropped, False, 0), timeout=180, what="the rest delivered"
            )
        finally:
            stop(process, tmp_path / "final.log")
    finally:
        watch.close()
    print("kills (chosen as, work left):", phases, f"{len(in_flight)} rows in flight")
    arrived = check_deliveries(server, Ledger.read(url, range(1, CHATS + 1)), expected, in_flight)
    assert len(phases) >= 10
    left = Counter(where for _, where in phases)
    assert left["ingest"] + left["planning"] >= 1, f"no kill before a listing was matched: {phases}"
    assert len(phases) - left["idle"] >= 5, f"most kills should find work left: {phases}"
    logs = {log.name: log.read_text() for log in tmp_path.glob("*.log")}
    assert not [name for name, written in logs.items() if "Traceback" in written]
    if in_flight:  # some start found them and said so
        assert any("in flight at the last stop: resending" in w for w in logs.values())
        assert any(n > 1 for n in arrived.values())


async def kill_at(
    kill: str,
    tmp_path: Path,
    server: FakeTelegram,
    url: str,
    watch: Watch,
    rng: random.Random,
    number: int,
    dropped: int,
) -> None:
    """One run of the bot, SIGKILLed at the moment `kill` says (`dropped`: papers in the inbox
    so far; a run with nothing left to do is killed at once)."""
    started, sends = len(server.calls_to("getMe")), len(server.sends)

    def done() -> bool:
        return watch.state() == (dropped, False, 0)

    stored = watch.state()[0]
    held = server.fail("sendMessage", "hold") if kill == "in flight" else None
    process = start(tmp_path, server, url, log=f"run-{number}")
    try:
        await server.wait_for(lambda: len(server.calls_to("getMe")) > started, timeout=120)
        if kill == "ingest":  # a random moment while the new listing is read and matched
            await asyncio.sleep(rng.uniform(0, 1.0))
        elif kill == "planning":  # its papers stored: matching them now
            await wait_until(lambda: watch.state()[0] > stored, timeout=60, what="papers stored")
        elif kill == "delivery":
            most = rng.randint(1, 25)
            await wait_until(
                lambda: len(server.sends) - sends >= most or done(),
                timeout=60,
                what=f"{most} messages sent",
            )
        else:
            assert held is not None
            await wait_until(
                lambda: held.holding > 0 or done(),
                timeout=60,
                what="a message in flight",
            )
    finally:
        process.kill()
        process.wait(timeout=30)
    if held is not None:  # Telegram takes the message whose sender died
        held.times = 0
        server.release(held)
        await server.wait_for(lambda: held.holding == 0, timeout=10)


# -- 3. Database outages (PostgreSQL) --------------------------------------------------------------


class Proxy:
    """A TCP proxy on 127.0.0.1 between the bot and PostgreSQL, which the test can `cut` (every
    connection closed, new ones closed as soon as they come: the database unreachable) and
    `restore`."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.lock = threading.Lock()
        self.cut_off = False
        self.open: set[socket.socket] = set()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            with self.lock:
                refused = self.cut_off
            try:
                if refused:
                    raise OSError("cut off")
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self.lock:
                self.open |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        self._close(source, sink)

    def _close(self, *sockets: socket.socket) -> None:
        with self.lock:
            self.open.difference_update(sockets)
        for each in sockets:
            with contextlib.suppress(OSError):
                each.shutdown(socket.SHUT_RDWR)
            each.close()

    def cut(self) -> None:
        with self.lock:
            self.cut_off = True
            connections = list(self.open)
        self._close(*connections)

    def restore(self) -> None:
        with self.lock:
            self.cut_off = False

    def close(self) -> None:
        self.cut()
        self.listener.close()


def terminate_backends(application_name: str) -> int:
    """pg_terminate_backend on every connection of that name, from a connection of the test's
    own (straight to PostgreSQL); returns how many were terminated."""
    assert POSTGRES_URL
    engine = create_engine(POSTGRES_URL)
    try:
        with engine.begin() as connection:
            found = connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = :name AND pid <> pg_backend_pid()"
                ),
                {"name": application_name},
            )
            return sum(1 for (done,) in found if done)
    finally:
        engine.dispose()


async def test_database_connections_killed_and_unreachable_for_seconds(
    tmp_path: Path, server: FakeTelegram, rng: random.Random
) -> None:
    """The bot on PostgreSQL through a proxy: while it sends, its connections are terminated
    (pg_terminate_backend) again and again; the database is unreachable for a few seconds
    twice, once while the bot is idle and a new listing arrives (ingest and planning fail), once
    while it sends (messages out, the ledger out of reach). The bot stays up, says so in a line
    each time (no tracebacks), and afterwards every (chat, paper) has arrived exactly once."""
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL: set PAPERBOT_TEST_DATABASE_URL to run this on PostgreSQL")
    _reset_postgres(POSTGRES_URL)
    direct = make_url(POSTGRES_URL)
    proxy = Proxy(direct.host or "127.0.0.1", direct.port or 5432)
    name = f"paperbot-chaos-{os.getpid()}"
    url = direct.set(host="127.0.0.1", port=proxy.port, query={"application_name": name})
    filters = subscribe_chats(POSTGRES_URL, rng)
    waves = listing_waves(3, per_topic=20)  # 240 papers in three files
    expected = expected_pairs(filters, [paper for wave in waves for paper in wave])
    (tmp_path / "inbox").mkdir()
    log = tmp_path / "paperbot.log"
    port = free_port()
    watch = Watch(POSTGRES_URL)
    terminated = 0
    settings = {"PAPERBOT_DELIVERY_LEASE_SECONDS": "6", "PAPERBOT_METRICS_PORT": str(port)}
    process = start(tmp_path, server, url.render_as_string(hide_password=False), **settings)
    try:

        async def terminations(times: int) -> int:
            """Connections terminated, each time after a few more messages went out."""
            done = 0
            for _ in range(times):
                more = len(server.sends) + rng.randint(3, 12)
                await server.wait_for(lambda n=more: len(server.sends) >= n, timeout=120)
                done += terminate_backends(name)
            return done

        async def outage(*, watched: bool = False) -> None:
            proxy.cut()
            away = asyncio.create_task(asyncio.sleep(rng.uniform(3, 5)))  # how long it lasts
            if watched:  # what the operator sees meanwhile
                assert (await asyncio.to_thread(scrape, port))["paperbot_database_up"] == 0
                status, _ = await asyncio.to_thread(healthz, port)
                assert status == 503
            await away
            assert process.poll() is None, "the bot died with the database away"
            proxy.restore()

        async def delivered(papers_so_far: int) -> None:
            await wait_until(
                lambda: watch.state() == (papers_so_far, False, 0), timeout=180, what="all sent"
            )

        drop_listing(tmp_path, 1, waves[0])
        terminated += await terminations(4)
        await delivered(80)
        proxy.cut()  # idle: the next listing arrives with the database away
        drop_listing(tmp_path, 2, waves[1])
        await outage(watched=True)
        terminated += await terminations(2)
        await outage()  # while sending
        drop_listing(tmp_path, 3, waves[2])
        terminated += await terminations(3)
        await delivered(240)
        assert process.poll() is None, "the bot died"
        assert "Waiting for you: 0 papers" in (await server.reply_to(1, "/status"))["text"]
        samples = scrape(port)
        assert samples["paperbot_database_up"] == 1
        assert samples['paperbot_database_errors_total{job="scan"}'] >= 1  # the cut while idle
    finally:
        watch.close()
        stop(process, log)
        proxy.close()
    check_deliveries(server, Ledger.read(POSTGRES_URL, range(1, CHATS + 1)), expected, set())
    print(f"{terminated} connections terminated, {len(server.messages)} messages")
    assert terminated >= 5
    written = log.read_text()
    assert "Traceback" not in written
    assert re.search(r"WARNING bot.jobs: scan_inbox: the database is out of reach", written)
    assert re.search(
        r"WARNING bot.store.database: the database is out of reach .*: writes wait", written
    )
    assert "the database is back" in written
