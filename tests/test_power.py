"""Energy from MLPerf Training power logs (leaderboard.importers.power): the readers and the
arithmetic on small logs with the expected numbers written out, and the real v4.0, v4.1 and v5.0
power logs against what mlperf-logging 4.1.68 computes for them."""

from __future__ import annotations

import io
import json
import math
import re
import tarfile
import tracemalloc

import pytest

from leaderboard.importers import power
from leaderboard.importers.mllog import read_run
from leaderboard.importers.power import (
    NodePower,
    SwitchPower,
    kwh,
    read_node_power,
    read_switch_power,
    result_energy,
    run_energy_joules,
)
from leaderboard.importers.runlog import Targets


def rec(key: str, at, value=None, **metadata) -> str:
    record = {"namespace": "", "time_ms": at, "event_type": "POINT_IN_TIME", "key": key, "value": value}
    record["metadata"] = metadata or ""
    return ":::MLLOG " + json.dumps(record)


def start(at) -> str:
    return rec("power_measurement_start", at)


def stop(at) -> str:
    return rec("power_measurement_stop", at)


def reading(at, watts, **metadata) -> str:
    return rec("power_reading", at, watts, **metadata)


def log(*lines: str) -> io.BytesIO:
    return io.BytesIO(("\n".join(lines) + "\n").encode())


# ---- node logs ---------------------------------------------------------------------------

# (case, log lines, expected: start_ms, stop_ms, watt_ms, conversion_eff, readings, stop_logged)
NODE_CASES = [
    (
        "three readings",
        [start(1000), reading(2000, 100), reading(3000, 200), reading(4000, 300), stop(4000)],
        (1000, 4000, 600_000, 1.0, 3, True),  # 100 x 1000 + 200 x 1000 + 300 x 1000
    ),
    (
        "readings outside the window are left out",
        [reading(500, 999), start(1000), reading(2000, 100), stop(3000), reading(5000, 999)],
        (1000, 3000, 100_000, 1.0, 1, True),
    ),
    (
        "readings out of time order are integrated in time order",
        [start(0), reading(2000, 20), reading(1000, 10), reading(3000, 30), stop(3000)],
        (0, 3000, 60_000, 1.0, 3, True),  # 10 x 1000 + 20 x 1000 + 30 x 1000 (log order: 90,000)
    ),
    (
        "a reading at the stop's time counts only when logged before the stop",
        [start(0), reading(1000, 10), reading(2000, 20), stop(2000), reading(2000, 99)],
        (0, 2000, 30_000, 1.0, 2, True),
    ),
    (
        "a reading logged before the start but timed after it counts",
        [reading(1000, 10), start(0), reading(2000, 20), stop(2000)],
        (0, 2000, 30_000, 1.0, 2, True),
    ),
    (
        "no stop: the last reading ends the window",
        [start(0), reading(1000, 10), reading(3000, 20)],
        (0, 3000, 50_000, 1.0, 2, False),  # 10 x 1000 + 20 x 2000
    ),
    (
        "the last conversion_eff in time order applies",
        [
            start(0),
            rec("conversion_eff", 5000, 0.9, measurement_type="AC"),
            rec("conversion_eff", 0, 0.8, measurement_type="DC"),
            reading(1000, 10.5),
            stop(1000),
        ],
        (0, 1000, 10_500, 0.9, 1, True),
    ),
    (
        "other lines and other keys are ignored; the marker may sit inside a line",
        [
            "Beginning trial 1",
            "1: " + start(0),
            rec("cache_clear", 10, True),
            reading(1000, 7) + "   ",
            stop(1000),
        ],
        (0, 1000, 7_000, 1.0, 1, True),
    ),
]


@pytest.mark.parametrize("case, lines, expected", NODE_CASES, ids=[c[0] for c in NODE_CASES])
def test_node_log(case, lines, expected):
    node = read_node_power(log(*lines))
    got = (node.start_ms, node.stop_ms, node.watt_ms, node.conversion_eff, node.readings, node.stop_logged)
    assert got == expected


def test_node_metadata_and_energy():
    node = read_node_power(
        log(
            start(0),
            rec("conversion_eff", 0, 0.94, measurement_type="AC"),
            reading(1000, 3000.0, host="node_0"),
            reading(2000, 1000.0, host="node_0"),
            stop(2000),
        )
    )
    assert (node.measurement_type, node.host) == ("AC", "node_0")
    assert node.mean_watts == 2000.0
    # 0.94 x 4,000,000 W ms x 60,000 ms / 2,000 ms / 1000 = 112,800 J (2,000 W for a minute, x 0.94)
    assert node.joules(60_000) == pytest.approx(112_800, rel=1e-15)


NODE_ERRORS = [
    ("empty", [], "no power_measurement_start"),
    ("no start", [reading(1000, 10), stop(2000)], "no power_measurement_start"),
    (
        "stop logged with the start's time (as SMC's v4.0 logs)",
        [start(1000), reading(2000, 10), reading(3000, 10), stop(1000)],
        "power_measurement_stop (line 4, 1000 ms) is not after power_measurement_start (line 1, 1000 ms)",
    ),
    ("stop before start", [start(1000), reading(1500, 10), stop(500)], "is not after power_measurement_start"),
    ("start twice", [start(0), start(10), reading(20, 1), stop(30)], "line 2: power_measurement_start logged twice"),
    ("stop twice", [start(0), reading(20, 1), stop(30), stop(40)], "line 4: power_measurement_stop logged twice"),
    ("no reading in the window", [start(0), stop(1000), reading(2000, 5)], "no power_reading inside the measurement"),
    (
        "no stop, readings only at the start",
        [start(0), reading(0, 5)],
        "no power_reading after power_measurement_start",
    ),
    ("reading not a number", [start(0), reading(1000, "12W"), stop(1000)], "line 2: power_reading value '12W' is not"),
    ("reading a boolean", [start(0), reading(1000, True), stop(1000)], "line 2: power_reading value 'True' is not"),
    (
        "reading without time",
        [start(0), reading(None, 5), stop(1000)],
        "line 2: power_reading without a numeric time_ms",
    ),
    (
        "time not a number",
        [start("soon"), reading(5, 5), stop(1000)],
        "line 1: power_measurement_start without a numeric",
    ),
    ("eff not a number", [start(0), rec("conversion_eff", 0, "high"), stop(9)], "line 2: conversion_eff value 'high'"),
    ("not JSON", [start(0), ":::MLLOG {nope", stop(9)], "line 2: MLLOG line is not a JSON object"),
    ("JSON but no object", [start(0), ":::MLLOG [1, 2]", stop(9)], "line 2: MLLOG line is not a JSON object"),
]


@pytest.mark.parametrize("case, lines, message", NODE_ERRORS, ids=[c[0] for c in NODE_ERRORS])
def test_node_log_errors(case, lines, message):
    with pytest.raises(ValueError) as error:
        read_node_power(log(*lines))
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_reordering_is_bounded(monkeypatch):
    """Readings are reordered within REORDER_RECORDS; beyond that the reader refuses the log
    rather than integrate out of time order, and readings already integrated that a later-logged
    stop puts outside the window make it refuse too."""
    late = [start(0), reading(1000, 1), reading(2000, 1), reading(3000, 1), reading(4000, 1), reading(500, 1)]
    assert read_node_power(log(*late, stop(4000))).watt_ms == 4000  # 1 x 500 + 1 x 500 + 3 x (1 x 1000)
    early_stop = [start(0), reading(1000, 2), reading(2000, 2), reading(3000, 2), reading(4000, 2), stop(1500)]
    assert read_node_power(log(*early_stop)).watt_ms == 2000  # the reading at 1000 only
    monkeypatch.setattr(power, "REORDER_RECORDS", 2)
    with pytest.raises(ValueError, match=r"^line 6: power_reading more than 2 records out of time order$"):
        read_node_power(log(*late, stop(4000)))
    with pytest.raises(ValueError, match=r"^power readings timed after power_measurement_stop \(line 6\) are logged"):
        read_node_power(log(*early_stop))


def test_only_value_errors_escape():
    """Every prefix of a valid log, and some garbage, is read or refused with a ValueError."""
    text = "\n".join([start(0), rec("conversion_eff", 0, 0.9), reading(1000, 5), reading(2000, 6), stop(2000)]).encode()
    garbage = [b'\xff\xfe:::MLLOG {"key": 1}\n', b":::MLLOG " + b"[" * 100_000, b':::MLLOG {"key": []}', b"\x00" * 50]
    for data in [text[:cut] for cut in range(len(text) + 1)] + garbage:
        for reader in (read_node_power, read_switch_power):
            try:
                reader(io.BytesIO(data))
            except ValueError as error:
                assert "\n" not in str(error)


class GeneratedLog(io.RawIOBase):
    """A node log of `count` readings, made as it is read (never whole in memory)."""

    def __init__(self, count: int):
        self.lines = (line.encode() + b"\n" for line in self._lines(count))
        self.buffer = b""

    @staticmethod
    def _lines(count):
        yield start(0)
        template = (
            reading(0, 0, host="node_0").replace('"time_ms": 0', '"time_ms": %d').replace('"value": 0', '"value": %d')
        )
        for i in range(1, count + 1):
            yield template % (i * 1000, 1000 + i % 7)
        yield stop(count * 1000)

    def readable(self):
        return True

    def read(self, size=-1):
        parts, length = [self.buffer], len(self.buffer)
        for line in self.lines:
            parts.append(line)
            length += len(line)
            if 0 <= size <= length:
                break
        data = b"".join(parts)
        if size < 0:
            size = len(data)
        self.buffer = data[size:]
        return data[:size]


def _peak_bytes(count: int) -> tuple[NodePower, int]:
    tracemalloc.start()
    try:
        node = read_node_power(GeneratedLog(count))
        return node, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_stays_flat():
    """Three times the log (4.5 MB and 13.5 MB), the same peak memory: chunks, not the whole log."""
    small, small_peak = _peak_bytes(30_000)
    node, peak = _peak_bytes(90_000)
    assert small.readings == 30_000 and node.readings == 90_000
    assert node.watt_ms == sum((1000 + i % 7) * 1000 for i in range(1, 90_001))
    assert peak < small_peak + (256 << 10), f"peak {peak:,} bytes for 90,000 readings, {small_peak:,} for 30,000"
    assert peak < 8 << 20


# ---- switch logs -------------------------------------------------------------------------

SWITCH_CASES = [
    ("an estimate", [rec("interconnect_power_est", 0, 59570, switch_id="sw_01")], (59570, 1.0, "sw_01")),
    (
        "the conversion_eff logged before the first estimate applies, in log order",
        [
            rec("conversion_eff", 900, 0.5),
            rec("conversion_eff", 100, 0.8),
            rec("interconnect_power_est", 0, 1000.5),
            rec("conversion_eff", 0, 0.1),
            rec("interconnect_power_est", 0, 7),
        ],
        (1000.5, 0.8, None),
    ),
]


@pytest.mark.parametrize("case, lines, expected", SWITCH_CASES, ids=[c[0] for c in SWITCH_CASES])
def test_switch_log(case, lines, expected):
    switch = read_switch_power(log(*lines))
    assert (switch.watts, switch.conversion_eff, switch.switch_id) == expected
    assert switch.estimated


def test_a_measured_switch_counts_nothing_as_in_the_reference_tool():
    """Readings and no estimate (Dell's v4.1 sw_0.txt): 0 W, marked as not estimated, so the
    result's scope stays `nodes`; `_compute_power_sw` reads only interconnect_power_est."""
    switch = read_switch_power(log(start(0), rec("conversion_eff", 0, 0.96), reading(1000, 686), stop(2000)))
    assert (switch.watts, switch.conversion_eff, switch.estimated) == (0.0, 0.96, False)
    assert run_energy_joules([NODE_1KW], [switch], 1000) == NODE_1KW.joules(1000)


@pytest.mark.parametrize(
    "lines, message",
    [
        ([], "no interconnect_power_est"),
        ([rec("conversion_eff", 0, 0.9)], "no interconnect_power_est"),
        ([rec("interconnect_power_est", 0, "lots")], "line 1: interconnect_power_est value 'lots' is not a number"),
        ([rec("interconnect_power_est", 0, 5), ":::MLLOG {"], "line 2: MLLOG line is not a JSON object"),
    ],
)
def test_switch_log_errors(lines, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        read_switch_power(log(*lines))


# ---- one run, one result -----------------------------------------------------------------

NODE_2KW = NodePower(0, 2000, 4_000_000, 0.5, 2, True, None, None)  # 2,000 W on average, x 0.5
NODE_1KW = NodePower(5000, 6000, 1_000_000, 1.0, 1, True, None, None)  # 1,000 W
SWITCH_100W = SwitchPower(100, 1.0, "sw_0")
SWITCH_300W_HALF = SwitchPower(300, 0.5, None)

RUN_CASES = [
    ([NODE_2KW], [], 1000, 1000),  # 0.5 x 2,000 W x 1 s
    ([NODE_2KW, NODE_1KW], [], 60_000, 120_000),  # (1,000 + 1,000) W x 60 s
    ([NODE_2KW], [SWITCH_100W], 1000, 1100),
    ([NODE_1KW], [SWITCH_100W, SWITCH_300W_HALF], 2000, 2500),  # (1,000 + 100 + 150) W x 2 s
]


@pytest.mark.parametrize("nodes, switches, ttt, joules", RUN_CASES)
def test_run_energy(nodes, switches, ttt, joules):
    assert run_energy_joules(nodes, switches, ttt) == pytest.approx(joules, rel=1e-15)


@pytest.mark.parametrize(
    "nodes, ttt, message",
    [
        ([], 1000, "no node power log"),
        ([NODE_1KW], 0, "time to train 0 ms is not a positive number"),
        ([NODE_1KW], -5, "is not a positive number"),
        ([NODE_1KW], math.nan, "is not a positive number"),
        ([NODE_1KW], None, "is not a positive number"),
    ],
)
def test_run_energy_errors(nodes, ttt, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        run_energy_joules(nodes, [], ttt)


# (case, minutes per run, energy per run, drop fastest, drop slowest, expected)
RESULT_CASES = [
    ("olympic mean of five", [3, 1, 2, 5, 4], [30, 10, 20, 50, 40], 1, 1, 30.0),
    ("ordered by time, not by energy", [1, 2, 3, 4, 5], [100, 1, 2, 3, 0], 1, 1, 2.0),
    ("a failed run counts as slowest", [1, None, 3, 2, 4], [10, 99, 30, 20, 40], 1, 1, 30.0),
    ("a failed run needs no energy", [1, None, 3, 2, 4], [10, None, 30, 20, 40], 1, 1, 30.0),
    ("two failed runs are too many for one drop", [1, None, 3, None, 4], [1, 2, 3, 4, 5], 1, 1, None),
    ("unet3d drops four each side", list(range(10, 0, -1)), [float(m) for m in range(10, 0, -1)], 4, 4, 5.5),
    ("ties keep list order", [2, 1, 2], [5, 0, 7], 1, 1, 5.0),
    ("a scored run without energy", [1, 2, 3], [1, None, 3], 1, 1, None),
    ("nothing left", [1, 2], [1, 2], 1, 1, None),
    ("no drops", [2, 1], [4, 2], 0, 0, 3.0),
]


@pytest.mark.parametrize(
    "case, minutes, energy, fastest, slowest, expected", RESULT_CASES, ids=[c[0] for c in RESULT_CASES]
)
def test_result_energy(case, minutes, energy, fastest, slowest, expected):
    assert result_energy(minutes, energy, fastest, slowest) == expected


def test_result_energy_needs_one_energy_per_run():
    with pytest.raises(ValueError, match="3 run times but 2 run energies"):
        result_energy([1, 2, 3], [1, 2])


def test_kwh():
    assert kwh(3_600_000) == 1.0
    assert kwh(1949215.9387540054) == pytest.approx(0.5414488718761126, rel=1e-15)


# ---- the real power logs against the reference tool ---------------------------------------
#
# Reference values: mlperf-logging 4.1.68 (pip install mlperf-logging==4.1.68 into a venv under
# /tmp), run on the rounds unpacked with `tar -xJf`:
#
# v5.0 (Lenovo, the round's only power result): for each benchmark folder,
#   result_summarizer._compute_strong_score_standalone(alias, system, True, folder, "training",
#   "5.0.0", {"submitter": "Lenovo"}, return_full_scores=True)
# which runs the compliance checks on the result logs and returns the energy score in joules (the
# same numbers as `python -m mlperf_logging.result_summarizer Lenovo training 5.0.0 --csv x.csv`
# puts in x_detailed.csv's `<benchmark>:Energy` column).
#
# v4.0 (smc-ac-power, smc-dc-power): the archive has the power logs but none of the result logs of
# these folders (nor does the round's public repository put them beside the power logs for every
# run), so each run's time to train is synthetic: the span of its power readings over all its
# node logs, in ms (literals below). Per run, _compute_total_power(folder, f"{folder}/{run}.txt",
# ttt, "4.0.0"); per folder, _index_olympic_average(energies, runs sorted by ttt, 0, 1).
# For the folders whose logs carry power_measurement_stop at the start's time (SMC's bert,
# dlrm_dcnv2, 1x llama2_70b_lora, unet3d, 8x resnet and ssd), every run raises ZeroDivisionError.

V50_SYSTEM = "mlperf-training-v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/"
V50_ENERGY_J = {
    "bert": 1949215.9387540054,
    "llama2_70b_lora": 6001391.312568853,
    "retinanet": 12058032.928861452,
    "stable_diffusion": 8071166.145710206,
}
V50_BERT_RUN_ENERGY_J = {  # the reference's per-run energies (power_scores_track)
    "result_0": 2000354.539563243,
    "result_1": 1778201.5872893876,
    "result_2": 1879417.7864085308,
    "result_3": 1899438.6998662858,
    "result_4": 2136443.858657627,
}

# v4.1 (Dell, the round's only power result: 8 nodes and one switch log of measured readings, no
# interconnect_power_est): result_summarizer._compute_strong_score_standalone("llama2_70b_lora",
# system, True, folder, "training", "4.1.0", {"submitter": "Dell"}, return_full_scores=True); its
# per-run energies (power_scores_track) and score, in J. The switch logs add 0 there.
V41_SYSTEM = "mlperf-training-v4.1/Dell/results/8xXE9680x8H100-SXM-80GB-POWER/llama2_70b_lora/"
V41_ENERGY_J = 16329287.185268339
V41_RUN_ENERGY_J = {
    "result_0": 16143281.64361597,
    "result_1": 17838302.270935252,
    "result_2": 15655250.95881875,
    "result_3": 16019229.038222102,
    "result_4": 15525978.402467547,
    "result_5": 13529045.565844355,
    "result_6": 17528383.695579372,
    "result_7": 18042912.560350783,
    "result_8": 16005038.677291462,
    "result_9": 15918832.795216262,
}

V40 = "mlperf-training-v4.0/"
# folder: (energy in J, {run: synthetic time to train in ms})
V40_ENERGY = {
    "smc-ac-power/results/1xSMC-H100-SXM-80GB/resnet": (
        5638613.522333334,
        {
            "result_5759-240517075402311260012_2": 800234.0,
            "result_5762-240517075402404624683_3": 800239.0,
            "result_5797-240517143743970275917_1": 797898.0,
            "result_5800-240517143744812449396_1": 802003.0,
            "result_5800-240517143744812449396_3": 800277.0,
        },
    ),
    "smc-dc-power/results/1xSMC-H100-SXM-80GB/ssd": (
        14514064.313666666,
        {
            "result_5753-240517062537491026015_4": 2169673.0,
            "result_5753-240517062537491026015_5": 2167886.0,
            "result_5754-240517062537520047707_1": 2167624.0,
            "result_5754-240517062537520047707_3": 2167871.0,
            "result_5754-240517062537520047707_5": 2167641.0,
        },
    ),
    "smc-ac-power/results/64xSMC-H100-SXM-80GB/gpt3": (  # 64 nodes and a switch estimate
        1699182467.3395524,
        {
            "result_5848-240517221859825376616_2": 3412447.0,
            "result_5849-240518014016374832336_1": 3411848.0,
            "result_5849-240518014016374832336_3": 3410468.0,
        },
    ),
    "smc-dc-power/results/8xSMC-H100-SXM-80GB/llama2_70b_lora": (
        19616220.73710982,
        {
            "result_5740-240517044141819407406_10": 317305.0,
            "result_5742-240517053836692164828_10": 318426.0,
            "result_5742-240517053836692164828_3": 317343.0,
            "result_5742-240517053836692164828_4": 317737.0,
            "result_5742-240517053836692164828_5": 314818.0,
            "result_5742-240517053836692164828_9": 316783.0,
            "result_5788-240517123914680514896_2": 317610.0,
            "result_5788-240517123914680514896_3": 316814.0,
            "result_5788-240517123914680514896_4": 316883.0,
            "result_5788-240517123914680514896_5": 316901.0,
        },
    ),
}
V40_STOP_AT_START = ["smc-ac-power/results/1xSMC-H100-SXM-80GB/bert", "smc-dc-power/results/8xSMC-H100-SXM-80GB/resnet"]

_POWER_FILE = re.compile(r"(.*)/power/([^/]+)/(node|sw)_\d+\.txt")


def _read_power(archive: tarfile.TarFile, member: tarfile.TarInfo, found: dict) -> None:
    """Read one node or switch log of a folder that the tests want, into found[folder][run]."""
    match = _POWER_FILE.fullmatch(member.name)
    if not match or match.group(1) not in found:
        return
    run = found[match.group(1)].setdefault(match.group(2), {"node": [], "sw": [], "errors": []})
    reader = read_node_power if match.group(3) == "node" else read_switch_power
    try:
        run[match.group(3)].append(reader(archive.extractfile(member)))
    except ValueError as error:
        run["errors"].append(str(error))


@pytest.fixture(scope="module")
def v40(shared_data):
    """The v4.0 folders of the tests, read from the archive as a stream."""
    found = {V40 + folder: {} for folder in [*V40_ENERGY, *V40_STOP_AT_START]}
    with tarfile.open(shared_data / "mlperf-training-v4.0.tar.xz", "r|xz") as archive:
        for member in archive:
            if member.isfile():
                _read_power(archive, member, found)
    return {folder.removeprefix(V40): runs for folder, runs in found.items()}


@pytest.fixture(scope="module")
def v50(shared_data):
    """Lenovo's v5.0 power logs and the times to train of its result logs, read from the archive."""
    found = {V50_SYSTEM + bench: {} for bench in V50_ENERGY_J}
    minutes = {}
    with tarfile.open(shared_data / "mlperf-training-v5.0.tar.xz", "r|xz") as archive:
        for member in archive:
            if not member.isfile() or not member.name.startswith(V50_SYSTEM):
                continue
            result = re.fullmatch(r".*/([^/]+)/(result_\d+)\.txt", member.name)
            if result:
                run = read_run(archive.extractfile(member), Targets(0.0, "higher"))
                minutes[result.group(1), result.group(2)] = run.stop_ms - run.start_ms
            else:
                _read_power(archive, member, found)
    return {folder.removeprefix(V50_SYSTEM): runs for folder, runs in found.items()}, minutes


@pytest.fixture(scope="module")
def v41(shared_data):
    """Dell's v4.1 power logs and the times to train of its result logs, read from the archive."""
    found: dict = {V41_SYSTEM.rstrip("/"): {}}
    ttt = {}
    with tarfile.open(shared_data / "mlperf-training-v4.1.tar.xz", "r|xz") as archive:
        for member in archive:
            if not member.isfile() or not member.name.startswith(V41_SYSTEM):
                continue
            result = re.fullmatch(r".*/(result_\d+)\.txt", member.name)
            if result and "/power/" not in member.name:
                run = read_run(archive.extractfile(member), Targets(0.0, "higher"))
                ttt[result.group(1)] = run.stop_ms - run.start_ms
            else:
                _read_power(archive, member, found)
    return found[V41_SYSTEM.rstrip("/")], ttt


def test_v41_energy_matches_the_reference_tool(v41):
    runs, ttt = v41
    assert sorted(runs) == sorted(V41_RUN_ENERGY_J) == sorted(ttt)
    names = sorted(runs)
    energies = []
    for name in names:
        logs = runs[name]
        assert not logs["errors"] and len(logs["node"]) == 8 and len(logs["sw"]) == 1, name
        assert [(s.watts, s.estimated) for s in logs["sw"]] == [(0.0, False)]
        energies.append(run_energy_joules(logs["node"], logs["sw"], ttt[name]))
        assert energies[-1] == pytest.approx(V41_RUN_ENERGY_J[name], rel=1e-6), name
    ours = result_energy([ttt[n] / 60_000 for n in names], energies)
    assert ours == pytest.approx(V41_ENERGY_J, rel=1e-6)


def test_v50_energy_matches_the_reference_tool(v50):
    found, ttt = v50
    for bench, expected in V50_ENERGY_J.items():
        runs = found[bench]
        assert len(runs) == (5 if bench == "retinanet" else 10)
        energies = {}
        for run, logs in runs.items():
            assert not logs["errors"] and len(logs["node"]) == 1 and not logs["sw"]
            node = logs["node"][0]
            assert (node.conversion_eff, node.measurement_type, node.host) == (0.94, "AC", "node_0")
            energies[run] = run_energy_joules(logs["node"], logs["sw"], ttt[bench, run])
        names = sorted(runs)
        ours = result_energy([ttt[bench, n] / 60_000 for n in names], [energies[n] for n in names])
        assert ours == pytest.approx(expected, rel=1e-6), bench
        if bench == "bert":
            for run, joules in V50_BERT_RUN_ENERGY_J.items():
                assert energies[run] == pytest.approx(joules, rel=1e-6), run


def test_v40_energy_matches_the_reference_tool(v40):
    for folder, (expected, ttt) in V40_ENERGY.items():
        runs = v40[folder]
        assert sorted(runs) == sorted(ttt), folder
        names = sorted(runs)
        energies = []
        for name in names:
            logs = runs[name]
            assert not logs["errors"] and logs["node"], (folder, name)
            assert all(node.conversion_eff == 1.0 and node.measurement_type is None for node in logs["node"])
            energies.append(run_energy_joules(logs["node"], logs["sw"], ttt[name]))
        ours = result_energy([ttt[n] / 60_000 for n in names], energies)
        assert ours == pytest.approx(expected, rel=1e-6), folder
    gpt3 = v40["smc-ac-power/results/64xSMC-H100-SXM-80GB/gpt3"]["result_5848-240517221859825376616_2"]
    assert len(gpt3["node"]) == 64
    assert [(s.watts, s.switch_id) for s in gpt3["sw"]] == [(59570.0, "sw_01")]


def test_v40_stop_at_start_is_refused(v40):
    """Where the reference tool divides by zero, every node log gives the reason instead."""
    for folder in V40_STOP_AT_START:
        runs = v40[folder]
        assert len(runs) >= 5
        for logs in runs.values():
            assert logs["errors"] and not logs["node"]
            assert all("is not after power_measurement_start" in error for error in logs["errors"])
