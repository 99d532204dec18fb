"""Huge pages for the heap (bot/memory.py), on this machine's real kernel."""

from __future__ import annotations

import gc
import platform
import sys

import pytest

from bot import memory

MB = 1 << 20


def anon_huge_kb() -> int:
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1])
    return 0


def kernel_at_least(major: int, minor: int) -> bool:
    release = platform.release().split("-")[0].split(".")
    return (int(release[0]), int(release[1])) >= (major, minor)


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux memory maps")


@linux_only
@pytest.mark.skipif(
    not memory.huge_pages_available() or not kernel_at_least(6, 1),
    reason="needs transparent huge pages not set to never, and MADV_COLLAPSE (Linux 6.1+)",
)
def test_a_large_heap_is_collapsed_into_huge_pages_and_keeps_its_contents() -> None:
    data = [str(number) * 3 for number in range(1_500_000)]  # ~100 MB of small objects
    before = anon_huge_kb()
    collapsed = memory.prefer_huge_pages()
    assert collapsed >= 64 * MB
    assert anon_huge_kb() - before >= 32 * 1024
    assert data[1_234_567] == "1234567" * 3 and len(data) == 1_500_000


SMAPS = """\
55d0c0000000-55d0c8000000 rw-p 00000000 00:00 0                          [heap]
Size:             131072 kB
Rss:              131072 kB
7f0000100000-7f0004100000 rw-p 00000000 00:00 0
Size:              65536 kB
Rss:               60000 kB
AnonHugePages:         0 kB
7f0010000000-7f0014000000 rw-p 00000000 00:00 0
Size:              65536 kB
Rss:                   4 kB
7f0020000000-7f0024000000 rw-s 00000000 00:01 1234                       /dev/zero (deleted)
Size:              65536 kB
Rss:               65536 kB
7f0030000000-7f0034000000 rw-p 00000000 08:01 99                         /usr/lib/libfoo.so
Size:              65536 kB
Rss:               65536 kB
7f0040000000-7f0040100000 rw-p 00000000 00:00 0
Size:               1024 kB
Rss:                1024 kB
7ffc00000000-7ffc00800000 rw-p 00000000 00:00 0                          [stack]
Size:               8192 kB
Rss:                8192 kB
"""


def test_only_mostly_used_private_anonymous_memory_is_chosen_in_whole_huge_pages() -> None:
    assert memory.heap_ranges(SMAPS) == [
        (0x55D0C0000000, 0x55D0C8000000),  # the brk heap, aligned already
        (0x7F0000200000, 0x7F0004000000),  # an arena area, trimmed to 2 MiB boundaries
    ]  # not: a reserve barely touched, shared memory, a library's data, under 2 MiB, the stack


@linux_only
def test_this_process_has_heap_to_choose() -> None:
    with open("/proc/self/smaps") as smaps:
        ranges = memory.heap_ranges(smaps.read())
    assert ranges and sum(end - start for start, end in ranges) >= 8 * MB


def test_the_cycle_collector_is_paused_for_a_block_and_runs_again_after() -> None:
    assert gc.isenabled()
    with pytest.raises(ValueError), memory.cycles_uncollected():
        assert not gc.isenabled()
        raise ValueError  # a failed batch still hands the collector back
    assert gc.isenabled()
    gc.disable()  # paused by someone else: left as it was
    try:
        with memory.cycles_uncollected():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
