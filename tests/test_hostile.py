"""Hostile input and crashes: nothing lost, nothing executed, never a traceback.

Fuzzing (hypothesis), resource attacks, odd files, SIGKILL during builds, concurrent builds.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
import yaml
from conftest import processes_left, run_cli
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_validate import MLPERF, PUBLISHED, place

from leaderboard.build import build_lock
from leaderboard.catalog import load_catalog
from leaderboard.files import dump_yaml
from leaderboard.problems import Problem
from leaderboard.validate import check_submission, validate_paths

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "catalog"
TODAY = dt.date(2026, 1, 1)
BASES = [yaml.safe_load(MLPERF), yaml.safe_load(PUBLISHED)]
for base in BASES:
    base["date"] = str(base["date"])


# ---- fuzzing -----------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


def paths_of(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from paths_of(value, prefix + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from paths_of(value, prefix + (i,))


@st.composite
def mutated_submission(draw):
    data = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(paths_of(data))))
        operation = draw(st.sampled_from(["remove", "replace", "retype", "stretch", "add"]))
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if not path:
            continue
        key = path[-1]
        if operation == "remove" and isinstance(parent, dict):
            del parent[key]
        elif operation == "replace":
            parent[key] = draw(json_values)
        elif operation == "retype":
            value = parent[key]
            parent[key] = str(value) if not isinstance(value, str) else draw(st.sampled_from([1, 1.5, None, [], {}]))
        elif operation == "stretch":
            value = parent[key]
            times = draw(st.integers(2, 5000))
            parent[key] = (
                value * max(1, min(times, 200_000 // max(1, len(value))))
                if isinstance(value, str)
                else (
                    value * 10 ** draw(st.integers(10, 400))
                    if isinstance(value, int) and not isinstance(value, bool)
                    else value
                )
            )
        elif operation == "add" and isinstance(parent.get(key) if isinstance(parent, dict) else None, dict):
            parent[key][draw(st.text(max_size=12))] = draw(json_values)
    return data


def serialise(data, form: str) -> bytes:
    if form == "json":
        return json.dumps(data, allow_nan=True).encode()
    try:
        return dump_yaml(data).encode()
    except (yaml.YAMLError, OverflowError, ValueError):
        return json.dumps(data, allow_nan=True).encode()


def assert_well_formed(result, files: int):
    for problem in result.problems:
        assert isinstance(problem, Problem)
        assert problem.file and problem.json_path.startswith("$") and problem.message
        assert problem.line >= 1 and problem.col >= 1
        assert "Traceback" not in problem.message
        problem.format()
    assert result.ok == (not result.problems)
    assert len(result.entries) <= files


def validate_one(tmp_path: Path, content: bytes, name: str = "entry.yaml"):
    folder = tmp_path / "submissions" / "mlperf-training-v1.1" / "acme-labs"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    (folder / name).write_bytes(content)
    return validate_paths([tmp_path / "submissions"], CATALOG, today=TODAY)


@functools.cache
def loaded_catalog():
    return load_catalog(CATALOG)


class Checked:
    """validate_paths' result shape for one file checked against the catalog loaded once."""

    def __init__(self, path: Path):
        entry, self.problems = check_submission(path, loaded_catalog(), TODAY)
        self.entries = [entry] if entry else []
        self.ok = not self.problems


def check_one(folder: Path, content: bytes, name: str) -> Checked:
    path = folder / "submissions" / "mlperf-training-v1.1" / "acme-labs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return Checked(path)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "1000")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(data=mutated_submission(), form=st.sampled_from(["yaml", "json"]))
@example(data={**BASES[0], "result": {"minutes": float("nan"), "quality": 1, "quality_target": 1}}, form="json")
@example(data={**BASES[0], "system": {**BASES[0]["system"], "count": 10**400}}, form="json")
@example(data={**BASES[0], "date": "2021-13-45"}, form="yaml")
@example(
    data={**BASES[0], "result": {"minutes": 1, "quality": 1, "quality_target": 1, "runs_minutes": []}}, form="yaml"
)
def test_fuzz_mutated_submissions_never_crash(scratch, data, form):
    assert_well_formed(check_one(scratch, serialise(data, form), f"entry.{form}"), 1)


@FUZZ
@given(content=st.binary(max_size=300), name=st.sampled_from(["entry.yaml", "entry.json"]))
@example(content=b"\xef\xbb\xbf" + MLPERF.encode(), name="entry.yaml")
@example(content=MLPERF.encode("utf-16"), name="entry.yaml")
@example(content=b"[" * 5000, name="entry.yaml")
@example(content=b"- " * 5000, name="entry.yaml")
@example(content=b"{" * 5000, name="entry.json")
@example(content=b'{"a": 1e999}', name="entry.json")
@example(content=b"!!binary aGVsbG8=", name="entry.yaml")
@example(content=b"a: !!float nan\n", name="entry.yaml")
@example(content=b"? [a, b]\n: c\n", name="entry.yaml")
@example(content=b"<<: {a: 1}\n", name="entry.yaml")
def test_fuzz_random_bytes_never_crash(scratch, content, name):
    assert_well_formed(check_one(scratch, content, name), 1)


@settings(
    max_examples=int(os.environ.get("FUZZ_BUILD_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.lists(mutated_submission(), min_size=1, max_size=3))
def test_fuzz_build_writes_all_or_nothing(tmp_path_factory, data):
    from leaderboard.build import build

    tmp_path = tmp_path_factory.mktemp("build")
    for i, item in enumerate(data):
        round_ = item.get("round")
        safe = isinstance(round_, str) and re.fullmatch(r"[a-z0-9][a-z0-9.-]{0,40}", round_)
        folder = tmp_path / "submissions" / (round_ if safe else "x") / "acme-labs"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"e{i}.yaml").write_bytes(serialise(item, "yaml"))
    outcome = build(tmp_path / "submissions", CATALOG, tmp_path / "db.duckdb", None)
    assert_well_formed(outcome.validation, len(data))
    assert (tmp_path / "db.duckdb").exists() == outcome.ok
    if outcome.ok:
        with duckdb.connect(str(tmp_path / "db.duckdb"), read_only=True) as con:
            assert con.execute("SELECT count(*) FROM results").fetchone()[0] == outcome.entries


def test_cli_never_prints_a_traceback_on_garbage(empty_project):
    folder = empty_project / "submissions" / "published" / "acme-labs"
    folder.mkdir(parents=True)
    for i, blob in enumerate([b"\x00\xff" * 50, b"a: *x\n", b"%YAML 9.9\n---\na: 1", b"[[[[", b"a: " + b"9" * 5000]):
        (folder / f"g{i}.yaml").write_bytes(blob)
    (folder / "g.json").write_bytes(b'{"schema_version": 1, "round": NaN}')
    for command in (["validate"], ["build"]):
        result = run_cli(*command, cwd=empty_project)
        assert result.code == 1
        assert "Traceback" not in result.out + result.err
        assert result.out.count("submissions/published/acme-labs/g") >= 6


# ---- resource attacks ----------------------------------------------------------------------


def billion_laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} [{','.join(['*' + chr(96 + i)] * 9)}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "name, make, message",
    [
        ("bomb.yaml", lambda: billion_laughs().encode(), "holds more than 100,000 values"),
        ("long.yaml", lambda: b"a: " + b"x" * 1_000_000, "unknown field 'a'"),
        ("keys.yaml", lambda: "".join(f"k{i}: 1\n" for i in range(110_000)).encode(), "1 MiB"),
        ("keys.json", lambda: ("{" + ",".join(f'"{i}":1' for i in range(110_000)) + "}").encode(), "1 MiB"),
        (
            "manykeys.json",
            lambda: ("{" + ",".join(f'"{i}":1' for i in range(101_000)) + "}").encode(),
            "more than 100,000 values",
        ),
        ("deep.yaml", lambda: b"[" * 400_000 + b"]" * 400_000, "nesting deeper than 64 levels"),
        ("deep.json", lambda: b"[" * 400_000 + b"]" * 400_000, "nesting deeper than 64 levels"),
    ],
)
def test_resource_attacks_are_refused_quickly(tmp_path, name, make, message):
    import resource

    content = make()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = validate_one(tmp_path, content, name)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert any(message in p.message for p in result.problems), result.problems
    assert grown_mib < 200


def test_two_gigabyte_file_is_refused_without_reading(tmp_path):
    folder = tmp_path / "submissions" / "mlperf-training-v1.1" / "acme-labs"
    folder.mkdir(parents=True)
    with (folder / "huge.yaml").open("wb") as handle:
        handle.truncate(2 * 1024**3)  # sparse: takes no disk space
    started = time.monotonic()
    result = validate_paths([tmp_path / "submissions"], CATALOG, today=TODAY)
    assert time.monotonic() - started < 10
    [problem] = result.problems
    assert "2,147,483,648 bytes, over the 1 MiB limit" in problem.message


# ---- the filesystem ------------------------------------------------------------------------


def test_symlinks_loops_odd_names_and_unreadable_files(empty_project, tmp_path_factory):
    subs = empty_project / "submissions"
    folder = subs / "mlperf-training-v1.1" / "acme-labs"
    folder.mkdir(parents=True)
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.yaml").write_text(MLPERF)
    (folder / "to-outside.yaml").symlink_to(outside / "secret.yaml")
    (folder / "dir-link").symlink_to(outside, target_is_directory=True)
    (folder / "loop.yaml").symlink_to(folder / "loop.yaml")
    (folder / "dangling.yaml").symlink_to(folder / "nowhere.yaml")
    os.mkfifo(folder / "pipe.yaml")
    (folder / "a folder.yaml").mkdir()
    odd = folder / "ünïcödé 'name' $(x) ;.yaml"
    odd.write_text(MLPERF.replace("acme-64", "odd"))
    result = run_cli("validate", cwd=empty_project, timeout=60)
    assert result.code == 1
    out = result.out
    for link in ("to-outside.yaml", "dir-link", "loop.yaml", "dangling.yaml"):  # never followed, whatever the target
        assert f"{link}:1:1: $: is a symbolic link: submissions and catalog files must be regular files" in out
    assert "pipe.yaml:1:1: $: is a named pipe (FIFO): submissions and catalog files must be regular files" in out
    assert "a folder.yaml:1:1:" not in out  # a folder is walked into, whatever its name
    assert "ünïcödé 'name' $(x) ;.yaml" not in out  # a valid file, whatever its name
    assert "Traceback" not in out + result.err


def test_nothing_outside_the_project_is_written(project, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    (home / "keep.txt").write_text("x")
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "TMPDIR": str(home), "LEADERBOARD_CACHE": ""}
    result = run_cli("build", "-q", cwd=project, env=env, timeout=600)
    assert result.code == 0, result.err
    assert sorted(p.name for p in home.iterdir()) == ["keep.txt"]
    written = {p.name for p in project.iterdir()}
    assert written == {
        "catalog",
        "submissions",
        "site",
        "leaderboard.duckdb",
        ".leaderboard-build.lock",
        ".leaderboard-cache",
    }


# ---- crash safety --------------------------------------------------------------------------


def snapshot(project: Path) -> dict[str, str]:
    files = {}
    for path in sorted((project / "site").rglob("*")):
        if path.is_file():
            files[path.relative_to(project).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def database_rows(project: Path) -> int:
    with duckdb.connect(str(project / "leaderboard.duckdb"), read_only=True) as con:
        return (
            con.execute("SELECT count(*) FROM results").fetchone()[0]
            + con.execute("SELECT count(*) FROM costs").fetchone()[0]
        )


def test_sigkill_at_any_point_leaves_the_previous_build_intact(project):
    started = time.monotonic()
    assert run_cli("build", "-q", cwd=project).code == 0
    duration = time.monotonic() - started
    site, rows = snapshot(project), database_rows(project)
    assert site and rows
    points = [0.05 + duration * i / 14 for i in range(15)]
    for delay in points:
        process = subprocess.Popen(
            [sys.executable, "-m", "leaderboard", "build", "-q"],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert database_rows(project) == rows, f"database damaged by a kill after {delay:.2f}s"
        assert snapshot(project) == site, f"site damaged by a kill after {delay:.2f}s"
    assert run_cli("build", "-q", cwd=project).code == 0
    assert snapshot(project) == site and database_rows(project) == rows
    assert leftovers_once_removed(project) == []


def leftovers_once_removed(project: Path, wait: float = 60) -> list[str]:
    """The hidden files a build left beside the site, once the replaced site's removal (on its
    own, in the background: `.site.<pid>.<id>.old`) is done or `wait` seconds have passed. The
    site a rebuild replaced, kept for the next one (`.site.spare`: render/clone.py), is none."""
    deadline = time.monotonic() + wait
    kept = {".leaderboard-build.lock", ".site.spare"}
    while True:
        leftovers = sorted(p.name for p in project.iterdir() if p.name.startswith(".") and p.name not in kept)
        removing = [name for name in leftovers if re.fullmatch(r"\.site\.\d+\.[0-9a-f]{32}\.old", name)]
        if leftovers != removing or not removing or time.monotonic() > deadline:
            return leftovers
        time.sleep(0.1)


def test_a_replaced_site_left_beside_the_next_build_goes_in_the_background(tmp_path, monkeypatch):
    """A rebuild soon after another finds the replaced site still being removed by its own
    process: the build hands it to a process of its own again, and does not wait for thousands of
    files to go; with no shell to hand it to, it removes it itself."""
    from leaderboard import atomic, build

    old = tmp_path / ".site.123.0123456789abcdef0123456789abcdef.old"
    (old / "boards").mkdir(parents=True)
    (old / "boards" / "a.html").write_text("old page")
    handed: list[Path] = []
    monkeypatch.setattr(atomic, "remove_in_background", lambda folder: handed.append(folder) or True)
    build._remove_leftovers(tmp_path / "leaderboard.duckdb", tmp_path / "site")
    assert handed == [old] and old.is_dir()
    monkeypatch.setattr(atomic, "remove_in_background", lambda folder: False)
    build._remove_leftovers(tmp_path / "leaderboard.duckdb", tmp_path / "site")
    assert not old.exists()


def test_a_second_concurrent_build_is_refused_clearly(project):
    with build_lock(project):
        result = run_cli("build", cwd=project)
    assert result.code == 1
    assert "another build is running here" in result.err and str(os.getpid()) in result.err
    assert "Traceback" not in result.err
    assert run_cli("build", "-q", cwd=project).code == 0


def test_a_killed_builds_forked_workers_do_not_keep_the_lock(tmp_path):
    """A build forks worker processes to validate files; killed, its workers wind down on their
    own time, and must not keep the next build out meanwhile."""
    script = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from leaderboard.build import build_lock\n"
        "with build_lock(Path(sys.argv[1])):\n"
        "    child = os.fork()\n"
        "    if child == 0:  # off the pipes the test reads, which would wait for it\n"
        "        null = os.open(os.devnull, os.O_RDWR)\n"
        "        os.dup2(null, 1)\n"
        "        os.dup2(null, 2)\n"
        "        time.sleep(60)\n"
        "        os._exit(0)\n"
        "    print(child, flush=True)\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    killed = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=False)
    worker = int(killed.stdout)
    try:
        assert killed.returncode == -signal.SIGKILL
        os.kill(worker, 0)  # the forked worker lives on
        with build_lock(tmp_path):
            pass
    finally:
        os.kill(worker, signal.SIGKILL)


def _children(pid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:
            continue
        if f"PPid:\t{pid}" in lines:
            found.append(int(status.parent.name))
    return found


def test_a_killed_build_leaves_no_worker_behind(project):
    """The validation workers a build forks end with it when it is killed (they would otherwise
    wait forever on a pipe they hold themselves)."""
    build = subprocess.Popen(
        [sys.executable, "-m", "leaderboard", "build", "-q", "--jobs", "2"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    workers = []
    while not workers and time.monotonic() < deadline and build.poll() is None:
        workers = _children(build.pid)
        time.sleep(0.02)
    assert workers, "no worker process seen"
    build.send_signal(signal.SIGKILL)
    build.wait()
    left = processes_left(workers, 10)
    assert not left, f"workers left behind: {left}"


def test_two_builds_started_at_once_do_not_corrupt_each_other(project):
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "leaderboard", "build", "-q"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outcomes = [(r.wait(), r.stderr.read()) for r in runs]
    codes = sorted(code for code, _ in outcomes)
    assert codes in ([0, 0], [0, 1])
    for code, err in outcomes:
        if code == 1:
            assert "another build is running here" in err
    assert database_rows(project) > 0 and (project / "site" / "index.html").is_file()


# ---- injection -----------------------------------------------------------------------------


def test_submission_text_never_reaches_sql_as_sql(empty_project):
    evil = "x'); DROP TABLE results; --"
    place(empty_project, MLPERF.replace("name: acme-64", f'name: "{evil}"'))
    assert run_cli("build", "-q", cwd=empty_project).code == 0
    with duckdb.connect(str(empty_project / "leaderboard.duckdb"), read_only=True) as con:
        assert con.execute("SELECT system FROM results").fetchall() == [(evil,)]


@FUZZ
@given(data=mutated_submission())
def test_fast_validator_agrees_with_jsonschema(data):
    """The compiled fast path never calls valid what the reference validator rejects, and the other way round."""
    from leaderboard.schemas import fast_validator, validator

    try:
        fast = fast_validator("submission").is_valid(data)
    except (ValueError, OverflowError, TypeError):
        return  # the full validator decides these
    assert fast == validator("submission").is_valid(data)


def test_a_committed_build_cache_is_refused(project, monkeypatch):
    """A build trusts its cache (valid submissions by hash, drawn charts): a cache committed to
    the repository, say by a pull request, is refused with how to remove it, and nothing is built."""
    monkeypatch.setenv("LEADERBOARD_CACHE", "")  # the cache beside the site, as in a real project
    assert run_cli("build", "-q", cwd=project).code == 0
    cache = project / ".leaderboard-cache" / "validation.json"
    assert cache.is_file()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "-f", str(cache)], cwd=project, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a cache"], cwd=project, check=True)
    site_before = sorted(p.name for p in (project / "site").iterdir())
    database_before = (project / "leaderboard.duckdb").stat().st_mtime_ns
    result = run_cli("build", "-q", cwd=project)
    assert result.code == 1 and "Traceback" not in result.err
    assert "tracked by git" in result.err and "git rm -r --cached" in result.err
    assert "validation.json" in result.err
    assert (project / "leaderboard.duckdb").stat().st_mtime_ns == database_before
    assert sorted(p.name for p in (project / "site").iterdir()) == site_before
    # Untracked again (it stays on disk, ignored): the build goes on.
    subprocess.run([*git, "rm", "-q", "-r", "--cached", ".leaderboard-cache"], cwd=project, check=True)
    assert run_cli("build", "-q", cwd=project).code == 0
