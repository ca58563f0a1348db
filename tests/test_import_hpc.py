"""MLPerf HPC: the scoring rules as table-driven cases, a malformed log skipping only its result,
and every shipped round imported from the real archives in ../shared/data (skipped without them):
the shipped files are the importer's, and the reference tool's scores are matched."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml
from conftest import ROOT, run_cli

from leaderboard.catalog import RoundRules, load_catalog
from leaderboard.importers.mlperf import import_sources
from leaderboard.importers.mlperf_hpc import run_failure, score_strong, score_weak
from leaderboard.importers.runlog import RunLog, Targets
from leaderboard.validate import validate_paths

CATALOG = load_catalog(ROOT / "catalog")
HPC_ROUNDS = sorted(r.id for r in CATALOG.rounds.values() if r.kind == "mlperf-hpc")
IOU = Targets(quality_target=0.82, direction="higher")
MAE = Targets(quality_target=0.124, direction="lower", eval_key="eval_error")


def run(minutes=10.0, *, status="success", reached=True, quality=0.83, start=0.0, init=1.0, stops=1, error=None):
    return RunLog(
        run_starts=1,
        run_stops=stops,
        start_ms=start,
        stop_ms=start + minutes * 60000,
        status=status,
        init_start_ms=-init * 60000,
        init_stop_ms=0.0,
        reached_target=reached,
        last_quality=quality,
        last_reached_quality=quality if reached else None,
        error=error,
    )


@pytest.mark.parametrize(
    "case, expected",
    [
        (run(), None),
        (run(status="aborted"), None),  # the HPC checker asks for a status, not for success
        (run(status=None), "run_stop has no status"),
        (run(reached=False), "quality target never reached before run_stop (eval_accuracy 0.82)"),
        (run(init=30.0), "initialization took 30.0 minutes (limit 30)"),
        (run(stops=2), "run_stop logged 2 times"),
        (run(error="line 7: MLLOG line is not a JSON object"), "line 7: MLLOG line is not a JSON object"),
        (None, "not read"),
    ],
)
def test_which_runs_count(case, expected):
    assert run_failure(case, IOU) == expected


def test_a_round_without_a_status_rule_counts_a_run_stop_without_status():
    assert run_failure(run(status=None), IOU, status_required=False) is None


STRONG = RoundRules(quality_target=0.82, runs=5, drop_fastest=1, drop_slowest=1)


@pytest.mark.parametrize(
    "minutes, failed, expected",
    [
        ([1, 2, 3, 4, 5], set(), 3.0),  # fastest and slowest dropped
        ([1, 2, 3, 4, 50], {4}, 3.0),  # a failed run is the slowest dropped
        ([4, 2, 3, 1, 5], {1, 2}, None),  # two failed: more than may be dropped
    ],
)
def test_strong_scaling_is_the_olympic_mean(minutes, failed, expected):
    runs = [run(m, reached=i not in failed) for i, m in enumerate(minutes)]
    score = score_strong(runs, STRONG, IOU)
    assert score.minutes == expected
    assert (score.invalid is None) == (expected is not None)


WEAK = RoundRules(quality_target=0.124, runs=3, drop_fastest=0, drop_slowest=0)


@pytest.mark.parametrize(
    "instances, models, minutes, per_minute",
    [
        # (start minute, minutes, reached): the time runs from the first start to the last stop
        ([(0, 10, True), (1, 10, True), (2, 10, True)], 3, 12.0, 0.25),
        ([(0, 10, True), (1, 10, True), (2, 10, True), (0, 30, False)], 3, 12.0, 0.25),  # a failed one is not counted
        ([(0, 10, True), (5, 10, True), (0, 30, False)], 2, None, None),  # fewer than 3 models: no score
    ],
)
def test_weak_scaling_counts_models_and_the_time_to_train_them_all(instances, models, minutes, per_minute):
    runs = [run(m, start=s * 60000, reached=r, quality=0.11) for s, m, r in instances]
    score = score_weak(runs, WEAK, MAE)
    assert (score.models, score.minutes, score.models_per_minute) == (models, minutes, per_minute)
    assert (score.invalid is None) == (minutes is not None)


# A small HPC tree written by the test: one strong and one weak result, in the layout of v1.0 on.
SYSTEM = {
    "submitter": "Acme",
    "system_name": "acme-hpc",
    "division": "closed",
    "status": "onprem",
    "number_of_nodes": "2",
    "accelerators_per_node": "4",
    "accelerator_model_name": "NVIDIA A100-SXM4-80GB",
    "host_processor_model_name": "AMD EPYC 7742",
    "host_processors_per_node": "2",
    "framework": "PyTorch",
}


def _log(start: int, minutes: float, iou: float | None, status: str = "success") -> str:
    def line(key, time_ms, value=None, **metadata):
        record = {"key": key, "time_ms": time_ms, "value": value, "metadata": metadata}
        return ":::MLLOG " + json.dumps(record)

    lines = [line("init_start", start - 1000), line("init_stop", start - 10), line("run_start", start)]
    if iou is not None:
        lines.append(line("eval_accuracy", start + 1000, iou, epoch_num=1))
    lines.append(line("run_stop", start + int(minutes * 60000), status=status))
    return "\n".join(lines) + "\n"


def _tree(root: Path, strong_logs: list[str]) -> Path:
    tree = root / "mlperf-hpc-v1.0"
    (tree / "Acme" / "systems").mkdir(parents=True)
    (tree / "Acme" / "systems" / "acme-hpc.json").write_text(json.dumps(SYSTEM))
    strong = tree / "Acme" / "results" / "acme-hpc" / "strong" / "deepcam"
    weak = tree / "Acme" / "results" / "acme-hpc" / "weak" / "deepcam"
    strong.mkdir(parents=True)
    weak.mkdir(parents=True)
    for i, text in enumerate(strong_logs):
        (strong / f"result_{i}.txt").write_text(text)
    for i in range(6):
        (weak / f"result_{i}.txt").write_text(_log(1_000_000 + i * 60000, 10, 0.83))
    (weak / "pruned_results").mkdir()
    (weak / "pruned_results" / "result_9.txt").write_text(_log(0, 1000, 0.83))  # not read
    return tree


def test_a_malformed_log_skips_only_its_result_with_a_clear_message(project, tmp_path):
    garbled = _log(0, 5, 0.83).replace('"run_start"', '"run_start"}}{', 1)
    logs = [_log(0, 5, 0.83), _log(0, 6, 0.50), _log(0, 7, None), garbled, _log(0, 8, 0.85)]
    tree = _tree(tmp_path, logs)
    result = run_cli("import-mlperf", str(tree), cwd=project)
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    base = "mlperf-hpc-v1.0/Acme/results/acme-hpc/strong/deepcam"
    assert f"{base}/result_1.txt: quality target never reached before run_stop (eval_accuracy 0.82)" in result.out
    assert f"{base}/result_3.txt: line 3: MLLOG line is not a JSON object" in result.out
    assert f"{base}: 3 of 5 runs failed" in result.out  # the strong result is skipped, with its reason
    weak = yaml.safe_load((project / "submissions/mlperf-hpc-v1.0/acme/acme-hpc-deepcam-weak.yaml").read_text())
    assert weak["result"]["models"] == 6  # pruned_results/ not counted
    assert weak["result"]["minutes"] == 15.0  # first start to last stop
    assert (
        weak["source"]["url"]
        == "https://github.com/mlcommons/hpc_results_v1.0/tree/main/Acme/results/acme-hpc/weak/deepcam"
    )
    assert not (project / "submissions/mlperf-hpc-v1.0/acme/acme-hpc-deepcam.yaml").exists()


def test_weak_results_rank_by_models_per_minute_on_their_own_board(empty_project, tmp_path):
    tree = _tree(tmp_path, [_log(0, m, 0.83) for m in (5, 6, 7, 8, 9)])
    slower = tree / "Acme" / "results" / "acme-slow" / "weak" / "deepcam"
    slower.mkdir(parents=True)
    for i in range(5):  # 5 models in 20 minutes: 0.25 a minute, against 6 in 15 minutes (0.4)
        (slower / f"result_{i}.txt").write_text(_log(i * 60000, 16, 0.83))
    (tree / "Acme" / "systems" / "acme-slow.json").write_text(json.dumps({**SYSTEM, "system_name": "acme-slow"}))
    assert run_cli("import-mlperf", str(tree), cwd=empty_project).code == 0
    result = run_cli("build", "--quiet", cwd=empty_project)
    assert result.code == 0, result.out + result.err
    with duckdb.connect(str(empty_project / "leaderboard.duckdb"), read_only=True) as db:
        rows = db.execute(
            "SELECT benchmark, system, models, models_per_minute, rank, verified FROM results ORDER BY benchmark, rank"
        ).fetchall()
        others = db.execute(
            "SELECT count(*) FROM results WHERE (models IS NULL) <> (models_per_minute IS NULL)"
        ).fetchall()
    assert rows == [
        ("deepcam", "acme-hpc", None, None, 1, True),
        ("deepcam-weak", "acme-hpc", 6, 0.4, 1, True),
        ("deepcam-weak", "acme-slow", 5, 0.25, 2, True),
    ]
    assert others == [(0,)]
    board = (empty_project / "site" / "boards" / "mlperf-hpc-v1.0" / "deepcam-weak.html").read_text()
    assert board.index("acme-hpc") < board.index("acme-slow")
    assert "6 models, 0.4 models/min" in board and "ranked by <strong>models per minute</strong>" in board
    # Each result's chip-hours and cost cover its own number of models: neither sorted nor charted.
    assert 'value="cost"' not in board and 'data-sort="chip_hours"' not in board and "charts/" not in board
    assert '<a href="../../benchmarks/deepcam-weak.html">' in board
    assert (empty_project / "site" / "benchmarks" / "deepcam-weak.html").is_file()
    assert "deepcam-weak" not in (empty_project / "site" / "compare.html").read_text()  # nor compared
    assert "An MLPerf HPC round" in (empty_project / "site" / "rounds" / "mlperf-hpc-v1.0.html").read_text()


# Real data: every shipped HPC round against the shipped files and the reference tool.


@pytest.fixture(scope="session")
def hpc_imported(shared_data, tmp_path_factory):
    archives = [shared_data / f"{r}.tar.xz" for r in HPC_ROUNDS if (shared_data / f"{r}.tar.xz").is_file()]
    if not archives:
        pytest.skip("no MLPerf HPC archive in ../shared/data")
    out = tmp_path_factory.mktemp("hpc") / "submissions"
    catalog_dir = out.parent / "catalog"
    shutil.copytree(ROOT / "catalog", catalog_dir)
    shutil.rmtree(catalog_dir / "skipped")  # the import writes its lists afresh
    for round_id in HPC_ROUNDS:
        if (ROOT / "submissions" / round_id).is_dir():
            shutil.copytree(ROOT / "submissions" / round_id, out / round_id)
    outcomes = import_sources(archives, None, CATALOG, catalog_dir, out)
    rounds = {}
    for outcome in outcomes:
        assert outcome.failure is None, outcome.failure
        entries = {}
        for written in outcome.report.written:
            data = yaml.safe_load(written.path.read_text())
            entries[data["source"]["url"].split("/tree/main/", 1)[1]] = data
        rounds[outcome.round_id] = (outcome.report, entries, out)
    return rounds


def _imported(hpc_imported, round_id):
    if round_id not in hpc_imported:
        pytest.skip(f"no {round_id}.tar.xz in ../shared/data")
    return hpc_imported[round_id]


@pytest.mark.parametrize("round_id", HPC_ROUNDS)
def test_the_shipped_hpc_submissions_and_manifest_are_what_the_importer_writes(hpc_imported, round_id):
    report, _, out = _imported(hpc_imported, round_id)
    assert [str(w.path) for w in report.written if w.status != "unchanged"] == []
    shipped = sorted(p.relative_to(ROOT / "submissions") for p in (ROOT / "submissions" / round_id).rglob("*.yaml"))
    assert shipped == sorted(w.path.relative_to(out) for w in report.written)
    manifest = (out.parent / "catalog" / "verified" / f"{round_id}.csv").read_text(encoding="utf-8")
    assert manifest == (ROOT / "catalog" / "verified" / f"{round_id}.csv").read_text(encoding="utf-8")
    assert validate_paths([out / round_id], ROOT / "catalog").problems == []
    left_off = (out.parent / "catalog" / "skipped" / f"{round_id}.csv").read_bytes()
    assert left_off == (ROOT / "catalog" / "skipped" / f"{round_id}.csv").read_bytes()
    assert len(report.left_off) == len(report.skipped) and report.result_dirs == len(report.written) + len(
        report.skipped
    )


REFERENCES = [r for r in HPC_ROUNDS if (ROOT.parent / "shared" / "data" / f"{r}.reference-scores.csv").is_file()]


@pytest.mark.parametrize("round_id", REFERENCES or ["mlperf-hpc-v1.0"])
def test_the_reference_tool_scores_are_matched(hpc_imported, shared_data, round_id):
    """>= 95% of the reference rows found, <= 1% of them off by more than 1e-4 (relative)."""
    _, entries, _ = _imported(hpc_imported, round_id)
    path = shared_data / f"{round_id}.reference-scores.csv"
    if not path.is_file():
        pytest.skip(f"no {path.name}")
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    found, off = 0, []
    for row in rows:
        key = f"{row['org_folder']}/results/{row['system']}/{row['scaling']}/{row['benchmark']}"
        entry = entries.get(key)
        if entry is None:
            continue
        found += 1
        if row["scaling"] == "strong":
            theirs, ours = float(row["minutes"]), entry["result"]["minutes"]
            same = entry["result"].get("models") is None
        else:
            theirs = float(row["models_per_minute"])
            ours = entry["result"]["models"] / entry["result"]["minutes"]
            same = entry["result"]["models"] == int(float(row["number_of_models"]))
        if int(row["accelerators_count"]) > 0:
            same = same and entry["system"]["count"] == int(row["accelerators_count"])
        if not same or abs(ours - theirs) > 1e-4 * theirs:
            off.append((key, theirs, ours))
    assert found >= 0.95 * len(rows), f"{found} of {len(rows)} reference rows found"
    assert len(off) <= 0.01 * len(rows), off


VENDOR = ROOT / "catalog" / "mlperf-logging" / "mlperf_logging"


@pytest.mark.parametrize("round_id", [r for r in HPC_ROUNDS if r != "mlperf-hpc-v0.7"])
def test_hpc_targets_and_runs_are_the_vendored_rules(round_id):
    """Each benchmark's target is its closed (and open) ATLEAST_ONE_CHECK in the vendored
    compliance checker, on the key it checks; runs are benchmark_meta's result counts."""
    ruleset = round_id.rsplit("v", 1)[1] + ".0"
    meta = (VENDOR / "benchmark_meta.py").read_text(encoding="utf-8")
    counts = meta.split("'hpc' : {", 1)[1].split("}", 1)[0]
    for benchmark in CATALOG.benchmarks.values():
        rules = benchmark.rounds.get(round_id)
        if rules is None:
            continue
        name = benchmark.id.removesuffix("-weak")
        for division in ("closed", "open"):
            checks = yaml.safe_load(
                (VENDOR / "compliance_checker" / f"hpc_{ruleset}" / f"{division}_{name}.yaml").read_text()
            )
            check = next(c["KEY"] for c in checks if "ATLEAST_ONE_CHECK" in c["KEY"])
            assert check["NAME"] == benchmark.log_key
            operator, target = re.match(r"\s*v\['value'\]\s*(<=|>=)\s*([0-9.]+)", check["ATLEAST_ONE_CHECK"]).groups()
            assert float(target) == rules.quality_target
            assert operator == ("<=" if benchmark.direction == "lower" else ">=")
        assert rules.open_quality_target == rules.quality_target
        assert f"'{name}': {rules.runs}," in counts
        assert (rules.drop_fastest, rules.drop_slowest) == ((0, 0) if benchmark.scaling == "weak" else (1, 1))


HAND_TYPED = """schema_version: 1
round: mlperf-hpc-v3.0
benchmark: {benchmark}
division: closed
availability: available
submitter: Acme
date: "2023-11-08"
system: {{name: acme-hpc, accelerator: a100-sxm4-80gb, count: 8}}
result: {{minutes: 30.0, quality: 0.83, quality_target: 0.82{models}}}
source: {{url: https://example.org/acme}}
"""


@pytest.mark.parametrize(
    "benchmark, models, message",
    [
        ("deepcam-weak", "", "missing required field 'models' (DeepCAM (weak scaling) is a weak-scaling benchmark)"),
        ("deepcam", ", models: 4", "models is for weak-scaling benchmarks; DeepCAM trains one model"),
        ("deepcam-weak", ", models: 4", None),
    ],
)
def test_models_belongs_to_weak_scaling_results(empty_project, benchmark, models, message):
    path = empty_project / "submissions" / "mlperf-hpc-v3.0" / "acme" / "entry.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(HAND_TYPED.format(benchmark=benchmark, models=models))
    result = run_cli("validate", cwd=empty_project)
    if message is None:
        assert result.code == 0, result.out + result.err
    else:
        assert result.code == 1 and message in result.out + result.err
