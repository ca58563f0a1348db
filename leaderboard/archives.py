"""The archives the importers read (catalog/archives.yaml) as typed records, and fetching each
into a folder, copied or downloaded, kept only when its size and SHA-256 are the listed ones."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from leaderboard import schemas
from leaderboard.files import Document, load
from leaderboard.problems import Problem, plural

FILE = "archives"
LISTED_IN = "catalog/archives.yaml"
CHUNK = 1 << 20
TIMEOUT_SECONDS = 60
PARTIAL = ".partial"  # suffix of a file being written; renamed into place only once it is checked


@dataclass(frozen=True)
class Archive:
    file: str  # its name, as the release asset and the fetched copy are named
    bytes: int
    sha256: str
    feeds: tuple[str, ...]  # round ids, or the catalog file it feeds
    source_url: str  # where its content was published
    path: str | None = None  # where it lies in a local data folder, when not at its top
    importer: str | None = None
    commit: str | None = None  # the upstream commit it was packed from, where known
    note: str | None = None


@dataclass(frozen=True)
class ArchiveList:
    release_asset: str  # URL template: {repository}, {file}
    archives: tuple[Archive, ...]


def from_data(content: dict[str, Any]) -> ArchiveList:
    """The records of a schema-valid catalog/archives.yaml."""
    archives = []
    for item in content["archives"]:
        source = item["source"]
        archives.append(
            Archive(
                file=item["file"],
                bytes=item["bytes"],
                sha256=item["sha256"],
                feeds=tuple(item["feeds"]),
                source_url=source["url"],
                path=item.get("path"),
                importer=item.get("importer"),
                commit=source.get("commit"),
                note=source.get("note"),
            )
        )
    return ArchiveList(content["release_asset"], tuple(archives))


def cross_check(doc: Document, content: dict[str, Any], rounds_with_logs: Iterable[str] | None) -> list[Problem]:
    """Each file listed once; each round that publishes its results (a results_repository in
    rounds.yaml) fed by an archive, so a trusted job can import it afresh. An archive may feed
    a round the catalog does not hold yet: data arrives before the code that imports it."""
    problems = []
    seen: set[str] = set()
    for i, item in enumerate(content["archives"]):
        if item["file"] in seen:
            problems.append(doc.problem(("archives", i, "file"), f"{item['file']!r} is listed twice"))
        seen.add(item["file"])
    fed = {round_id for item in content["archives"] for round_id in item["feeds"]}
    for round_id in sorted(set(rounds_with_logs or ()) - fed):
        problems.append(
            doc.problem(
                ("archives",),
                f"round {round_id} publishes its results (results_repository in rounds.yaml), but no archive feeds it",
                f"add its archive with file, bytes, sha256, feeds: [{round_id}] and source",
            )
        )
    return problems


def read(catalog_dir: Path) -> tuple[ArchiveList | None, list[Problem]]:
    """CATALOG/archives.yaml on its own (fetching needs nothing else from the catalog)."""
    path = catalog_dir / f"{FILE}.yaml"
    if not path.is_file():
        return None, [Problem(str(path), None, None, "$", f"{path} is missing", "it lists the archives to fetch")]
    doc = load(path)
    if doc.problems:
        return None, doc.problems
    problems = schemas.check(doc, FILE) or cross_check(doc, doc.data, None)
    return (None, problems) if problems else (from_data(doc.data), [])


def importable(
    listing: ArchiveList, importer: str, rounds: Iterable[str]
) -> tuple[list[Archive], list[tuple[Archive, str]]]:
    """The archives `importer` reads whose rounds the catalog holds, and the others it reads,
    each with why it is left out (an archive may arrive before its round and importer)."""
    known = set(rounds)
    chosen, left = [], []
    for archive in listing.archives:
        if archive.importer != importer:
            continue
        unknown = [round_id for round_id in archive.feeds if round_id not in known]
        if unknown:
            left.append((archive, f"feeds {', '.join(unknown)}, which catalog/rounds.yaml does not hold yet"))
        else:
            chosen.append(archive)
    return chosen, left


def asset_url(template: str, repository: str, file: str) -> str:
    """Where a release asset of `repository` (https://github.com/<owner>/<name>) is downloaded
    from. ValueError for a repository that is not an http(s) URL with a host."""
    parts = urlsplit(repository)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"repository {repository!r} is not an https:// URL such as https://github.com/owner/name")
    return template.format(repository=repository.rstrip("/"), file=file)


class Unavailable(Exception):
    """An archive that could not be obtained; the message says where it was looked for."""


# Opens an archive's content for reading: the stream and where it comes from, or Unavailable.
Opener = Callable[[Archive], tuple[BinaryIO, str]]


def from_folder(folder: Path) -> Opener:
    """Archives copied from a local data folder: at their `path`, else at its top by name."""

    def open_archive(archive: Archive) -> tuple[BinaryIO, str]:
        names = list(dict.fromkeys(filter(None, (archive.path, archive.file))))
        for name in names:
            candidate = folder / name
            try:
                info = candidate.stat()
            except FileNotFoundError:
                continue
            except OSError as error:
                raise Unavailable(f"{candidate}: {error.strerror}") from None
            if not stat.S_ISREG(info.st_mode):
                raise Unavailable(f"{candidate} is not a regular file")
            try:
                return candidate.open("rb"), str(candidate)
            except OSError as error:
                raise Unavailable(f"{candidate}: {error.strerror}") from None
        raise Unavailable(f"not in {folder} (looked for {' and '.join(names)})")

    return open_archive


def from_release(repository: str, template: str, timeout: float = TIMEOUT_SECONDS) -> Opener:
    """Archives downloaded from the release asset of `repository` (urllib: one GET each, no new
    dependency for a job this small)."""
    import urllib.error
    import urllib.request

    asset_url(template, repository, "x")  # a bad repository fails before anything is fetched

    def open_archive(archive: Archive) -> tuple[BinaryIO, str]:
        url = asset_url(template, repository, archive.file)
        try:
            return urllib.request.urlopen(url, timeout=timeout), url  # noqa: S310 - http(s) only, checked above
        except urllib.error.HTTPError as error:
            raise Unavailable(f"{url}: HTTP {error.code} {error.reason}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", None) or error
            raise Unavailable(f"{url}: {reason}") from None

    return open_archive


@dataclass(frozen=True)
class Fetched:
    file: str
    ok: bool
    message: str


@dataclass
class FetchReport:
    folder: Path
    fetched: list[Fetched] = field(default_factory=list)
    unlisted_in_source: list[str] = field(default_factory=list)  # left alone: the list does not name them
    unlisted_in_folder: list[str] = field(default_factory=list)  # refused: importers would read them unchecked
    removed_partials: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.fetched) and all(f.ok for f in self.fetched) and not self.unlisted_in_folder

    def lines(self) -> list[str]:
        out = [f"{'ok' if f.ok else 'FAILED'}  {f.file}: {f.message}" for f in self.fetched]
        if self.removed_partials:
            out.append(f"removed unfinished downloads: {', '.join(self.removed_partials)}")
        if self.unlisted_in_source:
            out.append(f"left alone (not in {LISTED_IN}): {', '.join(self.unlisted_in_source)}")
        for name in self.unlisted_in_folder:
            out.append(
                f"FAILED  {name}: in {self.folder} but not in {LISTED_IN}; an importer reading the folder "
                "would read it unchecked (remove it, or fetch into an empty folder)"
            )
        failed = sum(not f.ok for f in self.fetched) + len(self.unlisted_in_folder)
        if failed:
            out.append(f"{plural(failed, 'archive')} of {len(self.fetched)} failed: see above")
        else:
            out.append(f"{plural(len(self.fetched), 'archive')} in {self.folder}, each of the size and SHA-256 listed")
        return out


def fetch_all(listing: ArchiveList, folder: Path, opener: Opener, source_folder: Path | None = None) -> FetchReport:
    """Fetch every listed archive into `folder`. A copy already there is kept when it matches,
    removed when it does not; a new one is written under a temporary name and renamed into place
    only once its size and SHA-256 are checked, so the folder never holds a file that differs."""
    folder.mkdir(parents=True, exist_ok=True)
    report = FetchReport(folder)
    listed = {a.file for a in listing.archives}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith(".") and entry.name.endswith(PARTIAL):  # left by a killed run of ours
            os.unlink(entry.path)
            report.removed_partials.append(entry.name)
        elif entry.name not in listed:
            report.unlisted_in_folder.append(entry.name)
    report.fetched = [fetch_one(archive, folder, opener) for archive in listing.archives]
    if source_folder is not None:
        report.unlisted_in_source = _unlisted(source_folder, listing)
    return report


def fetch_one(archive: Archive, folder: Path, opener: Opener) -> Fetched:
    import http.client  # here: a build, which reads the catalog's archives, fetches nothing

    target = folder / archive.file
    replaced = ""
    if os.path.lexists(target):
        if _difference(archive, *_digest_of(target)) is None:
            return Fetched(archive.file, True, "already there, of the size and SHA-256 listed")
        os.unlink(target)  # never left beside checked files, whatever happens next
        replaced = "; replaced a copy that differed"
    try:
        stream, where = opener(archive)
    except Unavailable as error:
        return Fetched(archive.file, False, f"missing: {error}{replaced}")
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{archive.file}.", suffix=PARTIAL)
    try:
        with stream, os.fdopen(handle, "wb") as out:
            size, digest = _copy(stream, out, archive.bytes)
        difference = _difference(archive, size, digest)
        if difference is not None:
            return Fetched(archive.file, False, f"refused: {where}: {difference}{replaced}")
        os.chmod(temporary, 0o644)  # mkstemp's 0600 is for the unchecked file only
        os.replace(temporary, target)
        return Fetched(archive.file, True, f"from {where}: {archive.bytes:,} bytes, SHA-256 as listed{replaced}")
    except (OSError, http.client.HTTPException) as error:
        return Fetched(archive.file, False, f"could not be fetched from {where}: {error!r}{replaced}")
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _copy(stream: BinaryIO, out: BinaryIO, expected: int) -> tuple[int, str]:
    """Copy and hash at most one byte more than expected (a larger file is refused, not stored)."""
    digest = hashlib.sha256()
    size = 0
    while size <= expected:
        chunk = stream.read(min(CHUNK, expected + 1 - size))
        if not chunk:
            break
        digest.update(chunk)
        out.write(chunk)
        size += len(chunk)
    return size, digest.hexdigest()


def _digest_of(path: Path) -> tuple[int, str | None]:
    """Size and SHA-256 of a regular file; (-1, None) for anything else (a link, a folder)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return -1, None
        with open(path, "rb") as handle:
            return _copy(handle, _Discard(), os.fstat(handle.fileno()).st_size)
    except OSError:
        return -1, None


class _Discard:
    def write(self, data: bytes) -> None:
        pass


def _difference(archive: Archive, size: int, digest: str | None) -> str | None:
    """How a file differs from its listing, or None when it is the one listed."""
    if size < 0 or digest is None:
        return "not a regular file"
    if size != archive.bytes:
        more = " or more" if size > archive.bytes else ""
        return f"{size:,} bytes{more}, where {LISTED_IN} lists {archive.bytes:,}"
    if digest != archive.sha256:
        return f"SHA-256 {digest}, where {LISTED_IN} lists {archive.sha256}"
    return None


def _unlisted(source: Path, listing: ArchiveList) -> list[str]:
    """Files at the top of a source folder (and in the folders of listed paths) that the list does
    not name: left alone, so a folder holding newer archives than the code knows still works."""
    named = {a.path or a.file for a in listing.archives} | {a.file for a in listing.archives}
    folders = {""} | {os.path.dirname(a.path) for a in listing.archives if a.path}
    found = []
    for sub in sorted(folders):
        try:
            entries = list(os.scandir(source / sub))
        except OSError:
            continue
        found += [os.path.join(sub, e.name) for e in entries if e.is_file() and os.path.join(sub, e.name) not in named]
    return sorted(found)
