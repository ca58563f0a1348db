"""Site files written on a thread of their own, in the order they are handed over: creating
thousands of files is system time that rendering the next page need not wait for.

The thread holds no lock Python code needs while it waits on the file system (the GIL is let go
in open() and write()), so the build's process renders pages on one core while files are created
on the other. A failure (a full disk) is raised by flush(), the next time the build waits.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Callable

# At most this many files' contents wait to be written: the pages already rendered stay in memory
# until then, so a slow disk slows the rendering instead of filling the memory. Links into the
# previous site (a few bytes each) never wait: a rebuild hands over thousands of them in a row, and
# the build's thread goes on to the next page's inputs while the writer's thread makes them.
WAITING = 256


class BackgroundWriter:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._room = threading.Semaphore(WAITING)  # taken by a content handed over, given back once written
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def write(
        self,
        target: str,
        content: bytes,
        replace: bool = False,
        then: Callable[[], None] | None = None,
        make_folder: bool = False,
    ) -> None:
        """Write `content` to the file `target`, after every file handed over before;
        `make_folder`: create its folder first (else it exists); `replace`: unlink what is there
        first (a link into the previous site); `then` runs once the file is written (on the
        writer's thread)."""
        self._room.acquire()
        self._put((target, content, replace, then, make_folder))

    def link(self, source: str, target: str, make_folder: bool = False) -> None:
        """Make `target` a hard link to the file `source` (a copy where links cannot be made),
        after every file handed over before; `make_folder`: create its folder first."""
        self._put((target, source, False, None, make_folder))

    def _put(self, item: tuple) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="site-files", daemon=True)
            self._thread.start()
        self._queue.put(item)

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            target, content, replace, then, make_folder = item
            try:
                if self._error is None:  # else drain: the build fails at flush()
                    _make(target, content, replace, then, make_folder)
            except BaseException as error:  # noqa: BLE001 - raised again by flush(), in the build's thread
                self._error = error
            finally:
                if content.__class__ is not str:  # a content written (or dropped): room for the next
                    self._room.release()

    def flush(self) -> None:
        """Wait until every file handed over is written; raise the first failure."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        error, self._error = self._error, None
        if error is not None:
            raise error


def _make(target: str, content: bytes | str, replace: bool, then: Callable[[], None] | None, make_folder: bool) -> None:
    """One file handed over: `content` written to `target`, or, when it is a path (str), a hard link to it."""
    if make_folder:
        os.makedirs(os.path.dirname(target), exist_ok=True)
    if content.__class__ is str:  # a link to this file
        try:
            os.link(content, target, follow_symlinks=False)
        except OSError:
            shutil.copyfile(content, target, follow_symlinks=False)
        return
    if replace:
        try:
            os.unlink(target)
        except FileNotFoundError:  # nothing was there (a cloned site's new file)
            pass
    with open(target, "wb") as handle:
        handle.write(content)
    if then is not None:
        then()
