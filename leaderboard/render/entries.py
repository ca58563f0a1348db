"""Entry pages: one per result, with its costs, energy and the submission file it came from."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from leaderboard.cache import digest
from leaderboard.render import progress
from leaderboard.render.boards import board_page_path
from leaderboard.render.writer import SiteWriter
from leaderboard.tree import FileChanged, real_folder


def write_pages(site: SiteWriter, project: Path | None) -> None:
    real_folder.cache_clear()
    for row in site.data.results:
        _entry_page(site, row, project)


def _entry_page(site: SiteWriter, row: dict, project: Path | None) -> None:
    data = site.data
    board = site.boards_by_key[f"{row['round']}/{row['benchmark']}"]
    division_rows = board.divisions[row["division"]]
    accelerator = data.accelerators.get(row["accelerator"], {})
    submission, submission_copy = None, None
    if project is not None and row.get("file_sha256") is not None:  # a database of older code lacks it
        submission = SubmissionFile(str(project), row["file"], row["file_sha256"])
        submission_copy = f"data/{row['file']}"
        site.copy(submission_copy, submission.content, submission.sha256)
    page = site.positions[row["entry_id"]] // site.page_rows
    charts = _progress_charts(site, row, board.benchmark)
    site.page(
        row["path"],
        "entry.html",
        row=row,
        board=board.heading,
        board_page=board_page_path(board, page),
        division_size=len(division_rows),
        division_ranked=board.ranked[row["division"]],
        comparable=board.comparable,
        accelerator=accelerator,
        columns=data.columns,
        submission=submission,
        submission_copy=submission_copy,
        per_unit=_chips_per_unit(row, accelerator),
        rules=board.rules,
        progress_chart=site.chart(charts[0]) if charts else None,
    )
    if submission is not None:
        submission.forget()  # the page's key keeps the object to the build's end: not its bytes


@dataclass(frozen=True)
class SubmissionFile:
    """A result's submission file, as its entry page shows it: known by its path and the SHA-256
    the database records (results.file_sha256), and read only when the page or its copy must be
    written (a page's reuse key hashes these fields: an unchanged page reads no file)."""

    project: str
    relative: str
    sha256: str

    def content(self) -> bytes:
        """The file's bytes; FileChanged when they are no longer those the result was read from.
        Read once: the page's copy of the file and the page itself both show them."""
        return self._checked_bytes

    @cached_property
    def _checked_bytes(self) -> bytes:  # (not a field: a page's reuse key hashes the fields only)
        content = _project_file_bytes(Path(self.project), self.relative)
        if content is None or digest(content) != self.sha256:
            what = "is gone or no longer a regular file" if content is None else "has changed"
            raise FileChanged(f"{self.relative} {what} since its result was read (during the build?): build again")
        return content

    @property
    def text(self) -> str:
        return self.content().decode("utf-8", errors="replace")

    def forget(self) -> None:
        """Let go of the bytes read (read again if asked for)."""
        self.__dict__.pop("_checked_bytes", None)


def _progress_charts(site: SiteWriter, row: dict, benchmark: dict) -> list:
    """The result's training progress chart, if it has progress, as last built from the same row."""
    if not row.get("progress_rows"):
        return []
    name = f"entry--{row['entry_id'].replace('/', '--')}--progress"

    def draw() -> list:
        chart = progress.progress_chart(name, row, benchmark)
        return [chart] if chart is not None else []

    return site.chart_specs(name, [name, row, benchmark], draw)


def _project_file_bytes(project: Path, relative: str) -> bytes | None:
    """The bytes of a regular file inside `project` (resolved), never through a link and
    never outside it (a database from elsewhere may name any path); None otherwise."""
    source = os.path.join(project, relative)
    folder = real_folder(os.path.dirname(source))
    if folder != str(project) and not folder.startswith(str(project) + os.sep):
        return None
    try:
        handle = os.open(os.path.join(folder, os.path.basename(source)), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        return file.read()


def _chips_per_unit(row: dict, accelerator: dict) -> float | None:
    if row["unit"] == "chip":
        return 1.0
    if row["unit"] == "device":
        return accelerator.get("chips_per_device")
    cores = accelerator.get("cores_per_chip")
    return 1 / cores if cores else None
