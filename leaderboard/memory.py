"""Giving freed memory back to the system between the steps of a large build.

CPython hands blocks over 512 bytes (every result's dict is one) to the C library's malloc,
which keeps freed memory for reuse by the same process instead of returning it. After the
database is written, the rows that filled it are freed; malloc_trim returns that memory to
the system, so the site's step does not stack its own peak on top of the database step's.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache


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
