"""The MLPerf importer: scoring rules on small trees the tests write, archives read directly
(and refused when unsafe), the command line end to end, and the real v1.1 round against the
reference tool's scores."""

from __future__ import annotations

import csv
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, run_cli

from leaderboard.catalog import load_catalog
from leaderboard.importers import chunks, rcp
from leaderboard.importers.archive import SourceError, SourceNotes, iter_source
from leaderboard.importers.entries import IMPORTER
from leaderboard.importers.mllog import read_run
from leaderboard.importers.mlperf import ImportFailure, import_mlperf, read_rcp_tables
from leaderboard.importers.runlog import RunLog, Targets
from leaderboard.importers.scoring import score_runs
from leaderboard.importers.systems import AVAILABILITY, system_info
from leaderboard.validate import validate_paths

ROUND = "mlperf-training-v1.1"
T0 = 1_634_000_000_000  # ms
MINUTE = 60_000
RESNET = Targets(quality_target=0.759, direction="higher")
MASKRCNN = Targets(0.377, "higher", log_metric="BBOX", extra_targets=(("SEGM", 0.339, "higher"),))
RNNT = Targets(0.058, "lower")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(ROOT / "catalog")


# ---- writing small trees ---------------------------------------------------------------


def line(key: str, value=None, at: float = T0, prefix: str = "", **metadata) -> str:
    record = {
        "namespace": "",
        "time_ms": at,
        "event_type": "POINT_IN_TIME",
        "key": key,
        "value": value,
        "metadata": {"file": "train.py", "lineno": 1, **metadata},
    }
    return f"{prefix}:::MLLOG {json.dumps(record)}"


def run_log(
    minutes: float,
    quality=0.7601,
    status: str = "success",
    init_minutes: float = 1.0,
    start: float = T0,
    prefix: str = "",
    batch_size: int = 3264,
    epochs: float = 36,
) -> list[str]:
    """The lines of one run that trains `minutes` and ends with an evaluation of `quality`."""
    run_start = start + init_minutes * MINUTE
    stop = run_start + minutes * MINUTE
    return [
        "plain output that is not MLLOG",
        line("submission_benchmark", "resnet", start, prefix),
        line("init_start", None, start, prefix),
        line("global_batch_size", batch_size, start, prefix),
        line("init_stop", None, run_start, prefix),
        line("run_start", None, run_start, prefix),
        line("eval_accuracy", 0.5, run_start + 1, prefix, epoch_num=epochs / 2),
        line("eval_accuracy", quality, stop - 1, prefix, epoch_num=epochs),
        line("run_stop", None, stop, prefix, status=status),
    ]


SYSTEM = {
    "submitter": "Acme",
    "division": "closed",
    "status": "onprem",
    "system_name": "Acme Box 2",
    "number_of_nodes": "2",
    "accelerators_per_node": 8,
    "host_processors_per_node": "2",
    "host_processor_model_name": "AMD EPYC 7742",
    "accelerator_model_name": "NVIDIA A100-SXM4-80GB (400W)",
    "framework": "MXNet 21.09",
}


def write_tree(
    root: Path,
    runs: dict[int, list[str] | bytes],
    benchmark: str = "resnet",
    system: dict | None = None,
    org: str = "Acme",
    system_folder: str = "box_n2",
) -> Path:
    (root / org / "systems").mkdir(parents=True, exist_ok=True)
    (root / org / "systems" / f"{system_folder}.json").write_text(json.dumps(system or SYSTEM))
    folder = root / org / "results" / system_folder / benchmark
    folder.mkdir(parents=True, exist_ok=True)
    for number, content in runs.items():
        data = content if isinstance(content, bytes) else ("\n".join(content) + "\n").encode()
        (folder / f"result_{number}.txt").write_bytes(data)
    (root / "README.md").write_text("not a result\n")
    return root


def five_runs(changes: dict[int, list[str]] | None = None) -> dict[int, list[str]]:
    """Five runs of 10 to 14 minutes, some replaced."""
    runs = {i: run_log(10.0 + i) for i in range(5)}
    runs.update(changes or {})
    return runs


def imported(tmp_path: Path, source: Path, catalog) -> tuple[object, list[dict]]:
    out = tmp_path / "submissions"
    report = import_mlperf(source, ROUND, catalog, out, read_rcp_tables(ROOT / "catalog", ROUND))
    entries = [yaml.safe_load(p.read_text()) for p in sorted(out.rglob("*.yaml"))]
    return report, entries


# ---- reading one log -------------------------------------------------------------------


def read(lines: list[str] | bytes, targets: Targets = RESNET) -> RunLog:
    data = lines if isinstance(lines, bytes) else "\n".join(lines).encode()
    return read_run(io.BytesIO(data), targets)


def test_a_plain_run_is_read():
    run = read(run_log(12.5))
    assert run.minutes == pytest.approx(12.5)
    assert run.failure(True, RESNET) is None
    assert run.achieved_quality(True) == 0.7601
    assert (run.batch_size, run.last_epoch) == (3264, 36)


def test_rank_prefixed_lines_are_read():
    run = read(run_log(3.0, prefix="1017: "))
    assert run.failure(True, RESNET) is None
    assert run.minutes == pytest.approx(3.0)


def test_a_malformed_mllog_line_fails_the_run():
    lines = run_log(3.0)
    lines.insert(3, ':::MLLOG {"key": "eval_accuracy", "value": 0.7')
    run = read(lines)
    assert run.failure(True, RESNET) == "line 4: MLLOG line is not a JSON object"


def test_non_utf8_bytes_do_not_crash():
    data = ("\n".join(run_log(3.0)) + "\n").encode()
    data = b"garbage \xff\xfe\n" + data.replace(b'"train.py"', b'"tr\xe9in.py"')
    run = read(data)
    assert run.failure(True, RESNET) is None
    assert run.minutes == pytest.approx(3.0)


def test_nan_values_are_read_as_python_json_reads_them():
    lines = run_log(3.0)
    lines.insert(6, ':::MLLOG {"key": "train_loss", "value": NaN, "time_ms": 1, "metadata": {}}')
    assert read(lines).failure(True, RESNET) is None


def test_lines_split_across_chunks_are_joined(monkeypatch):
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 7)
    run = read(run_log(4.0, prefix="3: "))
    assert run.failure(True, RESNET) is None
    assert run.minutes == pytest.approx(4.0)


def test_an_overlong_line_is_dropped_not_kept(monkeypatch):
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 64)
    monkeypatch.setattr(chunks, "MAX_LINE_BYTES", 400)
    lines = run_log(4.0)
    lines.insert(2, "x" * 1000)
    assert read(lines).failure(True, RESNET) is None
    lines.insert(2, ":::MLLOG " + "y" * 1000)
    assert "longer than" in read(lines).failure(True, RESNET)


def test_evaluations_after_run_stop_do_not_count():
    lines = run_log(3.0, quality=0.70)
    lines.append(line("eval_accuracy", 0.80, T0 + 10 * MINUTE))
    run = read(lines)
    assert run.failure(True, RESNET).startswith("quality target never reached")
    assert run.failure(False, RESNET) is None  # the open division trains to its own target


def test_mask_rcnn_needs_both_targets():
    both = {"BBOX": 0.378, "SEGM": 0.340}
    box_only = {"BBOX": 0.380, "SEGM": 0.330}
    assert read(run_log(3.0, quality=both), MASKRCNN).failure(True, MASKRCNN) is None
    assert read(run_log(3.0, quality=both), MASKRCNN).achieved_quality(True) == 0.378
    reason = read(run_log(3.0, quality=box_only), MASKRCNN).failure(True, MASKRCNN)
    assert reason == "quality target never reached before run_stop (BBOX 0.377, SEGM 0.339)"


@pytest.mark.parametrize(
    ("value", "target", "direction", "reached"),
    [
        (21.799999237060547, 21.8, "higher", True),  # float32(21.8), as v0.5 GNMT logs it
        (21.79999923, 21.8, "higher", False),  # below, and not the single-precision target either
        (0.7590000033378601, 0.759, "higher", True),  # float32(0.759) is above 0.759 anyway
        (0.7588, 0.759, "higher", False),
        (0.925000011920929, 0.925, "lower", True),  # float32(0.925), just above 0.925
        (0.92500002, 0.925, "lower", False),
        (1e39, 1e39, "higher", True),  # beyond single precision: compared as it is
    ],
)
def test_targets_are_reached_in_single_precision_too(value, target, direction, reached):
    assert Targets.reached(value, target, direction) is reached


def test_rnnt_word_error_rate_must_be_at_most_the_target():
    assert read(run_log(3.0, quality=0.0575), RNNT).failure(True, RNNT) is None
    assert read(run_log(3.0, quality=0.0585), RNNT).failure(True, RNNT).startswith("quality target never")


def _without(lines: list[str], key: str) -> list[str]:
    return [x for x in lines if f'"key": "{key}"' not in x]


def _twice(lines: list[str], key: str) -> list[str]:
    return lines + [x for x in lines if f'"key": "{key}"' in x]


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        (run_log(3.0), None),
        (run_log(3.0, status="aborted"), "run_stop status is aborted, not success"),
        (_without(run_log(3.0), "run_stop"), "no run_stop"),
        (_without(run_log(3.0), "run_start"), "no run_start"),
        (_twice(run_log(3.0), "run_start"), "run_start logged 2 times"),
        (_twice(run_log(3.0), "run_stop"), "run_stop logged 2 times"),
        (run_log(3.0, init_minutes=30.0), "initialization took 30.0 minutes (limit 30)"),
        (run_log(3.0, init_minutes=29.9), None),
        (run_log(3.0, quality=0.7589), "quality target never reached before run_stop (eval_accuracy 0.759)"),
        (run_log(3.0, quality=0.759), None),
        (run_log(3.0, quality=None), "quality target never reached before run_stop (eval_accuracy 0.759)"),
    ],
)
def test_when_a_run_fails(lines, reason):
    assert read(lines).failure(True, RESNET) == reason


# ---- scoring (pure) --------------------------------------------------------------------


def _runs(*minutes: float | None) -> list[RunLog]:
    runs = []
    for m in minutes:
        if m is None:
            runs.append(RunLog(run_starts=1, run_stops=1, start_ms=0, stop_ms=60_000, status="aborted"))
        else:
            runs.append(
                RunLog(
                    run_starts=1,
                    run_stops=1,
                    start_ms=0,
                    stop_ms=m * 60_000,
                    status="success",
                    reached_target=True,
                    last_reached_quality=0.76 + m / 1000,
                    last_quality=0.76,
                )
            )
    return runs


@pytest.mark.parametrize(
    ("minutes", "drops", "expected", "quality"),
    [
        # A run of m minutes reaches 0.76 + m / 1000: the worst counted quality is the fastest
        # counted run's, never the dropped fastest run's.
        ((10, 11, 12, 13, 14), 1, 12.0, 0.771),
        ((14, 10, 12, 11, 13), 1, 12.0, 0.771),
        ((10, 11, 12, 13, None), 1, 12.0, 0.771),  # the failed run takes the slowest's place
        ((None, 11, 12, 13, 100), 1, 41.666667, 0.772),
        ((10, None, 12, None, 14), 1, None, None),  # two failures, one may be dropped
        (tuple(range(1, 41)), 4, 20.5, 0.765),
        (tuple(range(1, 37)) + (None,) * 4, 4, 20.5, 0.765),
        (tuple(range(1, 36)) + (None,) * 5, 4, None, None),
    ],
)
def test_olympic_score(minutes, drops, expected, quality, catalog):
    rules = catalog.benchmarks["unet3d" if drops == 4 else "resnet"].rounds[ROUND]
    score = score_runs(_runs(*minutes), rules, closed=True, targets=RESNET)
    assert score.minutes == (pytest.approx(expected) if expected is not None else None)
    assert score.quality == (pytest.approx(quality) if quality is not None else None)
    assert (score.invalid is None) == (expected is not None)


def test_quality_is_the_worst_counted_run_in_the_metric_direction(catalog):
    rules = catalog.benchmarks["rnnt"].rounds[ROUND]
    runs = [read(run_log(3.0 + i, quality=0.050 + i / 2000), RNNT) for i in range(10)]
    # The highest word error rate among the counted runs: the slowest run (0.0545) is dropped.
    assert score_runs(runs, rules, True, RNNT).quality == 0.050 + 8 / 2000


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {},
            {
                "chips": 16,
                "nodes": 2,
                "host_processor_count": 4,
                "availability": "available",
                "accelerator": "a100-sxm4-80gb",
                "name": "Acme Box 2",
                "submitter": "Acme",
            },
        ),
        ({"number_of_nodes": 4, "accelerators_per_node": "4"}, {"chips": 16, "nodes": 4}),
        ({"number_of_nodes": " 3 ", "accelerators_per_node": 8.0}, {"chips": 24}),
        ({"status": "cloud"}, {"availability": "available"}),
        ({"status": "Available"}, {"availability": "available"}),
        ({"status": "preview"}, {"availability": "preview"}),
        ({"status": "research"}, {"availability": "research"}),
        ({"status": "rdi"}, {"availability": "research"}),
        ({"host_processors_per_node": ""}, {"host_processor_count": None}),
        ({"accelerator_model_name": "TPU-v4"}, {"accelerator": "tpu-v4"}),
        ({"accelerator_model_name": "nvidia  a100-pcie-40gb (250w)"}, {"accelerator": "a100-pcie-40gb"}),
        ({"accelerator_model_name": "NVIDIA A100-PCIe-40GB(250W)"}, {"accelerator": "a100-pcie-40gb"}),
        ({"accelerator_model_name": "NVIDIA A100-SXM4-80GB(400W)"}, {"accelerator": "a100-sxm4-80gb"}),
        # v1.0 and v4.1 part names, each an alias of a sourced catalog part
        ({"accelerator_model_name": "NVIDIA A100-SXM-80GB (500W)"}, {"accelerator": "a100-sxm4-80gb"}),
        ({"accelerator_model_name": "Ascend 910 Pro A"}, {"accelerator": "ascend-910a-pro"}),
        ({"accelerator_model_name": "Ascend 910 Premium A"}, {"accelerator": "ascend-910a-premium"}),
        ({"accelerator_model_name": "H100 NVL Tensor Core GPU (PCIe)"}, {"accelerator": "h100-nvl"}),
        ({"accelerator_model_name": "NVIDIA H100 80GB HBM3"}, {"accelerator": "h100-sxm5-80gb"}),
        ({"accelerator_model_name": "NVIDIA A100 - PCIe - 80 GB"}, {"accelerator": "a100-pcie-80gb"}),
        ({"status": "Available cloud"}, {"availability": "available"}),
        ({"status": "Available on-premise"}, {"availability": "available"}),
        ({"status": "Research, Development, or Internal (RDI)"}, {"availability": "research"}),
        ({"division": "close"}, {"division": "closed", "notes": ("division 'close' read as closed",)}),
        ({"division": " Closed "}, {"division": "closed", "notes": ()}),
        (
            {"divison": "open", "division": None, "number of nodes": 4, "number_of_nodes": None},
            {
                "division": "open",
                "nodes": 4,
                "notes": ("key 'divison' read as division", "key 'number of nodes' read as number_of_nodes"),
            },
        ),
        (
            {
                "accelerator_model_name": "TPU",
                "system_name": "tpu-v3-1024",
                "number_of_nodes": 128,
                "accelerators_per_node": 4,
            },
            {
                "accelerator": "tpu-v3",
                "chips": 512,
                "notes": ("accelerator 'TPU' read as TPU v3 from the system name 'tpu-v3-1024'",),
            },
        ),
        (
            {
                "accelerators_per_node": 0,
                "accelerator_model_name": "N/A",
                "host_processor_model_name": "Intel(R) Xeon(R) Platinum 8380H CPU @ 2.90GHz",
            },
            {"chips": 4, "host_processor_count": 4, "accelerator": "xeon-platinum-8380h"},
        ),
        (
            {
                "accelerators_per_node": "0",
                "accelerator_model_name": "N/A",
                "host_processors_per_node": "8",
                "host_processor_model_name": "Intel(R) Xeon(R) Platinum 8376H CPU @ 2.60GHz",
            },
            {"chips": 16, "host_processor_count": 16, "accelerator": "xeon-platinum-8376h"},
        ),
    ],
)
def test_system_descriptions_map_to_our_fields(changes, expected, catalog):
    described = {key: value for key, value in {**SYSTEM, **changes}.items() if value is not None}  # None: left out
    info, reason = system_info(described, catalog)
    assert reason is None
    for name, value in expected.items():
        assert getattr(info, name) == value


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        (
            {"accelerator_model_name": "Acme Tensor Thing 9000"},
            "unknown accelerator 'Acme Tensor Thing 9000': add it to the aliases of its accelerator in "
            "catalog/accelerators.yaml",
        ),
        (
            {"status": "someday"},
            "status 'someday' is not one of onprem, on-premise, available, cloud, preview, research, rdi",
        ),
        (
            {"accelerator_model_name": "TPU", "system_name": "tpu-v3-v4-mix"},
            "unknown accelerator 'TPU': add it to the aliases of its accelerator in catalog/accelerators.yaml",
        ),
        (
            {"accelerators_per_node": 0, "host_processors_per_node": ""},
            "accelerators_per_node is 0 (a CPU result) but the host processors are not given",
        ),
        ({"number_of_nodes": "two"}, "number_of_nodes 'two' x accelerators_per_node 8 is not a positive whole number"),
        ({"division": "middle"}, "division 'middle' is neither closed nor open"),
        ({"system_name": ""}, "system description lacks system_name"),
    ],
)
def test_system_descriptions_that_cannot_be_mapped(changes, reason, catalog):
    assert system_info({**SYSTEM, **changes}, catalog) == (None, reason)


# ---- RCP scaling (pure) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("t", "df", "cdf"),
    [(0.0, 5, 0.5), (-1.812461, 10, 0.05), (1.812461, 10, 0.95), (-2.570582, 5, 0.025), (-1.644854, 1e7, 0.05)],
)
def test_student_t_cdf(t, df, cdf):
    assert rcp.student_t_cdf(t, df) == pytest.approx(cdf, abs=2e-6)


TABLE = rcp.RcpTable(
    "resnet",
    "epochs",
    {
        1000.0: (30, 30, 31, 31, 32, 30),  # mean 30.5: fastest converging, the lowest kept batch size
        500.0: (40, 40, 40, 40),  # below the fastest: pruned
        2000.0: (40, 41, 42, 43, 44, 40),  # mean 41.5, slower than the line 1000-3000: pruned
        3000.0: (35, 36, 37, 36),
        4000.0: (43, 44, 45, 44),
    },
)


def test_reference_points_are_pruned_as_rcp_checker_prunes():
    points = rcp.reference_points(TABLE, 1, 1)
    assert [(p.batch_size, p.mean) for p in points] == [(1000, 30.5), (3000, 36), (4000, 44)]


@pytest.mark.parametrize(
    ("batch_size", "epochs", "factor"),
    [
        (3000, (34, 35, 35, 35, 40), 36 / 35),  # faster than the reference, within its spread
        (3000, (36, 37, 38, 39, 40), 1.0),  # slower: never scaled down
        (3500, (38, 39, 40, 40, 41), 40 / 39.666666666666664),  # interpolated between 3000 and 4000
        (800, (29, 29, 30, 30, 31), 30.5 / 29.666666666666668),  # below every point: the smallest one
        (5000, (29, 29, 30, 30, 31), None),  # above every point: MLPerf asks for a new RCP
        (3000, (34, 35, None, 35, None), None),  # too many runs failed
    ],
)
def test_rcp_factor(batch_size, epochs, factor):
    scaling = rcp.rcp_scaling(epochs, batch_size, rcp.reference_points(TABLE, 1, 1), 1, 1, 5)
    assert scaling.factor == (pytest.approx(factor) if factor is not None else None)


def test_converging_faster_than_the_reference_allows_gets_no_factor():
    points = rcp.reference_points(TABLE, 1, 1)
    minimum = rcp.min_acceptable_mean(points[0], 5)
    assert 28 < minimum < 30.5
    assert rcp.rcp_scaling((minimum + 1e-9,) * 5, 1000, points, 1, 1, 5).factor == pytest.approx(30.5 / minimum)
    too_fast = rcp.rcp_scaling((minimum - 0.01,) * 5, 1000, points, 1, 1, 5)
    assert too_fast.factor is None
    assert "faster than the reference allows" in too_fast.reason
    # An allowance (Llama 3.1 405B from ruleset 5.0.0) lets that much faster pass, and scales it.
    allowed = rcp.rcp_scaling((minimum - 0.01,) * 5, 1000, points, 1, 1, 5, allowance=0.02)
    assert allowed.factor == pytest.approx(30.5 / (minimum - 0.01))
    assert rcp.rcp_scaling((minimum - 0.03,) * 5, 1000, points, 1, 1, 5, allowance=0.02).factor is None


def test_the_shipped_rcp_tables_load():
    tables = read_rcp_tables(ROOT / "catalog", ROUND)
    assert set(tables) == {"resnet", "ssd", "maskrcnn", "rnnt", "unet3d", "dlrm"}
    assert read_rcp_tables(ROOT / "catalog", "published") == {}


# ---- whole trees -----------------------------------------------------------------------


def test_a_tree_is_imported(tmp_path, catalog):
    source = write_tree(tmp_path / "tree", five_runs())
    report, entries = imported(tmp_path, source, catalog)
    assert len(entries) == 1
    entry = entries[0]
    assert entry["submitter"] == "Acme" and entry["system"]["name"] == "Acme Box 2"
    assert entry["system"] == {
        "name": "Acme Box 2",
        "accelerator": "a100-sxm4-80gb",
        "count": 16,
        "unit": "chip",
        "nodes": 2,
        "host_processor": "AMD EPYC 7742",
        "host_processor_count": 4,
        "framework": "MXNet 21.09",
    }
    assert entry["result"]["runs_minutes"] == [10.0, 11.0, 12.0, 13.0, 14.0]
    assert entry["result"]["quality"] == 0.7601 and entry["result"]["quality_target"] == 0.759
    assert entry["date"] == "2021-12-01" and entry["availability"] == "available"
    assert entry["provenance"]["method"] == "computed-from-logs" and entry["provenance"]["importer"] == IMPORTER
    assert entry["source"]["url"] == (
        "https://github.com/mlcommons/training_results_v1.1/tree/main/Acme/results/box_n2/resnet"
    )
    # batch 3264 converging in 36 epochs: slower than the reference (35.1): scaled by 1
    assert entry["provenance"]["scaling"] == "unscaled" and entry["provenance"]["rcp_factor"] == 1.0
    assert entry["result"]["minutes"] == 12.0
    assert (report.runs_counted, report.runs_failed, report.skipped) == (5, [], [])
    assert validate_paths([tmp_path / "submissions"], ROOT / "catalog").ok


def test_failed_runs_are_counted_as_slowest(tmp_path, catalog):
    source = write_tree(tmp_path / "tree", five_runs({2: run_log(1.0, status="aborted")}))
    report, [entry] = imported(tmp_path, source, catalog)
    assert entry["result"]["runs_minutes"] == [10.0, 11.0, None, 13.0, 14.0]
    assert entry["result"]["minutes"] == pytest.approx(12.666667)
    assert entry["provenance"]["failed_runs"] == ["result_2.txt: run_stop status is aborted, not success"]
    assert report.runs_failed == [
        ("tree/Acme/results/box_n2/resnet/result_2.txt", "run_stop status is aborted, not success")
    ]
    assert report.runs_counted == 4


@pytest.mark.parametrize(
    ("runs", "reason"),
    [
        ({i: run_log(10.0) for i in range(4)}, "4 logs; mlperf-training-v1.1 ResNet-50 needs 5 runs"),
        ({i: run_log(10.0) for i in range(6)}, "6 logs; mlperf-training-v1.1 ResNet-50 needs 5 runs"),
        (
            five_runs({0: _without(run_log(1.0), "run_stop"), 1: _twice(run_log(1.0), "run_start")}),
            "2 of 5 runs failed (1 of them: no run_stop); the scoring may drop at most 1",
        ),
        (
            five_runs({0: run_log(1.0, init_minutes=45), 4: run_log(1.0, quality=0.5)}),
            "2 of 5 runs failed (1 of them: initialization took 45.0 minutes (limit 30)); the scoring may drop at most 1",
        ),
        (
            five_runs({0: run_log(1.0, status="aborted"), 4: run_log(1.0, status="aborted")}),
            "2 of 5 runs failed (run_stop status is aborted, not success); the scoring may drop at most 1",
        ),
    ],
)
def test_result_directories_that_are_skipped(runs, reason, tmp_path, catalog):
    source = write_tree(tmp_path / "tree", runs)
    report, entries = imported(tmp_path, source, catalog)
    assert entries == []
    assert report.skipped == [("tree/Acme/results/box_n2/resnet", reason)]


def test_unknown_accelerators_and_missing_system_files_are_skipped_with_the_fix(tmp_path, catalog):
    source = write_tree(tmp_path / "tree", five_runs(), system={**SYSTEM, "accelerator_model_name": "Acme X1"})
    write_tree(source, five_runs(), org="Other")
    (source / "Other" / "systems" / "box_n2.json").unlink()
    write_tree(source, five_runs(), org="Third", benchmark="gpt3")
    report, entries = imported(tmp_path, source, catalog)
    assert entries == []
    assert report.skipped == [
        (
            "tree/Acme/results/box_n2/resnet",
            "tree/Acme/systems/box_n2.json: unknown accelerator 'Acme X1': add it to the "
            "aliases of its accelerator in catalog/accelerators.yaml",
        ),
        ("tree/Other/results/box_n2/resnet", "no system description tree/Other/systems/box_n2.json"),
        (
            "tree/Third/results/box_n2/gpt3",
            "benchmark folder 'gpt3' is not a benchmark of mlperf-training-v1.1 "
            "(resnet, bert, ssd, maskrcnn, rnnt, unet3d, dlrm, minigo)",
        ),
    ]


def test_one_organization_folder_is_a_tree_too(tmp_path, catalog):
    tree = write_tree(tmp_path / "tree", five_runs())
    report, [entry] = imported(tmp_path, tree / "Acme", catalog)
    assert entry["source"]["url"].endswith("/Acme/results/box_n2/resnet")
    with pytest.raises(ImportFailure, match="no MLPerf results in"):
        import_mlperf(tree / "Acme" / "systems", ROUND, catalog, tmp_path / "out")


def test_validation_checks_scaled_minutes_against_the_factor(tmp_path, catalog):
    # batch 3264 in 35 epochs: faster than the reference point (35.15), within its spread
    runs = {i: run_log(10.0 + i, epochs=35) for i in range(5)}
    imported(tmp_path, write_tree(tmp_path / "tree", runs), catalog)
    [path] = (tmp_path / "submissions").rglob("*.yaml")
    data = yaml.safe_load(path.read_text())
    factor = data["provenance"]["rcp_factor"]
    assert factor > 1 and data["result"]["minutes"] == 12.0  # the published score: unscaled
    assert data["provenance"]["scaling"] == "unscaled"
    assert validate_paths([path], ROOT / "catalog").ok
    data["result"]["minutes"] = 12.0 * factor  # a score that says it includes the factor must
    data["provenance"]["scaling"] = "rcp-scaled"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert validate_paths([path], ROOT / "catalog").ok
    data["result"]["minutes"] = 12.0
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    [problem] = validate_paths([path], ROOT / "catalog").problems
    assert f"is not the olympic mean of runs_minutes times the RCP factor {factor}" in problem.message


def test_two_system_files_with_one_name_stay_two_entries(tmp_path, catalog):
    tree = write_tree(tmp_path / "tree", five_runs(), system_folder="box_mxnet")
    write_tree(tree, five_runs(), system_folder="box_pytorch")
    _, entries = imported(tmp_path, tree, catalog)
    assert [e["system"]["name"] for e in entries] == ["Acme Box 2 (box_mxnet)", "Acme Box 2 (box_pytorch)"]
    assert validate_paths([tmp_path / "submissions"], ROOT / "catalog").ok


def test_open_division_keeps_runs_below_the_closed_target(tmp_path, catalog):
    source = write_tree(
        tmp_path / "tree", five_runs({1: run_log(11.0, quality=0.75)}), system={**SYSTEM, "division": "open"}
    )
    report, [entry] = imported(tmp_path, source, catalog)
    assert entry["division"] == "open" and entry["provenance"]["scaling"] == "unscaled"
    assert entry["result"]["quality"] == 0.75 and report.runs_failed == []


def test_an_unknown_round_fails_the_import(tmp_path, catalog):
    with pytest.raises(ImportFailure, match="unknown MLPerf Training round 'mlperf-training-v9'"):
        import_mlperf(write_tree(tmp_path / "tree", five_runs()), "mlperf-training-v9", catalog, tmp_path / "out")


# ---- archives --------------------------------------------------------------------------


def _tar(tree: Path, target: Path, mode: str = "w:gz", top: str = "round") -> Path:
    with tarfile.open(target, mode) as archive:
        archive.add(tree, arcname=top)
    return target


def _zip(tree: Path, target: Path, top: str = "round") -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(tree.rglob("*")):
            archive.write(path, f"{top}/{path.relative_to(tree).as_posix()}")
    return target


@pytest.mark.parametrize("kind", ["tar", "tar.gz", "tar.xz", "zip"])
def test_archives_give_the_same_files_as_the_folder(kind, tmp_path, catalog):
    tree = write_tree(tmp_path / "tree", five_runs({3: run_log(1.0, status="aborted", prefix="7: ")}))
    _, from_folder = imported(tmp_path / "a", tree, catalog)
    target = tmp_path / f"round.{kind}"
    if kind == "zip":
        _zip(tree, target)
    else:
        _tar(tree, target, {"tar": "w", "tar.gz": "w:gz", "tar.xz": "w:xz"}[kind])
    report, from_archive = imported(tmp_path / "b", target, catalog)
    assert from_archive == from_folder and len(from_archive) == 1
    assert report.runs_failed[0][0] == "round/Acme/results/box_n2/resnet/result_3.txt"


def _tar_with(target: Path, member: tarfile.TarInfo, data: bytes = b"") -> Path:
    with tarfile.open(target, "w:gz") as archive:
        good = tarfile.TarInfo("round/README.md")
        good.size = 2
        archive.addfile(good, io.BytesIO(b"hi"))
        member.size = len(data) if member.isfile() else 0
        archive.addfile(member, io.BytesIO(data) if member.isfile() else None)
    return target


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


@pytest.mark.parametrize(
    ("member", "message"),
    [
        (_member("round/../x"), "archive member 'round/../x' points outside the archive"),
        (_member("../x/Acme/systems/a.json"), "points outside the archive"),
        (_member("/etc/Acme/systems/a.json"), "points outside the archive"),
        (_member("round/Acme/systems/a.json", tarfile.SYMTYPE, "/etc/passwd"), "is a link"),
        (_member("round/link", tarfile.SYMTYPE, "../../outside"), "is a link"),
        (_member("round/hard", tarfile.LNKTYPE, "round/README.md"), "is a link"),
        (_member("round/fifo", tarfile.FIFOTYPE), "is not a regular file"),
    ],
)
def test_unsafe_tar_members_refuse_the_archive(member, message, tmp_path, catalog):
    target = _tar_with(tmp_path / "bad.tar.gz", member, b"{}")
    with pytest.raises(ImportFailure, match=message):
        import_mlperf(target, ROUND, catalog, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def _zip_with(target: Path, name: str, symlink: bool = False) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("round/README.md", "hi")
        info = zipfile.ZipInfo(name)
        if symlink:
            info.external_attr = 0o120777 << 16
        archive.writestr(info, "/etc/passwd" if symlink else "{}")
    return target


@pytest.mark.parametrize(
    ("name", "symlink", "message"),
    [
        ("../x", False, "archive member '../x' points outside the archive"),
        ("round/../../x", False, "points outside the archive"),
        ("/abs/x", False, "points outside the archive"),
        ("C:/x", False, "points outside the archive"),
        ("round/Acme/systems/a.json", True, "is a link"),
    ],
)
def test_unsafe_zip_members_refuse_the_archive(name, symlink, message, tmp_path, catalog):
    target = _zip_with(tmp_path / "bad.zip", name, symlink)
    with pytest.raises(ImportFailure, match=message):
        import_mlperf(target, ROUND, catalog, tmp_path / "out")


def test_links_in_a_folder_are_not_followed(tmp_path):
    tree = write_tree(tmp_path / "tree", five_runs())
    (tree / "Acme" / "systems" / "elsewhere.json").symlink_to("/etc/hostname")
    notes = SourceNotes()
    paths = [f.path for f in iter_source(tree, lambda p: True, notes)]
    assert "tree/Acme/systems/elsewhere.json" not in paths
    assert notes.links_ignored == ["tree/Acme/systems/elsewhere.json"]


def test_a_file_that_is_no_archive_is_a_clear_error(tmp_path, catalog):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ImportFailure, match="is not a folder or a .tar, .tar.gz, .tar.xz or .zip archive"):
        import_mlperf(tmp_path / "notes.txt", ROUND, catalog, tmp_path / "out")
    with pytest.raises(SourceError):
        list(iter_source(tmp_path / "missing", lambda p: True))


@pytest.mark.parametrize(("suffix", "mode"), [(".tar.xz", "w:xz"), (".tar.gz", "w:gz")])
def test_a_damaged_compressed_archive_is_a_clear_error_not_a_hang(suffix, mode, tmp_path, catalog):
    """xz and gzip archives are decompressed on a thread: a damaged or cut one still ends the
    import with one line, and nothing is written."""
    tree = write_tree(tmp_path / "tree", five_runs())
    whole = tmp_path / f"whole{suffix}"
    with tarfile.open(whole, mode) as archive:
        archive.add(tree, arcname="tree")
    data = whole.read_bytes()
    (tmp_path / f"cut{suffix}").write_bytes(data[: len(data) // 2])
    (tmp_path / f"garbled{suffix}").write_bytes(data[:40] + bytes(len(data) - 40))
    for name in (f"cut{suffix}", f"garbled{suffix}"):
        with pytest.raises(ImportFailure, match="cannot read|is not a folder or a .tar"):
            import_mlperf(tmp_path / name, ROUND, catalog, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    _, entries = imported(tmp_path / "again", whole, catalog)
    assert len(entries) == 1


def _power_log(watts: float, begin: float, end: float) -> str:
    """A node power log: readings every second at `watts` over [begin, end] (ms)."""
    lines = [line("power_measurement_start", None, begin)]
    lines += [line("power_reading", watts, at) for at in range(int(begin) + 1000, int(end) + 1, 1000)]
    lines.append(line("power_measurement_stop", None, end))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("kind", ["folder", "tar.xz"])
def test_energy_from_power_logs_and_power_logs_without_runs(kind, tmp_path, catalog):
    """A result's runs with power logs get MLPerf Power's energy (1 kW over each run's minutes);
    power logs whose run logs are not there give no entry and are reported, from a folder
    (left unread) as from an archive (held, never scored)."""
    tree = write_tree(tmp_path / "tree", five_runs())
    minutes = [10.0 + i for i in range(5)]
    for run, length in enumerate(minutes):
        folder = tree / "Acme" / "results" / "box_n2" / "resnet" / "power" / f"result_{run}"
        folder.mkdir(parents=True)
        begin = T0 + MINUTE  # the run's start (run_log: one minute of initialization)
        (folder / "node_0.txt").write_text(_power_log(1000.0, begin, begin + length * MINUTE))
    alone = tree / "Acme" / "results" / "box_n2" / "ssd" / "power" / "result_0"
    alone.mkdir(parents=True)
    (alone / "node_0.txt").write_text(_power_log(500.0, T0, T0 + MINUTE))
    source = tree
    if kind == "tar.xz":
        source = tmp_path / "tree.tar.xz"
        with tarfile.open(source, "w:xz") as archive:
            archive.add(tree, arcname="tree")
    report, [entry] = imported(tmp_path, source, catalog)
    energy = entry["result"]["energy"]
    assert energy["runs_kwh"] == [pytest.approx(m / 60, abs=1e-6) for m in minutes]  # 1 kW for m minutes
    assert energy["kwh"] == pytest.approx(sum(minutes[1:4]) / 3 / 60, abs=1e-6)  # olympic mean: 11, 12, 13 minutes
    assert energy["scope"] == "nodes" and "measurement" not in energy
    assert report.with_energy == 1
    assert any("power logs without any run log" in note and "box_n2/ssd" in note for note in report.notes)


# ---- the command line ------------------------------------------------------------------


def test_cli_end_to_end_on_a_tree_and_an_archive(empty_project):
    tree = write_tree(empty_project / "tree", five_runs({4: run_log(1.0, status="aborted")}))
    write_tree(tree, {i: run_log(5.0) for i in range(3)}, org="Short")
    done = run_cli("import-mlperf", "tree", "--round", ROUND, cwd=empty_project)
    assert done.code == 0, done.err
    assert done.err == ""  # no progress bar when stderr is not a terminal
    lines = done.out.splitlines()
    assert "entries written: 1 (1 new, 0 updated, 0 unchanged)" in lines
    assert "runs counted: 4" in lines and "runs failed: 1" in lines
    assert "  tree/Acme/results/box_n2/resnet/result_4.txt: run_stop status is aborted, not success" in lines
    assert "result directories skipped: 1" in lines
    assert "  tree/Short/results/box_n2/resnet: 3 logs; mlperf-training-v1.1 ResNet-50 needs 5 runs" in lines
    written = empty_project / "submissions" / ROUND / "acme" / "box_n2-resnet.yaml"
    first = written.read_bytes()
    assert run_cli("validate", cwd=empty_project).code == 0

    _tar(tree, empty_project / "round.tar.gz")
    again = run_cli("import-mlperf", "round.tar.gz", "--round", ROUND, cwd=empty_project)
    assert again.code == 0, again.err
    assert "entries written: 1 (0 new, 0 updated, 1 unchanged)" in again.out.splitlines()
    assert written.read_bytes() == first


def test_cli_failures_are_one_line(empty_project):
    _tar_with(empty_project / "bad.tar.gz", _member("../evil"))
    done = run_cli("import-mlperf", "bad.tar.gz", "--round", ROUND, cwd=empty_project)
    assert (done.code, done.out) == (1, "")
    assert done.err == "error: archive member '../evil' points outside the archive: refused, nothing imported\n"
    done = run_cli("import-mlperf", "nowhere", "--round", ROUND, cwd=empty_project)
    assert done.code == 1 and done.err.startswith("error: no such file or folder")
    done = run_cli("import-mlperf", "nowhere", cwd=empty_project)  # no --round, and no round's name
    assert done.code == 2 and "cannot tell the round of nowhere from its name: give --round" in done.err
    done = run_cli("import-mlperf", "a", "b", "--round", ROUND, cwd=empty_project)
    assert done.code == 2 and "--round names the round of one SOURCE" in done.err


def test_several_rounds_are_imported_side_by_side(tmp_path, empty_project, catalog):
    """Sources named after their rounds, one worker each: the same files as one import at a
    time; a source that fails is reported and does not stop the others."""
    write_tree(empty_project / ROUND, five_runs())
    alone = tmp_path / "alone"
    import_mlperf(empty_project / ROUND, ROUND, catalog, alone, read_rcp_tables(ROOT / "catalog", ROUND))
    _tar_with(empty_project / "mlperf-training-v0.5.tar.gz", _member("../evil"))
    done = run_cli("import-mlperf", ROUND, "mlperf-training-v0.5.tar.gz", "--jobs", "2", cwd=empty_project)
    assert done.code == 1, done.err
    assert f"== {ROUND}" in done.out and "entries written: 1 (1 new" in done.out
    assert "mlperf-training-v0.5.tar.gz: archive member '../evil' points outside the archive" in done.err
    assert done.err.endswith("error: 1 of 2 sources could not be imported\n")
    ours = {
        p.relative_to(empty_project / "submissions"): p.read_bytes()
        for p in (empty_project / "submissions").rglob("*.yaml")
    }
    theirs = {p.relative_to(alone): p.read_bytes() for p in alone.rglob("*.yaml")}
    assert ours == theirs and len(ours) == 1
    done = run_cli("import-mlperf", ROUND, f"./{ROUND}", cwd=empty_project)
    assert done.code == 1 and done.err == f"error: two sources of the same round ({ROUND}): import them one at a time\n"


def test_reimport_is_byte_identical_and_hand_edits_do_not_survive(tmp_path, catalog):
    """An official round is the importer's alone: a re-import writes what a fresh import into an
    empty folder writes, whatever a person added (issue 22, item 7)."""
    source = write_tree(tmp_path / "tree", five_runs())
    out = tmp_path / "submissions"
    import_mlperf(source, ROUND, catalog, out)
    path = out / ROUND / "acme" / "box_n2-resnet.yaml"
    first = path.read_bytes()
    report = import_mlperf(source, ROUND, catalog, out)
    assert [w.status for w in report.written] == ["unchanged"] and path.read_bytes() == first

    data = yaml.safe_load(first)
    data["model"] = {"name": "ResNet-50 v1.5, hand-named", "parameters": 25_600_000}
    data["source"]["note"] = "checked by hand"
    data["result"]["estimated"] = True
    data["result"]["minutes"] = 99.0
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    report = import_mlperf(source, ROUND, catalog, out)
    assert [w.status for w in report.written] == ["updated"]
    assert path.read_bytes() == first
    fresh = tmp_path / "fresh"
    import_mlperf(source, ROUND, catalog, fresh)
    assert (fresh / ROUND / "acme" / "box_n2-resnet.yaml").read_bytes() == first


def test_a_hand_typed_file_of_the_same_entry_is_replaced(tmp_path, catalog):
    out = tmp_path / "submissions"
    hand = out / ROUND / "acme" / "our-box.yaml"
    hand.parent.mkdir(parents=True)
    hand.write_text(
        yaml.safe_dump(
            {
                "schema_version": 1,
                "round": ROUND,
                "benchmark": "resnet",
                "division": "closed",
                "availability": "available",
                "submitter": "ACME",
                "date": "2021-12-01",
                "system": {"name": "acme box 2", "accelerator": "a100-sxm4-80gb", "count": 16},
                "model": {"name": "ResNet-50, hand-typed"},
                "result": {"minutes": 12.1, "quality": 0.76, "quality_target": 0.759},
                "source": {"url": "https://example.org/acme"},
            },
            sort_keys=False,
        )
    )
    report = import_mlperf(write_tree(tmp_path / "tree", five_runs()), ROUND, catalog, out)
    [written] = report.written
    assert written.replaced == hand and not hand.exists()
    data = yaml.safe_load(written.path.read_text())
    assert "model" not in data and data["result"]["minutes"] == 12.0
    assert "files replaced by an imported entry: 1" in report.summary_lines()


# ---- the real round --------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_round(shared_data, tmp_path_factory, catalog):
    """The v1.1 round imported once, straight from the tar.xz."""
    out = tmp_path_factory.mktemp("v11") / "submissions"
    report = import_mlperf(
        shared_data / "mlperf-training-v1.1.tar.xz", ROUND, catalog, out, read_rcp_tables(ROOT / "catalog", ROUND)
    )
    entries = {}
    for written in report.written:
        data = yaml.safe_load(written.path.read_text())
        org, _, system, benchmark = data["source"]["url"].split("/")[-4:]
        entries[(org, system, benchmark)] = data
    return report, entries, out


def test_real_round_matches_every_reference_score(real_round, shared_data):
    from leaderboard.normalize import olympic_mean

    _, entries, _ = real_round
    with (shared_data / "mlperf-training-v1.1.reference-scores.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 107
    scaled_rows = 0
    for row in rows:
        entry = entries[(row["submitter"], row["system"], row["benchmark"])]
        rules_drop = 4 if row["benchmark"] == "unet3d" else 1
        unscaled = olympic_mean(entry["result"]["runs_minutes"], rules_drop, rules_drop)
        assert unscaled == pytest.approx(float(row["minutes_unscaled"]), rel=1e-4), row
        assert entry["result"]["minutes"] == pytest.approx(unscaled, abs=1e-6), row  # published: unscaled
        factor = entry["provenance"].get("rcp_factor", 1.0)
        assert unscaled * factor == pytest.approx(float(row["minutes_rcp_scaled"]), rel=1e-3), row
        assert entry["system"]["count"] == int(row["accelerators_count"])
        assert entry["division"] == row["division"]
        assert entry["availability"] == AVAILABILITY[row["availability"]]
        scaled = row["minutes_rcp_scaled"] != row["minutes_unscaled"]
        assert (entry["provenance"].get("rcp_factor", 1.0) > 1.0) == scaled, row
        scaled_rows += scaled
    assert scaled_rows == 26


@pytest.mark.parametrize(
    ("org", "system", "benchmark", "minutes", "chips", "failed"),
    [
        ("NVIDIA", "dgxa100_n540_ngc21.09_mxnet", "resnet", 0.347, 4320, 0),
        ("Google", "tpu-v4-4096-TF", "bert", 1196.638, 2048, 0),
        ("Intel-HabanaLabs", "HLS-1H-N64", "resnet", 3.386, 256, 0),
        ("Graphcore", "ipu-pod256-TF1", "resnet", 3.795, 256, 1),
        ("Samsung", "samsung_supercomputer21_dgxa100_n128_pytorch", "bert", 0.418, 1024, 0),
        ("Azure", "nd96amsr_a100_v4_n96_ngc21.09_mxnet", "unet3d", 1.262, 768, 0),
    ],
)
def test_real_round_known_values(real_round, org, system, benchmark, minutes, chips, failed):
    from leaderboard.normalize import olympic_mean

    _, entries, _ = real_round
    entry = entries[(org, system, benchmark)]
    drop = 4 if benchmark == "unet3d" else 1
    assert round(olympic_mean(entry["result"]["runs_minutes"], drop, drop), 3) == minutes  # a plain reading
    assert round(entry["result"]["minutes"], 3) == minutes  # and the score we publish
    assert entry["system"]["count"] == chips
    assert entry["result"]["runs_minutes"].count(None) == failed


def test_real_round_summary_and_validity(real_round):
    report, entries, out = real_round
    assert (report.result_dirs, report.logs_read, len(entries)) == (183, 1810, 183)
    assert report.skipped == []
    assert len(report.runs_failed) == 25 and report.runs_counted == 1785
    assert sum(1 for e in entries.values() if "rcp_factor" in e["provenance"]) > 100
    assert all(e["provenance"]["scaling"] == "unscaled" for e in entries.values())
    assert validate_paths([out], ROOT / "catalog").ok


@pytest.mark.parametrize(
    "repository, folder, url",
    [
        (
            "https://github.com/mlcommons/training_results_v1.0",
            "nettrix/results/X660 G45_SXM4-40G_pytorch/bert",
            "https://github.com/mlcommons/training_results_v1.0/tree/main/nettrix/results/X660%20G45_SXM4-40G_pytorch/bert",
        ),
        (
            "https://github.com/mlcommons/training_results_v0.7/tree/master/",
            "NVIDIA/results/dgxa100_ngc20.06_pytorch/bert",
            "https://github.com/mlcommons/training_results_v0.7/tree/master/NVIDIA/results/dgxa100_ngc20.06_pytorch/bert",
        ),
        # What a URL's path may hold stays as it is; only what it may not is escaped.
        ("https://example.org/r/tree/v2", "a+b/c,d(1)/x~y", "https://example.org/r/tree/v2/a+b/c,d(1)/x~y"),
        ("https://example.org/r/tree/v2", "é/100%#?", "https://example.org/r/tree/v2/%C3%A9/100%25%23%3F"),
    ],
)
def test_a_result_folder_links_to_its_place_in_the_rounds_repository(repository, folder, url):
    from leaderboard.catalog import Round
    from leaderboard.importers.entries import source_url
    from leaderboard.importers.layouts import ResultDir

    round_ = Round("r", "R", "mlperf-training", "2021-06-30", "https://mlcommons.org", results_repository=repository)
    result = ResultDir(folder, "", folder.split("/")[0], "s", "bert", ())
    assert source_url(round_, result) == url
