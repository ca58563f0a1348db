"""`leaderboard build --watch`: build, then build again whenever a submission or the catalog
changes, until Ctrl-C.

Each build runs in a process forked from this one, which imported the code a build needs once
(WARM): a rebuild starts no interpreter and imports nothing again (the harness's edit of one shipped
file, saved to built, took 0.35 s less than the command on 2 cores: benchmarks/RESULTS.md).
Otherwise each build is a fresh `leaderboard build`: it shares
nothing with the last but the files (the cache, the site, the database), and it is the same code.

Changes are the operating system's file events (watchfiles: inotify on Linux), waited for
between builds; a change made during a build is found by comparing every input file's size,
modification time and inode before the build with the same after it. A change to the code (the
package, the schemas) starts the command again (exec): the code that builds is the code on disk.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import click

from leaderboard.build import LOCK_NAME
from leaderboard.cache import PACKAGE, SCHEMAS, code_version
from leaderboard.cli_common import Failure, flush_output
from leaderboard.forked import Forked

# What a build imports after the command starts (its own process, and the database's process it
# forks): imported once by the watching process, so each build forked from it starts with them.
WARM = (
    "leaderboard.build",
    "leaderboard.render.site",
    "leaderboard.render.downloads",
    "leaderboard.render.exports",
    "leaderboard.render.sqlpage",
    "leaderboard.render.feeds",
    "leaderboard.render.sitemap",
    "leaderboard.store",
    "duckdb",
    "pyarrow",
    "pyarrow.parquet",
    "yaml",
    "jsonschema_rs",  # a changed file's check
)
# How long file events are gathered once one comes (an editor's save is several), in ms.
STEP_MS = 50
# How often the wait for events wakes up, in ms: its first wake-up compares the files with the
# listing taken before the build (a change made during the build).
WAKE_MS = 250


def watch_builds(
    build: Callable[[], object], inputs: list[Path], outputs: list[Path], code: list[Path] | None = None
) -> None:
    """Run `build()` (it returns an exit code and says what it did) in a forked process, then
    again each time a file under `inputs` changes, until Ctrl-C; files under `outputs` (what the
    build writes, should it write inside an input folder) are no change. The command starts
    again when a file under `code` (default: the package and the schemas) changes."""
    missing = [str(p) for p in inputs if not p.is_dir()]
    if missing:
        raise Failure(f"nothing to watch: no folder {', '.join(missing)}")
    ignored = Ignored(outputs)
    code = [p for p in ([PACKAGE, SCHEMAS] if code is None else code) if p.is_dir()]  # an installed wheel: no schemas/
    code_folders = [os.path.abspath(p) for p in code]
    _warm()
    # Ctrl-C stops it, and so does SIGTERM (a service manager's, `kill`'s), even where SIGINT was
    # ignored when it started (a command put in the background by a script).
    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        while True:
            before = listing([*inputs, *code], ignored)
            _build_forked(build)
            click.echo(f"watching {' and '.join(map(str, inputs))} for changes (Ctrl-C stops)", err=True)
            changed = _wait([*inputs, *code], before, ignored)
            if any(_under(path, code_folders) for path in changed):
                click.echo("the code changed: starting again", err=True)
                _restart()
            click.echo(f"{_named(changed)} changed: building again", err=True)
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class Ignored:
    """What is no change (a watchfiles filter: False for a path to ignore): an editor's and
    tools' own files (watchfiles' DefaultFilter: swap files, __pycache__, .git), and what the build
    writes: a path under `outputs`, or beside one under its name (".site.<pid>.tmp", a database's
    temporary file) and the build's lock."""

    def __init__(self, outputs: Iterable[Path]) -> None:
        from watchfiles import DefaultFilter

        self._default = DefaultFilter()
        self._outputs = [os.path.abspath(p) for p in outputs]
        self._beside = tuple(f".{os.path.basename(p)}." for p in self._outputs)

    def __call__(self, change: object, path: str) -> bool:
        parts = path.split(os.sep)
        if parts[-1] == LOCK_NAME or any(p.startswith(self._beside) for p in parts) or _under(path, self._outputs):
            return False
        return self._default(change, path)


def _warm() -> None:
    for name in WARM:
        importlib.import_module(name)
    code_version()  # hashes every file of the code: the same until the code changes (then: exec)


def _build_forked(build: Callable[[], object]) -> object:
    """`build()` in a process forked from this one; its exit code. Ctrl-C ends it."""
    forked = Forked(_flushed, build)
    try:
        return forked.result()
    except KeyboardInterrupt:
        forked.stop()  # a build ended midway writes nothing (the previous database and site stay)
        raise


def _flushed(build: Callable[[], object]) -> object:
    """build()'s exit code once what it said is out (the forked process leaves by os._exit)."""
    try:
        return build()
    finally:
        flush_output()


def _wait(folders: list[Path], before: dict[str, tuple[int, int, int]], ignored) -> set[str]:
    """The files changed since `before` was listed: at once when some changed during the build,
    else the next ones the system tells of."""
    from watchfiles import watch

    for changes in watch(*folders, watch_filter=ignored, step=STEP_MS, rust_timeout=WAKE_MS, yield_on_timeout=True):
        if changes:
            return {path for _, path in changes}
        if before is not None:
            changed = changed_since(before, listing(folders, ignored), ignored)
            if changed:
                return changed
            before = None  # the system's events from here on
    return set()  # pragma: no cover - watch() only ends on Ctrl-C, raised


def listing(folders: Iterable[Path], ignored) -> dict[str, tuple[int, int, int]]:
    """Every file under `folders` (not under a folder `ignored` leaves out), by absolute path: its
    size, modification time and inode. Files are filtered when compared (changed_since), not here:
    a listing is taken before each build, and filtering each of 3,000 names tripled its time
    (0.11 s against 0.04 s)."""
    from watchfiles import Change

    found: dict[str, tuple[int, int, int]] = {}
    folders_left = [os.path.abspath(folder) for folder in folders]
    while folders_left:
        try:
            entries = os.scandir(folders_left.pop())
        except OSError:
            continue  # gone meanwhile
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if ignored(Change.added, entry.path):
                            folders_left.append(entry.path)
                        continue
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found[entry.path] = (info.st_size, info.st_mtime_ns, info.st_ino)
    return found


def changed_since(before: dict, now: dict, ignored) -> set[str]:
    """The paths added, removed or changed from listing `before` to listing `now` that `ignored`
    lets through."""
    from watchfiles import Change

    differ = {path for path in before.keys() | now.keys() if before.get(path) != now.get(path)}
    return {path for path in differ if ignored(Change.modified, path)}


def _under(path: str, folders: Iterable[str]) -> bool:
    """Whether `path` is one of `folders` or under one (all absolute)."""
    return any(path == folder or path.startswith(os.path.join(folder, "")) for folder in folders)


def _named(changed: set[str]) -> str:
    first = os.path.relpath(min(changed)) if changed else "a file"
    return first if len(changed) <= 1 else f"{first} and {len(changed) - 1} more"


def _restart() -> None:
    """The same command again, from the start (its new code imported)."""
    flush_output()
    os.execv(sys.executable, sys.orig_argv)
