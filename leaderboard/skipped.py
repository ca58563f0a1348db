"""What an importer left off, per round (catalog/skipped/<round>.csv): every result folder of the
round's source that reaches no board, with why; written whole by the importer, read by the build.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import astuple, dataclass, fields
from pathlib import Path

from leaderboard import atomic
from leaderboard.problems import Problem

FOLDER = "skipped"  # under the catalog (families.py names it for each family whose importer skips)
HINT = "only the importer writes this file: re-run it on the round's published source"


@dataclass(frozen=True, order=True)
class SkippedResult:
    """One result folder (or entry) of a round's source that is on no board."""

    round: str
    folder: str  # the result folder in the round's repository (DAWNBench: <Task>/train/<entry>)
    submitter: str  # as the system description names it, else the organization folder
    system: str  # the system's name, else its folder
    benchmark: str  # the benchmark id, else the folder name when the round has no such benchmark
    reason: str  # why it is on no board, in words
    logs_found: int | None  # run logs the source holds; None where results are not run logs
    logs_needed: int | None  # runs the round's rules ask for; None where unknown
    logs_missing: int | None  # logs MISSING.txt lists as absent from the public copy
    source_url: str | None  # where the folder is published


COLUMNS = tuple(f.name for f in fields(SkippedResult))
COUNTS = ("logs_found", "logs_needed", "logs_missing")


def skipped_path(catalog_dir: Path, round_id: str, folder: str = FOLDER) -> Path:
    return Path(catalog_dir) / folder / f"{round_id}.csv"


def to_csv(items: Iterable[SkippedResult]) -> str:
    """The file's text: a header, then one line per folder in folder order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for item in sorted(items, key=lambda i: (i.folder, i.benchmark)):
        writer.writerow(["" if value is None else value for value in astuple(item)])
    return buffer.getvalue()


def write(
    catalog_dir: Path,
    round_id: str,
    items: Iterable[SkippedResult],
    folder: str = FOLDER,
    changes: atomic.Changes | None = None,
) -> Path:
    """The round's file, written whole and atomically (a header alone when nothing was left
    off: the round was imported and nothing is missing); unchanged bytes are kept. With
    `changes`, it is written with the import's entries, when they are committed."""
    target = skipped_path(catalog_dir, round_id, folder)
    if changes is not None:
        changes.write(target, to_csv(items))
        return target
    return atomic.write_text(target, to_csv(items))


def from_csv(text: str, name: str, round_id: str) -> tuple[list[SkippedResult], list[Problem]]:
    """The rows of one round's file, and a problem for each line that is not one (its line and column)."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header != list(COLUMNS):
        return [], [Problem(name, 1, 1, "$", f"the header is not {','.join(COLUMNS)}", HINT)]
    items, problems = [], []
    for cells in reader:
        line = reader.line_num
        if len(cells) != len(COLUMNS):
            problems.append(Problem(name, line, 1, "$", f"{len(cells)} cells, not {len(COLUMNS)}", HINT))
            continue
        row = dict(zip(COLUMNS, cells, strict=True))
        bad = next((c for c in COUNTS if row[c] and not row[c].isdigit()), None)
        if bad:
            column = COLUMNS.index(bad) + 1
            problems.append(Problem(name, line, column, "$", f"{bad} {row[bad]!r} is not a whole number", HINT))
            continue
        if row["round"] != round_id:
            problems.append(Problem(name, line, 1, "$", f"round {row['round']!r} in the file of {round_id}", HINT))
            continue
        counts = {c: int(row[c]) if row[c] else None for c in COUNTS}
        items.append(SkippedResult(**{**row, **counts, "source_url": row["source_url"] or None}))
    return items, problems


def load_skipped(catalog_dir: Path, folder: str = FOLDER) -> tuple[dict[str, list[SkippedResult]], list[Problem]]:
    """Every round's file under the catalog: round id -> its rows (a round without a file is
    absent: its importer never ran here), and the problems of malformed files."""
    where = Path(catalog_dir) / folder
    if not where.is_dir() or where.is_symlink():
        return {}, []
    rounds: dict[str, list[SkippedResult]] = {}
    problems: list[Problem] = []
    for path in sorted(where.glob("*.csv")):
        if path.is_symlink() or not path.is_file():
            continue  # load_catalog reports links and special files
        items, found = from_csv(path.read_text(encoding="utf-8", errors="replace"), str(path), path.stem)
        rounds[path.stem] = items
        problems += found
    return rounds, problems
