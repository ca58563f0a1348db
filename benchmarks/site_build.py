"""The site at the size of every shipped round: a cold `leaderboard build` of the shipped
submissions (no site, database or cache) with its worker processes and, side by side, with none
(`--jobs 1`), and one just after the last build's site, database and cache were deleted; a
rebuild after one changed file as a command (the first after the cold build, whose copy of the
site is made by `cp -al`, and the next edit, whose copy starts from the site the last rebuild
replaced) and under `leaderboard build --watch`;
a rebuild of nothing changed; the peak memory of the whole process tree; the site's pages, size
and largest page; and where a cold build's time goes (cProfile of the build's main thread, the
charts drawn in it). Prints a markdown section for RESULTS.md.

    .venv/bin/python benchmarks/site_build.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import pstats
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import Measure, empty_trash, machine, move_aside, tree_pss_kib  # noqa: E402
from run import measure as run_measure  # noqa: E402

ROOT = HERE.parent
WORK = HERE / "work" / "site-build"
OUTPUTS = ("site", ".site.spare", ".leaderboard-cache", "leaderboard.duckdb")  # .site.spare: render/clone.py
PYTHON = sys.executable
CHANGED = "submissions/mlperf-training-v5.0/cisco/hpf_n8-bert.yaml"

# The steps a cold build takes, as functions of the code: (label, module, function).
STEPS = [
    ("validate every submission", "leaderboard/validate.py", "validate_paths"),
    ("normalize into rows", "leaderboard/rows.py", "table_rows"),
    ("start the database (filled and written by a process of its own)", "leaderboard/store.py", "__init__"),
    ("the site's data, from the rows", "leaderboard/render/model.py", "load"),
    ("leaderboards and round pages", "leaderboard/render/boards.py", "write_pages"),
    ("entry pages", "leaderboard/render/entries.py", "write_pages"),
    ("accelerator and submitter pages", "leaderboard/render/groups.py", "write_pages"),
    ("pages across rounds", "leaderboard/render/history.py", "write_pages"),
    (
        "charts drawn as SVG (inside the pages above; in worker processes in a real build)",
        "leaderboard/render/painter.py",
        "draw",
    ),
    ("templates rendered (inside the pages above)", "jinja2/environment.py", "render"),
]


def fresh_project() -> Path:
    """The shipped catalog and submissions in WORK; a previous run's files moved aside (run.move_aside)."""
    move_aside(WORK)
    WORK.mkdir(parents=True)
    shutil.copytree(ROOT / "catalog", WORK / "catalog")
    shutil.copytree(ROOT / "submissions", WORK / "submissions")
    return WORK


def clean(folder: Path) -> None:
    """No site, database or cache: the last build's moved aside, not deleted (run.move_aside says
    why), so a cold build is timed as a user meets it, on a fresh clone. delete_outputs() gives the
    other case, timed apart, after every other timed build (deleted_builds())."""
    move_aside(*(folder / name for name in OUTPUTS))


def delete_outputs(folder: Path) -> None:
    """No site, database or cache: the last build's deleted, just before the build to be timed."""
    for name in OUTPUTS:
        target = folder / name
        shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)


def timed_build(folder: Path, *options: str, sample: bool = False) -> Measure:
    """One build, timed; `sample`: its peak memory sampled too (which slows it: see run.measure).
    Its CPU includes what the drawing server (render/drawing_server.py) spent meanwhile: the
    server outlives the build, which never waits for it, so the build's own count leaves it out."""
    env = {"LEADERBOARD_CACHE": str(folder / ".leaderboard-cache")}
    before_pid, before_cpu = server_cpu()
    measured = run_measure([PYTHON, "-m", "leaderboard", "build", "-q", *options], cwd=folder, env=env, sample=sample)
    assert measured.code == 0, f"build {options} failed"
    after_pid, after_cpu = server_cpu()
    # The server's CPU meanwhile: all of it when this build started it.
    spent = 0.0 if after_pid is None else after_cpu - (before_cpu if before_pid == after_pid else 0.0)
    return dataclasses.replace(measured, cpu=measured.cpu + spent)


def server_pid() -> int | None:
    from leaderboard.render import drawing_server, painter

    path = painter.server_socket(painter.vega_lite_version())
    return drawing_server.holder(path) if path is not None else None


def server_cpu() -> tuple[int | None, float]:
    """The drawing server's process id and its user + system seconds so far (none: None, 0)."""
    pid = server_pid()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return None, 0.0
    return pid, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop_server() -> None:
    """Cold builds start with no drawing server: starting one is part of a cold build."""
    from leaderboard.render import drawing_server

    drawing_server.stop_servers()


def watched_edit(folder: Path) -> float:
    """Seconds from the harness's edit, saved, until `leaderboard build --watch` has built it and
    says it watches again: the system's file event, the build forked from the watching process
    (which imported the code once), its output. The edit is put back, and built, before it stops."""
    env = {**os.environ, "LEADERBOARD_CACHE": str(folder / ".leaderboard-cache")}
    command = [PYTHON, "-m", "leaderboard", "build", "-q", "--watch"]
    watcher = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        until_watching(watcher)
        # The watcher's file events start a moment after its "watching" line: an edit saved within
        # that moment is found at its first wake-up, a quarter of a second on. A person saves later.
        time.sleep(1)
        path = folder / CHANGED
        original = path.read_text(encoding="utf-8")
        start = time.perf_counter()
        path.write_text(original.replace("framework: ", "framework: Changed ", 1), encoding="utf-8")
        until_watching(watcher)
        seconds = time.perf_counter() - start
        path.write_text(original, encoding="utf-8")
        until_watching(watcher)
        return seconds
    finally:
        watcher.send_signal(signal.SIGINT)
        watcher.wait(timeout=120)


def until_watching(watcher: subprocess.Popen) -> None:
    """Until the watcher's next "watching ..." line: its build is done."""
    for line in watcher.stderr:
        if line.startswith("watching "):
            return
    raise RuntimeError("the watcher ended")


def one_round(
    folder: Path, cold: list, single: list, changed: list, again: list, unchanged: list, sample: bool
) -> None:
    """Cold builds, then the first rebuild after one changed file (its copy of the site made by
    `cp -al`), the edit put back and built, the next edit (its copy made from the site the last
    rebuild replaced, `.site.spare`: render/clone.py), put back and built, and nothing changed."""
    clean(folder)
    stop_server()
    single.append(timed_build(folder, "--jobs", "1", sample=sample))
    clean(folder)
    stop_server()
    cold.append(timed_build(folder, sample=sample))
    path = folder / CHANGED
    original = path.read_text(encoding="utf-8")
    for edit, times in (("Changed", changed), ("Changed again", again)):
        path.write_text(original.replace("framework: ", f"framework: {edit} ", 1), encoding="utf-8")
        times.append(timed_build(folder, sample=sample))
        path.write_text(original, encoding="utf-8")
        timed_build(folder)
    unchanged.append(timed_build(folder, sample=sample))


def deleted_builds(folder: Path, deleted: list, repeat: int, sample: bool) -> None:
    """`repeat` cold builds, each just after the last build's outputs were deleted."""
    for _ in range(repeat):
        delete_outputs(folder)
        stop_server()
        deleted.append(timed_build(folder, sample=sample))


def profile_cold(folder: Path) -> tuple[float, dict[str, float]]:
    clean(folder)
    os.environ["LEADERBOARD_CACHE"] = str(folder / ".leaderboard-cache")
    here = os.getcwd()
    os.chdir(folder)
    try:
        from leaderboard.build import build

        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.enable()
        result = build(Path("submissions"), Path("catalog"), "leaderboard.duckdb", Path("site"), jobs=1)
        profiler.disable()
        total = time.perf_counter() - start
        assert result.ok, result.problems[:3]
    finally:
        os.chdir(here)
    stats = pstats.Stats(profiler).stats
    found = {}
    for label, module, function in STEPS:
        found[label] = sum(
            row[3] for (file, _line, name), row in stats.items() if file.endswith(module) and name == function
        )
    return total, found


def site_size(folder: Path) -> tuple[int, int, str, int]:
    files = [p for p in (folder / "site").rglob("*") if p.is_file()]
    pages = [p for p in files if p.suffix == ".html"]
    largest = max(pages, key=lambda p: p.stat().st_size)
    return (
        sum(p.stat().st_size for p in files),
        len(files),
        str(largest.relative_to(folder / "site")),
        largest.stat().st_size,
    )


def measure(repeat: int = 3) -> dict:
    """Every figure of the section, measured in this run: each repetition a cold build with
    worker processes, a cold build without, a rebuild after one changed file, and one of nothing
    changed, timed, then the same edit under `--watch`; then one more of each build with its memory
    sampled; last, as many cold builds each just after a delete, and one more sampled."""
    folder = fresh_project()
    cold, single, deleted, changed, again, unchanged = [], [], [], [], [], []
    watched = []
    for _ in range(repeat):
        one_round(folder, cold, single, changed, again, unchanged, sample=False)
        watched.append(watched_edit(folder))
    kinds = ("cold", "single", "changed", "again", "unchanged", "deleted")
    memory: dict[str, list[Measure]] = {kind: [] for kind in kinds}
    one_round(folder, *(memory[kind] for kind in kinds[:-1]), sample=True)
    server = server_pid()
    server_mib = tree_pss_kib(server) / 1024 if server else 0.0
    total_bytes, file_count, largest_page, largest_bytes = site_size(folder)
    pages = len(list((folder / "site").rglob("*.html")))
    profiled, steps = profile_cold(folder)
    deleted_builds(folder, deleted, repeat, sample=False)
    deleted_builds(folder, memory["deleted"], 1, sample=True)
    return {
        "machine": machine(),
        "results": len(list((folder / "submissions").rglob("*.yaml"))),
        "repeat": repeat,
        "cold": cold,
        "single": single,
        "deleted": deleted,
        "changed": changed,
        "again": again,
        "unchanged": unchanged,
        "watched": watched,
        "memory": memory,
        "pages": pages,
        "bytes": total_bytes,
        "files": file_count,
        "largest_page": largest_page,
        "largest_bytes": largest_bytes,
        "server_mib": server_mib,
        "profiled": profiled,
        "steps": steps,
        "load": os.getloadavg(),
    }


def markdown(m: dict) -> list[str]:
    def best(values: list[Measure]) -> Measure:
        return min(values, key=lambda v: v.seconds)

    def met(value: float, target: float) -> str:
        return "met" if value <= target else "NOT met"

    cold, single, changed, unchanged = (best(m[k]) for k in ("cold", "single", "changed", "unchanged"))
    memory = m["memory"]
    peak = max(v.peak_mib for values in memory.values() for v in values)
    # The cold build started the server, so its tree held it; the rebuilds' trees did not.
    rebuilt = max(v.peak_mib for kind in ("changed", "again", "unchanged") for v in memory[kind])
    with_server = max(peak, rebuilt + m["server_mib"])

    def row(label: str, kind: str, target: str, digits: int = 1) -> str:
        b = best(m[kind])
        sampled = memory[kind][0]
        every = ", ".join(f"{v.seconds:.{digits}f}" for v in m[kind])
        return (
            f"| {label} | {b.seconds:.{digits}f} ({every}) | {b.cpu:.1f} | "
            f"{sampled.peak_mib:,.0f} MiB ({sampled.seconds:.1f} s) | {target} |"
        )

    lines = [
        "## Issues 15 and 25: the site at every round",
        "",
        f"Machine: {m['machine']}. `benchmarks/site_build.py`: `leaderboard build` of the {m['results']:,} "
        f"shipped submission files into {m['pages']:,} pages ({m['files']:,} files, {m['bytes'] / 2**20:,.1f} MiB), "
        f"each build in its own process, best of {m['repeat']} (every run in brackets); CPU is user + system "
        "seconds of the build and its worker processes, and the drawing server's meanwhile. Memory comes from "
        "one more build of each kind: the peak total PSS of the process tree, sampled every 50 ms (that build's "
        "time in brackets: the sampling slows it, so the timed builds are not sampled).",
        "",
        "| build | seconds | CPU s | peak memory | target |",
        "|---|---:|---:|---:|---|",
        row("cold (no site, database or cache)", "cold", f"at most 20 s: {met(cold.seconds, 20)}"),
        row("cold, `--jobs 1` (charts drawn in the build's process)", "single", ""),
        row("cold, just after the last build's site, database and cache were deleted", "deleted", ""),
        row(
            "after one changed file, the first rebuild after the cold build (its copy by `cp -al`)",
            "changed",
            f"at most 2 s: {met(changed.seconds, 2)}",
            2,
        ),
        row(
            "after one changed file, the next edit (its copy from the site the last rebuild replaced)",
            "again",
            f"at most 2 s: {met(best(m['again']).seconds, 2)}",
            2,
        ),
        row("nothing changed", "unchanged", "", 2),
        f"| after one changed file, under `build --watch` (saved to built) | {min(m['watched']):.2f} "
        f"({', '.join(f'{v:.2f}' for v in m['watched'])}) |  |  | at most 2 s: {met(min(m['watched']), 2)} |",
        "",
        "- Cold builds start with no site, database or cache: the last build's are moved aside, not "
        "deleted (`clean()`: on this machine's file system, files created within a minute of thousands "
        "deleted are slow to create). The third row is the other case: the last build's outputs deleted "
        "just before it, timed after every other build.",
        f"- Worker processes against none, side by side: {single.seconds / cold.seconds:.2f}x less time "
        f"({single.seconds:.1f} s against {cold.seconds:.1f} s) for {cold.cpu / single.cpu:.2f}x the CPU.",
        f"- Peak memory of any build: {peak:,.0f} MiB. The drawing server, which outlives the builds, "
        f"is in the process tree of the cold build that started it, not in the rebuilds': "
        f"{m['server_mib']:,.0f} MiB after the last one; added to the rebuilds' peaks, the largest is "
        f"{with_server:,.0f} MiB; target under 1 GB (954 MiB): {met(with_server, 954)}.",
        f"- {m['pages']:,} pages in {cold.seconds:.1f} s: {m['pages'] / cold.seconds:,.0f} pages a second, "
        f"cold, charts included.",
        f"- Largest page `{m['largest_page']}`, {m['largest_bytes'] / 2**20:.2f} MiB "
        f"(target at most 2 MB: {met(m['largest_bytes'], 2_000_000)}).",
        f"- 1-minute load average at the end: {m['load'][0]:.2f}.",
        "",
        f"Where a cold `--jobs 1` build's time goes (cProfile of its main thread, {m['profiled']:.1f} s with the "
        "profiler's overhead; the last two rows are inside the page rows above them; the database and the "
        "downloads, written by a process of their own, and the files, written on a thread, are not in it):",
        "",
        "| step | seconds | share |",
        "|---|---:|---:|",
    ]
    lines += [f"| {label} | {seconds:.1f} | {seconds / m['profiled']:.0%} |" for label, seconds in m["steps"].items()]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    try:
        print("\n".join(markdown(measure(args.repeat))))
    finally:
        empty_trash()  # run.py's main empties it once every step it times is done


if __name__ == "__main__":
    main()
