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
from leaderboard.normalize import olympic_mean


def targets_for(benchmark: Benchmark, rules: RoundRules, round_: Round | None = None) -> Targets:
    direction = benchmark.direction or "higher"
    limits = round_.init_limit_minutes if round_ is not None else {}
    init_limits = (limits.get("closed", INIT_LIMIT_MINUTES), limits.get("open", INIT_LIMIT_MINUTES))
    return Targets(
        quality_target=rules.quality_target,
        direction=direction,
        log_metric=benchmark.log_metric,
        extra_targets=tuple(
            (name, target, benchmark.extra_directions.get(name, direction))
            for name, target in sorted(rules.extra_targets.items())
        ),
        batch_size_targets=rules.batch_size_targets,
        open_target=rules.open_quality_target,
        init_limit_minutes=init_limits,
        eval_key=benchmark.log_key,
    )


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
    """Olympic mean of the runs' minutes, failed runs counted as slowest. The quality reported is
    the worst achieved quality among the counted runs (see RunLog.achieved_quality): every
    counted run reached at least that."""
    runs_minutes: list[float | None] = []
    failures: list[tuple[int, str]] = []
    qualities: list[float] = []
    runs_quality: list[float | None] = []
    for index, run in enumerate(runs):
        reason = run.failure(closed, targets)
        if reason:
            failures.append((index, reason))
            runs_minutes.append(None)
            runs_quality.append(run.last_quality)
        else:
            runs_quality.append(run.achieved_quality(closed))
            runs_minutes.append(run.minutes)
            if run.achieved_quality(closed) is not None:
                qualities.append(run.achieved_quality(closed))
    score = Score(runs_minutes, failures, runs_quality)
    score.minutes = olympic_mean(runs_minutes, rules.drop_fastest, rules.drop_slowest)
    if score.minutes is None:
        reasons = Counter(reason.split(": ", 1)[-1] if reason.startswith("line ") else reason for _, reason in failures)
        common, times = reasons.most_common(1)[0]
        why = common if times == len(failures) else f"{times} of them: {common}"
        score.invalid = (
            f"{len(failures)} of {len(runs)} runs failed ({why}); the scoring may drop at most {rules.drop_slowest}"
        )
    elif len(qualities) < len(runs) - len(failures):
        score.invalid = "a counted run logs no eval_accuracy: its quality is unknown"
    elif qualities:
        score.quality = min(qualities) if targets.direction == "higher" else max(qualities)
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
