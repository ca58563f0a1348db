"""A rebuild's new site starts as a copy of the previous one made of hard links, by `cp -al` in a
process of its own, started when the build starts: the folders and thousands of links are made on
a core the build leaves idle while it validates and loads, not one by one by the build's threads.

A rebuild keeps the site it replaced beside the new one (`.<site>.spare`, atomic.replace_dir): the
next rebuild's copy starts from it, made to hold what the previous site holds by changing only
what differs (mirror()), in a process forked for it. Its folders are not made again, nor the
replaced site's removed: on this machine's ext4 without a journal each new folder searched past
every inode freed in the last minutes, and `cp -al` of the site's 960 folders and 6,900 files
took 0.15 s of processor time after a quiet minute and up to 0.8 s between rebuilds, the removal
of the replaced site 0.1 s more.

The rebuild then writes only what changed, each file after unlinking the previous site's link at
its place (the previous site is never written to: a file is never opened through a link), and
finally removes every file it did not make or keep, and the folders left empty (prune()). Where
`cp` is missing or fails, the site is built into an empty folder, unchanged files linked one by one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

from leaderboard.atomic import remove_aside, remove_in_background, staging_dir_name
from leaderboard.cache import folder_beside
from leaderboard.forked import Forked
from leaderboard.render.reuse import MANIFEST, identities_of

CP = "cp"  # GNU coreutils' (`-l`: links, not copies)


@dataclass
class Clone:
    previous: Path
    staging: Path
    process: subprocess.Popen | Forked  # `cp -al`, or mirror() of the spare
    # The identity of each page of the previous site's manifest (reuse.identities_of), worked out
    # by a process forked when the build starts: 7,000 file lookups on the core the build leaves
    # idle while it validates, not on the build's own before its first page.
    identities: Forked | None = None

    def found(self) -> dict[str, list[int]]:
        """The identities (raises when there are none: PageReuse finds them itself then)."""
        if self.identities is None:
            raise LookupError("no identities were worked out")
        return self.identities.result()  # type: ignore[return-value]

    def ready(self) -> Path | None:
        """The copy's folder once it is complete; None (nothing left of it) when it failed."""
        if self._copied() and self.staging.is_dir():
            return self.staging
        shutil.rmtree(self.staging, ignore_errors=True)
        return None

    def _copied(self) -> bool:
        if isinstance(self.process, Forked):
            try:
                self.process.result()
            except Exception:  # noqa: BLE001 - a copy that failed: the site is drawn afresh
                return False
            return True
        return self.process.wait() == 0

    def discard(self) -> None:
        """The build stops before its site: the copy goes, in the background, under a name of its
        own (a later build of this process copies into the same folder name)."""
        if self.identities is not None:
            self.identities.stop()
        if isinstance(self.process, Forked):
            self.process.stop()
        else:
            self.process.wait()
        if not self.staging.exists():
            return
        old = self.previous.with_name(f".{self.previous.name}.{os.getpid()}.{uuid.uuid4().hex}.old")
        try:
            os.replace(self.staging, old)
        except OSError:
            shutil.rmtree(self.staging, ignore_errors=True)
            return
        if not remove_in_background(old):
            shutil.rmtree(old, ignore_errors=True)


def start(previous: Path) -> Clone | None:
    """Start copying the site `previous` as hard links into the folder its rebuild is drawn in
    (from its spare, else by `cp`); None when there is no previous site, or no spare or `cp` to
    copy it."""
    spare = spare_name(previous)
    if not previous.is_dir() or previous.is_symlink():
        if spare.is_dir() and not spare.is_symlink():  # the site was removed: so goes its spare
            remove_aside(spare)
        return None
    staging = staging_dir_name(previous)
    shutil.rmtree(staging, ignore_errors=True)
    process = _from_spare(previous, spare, staging) or _copied_with_cp(previous, staging)
    if process is None:
        return None
    try:
        identities = Forked(identities_of, previous, folder_beside(previous) / MANIFEST)
    except OSError:  # no process left to fork (a limit): PageReuse finds them itself
        identities = None
    return Clone(previous, staging, process, identities)


def spare_name(site: Path) -> Path:
    """Where a rebuild keeps the site it replaced, for the next rebuild's copy to start from."""
    return site.with_name(f".{site.name}.spare")


def _from_spare(previous: Path, spare: Path, staging: Path) -> Forked | None:
    """mirror() started on the spare, moved to `staging`; None without a spare."""
    if not spare.is_dir() or spare.is_symlink():
        return None
    try:
        os.replace(spare, staging)
    except OSError:
        return None
    try:
        return Forked(mirror, previous, staging)
    except OSError:  # no process left to fork: `cp` then
        shutil.rmtree(staging, ignore_errors=True)
        return None


def _copied_with_cp(previous: Path, staging: Path) -> subprocess.Popen | None:
    cp = shutil.which(CP)
    if cp is None:
        return None
    try:
        return subprocess.Popen(
            [cp, "-al", "--", str(previous), str(staging)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None


def mirror(source: Path, target: Path) -> None:
    """Make the folder `target` hold exactly what `source` holds, each file (of any kind, a link
    never followed) a hard link to source's, as `cp -al source target` would make it: only what
    differs is changed (a file whose link is another inode's is linked again; what source lacks
    is removed; what target lacks is made)."""
    _mirror(str(source), str(target))


def _mirror(source: str, target: str) -> None:
    with os.scandir(source) as entries:
        wanted = {entry.name: entry for entry in entries}
    with os.scandir(target) as entries:
        have = {entry.name: entry for entry in entries}
    for name, entry in list(have.items()):
        in_source = wanted.get(name)
        is_folder = entry.is_dir(follow_symlinks=False)
        if in_source is not None and in_source.is_dir(follow_symlinks=False) == is_folder:
            continue
        if is_folder:
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
        del have[name]
    for name, entry in wanted.items():
        path = os.path.join(target, name)
        if entry.is_dir(follow_symlinks=False):
            if name not in have:
                os.mkdir(path)
            _mirror(entry.path, path)
            continue
        there = have.get(name)
        if there is not None:
            if there.inode() == entry.inode():
                continue
            os.unlink(path)
        os.link(entry.path, path, follow_symlinks=False)


def prune(folder: Path, made: set[str]) -> None:
    """Remove from `folder` every file whose site-relative path is not in `made`, and every folder
    left empty: what the previous site had and this build did not make or keep."""
    _prune(str(folder), "", made)


def _prune(folder: str, prefix: str, made: set[str]) -> bool:
    """Whether `folder` is empty once pruned."""
    empty = True
    with os.scandir(folder) as entries:
        for entry in entries:
            relative = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                if _prune(entry.path, relative + "/", made):
                    os.rmdir(entry.path)
                else:
                    empty = False
            elif relative in made:
                empty = False
            else:
                os.unlink(entry.path)  # a file, or a link of any kind: never followed
    return empty
