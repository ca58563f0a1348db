"""import-dawnbench: DAWNBench's entries as self-reported results, time to target read off the
TSV, hardware through catalog data, malformed entries skipped alone, progress and the reported
cost in the database."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml
from conftest import ROOT, run_cli

from leaderboard.catalog import load_catalog
from leaderboard.importers.dawnbench import (
    ProgressRow,
    TsvError,
    read_progress,
    time_to_target,
)
from leaderboard.importers.hardware import Hardware, Unresolved, read_hardware


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(ROOT / "catalog")


# ---- hardware: free text -> accelerator, count, provider, instance type ----------------------

HARDWARE = [
    # (text, accelerator, count, unit, nodes, provider, instance type)
    ("8 * V100 (AWS p3.16xlarge)", "v100", 8, "chip", 1, "AWS", "p3.16xlarge"),
    ("32 * V100 (4 machines - AWS p3.16xlarge)", "v100", 32, "chip", 4, "AWS", "p3.16xlarge"),
    ("16 p3.16xlarge (AWS)", "v100", 128, "chip", 16, "AWS", "p3.16xlarge"),
    ("Azure ND40s_v2", "v100-sxm2-32gb", 8, "chip", 1, "Microsoft Azure", "ND40rs_v2"),
    ("1/4 of a TPUv2 Pod", "tpu-v2", 16, "device", None, "Google Cloud", "TPUv2 Pod"),
    ("Half of a TPUv2 Pod", "tpu-v2", 32, "device", None, "Google Cloud", "TPUv2 Pod"),
    ("GCP n1-standard-2, Cloud TPU", "tpu-v2", 1, "device", 1, "Google Cloud", "Cloud TPU"),
    ("1 TPUv2", "tpu-v2", 1, "device", 1, "Google Cloud", "TPUv2"),
    (
        "128 nodes with Xeon Platinum 8124M / 144 GB / 36 Cores (Amazon EC2 [c5.18xlarge])",
        "xeon-platinum-8124m",
        256,
        "chip",
        128,
        "AWS",
        "c5.18xlarge",
    ),
    ("1 K80 / 61 GB / 4 CPU (Amazon EC2 [p2.xlarge])", "k80", 1, "chip", 1, "AWS", "p2.xlarge"),
    ("Paperspace Volta (V100)", "v100", 1, "chip", 1, "Paperspace", "Volta"),
    ("16 * 8 * Tesla-V100(ModelArts Service)", "v100", 128, "chip", 16, "Huawei Cloud", None),
    ("8 nodes with InfiniBand (8*P100 for each node)", "p100", 64, "chip", 8, None, None),
    ("Lambda GPU Cloud - 4x GTX 1080 Ti", "gtx-1080-ti", 4, "chip", None, "Lambda", None),
    (
        "Tesla V100 * 4 GPU / 488 GB / 56 CPU (Kakao Brain BrainCloud)",
        "v100",
        4,
        "chip",
        None,
        "Kakao Brain BrainCloud",
        None,
    ),
    ("Baidu Cloud Tesla V100*1-16GB/56 GB/12 CPU", "v100", 1, "chip", None, "Baidu Cloud", None),
    ("1 GPU (Nvidia GeForce GTX 1080 Ti)", "gtx-1080-ti", 1, "chip", None, None, None),
    ("1 NVidia 2080 RTX (dev box)", "rtx-2080", 1, "chip", None, None, None),
    ("1 T4 / GCP", "t4", 1, "chip", None, "Google Cloud", None),
]


@pytest.mark.parametrize(("text", "accelerator", "count", "unit", "nodes", "provider", "instance"), HARDWARE)
def test_hardware_resolves_through_the_catalog(catalog, text, accelerator, count, unit, nodes, provider, instance):
    found = read_hardware(text, catalog)
    assert isinstance(found, Hardware), found
    assert (found.accelerator, found.count, found.unit, found.nodes, found.provider, found.instance_type) == (
        accelerator,
        count,
        unit,
        nodes,
        provider,
        instance,
    )


UNRESOLVED = [
    # (text, words the reason must hold)
    ("60 GB / 16 CPU (Google Cloud [n1-standard-16])", "names no processor model"),
    ("IBM AC922 + Nvidia Tesla V100 (Nimbix np9g1)", "but not how many"),
    ("a TPUv2 Pod", "without saying how much of it"),
    ("16 * V100 (AWS p3.16xlarge)", "says 16"),  # the text and the instance type disagree
    ("4 K80 (AWS p3.2xlarge)", "holds v100"),
    ("some GPUs in a closet", "names no accelerator or instance type"),
    ("2 * V100 and 2 * P100", "several accelerators"),
    ("", "no hardware description"),
]


@pytest.mark.parametrize(("text", "reason"), UNRESOLVED)
def test_hardware_that_leaves_a_fact_open_is_unresolved_with_the_reason(catalog, text, reason):
    found = read_hardware(text, catalog)
    assert isinstance(found, Unresolved), found
    assert reason in found.reason


# ---- time to target: the first TSV row reaching it -------------------------------------------

TSV = "epoch\thours\ttop1Accuracy\n1\t0.1\t90.5\n2\t0.2\t94.0\n3\t0.3\t95.0\n"


@pytest.mark.parametrize(
    ("text", "column", "target", "line", "hours"),
    [
        (TSV, "top1Accuracy", 94, 3, 0.2),  # equal to the target reaches it
        (TSV, "top1Accuracy", 94.5, 4, 0.3),
        (TSV, "top1Accuracy", 90, 2, 0.1),
        ("\ufeffhours\tepoch\tf1Score\r\n 0.5 \t1\t0.74\r\n", "f1Score", 0.73, 2, 0.5),  # BOM, CRLF, order, spaces
        ("epoch\thours\ttop1Accuracy\ttop5Accuracy\n1\t1\t70\t92.9\n2\t2\t71\t93\n", "top5Accuracy", 93, 3, 2.0),
        (
            "epoch\thours\ttop1Accuracy\n1\t0.1\t95\n2\t0.2\t80\n3\t0.3\t96\n",
            "top1Accuracy",
            94,
            2,
            0.1,
        ),  # first, not best
    ],
)
def test_time_to_target_is_the_first_row_reaching_it(text, column, target, line, hours):
    row = time_to_target(read_progress(text, (column,)), column, target)
    assert (row.line, row.hours) == (line, hours)


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("epoch\thours\n1\t0.1\n", "top1Accuracy", "missing column 'top1Accuracy'"),
        ("epoch\ttop1Accuracy\n1\t95\n", "top1Accuracy", "missing column 'hours'"),
        ("epoch\thours\ttop1Accuracy\n1\tsoon\t95\n", "top1Accuracy", "line 2, column 'hours': 'soon' is not a number"),
        ("epoch\thours\ttop1Accuracy\n1\t0.1\t\n", "top1Accuracy", "line 2, column 'top1Accuracy': '' is not a number"),
        ("epoch\thours\ttop1Accuracy\n1\t-1\t95\n", "top1Accuracy", "not a finite, non-negative number"),
        ("epoch\thours\ttop1Accuracy\n", "top1Accuracy", "no rows"),
        ("", "top1Accuracy", "missing column"),
    ],
)
def test_a_malformed_tsv_says_what_is_wrong(text, column, message):
    with pytest.raises(TsvError, match=re.escape(message)):
        read_progress(text, (column,))


def test_a_target_never_reached_says_the_best_row():
    rows = [ProgressRow(2, 1, 0.1, {"top1Accuracy": 91.0}), ProgressRow(3, 2, 0.2, {"top1Accuracy": 93.5})]
    with pytest.raises(TsvError, match=r"no row reaches top1Accuracy >= 94 \(the best is 93.5 at line 3, epoch 2\)"):
        time_to_target(rows, "top1Accuracy", 94)


# ---- the command on a small tree and on the real archive -------------------------------------


def _entry(folder: Path, task: str, name: str, record: dict, tsv: str | None) -> None:
    train = folder / task / "train"
    train.mkdir(parents=True, exist_ok=True)
    (train / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")
    if tsv is not None:
        (train / f"{name}.tsv").write_text(tsv, encoding="utf-8")


RECORD = {
    "version": "v1.0",
    "author": "Acme Research",
    "framework": "PyTorch",
    "model": "ResNet 9",
    "hardware": "8 * V100 (AWS p3.16xlarge)",
    "costPerHour": 24.48,
    "timestamp": "2018-04-20",
    "codeURL": "https://example.org/code (mail ops@example.org)",
}


@pytest.fixture
def small_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "entries"
    _entry(tree, "CIFAR10", "acme_good", RECORD, TSV)
    _entry(tree, "CIFAR10", "acme_missing_column", RECORD, "epoch\thours\n1\t0.1\n")
    _entry(tree, "CIFAR10", "acme_text_cell", RECORD, "epoch\thours\ttop1Accuracy\n1\tnope\t95\n")
    _entry(tree, "CIFAR10", "acme_never", RECORD, "epoch\thours\ttop1Accuracy\n1\t0.1\t93.9\n")
    _entry(tree, "CIFAR10", "acme_no_tsv", RECORD, None)
    _entry(tree, "CIFAR10", "acme_closet", {**RECORD, "hardware": "a GPU in a closet"}, TSV)
    (tree / "SQuAD" / "inference").mkdir(parents=True)
    (tree / "SQuAD" / "inference" / "acme.json").write_text('{"latency": 1.5, "f1Score": 0.75}', encoding="utf-8")
    return tree


def test_import_skips_only_the_malformed_entries_with_clear_messages(empty_project: Path, small_tree: Path):
    done = run_cli("import-dawnbench", small_tree, cwd=empty_project)
    assert done.code == 0, done.err
    assert "6 training entries read; 1 written" in done.out
    assert "1 inference entry read" in done.out
    for message in (
        "acme_missing_column: acme_missing_column.tsv: missing column 'top1Accuracy'",
        "acme_text_cell: acme_text_cell.tsv: line 2, column 'hours': 'nope' is not a number",
        "acme_never: acme_never.tsv: no row reaches top1Accuracy >= 94",
        "acme_no_tsv: no TSV beside the JSON",
        "acme_closet: hardware 'a GPU in a closet': names no accelerator",
    ):
        assert message in done.out
    written = empty_project / "submissions/dawnbench-v1.0/acme-research/cifar10-acme-good.yaml"
    data = yaml.safe_load(written.read_text(encoding="utf-8"))
    assert data["result"]["minutes"] == pytest.approx(12.0)  # 0.2 hours: the first row at 94
    assert data["result"]["quality"] == 94
    assert data["reported_cost"] == {"usd_per_hour": 24.48, "usd": pytest.approx(4.896)}
    assert data["system"] | {} == {
        "name": "8 * V100 (AWS p3.16xlarge)",
        "accelerator": "v100",
        "count": 8,
        "unit": "chip",
        "nodes": 1,
        "provider": "AWS",
        "instance_type": "p3.16xlarge",
        "framework": "PyTorch",
    }
    assert data["provenance"]["method"] == "imported"
    assert "ops@example.org" not in written.read_text(encoding="utf-8")
    assert len(data["result"]["progress"]) == 3
    manifest = (empty_project / "catalog/imported/dawnbench-v1.0.csv").read_text(encoding="utf-8")
    assert "dawnbench-v1.0/acme-research/cifar10-acme-good," in manifest
    assert run_cli("validate", "-q", cwd=empty_project).code == 0
    again = run_cli("import-dawnbench", small_tree, cwd=empty_project)
    assert "(0 files changed, 1 unchanged)" in again.out  # a re-import writes the same bytes


def test_import_of_a_missing_source_is_one_line(empty_project: Path):
    done = run_cli("import-dawnbench", empty_project / "nowhere.tar.xz", cwd=empty_project)
    assert done.code == 1
    assert done.err.startswith("error: ") and "Traceback" not in done.err


@pytest.fixture(scope="module")
def real_import(shared_data: Path, tmp_path_factory) -> Path:
    """The real archive imported into a project with the shipped catalog and no other results, then built."""
    project = tmp_path_factory.mktemp("dawnbench")
    shutil.copytree(ROOT / "catalog", project / "catalog")
    shutil.rmtree(project / "catalog" / "skipped")  # the import writes its list afresh
    (project / "submissions").mkdir()
    done = run_cli("import-dawnbench", shared_data / "dawnbench.tar.xz", cwd=project)
    assert done.code == 0, done.err
    (project / "import.txt").write_text(done.out, encoding="utf-8")
    built = run_cli("build", "-q", cwd=project)
    assert built.code == 0, built.err + built.out
    return project


def test_real_archive_every_training_entry_written_or_explained(real_import: Path):
    out = (real_import / "import.txt").read_text(encoding="utf-8")
    assert "69 training entries read; 63 written" in out
    assert "49 inference entries read" in out
    assert "6 training entries not written:" in out
    assert out.count("names no processor model") == 5 and "Nimbix np9g1" in out
    # The six, with why, in the list the build reads (byte for byte the shipped one) and on the round page.
    listed = (real_import / "catalog" / "skipped" / "dawnbench-v1.0.csv").read_bytes()
    assert listed == (ROOT / "catalog" / "skipped" / "dawnbench-v1.0.csv").read_bytes()
    with duckdb.connect(str(real_import / "leaderboard.duckdb"), read_only=True) as db:
        rows = db.execute("SELECT folder, submitter, benchmark, reason FROM skipped_results ORDER BY folder").fetchall()
        assert db.execute("SELECT left_off FROM rounds WHERE id = 'dawnbench-v1.0'").fetchone() == (6,)
    assert len(rows) == 6 and rows[0][:3] == (
        "CIFAR10/train/ajay_resnet9_1v100_pytorch",
        "Ajay Uppili Arasanipalai",
        "dawnbench-cifar10",
    )
    assert sum("names no processor model" in row[3] for row in rows) == 5
    page = (real_import / "site" / "rounds" / "dawnbench-v1.0.html").read_text(encoding="utf-8")
    assert "63 results on the boards, 6 training entries left off." in page


def test_real_archive_never_holds_an_email_address(real_import: Path):
    address = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
    for path in (real_import / "submissions").rglob("*.yaml"):
        assert not address.search(path.read_text(encoding="utf-8")), path
    for path in (real_import / "site").rglob("*.html"):
        assert not address.search(path.read_text(encoding="utf-8")), path


def test_real_archive_in_the_database(real_import: Path):
    with duckdb.connect(str(real_import / "leaderboard.duckdb"), read_only=True) as db:
        rows = db.execute(
            "SELECT benchmark, count(*), count(reported_cost_usd), bool_or(verified), min(rank) "
            "FROM results WHERE round_kind = 'dawnbench' GROUP BY benchmark ORDER BY benchmark"
        ).fetchall()
        assert rows == [
            ("dawnbench-cifar10", 26, 16, False, 1),
            ("dawnbench-imagenet", 27, 17, False, 1),
            ("dawnbench-squad", 10, 6, False, 1),
        ]
        # fast.ai's 8-V100 CIFAR10 run: the first row at 94% is epoch 35, 0.048321... hours.
        fastai = db.execute(
            "SELECT minutes, quality, reported_cost_usd, cost_usd, source_url FROM results "
            "WHERE entry_id LIKE '%/cifar10-fastai-pytorch'"
        ).fetchone()
        assert fastai[0] == pytest.approx(0.04832193277777778 * 60)
        assert fastai[1] == 94.03
        assert fastai[2] == pytest.approx(24.48 * 0.04832193277777778)
        assert fastai[4] == (
            "https://github.com/stanford-futuredata/dawn-bench-entries/blob/fb27b82/CIFAR10/train/fastai_pytorch.json"
        )
        progress = db.execute(
            "SELECT count(*), min(row), max(row), count(*) FILTER (WHERE reaches_target) FROM progress "
            "WHERE entry_id LIKE '%/cifar10-fastai-pytorch'"
        ).fetchone()
        assert progress[:3] == (40, 1, 40)
        first = db.execute(
            "SELECT min(hours) FROM progress WHERE entry_id LIKE '%/cifar10-fastai-pytorch' AND reaches_target"
        ).fetchone()[0]
        assert first * 60 == pytest.approx(fastai[0])


def test_real_archive_on_the_site(real_import: Path):
    site = real_import / "site"
    round_page = (site / "rounds/dawnbench-v1.0.html").read_text(encoding="utf-8")
    assert "self-reported and never verified" in round_page
    assert 'id="cost-check"' in round_page and '<th scope="row">All</th><td class="n">35</td>' in round_page
    assert (site / "charts/dawnbench-v1.0--reported-cost.svg").is_file()
    entry = next((site / "entries/dawnbench-v1.0").rglob("cifar10-fastai-pytorch.html")).read_text(encoding="utf-8")
    assert 'id="progress"' in entry and "40 evaluations" in entry
    assert 'id="reported-cost"' in entry and "ours / theirs = <strong>1.00</strong>" in entry
    assert 'data-spec="spec-entry--dawnbench-v1.0--' in entry
    board = (site / "boards/dawnbench-v1.0/dawnbench-cifar10.html").read_text(encoding="utf-8")
    linked = re.findall(r'href="\.\./\.\./(entries/[^"]+)"', board)
    assert len(linked) == 26 and all(
        link.startswith("entries/dawnbench-v1.0/") for link in linked
    )  # never beside MLPerf


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["result"].update(minutes=6.0), "is not the time of the first evaluation reaching the target"),
        (lambda d: d["result"].update(quality=95.0), "is not top1Accuracy of the first evaluation"),
        (lambda d: d["result"]["progress"][1].update(top1Accuracy=93.0), "is not the time of the first evaluation"),
        (lambda d: [p.update(top1Accuracy=50.0) for p in d["result"]["progress"]], "no evaluation reaches the target"),
    ],
)
def test_a_time_that_disagrees_with_its_progress_fails_validation(empty_project, small_tree, edit, message):
    assert run_cli("import-dawnbench", small_tree, cwd=empty_project).code == 0
    path = empty_project / "submissions/dawnbench-v1.0/acme-research/cifar10-acme-good.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    done = run_cli("validate", path, cwd=empty_project)
    assert done.code == 1
    assert message in done.out


def test_real_archive_charts_are_valid_and_name_their_results(real_import: Path):
    from test_site import chart_values, vega_lite_validator

    validator = vega_lite_validator()
    charts = sorted((real_import / "site/charts").glob("*dawnbench*.vl.json"))
    assert len(charts) > 63  # a progress chart per entry, the cross-check, the boards' own
    for path in charts:
        spec = json.loads(path.read_text(encoding="utf-8"))
        assert not [e.message for e in validator.iter_errors(spec)], path.name
        assert {v["entry_id"].split("/")[0] for v in chart_values(spec) if "entry_id" in v} == {"dawnbench-v1.0"}
        tooltips = {
            t["field"] for layer in spec.get("layer", [spec]) for t in layer.get("encoding", {}).get("tooltip", [])
        }
        assert {"submitter", "system", "chips", "minutes", "chip_hours"} <= tooltips, path.name
