"""Shared test fixtures: a copy of the project's catalog and submissions in a temporary
folder, and a way to run the real command line on it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_cli(*args: str, cwd: Path, timeout: float = 300, env: dict | None = None) -> Run:
    """Run `python -m leaderboard ARGS` in `cwd`, as a user would, output captured."""
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", *map(str, args)],
        cwd=cwd, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})},
    )
    return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder with the shipped catalog and submissions."""
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    shutil.copytree(ROOT / "submissions", tmp_path / "submissions")
    return tmp_path


@pytest.fixture
def empty_project(tmp_path: Path) -> Path:
    """A project folder with the shipped catalog and no submissions."""
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    (tmp_path / "submissions").mkdir()
    return tmp_path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data, or skip when it is absent (fresh machines without the data)."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent: tests over the real data are skipped")
    return SHARED_DATA
