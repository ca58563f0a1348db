"""Shared test fixtures: a copy of the project's catalog and submissions in a temporary
folder, and a way to run the real command line on it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session", autouse=True)
def shared_chart_cache(tmp_path_factory):
    """One chart cache for the whole test session (a real build keeps it beside its site):
    the many builds of the same data in the tests draw each chart once."""
    folder = tmp_path_factory.mktemp("chart-cache")
    previous = os.environ.get("LEADERBOARD_CACHE")
    os.environ["LEADERBOARD_CACHE"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("LEADERBOARD_CACHE", None)
    else:
        os.environ["LEADERBOARD_CACHE"] = previous


@pytest.fixture(scope="session", autouse=True)
def no_drawing_server():
    """No build of the tests starts a drawing server that outlives it (render/drawing_server.py):
    hundreds of builds in temporary folders would leave one behind for ten minutes. Its own tests
    (test_drawing_server.py) allow it, each in a folder of its own."""
    from leaderboard.render.drawing_server import IDLE_ENV

    with pytest.MonkeyPatch.context() as patched:
        patched.setenv(IDLE_ENV, "0")
        yield


@dataclass
class Run:
    code: int
    out: str
    err: str


def processes_left(pids: list[int], seconds: float) -> list[int]:
    """Of `pids`, those still alive (zombies aside) after waiting up to `seconds` for them to end;
    each one left is killed, so that a failing test leaves no process behind."""
    import signal
    import time

    def alive(pid: int) -> bool:
        try:
            return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False

    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    return left


def run_cli(*args: str, cwd: Path, timeout: float = 300, env: dict | None = None) -> Run:
    """Run `python -m leaderboard ARGS` in `cwd`, as a user would, output captured."""
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})},
    )
    return Run(done.returncode, done.stdout, done.stderr)


def modules_a_build_imports(project: Path) -> set[str]:
    """`leaderboard build -q` run in a fresh interpreter in `project`: the top-level packages its
    own process imported (not its child processes'). The build must succeed."""
    script = (
        "import sys\n"
        "from leaderboard.cli import main\n"
        "sys.argv = ['leaderboard', 'build', '-q']\n"
        "code = 0\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as end:\n"
        "    code = end.code or 0\n"
        "print(code, ' '.join(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True, text=True, timeout=600)
    code, _, modules = run.stdout.splitlines()[-1].partition(" ") if run.stdout else ("", "", "")
    assert run.returncode == 0 and code == "0", run.stdout + run.stderr
    return set(modules.split())


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


def write_epoch_csv(path: Path, columns: list[str], rows: list[dict]) -> Path:
    """A CSV as Epoch AI exports its databases: UTF-8 with a byte order mark, CRLF line ends,
    missing cells empty."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: row.get(c, "") for c in columns})
    path.write_text("\ufeff" + buffer.getvalue(), encoding="utf-8")
    return path


# ---- a throwaway PostgreSQL server -----------------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server on 127.0.0.1 in a temporary folder, run as the postgres user,
    stopped at the end. Skips loudly when Debian's postgresql is not installed."""
    import glob
    import pwd
    import tempfile

    initdb = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not initdb:
        pytest.skip("POSTGRESQL NOT AVAILABLE: install Debian's postgresql (make postgres) to run these tests")
    bindir = Path(initdb[-1]).parent
    as_postgres: list[str] = []
    data = Path(tempfile.mkdtemp(prefix="leaderboard-pg-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(data, user.pw_uid, user.pw_gid)
        as_postgres = ["runuser", "-u", "postgres", "--"]
    port = _free_port()

    def run(*command: str) -> None:
        done = subprocess.run([*as_postgres, *command], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            shutil.rmtree(data, ignore_errors=True)
            pytest.skip(f"POSTGRESQL COULD NOT START: {' '.join(command[:1])}: {done.stderr.strip()[-300:]}")

    run(str(bindir / "initdb"), "-D", str(data / "db"), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
    run(
        str(bindir / "pg_ctl"),
        "-D",
        str(data / "db"),
        "-l",
        str(data / "server.log"),
        "-w",
        "-t",
        "60",
        "-o",
        f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
        "start",
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*as_postgres, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-m", "fast", "-w", "stop"],
            capture_output=True,
            timeout=120,
        )
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server, request):
    """A fresh, empty database on the throwaway server for one test."""
    import re

    import sqlalchemy as sa

    name = "t_" + re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:50]
    engine = sa.create_engine(f"{postgres_server}/postgres", isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    engine.dispose()
    return f"{postgres_server}/{name}"


# ---- the browser (Debian's Chromium through Playwright), one per session for every module --------

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
MISSING = (
    f"BROWSER TESTS SKIPPED: {CHROMIUM} is missing. Install Debian's Chromium "
    "(`make browser`, or `apt-get install chromium`); CI must run these tests."
)


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        warnings.warn(MISSING, stacklevel=1)
        pytest.skip(MISSING)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()
