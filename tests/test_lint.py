"""The code stays as ruff (pinned) wants it: `make lint` as a test, so CI enforces it."""

import subprocess
import sys

from conftest import ROOT


def test_ruff_check_and_format():
    for command in (["check"], ["format", "--check"]):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "leaderboard", "tests", "benchmarks"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stdout + done.stderr
