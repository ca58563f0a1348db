"""forked.Forked: a function run in a forked child, its result or its error handed back."""

from __future__ import annotations

import errno
import os
import signal
import threading
import time

import pytest

from leaderboard.forked import ChildFailed, Forked


def _refused(path: str) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("not this one")


def _unpicklable() -> None:
    raise _Unpicklable("a message of its own")


def _killed() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _exits() -> None:
    os._exit(3)


@pytest.mark.parametrize(
    ("function", "args", "raised", "message"),
    [
        (_refused, ("/full/disk.duckdb",), OSError, "No space left on device"),
        (_unpicklable, (), ChildFailed, "_Unpicklable: a message of its own"),
        (_killed, (), ChildFailed, "was ended by SIGKILL before it was done"),
        (_exits, (), ChildFailed, "exited with code 3 before it was done"),
        (lambda: {}["missing"], (), KeyError, "missing"),
    ],
)
def test_a_childs_failure_is_raised_in_the_parent(function, args, raised, message):
    forked = Forked(function, *args)
    with pytest.raises(raised, match=message) as caught:
        forked.result()
    with pytest.raises(raised):  # each time it is asked for
        forked.result()
    if raised is OSError:  # what machine_errors.describe() reads
        assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, "/full/disk.duckdb")


def test_the_child_has_the_parents_objects_without_pickling_them_and_hands_back_its_result():
    lock = threading.Lock()  # no pickle of it exists
    rows = [{"id": n, "value": n * 0.5} for n in range(10_000)]
    forked = Forked(lambda: (lock.locked(), sum(r["value"] for r in rows), os.getpid()))
    locked, total, pid = forked.result()
    assert (locked, total) == (False, sum(n * 0.5 for n in range(10_000)))
    assert pid == forked.pid != os.getpid()
    assert forked.result()[2] == pid  # once made, kept


def test_the_child_runs_nothing_of_the_parents_after_the_function(tmp_path):
    """Not the parent's `finally` blocks nor its exit handlers: the child leaves by os._exit."""
    marks = tmp_path / "marks"
    try:
        forked = Forked(lambda: "done")
    finally:
        with marks.open("a") as file:
            file.write(f"{os.getpid()}\n")
    assert forked.result() == "done"
    assert marks.read_text().split() == [str(os.getpid())]


def test_stop_ends_a_child_still_at_work():
    forked = Forked(time.sleep, 60)
    started = time.monotonic()
    forked.stop()
    assert time.monotonic() - started < 30
    with pytest.raises(ChildFailed, match="SIGKILL"):
        forked.result()
    forked.stop()  # once is enough
    with pytest.raises(ChildProcessError):
        os.waitpid(forked.pid, os.WNOHANG)  # reaped, no zombie left


def test_stop_after_a_wait_interrupted_ends_the_child():
    """Ctrl-C while result() waits, then stop() (a watched build stopped midway: watch.py)."""
    forked = Forked(time.sleep, 60)
    previous = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            forked.result()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    forked.stop()
    with pytest.raises(ChildFailed, match="SIGKILL"):
        forked.result()
    with pytest.raises(ChildProcessError):
        os.waitpid(forked.pid, os.WNOHANG)  # reaped, no zombie left


def test_stop_after_the_result_leaves_it_as_it_was():
    forked = Forked(lambda: 42)
    assert forked.result() == 42
    forked.stop()
    assert forked.result() == 42


def test_a_child_dies_with_its_parent(tmp_path):
    """A build killed (SIGKILL, the OOM killer) leaves no child filling its database on."""
    import subprocess
    import sys

    script = (
        "import os, sys, time\n"
        "from leaderboard.forked import Forked\n"
        "forked = Forked(time.sleep, 600)\n"
        "print(forked.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{child}/stat") as stat:
                if stat.read().split(") ")[-1].startswith("Z"):  # a zombie of init's, not yet reaped
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the child outlived its parent")
