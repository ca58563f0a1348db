"""A result's quality agrees with its target and its runs, in the metric's direction (the
catalog's, else the result's quality_direction): it reaches the target, and it is the worst
achieved quality among the runs the olympic mean counts (pure checks, as progress.py's).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from leaderboard.files import Document
from leaderboard.normalize import dropped_runs, reaches_target, worst_counted_quality
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


def quality_direction(result: dict, benchmark) -> str | None:
    """Which way the result's quality is better: its benchmark's metric's (catalog), else what the
    result states (published runs share no metric), else unknown."""
    return benchmark.direction or result.get("quality_direction")


def direction_problems(doc: Document, result: dict, benchmark, log_scale: float = 1.0) -> Iterator[Problem]:
    """A quality must reach its target in the metric's direction: the catalog's for the benchmark,
    else the one the result states (result.quality_direction: published runs share no metric), which
    a result giving both its quality and its target must then state."""
    quality, target, stated = result.get("quality"), result.get("quality_target"), result.get("quality_direction")
    if stated is not None and benchmark.direction is not None and stated != benchmark.direction:
        yield doc.problem(
            ("result", "quality_direction"),
            f"{benchmark.name}'s {benchmark.metric} is better when {benchmark.direction}, not {stated}",
            "leave quality_direction out: the catalog says which way the benchmark's metric is better",
        )
        return
    direction = quality_direction(result, benchmark)
    if quality is None or target is None:
        return
    if direction is None:
        yield doc.problem(
            ("result",),
            f"missing required field 'quality_direction' (with quality and quality_target: {benchmark.name} "
            "has no common metric, so the quality can only be checked against its target in the direction given)",
            "quality_direction: higher (an accuracy, a score) or lower (a perplexity, a loss, an error rate)",
        )
    elif not reaches_target(quality, target, direction, log_scale):
        better = "at least" if direction == "higher" else "at most"
        metric = benchmark.metric if benchmark.direction else f"{direction} is better"
        yield doc.problem(
            ("result", "quality"),
            f"quality {quality} misses the target {target} ({metric}: {better} the target)",
            None
            if benchmark.direction
            else "a run that stopped short of its target did not train to it: give the time to the target it reached",
        )
