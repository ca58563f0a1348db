"""Energy to train from MLPerf Training power logs (v4.0 on: power/result_<i>/node_<n>.txt, sw_<n>.txt),
read in a streaming way and scored with the arithmetic of mlperf-logging 4.1.68's result_summarizer."""

from __future__ import annotations

import heapq
import re
from collections import deque
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
    """One switch log: the first interconnect_power_est and the conversion_eff logged before it.

    A switch whose power was measured (power_reading records, no estimate: Dell's v4.1 sw_0.txt)
    counts 0 W, as in the reference tool, which reads only interconnect_power_est."""

    watts: float
    conversion_eff: float
    switch_id: str | None  # the estimate's metadata `switch_id`, when logged
    estimated: bool = True  # False: measured readings only, which the reference tool does not count

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


# A power reading in the shape every logger here writes, matched without a JSON parse (a node
# log holds thousands): time, watts and metadata (`""` or an object without nested braces, read
# as JSON for the host of the first reading only). Any other record is parsed as JSON.
_READING_OR_RECORD = re.compile(
    re.escape(MARKER) + rb'(?:\{"namespace": ?"", ?"time_ms": ?(\d+(?:\.\d+)?), ?"event_type": ?"POINT_IN_TIME", ?'
    rb'"key": ?"power_reading", ?"value": ?(-?\d+(?:\.\d+)?), ?"metadata": ?(""|\{[^{}\n]*\})\}[ \t\r]*(?=\n|$)'
    rb"|([^\n]*))"
)


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
    marks: dict[str, tuple] = {}  # start/stop: (time, record number, where: its line when called)
    eff_key, eff, kind, host = None, 1.0, None, None
    # Readings waiting to be taken in (time, record number, watts): a queue in time order, and a
    # heap once one comes out of order.
    queue: deque[tuple[float, int, float]] = deque()
    heap: list[tuple[float, int, float]] | None = None
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

    def take_queued(count: int) -> None:
        """`take` the `count` oldest queued readings: written out, for the thousands of readings
        of a node log (same arithmetic, same order)."""
        nonlocal watt_ms, prev, last, readings, done_key
        if first is None:
            raise ValueError(f"more than {REORDER_RECORDS} power readings before power_measurement_start")
        for _ in range(count):
            old = queue.popleft()
            if old[:2] > first and (last_mark is None or old[:2] <= last_mark):
                if readings == 0:
                    prev = first[0]
                watt_ms += old[2] * (old[0] - prev)
                prev, readings, done_key = old[0], readings + 1, old[:2]
                if prev > last:
                    last = prev

    seq, host_read = 0, False
    first = last_mark = None  # the start and stop marks, (time, record number), once logged
    for block, lines_before in line_blocks(stream, MARKER):
        if block is None:
            raise ValueError(f"line {lines_before}: MLLOG line longer than the reader's limit")
        for index, (time_text, watts_text, metadata, other) in enumerate(_READING_OR_RECORD.findall(block)):
            if time_text:
                seq += 1
                key, time, where = "power_reading", float(time_text), None
                if not host_read:  # the first reading names the host, when the log says it at all
                    host = _metadata({"metadata": parse_record(metadata) if metadata != b'""' else ""}, "host")
                    host_read = True
            else:
                where = _Where(block, lines_before, index)
                try:
                    record = parse_record(other)
                except (ValueError, RecursionError):
                    record = None
                if type(record) is not dict:
                    raise ValueError(f"line {where()}: MLLOG line is not a JSON object")
                key = record.get("key")
                if type(key) is not str or key not in _NODE_KEYS:
                    continue
                seq += 1
                time = number(record.get("time_ms"))
                if time is None:
                    raise ValueError(f"line {where()}: {key} without a numeric time_ms")
            if key == "power_reading":
                if (first and (time, seq) <= first) or (last_mark and (time, seq) > last_mark):
                    continue  # outside the window whatever its place in time order
                if done_key is not None and (time, seq) < done_key:
                    where = where or _Where(block, lines_before, index)
                    raise ValueError(
                        f"line {where()}: power_reading more than {REORDER_RECORDS} records out of time order"
                    )
                item = (time, seq, float(watts_text) if time_text else _value(record, where, key))
                if heap is None and (not queue or item >= queue[-1]):
                    queue.append(item)
                    if len(queue) > REORDER_RECORDS:
                        take_queued(1)
                    continue
                if heap is None:  # the first reading out of time order: a heap from here on
                    heap = list(queue)
                    queue.clear()
                heapq.heappush(heap, item)
                if len(heap) > REORDER_RECORDS:
                    take(heapq.heappop(heap))
                if not time_text and not host_read:
                    host, host_read = _metadata(record, "host"), True
            elif key == "conversion_eff":
                value = _value(record, where, key)
                if eff_key is None or (time, seq) > eff_key:
                    eff_key, eff, kind = (time, seq), value, _metadata(record, "measurement_type")
            else:
                if key in marks:
                    raise ValueError(f"line {where()}: {key} logged twice (first on line {marks[key][2]()})")
                marks[key] = (time, seq, where)  # its line is worked out only for a message
                if key == "power_measurement_start":
                    first = (time, seq)
                else:
                    last_mark = (time, seq)
                    if done_key is not None and done_key > last_mark:
                        overshoot = marks[key][2]()  # readings already taken in are timed after this stop
    start, stop = marks.get("power_measurement_start"), marks.get("power_measurement_stop")
    if start is None:
        raise ValueError("no power_measurement_start")
    take_queued(len(queue))
    while heap:
        take(heapq.heappop(heap))
    if stop is not None and stop[0] <= start[0]:
        raise ValueError(
            f"power_measurement_stop (line {stop[2]()}, {stop[0]:.0f} ms) is not after "
            f"power_measurement_start (line {start[2]()}, {start[0]:.0f} ms)"
        )
    if overshoot is not None:
        raise ValueError(f"power readings timed after power_measurement_stop (line {overshoot}) are logged before it")
    if readings == 0:
        raise ValueError("no power_reading inside the measurement window")
    stop_ms = stop[0] if stop is not None else last
    if stop_ms <= start[0]:
        raise ValueError("no power_measurement_stop, and no power_reading after power_measurement_start")
    return NodePower(start[0], stop_ms, watt_ms, eff, readings, stop is not None, kind, host)


class _Where:
    """The line of the index-th record of a block, worked out only when asked (for an error)."""

    __slots__ = ("block", "lines_before", "index")

    def __init__(self, block: bytes, lines_before: int, index: int):
        self.block, self.lines_before, self.index = block, lines_before, index

    def __call__(self) -> int:
        for position, match in enumerate(RECORD.finditer(self.block)):
            if position == self.index:
                return _line(self.block, match.start(), self.lines_before)
        return self.lines_before + 1  # pragma: no cover - the index comes from the same block


def read_switch_power(stream: BinaryIO) -> SwitchPower:
    """A switch's power log, read in chunks; ValueError (one line) when it has neither an estimate
    nor readings. Readings without an estimate give 0 W (`estimated` False), as the reference
    tool's `_compute_power_sw` counts only interconnect_power_est."""
    eff, watts, switch_id, readings = 1.0, None, None, 0
    for where, record in _records(stream):
        key = record.get("key")
        if watts is not None:
            continue  # the reference tool stops at the first estimate; the rest is only checked
        if key == "conversion_eff":
            eff = _value(record, where, key)
        elif key == "interconnect_power_est":
            watts, switch_id = _value(record, where, key), _metadata(record, "switch_id")
        elif key == "power_reading":
            readings += 1
    if watts is None and readings:
        return SwitchPower(0.0, eff, None, estimated=False)
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
