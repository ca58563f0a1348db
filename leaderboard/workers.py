"""Worker processes: how many to start, and ending with the process that started them.

A pool's forked workers wait on a pipe whose write end they hold themselves: when the build that
forked them is killed (SIGKILL, the OOM killer), nothing tells them, and they would wait forever.
"""

from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def end_with(parent: int) -> None:
    """In a worker started by process `parent`: be killed when it dies (Linux's parent-death
    signal), and end now if it already has (it may die before the signal is asked for)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the check below is all there is
        pass
    if os.getppid() != parent:
        os._exit(1)


def available_cpus() -> int:
    """The processors this process may run on (its affinity), for a pool of one worker a processor."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
