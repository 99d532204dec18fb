"""The processes sharing one database (paperbot run and workers): each beats a heartbeat every
delivery tick, and Telegram's budget for the token is divided by how many are alive."""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy.exc import SQLAlchemyError

from bot.store import Database, leases

log = logging.getLogger(__name__)

ALIVE_WITHIN = timedelta(seconds=30)  # a process silent this long is counted out (6 ticks of 5 s)


def process_id() -> str:
    """This process, as claims and heartbeats name it: host, pid and start time."""
    return f"{socket.gethostname()}:{os.getpid()}:{int(time.time())}"


def heartbeat(
    database: Database, *, process_id: str, kind: str, now: datetime
) -> dict[str, datetime]:
    """This process is alive; returns the other live processes with their last heartbeats
    (read once this one's is committed: whoever beats after sees it)."""
    with database.session() as session:
        leases.heartbeat(session, process_id=process_id, kind=kind, now=now)
    if not database.shared:  # SQLite serves one process: another's heartbeat is a dead one's
        return {}
    with database.session() as session:
        live = leases.live_processes(session, now=now, within=ALIVE_WITHIN)
    live.pop(process_id, None)
    return live


class Joining:
    """A process that joins others on one database sends nothing until each of them has counted
    it, since until then they take Telegram's budget as if it were not there (CI saw the 429
    when a worker started sending at its half while `run` still sent at the whole 30/s).

    Each other process counts it at its next heartbeat; that one may have begun before this
    one's row was committed, so two heartbeats of each are waited for (two delivery ticks,
    ~10 s, once at a start). A process seen for the first time later is waited for the same
    way; one that stops beating is counted out with the live ones."""

    def __init__(self) -> None:
        self.beats: dict[str, tuple[datetime, int]] = {}  # each other's last beat, beats since
        self.done = False

    def seen(self, others: Mapping[str, datetime]) -> bool:
        """After a heartbeat (`others`: the other live processes' last ones): whether each of
        them counts this process now. Once true, true for good (a later newcomer waits)."""
        if self.done:
            return True
        for process, beat in others.items():
            last, since = self.beats.get(process, (beat, -1))
            self.beats[process] = (beat, since + 1 if beat != last or since < 0 else since)
        self.done = all(self.beats[process][1] >= 2 for process in others)
        return self.done


def leave(database: Database, *, process_id: str) -> None:
    """This process stops: its heartbeat and its chats' claims go at once (with the database
    out of reach, they lapse by themselves after the lease: the stop goes on)."""
    try:
        with database.session() as session:
            leases.leave(session, process_id=process_id)
    except SQLAlchemyError as error:
        log.warning("could not give up this process's claims (they lapse): %s", error)
