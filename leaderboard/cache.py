"""What a rebuild may reuse from the last one: valid submissions by content, and site pages by
the hash of everything they are drawn from. Kept in .leaderboard-cache/ beside the site.

A cache only ever saves time: every entry is checked against the hash recorded with it, and
anything missing, stale, corrupt or unreadable is simply computed again.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

import orjson

PACKAGE = Path(__file__).resolve().parent
SCHEMAS = PACKAGE.parent / "schemas"


CACHE_NAME = ".leaderboard-cache"
# What an install compiles from the code once, beside Python's bytecode (precompiled.py, run by
# `make bytecode`): read by a build whose own cache lacks it. Under __pycache__/, so neither
# committed nor part of code_version().
PRECOMPILED = PACKAGE / "__pycache__" / "precompiled"


def folder_beside(path: Path) -> Path:
    """The cache folder: $LEADERBOARD_CACHE, else .leaderboard-cache/ beside `path` (the site,
    or the database when there is no site): inside the project, never in $HOME."""
    configured = os.environ.get("LEADERBOARD_CACHE")
    return Path(configured) if configured else Path(path).resolve().parent / CACHE_NAME


def digest(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def path_digest(path: str | Path) -> str:
    """digest() of a file's bytes, read a block at a time (a database file may be gigabytes)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@cache
def code_version() -> str:
    """A hash of the code, templates, static files and schemas: new code never reuses old results."""
    sha = hashlib.sha256()
    sources = [p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    sources += [p for p in SCHEMAS.rglob("*") if p.is_file()]
    for path in sorted(sources):
        sha.update(str(path.relative_to(PACKAGE.parent)).encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()


def read_json(path: Path | None) -> dict:
    """A cache file's content; empty when it is missing, unreadable or not what we wrote."""
    if path is None:
        return {}
    try:
        value = orjson.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) and value.get("code") == code_version() else {}


def write_json(path: Path | None, value: dict) -> None:
    """Best effort and atomic (write_whole): a half-written cache is never read."""
    if path is not None:
        write_whole(path, [orjson.dumps({**value, "code": code_version()})])


def write_whole(path: Path, parts: list[bytes]) -> None:
    """A cache file of `parts`, one after the other; best effort and atomic (written aside, then
    renamed into place): a half-written cache is never read."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as file:
            for part in parts:
                file.write(part)
        os.replace(temporary, path)
    except OSError:
        pass


class ValidationCache:
    """Valid submissions by (path, content hash, catalog hash): their parsed data, so an unchanged
    file is neither parsed nor checked again. Only valid files are kept: a problem is always
    found afresh, with its line and column. Validity cannot expire: the only check that depends
    on the day (a date in the future) only ever turns invalid into valid."""

    def __init__(self, path: Path | None, catalog_digest: str):
        self.path, self.catalog_digest = path, catalog_digest
        stored = read_json(path)
        self.old: dict = stored.get("entries", {}) if stored.get("catalog") == catalog_digest else {}
        self.new: dict = {}

    @staticmethod
    def key(path: str, content: bytes) -> str:
        return digest(path.encode() + b"\0" + content)

    def get(self, key: str) -> tuple[str, dict] | None:
        """The entry id and data stored for `key`, when the stored text still has its hash."""
        stored = self.old.get(key)
        try:
            entry_id, text, text_digest = stored
        except (TypeError, ValueError):
            return None
        data = _checked_json(text, text_digest)
        if not isinstance(entry_id, str) or not isinstance(data, dict):
            return None
        self.new[key] = stored
        return entry_id, data

    def put(self, key: str, entry_id: str, data: dict) -> None:
        text = _exact_json(data)
        if text is not None:
            self.new[key] = [entry_id, text, digest(text)]

    def save(self) -> None:
        write_json(self.path, {"catalog": self.catalog_digest, "entries": self.new})


class ParsedFiles:
    """Catalog files as parsed before, by path and content hash: a catalog file read again with
    the same bytes is not parsed again (parsing its YAML is most of loading the catalog, and a
    rebuild loads it each time). Only a file that parsed and passed its schema is kept."""

    def __init__(self, path: Path | None):
        self.path = path
        self.old: dict = read_json(path).get("files", {})
        self.new: dict[str, list[str]] = {}

    @staticmethod
    def key(path: Path, content: bytes | None) -> str | None:
        """The key of a file's bytes; None when it could not be read (files.read_regular)."""
        return None if content is None else digest(str(path).encode() + b"\0" + content)

    def get(self, key: str | None) -> dict | list | None:
        """The data stored for `key`, when the stored text still has its hash."""
        stored = self.old.get(key) if key is not None else None
        try:
            text, text_digest = stored
        except (TypeError, ValueError):
            return None
        data = _checked_json(text, text_digest)
        if isinstance(data, (dict, list)):
            self.new[key] = stored
            return data
        return None

    def put(self, key: str, data: object) -> None:
        text = _exact_json(data)
        if text is not None:
            self.new[key] = [text, digest(text)]

    def save(self) -> None:
        write_json(self.path, {"files": self.new})


def _checked_json(text: object, text_digest: object) -> object:
    """The data of a cached JSON text, when the text still has the hash recorded with it; None
    otherwise."""
    try:
        return orjson.loads(text) if digest(text) == text_digest else None
    except (AttributeError, TypeError, ValueError):
        return None


def _exact_json(data: object) -> str | None:
    """`data` as JSON text, when JSON gives it back unchanged (NaN, which becomes null, and
    keys that are not text do not); None otherwise."""
    try:
        text = orjson.dumps(data).decode()
    except (TypeError, ValueError):
        return None
    return text if orjson.loads(text) == data else None
