"""Whether some work grows linearly with its input, without a timed threshold.

The project has no timed tests: no test says "this takes less than N seconds", which a slow or
busy machine would break. What a hostile input does to an algorithm is a matter of growth, and
growth can be measured by the test itself: the work is done on an input of size n and on one of
size 4n, and the two costs are compared. Linear work costs about 4 times more; quadratic work 16
times more. The cost is the CPU time of this process (other processes on the machine don't count),
the best of three runs, each on a fresh input (`make(size, run)`: the run number makes each input
different, so that no cache answers the second run), and n is first doubled until the small input
costs enough to be measured (a millisecond of timer noise must not decide anything). A ratio
over the verdict is measured once more before the test fails (a busy machine may slow one measure;
it does not change how the work grows).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

Input = TypeVar("Input")

MEASURABLE = 0.02  # seconds of CPU the small input must cost before the two are compared
GROWTH = 4  # the large input is this many times the small one
RATIO = 10.0  # linear gives about 4, quadratic 16: the verdict sits between, generous to noise


def _cost(work: Callable[[Input], object], data: Input) -> float:
    """CPU seconds of one run, the garbage collector held off meanwhile (as timeit does)."""
    gc.disable()
    try:
        start = time.process_time()
        work(data)
        return time.process_time() - start
    finally:
        gc.enable()


def cpu_seconds(
    work: Callable[[Input], object],
    make: Callable[[int, int], Input],
    size: int,
    runs: tuple[int, ...] = (1, 2, 3),  # run 0 is the search's
) -> float:
    """The least CPU time of `work`, each run on a fresh input of `size`."""
    return min(_cost(work, make(size, run)) for run in runs)


def growth(
    work: Callable[[Input], object],
    make: Callable[[int, int], Input],
    size: int,
    *,
    largest: int = 1 << 26,
) -> tuple[int, float]:
    """(n, cost(4n) / cost(n)) with n the first size from `size` (doubling) whose cost is
    measurable, or the last below `largest`."""
    while _cost(work, make(size, 0)) < MEASURABLE and size * 2 * GROWTH <= largest:
        size *= 2
    small = cpu_seconds(work, make, size)
    large = cpu_seconds(work, make, size * GROWTH)
    return size, large / max(small, 1e-6)


def assert_linear(
    work: Callable[[Input], object],
    make: Callable[[int, int], Input],
    size: int,
    *,
    largest: int = 1 << 26,
) -> None:
    """Fails when `work` on 4n costs more than RATIO times its cost on n, twice in a row."""
    n, ratio = growth(work, make, size, largest=largest)
    if ratio >= RATIO:
        again = (4, 5, 6)  # fresh inputs again: a cache must not answer the second measure
        small = cpu_seconds(work, make, n, again)
        second = cpu_seconds(work, make, n * GROWTH, again) / max(small, 1e-6)
        assert second < RATIO, (
            f"{GROWTH}x the input ({n} -> {n * GROWTH}) cost {ratio:.1f}x the work, "
            f"then {second:.1f}x measured again"
        )
