"""Reading a results tree from a folder or straight from a .tar, .tar.gz, .tar.xz or .zip archive.

Streams one file at a time, in the source's own order, and never unpacks anything to disk.
"""

from __future__ import annotations

import contextlib
import io
import lzma
import os
import queue
import stat
import tarfile
import threading
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
    decompressed = _Decompressing.open(source)
    try:
        # 'r|*': a forward-only stream, any compression tarfile knows (gzip, bzip2, xz); xz and
        # gzip are decompressed on a thread of their own, so a second core does it meanwhile.
        archive = tarfile.open(fileobj=decompressed, mode="r|") if decompressed else tarfile.open(source, mode="r|*")
    except (tarfile.TarError, OSError) as error:
        if decompressed:
            decompressed.close()
        raise SourceError(f"{source} is not a folder or a .tar, .tar.gz, .tar.xz or .zip archive ({error})") from None
    with archive, decompressed or contextlib.nullcontext():
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


class _Decompressing(io.RawIOBase):
    """A read-only stream of an xz or gzip file's decompressed bytes, decompressed on a thread
    (both decompressors release the GIL, so the reader's work and the decompression share two
    cores). A few blocks are kept ahead at most; errors reach the reader as READ_ERRORS."""

    CHUNK = 1 << 16  # compressed bytes a step: about 1.5 MB decompressed for the MLPerf archives
    AHEAD = 8  # decompressed blocks kept ahead of the reader

    @classmethod
    def open(cls, source: Path) -> _Decompressing | None:
        """The stream for an xz or gzip file, None for anything else."""
        with source.open("rb") as handle:
            magic = handle.read(6)
        if magic.startswith(b"\xfd7zXZ\x00"):
            return cls(source, lambda: lzma.LZMADecompressor(format=lzma.FORMAT_XZ))
        if magic.startswith(b"\x1f\x8b"):
            return cls(source, lambda: zlib.decompressobj(wbits=31))
        return None

    def __init__(self, source: Path, decompressor):
        super().__init__()
        self._blocks: queue.Queue = queue.Queue(maxsize=self.AHEAD)
        self._stopped = threading.Event()
        self._buffer, self._offset, self._done = b"", 0, False
        self._thread = threading.Thread(target=self._decompress, args=(source, decompressor), daemon=True)
        self._thread.start()

    def _decompress(self, source: Path, decompressor) -> None:
        try:
            with source.open("rb") as handle:
                engine = decompressor()
                while not self._stopped.is_set():
                    chunk = handle.read(self.CHUNK)
                    if not chunk:
                        break
                    self._put(engine.decompress(chunk))
                    if getattr(engine, "eof", False) or getattr(engine, "unused_data", b""):
                        break  # the end of the (first) stream: what follows is not read, as tarfile does
                else:
                    return
                if not getattr(engine, "eof", True):
                    raise EOFError("compressed file ended before the end-of-stream marker was reached")
            self._put(None)
        except READ_ERRORS as error:
            self._put(error)

    def _put(self, item) -> None:
        while not self._stopped.is_set():
            try:
                self._blocks.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        while self._offset >= len(self._buffer) and not self._done:
            item = self._blocks.get()
            if isinstance(item, BaseException):
                self._done = True
                raise item
            if item is None:
                self._done = True
            else:
                self._buffer, self._offset = item, 0
        count = min(len(target), len(self._buffer) - self._offset)
        target[:count] = self._buffer[self._offset : self._offset + count]
        self._offset += count
        return count

    def close(self) -> None:
        self._stopped.set()
        super().close()


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
