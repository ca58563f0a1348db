"""Reading one raw MLPerf log (result_<i>.txt) into the few facts that score a run.

Streams the log in fixed-size chunks (memory does not grow with its size), works on bytes,
and parses only the JSON after each `:::MLLOG ` marker, wherever the marker sits in the line.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import BinaryIO

try:  # orjson parses the million MLLOG lines of a round several times faster than json
    from orjson import JSONDecodeError as _FastError
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover
    _fast_loads, _FastError = json.loads, ValueError

MARKER = b":::MLLOG "
CHUNK_BYTES = 1 << 20
MAX_LINE_BYTES = 4 << 20  # a longer line is not an MLLOG record; its bytes are not kept
INIT_LIMIT_MINUTES = 30.0


@dataclass(frozen=True)
class Targets:
    """What a run must reach: the primary metric (under `log_metric` when the logged value
    is an object) and, for Mask R-CNN, further metrics of the same object."""

    quality_target: float
    direction: str  # higher | lower
    log_metric: str | None = None
    extra_targets: tuple[tuple[str, float], ...] = ()

    def reached(self, value: float, target: float) -> bool:
        return value >= target if self.direction == "higher" else value <= target


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
    reached_target: bool = False  # some eval_accuracy before run_stop reached every target
    last_quality: float | None = None  # primary metric of the last eval_accuracy before run_stop
    last_reached_quality: float | None = None  # ... of the last one that reached every target
    last_epoch: float | None = None  # epoch_num of the last eval_accuracy before run_stop (RCP)
    last_train_samples: float | None = None  # train_samples last logged before run_stop (RCP, BERT)
    batch_size: float | None = None  # global_batch_size, last logged
    error: str | None = None  # first malformed MLLOG line
    mllog_lines: int = 0

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
        init = self.init_minutes
        if init is not None and init >= INIT_LIMIT_MINUTES:
            return f"initialization took {init:.1f} minutes (limit {INIT_LIMIT_MINUTES:.0f})"
        if closed and not self.reached_target:
            wanted = [f"{targets.log_metric or 'eval_accuracy'} {targets.quality_target}"]
            wanted += [f"{name} {target}" for name, target in targets.extra_targets]
            return f"quality target never reached before run_stop ({', '.join(wanted)})"
        return None


def _number(value) -> float | None:
    """A finite number, or None (strings, booleans, NaN and infinities are not measurements)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _time(record: dict) -> float | None:
    return _number(record.get("time_ms"))


class _Reader:
    def __init__(self, targets: Targets):
        self.targets = targets
        self.run = RunLog()

    def record(self, record: dict, key: str) -> str | None:
        """Take in one record of a key scoring reads; a problem that fails the run, or None."""
        run = self.run
        if key == "eval_accuracy":
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
            run.batch_size = _number(record.get("value"))
        elif key == "train_samples":
            if run.run_stops == 0:
                run.last_train_samples = _number(record.get("value"))
        return None

    def _evaluation(self, record: dict) -> None:
        targets, run = self.targets, self.run
        value = record.get("value")
        metadata = record.get("metadata")
        epoch = _number(metadata.get("epoch_num")) if isinstance(metadata, dict) else None
        # The reference convergence check rounds epochs to three decimals.
        run.last_epoch = round(epoch, 3) if epoch is not None else None
        if isinstance(value, dict):
            primary = _number(value.get(targets.log_metric)) if targets.log_metric else None
        else:
            primary = _number(value)
        run.last_quality = primary
        if primary is None:
            return
        if targets.reached(primary, targets.quality_target):
            extras = value if isinstance(value, dict) else {}
            if all(
                (extra := _number(extras.get(name))) is not None and targets.reached(extra, target)
                for name, target in targets.extra_targets
            ):
                run.reached_target = True
                run.last_reached_quality = primary


def _parse(payload: bytes) -> object:
    try:
        return _fast_loads(payload)
    except _FastError:
        # Not strict JSON for orjson: invalid UTF-8 (replaced) or NaN, which Python's json reads.
        return json.loads(payload.decode("utf-8", errors="replace"))


def read_run(stream: BinaryIO, targets: Targets) -> RunLog:
    """Score-relevant facts of one log, read from a binary stream in chunks."""
    reader = _Reader(targets)
    run = reader.run
    lines_before = 0  # complete lines before the current block
    carry = b""
    overlong = False  # inside a line longer than MAX_LINE_BYTES: its bytes are dropped
    while True:
        chunk = stream.read(CHUNK_BYTES)
        if not chunk:
            break
        if overlong:
            newline = chunk.find(b"\n")
            if newline < 0:
                continue
            chunk, overlong, lines_before = chunk[newline + 1 :], False, lines_before + 1
        block = carry + chunk
        end = block.rfind(b"\n") + 1
        carry = block[end:]
        _scan(reader, block[:end], lines_before)
        lines_before += block.count(b"\n", 0, end)
        if len(carry) > MAX_LINE_BYTES:
            if MARKER in carry and run.error is None:
                run.error = f"line {lines_before + 1}: MLLOG line longer than {MAX_LINE_BYTES:,} bytes"
            carry, overlong = b"", True
    if carry:
        _scan(reader, carry, lines_before)
    return run


# Keys that scoring reads; every other MLLOG record is parsed (a malformed one fails the run)
# and dropped.
_KEYS = frozenset(
    {"run_start", "run_stop", "init_start", "init_stop", "eval_accuracy", "global_batch_size", "train_samples"}
)
_RECORD = re.compile(re.escape(MARKER) + rb"([^\n]*)")


def _scan(reader: _Reader, block: bytes, lines_before: int) -> None:
    """Every MLLOG record in a block of whole lines. The regular expression finds the markers in
    C, so the many lines without one cost nothing in Python."""
    run = reader.run
    for match in _RECORD.finditer(block):
        run.mllog_lines += 1
        try:
            record = _parse(match.group(1))
        except (ValueError, RecursionError):
            record = None
        if type(record) is not dict:
            problem = "MLLOG line is not a JSON object"
        else:
            key = record.get("key")
            if key not in _KEYS:
                continue
            problem = reader.record(record, key)
            if problem is None:
                continue
        if run.error is None:
            line_number = lines_before + block.count(b"\n", 0, match.start()) + 1
            run.error = f"line {line_number}: {problem}"
