"""Replacing a folder or a file so that readers see the old one or the new one, never a half or none.

Linux swaps two folders in one step (renameat2 with RENAME_EXCHANGE); elsewhere two renames.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import subprocess
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return function


_EXCHANGE = _renameat2()


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically; False where the system cannot."""
    if _EXCHANGE is None:
        return False
    result = _EXCHANGE(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def replace_dir(staging: Path, target: Path, background: bool = False, spare: Path | None = None) -> None:
    """Put the finished folder `staging` in place of `target`; the old one is kept as `spare` (a
    spare there before is removed), else removed after, by a process of its own when `background`
    (the caller need not wait for thousands of files to go; a removal cut short leaves a
    `.<target>.*.old` folder, which the next build removes)."""
    if not target.exists():
        os.replace(staging, target)
        return
    old = _aside_name(target)
    if exchange(staging, target):
        os.replace(staging, old)  # staging now holds the old folder
    else:
        os.replace(target, old)
        os.replace(staging, target)
    if spare is not None:
        if os.path.lexists(spare):
            remove_aside(spare)
        try:
            os.replace(old, spare)
            return
        except OSError:
            pass
    if background and remove_in_background(old):
        return
    shutil.rmtree(old, ignore_errors=True)


def _aside_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex}.old")


def remove_aside(folder: Path) -> None:
    """Remove `folder` under another name at once (the name is free), its files in the background."""
    old = _aside_name(folder)
    try:
        os.replace(folder, old)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return
    if not remove_in_background(old):
        shutil.rmtree(old, ignore_errors=True)


def remove_in_background(folder: Path) -> bool:
    """Start `rm -rf folder` in a session of its own that outlives this process (a shell starts it
    and exits at once, so no child is left to reap); False where there is no POSIX shell."""
    shell = shutil.which("sh")
    if shell is None:
        return False
    try:
        started = subprocess.run(
            [shell, "-c", 'rm -rf -- "$1" </dev/null >/dev/null 2>&1 &', "sh", str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return started.returncode == 0


def staging_dir_name(target: Path) -> Path:
    """The folder beside `target` a build draws its replacement in (same filesystem, so the swap is
    a rename); a killed build's is removed by the next one (build._remove_leftovers)."""
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


def staging_dir(target: Path) -> Path:
    """A fresh, empty staging_dir_name() folder."""
    staging = staging_dir_name(target)
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def write_text(target: Path, text: str) -> Path:
    """Write `target` whole through a temporary file beside it (readers see the old text or the
    new, never half); a file that already holds `text` is left untouched, and a link is replaced."""
    changes = Changes()
    changes.write(target, text)
    changes.commit()
    return target


def write_texts(files: Sequence[tuple[Path, str]]) -> None:
    """Several files whole, and together as far as a file system allows (see Changes)."""
    changes = Changes()
    for target, text in files:
        changes.writes.append((Path(target), text))
    changes.commit()


@dataclass
class Changes:
    """Files written and removed together, as far as a file system allows: commit() writes every
    new text beside its file first, and only once all are written renames them into place (renames
    need no space) and removes the files that go. When the machine refuses a write (a full disk),
    no file has changed and no temporary file, nor any folder made for one, is left."""

    writes: list[tuple[Path, str]] = field(default_factory=list)
    removals: list[Path] = field(default_factory=list)

    def write(self, target: Path, text: str) -> bool:
        """`text` to become `target` at commit(); False (nothing to do) when it already holds it."""
        target = Path(target)
        if target.is_file() and not target.is_symlink() and target.read_text(encoding="utf-8") == text:
            return False
        self.writes.append((target, text))
        return True

    def remove(self, path: Path) -> None:
        """`path` to go at commit(), after the writes."""
        self.removals.append(Path(path))

    def removed(self, path: Path) -> bool:
        """Whether `path` goes at commit() (it is still there until then)."""
        return Path(path) in self.removals

    def commit(self) -> None:
        made: list[Path] = []
        written: list[tuple[Path, Path]] = []
        try:
            for target, text in self.writes:
                _make_folder(target.parent, made)
                written.append((_written_beside(target, text), target))
        except BaseException:
            for temporary, _ in written:
                temporary.unlink(missing_ok=True)
            for folder in reversed(made):
                try:
                    folder.rmdir()
                except OSError:
                    pass
            raise
        for temporary, target in written:
            os.replace(temporary, target)
        targets = {target for target, _ in self.writes}
        for path in self.removals:
            if path not in targets:
                path.unlink(missing_ok=True)
        self.writes, self.removals = [], []


def _make_folder(folder: Path, made: list[Path]) -> None:
    """Make `folder` and its missing parents, noting each one made (outermost first)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir(exist_ok=True)
        made.append(each)


def _written_beside(target: Path, text: str) -> Path:
    """`text` in a temporary file beside `target` (its folder exists). A write the machine refuses
    removes it again, and the error names it (a refused write names no file of its own)."""
    temporary = target.with_name(f".{target.name}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            error.filename = error.filename or str(temporary)
        raise
    return temporary
