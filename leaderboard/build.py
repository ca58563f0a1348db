"""One build: validate everything, write the database, render the site; all or nothing.

Refuses to write anything when a single file is invalid.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from leaderboard import store
from leaderboard.problems import Problem
from leaderboard.validate import ValidationResult, validate_paths


@dataclass
class BuildResult:
    validation: ValidationResult
    db: str | None = None
    site: Path | None = None
    entries: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def build(
    submissions: Path,
    catalog: Path,
    db: str | Path,
    out: Path | None,
    progress: Callable[[str, int | None], Callable[[int], None]] | None = None,
) -> BuildResult:
    """Validate `submissions` against `catalog`, then write `db` and (when `out`) the site."""
    count = sum(1 for _ in submissions.rglob("*")) if progress else None
    tick = progress("validating", count) if progress else None
    validation = validate_paths([submissions], catalog, progress=tick)
    outcome = BuildResult(validation, problems=list(validation.problems))
    if validation.problems:
        return outcome
    base = submissions.resolve().parent
    rows, cost_rows = store.result_rows(validation.entries, validation.catalog, base=base)
    store.write_database(db, validation.catalog, rows, cost_rows)
    outcome.db, outcome.entries = str(db), len(rows)
    if out is not None:
        from leaderboard.render.site import render_site

        render_site(db, out, validation.catalog)
        outcome.site = out
    return outcome
