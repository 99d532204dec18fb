"""Huge pages for the heap (bot/memory.py), on this machine's real kernel."""

from __future__ import annotations

import mmap
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


@linux_only
def test_only_mostly_used_private_anonymous_memory_is_chosen() -> None:
    # the shared one between the private two, which the kernel could otherwise merge into one
    sparse = mmap.mmap(-1, 64 * MB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    shared = mmap.mmap(-1, 64 * MB)  # MAP_SHARED: not the heap
    dense = mmap.mmap(-1, 64 * MB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        sparse[0] = 1  # one page of 16,384 in use
        for offset in range(0, 64 * MB, mmap.PAGESIZE):
            dense[offset] = 1
            shared[offset] = 1
        ranges = memory._heap_ranges()

        def chosen(region: mmap.mmap) -> bool:
            address = memory.ctypes.addressof(memory.ctypes.c_char.from_buffer(region))
            return any(start <= address + 4 * MB < end for start, end in ranges)

        assert chosen(dense)
        assert not chosen(sparse)
        assert not chosen(shared)
        assert all(start % memory.HUGE_PAGE == 0 and end % memory.HUGE_PAGE == 0
                   for start, end in ranges)  # fmt: skip
    finally:
        for region in (sparse, dense, shared):
            region.close()
