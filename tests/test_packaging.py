"""A non-editable install (a wheel, as `pip install git+https://...` makes) validates and builds:
it carries the JSON Schemas, which live at the top of the repository, not in the package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from leaderboard.schemas import schema_dir

ROOT = Path(__file__).resolve().parent.parent


def test_a_checkout_reads_the_schemas_beside_the_package(tmp_path):
    assert schema_dir() == ROOT / "schemas"
    # Installed: no schemas beside the package, so the prefix's share/leaderboard/schemas.
    (tmp_path / "site-packages" / "leaderboard").mkdir(parents=True)
    installed = schema_dir(tmp_path / "site-packages" / "leaderboard", data=str(tmp_path / "prefix"))
    assert installed == tmp_path / "prefix" / "share" / "leaderboard" / "schemas"


def test_a_wheel_installed_elsewhere_validates_a_submission(tmp_path):
    source = tmp_path / "source"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if name.startswith(("leaderboard/", "schemas/")) or name in ("pyproject.toml", "README.md", "LICENSE"):
            target = source / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, source], check=True)
    prefix = tmp_path / "prefix"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", prefix], check=True)
    (wheel,) = wheels.glob("leaderboard-*.whl")
    # --ignore-installed: else pip first removes this environment's (editable) install.
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--ignore-installed", "--prefix", prefix, wheel], check=True
    )
    packages = next(prefix.glob("lib/python3*/site-packages"))
    assert not (packages / "schemas").exists()
    # The installed package first, then this environment's libraries (never this checkout's package).
    libraries = [p for p in sys.path if p.endswith("site-packages")]
    (packages / "zz-libraries.pth").write_text("\n".join(libraries) + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copytree(ROOT / "catalog", work / "catalog", ignore=shutil.ignore_patterns("mlperf-logging"))
    submission = work / "submissions" / "published" / "01-ai" / "yi-lightning.yaml"
    submission.parent.mkdir(parents=True)
    shutil.copy(ROOT / "submissions" / "published" / "01-ai" / "yi-lightning.yaml", submission)
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    run = subprocess.run(
        [prefix / "bin" / "python", "-c", "import leaderboard, sys; print(leaderboard.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    assert run.stdout.startswith(str(packages))
    checked = subprocess.run(
        [prefix / "bin" / "python", "-m", "leaderboard", "validate", submission],
        cwd=work,
        capture_output=True,
        text=True,
        env=environment,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = subprocess.run(
        [prefix / "bin" / "python", "-m", "leaderboard", "build", "-q", "--jobs", "1"],
        cwd=work,
        capture_output=True,
        text=True,
        env=environment,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert (work / "site" / "entries").is_dir() and (work / "leaderboard.duckdb").is_file()
