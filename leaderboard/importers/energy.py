"""Energy to train from a result's power logs: each log read, and the runs' energy put together
as MLPerf Power's metric (power.py has the arithmetic).
"""

from __future__ import annotations

import gzip
import io
import zlib
from dataclasses import dataclass
from typing import Any, BinaryIO

from leaderboard.catalog import RoundRules
from leaderboard.importers import power
from leaderboard.importers.runlog import RunLog
from leaderboard.importers.scoring import Score

ENERGY_DECIMALS = 6  # kWh: a millijoule is 2.8e-10 kWh; readings are watts


@dataclass(frozen=True)
class PowerLog:
    kind: str  # node | switch
    name: str
    reading: Any  # power.NodePower | power.SwitchPower, None when unreadable
    problem: str | None


def hold(stream: BinaryIO) -> bytes:
    """A power log kept, compressed (a tenth of its size), until it is known whether its run's log
    is there: an archive is read once, in its own order, and lists power/ before result_<i>.txt."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip format, fast: power logs repeat themselves
    pieces = []
    while chunk := stream.read(1 << 20):
        pieces.append(packer.compress(chunk))
    pieces.append(packer.flush())
    return b"".join(pieces)


def read_held_power_log(kind: str, name: str, held: bytes) -> PowerLog:
    """A power log kept by `hold`, read now."""
    with gzip.GzipFile(fileobj=io.BytesIO(held)) as stream:
        return read_power_log(kind, name, stream)


def read_power_log(kind: str, name: str, stream: BinaryIO) -> PowerLog:
    """One power log read, or why it cannot be, with its file name."""
    try:
        reading = power.read_node_power(stream) if kind == "node" else power.read_switch_power(stream)
    except ValueError as error:
        return PowerLog(kind, name, None, str(error))
    return PowerLog(kind, name, reading, None)


def result_energy(
    runs: list[RunLog], score: Score, power_by_number: dict[str, list[PowerLog]], numbers: list[int], rules: RoundRules
) -> tuple[dict | None, str | None]:
    """The result's energy (submission format's result.energy), or None and why it has none."""
    if not power_by_number:
        return None, None
    runs_joules: list[float | None] = []
    scopes, measurements = set(), set()
    for index, number in enumerate(numbers):
        if score.runs_minutes[index] is None:
            runs_joules.append(None)
            continue
        logs = power_by_number.get(str(number), [])
        broken = next((log for log in logs if log.problem), None)
        if broken:
            return None, f"power/result_{number}/{broken.name}: {broken.problem}"
        nodes = [log.reading for log in logs if log.kind == "node"]
        switches = [log.reading for log in logs if log.kind == "switch"]
        if not nodes:
            return None, f"run {number} has no node power log"
        run = runs[index]
        runs_joules.append(power.run_energy_joules(nodes, switches, run.stop_ms - run.start_ms))
        scopes.add("nodes and interconnect" if any(s.estimated for s in switches) else "nodes")
        measurements |= {node.measurement_type for node in nodes}
    joules = power.result_energy(score.runs_minutes, runs_joules, rules.drop_fastest, rules.drop_slowest)
    if joules is None or len(scopes) != 1:
        return None, "the runs' power logs do not give one energy to train"
    energy = {"kwh": round(power.kwh(joules), ENERGY_DECIMALS), "scope": scopes.pop()}
    if len(measurements) == 1 and measurements <= {"AC", "DC"}:
        energy["measurement"] = measurements.pop()
    energy["runs_kwh"] = [None if j is None else round(power.kwh(j), ENERGY_DECIMALS) for j in runs_joules]
    return energy, None
