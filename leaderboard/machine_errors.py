"""What the machine refused (a full disk, a file-size limit, a read-only folder), said in one line
with what to do about it. Such a failure is not a bug of ours, so it is never reported as one.

Python raises it as an OSError; DuckDB as its own exception, whose text names the file, and
SQLAlchemy wraps that one again (`.orig`): the whole chain of causes is searched.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator

from leaderboard.cli_common import readable

# The refusals a user can act on, and what to do.
HINTS = {
    errno.ENOSPC: "free some disk space and run it again",
    errno.EDQUOT: "the disk quota is used up: free some space and run it again",
    errno.EFBIG: "the file grew past the largest this process may write: see `ulimit -f`",
    errno.EROFS: "the folder is on a read-only file system",
    errno.EACCES: "check the folder's owner and permissions",
    errno.EPERM: "check the folder's owner and permissions",
    errno.EMFILE: "too many files open at once: see `ulimit -n`",
    errno.ENFILE: "too many files open on this machine",
    errno.EIO: "the disk reported an input/output error",
}
# DuckDB's words for a write it could not make: 'Could not write file "<file>": <reason>'.
_DUCKDB_WRITE = re.compile(r'Could not write file "(?P<file>[^"\n]+)": (?P<reason>[^\n]+)')
_CODES = {os.strerror(code): code for code in HINTS}


def describe(error: BaseException) -> str | None:
    """'<file>: <reason> (<hint>)' when `error`, or an error it came from, is the machine refusing a
    file operation; None for anything else (a bug, or an error with a message of its own)."""
    for link in _chain(error):
        if isinstance(link, OSError) and link.errno in HINTS:
            return _said(link.strerror or os.strerror(link.errno), link.filename, link.errno)
        match = _DUCKDB_WRITE.search(str(link))
        if match:
            reason = match["reason"].strip().rstrip(".")
            return _said(reason, match["file"], _CODES.get(reason))
    return None


def _said(reason: str, file: object, code: int | None) -> str:
    """One line: the file (when known), the system's reason, and what to do (when known); a byte
    of the file's name that is not UTF-8 written \\xff (readable), never Python's \\udcff."""
    text = f"{os.fsdecode(file)}: {reason}" if file else reason
    hint = HINTS.get(code) if code is not None else None
    return readable(f"{text} ({hint})" if hint else text)


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error, then what caused it (`__cause__`, `__context__`, a driver's `orig`), each once."""
    seen: set[int] = set()
    waiting: list[object] = [error]
    while waiting:
        link = waiting.pop(0)
        if not isinstance(link, BaseException) or id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        waiting += [getattr(link, "orig", None), link.__cause__, link.__context__]
