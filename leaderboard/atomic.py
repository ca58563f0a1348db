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


def replace_dir(staging: Path, target: Path, background: bool = False) -> None:
    """Put the finished folder `staging` in place of `target`; the old one is removed after, by a
    process of its own when `background` (the caller need not wait for thousands of files to go;
    a removal cut short leaves a `.<target>.*.old` folder, which the next build removes)."""
    if not target.exists():
        os.replace(staging, target)
        return
    old = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex}.old")
    if exchange(staging, target):
        os.replace(staging, old)  # staging now holds the old folder
    else:
        os.replace(target, old)
        os.replace(staging, target)
    if background and _remove_in_background(old):
        return
    shutil.rmtree(old, ignore_errors=True)


def _remove_in_background(folder: Path) -> bool:
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


def staging_dir(target: Path) -> Path:
    """A fresh folder beside `target` to build into (same filesystem, so the swap is a rename)."""
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def write_text(target: Path, text: str) -> Path:
    """Write `target` whole through a temporary file beside it (readers see the old text or the
    new, never half); a file that already holds `text` is left untouched, and a link is replaced."""
    if target.is_file() and not target.is_symlink() and target.read_text(encoding="utf-8") == text:
        return target
    os.replace(_written_beside(target, text), target)
    return target


def write_texts(files: Sequence[tuple[Path, str]]) -> None:
    """Several files whole, and together as far as a file system allows: every new text is
    written beside its file first, and only once all are written do they take their places
    (renames, which need no space). When the machine refuses a write (a full disk) no file has
    changed and no temporary file is left."""
    written: list[tuple[Path, Path]] = []
    try:
        for target, text in files:
            written.append((_written_beside(target, text), target))
    except BaseException:
        for temporary, _ in written:
            temporary.unlink(missing_ok=True)
        raise
    for temporary, target in written:
        os.replace(temporary, target)


def _written_beside(target: Path, text: str) -> Path:
    """`text` in a temporary file beside `target`. A write the machine refuses removes it again,
    and the error names it (a refused write names no file of its own)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            error.filename = error.filename or str(temporary)
        raise
    return temporary
