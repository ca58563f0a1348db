"""A result's quality agrees with its runs: the worst achieved quality among the runs the
olympic mean counts, in the metric's direction (a pure check, as progress.py's).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from leaderboard.files import Document
from leaderboard.normalize import dropped_runs, worst_counted_quality
from leaderboard.problems import Problem


def worst_counted_problems(
    doc: Document, result: dict, drop_fastest: int, drop_slowest: int, direction: str | None
) -> Iterator[Problem]:
    """quality must be the worst runs_quality among the counted runs, where both are given."""
    runs, qualities, quality = result.get("runs_minutes"), result.get("runs_quality"), result.get("quality")
    if quality is None or not direction or not runs or not qualities or len(qualities) != len(runs):
        return
    worst = worst_counted_quality(qualities, dropped_runs(runs, drop_fastest, drop_slowest), direction)
    if worst is not None and not math.isclose(quality, worst, rel_tol=1e-12):
        yield doc.problem(
            ("result", "quality"),
            f"quality {quality} is not the worst quality of the counted runs ({worst})",
            "quality is the worst of runs_quality among the runs the olympic mean keeps "
            "(neither the dropped fastest and slowest nor the failed ones)",
        )
