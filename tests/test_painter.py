"""The charts' static SVGs: labels cut by characters in the image, drawings handed to worker
processes and delivered in order, the same bytes as a drawing in this process, the cache, failures."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path

import pytest
from conftest import processes_left

from leaderboard.render import painter

VL_VERSION = painter.vega_lite_version()


def dots(labels: list[str], limit: int | None = 260) -> dict:
    axis = {"labelLimit": limit} if limit is not None else {}
    return {
        "data": {"values": [{"label": label, "x": i + 1} for i, label in enumerate(labels)]},
        "mark": "point",
        "encoding": {
            "x": {"field": "x", "type": "quantitative"},
            "y": {"field": "label", "type": "nominal", "axis": axis},
            "tooltip": [{"field": "label"}],
        },
        "width": "container",
    }


@pytest.mark.parametrize(
    "node, expected",
    [
        # A limit in pixels becomes a cut at limit / 5.5 characters, measured by nothing.
        ({"labelLimit": 260}, {"labelLimit": 0, "labelExpr": "truncate(datum.label, 47)"}),
        ({"labelLimit": 100}, {"labelLimit": 0, "labelExpr": "truncate(datum.label, 18)"}),
        # No limit (0), or a label expression of the chart's own: left as it is.
        ({"labelLimit": 0}, {"labelLimit": 0}),
        (
            {"labelLimit": 260, "labelExpr": "upper(datum.label)"},
            {"labelLimit": 260, "labelExpr": "upper(datum.label)"},
        ),
        # Found at any depth: axes in encodings, legends, config.
        (
            {"config": {"axisY": {"labelLimit": 55}}, "layer": [{"legend": {"labelLimit": 11}}]},
            {
                "config": {"axisY": {"labelLimit": 0, "labelExpr": "truncate(datum.label, 10)"}},
                "layer": [{"legend": {"labelLimit": 0, "labelExpr": "truncate(datum.label, 2)"}}],
            },
        ),
    ],
)
def test_labels_are_cut_by_characters_in_the_image(node, expected):
    painter._labels_cut_by_characters(node)
    assert node == expected


def test_the_static_spec_leaves_the_page_spec_alone():
    spec = dots(["a"])
    static = painter.static_spec(spec)
    assert static["width"] == painter.SVG_WIDTH and "tooltip" not in static["encoding"]
    assert spec["width"] == "container" and spec["encoding"]["y"]["axis"] == {"labelLimit": 260}


def results_chart(rows: list[dict], **extra) -> dict:
    """A board's chart as the site writes it: named datasets, layers, a filter on datum, tooltips."""
    return {
        "datasets": {"results": rows},
        "layer": [
            {
                "data": {"name": "results"},
                "mark": {"type": "point", "filled": True},
                "transform": [{"filter": "datum.ranked"}],
                "encoding": {
                    "x": {"field": "minutes", "type": "quantitative"},
                    "y": {"field": "system", "type": "nominal"},
                    "tooltip": [{"field": "rank"}, {"field": "cost"}],
                },
            },
            {
                "data": {"name": "results"},
                "mark": {"type": "point", "filled": False},
                "transform": [{"filter": {"field": "ranked", "equal": False}}],
                "encoding": {"x": {"field": "minutes", "type": "quantitative"}, "y": {"field": "system"}},
            },
        ],
        **extra,
    }


ROWS = [
    {"system": "a", "minutes": 3.0, "ranked": True, "rank": "1", "cost": 10.0},
    {"system": "b", "minutes": 4.0, "ranked": False, "rank": None, "cost": 12.0},
]


@pytest.mark.parametrize(
    "change, redrawn",
    [
        ({"rank": "2"}, False),  # shown by a tooltip only: not in the image
        ({"cost": 99.0}, False),
        ({"minutes": 5.0}, True),  # drawn
        ({"ranked": False}, True),  # read by a filter: a hollow point now
    ],
)
def test_an_svg_is_keyed_by_the_fields_it_draws(change, redrawn):
    """A value only a tooltip showed is not in the SVG's spec: a rebuild that changes it draws
    nothing again. The image is the same bytes as one drawn with every field."""
    changed = [{**ROWS[0], **change}, ROWS[1]]
    before, after = painter.static_spec(results_chart(ROWS)), painter.static_spec(results_chart(changed))
    assert [sorted(row) for row in before["datasets"]["results"]] == [["minutes", "ranked", "system"]] * 2
    assert (painter.svg_key(before, VL_VERSION) != painter.svg_key(after, VL_VERSION)) is redrawn
    every_field = painter.static_spec(results_chart(changed))
    every_field["datasets"]["results"] = changed
    assert painter.draw(after, VL_VERSION) == painter.draw(every_field, VL_VERSION)


@pytest.mark.parametrize(
    "extra",
    [
        {"params": [{"name": "pick", "select": "point"}]},  # a selection may read any field
        {"transform": [{"calculate": "datum.cost * 2", "as": "double"}]},  # a transform other than a filter
        {"encoding": {"color": {"condition": {"test": "datum['cost'] > 11", "value": "red"}}}},  # datum[...]
        {"encoding": {"color": {"field": {"repeat": "row"}}}},  # a field that is not a plain name
    ],
)
def test_a_chart_that_may_read_fields_otherwise_keeps_them_all(extra):
    static = painter.static_spec(results_chart(ROWS, **extra))
    assert static["datasets"]["results"] == ROWS


def test_a_long_label_is_cut_with_an_ellipsis():
    long = "Some Submitter: " + "x" * 80
    svg = painter.draw(painter.static_spec(dots([long, "short"])), VL_VERSION)
    assert ">short</text>" in svg
    assert f">{long[:46]}…</text>" in svg
    assert f">{long}</text>" not in svg  # (the points' aria-labels still hold it whole)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEADERBOARD_CACHE", str(tmp_path))
    return tmp_path


def test_workers_draw_the_same_bytes_and_deliver_in_order(cache):
    specs = [dots([f"label {i}", f"other {i}"]) for i in range(4)]
    delivered: list[tuple[int, str]] = []
    drawer = painter.Painter(VL_VERSION, workers=2)
    for i, spec in enumerate(specs):
        drawer.svg(spec, lambda svg, i=i: delivered.append((i, svg)))
    assert delivered == [] and drawer._pools  # handed over, not drawn here
    drawer.finish()
    assert drawer._pools == []  # the workers are stopped
    assert [i for i, _ in delivered] == [0, 1, 2, 3]
    # A drawing in this process gives the same bytes (the same fonts: vl-convert's own).
    assert [svg for _, svg in delivered] == [painter.draw(painter.static_spec(s), VL_VERSION) for s in specs]
    assert len(list((cache / "svg").glob("*.svg"))) == 4


def test_a_few_drawings_start_one_worker_and_many_the_others(cache, monkeypatch):
    """A rebuild drawing a chart or two starts one worker (half a second or more of a core each);
    once MORE_WORKERS_FROM drawings wait, the others start, and the drawings are shared out."""
    monkeypatch.setattr(painter, "MORE_WORKERS_FROM", 3)
    delivered: list[tuple[int, str]] = []
    drawer = painter.Painter(VL_VERSION, workers=3)
    specs = [dots([f"chart {i}"]) for i in range(8)]
    for i, spec in enumerate(specs[:2]):
        drawer.svg(spec, lambda svg, i=i: delivered.append((i, svg)))
    assert [pool.size for pool in drawer._pools] == [1]
    for i, spec in enumerate(specs[2:], start=2):  # the first worker is still starting: they wait
        drawer.svg(spec, lambda svg, i=i: delivered.append((i, svg)))
    assert [pool.size for pool in drawer._pools] == [1, 2]
    # Each pool holds a drawing a worker and AHEAD more; the rest wait for the first with room.
    assert all(pool.waiting <= pool.size + painter.AHEAD for pool in drawer._pools)
    drawer.finish()
    assert drawer._pools == []
    assert [i for i, _ in delivered] == list(range(8))
    assert [svg for _, svg in delivered] == [painter.draw(painter.static_spec(s), VL_VERSION) for s in specs]


class HandPool:
    """A pool of `size` workers whose drawings the test finishes by hand (painter._Workers's
    interface: size, waiting, submit, executor.shutdown)."""

    def __init__(self, size: int):
        self.size, self.waiting, self.drawings = size, 0, []
        self.executor = self

    def submit(self, job, args) -> Future:
        future: Future = Future()
        self.waiting += 1
        future.add_done_callback(self._done)
        self.drawings.append((args[0], future))
        return future

    def _done(self, _future: Future) -> None:
        self.waiting -= 1

    def finish_first(self) -> None:
        label, future = next((label, f) for label, f in self.drawings if not f.done())
        future.set_result(f"<svg>{label}</svg>")

    def labels(self) -> list[str]:
        return [label for label, _ in self.drawings]

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        for _label, future in self.drawings:
            future.cancel()  # (not one drawn yet)


def test_a_free_worker_takes_the_next_drawing_while_a_slow_one_draws(monkeypatch):
    """Drawings wait in the painter, not in a pool: each goes to the first pool with room. Handed
    out as they came, a slow pool kept its share to draw alone at the end of a cold build while
    the other had finished (5 to 7 s of a build)."""
    slow, fast = HandPool(1), HandPool(1)
    monkeypatch.setattr(painter, "_first_workers", lambda _version: slow)
    monkeypatch.setattr(painter, "_Workers", lambda _size: fast)
    monkeypatch.setattr(painter, "MORE_WORKERS_FROM", 3)
    monkeypatch.setattr(painter, "_cache_get", lambda _name: None)
    monkeypatch.setattr(painter, "_cache_put", lambda _name, _drawn: None)
    drawer = painter.Painter(VL_VERSION, workers=2)
    delivered: list[str] = []
    jobs = [(f"chart {i}", lambda svg: delivered.append(svg)) for i in range(10)]
    for label, deliver in jobs:
        drawer._paint(label, lambda static, _version: "", (label, VL_VERSION), deliver)
    assert slow.labels() == ["chart 0", "chart 1"]  # one drawing, one ahead (AHEAD)
    assert fast.labels() == ["chart 2", "chart 3"]
    assert len(drawer._queued) == 6
    for _ in range(6):  # the slow pool draws on; the fast one takes every drawing that waits
        fast.finish_first()
    assert slow.labels() == ["chart 0", "chart 1"]
    assert fast.labels() == [f"chart {i}" for i in range(2, 10)]
    for _ in range(2):
        slow.finish_first()
        fast.finish_first()
    drawer.finish()
    assert delivered == [f"<svg>chart {i}</svg>" for i in range(10)]  # in the order handed over
    assert drawer._pools == [] and not drawer._queued


def test_a_failed_build_drops_the_drawings_not_handed_out(monkeypatch):
    pool = HandPool(1)
    monkeypatch.setattr(painter, "_first_workers", lambda _version: pool)
    monkeypatch.setattr(painter, "_cache_get", lambda _name: None)
    drawer = painter.Painter(VL_VERSION, workers=2)
    for i in range(5):
        drawer._paint(f"chart {i}", lambda static, _version: "", (f"chart {i}", VL_VERSION), lambda _svg: None)
    futures = [future for future, _name, _deliver in drawer.pending]
    drawer.close()
    assert all(future.cancelled() for future in futures[2:])  # never handed to the pool
    assert all(future.done() for future in futures)  # nothing left for finish() to wait on
    assert drawer._pools == [] and not drawer._queued


def test_a_chart_in_the_cache_is_delivered_at_once(cache):
    spec = dots(["cached"])
    first = painter.svg(spec, VL_VERSION)
    delivered: list[str] = []
    drawer = painter.Painter(VL_VERSION, workers=2)
    drawer.svg(spec, delivered.append)
    assert delivered == [first] and drawer._pools == []  # no worker started for it
    drawer.finish()


def test_one_job_draws_in_this_process(cache):
    delivered: list[str] = []
    drawer = painter.Painter(VL_VERSION, workers=1)
    drawer.svg(dots(["here"]), delivered.append)
    assert len(delivered) == 1 and ">here</text>" in delivered[0] and drawer._pools == []


def test_a_drawing_that_fails_raises_at_the_end_and_stops_the_workers(cache):
    drawer = painter.Painter(VL_VERSION, workers=2)
    delivered: list[str] = []
    drawer.svg(dots(["fine"]), delivered.append)
    drawer.svg({"mark": "no-such-mark", "data": {"values": []}}, delivered.append)
    with pytest.raises(Exception, match="Vega-Lite to SVG conversion failed"):
        drawer.finish()
    assert drawer._pools == []
    assert len(delivered) == 1  # the drawing before the failure was delivered


def test_the_vega_lite_version_is_altairs():
    import altair

    assert altair.SCHEMA_VERSION.startswith(f"v{painter.vega_lite_version()}.")


def test_a_killed_build_leaves_no_drawing_worker_behind(tmp_path):
    """The workers drawing a build's charts end with it when it is killed: they had waited on the
    pool's queue forever (two were found eight minutes after their build)."""
    script = (
        "import multiprocessing, os, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from test_painter import dots\n"
        "from leaderboard.render import painter\n"
        "drawer = painter.Painter(painter.vega_lite_version(), workers=2)\n"
        "drawer.svg(dots(['a']), print)\n"
        "print(' '.join(str(p.pid) for p in multiprocessing.active_children()), flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    # Said into a file, not a pipe: a worker left behind would hold a pipe open, and the test wait on it.
    said = tmp_path / "said.txt"
    with said.open("w") as out:
        killed = subprocess.run(
            [sys.executable, "-c", script, str(Path(__file__).parent)],
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
            env={**os.environ, "LEADERBOARD_CACHE": str(tmp_path)},
            timeout=120,
        )
    assert killed.returncode == -signal.SIGKILL, said.read_text()
    workers = [int(pid) for pid in said.read_text().split()]
    assert workers, said.read_text()
    left = processes_left(workers, 20)
    assert not left, f"drawing workers left behind: {left}"


def test_making_the_bundle_says_nothing_on_standard_error():
    """vl-convert's bundler writes a line for each pass of its tree shaker to the process's
    standard error, from Rust: a `--jobs 1` build makes the bundle in its own process, whose
    standard error is the terminal."""
    code = "from leaderboard.render import painter; print(len(painter.bundle_text(painter.vega_lite_version())))"
    made = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert int(made.stdout) > 100_000
    assert made.stderr == ""


def test_what_else_is_written_to_standard_error_meanwhile_comes_out_after(capfd):
    with painter._stderr_without(painter._BUNDLER_NOISE):
        os.write(2, b"tree-shaker; pass=1\na warning\ntree-shaker; pass=12\n")
        assert capfd.readouterr().err == ""
    assert capfd.readouterr().err == "a warning\n"
