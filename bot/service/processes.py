"""The processes sharing one database (paperbot run and workers): each beats a heartbeat every
delivery tick, and Telegram's budget for the token is divided by how many are alive."""

from __future__ import annotations

import logging
import os
import socket
import time
from datetime import datetime, timedelta

from sqlalchemy.exc import SQLAlchemyError

from bot.store import Database, leases

log = logging.getLogger(__name__)

ALIVE_WITHIN = timedelta(seconds=30)  # a process silent this long is counted out (6 ticks of 5 s)


def process_id() -> str:
    """This process, as claims and heartbeats name it: host, pid and start time."""
    return f"{socket.gethostname()}:{os.getpid()}:{int(time.time())}"


def heartbeat(database: Database, *, process_id: str, kind: str, now: datetime) -> int:
    """This process is alive; returns how many are (itself included)."""
    with database.session() as session:
        leases.heartbeat(session, process_id=process_id, kind=kind, now=now)
        return max(leases.live_processes(session, now=now, within=ALIVE_WITHIN), 1)


def leave(database: Database, *, process_id: str) -> None:
    """This process stops: its heartbeat and its chats' claims go at once (with the database
    out of reach, they lapse by themselves after the lease: the stop goes on)."""
    try:
        with database.session() as session:
            leases.leave(session, process_id=process_id)
    except SQLAlchemyError as error:
        log.warning("could not give up this process's claims (they lapse): %s", error)
