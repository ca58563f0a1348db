"""Memory between the steps of a large build: freed memory given back to the system, and the
cycle collector kept off what the build keeps.

CPython hands blocks over 512 bytes (every result's dict is one) to the C library's malloc,
which keeps freed memory for reuse by the same process instead of returning it. After the
database is written, the rows that filled it are freed; malloc_trim returns that memory to
the system, so the site's step does not stack its own peak on top of the database step's.

A build makes millions of objects that live to its end (entries, rows, the site's data) and
few reference cycles: the collector, run every 700 new objects by default, walks them again and
again (a sixth of the time of validating 100,000 files; 0.1 to 0.2 s of a one-file rebuild).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

# New objects between two collections of the youngest generation during a build (Python's: 700).
BUILD_YOUNG_THRESHOLD = 10_000


@contextmanager
def collector_paused(keep: bool = False) -> Iterator[None]:
    """No cycle collection while data that holds no cycles piles up (entries, rows, the site's
    data): they are walked once, by the first collection after. `keep`: what is made meanwhile
    lives on, so it is put out of the collector's reach (gc.freeze) before the collector runs
    again, and not walked at all (the first collection after the site's data walked it all:
    0.04 s); kept_out_of_reach() gives it back at the end."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep:
            gc.freeze()
        if enabled:
            gc.enable()


@contextmanager
def kept_out_of_reach() -> Iterator[None]:
    """What steps within put out of the collector's reach (collector_paused(keep=True)) is given
    back to it at the end, for the collection of what has become garbage by then."""
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def fewer_collections(young: int = BUILD_YOUNG_THRESHOLD) -> Iterator[None]:
    """The youngest generation collected every `young` new objects, not every 700: the garbage a
    collection finds waits a little longer, the many that live on are walked far less often."""
    previous = gc.get_threshold()
    gc.set_threshold(max(young, previous[0]), *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


@cache
def _libc():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:  # pragma: no cover - no C library to load
        return None


def release_freed_memory() -> bool:
    """Return freed heap memory to the system (glibc's malloc_trim); False where unavailable."""
    libc = _libc()
    trim = getattr(libc, "malloc_trim", None) if libc is not None else None
    if trim is None:  # pragma: no cover - not glibc (musl, macOS)
        return False
    trim(0)
    return True
