"""The benchmark harness's synthetic submissions (benchmarks/generate.py) stay valid as the rules
grow: a rule that refuses some of them would leave `make bench` measuring a build that fails."""

from __future__ import annotations

import shutil
import sys

from conftest import ROOT, run_cli

sys.path.insert(0, str(ROOT / "benchmarks"))
from generate import generate  # noqa: E402


def test_the_synthetic_submissions_are_valid(tmp_path):
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")  # a project, as the harness makes one
    paths = generate(3_000, tmp_path / "submissions", seed=7)
    assert len(paths) == 3_000
    done = run_cli("validate", "-q", cwd=tmp_path)
    assert done.code == 0, done.out[-2000:] + done.err[-2000:]
    assert "files checked: all valid" in done.out + done.err
