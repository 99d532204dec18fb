"""Two threads racing through the same checks, switching as often as the interpreter can: for
code that shares memos between the planner's thread and the event loop's."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable


def race(check: Callable[[int], bool], count: int, rounds: int) -> list[str]:
    """`check(i)` for i in range(count), `rounds` times, in two threads at once (one forwards,
    one backwards); what went wrong: a check that failed, or an exception raised."""
    start = threading.Barrier(2)
    failures: list[str] = []

    def run(order: list[int]) -> None:
        start.wait()
        try:
            for _ in range(rounds):
                failures.extend(f"check {i} failed" for i in order if not check(i))
        except Exception as error:  # noqa: BLE001  (reported with the failures)
            failures.append(repr(error))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        orders = (list(range(count)), list(reversed(range(count))))
        threads = [threading.Thread(target=run, args=(order,)) for order in orders]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    return failures
