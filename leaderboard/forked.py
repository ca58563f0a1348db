"""A function run in a process forked from this one, its result (or its error) handed back.

A forked child starts with this process's memory as it is (no copy is made until either side
writes a page): what the parent computed reaches the child without being serialized, and the
child's work does not wait for the parent's interpreter lock. A build fills and writes its
database in one while it draws its pages (store.Staged).

POSIX only, as the build's lock is (fcntl).
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import threading
from collections.abc import Callable

from leaderboard.workers import end_with


class ChildFailed(RuntimeError):
    """The child process ended without handing back a result or an error it could pickle."""


class Forked:
    """`function(*args)` running in a forked child from the moment this object is made.

    result() waits for it; stop() ends it. The child never runs anything of the parent's after
    the function: it leaves by os._exit, whatever happens (no atexit handler, no buffer of the
    parent's flushed twice, no `finally` of the parent's run again), and it is killed when the
    thread that made this object ends (Linux's parent-death signal): make it on a thread that
    lives as long as the work (the main thread)."""

    def __init__(self, function: Callable[..., object], *args: object):
        readable, writable = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(readable)
            _run_in_child(parent, writable, function, args)
        os.close(writable)
        self.pid = pid
        self._pipe: int | None = readable
        self._lock = threading.Lock()
        self._outcome: tuple[bool, object] | None = None

    def result(self) -> object:
        """What the function returned, once the child is done; its exception raised here when it
        raised one (ChildFailed when the child died, killed or crashed, without saying)."""
        with self._lock:
            if self._outcome is None:
                self._outcome = self._collect()
        done, value = self._outcome
        if done:
            return value
        raise value  # type: ignore[misc]

    def _collect(self) -> tuple[bool, object]:
        chunks = []
        if self._pipe is not None:  # None: a wait for it was interrupted (Ctrl-C), then stop() asked
            try:
                while chunk := os.read(self._pipe, 1 << 16):
                    chunks.append(chunk)
            finally:
                os.close(self._pipe)
                self._pipe = None
        _, status = os.waitpid(self.pid, 0)
        if chunks:
            try:
                outcome = pickle.loads(b"".join(chunks))
                if isinstance(outcome, tuple) and len(outcome) == 2:
                    return outcome
            except Exception:  # noqa: BLE001 - a truncated message: said below
                pass
        return False, ChildFailed(f"the process forked to do the work (pid {self.pid}) {_ended(status)}")

    def stop(self) -> None:
        """End the child if it is still at work, and wait for it (a result not asked for is dropped)."""
        with self._lock:
            if self._outcome is not None:
                return
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._outcome = self._collect()


def _run_in_child(parent: int, pipe: int, function: Callable[..., object], args: tuple) -> None:
    code = 1
    try:
        end_with(parent)  # a parent killed leaves no child writing on
        # The parent's objects are left where they are: the collector walking them would copy
        # every page of memory they are on into this process.
        gc.freeze()
        try:
            outcome = pickle.dumps((True, function(*args)))
            code = 0
        except BaseException as error:  # noqa: BLE001 - handed to the parent, which raises it
            outcome = _pickled_error(error)
        view = memoryview(outcome)
        while view:
            view = view[os.write(pipe, view) :]
    finally:
        os._exit(code)


def _pickled_error(error: BaseException) -> bytes:
    """The error as the parent is to raise it: itself when it survives pickling (an OSError keeps
    its errno and file name), else a ChildFailed with its type and message."""
    try:
        payload = pickle.dumps((False, error))
        pickle.loads(payload)
        return payload
    except Exception:  # noqa: BLE001 - any error that does not survive pickling
        return pickle.dumps((False, ChildFailed(f"{type(error).__name__}: {error}")))


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"was ended by {name} before it was done"
    return f"exited with code {os.waitstatus_to_exitcode(status)} before it was done"
