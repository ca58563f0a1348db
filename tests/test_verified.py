"""Verified is a fact the project establishes: an MLPerf entry is verified only when its file is
exactly what the importer computed from the round's logs (catalog/verified/<round>.csv), never
because of what the file claims."""

from __future__ import annotations

import re
import shutil

import duckdb
from conftest import ROOT, run_cli
from test_validate import MLPERF, place

from leaderboard.render.model import NOT_VERIFIED

IMPORTED = "mlperf-training-v1.1/nvidia/dgxa100_n128_ngc21.09_mxnet-resnet"


def verified(project) -> dict[str, bool]:
    with duckdb.connect(str(project / "leaderboard.duckdb"), read_only=True) as connection:
        return dict(connection.execute("SELECT entry_id, verified FROM results").fetchall())


def copy_imported(project) -> str:
    target = project / "submissions" / f"{IMPORTED}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "submissions" / f"{IMPORTED}.yaml", target)
    return target


def test_an_imported_entry_is_verified_and_a_file_claiming_it_is_not(empty_project):
    copy_imported(empty_project)
    forged = MLPERF.replace(
        "source:\n  url: https://example.com/acme/resnet",
        "provenance:\n  method: computed-from-logs\n  importer: leaderboard-mlperf 1\n"
        "source:\n  url: https://github.com/mlcommons/training_results_v1.1/tree/main/NVIDIA/results/x/resnet",
    )
    place(empty_project, forged, name="acme-64.yaml")
    place(
        empty_project,
        MLPERF.replace("https://example.com/acme/resnet", "https://mlcommons.org/x").replace("acme-64", "acme-65"),
        name="acme-65.yaml",
    )
    done = run_cli("build", "-q", cwd=empty_project)
    assert done.code == 0, done.out + done.err
    assert verified(empty_project) == {
        IMPORTED: True,
        "mlperf-training-v1.1/acme-labs/acme-64": False,
        "mlperf-training-v1.1/acme-labs/acme-65": False,
    }
    page = (empty_project / "site" / "entries" / "mlperf-training-v1.1" / "acme-labs" / "acme-65.html").read_text()
    assert NOT_VERIFIED in page


def test_a_changed_official_score_is_no_longer_verified(empty_project):
    target = copy_imported(empty_project)
    text = target.read_text(encoding="utf-8")
    text = re.sub(r"  runs_minutes:\n(  - .*\n)+", "", text)
    text = re.sub(r"  runs_quality:\n(  - .*\n)+", "", text)
    text = re.sub(r"  run_logs:\n(  - .*\n)+", "", text)
    target.write_text(re.sub(r"minutes: [0-9.]+", "minutes: 0.9", text, count=1), encoding="utf-8")
    done = run_cli("build", "-q", cwd=empty_project)
    assert done.code == 0, done.out + done.err
    assert verified(empty_project) == {IMPORTED: False}
    page = (empty_project / "site" / "entries" / f"{IMPORTED}.html").read_text(encoding="utf-8")
    assert NOT_VERIFIED in page


def test_without_the_manifest_nothing_is_verified(empty_project):
    copy_imported(empty_project)
    shutil.rmtree(empty_project / "catalog" / "verified")
    done = run_cli("build", "-q", cwd=empty_project)
    assert done.code == 0, done.out + done.err
    assert verified(empty_project) == {IMPORTED: False}
