"""What an importer wrote, per round (catalog/<family's folder>/<round>.csv: verified/ for MLPerf,
imported/ for Epoch AI's runs): each entry's id, scored fields and the SHA-256 of its file.
An MLPerf entry is verified only when its file is exactly what the importer computed from the
round's published logs; nothing a file says proves it.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from leaderboard import atomic
from leaderboard.files import read_regular
from leaderboard.problems import Problem

FOLDER = "verified"  # under the catalog: MLPerf results recomputed from logs (families.py names each folder)
COLUMNS = ("entry_id", "sha256", "division", "accelerator", "count", "minutes")


def file_digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def holds(path: Path | str, digest: str) -> bool | None:
    """Whether the regular file at `path` is byte for byte the one a manifest lists with `digest`;
    None when it cannot be read (a link, a folder, a missing file)."""
    content = read_regular(path)
    return None if content is None else file_digest(content) == digest


def manifest_path(catalog_dir: Path, round_id: str, folder: str = FOLDER) -> Path:
    return Path(catalog_dir) / folder / f"{round_id}.csv"


def row(entry_id: str, data: dict, content: bytes) -> dict:
    """A manifest row for an entry the importer wrote (`content`: the file's bytes)."""
    system, result = data["system"], data["result"]
    return {
        "entry_id": entry_id,
        "sha256": file_digest(content),
        "division": data["division"],
        "accelerator": system["accelerator"],
        "count": system["count"],
        "minutes": result["minutes"],
    }


def write(
    catalog_dir: Path, round_id: str, rows: Iterable[dict], folder: str = FOLDER, changes: atomic.Changes | None = None
) -> Path:
    """The round's manifest, rows in entry order, written atomically; unchanged bytes are kept.
    `folder`: verified/ for MLPerf's importer, imported/ for importers whose files are not verified.
    With `changes`, it is written with the entries it lists, when they are committed."""
    target = manifest_path(catalog_dir, round_id, folder)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(rows, key=lambda r: r["entry_id"]))
    if changes is not None:
        changes.write(target, buffer.getvalue())
        return target
    return atomic.write_text(target, buffer.getvalue())


class UnreadableManifest(ValueError):
    """A manifest that is not UTF-8 CSV with entry_id and sha256 columns (re-encoded on checkout
    by a .gitattributes working-tree-encoding rule, say)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def read_rows(path: Path) -> list[dict]:
    """A manifest's rows, as written (no rows when the file is absent). Raises UnreadableManifest."""
    if not Path(path).is_file() or Path(path).is_symlink():
        return []  # a link is never followed (load_catalog reports it)
    try:
        with Path(path).open(encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))
    except UnicodeDecodeError as error:
        raise UnreadableManifest(
            path, f"not UTF-8 text (byte {error.object[error.start]:#04x} at {error.start})"
        ) from None


def load_reported(catalog_dir: Path, folder: str) -> tuple[dict[str, str], Problem | None]:
    """load(), with a manifest that cannot be read as a problem (and no digests) rather than raised."""
    try:
        return load(catalog_dir, folder), None
    except UnreadableManifest as error:
        hint = "check it out byte for byte as committed: no .gitattributes rule (working-tree-encoding, eol) may rewrite it"
        return {}, Problem(str(error.path), None, None, "$", error.reason, hint)


def load(catalog_dir: Path, folder: str = FOLDER) -> dict[str, str]:
    """Every manifest's entry id -> file digest (of one folder: verified/ unless told). Raises
    UnreadableManifest for a file that is not a manifest as the importer writes it."""
    where = Path(catalog_dir) / folder
    paths = sorted(where.glob("*.csv")) if where.is_dir() and not where.is_symlink() else []
    found = {}
    for path in paths:
        for item in read_rows(path):
            if not item.get("entry_id") or not item.get("sha256"):
                raise UnreadableManifest(
                    path, "a row without entry_id or sha256: not a manifest as the importer writes it"
                )
            found[item["entry_id"]] = item["sha256"]
    return found


# ---- files whose bytes are not their digest's -------------------------------------------------


@dataclass(frozen=True)
class Unmatched:
    """A file a manifest lists whose bytes in the working tree are not those of its digest."""

    round_id: str
    file: str
    crlf: bool  # its importer's bytes with CRLF line endings: git converted them on checkout


def unmatched(round_id: str, file: str, content: bytes | None, digest: str | None) -> Unmatched | None:
    """None when `content` (None: unreadable) has the manifest's `digest`; else why it differs."""
    if content is not None and file_digest(content) == digest:
        return None
    crlf = content is not None and b"\r\n" in content and file_digest(content.replace(b"\r\n", b"\n")) == digest
    return Unmatched(round_id, file, crlf)


def unmatched_text(found: Sequence[Unmatched], shown_files: int = 3) -> str:
    """'(by round, mlperf-training-v5.1: 184): a, b, c and 181 more': the files' rounds and the first few."""
    per_round: dict[str, int] = {}
    for item in found:
        per_round[item.round_id] = per_round.get(item.round_id, 0) + 1
    rounds = ", ".join(f"{round_id}: {count:,}" for round_id, count in per_round.items())
    files = ", ".join(item.file for item in found[:shown_files])
    more = f" and {len(found) - shown_files:,} more" if len(found) > shown_files else ""
    return f"(by round, {rounds}): {files}{more}"


def unmatched_cause(found: Sequence[Unmatched], attributes: Sequence[str] = (), edits: bool = False) -> str:
    """The likely cause, in words: CRLF line endings when undoing them gives the manifest's bytes;
    `attributes`, the .gitattributes files a pull request changes, are named as the likely culprit.
    `edits`: the files may have been edited in the working tree (a build's; check-pr compares only
    files its pull request does not change), which is said first."""
    crlf = sum(item.crlf for item in found)
    changed = f"this pull request's change to {', '.join(attributes)}" if attributes else ""
    if crlf:
        which = "each is" if crlf == len(found) else f"{crlf:,} of them {'is' if crlf == 1 else 'are'}"
        by = changed or "a text or eol rule in a .gitattributes file, or core.autocrlf"
        return f"{which} its importer's bytes with CRLF line endings: git converted them on checkout ({by})"
    if changed:
        return (
            f"git rewrites them on checkout without a diff, likely by {changed} "
            "(a filter, ident, working-tree-encoding, text or eol rule)"
        )
    rewritten = (
        "a .gitattributes filter, ident, working-tree-encoding, text or eol rule, core.autocrlf, or an edit git "
        "is told to ignore (assume-unchanged, skip-worktree)"
    )
    if edits:
        return (
            "they were edited since their importer wrote them (an official result's file is its importer's to "
            f"write: `git diff` shows such an edit), or rewritten without a change git sees: {rewritten}"
        )
    return f"they were rewritten without a change git sees: {rewritten}"
