"""The catalog's MLPerf Training rules agree with MLCommons' own sources.

catalog/benchmarks.yaml (targets, directions, runs, drops, the benchmarks of each round),
catalog/rounds.yaml (which results folder holds which benchmark) and catalog/rcp/*.csv are
checked against mlperf-logging 4.1.68, vendored in catalog/mlperf-logging/: the compliance
checker's closed_<benchmark>.yaml (the quality target is in the ATLEAST_ONE_CHECK of
eval_accuracy), benchmark_meta.py (runs per result, benchmarks per round) and the rcp_checker's
rcps_*.json. The vendored files are data: YAML is read with yaml.safe_load, benchmark_meta.py
with the ast module (its literals walked by hand), and the numbers are taken out of the check
expressions with regular expressions. Nothing vendored is executed or evaluated.

v0.5 (no mlperf-logging rules) and v0.6 (whose compliance files check no target) are checked
against the literals their rules_source in rounds.yaml names. The results folders of each
round's published tree are listed here as literals; when ../shared/data holds the round's
archive, the list (and the number of logs in every result directory) is checked against it.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import re
import tarfile
from collections import Counter

import pytest
import yaml
from conftest import ROOT, SHARED_DATA

from leaderboard.normalize import to_logged

CATALOG = ROOT / "catalog"
VENDOR = CATALOG / "mlperf-logging" / "mlperf_logging"
ROUNDS = {r["id"]: r for r in yaml.safe_load((CATALOG / "rounds.yaml").read_text())["rounds"]}
BENCHMARKS = {b["id"]: b for b in yaml.safe_load((CATALOG / "benchmarks.yaml").read_text())["benchmarks"]}
MLPERF_ROUNDS = [r for r, data in ROUNDS.items() if data["kind"] == "mlperf-training"]
# Rounds whose rules mlperf-logging holds (compliance checker, benchmark_meta.py).
LOGGING_ROUNDS = [r for r in MLPERF_ROUNDS if r != "mlperf-training-v0.5"]
TARGET_ROUNDS = [r for r in LOGGING_ROUNDS if r != "mlperf-training-v0.6"]
RCP_ROUNDS = sorted(p.stem for p in (CATALOG / "rcp").glob("*.csv"))

# The results folders of each round's published tree (folders holding result_<i>.txt),
# as found in mlcommons/training_results_vX.Y (../shared/data/mlperf-training-vX.Y.tar.xz).
TREE_FOLDERS = {
    "v0.5": {"gnmt", "ncf", "resnet", "ssd", "transformer"},  # maskrcnn, minigo: all logs missing in the public copy
    "v0.6": {"gnmt", "mask", "maskrcnn", "minigo", "resnet", "ssd", "transformer"},
    "v0.7": {"bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer"},
    "v1.0": {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "rnnt", "ssd", "unet3d"},
    "v1.1": {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "rnnt", "ssd", "unet3d"},
    "v2.0": {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "rnnt", "ssd", "unet3d"},
    "v2.1": {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "rnnt", "ssd", "unet3d"},
    "v3.0": {"bert", "dlrm_dcnv2", "gpt3", "maskrcnn", "resnet", "rnnt", "ssd", "unet3d"},
    "v3.1": {"bert", "dlrm_dcnv2", "gpt3", "maskrcnn", "resnet", "rnnt", "ssd", "stable_diffusion", "unet3d"},
    "v4.0": {"bert", "dlrm_dcnv2", "gnn", "gpt3", "llama2_70b_lora", "resnet", "ssd", "stable_diffusion", "unet3d"},
    "v4.1": {"bert", "dlrm_dcnv2", "gnn", "gpt3", "llama2_70b_lora", "ssd", "stable_diffusion"},
    "v5.0": {"bert", "dlrm_dcnv2", "llama2_70b_lora", "llama31_405b", "retinanet", "rgat", "stable_diffusion"},
    "v5.1": {"dlrm_dcnv2", "flux1", "llama2_70b_lora", "llama31_405b", "llama31_8b", "retinanet", "rgat"},
}

# v0.5: MLPerf Training v0.5 Technical Summary (mlcommons/training_policies training_summary.adoc)
# and the eval_target the v0.5 logs print; runs: result_*.txt per result directory of the tree
# (Mask R-CNN and MiniGo from MISSING.txt); 74.9% -> 0.749 and 21.2 mAP -> 0.212 as the logs
# write them, BLEU on the logs' 0-100 scale (the catalog's 0-1 target times its log_scale, 100).
V05 = {
    "resnet": (0.749, 5),
    "ssd": (0.212, 5),
    "maskrcnn": (0.377, 5),
    "gnmt": (21.8, 10),
    "transformer": (25.0, 10),
    "ncf": (0.635, 100),
    "minigo": (0.40, 10),
}
# v0.6: MLCommons' v0.6 announcement (ResNet 75.9%, SSD 23% mAP, GNMT 24 SacreBLEU; MiniGo a 50%
# win rate), the other targets unchanged from v0.5; GNMT and Transformer BLEU on the 0-100 scale
# the v0.6 logs use (as logged: the catalog's target times log_scale).
V06_TARGETS = {"resnet": 0.759, "ssd": 0.23, "maskrcnn": 0.377, "gnmt": 24.0, "transformer": 25.0, "minigo": 0.50}

# Bounds in an ATLEAST_ONE_CHECK that are not the target: sanity bounds (accuracy below 1, loss
# above 0) and, for GPT-3, a floor MLPerf set on log perplexity.
NONTRIVIAL_BOUNDS = {"gpt3": {(None, ">", 2.6)}}


def ruleset(round_id: str) -> str:
    return round_id.rsplit("v", 1)[1] + ".0"


def rounds_of(benchmark: str) -> dict:
    return BENCHMARKS[benchmark].get("rounds") or {}


def benchmarks_of(round_id: str) -> list[str]:
    return [b for b in BENCHMARKS if round_id in rounds_of(b)]


# --- benchmark_meta.py, read as data -------------------------------------------------------


def _literal(node: ast.AST):
    """The value of a dict/list/str/number literal node; anything else is refused."""
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.List):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float):
        return node.value
    raise ValueError(f"not a plain literal: {ast.dump(node)[:80]}")


def _benchmark_meta() -> dict:
    tree = ast.parse((VENDOR / "benchmark_meta.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = _literal(node.value)
    return found


META = _benchmark_meta()
RESULT_FILES = META["_ALL_RESULT_FILE_COUNTS"]["training"]
ALLOWED = META["_ALL_ALLOWED_BENCHMARKS"]["training"]


def allowed(round_id: str) -> set[str]:
    return set(ALLOWED[round_id.rsplit("v", 1)[1]])


def mlperf_name(round_id: str, benchmark: str) -> str:
    """The name mlperf-logging gives our benchmark in that round: the results folder that
    rounds.yaml maps to it when mlperf-logging knows that name (`ssd` for RetinaNet up to
    v4.0), else our id (v0.6's `mask` folder is an alias of `maskrcnn`)."""
    folders = ROUNDS[round_id].get("benchmark_folders") or {}
    names = [f for f, b in folders.items() if b == benchmark and f in allowed(round_id)]
    return names[0] if names else benchmark


# --- compliance checks, parsed --------------------------------------------------------------

_VALUE = r"v\['value'\](?:\['(\w+)'\])?"
_NUMBER = r"(\d+(?:\.\d+)?)"
_RIGHT = re.compile(_VALUE + r"\s*(>=|<=|>|<)\s*" + _NUMBER)
_LEFT = re.compile(_NUMBER + r"\s*(>=|<=|>|<)\s*" + _VALUE)
_FLIP = {">=": "<=", "<=": ">=", ">": "<", "<": ">"}
_BATCH = re.compile(r"if\s+s\['global_batch_size'\]\s*<\s*(\d+)\s+else")


def atleast_one_check(round_id: str, benchmark: str) -> str:
    path = (
        VENDOR
        / "compliance_checker"
        / f"training_{ruleset(round_id)}"
        / f"closed_{mlperf_name(round_id, benchmark)}.yaml"
    )
    checks = [
        item["KEY"]["ATLEAST_ONE_CHECK"]
        for item in yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(item, dict)
        and "KEY" in item
        and item["KEY"]["NAME"] in ("eval_accuracy", "aggregated_eval_accuracy")
        and "ATLEAST_ONE_CHECK" in item["KEY"]
    ]
    assert len(checks) == 1, f"{path}: expected one ATLEAST_ONE_CHECK on eval_accuracy, found {len(checks)}"
    return checks[0]


def comparisons(check: str) -> list[tuple[str | None, str, float]]:
    """(metric key or None, operator with the value on the left, number) of every comparison of
    the logged value in a check expression: `0.15 <= v['value']['CLIP'] <= 1.0` gives
    ('CLIP', '>=', 0.15) and ('CLIP', '<=', 1.0)."""
    found = [(key or None, op, float(number)) for key, op, number in _RIGHT.findall(check)]
    found += [(key or None, _FLIP[op], float(number)) for number, op, key in _LEFT.findall(check)]
    return found


def targets_of(check: str) -> tuple[dict, set]:
    """Targets (metric key or None -> [(operator, number)]) and the other bounds of a check.
    A target is an inclusive comparison (>= or <=) with a number other than 0 and 1."""
    targets: dict[str | None, list[tuple[str, float]]] = {}
    bounds = set()
    for key, op, number in comparisons(check):
        if op in (">=", "<=") and number not in (0.0, 1.0):
            targets.setdefault(key, []).append((op, number))
        else:
            bounds.add((key, op, number))
    return targets, bounds


def direction_of(op: str) -> str:
    return "higher" if op == ">=" else "lower"


# --- tests ----------------------------------------------------------------------------------


def test_every_mlperf_round_is_described():
    for round_id in MLPERF_ROUNDS:
        data = ROUNDS[round_id]
        assert data.get("log_format") in ("mllog", "mll", "mlpv0.5"), round_id
        assert data.get("layout") in ("org-systems", "v0.5-entries"), round_id
        assert data.get("rules_source"), round_id
        assert data.get("results_repository", "").startswith("https://github.com/mlcommons/training_results_v")
    assert ROUNDS["mlperf-training-v0.5"]["layout"] == "v0.5-entries"
    assert ROUNDS["mlperf-training-v0.5"]["log_format"] == "mlpv0.5"
    assert ROUNDS["mlperf-training-v0.6"]["log_format"] == "mll"


@pytest.mark.parametrize("round_id", LOGGING_ROUNDS)
def test_the_benchmarks_of_each_round_are_mlperf_loggings(round_id):
    ours = {mlperf_name(round_id, b) for b in benchmarks_of(round_id)}
    expected = allowed(round_id)
    if round_id == "mlperf-training-v0.6":
        # benchmark_meta.py lists ncf for 0.6, but v0.6 had six benchmarks and no NCF: its
        # compliance checker accepts resnet, ssd, maskrcnn, transformer, gnmt and minigo only.
        expected -= {"ncf"}
        common = (VENDOR / "compliance_checker" / "training_0.6.0" / "common.yaml").read_text()
        assert "'ncf'" not in common
    assert ours == expected


@pytest.mark.parametrize("round_id", LOGGING_ROUNDS)
def test_runs_and_drops_are_mlperf_loggings(round_id):
    for benchmark in benchmarks_of(round_id):
        rules = rounds_of(benchmark)[round_id]
        assert rules["runs"] == RESULT_FILES[mlperf_name(round_id, benchmark)], (round_id, benchmark)
        # result_summarizer: max_dropped_scores = 4 if benchmark == "unet3d" else 1
        drops = 4 if benchmark == "unet3d" else 1
        assert (rules["drop_fastest"], rules["drop_slowest"]) == (drops, drops), (round_id, benchmark)


@pytest.mark.parametrize("round_id", TARGET_ROUNDS)
def test_targets_and_directions_are_the_compliance_checkers(round_id):
    for benchmark in benchmarks_of(round_id):
        data, rules = BENCHMARKS[benchmark], rounds_of(benchmark)[round_id]
        check = atleast_one_check(round_id, benchmark)
        targets, bounds = targets_of(check)
        primary_key = data.get("log_metric")
        batch = _BATCH.search(check)
        primary = targets.pop(primary_key, None) or []
        if batch:  # v0.7 BERT: one target below a global batch size, another from it
            (op_low, below), (op_high, from_size) = primary
            assert op_low == op_high == ">="
            assert rules["quality_target"] == below
            assert rules["batch_size_targets"] == [{"from_batch_size": int(batch[1]), "quality_target": from_size}]
            primary = [(op_low, below)]
        else:
            assert "batch_size_targets" not in rules, (round_id, benchmark)
        assert len(primary) == 1, (round_id, benchmark, check)
        ((op, number),) = primary
        assert rules["quality_target"] == number, (round_id, benchmark, check)
        assert data["direction"] == direction_of(op), (round_id, benchmark)
        extras = {key: value for key, [(_, value)] in targets.items()}
        assert rules.get("extra_targets", {}) == extras, (round_id, benchmark, check)
        for key, [(extra_op, _)] in targets.items():
            expected = (data.get("extra_directions") or {}).get(key, data["direction"])
            assert direction_of(extra_op) == expected, (round_id, benchmark, key)
        odd = {b for b in bounds if b[2] not in (0.0, 1.0)}
        assert odd == NONTRIVIAL_BOUNDS.get(benchmark, set()), (round_id, benchmark, check)


def test_v05_rules_are_the_summarys_and_the_trees():
    round_id = "mlperf-training-v0.5"
    assert set(benchmarks_of(round_id)) == set(V05)
    for benchmark, (target, runs) in V05.items():
        rules = rounds_of(benchmark)[round_id]
        assert (as_logged(rules), rules["runs"]) == (target, runs), benchmark
        assert (rules["drop_fastest"], rules["drop_slowest"]) == (1, 1), benchmark
    assert rounds_of("maskrcnn")[round_id]["extra_targets"] == {"SEGM": 0.339}


def test_v06_targets_are_the_announcements():
    round_id = "mlperf-training-v0.6"
    assert {b: as_logged(rounds_of(b)[round_id]) for b in benchmarks_of(round_id)} == V06_TARGETS


def as_logged(rules: dict) -> float:
    """The round's target as its logs write it: the catalog's, on the benchmark's one scale, times log_scale."""
    return to_logged(rules["quality_target"], rules.get("log_scale", 1.0))


def test_bleu_targets_are_on_one_scale_across_rounds():
    """GNMT and Transformer BLEU: 0-1 in every round of the catalog; v0.5 and v0.6 say they log it 0-100."""
    for benchmark in ("gnmt", "transformer"):
        for round_id, rules in rounds_of(benchmark).items():
            assert 0 < rules["quality_target"] < 1, (benchmark, round_id)
            logged_0_100 = round_id in ("mlperf-training-v0.5", "mlperf-training-v0.6")
            assert rules.get("log_scale", 1.0) == (100 if logged_0_100 else 1.0), (benchmark, round_id)
    assert rounds_of("maskrcnn")[round_id]["extra_targets"] == {"SEGM": 0.339}


@pytest.mark.parametrize("round_id", MLPERF_ROUNDS)
def test_every_results_folder_maps_to_a_benchmark_of_its_round(round_id):
    folders = TREE_FOLDERS[round_id.rsplit("-", 1)[1]]
    mapping = ROUNDS[round_id].get("benchmark_folders") or {}
    for folder in folders:
        benchmark = mapping.get(folder, folder)
        assert benchmark in BENCHMARKS, (round_id, folder)
        assert round_id in rounds_of(benchmark), (round_id, folder, benchmark)
    for folder, benchmark in mapping.items():
        assert folder in folders, (round_id, folder)
        assert benchmark in BENCHMARKS and round_id in rounds_of(benchmark), (round_id, folder)


def test_replaced_benchmarks_exist_and_came_before():
    first_round = {
        b: min((MLPERF_ROUNDS.index(r) for r in rounds_of(b) if r in MLPERF_ROUNDS), default=None) for b in BENCHMARKS
    }
    for benchmark, data in BENCHMARKS.items():
        old = data.get("replaces")
        if old is None:
            continue
        assert old in BENCHMARKS, benchmark
        last_old = max(MLPERF_ROUNDS.index(r) for r in rounds_of(old))
        assert first_round[benchmark] > first_round[old], benchmark
        assert first_round[benchmark] <= last_old + 1, (benchmark, "the old one should not end long before")


# --- RCP tables -----------------------------------------------------------------------------

# mlperf-logging's rcp_checker.py, vendored as three consecutive parts (reading a submission,
# the RCP statistics, checking a directory): together the wheel's file, byte for byte.
RCP_PARTS = sorted((VENDOR / "rcp_checker").glob("rcp_checker.[0-9]-*.py"))
RCP_SOURCE = "".join(path.read_text(encoding="utf-8") for path in RCP_PARTS)
RCP_CHECKER_SHA256 = "d8a014b84b8a327420ca6c053e36fe1f218e706341a2b77e2335c7c06c0f01d8"


def test_the_vendored_rcp_checker_parts_are_the_wheels_file():
    assert [p.name.split("-", 1)[0] for p in RCP_PARTS] == ["rcp_checker.1", "rcp_checker.2", "rcp_checker.3"]
    assert hashlib.sha256(RCP_SOURCE.encode("utf-8")).hexdigest() == RCP_CHECKER_SHA256


def _eval_samples_benchmarks() -> set[str]:
    """The benchmarks whose convergence rcp_checker reads from eval_accuracy's samples_count."""
    match = re.search(r"elif benchmark in (\{[^}]*\}) and \(\"eval_error\" in str", RCP_SOURCE)
    assert match, "rcp_checker.read_submission_file changed: re-check the units"
    return set(re.findall(r'"(\w+)"', match[1]))


def rcp_unit(benchmark: str, ruleset_: str) -> str:
    """The catalog unit of a benchmark's RCPs: what rcp_checker compares them with."""
    if benchmark == "bert":
        return "samples"
    if benchmark == "stable_diffusion":
        assert 'step_unit = "step_num" if ruleset in ["3.1.0"] else "samples_count"' in RCP_SOURCE
        return "passing_eval_steps" if ruleset_ == "3.1.0" else "passing_eval_samples"
    if benchmark in _eval_samples_benchmarks():
        return "eval_samples"
    return "epochs"


def expected_rcp_rows(round_id: str) -> list[list[str]]:
    """catalog/rcp/<round>.csv as the vendored JSON gives it, one row per reference run in the
    JSON's order, benchmarks in id order; only the round's benchmarks (v1.1 leaves BERT out,
    see catalog/rcp/README.md)."""
    rs = ruleset(round_id)
    folders = ROUNDS[round_id].get("benchmark_folders") or {}
    usage = "hpc" if ROUNDS[round_id]["kind"] == "mlperf-hpc" else "training"  # MLPerf HPC: hpc_X.Y.0
    rows = []
    for path in sorted((VENDOR / "rcp_checker" / f"{usage}_{rs}").glob("rcps_*.json")):
        name = path.stem.removeprefix("rcps_")
        benchmark = folders.get(name, name)
        if round_id not in rounds_of(benchmark) or (round_id == "mlperf-training-v1.1" and benchmark == "bert"):
            continue
        for reference, record in json.loads(path.read_text(encoding="utf-8")).items():
            runs = record.get("Epochs to converge", record.get("samples to converge"))
            rows += [[benchmark, reference, str(record["BS"]), rcp_unit(benchmark, rs), str(x)] for x in runs]
    rows.sort(key=lambda row: row[0])
    return rows


@pytest.mark.parametrize("round_id", RCP_ROUNDS)
def test_rcp_tables_are_the_vendored_json(round_id):
    assert round_id in ROUNDS
    with (CATALOG / "rcp" / f"{round_id}.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["benchmark", "reference", "batch_size", "unit", "converged_at"]
    assert rows[1:] == expected_rcp_rows(round_id)


def test_every_round_with_rcps_has_its_table():
    for round_id in MLPERF_ROUNDS:
        has_json = (VENDOR / "rcp_checker" / f"training_{ruleset(round_id)}").is_dir()
        assert has_json == (round_id in RCP_ROUNDS), round_id


# --- the published trees, when ../shared/data holds them ------------------------------------

_LOG = re.compile(r"(?:^|/)results/[^/]+/(?P<folder>[^/]+)/result_\d+\.txt$")

# Result directories of a published tree that hold another number of logs than the round's runs
# although MISSING.txt lists none of theirs: the round's public repository has only these (the
# importer skips them with that reason; the reference tool, which does not count runs, scores
# the U-Net one).
SHORT_UPSTREAM = {"mlperf-training-v1.0/Supermicro/results/as-4142gs-tnr/unet3d": 22}


@pytest.mark.parametrize("round_id", MLPERF_ROUNDS)
def test_tree_folders_and_logs_per_result(round_id):
    archive = SHARED_DATA / f"{round_id}.tar.xz"
    if not archive.is_file():
        pytest.skip(f"{archive} is absent")
    logs: Counter[tuple[str, str]] = Counter()
    missing: set[str] = set()  # result directories MISSING.txt names a log of
    with tarfile.open(archive, "r|xz") as tar:
        for member in tar:
            match = _LOG.search(member.name) if member.isfile() else None
            if match:
                logs[(member.name.rsplit("/", 2)[0], match["folder"])] += 1
            elif member.isfile() and member.name.endswith("/MISSING.txt"):
                text = tar.extractfile(member).read().decode("utf-8")
                missing |= {f"{round_id}/{line.rsplit('/', 1)[0]}" for line in text.splitlines() if "/results/" in line}
    assert {folder for _, folder in logs} == TREE_FOLDERS[round_id.rsplit("-", 1)[1]]
    mapping = ROUNDS[round_id].get("benchmark_folders") or {}
    wrong = {f"{d}/{f}": n for (d, f), n in logs.items() if n != rounds_of(mapping.get(f, f))[round_id]["runs"]}
    assert {d: n for d, n in wrong.items() if d not in missing} == {
        d: n for d, n in SHORT_UPSTREAM.items() if d.startswith(f"{round_id}/")
    }


# ---- prices: none dated before its part's release without a reviewed reason ----------------

H100_PRICE = (
    '  - {{accelerator: {accelerator}, provider: Cheap Cloud, tier: on-demand, usd: 0.05, unit: chip-hour, date: "{date}",'
    ' source: "https://cheap.example/prices"{extra}}}\n'
)
BEFORE_RELEASE = [
    # (accelerator, date, extra fields, the problem or None)
    (
        "h100-sxm5-80gb",
        "2021-01-01",
        "",
        "$.prices[{i}].date: price dated 2021-01-01, before h100-sxm5-80gb was released (2022-09-20)",
    ),
    ("h100-sxm5-80gb", "2022-09-19", "", "price dated 2022-09-19, before h100-sxm5-80gb was released (2022-09-20)"),
    ("h100-sxm5-80gb", "2022-09-20", "", None),  # on the day of its release
    ("h100-sxm5-80gb", "2021-01-01", ', date_before_release: "the source gives the year only, 2022 in fact"', None),
    ("tpu-v4", "2021-05-19", "", "price dated 2021-05-19, before tpu-v4 was released (2021-05-20)"),
]


@pytest.mark.parametrize("accelerator, date, extra, problem", BEFORE_RELEASE)
def test_a_price_dated_before_its_parts_release_is_refused(tmp_path, accelerator, date, extra, problem):
    import shutil

    from leaderboard.catalog import load_catalog

    shutil.copytree(CATALOG, tmp_path / "catalog", ignore=shutil.ignore_patterns("mlperf-logging", "rcp"))
    prices = tmp_path / "catalog" / "prices.yaml"
    text = prices.read_text()
    prices.write_text(text + H100_PRICE.format(accelerator=accelerator, date=date, extra=extra))
    index = len(yaml.safe_load(text)["prices"])
    found = [p.format() for p in load_catalog(tmp_path / "catalog").problems]
    if problem is None:
        assert found == []
    else:
        line = text.count("\n") + 1
        assert len(found) == 1 and found[0].startswith(f"{prices}:{line}:"), found
        assert problem.format(i=index) in found[0]
        assert "say why in date_before_release" in found[0]


def test_the_shipped_prices_dated_before_release_each_say_why():
    """The four shipped prices dated before their part's release were looked into: The Next
    Platform gives a year only (Epoch AI dates it 1 July), and one is Epoch AI's estimate."""
    accelerators = {a["id"]: a for a in yaml.safe_load((CATALOG / "accelerators.yaml").read_text())["accelerators"]}
    early = []
    for name in ("prices.yaml", "prices-epoch.yaml"):
        for price in yaml.safe_load((CATALOG / name).read_text())["prices"]:
            release = accelerators[price["accelerator"]].get("release_date")
            if release and price["date"] < release:
                early.append((name, price["accelerator"], price["date"], bool(price.get("date_before_release"))))
    assert early == [
        ("prices.yaml", "a100-sxm4-80gb", "2020-07-01", True),
        ("prices-epoch.yaml", "a100-sxm4-80gb", "2020-07-01", True),
        ("prices-epoch.yaml", "k40", "2012-07-01", True),
        ("prices-epoch.yaml", "tpu-v5e", "2023-08-15", True),
    ]


def test_the_price_importer_skips_a_row_dated_before_release_that_no_one_explained(tmp_path):
    from leaderboard.catalog import load_catalog
    from leaderboard.importers.prices import import_prices

    table = tmp_path / "prices.csv"
    table.write_text(
        "Price source,Price date,Hardware model,Manufacturer,Vendor,Location,Price per chip-hour (on-demand),"
        "Price per chip-hour (1-year CUD),Price per chip-hour (3-year CUD),Price (hardware purchase),Notes\n"
        "https://cheap.example/,2021-01-01,NVIDIA H100 SXM5 80GB,NVIDIA,Cheap Cloud,,0.05,,,,\n"
        "https://cheap.example/,2023-01-01,NVIDIA H100 SXM5 80GB,NVIDIA,Cheap Cloud,,2.5,,,,\n"
    )
    result = import_prices(table, load_catalog(CATALOG))
    assert [p["date"] for p in result.prices] == ["2023-01-01"]
    assert [s.reason for s in result.skipped] == [
        "on-demand: dated 2021-01-01, before h100-sxm5-80gb was released (2022-09-20)"
    ]


def test_the_reasons_reach_the_prices_table():
    from leaderboard.catalog import load_catalog
    from leaderboard.store import catalog_rows, prices

    rows = catalog_rows(load_catalog(CATALOG))["prices"]
    assert {key for row in rows for key in row} == {column.name for column in prices.columns}
    assert sum(row["date_before_release"] is not None for row in rows) == 4


NEW_ROUND = """\
  - id: {id}
    name: {name}
    kind: {kind}
    date: "2026-06-01"
    url: https://example.org/runs
"""


@pytest.mark.parametrize(
    "round_id, name, kind, field",
    [
        ("papers-2026", "MLPerf Training v6.0", "published", "name"),  # the tester's round
        ("papers-2026", "ML-Perf style runs", "published", "name"),  # spelt apart
        ("mlperf-training-v6.0", "Runs from papers", "published", "id"),
        ("dawn-2", "MLPerf-like DAWNBench", "dawnbench", "name"),
        ("mlperf-training-v6.0", "MLPerf Training v6.0", "mlperf-training", None),  # MLCommons' own
        ("papers-2026", "Runs from papers, 2026", "published", None),
    ],
)
def test_only_mlcommons_rounds_are_named_mlperf(empty_project, round_id, name, kind, field):
    """MLPerf is MLCommons' trademark: a round of published runs (or any non-MLPerf kind) named
    MLPerf is refused, in its name or its id, by `validate` (and so by check-pr) with its place."""
    from conftest import run_cli

    rounds = empty_project / "catalog" / "rounds.yaml"
    text = rounds.read_text()
    at = text.index("  - id: published\n")
    rounds.write_text(text[:at] + NEW_ROUND.format(id=round_id, name=name, kind=kind) + text[at:])
    result = run_cli("validate", cwd=empty_project)
    if field is None:
        assert result.code == 0, result.out
        return
    index = len(yaml.safe_load(text[:at] + "\n")["rounds"])
    line = text[:at].count("\n") + (2 if field == "name" else 1)
    assert result.code == 1, result.out
    assert (
        f"{rounds.relative_to(empty_project)}:{line}:" in result.out
        and f"$.rounds[{index}].{field}: round {round_id!r} of kind {kind} is named MLPerf" in result.out
        and "hint: MLPerf is MLCommons' trademark" in result.out
    ), result.out
