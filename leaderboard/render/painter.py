"""The charts' static SVGs (vl-convert) and the Vega JavaScript bundle: drawn in worker processes
while the pages are rendered, and kept in a cache by content so a rebuild redraws only what changed.

Only the standard library, orjson, vl_convert, the package's own __init__ and vega_lite.py (its
schema's version) are imported here: a worker process imports nothing of the site's (no Jinja2),
so it starts in a fraction of a second.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path

import orjson

from leaderboard.render.vega_lite import SCHEMA_VERSION
from leaderboard.workers import available_cpus, end_with

SVG_WIDTH = 640
# Vega cuts a label longer than its labelLimit (pixels) by measuring it again and again, one font
# lookup a letter: most of a chart's drawing time. The image cuts such labels at a number of
# characters instead (the page's live chart still measures): the limit over this many pixels a
# character, about the average width of a letter at Vega's 10-pixel label font.
PIXELS_PER_CHARACTER = 5.5

FONTS_CONF = Path(__file__).with_name("vl-convert-fonts.conf")
_FIRST_DRAWING = {"mark": "text", "data": {"values": [{"t": "Aa"}]}, "encoding": {"text": {"field": "t"}}}

_cache_root: Path | None = None


def static_spec(spec: dict) -> dict:
    """The spec for the SVG: a fixed width (there is no container to fill), no tooltips or links
    (an image cannot use them), and labels cut at a number of characters, not measured pixels."""
    static = orjson.loads(orjson.dumps(spec))
    static["width"] = SVG_WIDTH
    for layer in [static, *static.get("layer", [])]:
        layer.get("encoding", {}).pop("tooltip", None)
        layer.get("encoding", {}).pop("href", None)
    _labels_cut_by_characters(static)
    _drawn_fields_only(static)
    return static


def _drawn_fields_only(static: dict) -> None:
    """The named datasets' rows with only the fields the chart reads: a value that only a tooltip
    showed (a result's rank, its cost on a chip-hours chart) is not in the SVG, nor in its key, so
    a change to it draws nothing again. Every field is kept where the chart may read one in a way
    not looked for here: a transform other than a filter, a parameter, a repeat, a field that is
    not a plain name, `datum` other than `datum.<name>`."""
    datasets = static.get("datasets")
    if not isinstance(datasets, dict):
        return
    rest = {key: value for key, value in static.items() if key != "datasets"}
    read = _fields_read(rest)
    if read is None:
        return
    for name, rows in datasets.items():
        if isinstance(rows, list):
            datasets[name] = [
                {key: value for key, value in row.items() if key in read} if isinstance(row, dict) else row
                for row in rows
            ]


_PLAIN_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DATUM = re.compile(r"\bdatum\b(\.[A-Za-z_][A-Za-z0-9_]*)?")


def _fields_read(node: object) -> set[str] | None:
    """Every data field the spec `node` reads (by `field` or in an expression as datum.<name>);
    None when it may read one another way."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if {"params", "selection", "repeat"} & item.keys():
                return None
            if any(set(step) - {"filter"} for step in item.get("transform", []) if isinstance(step, dict)):
                return None
            field = item.get("field")
            if field is not None:
                if not isinstance(field, str) or not _PLAIN_FIELD.fullmatch(field):
                    return None
                found.add(field)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and "datum" in item:
            for match in _DATUM.finditer(item):
                if match.group(1) is None:
                    return None  # datum itself, or datum[...]: any field
                found.add(match.group(1)[1:])
    return found


def _labels_cut_by_characters(node: object) -> None:
    """Every axis or legend with a labelLimit in pixels: the same cut, in characters, by a label
    expression (Vega's truncate(), which measures nothing), and no pixel limit left to measure."""
    if isinstance(node, dict):
        limit = node.get("labelLimit")
        if isinstance(limit, int | float) and limit > 0 and "labelExpr" not in node:
            node["labelExpr"] = f"truncate(datum.label, {int(limit // PIXELS_PER_CHARACTER)})"
            node["labelLimit"] = 0
        for value in node.values():
            _labels_cut_by_characters(value)
    elif isinstance(node, list):
        for value in node:
            _labels_cut_by_characters(value)


def draw(static: dict, vl_version: str) -> str:
    """One chart drawn as SVG, the same bytes in any process (runs in a worker)."""
    return _stable_ids(_vl_convert(vl_version).vegalite_to_svg(static, vl_version=vl_version))


def bundle_text(vl_version: str) -> str:
    """The Vega JavaScript bundle the site's live charts use (runs in a worker, or in the build's
    process with `--jobs 1`)."""
    with _stderr_without(_BUNDLER_NOISE):
        return _vl_convert(vl_version).javascript_bundle(vl_version=vl_version)


# What vl-convert's bundler (2.0) writes to the process's standard error for each pass of its tree
# shaker, from Rust, past Python's sys.stderr: not for a person building the site.
_BUNDLER_NOISE = re.compile(rb"^tree-shaker; pass=\d+\n", re.MULTILINE)


@contextmanager
def _stderr_without(noise: re.Pattern[bytes]) -> Iterator[None]:
    """Standard error (file descriptor 2) caught meanwhile, then written out without the lines
    `noise` matches: what the process's other threads write meanwhile comes out after, not lost."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no standard error to keep clean (a process started without one)
        yield
        return
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            rest = memoryview(noise.sub(b"", caught.read()))
            while rest:
                rest = rest[os.write(2, rest) :]


@lru_cache(maxsize=1)
def _vl_convert(vl_version: str):
    """vl_convert, its fonts set up by a first drawing: vl-convert's own Liberation Sans only
    (FONTS_CONF), never the machine's fonts. The setting is read once, when vl-convert first lays
    out text, and taken back at once: the process's other programs (a browser) keep their fonts."""
    import vl_convert

    previous = os.environ.get("FONTCONFIG_FILE")
    os.environ["FONTCONFIG_FILE"] = str(FONTS_CONF)
    try:
        vl_convert.vegalite_to_svg(_FIRST_DRAWING, vl_version=vl_version)
    finally:
        if previous is None:
            os.environ.pop("FONTCONFIG_FILE", None)
        else:
            os.environ["FONTCONFIG_FILE"] = previous
    return vl_convert


def _stable_ids(drawn: str) -> str:
    """Vega numbers clip paths per process: renumber them in order of appearance, so the same
    chart always gives the same bytes."""
    numbers: dict[str, str] = {}

    def renumber(match: re.Match) -> str:
        numbers.setdefault(match.group(0), f"{match.group(1)}{len(numbers) + 1}")
        return numbers[match.group(0)]

    return re.sub(r"\b(clip|gradient|pattern)(\d+)\b", renumber, drawn)


def vega_lite_version() -> str:
    """The Vega-Lite version the specs are written in ("6.4"; vega_lite.py's, which is Altair's),
    which the bundle and the SVGs use too."""
    return ".".join(SCHEMA_VERSION.lstrip("v").split(".")[:2])


@lru_cache(maxsize=4)
def renderer_version(vl_version: str) -> str:
    from importlib.metadata import version

    return f"vl-convert-python {version('vl-convert-python')}, Vega-Lite {vl_version}"


def svg_key(static: dict, vl_version: str) -> str:
    return hashlib.sha256(orjson.dumps([renderer_version(vl_version), static], option=orjson.OPT_SORT_KEYS)).hexdigest()


def svg(spec: dict, vl_version: str) -> str:
    """The chart drawn as SVG here and now (cached by content); the build uses a Painter."""
    static = static_spec(spec)
    return _cached(f"svg/{svg_key(static, vl_version)}.svg", draw, (static, vl_version))


def _cached(name: str, job: Callable[..., str], args: tuple) -> str:
    """The cache's `name`, else job(*args) drawn here and kept in the cache."""
    drawn = _cache_get(name)
    if drawn is None:
        drawn = job(*args)
        _cache_put(name, drawn)
    return drawn


def _bundle_name(vl_version: str) -> str:
    return "bundle/" + hashlib.sha256(renderer_version(vl_version).encode()).hexdigest() + ".js"


class Painter:
    """Draws a build's charts in worker processes (one a core) while the caller renders pages:
    `svg()` and `bundle()` hand over the drawing and what to do with it, `finish()` waits for all
    of it. A chart in the cache is handed over at once; a drawing that fails raises in finish()."""

    def __init__(self, vl_version: str, workers: int | None = None):
        self.vl_version = vl_version
        self.workers = workers if workers is not None else available_cpus()
        self.pending: list[tuple[Future, str, Callable[[str], None]]] = []
        # One worker first; the others once MORE_WORKERS_FROM drawings wait (_submit).
        self._pools: list[_Workers] = []
        # Drawings no pool has yet, in order: each goes to the first pool with room (_hand_out).
        self._queued: deque[tuple[Callable[..., str], tuple, Future]] = deque()
        self._lock = threading.Lock()  # the queue and the pools: drawings land on the pools' threads

    def svg(self, spec: dict, deliver: Callable[[str], None]) -> None:
        static = static_spec(spec)
        self._paint(f"svg/{svg_key(static, self.vl_version)}.svg", draw, (static, self.vl_version), deliver)

    def bundle(self, deliver: Callable[[str], None]) -> None:
        self._paint(_bundle_name(self.vl_version), bundle_text, (self.vl_version,), deliver)

    def _paint(self, name: str, job: Callable[..., str], args: tuple, deliver: Callable[[str], None]) -> None:
        cached = _cache_get(name)
        if cached is not None or self.workers <= 1:
            deliver(cached if cached is not None else _cached(name, job, args))
        else:
            self.pending.append((self._submit(job, args), name, deliver))

    def finish(self) -> None:
        """Wait for every drawing handed over, store it in the cache and deliver it, in the order
        they were handed over; then stop the worker processes."""
        pending, self.pending = self.pending, []
        try:
            for future, name, deliver in pending:
                drawn = future.result()
                _cache_put(name, drawn)
                deliver(drawn)
        finally:
            self.close()

    def close(self) -> None:
        """Stop the worker processes, dropping drawings not started (a build that failed)."""
        with self._lock:  # (not held while the pools stop: their last drawings land under it)
            queued, self._queued = self._queued, deque()
            pools, self._pools = self._pools, []
        for _job, _args, future in queued:
            future.cancel()
        for pool in pools:
            pool.executor.shutdown(wait=True, cancel_futures=True)

    def _submit(self, job: Callable[..., str], args: tuple) -> Future:
        """The drawing, to be drawn by whichever worker is free first. Workers start as drawings
        come: one first, the others once MORE_WORKERS_FROM drawings wait. A worker takes about as
        long to start as ten drawings (vl-convert's first one is half a second): a rebuild that
        draws a few charts starts one, not one a core beside its own two processes."""
        future: Future = Future()
        with self._lock:
            if not self._pools:
                self._pools.append(_first_workers(self.vl_version))
            self._queued.append((job, args, future))
            waiting = len(self._queued) + sum(pool.waiting for pool in self._pools)
            if len(self._pools) == 1 and self.workers > 1 and waiting >= MORE_WORKERS_FROM:
                self._pools.append(_Workers(self.workers - 1))
            handed = self._hand_out()
        self._follow(handed)
        return future

    def _hand_out(self) -> list[tuple[Future, Future]]:
        """Under the lock: queued drawings, in order, to the pools with room (AHEAD); each painter's
        future with its pool's. A drawing goes to a pool when one has room, not when it is queued:
        handed out at once, each pool's share was fixed by how busy the pools looked then, and at
        the end of a cold build one worker drew its last charts alone for 5 to 7 s while the other
        had finished."""
        handed = []
        for pool in self._pools:
            while self._queued and pool.waiting < pool.size + AHEAD:
                job, args, future = self._queued.popleft()
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    handed.append((future, pool.submit(job, args)))
                except BaseException as error:  # noqa: BLE001 - a pool that stopped: raised by finish()
                    future.set_exception(error)
        return handed

    def _follow(self, handed: list[tuple[Future, Future]]) -> None:
        """Out of the lock: a drawing done already lands here and now, and landing takes the lock."""
        for future, drawing in handed:
            drawing.add_done_callback(partial(self._landed, future))

    def _landed(self, future: Future, drawing: Future) -> None:
        """A pool's drawing done (on the pool's thread, once the pool counts it done): the next
        queued drawing to the room it leaves, then its outcome to the painter's own future."""
        with self._lock:
            handed = self._hand_out()
        self._follow(handed)
        if drawing.cancelled():
            future.set_exception(CancelledError())
        elif (error := drawing.exception()) is not None:
            future.set_exception(error)
        else:
            future.set_result(drawing.result())


def _first_workers(vl_version: str):
    """The first worker: the drawing server, ready from build to build (drawing_server.py), else,
    without one, a worker process of the build's own."""
    from leaderboard.render import drawing_server

    idle = drawing_server.idle_seconds()
    path = server_socket(vl_version) if idle > 0 else None
    if path is None:
        return _Workers(1)
    jobs = {draw: "svg", bundle_text: "bundle"}
    return drawing_server.Served(path, idle, __name__, jobs, lambda: _Workers(1))


def server_socket(vl_version: str) -> Path | None:
    """The drawing server's socket for this renderer, interpreter and drawing code (none: no server)."""
    from leaderboard.render import drawing_server

    return drawing_server.socket_path([renderer_version(vl_version), sys.executable], [Path(__file__), FONTS_CONF])


def _serve(path: Path, idle: float, most: int) -> None:
    """The drawing server's process (drawing_server.serve): this module's drawings, by name."""
    from leaderboard.render import drawing_server

    vl_version = vega_lite_version()
    drawing_server.serve(path, idle, {"svg": draw, "bundle": bundle_text}, lambda: _vl_convert(vl_version), most)


# How many drawings wait before the build starts its other workers (see Painter._submit).
MORE_WORKERS_FROM = 12
# Drawings a pool holds beyond one a worker, so that a worker done with one finds the next at hand
# (Painter._hand_out); the others wait in the painter's queue for the first pool with room.
AHEAD = 1


class _Workers:
    """`size` worker processes, each spawned when a drawing finds none idle (spawned, not forked:
    vl_convert's threads do not survive a fork, and a fresh interpreter imports only this module),
    and how many drawings handed to them are not done."""

    def __init__(self, size: int):
        import multiprocessing

        self.size, self.waiting = size, 0
        self._lock = threading.Lock()
        self.executor = ProcessPoolExecutor(
            size, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker, initargs=(os.getpid(),)
        )

    def submit(self, job: Callable[..., str], args: tuple) -> Future:
        with self._lock:
            self.waiting += 1
        future = self.executor.submit(job, *args)
        future.add_done_callback(self._done)
        return future

    def _done(self, _future: Future) -> None:
        with self._lock:
            self.waiting -= 1


def _start_worker(parent: int) -> None:
    """A drawing worker yields the processor to the build's own process, which renders the pages
    every chart belongs to: the workers draw in the time it leaves, and the build ends when both do.
    It dies with the build: killed, the build would leave it waiting forever on the pool's queue
    (whose pipe each worker holds both ends of)."""
    end_with(parent)
    os.nice(10)


def use_cache_beside(folder: Path) -> None:
    """Keep drawn charts in `folder` (`.leaderboard-cache/` beside the site): inside the project,
    never in the user's home."""
    global _cache_root
    _cache_root = folder


def cache_dir() -> Path | None:
    """Where drawn charts and the JavaScript bundle are kept between builds: $LEADERBOARD_CACHE,
    else beside the site (see use_cache_beside); None: no cache."""
    configured = os.environ.get("LEADERBOARD_CACHE")
    return Path(configured) if configured else _cache_root


def _cache_get(name: str) -> str | None:
    folder = cache_dir()
    if folder is None:
        return None
    try:
        return (folder / name).read_text(encoding="utf-8")
    except OSError:
        return None


def _cache_put(name: str, text: str) -> None:
    """Best effort: a cache that cannot be written only makes the next build slower."""
    folder = cache_dir()
    if folder is None:
        return
    target = folder / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    except OSError:
        pass


if __name__ == "__main__":  # python -m leaderboard.render.painter serve SOCKET IDLE_SECONDS MOST_DRAWINGS
    if len(sys.argv) != 5 or sys.argv[1] != "serve":
        sys.exit("usage: python -m leaderboard.render.painter serve SOCKET IDLE_SECONDS MOST_DRAWINGS")
    _serve(Path(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]))
