"""The process's memory: its heap backed by transparent huge pages (Linux), for the filter
index, and Python's cycle collector paused where millions of short-lived objects are made and
its young collections spaced out (`young_collection`).

A million filters make an index of several hundred megabytes that matching reads all over; with
the kernel's 4 KiB pages nearly every lookup misses the TLB as well as the cache. Where the
kernel's transparent huge pages are `madvise` (the usual default), asking for 2 MiB pages for
the heap and collapsing what is there now (MADV_COLLAPSE, Linux 6.1 and later) makes matching
about a fifth faster (bench/match.py, `huge_pages`). It changes nothing but how memory is mapped:
where it is not supported, or the kernel has no huge pages to spare, nothing happens.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

log = logging.getLogger(__name__)

MADV_HUGEPAGE = 14
MADV_COLLAPSE = 25
HUGE_PAGE = 2 << 20
THP_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def huge_pages_available() -> bool:
    """Whether this kernel can give the process transparent huge pages at all."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        setting = THP_SETTING.read_text()
    except OSError:
        return False
    return "[never]" not in setting


def prefer_huge_pages() -> int:
    """Ask for huge pages for the heap's writable private anonymous memory and collapse what is
    already there; the bytes now in huge pages' reach (0 where unsupported). Idempotent: memory
    already collapsed costs next to nothing the second time, so it can follow each large load."""
    if not huge_pages_available():
        return 0
    madvise = _madvise()
    collapsed = 0
    for start, end in heap_ranges(Path("/proc/self/smaps").read_text()):
        length = end - start
        if madvise(start, length, MADV_HUGEPAGE) != 0:
            continue
        if madvise(start, length, MADV_COLLAPSE) == 0:
            collapsed += length
        else:  # EINVAL before Linux 6.1; EAGAIN/ENOMEM when no huge page can be had now
            log.debug("huge pages: collapse refused (errno %d)", ctypes.get_errno())
    return collapsed


@functools.cache
def _madvise() -> Callable[[int, int, int], int]:
    """libc's madvise(2), loaded once."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.madvise.restype = ctypes.c_int
    madvise: Callable[[int, int, int], int] = libc.madvise
    return madvise


def heap_ranges(smaps: str) -> list[tuple[int, int]]:
    """The 2 MiB-aligned parts of the writable private anonymous mappings in a /proc/PID/smaps
    text (the allocator's arenas and the brk heap) that are mostly in use, as (start, end): a
    collapse fills a range whole, so a thread's stack or a reserve barely touched is left."""
    ranges = []
    mapping: tuple[int, int] | None = None
    for line in smaps.splitlines():
        fields = line.split()
        if not fields[0].endswith(":"):  # a mapping's header: address perms offset dev inode
            anonymous = len(fields) == 5 or fields[5] == "[heap]"
            low, high = (int(address, 16) for address in fields[0].split("-"))
            mapping = (low, high) if fields[1] == "rw-p" and anonymous else None
        elif fields[0] == "Rss:" and mapping is not None:
            low, high = mapping
            start = -(-low // HUGE_PAGE) * HUGE_PAGE
            end = high // HUGE_PAGE * HUGE_PAGE
            if end > start and int(fields[1]) * 1024 * 2 >= high - low:
                ranges.append((start, end))
    return ranges


@contextlib.contextmanager
def cycles_uncollected() -> Iterator[None]:
    """Python's cycle collector paused for the block: planning a busy batch and composing a
    busy chat's digest make millions of short-lived objects, and each full collection meanwhile
    walks every object of the process (the filter index's, the round's papers) to find no
    cycle. Memory is still freed by reference counting, and the collector runs again after.
    bench/day.py, runs alternating: planning 1,000 chats 9.2 s against 6.9 (10,000 chats: 99 s
    against 72); composing, 500 chats' digests in 49-62 s against 43."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def young_collection(threshold: int) -> None:
    """The cycle collector looks at the young objects once `threshold` more have been made than
    freed (Python's default: 700; 0 keeps what is set). A digest's result is alive when the
    collector runs between two digests, so each young collection moved it on towards the old
    ones, and full collections came as the old generation grew: composing 4,000 digests of
    bench/day.py's population, 3,658 young and 11 full collections took 2.3 s at 700, 119 young
    and one full 0.4 s at 10,000 (10,000 digests in bench/day.py: 6 s of 64). Cyclic garbage
    waits a little longer; memory is still freed by reference counting meanwhile."""
    if threshold:
        _, middle, old = gc.get_threshold()
        gc.set_threshold(threshold, middle, old)
