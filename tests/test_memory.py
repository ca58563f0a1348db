"""Freed memory goes back to the system between the steps of a build."""

import sys

import pytest

from leaderboard.memory import release_freed_memory


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim and /proc are Linux's")
def test_rows_freed_are_returned_to_the_system():
    rows = [{f"column_{i}": float(n + i) for i in range(60)} for n in range(50_000)]  # dicts over 512 bytes
    survivors = rows[::50]  # a few stay, scattered: the C library keeps the freed memory between them
    full = _rss_kib()
    del rows
    kept = _rss_kib()
    assert release_freed_memory()
    assert kept > full - 10_000  # freed, but still held by the process
    assert _rss_kib() < kept - 40_000  # given back
    assert len(survivors) == 1_000
