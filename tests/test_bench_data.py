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


def test_the_harness_moves_outputs_aside_before_timed_builds_and_deletes_them_at_the_end(tmp_path, monkeypatch):
    """A from-scratch build is timed as on a fresh clone: the last run's outputs are moved aside,
    not deleted just before it (a file system's freed inodes slowed the next build), whatever
    exists of them; the run ends by deleting them."""
    import run

    monkeypatch.setattr(run, "TRASH", tmp_path / "trash")
    project = tmp_path / "project"
    (project / "site" / "boards").mkdir(parents=True)
    (project / "site" / "boards" / "a.html").write_text("board")
    (project / "bench.duckdb").write_text("database")
    run.move_aside(project / "site", project / "bench.duckdb", project / ".leaderboard-cache")  # no cache: skipped
    assert sorted(p.name for p in project.iterdir()) == []
    moved = {p.relative_to(tmp_path / "trash").parts[1:] for p in (tmp_path / "trash").rglob("*") if p.is_file()}
    assert moved == {("site", "boards", "a.html"), ("bench.duckdb",)}
    run.move_aside(project)  # again, the same names: a folder of their own
    assert not project.exists() and len(list((tmp_path / "trash").iterdir())) == 2
    run.empty_trash()
    assert not (tmp_path / "trash").exists()
