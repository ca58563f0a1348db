"""The run record every log format reads into: the few facts of one run that scoring needs,
and the rules that decide whether a run counts (format-independent; one reader per format feeds it).

A format reader turns each of its lines into an MLLOG-style record (`key`, `value`, `time_ms`,
`metadata`) and hands it to `RunReader.record`; scoring never sees the format.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from leaderboard.normalize import reaches_target

INIT_LIMIT_MINUTES = 30.0


@dataclass(frozen=True)
class Targets:
    """What a run must reach: the primary metric (under `log_metric` when the logged value
    is an object) and further metrics of the same evaluation (Mask R-CNN's SEGM, Stable
    Diffusion's CLIP), each with its own direction. `batch_size_targets` holds primary targets
    that apply from a global batch size on (v0.7 BERT: 0.706 from 8,192)."""

    quality_target: float
    direction: str  # higher | lower
    log_metric: str | None = None
    extra_targets: tuple[tuple[str, float, str], ...] = ()  # (metric, target, direction)
    batch_size_targets: tuple[tuple[float, float], ...] = ()  # (from global batch size, primary target)
    open_target: float | None = None  # the primary target the open division must reach too, where it must
    init_limit_minutes: tuple[float, float] = (INIT_LIMIT_MINUTES, INIT_LIMIT_MINUTES)  # (closed, open)
    eval_key: str = "eval_accuracy"  # the MLLOG key of the evaluations (MLPerf HPC CosmoFlow: eval_error)
    log_scale: float = 1.0  # targets here are as logged: the catalog's times this (normalize.to_logged)

    def primary_target(self, batch_size: float | None) -> float:
        target = self.quality_target
        for from_batch_size, value in sorted(self.batch_size_targets):
            if batch_size is not None and batch_size >= from_batch_size:
                target = value
        return target

    reached = staticmethod(reaches_target)

    def describe(self, batch_size: float | None) -> str:
        wanted = [f"{self.log_metric or 'eval_accuracy'} {self.primary_target(batch_size)}"]
        wanted += [f"{name} {target}" for name, target, _ in self.extra_targets]
        return ", ".join(wanted)


@dataclass
class RunLog:
    """The facts of one log that scoring needs; everything else in the log is ignored."""

    run_starts: int = 0
    run_stops: int = 0
    start_ms: float | None = None
    stop_ms: float | None = None
    status: str | None = None
    init_start_ms: float | None = None
    init_stop_ms: float | None = None
    reached_target: bool = False  # some evaluation before run_stop reached every target
    last_quality: float | None = None  # primary metric of the last evaluation before run_stop
    last_reached_quality: float | None = None  # ... of the last one that reached every target
    last_epoch: float | None = None  # epoch_num of the last evaluation before run_stop (RCP)
    last_train_samples: float | None = None  # train_samples last logged before run_stop (RCP, BERT)
    last_eval_samples: float | None = None  # samples_count of the last evaluation before run_stop (RCP)
    passing_eval_samples: float | None = None  # samples_count of the first evaluation that met every target
    passing_eval_step: float | None = None  # ... and its step_num (RCP, Stable Diffusion)
    reached_open_target: bool = False  # some evaluation before run_stop reached the open division's target
    batch_size: float | None = None  # global_batch_size, last logged
    error: str | None = None  # first malformed record
    records: int = 0  # records of the log format read

    @property
    def minutes(self) -> float | None:
        if self.start_ms is None or self.stop_ms is None:
            return None
        return (self.stop_ms - self.start_ms) / 60000.0

    @property
    def init_minutes(self) -> float | None:
        if self.init_start_ms is None or self.init_stop_ms is None:
            return None
        return (self.init_stop_ms - self.init_start_ms) / 60000.0

    def achieved_quality(self, closed: bool) -> float | None:
        """The run's quality: its last evaluation before run_stop; in the closed division the
        last one that met the target (normally the same: a run stops when it gets there)."""
        return self.last_reached_quality if closed else self.last_quality

    def failure(self, closed: bool, targets: Targets) -> str | None:
        """Why the run does not count, or None when it does (the rules of the MLPerf Training scoring)."""
        if self.error:
            return self.error
        for key, count in (("run_start", self.run_starts), ("run_stop", self.run_stops)):
            if count == 0:
                return f"no {key}"
            if count > 1:
                return f"{key} logged {count} times"
        if self.status != "success":
            return f"run_stop status is {self.status or 'missing'}, not success"
        if self.minutes is None or not math.isfinite(self.minutes) or self.minutes <= 0:
            return "run_stop is not after run_start"
        init, limit = self.init_minutes, targets.init_limit_minutes[0 if closed else 1]
        if init is not None and init >= limit:
            return f"initialization took {init:.1f} minutes (limit {limit:g})"
        if closed and not self.reached_target:
            return f"quality target never reached before run_stop ({targets.describe(self.batch_size)})"
        if not closed and targets.open_target is not None and not self.reached_open_target:
            wanted = f"{targets.log_metric or 'eval_accuracy'} {targets.open_target}"
            return f"the open division's quality target never reached before run_stop ({wanted})"
        return None


def number(value) -> float | None:
    """A finite number, or None (strings, booleans, NaN and infinities are not measurements)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    result = float(value)
    return result if math.isfinite(result) else None


def _time(record: dict) -> float | None:
    return number(record.get("time_ms"))


# Keys that scoring reads; a format reader may skip every other record.
KEYS = frozenset(
    {
        "run_start",
        "run_stop",
        "init_start",
        "init_stop",
        "eval_accuracy",
        "eval_error",
        "global_batch_size",
        "train_samples",
    }
)


class RunReader:
    """Takes in a run's records one by one (in log order) and keeps the facts of `RunLog`."""

    def __init__(self, targets: Targets):
        self.targets = targets
        self.run = RunLog()
        # Metrics evaluated one per record (Stable Diffusion logs FID and CLIP apart, each with
        # metadata.metric and the step evaluated): gathered per step into one evaluation, as
        # MLPerf's compliance checker aggregates them.
        self._by_step: dict[object, dict[str, object]] = {}

    def record(self, record: dict, key: str) -> str | None:
        """Take in one record of a key in KEYS; a problem that fails the run, or None."""
        run = self.run
        if key == self.targets.eval_key:
            if run.run_stops == 0:
                self._evaluation(record)
        elif key == "run_start":
            run.run_starts += 1
            if run.start_ms is None:
                run.start_ms = _time(record)
                if run.start_ms is None:
                    return "run_start without a numeric time_ms"
        elif key == "run_stop":
            run.run_stops += 1
            if run.stop_ms is None:
                run.stop_ms = _time(record)
                metadata = record.get("metadata")
                status = metadata.get("status") if isinstance(metadata, dict) else None
                run.status = status if isinstance(status, str) else None
                if run.stop_ms is None:
                    return "run_stop without a numeric time_ms"
        elif key == "init_start":
            if run.init_start_ms is None:
                run.init_start_ms = _time(record)
        elif key == "init_stop":
            if run.init_stop_ms is None:
                run.init_stop_ms = _time(record)
        elif key == "global_batch_size":
            run.batch_size = number(record.get("value"))
        elif key == "train_samples":
            if run.run_stops == 0:
                run.last_train_samples = number(record.get("value"))
        return None

    def fail(self, problem: str) -> None:
        """Record a malformed record; the first one fails the run."""
        if self.run.error is None:
            self.run.error = problem

    def _evaluation(self, record: dict) -> None:
        targets, run = self.targets, self.run
        value = record.get("value")
        metadata = record.get("metadata")
        epoch = number(metadata.get("epoch_num")) if isinstance(metadata, dict) else None
        # The reference convergence check rounds epochs to three decimals.
        run.last_epoch = round(epoch, 3) if epoch is not None else None
        samples = number(metadata.get("samples_count")) if isinstance(metadata, dict) else None
        run.last_eval_samples = samples
        metric = metadata.get("metric") if isinstance(metadata, dict) else None
        gathered = targets.log_metric is not None and isinstance(metric, str) and not isinstance(value, dict)
        if gathered:
            step = next((metadata[k] for k in ("step_num", "samples_count", "epoch_num") if k in metadata), None)
            metrics = self._by_step.setdefault(step if isinstance(step, (int, float, str)) else None, {})
            metrics[metric] = value
            value = dict(metrics)
        if isinstance(value, dict):
            primary = number(value.get(targets.log_metric)) if targets.log_metric else None
        else:
            primary = number(value)
        if primary is None and gathered:
            return  # the step's primary metric is still to come
        run.last_quality = primary
        if primary is None:
            return
        if targets.open_target is not None and targets.reached(primary, targets.open_target, targets.direction):
            run.reached_open_target = True
        if targets.reached(primary, targets.primary_target(run.batch_size), targets.direction):
            extras = value if isinstance(value, dict) else {}
            if all(
                (extra := number(extras.get(name))) is not None and targets.reached(extra, target, direction)
                for name, target, direction in targets.extra_targets
            ):
                if not run.reached_target:
                    run.passing_eval_samples = samples
                    run.passing_eval_step = number(metadata.get("step_num")) if isinstance(metadata, dict) else None
                run.reached_target = True
                run.last_reached_quality = primary
