"""Scoring one MLPerf result from its runs, as MLPerf scores it: which runs count, the olympic
mean of their minutes, the achieved quality and the RCP factor (pure functions, no I/O).

The round's numbers (targets, runs, drops, RCP tables) come from the catalog, never from code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from leaderboard.catalog import Benchmark, Round, RoundRules
from leaderboard.importers.rcp import RcpTable, rcp_scaling, reference_points
from leaderboard.importers.runlog import INIT_LIMIT_MINUTES, RunLog, Targets
from leaderboard.normalize import dropped_runs, from_logged, olympic_mean, to_logged, worst_counted_quality


def targets_for(benchmark: Benchmark, rules: RoundRules, round_: Round | None = None) -> Targets:
    """What a run of this benchmark and round must reach, as its logs write it: the catalog's
    targets (on the benchmark's one scale) times the round's log_scale."""
    direction = benchmark.direction or "higher"
    limits = round_.init_limit_minutes if round_ is not None else {}
    init_limits = (limits.get("closed", INIT_LIMIT_MINUTES), limits.get("open", INIT_LIMIT_MINUTES))
    scale = rules.log_scale
    open_target = rules.open_quality_target
    return Targets(
        quality_target=to_logged(rules.quality_target, scale),
        direction=direction,
        log_metric=benchmark.log_metric,
        extra_targets=tuple(
            (name, to_logged(target, scale), benchmark.extra_directions.get(name, direction))
            for name, target in sorted(rules.extra_targets.items())
        ),
        batch_size_targets=tuple((size, to_logged(target, scale)) for size, target in rules.batch_size_targets),
        open_target=None if open_target is None else to_logged(open_target, scale),
        init_limit_minutes=init_limits,
        eval_key=benchmark.log_key,
        log_scale=scale,
    )


def stored_quality(value: float | None, targets: Targets) -> float | None:
    """A logged quality or target on the benchmark's one scale (the catalog's), as files store it."""
    return None if value is None else from_logged(value, targets.log_scale)


@dataclass
class Score:
    """A result directory scored: minutes is None when the result is invalid (see `invalid`)."""

    runs_minutes: list[float | None]
    failures: list[tuple[int, str]]  # (index in run order, reason)
    runs_quality: list[float | None] = field(default_factory=list)  # each run's, failed ones' last
    minutes: float | None = None  # olympic mean, unscaled
    quality: float | None = None
    invalid: str | None = None


def score_runs(runs: Sequence[RunLog], rules: RoundRules, closed: bool, targets: Targets) -> Score:
    """Olympic mean of the runs' minutes, a failed run taking the place of one of the slowest.
    The quality reported is the worst achieved quality among the runs the mean counts (see
    RunLog.achieved_quality; dropped fastest and slowest runs are not counted): every counted run
    reached at least that. Qualities are stored on the benchmark's one scale (stored_quality)."""
    runs_minutes: list[float | None] = []
    failures: list[tuple[int, str]] = []
    runs_quality: list[float | None] = []
    for index, run in enumerate(runs):
        reason = run.failure(closed, targets)
        if reason:
            failures.append((index, reason))
            runs_minutes.append(None)
            runs_quality.append(stored_quality(run.last_quality, targets))
        else:
            runs_quality.append(stored_quality(run.achieved_quality(closed), targets))
            runs_minutes.append(run.minutes)
    score = Score(runs_minutes, failures, runs_quality)
    score.minutes = olympic_mean(runs_minutes, rules.drop_fastest, rules.drop_slowest)
    drops = dropped_runs(runs_minutes, rules.drop_fastest, rules.drop_slowest)
    counted = [quality for quality, drop in zip(runs_quality, drops, strict=True) if drop is None]
    if score.minutes is None:
        reasons = Counter(reason.split(": ", 1)[-1] if reason.startswith("line ") else reason for _, reason in failures)
        common, times = reasons.most_common(1)[0]
        why = common if times == len(failures) else f"{times} of them: {common}"
        score.invalid = (
            f"{len(failures)} of {len(runs)} runs failed ({why}); the scoring may drop at most {rules.drop_slowest}"
        )
    elif None in counted:
        score.invalid = "a counted run logs no eval_accuracy: its quality is unknown"
    else:
        score.quality = worst_counted_quality(runs_quality, drops, targets.direction)
    return score


def run_progress(run: RunLog, unit: str) -> float | None:
    """How far a run trained before converging, in the RCP table's unit (rcp.UNITS)."""
    return {
        "epochs": run.last_epoch,
        "samples": run.last_train_samples,
        "eval_samples": run.last_eval_samples,
        "passing_eval_samples": run.passing_eval_samples,
        "passing_eval_steps": run.passing_eval_step,
    }[unit]


UNIT_SOURCES = {
    "epochs": "epoch_num",
    "samples": "train_samples",
    "eval_samples": "samples_count",
    "passing_eval_samples": "samples_count at a passing evaluation",
    "passing_eval_steps": "step_num at a passing evaluation",
}


def scaling_factor(
    runs: Sequence[RunLog], failed: set[int], table: RcpTable | None, rules: RoundRules
) -> tuple[float | None, str | None]:
    """(RCP factor, None) or (None, why the score stays unscaled)."""
    if table is None:
        return None, "no RCP table for this benchmark and round"
    sizes = {run.batch_size for run in runs}
    if None in sizes or len(sizes) != 1:
        return None, "the runs log no single global_batch_size"
    progress: list[float | None] = []
    for index, run in enumerate(runs):
        value = None if index in failed else run_progress(run, table.unit)
        if value is None and index not in failed:
            return None, f"run {index} logs no {UNIT_SOURCES[table.unit]}"
        progress.append(value)
    points = reference_points(table, rules.drop_fastest, rules.drop_slowest)
    scaling = rcp_scaling(
        progress, sizes.pop(), points, rules.drop_fastest, rules.drop_slowest, rules.runs, rules.rcp_allowance
    )
    return scaling.factor, scaling.reason
