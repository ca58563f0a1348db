"""One build: validate everything, write the database, render the site; all or nothing.

Refuses to write anything when a single file is invalid.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from leaderboard import atomic, store
from leaderboard.cache import folder_beside
from leaderboard.kept_rows import KEPT_ROWS, KeptRows, inputs_digest
from leaderboard.manifest import Unmatched, unmatched_cause, unmatched_text
from leaderboard.memory import collector_paused, fewer_collections, kept_out_of_reach, release_freed_memory
from leaderboard.problems import Problem, plural
from leaderboard.render.clone import start as start_clone
from leaderboard.rows import table_rows
from leaderboard.validate import ValidationResult, validate_paths


@dataclass
class BuildResult:
    """What a build did. Once the database is written, validation.entries is emptied (the
    database holds them; at 100,000 results they are half a gigabyte); `entries` keeps the count."""

    validation: ValidationResult
    db: str | None = None
    site: Path | None = None
    entries: int = 0
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # said on stderr; the build goes on

    @property
    def ok(self) -> bool:
        return not self.problems


LOCK_NAME = ".leaderboard-build.lock"


class BuildLocked(RuntimeError):
    """Another build holds the lock of this folder."""


class CommittedCache(RuntimeError):
    """The build's cache folder holds files that git tracks: a cache is trusted (valid submissions,
    drawn charts), so one committed by a pull request must never reach a build."""


def check_cache_not_committed(folder: Path) -> None:
    """Raise CommittedCache when git tracks a file under `folder` (the cache). Outside a git
    repository, or without git, there is nothing to check."""
    import subprocess

    if not folder.is_dir():
        return
    try:
        listed = subprocess.run(
            ["git", "-C", str(folder), "ls-files", "-z", "--", "."],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return
    tracked = [name for name in listed.stdout.decode("utf-8", "replace").split("\0") if name]
    if listed.returncode == 0 and tracked:
        raise CommittedCache(
            f"the build's cache {folder} holds {len(tracked)} file(s) tracked by git (first: {tracked[0]}): "
            "a build trusts its cache, so it is never committed; remove it from git with "
            f"`git rm -r --cached {folder}` and build again"
        )


@contextmanager
def build_lock(folder: Path) -> Iterator[None]:
    """One build at a time per folder: a second one fails at once with a clear message
    instead of racing the first one's renames. The lock dies with its process: a POSIX record
    lock (lockf), which the worker processes forked to validate files do not inherit (a flock
    they would hold, so that a killed build's workers, still winding down, kept the next build out)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    handle = open(path, "a+")
    try:
        try:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):  # EAGAIN or EACCES, as the system says it
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise BuildLocked(
                f"another build is running here (pid {holder}, lock {path}); wait for it to finish and build again"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        yield
    finally:
        handle.close()


def _remove_leftovers(db: str | Path, out: Path | None) -> None:
    """Temporary files of a build that was killed; only called under the lock."""
    import shutil

    if not store.is_url(db):
        target = Path(db)
        for leftover in target.parent.glob(f".{target.name}.*.tmp*"):
            leftover.unlink(missing_ok=True)
    if out is not None:
        for leftover in out.parent.glob(f".{out.name}.*.tmp"):
            shutil.rmtree(leftover, ignore_errors=True)
        for leftover in out.parent.glob(f".{out.name}.*.old"):
            # A replaced site, whose removal in the background may still run (a quick rebuild):
            # removed in the background again, which is harmless, so no build waits on it.
            if not atomic.remove_in_background(leftover):
                shutil.rmtree(leftover, ignore_errors=True)
        # downloads.preparing's, of a build no longer running (a cache may be shared: $LEADERBOARD_CACHE).
        for leftover in folder_beside(out).glob("downloads.*.tmp"):
            if not _running(leftover.name.split(".")[1]):
                shutil.rmtree(leftover, ignore_errors=True)


def _running(pid: str) -> bool:
    """Whether a process of this id runs (one of another user's counts)."""
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (ValueError, OverflowError):
        return False  # not a process id: not a name a build gives
    except PermissionError:
        return True
    return True


def _kept_rows(cache: Path | None, validation: ValidationResult, base: Path) -> KeptRows | None:
    """The rows of unchanged entries kept in the cache since the last build, and this build's kept
    there; up to store.ROWS_KEPT_UP_TO results (at 100,000, the kept rows, 570 MB, would be read,
    held and written again beside everything else)."""
    if cache is None or validation.catalog_digest is None or len(validation.entries) > store.ROWS_KEPT_UP_TO:
        return None
    catalog = validation.catalog
    return KeptRows(
        cache / KEPT_ROWS, inputs_digest(validation.catalog_digest, catalog.verified, catalog.imported, base)
    )


def unmatched_warnings(unmatched: list[Unmatched]) -> list[str]:
    """Why results an importer verified show as not verified: their files are not its bytes (a local
    checkout with core.autocrlf still builds; check-pr refuses such a tree)."""
    if not unmatched:
        return []
    return [
        f"{plural(len(unmatched), 'result')} {'shows' if len(unmatched) == 1 else 'show'} as not verified: "
        f"{'its file differs' if len(unmatched) == 1 else 'their files differ'} from the digests in catalog/verified/ "
        f"{unmatched_text(unmatched)}; "
        f"{unmatched_cause(unmatched, edits=True)}. Check the files out byte for byte as committed to verify them"
    ]


def build(
    submissions: Path,
    catalog: Path,
    db: str | Path,
    out: Path | None,
    progress: Callable[[str, int | None], Callable[[int], None]] | None = None,
    base_url: str | None = None,
    jobs: int | None = None,
) -> BuildResult:
    """Validate `submissions` against `catalog`, then write `db` and (when `out`) the site,
    published at `base_url` (else the catalog's site.yaml says where, if it does), with `jobs`
    worker processes validating files and drawing charts (default: one a core; 1: none).

    Raises BuildLocked when another build runs in the same folder, CommittedCache when git tracks
    a file of the build's cache."""
    folder = Path(db).parent if not store.is_url(db) else out.parent if out is not None else Path(".")
    with build_lock(folder):
        # The cache beside the site, else beside the database file (a server database without a
        # site has none).
        beside = out if out is not None else None if store.is_url(db) else Path(db)
        cache = folder_beside(beside) if beside is not None else None
        if cache is not None:
            check_cache_not_committed(cache)
        _remove_leftovers(db, out)
        with fewer_collections(), kept_out_of_reach():
            return _build(submissions, catalog, db, out, progress, base_url, jobs, cache)


def _build(submissions, catalog, db, out, progress, base_url, jobs, cache: Path | None) -> BuildResult:
    # A rebuild's site starts as the previous one's files, linked by a process of its own meanwhile.
    clone = start_clone(out) if out is not None else None
    try:
        return _build_with(submissions, catalog, db, out, progress, base_url, jobs, cache, clone)
    finally:
        if clone is not None:
            clone.discard()  # nothing once the site took it (or it failed), else the copy goes


def _build_with(submissions, catalog, db, out, progress, base_url, jobs, cache: Path | None, clone) -> BuildResult:
    count = sum(1 for _ in submissions.rglob("*")) if progress else None
    tick = progress("validating", count) if progress else None
    cache_file = cache / "validation.json" if cache is not None else None
    # The entries and then the rows are kept for the next step: not walked by the collector.
    with collector_paused(keep=True):
        validation = validate_paths([submissions], catalog, progress=tick, cache_file=cache_file, jobs=jobs)
    outcome = BuildResult(validation, problems=list(validation.problems))
    if validation.problems:
        return outcome
    base = submissions.resolve().parent
    kept = _kept_rows(cache, validation, base)
    with collector_paused(keep=True):  # rows hold no cycles
        rows = table_rows(validation.entries, validation.catalog, base=base, kept=kept)
    outcome.warnings += unmatched_warnings(rows.unmatched)
    # The rows hold what the database and the site need: the entries do not stay in memory
    # beside what comes next (at 100,000 results, half a gigabyte). Their count stays in
    # outcome.entries.
    validation.entries = []
    release_freed_memory()
    entries = len(rows.results)
    # A database file is put in its place only once its site is written too: the site is drawn
    # from the rows the database is filled with, while it is filled and its file written beside
    # its place by a process of its own (store.Staged).
    staged = preparing = None
    if out is not None and not store.is_url(db):
        from leaderboard.render import downloads

        # The downloads are written by the database's process too, but at scale: past
        # ROWS_KEPT_UP_TO results the build exports them from the file under a memory limit.
        if entries <= store.ROWS_KEPT_UP_TO:
            preparing = downloads.preparing(out)
        staged = store.Staged(db, store.tables(validation.catalog, rows), then=preparing, cache_folder=cache)
    else:
        store.write_database(db, validation.catalog, rows)
    del rows
    release_freed_memory()
    # Kept while the pages are drawn (started once the database's process is forked).
    saving = kept.save_meanwhile() if kept is not None else None
    try:
        if out is not None:
            from leaderboard.render.site import render_site

            try:
                render_site(
                    staged or db, out, validation.catalog, project=base, base_url=base_url, jobs=jobs, clone=clone
                )
            except BaseException as error:
                if staged is None:  # a server database is committed before its site is drawn
                    error.add_note("the server database was written; the site was not (the previous site stays)")
                raise
            outcome.site = out
        if staged is not None:
            store.publish(staged.write_aside(), db)
    finally:
        if saving is not None:
            saving.join()
        if staged is not None:
            staged.close()
        if preparing is not None:
            preparing.discard()
    outcome.db, outcome.entries = str(db), entries
    return outcome
