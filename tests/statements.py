"""The SQL statements a block of code sends, read from the engine (SQLAlchemy's
before_cursor_execute event): how tests hold a use case to a number of queries."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, event


@contextmanager
def statements(engine: Engine, wanted: Callable[[str], bool]) -> Iterator[list[str]]:
    """The statements sent inside the block for which `wanted` is true, in order."""
    seen: list[str] = []

    def note(_connection: object, _cursor: object, statement: str, *_: object) -> None:
        if wanted(statement):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", note)


def counts_of_deliveries(statement: str) -> bool:
    """A count over the delivery ledger (status, /stats, /metrics)."""
    return "count(" in statement and "FROM delivery" in statement
