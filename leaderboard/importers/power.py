"""Energy to train from MLPerf Training power logs (v4.0 on: power/result_<i>/node_<n>.txt, sw_<n>.txt),
read in a streaming way and scored with the arithmetic of mlperf-logging 4.1.68's result_summarizer."""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from functools import partial
from typing import BinaryIO

from leaderboard.importers.chunks import line_blocks
from leaderboard.importers.mllog import MARKER, RECORD, parse_record
from leaderboard.importers.runlog import number

REORDER_RECORDS = 1024  # readings logged this many records late still land in time order
JOULES_PER_KWH = 3.6e6
_NODE_KEYS = frozenset({"power_measurement_start", "power_measurement_stop", "power_reading", "conversion_eff"})


@dataclass(frozen=True)
class NodePower:
    """One node log, as the reference tool reads it."""

    start_ms: float  # power_measurement_start
    stop_ms: float  # power_measurement_stop, or the last reading's time when the log has none
    watt_ms: float  # the sum of reading x (its time - the previous one's) over the window, in W x ms
    conversion_eff: float  # the last conversion_eff in time order; 1.0 when the log has none
    readings: int  # power_reading events inside the window
    stop_logged: bool
    measurement_type: str | None  # "AC" or "DC" when the conversion_eff's metadata says so
    host: str | None  # the readings' metadata `host`, when logged

    @property
    def mean_watts(self) -> float:
        return self.watt_ms / (self.stop_ms - self.start_ms)

    def joules(self, time_to_train_ms: float) -> float:
        """The node's energy for a run of that length, with the reference tool's arithmetic."""
        return self.conversion_eff * self.watt_ms * time_to_train_ms / (self.stop_ms - self.start_ms) / 1000


@dataclass(frozen=True)
class SwitchPower:
    """One switch log: the first interconnect_power_est and the conversion_eff logged before it."""

    watts: float
    conversion_eff: float
    switch_id: str | None  # the estimate's metadata `switch_id`, when logged

    def joules(self, time_to_train_ms: float) -> float:
        return self.conversion_eff * self.watts * time_to_train_ms / 1000


def _line(block: bytes, position: int, lines_before: int) -> int:
    return lines_before + block.count(b"\n", 0, position) + 1


def _records(stream: BinaryIO):
    """(where, record) for every MLLOG record of the stream, in log order; where() is its line
    number, counted only when asked for (an error)."""
    for block, lines_before in line_blocks(stream, MARKER):
        if block is None:
            raise ValueError(f"line {lines_before}: MLLOG line longer than the reader's limit")
        for match in RECORD.finditer(block):
            try:
                record = parse_record(match.group(1))
            except (ValueError, RecursionError):
                record = None
            if type(record) is not dict:
                raise ValueError(f"line {_line(block, match.start(), lines_before)}: MLLOG line is not a JSON object")
            yield partial(_line, block, match.start(), lines_before), record


def _value(record: dict, where, what: str) -> float:
    value = number(record.get("value"))
    if value is None:
        raise ValueError(f"line {where()}: {what} value {str(record.get('value'))[:40]!r} is not a number")
    return value


def _metadata(record: dict, name: str) -> str | None:
    metadata = record.get("metadata")
    value = metadata.get(name) if isinstance(metadata, dict) else None
    return value if isinstance(value, str) else None


def read_node_power(stream: BinaryIO) -> NodePower:
    """A node's power log, read in chunks with memory flat in its size.

    As the reference tool does, the records are taken in time order (ties in log order): the
    readings after power_measurement_start and before power_measurement_stop are integrated as
    `reading x (its time - the previous reading's time, or the start's)`, and the last
    conversion_eff applies. A small reordering buffer puts readings logged a little out of time
    order in place. ValueError, with a one-line reason, where the reference tool fails or scores
    nonsense: no start, a stop not after the start (it divides by zero), no reading in the
    window, a start or stop logged twice, a reading out of order beyond the buffer, a malformed
    record."""
    marks: dict[str, tuple[float, int, int]] = {}  # start/stop: (time, record number, line)
    eff_key, eff, kind, host = None, 1.0, None, None
    pending: list[tuple[float, int, float]] = []  # readings not yet in time order: (time, record number, watts)
    done_key = None  # (time, record number) of the last reading taken in
    watt_ms, prev, last, readings, overshoot = 0.0, 0.0, 0.0, 0, None

    def take(item: tuple[float, int, float]) -> None:
        nonlocal watt_ms, prev, last, readings, done_key
        time, seq, watts = item
        start = marks.get("power_measurement_start")
        if start is None:
            raise ValueError(f"more than {REORDER_RECORDS} power readings before power_measurement_start")
        stop = marks.get("power_measurement_stop")
        if (time, seq) <= start[:2] or (stop is not None and (time, seq) > stop[:2]):
            return  # outside the window, in time order
        if readings == 0:
            prev = start[0]
        watt_ms += watts * (time - prev)
        prev, last, readings, done_key = time, max(last, time), readings + 1, (time, seq)

    seq = 0
    for where, record in _records(stream):
        key = record.get("key")
        if type(key) is not str or key not in _NODE_KEYS:
            continue
        seq += 1
        time = number(record.get("time_ms"))
        if time is None:
            raise ValueError(f"line {where()}: {key} without a numeric time_ms")
        if key == "power_reading":
            first, last_mark = marks.get("power_measurement_start"), marks.get("power_measurement_stop")
            if (first and (time, seq) <= first[:2]) or (last_mark and (time, seq) > last_mark[:2]):
                continue  # outside the window whatever its place in time order
            if done_key is not None and (time, seq) < done_key:
                raise ValueError(f"line {where()}: power_reading more than {REORDER_RECORDS} records out of time order")
            heapq.heappush(pending, (time, seq, _value(record, where, key)))
            host = host or _metadata(record, "host")
            if len(pending) > REORDER_RECORDS:
                take(heapq.heappop(pending))
        elif key == "conversion_eff":
            value = _value(record, where, key)
            if eff_key is None or (time, seq) > eff_key:
                eff_key, eff, kind = (time, seq), value, _metadata(record, "measurement_type")
        else:
            if key in marks:
                raise ValueError(f"line {where()}: {key} logged twice (first on line {marks[key][2]})")
            marks[key] = (time, seq, where())
            if key == "power_measurement_stop" and done_key is not None and done_key > (time, seq):
                overshoot = marks[key][2]  # readings already taken in are timed after this stop
    start, stop = marks.get("power_measurement_start"), marks.get("power_measurement_stop")
    if start is None:
        raise ValueError("no power_measurement_start")
    while pending:
        take(heapq.heappop(pending))
    if stop is not None and stop[0] <= start[0]:
        raise ValueError(
            f"power_measurement_stop (line {stop[2]}, {stop[0]:.0f} ms) is not after "
            f"power_measurement_start (line {start[2]}, {start[0]:.0f} ms)"
        )
    if overshoot is not None:
        raise ValueError(f"power readings timed after power_measurement_stop (line {overshoot}) are logged before it")
    if readings == 0:
        raise ValueError("no power_reading inside the measurement window")
    stop_ms = stop[0] if stop is not None else last
    if stop_ms <= start[0]:
        raise ValueError("no power_measurement_stop, and no power_reading after power_measurement_start")
    return NodePower(start[0], stop_ms, watt_ms, eff, readings, stop is not None, kind, host)


def read_switch_power(stream: BinaryIO) -> SwitchPower:
    """A switch's power log, read in chunks; ValueError (one line) when it has no estimate."""
    eff, watts, switch_id = 1.0, None, None
    for where, record in _records(stream):
        key = record.get("key")
        if watts is not None:
            continue  # the reference tool stops at the first estimate; the rest is only checked
        if key == "conversion_eff":
            eff = _value(record, where, key)
        elif key == "interconnect_power_est":
            watts, switch_id = _value(record, where, key), _metadata(record, "switch_id")
    if watts is None:
        raise ValueError("no interconnect_power_est")
    return SwitchPower(watts, eff, switch_id)


def run_energy_joules(nodes: list[NodePower], switches: list[SwitchPower], time_to_train_ms: float) -> float:
    """One run's energy: its nodes' energies scaled to the time to train, plus its switches'."""
    if not nodes:
        raise ValueError("no node power log")
    ttt = number(time_to_train_ms)
    if ttt is None or ttt <= 0:
        raise ValueError(f"time to train {time_to_train_ms!r} ms is not a positive number")
    total = 0.0
    for node in nodes:
        total += node.joules(ttt)
    for switch in switches:
        total += switch.joules(ttt)
    return total


def result_energy(
    run_minutes: list[float | None], run_energy: list[float | None], drop_fastest: int = 1, drop_slowest: int = 1
) -> float | None:
    """The result's energy: the mean energy of the runs that the olympic time score keeps.

    Runs are ordered by time to train (a failed run, None minutes, counts as slowest; ties keep
    list order) and the drop_fastest first and drop_slowest last are left out, as
    `_index_olympic_average` does. None when a failed run would be kept (too many failures),
    when no run is kept, or when a successful run has no energy (the reference tool requires
    every scored run's power logs)."""
    if len(run_minutes) != len(run_energy):
        raise ValueError(f"{len(run_minutes)} run times but {len(run_energy)} run energies")
    if any(m is not None and e is None for m, e in zip(run_minutes, run_energy, strict=True)):
        return None
    order = sorted(range(len(run_minutes)), key=lambda i: (run_minutes[i] is None, run_minutes[i] or 0.0))
    kept = order[drop_fastest : len(order) - drop_slowest]
    if not kept or any(run_minutes[i] is None for i in kept):
        return None
    return sum(run_energy[i] for i in kept) / len(kept)


def kwh(joules: float) -> float:
    return joules / JOULES_PER_KWH
