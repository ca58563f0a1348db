"""The drawing server that outlives a build (render/drawing_server.py): the same bytes as a drawing
in this process, one server kept ready from build to build, its end when idle or stopped, a
failure told to the build, and the build drawing on its own whenever the server cannot serve."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import tempfile
import time
from pathlib import Path

import pytest
from conftest import processes_left
from test_painter import dots

from leaderboard.render import drawing_server, painter

VL_VERSION = painter.vega_lite_version()


@pytest.fixture
def runtime(monkeypatch):
    """A private folder of its own for the servers (a short path: a socket's is at most 107 bytes),
    servers allowed (the other tests' builds start none), every server stopped at the end."""
    folder = Path(tempfile.mkdtemp(prefix="lb-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    monkeypatch.setenv(drawing_server.IDLE_ENV, "60")
    monkeypatch.setenv("LEADERBOARD_CACHE", str(folder / "cache"))  # nothing drawn before
    yield folder
    stopped = drawing_server.stop_servers()
    assert not processes_left(stopped, 10)
    shutil.rmtree(folder, ignore_errors=True)


def draw_all(specs: list[dict], workers: int = 2) -> tuple[list[str], painter.Painter]:
    delivered: list[tuple[int, str]] = []
    drawer = painter.Painter(VL_VERSION, workers=workers)
    for i, spec in enumerate(specs):
        drawer.svg(spec, lambda svg, i=i: delivered.append((i, svg)))
    pools = list(drawer._pools)
    drawer.finish()
    assert [i for i, _ in delivered] == list(range(len(specs)))
    return [svg for _, svg in delivered], pools


def server_pid() -> int | None:
    path = painter.server_socket(VL_VERSION)
    return drawing_server.holder(path)


def wait_until_serving(path: Path, pid: int, seconds: float = 30) -> None:
    """Until the server `pid` holds `path` and takes connections on it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        connection = drawing_server._connect(path) if drawing_server.holder(path) == pid else None
        if connection is not None:
            connection.close()
            return
        time.sleep(0.02)
    raise AssertionError(f"server {pid} does not serve {path}")


def test_the_server_draws_the_same_bytes_and_stays_ready_for_the_next_build(runtime):
    specs = [dots([f"served {i}", f"other {i}"]) for i in range(3)]
    drawn, pools = draw_all(specs)
    assert [type(pool).__name__ for pool in pools] == ["Served"]
    assert drawn == [painter.draw(painter.static_spec(s), VL_VERSION) for s in specs]
    first = server_pid()
    assert first, "no server holds the socket after the build"
    # The next build's drawings (not in the cache) go to the same server, already started.
    more = [dots([f"next {i}"]) for i in range(2)]
    drawn, pools = draw_all(more)
    assert [type(pool).__name__ for pool in pools] == ["Served"] and server_pid() == first
    assert drawn == [painter.draw(painter.static_spec(s), VL_VERSION) for s in more]
    # Only the user may reach it: the socket is in a folder no one else may open.
    folder = painter.server_socket(VL_VERSION).parent
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700


def test_the_server_ends_when_idle_and_removes_its_socket(runtime, monkeypatch):
    monkeypatch.setenv(drawing_server.IDLE_ENV, "5")  # time enough to find it before it ends
    draw_all([dots(["idle"])])
    pid = server_pid()
    assert pid
    assert not processes_left([pid], 20), "the idle server did not end"
    assert not painter.server_socket(VL_VERSION).exists()


def test_a_stopped_server_is_started_again_and_a_stale_socket_does_not_stop_it(runtime):
    draw_all([dots(["one"])])
    first = server_pid()
    assert drawing_server.stop_servers(painter.server_socket(VL_VERSION)) == [first]
    assert server_pid() is None
    # A socket file left by a server that was killed (nothing listens on it).
    path = painter.server_socket(VL_VERSION)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()
    drawn, pools = draw_all([dots(["two"])])
    assert drawn == [painter.draw(painter.static_spec(dots(["two"])), VL_VERSION)]
    assert server_pid() not in (None, first)


def test_a_failed_drawing_is_told_to_the_build_and_the_server_goes_on(runtime):
    drawer = painter.Painter(VL_VERSION, workers=2)
    delivered: list[str] = []
    drawer.svg(dots(["fine"]), delivered.append)
    drawer.svg({"mark": "no-such-mark", "data": {"values": []}}, delivered.append)
    with pytest.raises(RuntimeError, match="the drawing server failed to draw a chart: .*conversion failed"):
        drawer.finish()
    assert len(delivered) == 1 and drawer._pools == []
    pid = server_pid()
    drawn, _ = draw_all([dots(["after"])])
    assert server_pid() == pid and ">after</text>" in drawn[0]


def test_a_server_killed_during_a_build_leaves_the_drawings_to_the_builds_workers(runtime):
    draw_all([dots(["before"])])
    pid = server_pid()
    drawer = painter.Painter(VL_VERSION, workers=2)
    delivered: list[str] = []
    drawer.svg(dots(["first"]), delivered.append)
    os.kill(pid, 9)  # no time to say anything: the connection breaks
    specs = [dots([f"after {i}"]) for i in range(3)]
    for spec in specs:
        drawer.svg(spec, delivered.append)
    drawer.finish()
    assert delivered[1:] == [painter.draw(painter.static_spec(s), VL_VERSION) for s in specs]
    assert ">first</text>" in delivered[0]


@pytest.mark.parametrize("how", ["open to others", "a link", "path too long"])
def test_without_a_private_folder_the_build_draws_in_its_own_workers(runtime, monkeypatch, how):
    if how == "open to others":
        folder = runtime / "open"
        folder.mkdir(mode=0o777)
        folder.chmod(0o777)
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
        (folder / "leaderboard").mkdir(mode=0o777)
        (folder / "leaderboard").chmod(0o777)
    elif how == "a link":
        real = runtime / "real"
        (real / "leaderboard").mkdir(parents=True, mode=0o700)
        link = runtime / "linked"
        link.mkdir()
        (link / "leaderboard").symlink_to(real / "leaderboard")
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(link))
    else:
        deep = runtime / ("d" * 90)
        deep.mkdir()
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    assert painter.server_socket(VL_VERSION) is None
    spec = dots([how])
    drawn, pools = draw_all([spec])
    assert [type(pool).__name__ for pool in pools] == ["_Workers"]
    assert drawn == [painter.draw(painter.static_spec(spec), VL_VERSION)]


def test_no_server_when_the_idle_time_is_zero(runtime, monkeypatch):
    monkeypatch.setenv(drawing_server.IDLE_ENV, "0")
    _, pools = draw_all([dots(["none"])])
    assert [type(pool).__name__ for pool in pools] == ["_Workers"]
    assert server_pid() is None


def test_a_second_server_for_the_same_socket_ends_at_once(runtime):
    draw_all([dots(["first"])])
    pid = server_pid()
    path = painter.server_socket(VL_VERSION)
    started = time.monotonic()
    second = drawing_server.start(path, 60, "leaderboard.render.painter")
    assert second.wait(30) == 0 and time.monotonic() - started < 30
    assert server_pid() == pid and drawing_server._connect(path) is not None


def test_a_failure_in_handing_a_drawing_over_is_raised_not_waited_for(runtime):
    """Whatever goes wrong on the connection's thread ends the drawing's future: a build never waits forever."""
    served = drawing_server.Served(painter.server_socket(VL_VERSION), 60, painter.__name__, {}, lambda: None)
    future = served.submit(painter.draw, (painter.static_spec(dots(["x"])), VL_VERSION))
    with pytest.raises(KeyError):
        future.result(timeout=30)
    served.shutdown()


def test_a_server_ends_once_it_has_drawn_its_most_and_the_build_is_done(runtime):
    """vl-convert's memory grows with what it drew: a server ends after MOST_DRAWINGS, once no build is
    connected (never in the middle of one), and the next build starts another."""
    path = painter.server_socket(VL_VERSION)
    server = drawing_server.start(path, 60, painter.__name__, most=2)
    wait_until_serving(path, server.pid)  # else the build would start a server of its own
    drawn, _ = draw_all([dots([f"most {i}"]) for i in range(3)])  # past its most: the build is served to the end
    assert len(drawn) == 3 and all("<svg" in svg for svg in drawn)
    assert server.wait(30) == 0 and not path.exists()
    draw_all([dots(["next"])])
    assert server_pid() not in (None, server.pid)


HUNG_SERVER = """
import fcntl, os, socket, sys, time
path = sys.argv[1]
lock = open(path + ".lock", "a+")
fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
lock.seek(0); lock.truncate(); lock.write(str(os.getpid())); lock.flush()
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(4)
print("ready", flush=True)
taken = [listener.accept() for _ in range(4)]  # and never answered
time.sleep(600)
"""


def test_a_server_that_hangs_is_killed_and_the_build_draws_on_its_own(runtime, monkeypatch):
    """A server that answers nothing would hang every build after it: past ANSWER_SECONDS the build
    kills it and draws the rest in a worker of its own."""
    import subprocess
    import sys

    monkeypatch.setattr(drawing_server, "ANSWER_SECONDS", 2.0)
    path = painter.server_socket(VL_VERSION)
    hung = subprocess.Popen([sys.executable, "-c", HUNG_SERVER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert hung.stdout.readline().strip() == "ready"
        specs = [dots([f"hung {i}"]) for i in range(2)]
        started = time.monotonic()
        drawn, pools = draw_all(specs)
        assert [type(pool).__name__ for pool in pools] == ["Served"]
        assert drawn == [painter.draw(painter.static_spec(s), VL_VERSION) for s in specs]
        assert hung.wait(30) == -9 and time.monotonic() - started < 60
    finally:
        hung.kill()
        hung.wait()
