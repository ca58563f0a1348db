"""Reference convergence points (RCP): MLPerf's scaling of scores that converged faster than the
reference did at the same batch size. The tables are catalog data (catalog/rcp/<round>.csv).

Pure functions that follow mlperf-logging's rcp_checker (pruned reference points, linear
interpolation between batch sizes, factor = reference mean / submission mean, never below 1).
"""

from __future__ import annotations

import csv
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from leaderboard.normalize import olympic_mean

# What a run's convergence is measured in (catalog/rcp/README.md): epochs (the last evaluation's
# epoch_num), samples (the last train_samples: BERT), eval_samples (the last evaluation's
# samples_count: the LLMs, Flux.1), passing_eval_samples and passing_eval_steps (the
# samples_count or step_num of the first evaluation that met every target: Stable Diffusion).
UNITS = ("epochs", "samples", "eval_samples", "passing_eval_samples", "passing_eval_steps")


@dataclass(frozen=True)
class ReferencePoint:
    batch_size: float
    mean: float  # olympic mean of the reference runs' epochs (or samples) to converge
    stdev: float  # population standard deviation of all reference runs
    runs: int  # reference runs left after the olympic drops (the t-test's sample size)


@dataclass(frozen=True)
class RcpTable:
    benchmark: str
    unit: str  # one of UNITS
    runs: dict[float, tuple[float, ...]] = field(default_factory=dict)  # batch size -> reference runs


class RcpDataError(Exception):
    """A catalog RCP file that does not have the expected shape."""


def rcp_file(catalog_dir: Path, round_id: str) -> Path:
    return catalog_dir / "rcp" / f"{round_id}.csv"


def load_tables(path: Path) -> dict[str, RcpTable]:
    """The RCP tables of one round, by benchmark id; {} when the round has no RCP file."""
    if not path.is_file():
        return {}
    runs: dict[str, dict[float, list[float]]] = {}
    units: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            try:
                benchmark, unit = row["benchmark"], row["unit"]
                batch_size, converged = float(row["batch_size"]), float(row["converged_at"])
            except (KeyError, TypeError, ValueError):
                raise RcpDataError(f"{path}:{number}: expected benchmark, batch_size, unit, converged_at") from None
            if unit not in UNITS or units.setdefault(benchmark, unit) != unit:
                raise RcpDataError(f"{path}:{number}: unit must be one of {UNITS}, the same for a benchmark")
            runs.setdefault(benchmark, {}).setdefault(batch_size, []).append(converged)
    return {
        benchmark: RcpTable(benchmark, units[benchmark], {bs: tuple(v) for bs, v in sorted(points.items())})
        for benchmark, points in runs.items()
    }


def reference_points(table: RcpTable, drop_fastest: int, drop_slowest: int) -> list[ReferencePoint]:
    """Each batch size's olympic mean, pruned as rcp_checker prunes.

    Points below the batch size that converges fastest go, then every point that converges
    slower than the interpolation of its neighbours (walking up in batch size).
    """
    points = [
        ReferencePoint(
            bs,
            olympic_mean(list(v), drop_fastest, drop_slowest),
            statistics.pstdev(v),
            len(v) - drop_fastest - drop_slowest,
        )
        for bs, v in table.runs.items()
    ]
    points.sort(key=lambda p: p.batch_size)
    if not points:
        return []
    fastest = min(points, key=lambda p: p.mean)
    kept = [p for p in points if p.batch_size >= fastest.batch_size]
    i = 1
    while i < len(kept) - 1:
        if kept[i].mean > _interpolate(kept[i].batch_size, kept[i - 1], kept[i + 1]).mean:
            del kept[i]
            i -= 1
        i += 1
    return kept


def _interpolate(batch_size: float, low: ReferencePoint, high: ReferencePoint, runs: int = 0) -> ReferencePoint:
    share = (batch_size - low.batch_size) / (high.batch_size - low.batch_size)
    return ReferencePoint(
        batch_size, low.mean + share * (high.mean - low.mean), low.stdev + share * (high.stdev - low.stdev), runs
    )


def reference_for(batch_size: float, points: Sequence[ReferencePoint], submission_runs: int) -> ReferencePoint | None:
    """The reference convergence at `batch_size`: the point itself, the interpolation of the two
    around it (sample size: twice the submission's runs, as rcp_checker has it), or, below every
    point, the smallest batch size's. None above every point (MLPerf asks for a new RCP)."""
    for point in points:
        if point.batch_size == batch_size:
            return point
    below = [p for p in points if p.batch_size < batch_size]
    above = [p for p in points if p.batch_size > batch_size]
    if below and above:
        return _interpolate(batch_size, below[-1], above[0], runs=2 * submission_runs)
    if above:
        return points[0]
    return None


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df degrees of freedom.

    Written out (regularized incomplete beta by its continued fraction, Numerical Recipes 6.4)
    because scipy, which has it, is a large dependency for this one function.
    """
    x = df / (df + t * t)
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, x)
    return tail if t < 0 else 1.0 - tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a - 1.0 + 2 * m) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1.0 + 2 * m)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def min_acceptable_mean(
    point: ReferencePoint, submission_runs: int, alpha: float = 0.05, tolerance: float = 1e-4
) -> float:
    """The fastest mean convergence a submission may have at this point: the one-sided t-test
    (equal variances) must not reject it at `alpha`. Bisection, as rcp_checker does it."""
    if point.stdev == 0:
        return point.mean
    n_reference, n_submission = point.runs, submission_runs - 2
    spread = point.stdev * math.sqrt(1.0 / n_reference + 1.0 / n_submission)
    low, high = 0.0, point.mean
    middle = (low + high) / 2
    while high - low > tolerance:
        p_value = student_t_cdf((middle - point.mean) / spread, n_reference + n_submission - 2)
        if p_value > alpha:
            high = middle
        else:
            low = middle
        middle = (low + high) / 2
    return middle


@dataclass(frozen=True)
class Scaling:
    factor: float | None  # None: the score stays unscaled
    reason: str | None = None  # why it stays unscaled


def rcp_scaling(
    converged_at: Sequence[float | None],
    batch_size: float,
    points: Sequence[ReferencePoint],
    drop_fastest: int,
    drop_slowest: int,
    submission_runs: int,
    allowance: float = 0.0,
) -> Scaling:
    """MLPerf's RCP scaling of one result. A failed run (None) counts as slowest.

    factor = reference mean / the runs' olympic mean of epochs (or samples) to converge, at
    least 1. A result that converges faster than the reference allows fails MLPerf's RCP
    check; MLPerf then applies no factor (MLCommons may accept it after review), and neither do we.
    """
    reference = reference_for(batch_size, points, submission_runs)
    if reference is None:
        return Scaling(None, f"no reference convergence point at or above batch size {batch_size:g}")
    submission = olympic_mean(list(converged_at), drop_fastest, drop_slowest)
    if submission is None or submission <= 0 or not math.isfinite(submission):
        return Scaling(None, "too many runs did not converge")
    # `allowance`: how much faster still passes (rcp_checker from ruleset 5.0.0: Llama 3.1 405B,
    # one evaluation interval, 46,080 samples)
    minimum = min_acceptable_mean(reference, submission_runs) - allowance
    if submission < reference.mean / (reference.mean / minimum):  # rcp_checker's "max speedup" test
        return Scaling(
            None,
            f"converges faster than the reference allows (mean {submission:.6g}, at least "
            f"{minimum:.6g}; reference {reference.mean:.6g}): MLPerf's RCP check fails and "
            "applies no factor",
        )
    return Scaling(max(1.0, reference.mean / submission))
