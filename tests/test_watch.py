"""`leaderboard build --watch`: a build, then another each time an input changes, until Ctrl-C."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT, processes_left, run_cli

from leaderboard import watch

CHANGED = "submissions/mlperf-training-v5.0/cisco/hpf_n8-bert.yaml"


@pytest.fixture
def small_project(tmp_path: Path) -> Path:
    """The shipped catalog and one submission (a build of a few seconds)."""
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    (tmp_path / CHANGED).parent.mkdir(parents=True)
    shutil.copy(ROOT / CHANGED, tmp_path / CHANGED)
    return tmp_path


class Watcher:
    """`leaderboard build --watch` running in a folder, its stderr read line by line."""

    def __init__(self, folder: Path, *options: str):
        env = {**os.environ, "NO_COLOR": "1", "LEADERBOARD_CACHE": str(folder / ".leaderboard-cache")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "leaderboard", "build", "-q", "--jobs", "1", "--watch", *options],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.out: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.out.extend(self.process.stdout), daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.put(line)

    def said_until_watching(self, seconds: float = 180) -> str:
        """What it said on stderr up to its next "watching ... for changes" line."""
        said = []
        deadline = time.monotonic() + seconds
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            said.append(line)
            if line.startswith("watching "):
                return "".join(said)

    def stop(self) -> tuple[int, str]:
        """Ctrl-C: its exit code and what it said after."""
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=60)
        time.sleep(0.1)
        said = []
        while not self.lines.empty():
            said.append(self.lines.get())
        return code, "".join(said)

    def printed(self, predicate, seconds: float = 30) -> bool:
        """Whether its stdout's lines meet `predicate` within `seconds` (read on a thread of their own)."""
        deadline = time.monotonic() + seconds
        while not predicate(list(self.out)):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def test_a_saved_submission_is_built_again_and_a_broken_one_changes_nothing(small_project):
    page = small_project / "site/entries/mlperf-training-v5.0/cisco/hpf_n8-bert.html"
    original = (small_project / CHANGED).read_text()
    watcher = Watcher(small_project)
    try:
        first = watcher.said_until_watching()
        assert "watching submissions and catalog for changes (Ctrl-C stops)" in first
        assert "Watched framework" not in page.read_text()

        (small_project / CHANGED).write_text(original.replace("framework: ", "framework: Watched framework ", 1))
        second = watcher.said_until_watching()
        assert f"{CHANGED} changed: building again" in second
        assert "Watched framework" in page.read_text()
        assert watcher.printed(lambda out: sum("1 result" in line for line in out) == 2)  # each build says so

        (small_project / CHANGED).write_text(original.replace("framework: ", "framework: [", 1))
        third = watcher.said_until_watching()
        assert "error: 1 problem: nothing was built (the previous database and site stay)" in third
        assert watcher.printed(lambda out: any(line.startswith(f"{CHANGED}:") for line in out))  # at its line
        assert "Watched framework" in page.read_text()  # the last good site stays

        code, said = watcher.stop()
        assert code == 0 and said.strip().endswith("stopped")
    finally:
        watcher.kill()


def test_nothing_to_watch_without_the_folders(tmp_path):
    done = run_cli("build", "--watch", cwd=tmp_path, timeout=60)
    assert done.code == 1
    assert "error: nothing to watch: no folder submissions, catalog" in done.err


@pytest.mark.parametrize(
    ("path", "seen"),
    [
        ("submissions/r/s/entry.yaml", True),
        ("catalog/rounds.yaml", True),
        ("site/index.html", False),  # what the build writes
        ("site", False),
        ("sites/index.html", True),  # not under site/
        (".site.4242.tmp/index.html", False),  # the site drawn aside
        (".leaderboard.duckdb.4242.tmp", False),  # the database written aside
        (".leaderboard-cache/validation.json", False),
        (".leaderboard-build.lock", False),
        ("submissions/r/s/.entry.yaml.swp", False),  # an editor's
        ("submissions/r/s/entry.yaml~", False),
        ("catalog/__pycache__/x.pyc", False),
    ],
)
def test_what_is_a_change(tmp_path, path, seen):
    ignored = watch.Ignored([tmp_path / "site", tmp_path / "leaderboard.duckdb", tmp_path / ".leaderboard-cache"])
    assert ignored(None, str(tmp_path / path)) is seen


def test_a_change_made_during_the_build_is_found_after_it(tmp_path):
    (tmp_path / "in").mkdir()
    entry = tmp_path / "in" / "entry.yaml"
    entry.write_text("a: 1\n")
    ignored = watch.Ignored([])
    before = watch.listing([tmp_path / "in"], ignored)
    entry.write_text("a: 2\n")  # the same size: its modification time tells
    os.utime(entry, ns=(entry.stat().st_atime_ns, entry.stat().st_mtime_ns + 1_000_000))
    started = time.monotonic()
    assert watch._wait([tmp_path / "in"], before, ignored) == {str(entry)}
    assert time.monotonic() - started < 5


def test_what_changed_between_two_listings(tmp_path):
    (tmp_path / "in" / "site").mkdir(parents=True)  # the site written inside a watched folder
    kept, edited, removed = (tmp_path / "in" / name for name in ("kept.yaml", "edited.yaml", "removed.yaml"))
    for path in (kept, edited, removed):
        path.write_text("a: 1\n")
    ignored = watch.Ignored([tmp_path / "in" / "site"])
    before = watch.listing([tmp_path / "in"], ignored)
    edited.write_text("a: 22\n")
    removed.unlink()
    added, swap, page = (
        tmp_path / "in" / "added.yaml",
        tmp_path / "in" / ".kept.yaml.swp",
        tmp_path / "in" / "site" / "x.html",
    )
    for path in (added, swap, page):
        path.write_text("x\n")
    now = watch.listing([tmp_path / "in"], ignored)
    assert str(page) not in now  # an ignored folder is not walked
    assert watch.changed_since(before, now, ignored) == {str(edited), str(removed), str(added)}
    assert watch.changed_since(now, now, ignored) == set()


def test_a_change_after_the_build_is_told_by_the_system(tmp_path):
    (tmp_path / "in").mkdir()
    ignored = watch.Ignored([])
    before = watch.listing([tmp_path / "in"], ignored)
    added = tmp_path / "in" / "new.yaml"
    threading.Timer(0.6, lambda: added.write_text("a: 1\n")).start()
    assert watch._wait([tmp_path / "in"], before, ignored) == {str(added)}


def test_changed_code_starts_the_command_again(tmp_path, monkeypatch, capsys):
    class Restarted(Exception):
        pass

    def restart() -> None:
        raise Restarted

    for name in ("in", "code"):
        (tmp_path / name).mkdir()
    monkeypatch.setattr(watch, "_restart", restart)
    monkeypatch.setattr(watch, "WARM", ())
    threading.Timer(1.0, lambda: (tmp_path / "code" / "module.py").write_text("x = 1\n")).start()
    with pytest.raises(Restarted):
        watch.watch_builds(lambda: 0, [tmp_path / "in"], [], code=[tmp_path / "code"])
    assert "the code changed: starting again" in capsys.readouterr().err


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_stopped_during_a_build_it_ends_it(tmp_path, stop):
    """Ctrl-C (even where the shell that started it ignored SIGINT: a command put in the background
    by a script) or SIGTERM: the watcher says "stopped", exit 0, and no build is left writing."""
    (tmp_path / "in").mkdir()
    started = tmp_path / "started"
    script = f"""
import os, sys, time
from pathlib import Path
from leaderboard import watch
watch.WARM = ()
def build():
    Path({str(started)!r}).write_text(str(os.getpid()))
    time.sleep(600)
watch.watch_builds(build, [Path({str(tmp_path / "in")!r})], [])
"""
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # noqa: PLW1509 - the test's point
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists() or not started.read_text():
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        build_pid = int(started.read_text())
        process.send_signal(stop)
        assert process.wait(timeout=30) == 0
        assert "stopped" in process.stderr.read()
        assert processes_left([build_pid], 5) == []
    finally:
        if process.poll() is None:
            process.kill()
