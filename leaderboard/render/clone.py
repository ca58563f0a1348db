"""A rebuild's new site starts as a copy of the previous one made of hard links, by `cp -al` in a
process of its own, started when the build starts: the folders and thousands of links are made on
a core the build leaves idle while it validates and loads, not one by one by the build's threads.

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

from leaderboard.atomic import remove_in_background, staging_dir_name
from leaderboard.cache import folder_beside
from leaderboard.forked import Forked
from leaderboard.render.reuse import MANIFEST, identities_of

CP = "cp"  # GNU coreutils' (`-l`: links, not copies)


@dataclass
class Clone:
    previous: Path
    staging: Path
    process: subprocess.Popen
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
        """The copy's folder once it is complete; None (nothing left of it) when `cp` failed."""
        if self.process.wait() == 0 and self.staging.is_dir():
            return self.staging
        shutil.rmtree(self.staging, ignore_errors=True)
        return None

    def discard(self) -> None:
        """The build stops before its site: the copy goes, in the background, under a name of its
        own (a later build of this process copies into the same folder name)."""
        if self.identities is not None:
            self.identities.stop()
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
    """Start copying the site `previous` as hard links into the folder its rebuild is drawn in;
    None when there is no previous site, or no `cp` to copy it."""
    cp = shutil.which(CP)
    if cp is None or not previous.is_dir() or previous.is_symlink():
        return None
    staging = staging_dir_name(previous)
    shutil.rmtree(staging, ignore_errors=True)
    try:
        process = subprocess.Popen(
            [cp, "-al", "--", str(previous), str(staging)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        identities = Forked(identities_of, previous, folder_beside(previous) / MANIFEST)
    except OSError:  # no process left to fork (a limit): PageReuse finds them itself
        identities = None
    return Clone(previous, staging, process, identities)


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
