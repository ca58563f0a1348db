"""A drawing server that outlives a build: the charts' renderer (vl-convert), started once and kept
ready between builds, so that a rebuild that redraws a few charts does not wait for it to start.

vl-convert's start (V8 and the Vega modules) is half a second of a core, longer than a rebuild's
few drawings: a worker process started for each build put it on the rebuild's critical path. The
server is started by the first build that draws in worker processes, in a session of its own with
no terminal or output, at the workers' lower priority; it ends when no build has asked it for a
drawing for IDLE_SECONDS (default 600; $LEADERBOARD_DRAWING_SERVER_IDLE, 0: no server).

One server a user and code: its socket is named after the renderer's version and the code that
draws (painter.py and its fonts' settings), in a folder only the user may open
($XDG_RUNTIME_DIR, else /tmp/leaderboard-<uid>), so no other user can connect to it or stand in
for it. A drawing is a pure function of its spec and the renderer, the same bytes in any process:
builds of several projects share the server. Whenever the server cannot be reached or fails, the
build draws in worker processes of its own as before.

The protocol, over a Unix stream socket: a request is a 4-byte big-endian length and the JSON of
[job, args] (job "svg" or "bundle"); the answer a status byte (0 drawn, 1 failed), a 4-byte length
and the drawing (or the failure's text) in UTF-8.

This module knows sockets, not drawings: painter.py says what the server draws and runs it
(`python -m leaderboard.render.painter serve SOCKET IDLE_SECONDS MOST_DRAWINGS`).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import queue
import signal
import socket
import stat
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import suppress
from pathlib import Path

import orjson

IDLE_ENV = "LEADERBOARD_DRAWING_SERVER_IDLE"
IDLE_SECONDS = 600
# How long a build waits for a server it started to take connections before drawing on its own.
START_SECONDS = 10.0
# How long a build waits for one answer of the server (a chart takes well under a second; builds
# sharing the server wait their turn) before it kills the server, taken to hang, and draws the
# rest in a worker of its own.
ANSWER_SECONDS = 300.0
# A server ends once it has drawn this many charts and no build is connected (the next build starts
# another): vl-convert's memory grows with what it has drawn (160 MB started, 216 MB after half a
# cold build's 984 charts), and a server's stays bounded.
MOST_DRAWINGS = 2_000
# A Unix socket's path is at most 107 bytes (Linux's sun_path): past this, no server.
SOCKET_PATH_BYTES = 100
_LENGTH = struct.Struct(">I")


def idle_seconds() -> float:
    """How long a server waits for the next drawing before it ends ($LEADERBOARD_DRAWING_SERVER_IDLE;
    0: builds start none). A value that is no number of seconds leaves the default."""
    try:
        return max(0.0, float(os.environ.get(IDLE_ENV, IDLE_SECONDS)))
    except ValueError:
        return float(IDLE_SECONDS)


def socket_path(names: list[str], sources: list[Path]) -> Path | None:
    """The socket of this user's server for what `names` (the renderer's version, the interpreter)
    and the files `sources` (the drawing code, its settings) say; None when there is no folder only
    this user may open, or the path would be too long for a socket (no server then)."""
    folder = _private_folder()
    if folder is None:
        return None
    code = hashlib.sha256()
    for name in names:
        code.update(name.encode() + b"\0")
    for source in [*sources, Path(__file__)]:
        code.update(source.read_bytes() + b"\0")
    path = folder / f"drawing-{code.hexdigest()[:24]}.sock"
    return path if len(os.fsencode(path)) <= SOCKET_PATH_BYTES else None


def _private_folder() -> Path | None:
    """$XDG_RUNTIME_DIR, else /tmp/leaderboard-<uid> (made): a folder this user owns that no one
    else may open; None when it is anything else (a link, another's, open to others)."""
    uid = os.getuid()
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(runtime) / "leaderboard" if runtime else Path(f"/tmp/leaderboard-{uid}")
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
        return None
    return folder


class Served:
    """A build's connection to the drawing server, as a pool of one worker (painter._Workers's
    interface): drawings are handed over in order on a thread of its own, which starts the server
    (`python -m <module> serve`) when none answers. `jobs` names the functions the server runs by
    the names it knows them by. When the server cannot be reached or fails, that drawing and the
    ones after it go to `fallback()`'s worker pool instead."""

    size = 1

    def __init__(self, path: Path, idle: float, module: str, jobs: dict[Callable, str], fallback: Callable[[], object]):
        self.path, self.idle, self.module, self.jobs = path, idle, module, jobs
        self._fallback_pool = fallback
        self.waiting = 0
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._fallback = None
        self._cancelled = False
        self.executor = self  # shutdown() as a ProcessPoolExecutor's
        self._thread = threading.Thread(target=self._run, name="drawing-server", daemon=True)
        self._thread.start()

    def submit(self, job: Callable[..., str], args: tuple) -> Future:
        future: Future = Future()
        with self._lock:
            self.waiting += 1
        future.add_done_callback(self._done)
        self._queue.put((job, args, future))
        return future

    def _done(self, _future: Future) -> None:
        with self._lock:
            self.waiting -= 1

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """As ProcessPoolExecutor's: `cancel_futures` drops the drawings not started (a build that
        failed). The server goes on."""
        self._cancelled = self._cancelled or cancel_futures
        self._queue.put((None, None, None))
        if wait:
            self._thread.join()
        if self._fallback is not None:
            self._fallback.executor.shutdown(wait=wait, cancel_futures=cancel_futures)

    def _run(self) -> None:
        connection = None
        try:
            while True:
                job, args, future = self._queue.get()
                if future is None:
                    return
                if self._cancelled:
                    future.cancel()
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    connection = self._hand_over(connection, job, args, future)
                except Exception as error:  # noqa: BLE001 - the build raises it in finish(), never waits forever
                    future.set_exception(error)
        finally:
            if connection is not None:
                connection.close()

    def _hand_over(self, connection, job: Callable[..., str], args: tuple, future: Future):
        """One drawing to the server (started when none answers), else to the fallback workers:
        the connection to use for the next one (None once the server failed)."""
        if connection is None and self._fallback is None:
            connection = _connect_or_start(self.path, self.idle, self.module)
            if connection is None:
                self._fallback = self._fallback_pool()
        if connection is not None:
            try:
                _relay(connection, self.jobs[job], args, future)
                return connection
            except OSError as error:
                connection.close()
                connection = None
                self._fallback = self._fallback or self._fallback_pool()
                if isinstance(error, TimeoutError):  # a server that hangs would hang every build after
                    _kill(self.path)
        _chain(self._fallback.submit(job, args), future)
        return None


def _relay(connection: socket.socket, name: str, args: tuple, future: Future) -> None:
    """One drawing asked of the server; its answer (or failure) set on `future`. OSError: the
    connection failed (the drawing is not done)."""
    _send(connection, orjson.dumps([name, list(args)]))
    status, payload = _receive(connection)
    text = payload.decode("utf-8")
    if status == 0:
        future.set_result(text)
    else:
        future.set_exception(RuntimeError(f"the drawing server failed to draw a chart: {text}"))


def _chain(source: Future, target: Future) -> None:
    def copy(done: Future) -> None:
        if done.cancelled():
            target.set_exception(RuntimeError("the drawing was cancelled"))
            return
        error = done.exception()
        if error is not None:
            target.set_exception(error)
        else:
            target.set_result(done.result())

    source.add_done_callback(copy)


def _connect(path: Path) -> socket.socket | None:
    """A connection to the server of `path`, whose every answer is waited for ANSWER_SECONDS at most."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(str(path))
    except OSError:
        connection.close()
        return None
    connection.settimeout(ANSWER_SECONDS)
    return connection


def _kill(path: Path) -> None:
    """End the server of `path` at once (it answered nothing for ANSWER_SECONDS): the next build starts another."""
    pid = holder(path)
    if pid:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _connect_or_start(path: Path, idle: float, module: str) -> socket.socket | None:
    """A connection to the server, started when none answers; None when it cannot be had: the
    server started ended with none holding the socket's lock (it failed), or START_SECONDS passed."""
    connection = _connect(path)
    if connection is not None:
        return connection
    try:
        started = start(path, idle, module)
    except OSError:
        return None
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        connection = _connect(path)
        if connection is not None:
            return connection
        if started.poll() is not None and holder(path) is None:
            return None
        time.sleep(0.02)
    return None


def holder(path: Path) -> int | None:
    """The process id of the server of socket `path` (it holds the lock beside it); None when none
    does (0: one that has not yet written its id)."""
    try:
        with open(f"{path}.lock", "r+") as lock:
            try:
                fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                lock.seek(0)
                text = lock.read().strip()
                return int(text) if text.isdigit() else 0
            fcntl.lockf(lock, fcntl.LOCK_UN)
            return None
    except OSError:
        return None


def stop_servers(wanted: Path | None = None) -> list[int]:
    """End this user's drawing servers (the one of socket `wanted`, else every one): their process
    ids. The benchmarks' cold builds start with none."""
    folder = _private_folder()
    if folder is None:
        return []
    stopped = []
    for lock in folder.glob("drawing-*.sock.lock"):
        path = lock.with_suffix("")
        if wanted is not None and path != wanted:
            continue
        pid = holder(path)
        if pid:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
                stopped.append((pid, path))
    for _pid, path in stopped:
        _wait_released(path)
    return [pid for pid, _ in stopped]


def _wait_released(path: Path, seconds: float = 10.0) -> None:
    """Until no server holds `path`'s lock (it ended: a process that ended, even one not yet
    reaped, holds no lock)."""
    deadline = time.monotonic() + seconds
    while holder(path) is not None and time.monotonic() < deadline:
        time.sleep(0.02)


def start(path: Path, idle: float, module: str, most: int = MOST_DRAWINGS) -> subprocess.Popen:
    """The server (`python -m <module> serve SOCKET IDLE MOST`), in a session of its own with no
    terminal, input or output (a build's caller waiting for its output, a CI job, does not wait for
    the server), started from the folder the package is in."""
    package_parent = Path(__file__).resolve().parents[2]
    return subprocess.Popen(
        [sys.executable, "-m", module, "serve", str(path), repr(idle), str(most)],
        cwd=package_parent,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def _send(connection: socket.socket, payload: bytes, status: int | None = None) -> None:
    """A request (`payload` after its length), or an answer (its `status` byte first)."""
    head = b"" if status is None else bytes([status])
    connection.sendall(head + _LENGTH.pack(len(payload)) + payload)


def _receive(connection: socket.socket) -> tuple[int, bytes]:
    head = _exactly(connection, 1 + _LENGTH.size)
    return head[0], _exactly(connection, _LENGTH.unpack(head[1:])[0])


def _exactly(connection: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        part = connection.recv(min(left, 1 << 20))
        if not part:
            raise ConnectionError("the drawing server closed the connection")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _read_request(connection: socket.socket) -> bytes | None:
    """The next request's payload; None once the build closed the connection."""
    try:
        return _exactly(connection, _LENGTH.unpack(_exactly(connection, _LENGTH.size))[0])
    except OSError:
        return None


# ---- the server's side ----


def serve(
    path: Path, idle: float, jobs: dict[str, Callable[..., str]], warm: Callable[[], None], most: int = MOST_DRAWINGS
) -> None:
    """Answer connections on `path` with `jobs` (by name), `warm()` run first, until no drawing was
    asked for `idle` seconds, or `most` were drawn and no build is connected, or the socket at
    `path` is no longer this server's (removed, or another's). One server a socket: the lock beside
    it says which; a second one ends at once."""
    os.nice(10)  # as the build's drawing workers: the build's own process keeps its core
    lock = open(f"{path}.lock", "a+")  # noqa: SIM115 - held for the server's life
    try:
        fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another server has it
    lock.seek(0)
    lock.truncate()
    lock.write(str(os.getpid()))
    lock.flush()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # ends through the finally: below
    path.unlink(missing_ok=True)  # a server's that ended without removing it
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(16)
    listener.settimeout(1.0)
    mine = os.stat(path).st_ino
    drawing = threading.Lock()
    state = _State()
    threading.Thread(target=_warm, args=(warm, drawing), daemon=True).start()
    try:
        while _still_mine(path, mine) and not state.idle_for(idle) and not state.done(most):
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            state.opened()
            threading.Thread(target=_answer, args=(connection, jobs, drawing, state), daemon=True).start()
    finally:
        listener.close()
        if _still_mine(path, mine):
            path.unlink(missing_ok=True)
            Path(f"{path}.lock").unlink(missing_ok=True)  # still held: a server starting now ends


class _State:
    """The server's open connections and when it last drew or closed one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open, self.last, self.drawn = 0, time.monotonic(), 0

    def opened(self) -> None:
        with self._lock:
            self.open += 1

    def closed(self) -> None:
        with self._lock:
            self.open -= 1
            self.last = time.monotonic()

    def drew(self) -> None:
        with self._lock:
            self.last = time.monotonic()
            self.drawn += 1

    def done(self, most: int) -> bool:
        with self._lock:
            return not self.open and self.drawn >= most

    def idle_for(self, seconds: float) -> bool:
        with self._lock:
            return not self.open and time.monotonic() - self.last >= seconds


def _warm(warm: Callable[[], None], drawing: threading.Lock) -> None:
    """The renderer started before the first drawing is asked for."""
    with drawing:
        warm()


def _still_mine(path: Path, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _answer(connection: socket.socket, jobs: dict, drawing: threading.Lock, state: _State) -> None:
    try:
        while (request := _read_request(connection)) is not None:
            try:
                name, args = orjson.loads(request)
                with drawing:
                    status, text = 0, jobs[name](*args)
            except Exception as error:  # noqa: BLE001 - told to the build, which raises it
                status, text = 1, f"{type(error).__name__}: {error}"
            _send(connection, text.encode("utf-8"), status)
            state.drew()
    except OSError:
        pass
    finally:
        connection.close()
        state.closed()
