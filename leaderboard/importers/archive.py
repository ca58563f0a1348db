"""Reading a results tree from a folder or straight from a .tar, .tar.gz, .tar.xz or .zip archive.

Streams one file at a time, in the source's own order, and never unpacks anything to disk.
"""

from __future__ import annotations

import lzma
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

# What reading a member's bytes can raise when the archive is damaged.
READ_ERRORS = (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, lzma.LZMAError, zlib.error)


class SourceError(Exception):
    """The source cannot be read, or an archive holds a member that is refused (one line for the user)."""


@dataclass
class SourceFile:
    """One regular file of the tree: its path inside the source ('/'-separated) and an open binary stream."""

    path: str
    stream: BinaryIO


@dataclass
class SourceNotes:
    """What the walk left out, for the summary."""

    links_ignored: list[str] = field(default_factory=list)


Wanted = Callable[[str], bool]


def iter_source(source: Path, wanted: Wanted, notes: SourceNotes | None = None) -> Iterator[SourceFile]:
    """Every regular file of `source` for which `wanted(path)` is true, opened for reading.

    The caller reads each stream before asking for the next file (a compressed tar is one
    stream). Archive members that are links, devices or paths leaving the archive
    (`../x`, `/x`) refuse the whole archive with SourceError, before or while reading.
    """
    notes = notes if notes is not None else SourceNotes()
    if source.is_dir():
        yield from _iter_folder(source, wanted, notes)
    elif not source.exists():
        raise SourceError(f"no such file or folder: {source}")
    elif zipfile.is_zipfile(source):
        yield from _iter_zip(source, wanted)
    else:
        yield from _iter_tar(source, wanted)


def _iter_folder(root: Path, wanted: Wanted, notes: SourceNotes) -> Iterator[SourceFile]:
    # Paths start with the folder's own name, as an archive's start with its top folder: a
    # folder that is one organization (<org>/systems, <org>/results) reads like one of many.
    top = root.resolve().name
    # Links are not followed: a results tree has none, and one could lead anywhere.
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs.sort()
        base = Path(folder)
        for name in list(dirs):
            if (base / name).is_symlink():
                dirs.remove(name)
                notes.links_ignored.append(f"{top}/{(base / name).relative_to(root).as_posix()}")
        for name in sorted(names):
            full = base / name
            relative = f"{top}/{full.relative_to(root).as_posix()}"
            if full.is_symlink():
                notes.links_ignored.append(relative)
                continue
            if not wanted(relative):
                continue
            with full.open("rb") as stream:
                yield SourceFile(relative, stream)


def _safe_member_path(name: str) -> str:
    """The member's path, or SourceError when it is absolute or climbs out with '..'."""
    normalized = name.replace("\\", "/")
    path = PurePosixPath(normalized)
    if normalized.startswith("/") or (path.parts and path.parts[0].endswith(":")) or ".." in path.parts:
        raise SourceError(f"archive member {name!r} points outside the archive: refused, nothing imported")
    return "/".join(part for part in path.parts if part not in ("", "."))


def _iter_tar(source: Path, wanted: Wanted) -> Iterator[SourceFile]:
    try:
        # 'r|*': a forward-only stream, any compression tarfile knows (gzip, bzip2, xz).
        archive = tarfile.open(source, mode="r|*")
    except (tarfile.TarError, OSError) as error:
        raise SourceError(f"{source} is not a folder or a .tar, .tar.gz, .tar.xz or .zip archive ({error})") from None
    with archive:
        try:
            for member in archive:
                path = _safe_member_path(member.name)
                if member.issym() or member.islnk():
                    raise SourceError(f"archive member {member.name!r} is a link: refused, nothing imported")
                if member.isdir():
                    continue
                if not member.isfile():
                    raise SourceError(
                        f"archive member {member.name!r} is not a regular file: refused, nothing imported"
                    )
                if not wanted(path):
                    continue
                stream = archive.extractfile(member)
                if stream is not None:
                    yield SourceFile(path, stream)
        except READ_ERRORS as error:
            raise SourceError(f"cannot read the archive {source}: {error}") from None


def _iter_zip(source: Path, wanted: Wanted) -> Iterator[SourceFile]:
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as error:
        raise SourceError(f"cannot read the archive {source}: {error}") from None
    with archive:
        members = archive.infolist()
        for info in members:  # check every member before reading any
            _safe_member_path(info.filename)
            kind = stat.S_IFMT(info.external_attr >> 16)
            if kind == stat.S_IFLNK:
                raise SourceError(f"archive member {info.filename!r} is a link: refused, nothing imported")
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR) and not info.is_dir():
                raise SourceError(f"archive member {info.filename!r} is not a regular file: refused, nothing imported")
        for info in members:
            path = _safe_member_path(info.filename)
            if info.is_dir() or not wanted(path):
                continue
            try:
                with archive.open(info) as stream:
                    yield SourceFile(path, stream)
            except READ_ERRORS as error:
                raise SourceError(f"cannot read {info.filename} in {source}: {error}") from None
