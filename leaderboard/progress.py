"""A result that lists its training progress agrees with it: minutes is the first evaluation that
reaches the target (as DAWNBench reads a TSV), and quality is the metric there. Pure checks.
"""

from __future__ import annotations

from collections.abc import Iterator

from leaderboard.files import Document
from leaderboard.normalize import reaches_target
from leaderboard.problems import Problem

TOLERANCE_REL = 1e-9  # minutes are hours x 60 of the same row: only float rounding differs


def first_reaching(progress: list[dict], key: str, target: float, direction: str) -> int | None:
    """The index of the first evaluation whose `key` reaches the target, or None."""
    for index, item in enumerate(progress):
        value = item.get(key)
        if value is not None and reaches_target(value, target, direction):
            return index
    return None


def progress_problems(doc: Document, result: dict, benchmark) -> Iterator[Problem]:
    """minutes and quality must be what result.progress says: the first evaluation at the target."""
    progress, target, key = result.get("progress"), result.get("quality_target"), benchmark.log_metric
    if not progress or target is None or not key or not benchmark.direction:
        return
    index = first_reaching(progress, key, target, benchmark.direction)
    if index is None:
        yield doc.problem(("result", "progress"), f"no evaluation reaches the target {target} ({key})")
        return
    reached = progress[index]
    minutes = reached["hours"] * 60
    if abs(minutes - result["minutes"]) > TOLERANCE_REL * max(minutes, 1.0):
        yield doc.problem(
            ("result", "minutes"),
            f"minutes {result['minutes']} is not the time of the first evaluation reaching the target "
            f"(progress[{index}]: {reached['hours']} hours = {minutes:.6g} minutes)",
            "the time to train is read off the first evaluation at the target, as the source's rules say",
        )
    if result.get("quality") is not None and result["quality"] != reached[key]:
        yield doc.problem(
            ("result", "quality"),
            f"quality {result['quality']} is not {key} of the first evaluation reaching the target ({reached[key]})",
        )
