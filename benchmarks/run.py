"""The benchmark harness: speed and memory of validate, build (database, site), rebuild and
query at N = 1,000, 10,000 and 100,000 synthetic entries, side by side with the reference
tool (check-jsonschema, installed only into benchmarks/work/ref-venv), written to RESULTS.md.

    python benchmarks/run.py [--sizes 1000,10000,100000] [--out benchmarks/RESULTS.md]

Each step runs in its own process; wall time is measured around it and peak memory is the
process's maximum resident set size (wait4's rusage).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "work"
PYTHON = sys.executable
REFERENCE_PINS = ["check-jsonschema==0.39.0"]


@dataclass
class Measure:
    seconds: float
    peak_mib: float
    code: int


def measure(command: list[str], cwd: Path, env: dict | None = None) -> Measure:
    """Wall time of `command`, and its peak memory: the largest total proportional set size
    (PSS) of the process and all its descendants (worker processes included, shared pages
    counted once), sampled every 20 ms, or the process's own maximum resident set size when
    that is larger (a peak shorter than a sample)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}
    )
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], tree_pss_kib(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err_chunks = []
    reader = threading.Thread(target=lambda: err_chunks.append(process.stderr.read()), daemon=True)
    reader.start()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    reader.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    err = b"".join(err_chunks).decode(errors="replace")
    if process.returncode != 0:
        print(f"  ! {' '.join(command[:3])} exited {process.returncode}: {err[-500:]}", file=sys.stderr)
    return Measure(seconds, max(peak[0], usage.ru_maxrss) / 1024, process.returncode)


def tree_pss_kib(root: int) -> int:
    """Total PSS (KiB) of a process and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                fields = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack += children.get(pid, [])
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
    return total


def reference_venv() -> Path:
    venv = WORK / "ref-venv"
    if not (venv / "bin" / "check-jsonschema").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *REFERENCE_PINS], check=True)
    return venv


def project(n: int) -> Path:
    folder = WORK / f"n{n}"
    if not (folder / "submissions").is_dir():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copytree(ROOT / "catalog", folder / "catalog")
        subprocess.run([PYTHON, str(HERE / "generate.py"), str(n), str(folder / "submissions")], check=True)
    return folder


BUILD_DB = (
    "from pathlib import Path; from leaderboard.build import build; "
    "r = build(Path('submissions'), Path('catalog'), 'bench.duckdb', None); assert r.ok, r.problems[:3]"
)
BUILD_SITE = (
    "from pathlib import Path; from leaderboard.catalog import load_catalog; "
    "from leaderboard.render.site import render_site; "
    "render_site('bench.duckdb', Path('site'), load_catalog(Path('catalog')))"
)
BUILD = [PYTHON, "-m", "leaderboard", "build", "-q"]  # what a user runs: database and site
QUERY = (
    "SELECT rank, submitter, system, chips, minutes, chip_hours, cost_usd FROM results "
    "WHERE round = 'mlperf-training-v1.1' AND benchmark = 'resnet' AND division = 'closed' ORDER BY rank"
)


def files_list(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in (folder / "submissions").rglob("*.yaml"))


def run(sizes: list[int]) -> list[dict]:
    ref = reference_venv()
    rows = []
    for n in sizes:
        folder = project(n)
        print(f"N = {n:,}", file=sys.stderr)
        ours = measure([PYTHON, "-m", "leaderboard", "validate", "-q", "submissions"], folder)
        listing = WORK / f"files-{n}.txt"
        listing.write_text("\0".join(files_list(folder)))
        theirs = measure(
            [
                "sh",
                "-c",
                f"xargs -0 -a {listing} {ref}/bin/check-jsonschema --schemafile {ROOT}/schemas/submission.schema.json",
            ],
            folder,
        )
        database = measure([PYTHON, "-c", BUILD_DB], folder)
        site = measure([PYTHON, "-c", BUILD_SITE], folder)
        query = measure(
            [PYTHON, "-m", "leaderboard", "query", QUERY, "--db", "bench.duckdb", "--format", "csv"], folder
        )
        largest = max((p.stat().st_size for p in (folder / "site").rglob("*.html")), default=0)
        full, incremental = rebuild(folder, n) if n == 10_000 else (None, None)
        rows.append(
            {
                "n": n,
                "validate": ours,
                "check_jsonschema": theirs,
                "database": database,
                "site": site,
                "query": query,
                "largest_page_mib": largest / 2**20,
                "full_build": full,
                "incremental_build": incremental,
            }
        )
    return rows


def rebuild(folder: Path, n: int) -> tuple[Measure, Measure]:
    """A full build from scratch (no previous site, no cache) against a rebuild after one
    submission changed, in a copy of the project (benchmarks/work/rebuild-N)."""
    copy = WORK / f"rebuild-{n}"
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir(parents=True)
    shutil.copytree(folder / "catalog", copy / "catalog")
    shutil.copytree(folder / "submissions", copy / "submissions")
    full = measure(BUILD, copy)
    changed = min((copy / "submissions").rglob("*.yaml"))
    text = changed.read_text(encoding="utf-8")
    other = "available" if "\navailability: research\n" in text else "research"
    changed.write_text(re.sub(r"^availability: .*$", f"availability: {other}", text, count=1, flags=re.M))
    incremental = measure(BUILD, copy)
    return full, incremental


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory = (
        int(
            next(
                line.split()[1]
                for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal")
            )
        )
        / 2**20
    )
    return f"{platform.system()} {platform.release()}, {os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, Python {platform.python_version()}"


def report(rows: list[dict]) -> str:
    out = [
        "# Benchmark results",
        "",
        f"Machine: {machine()}.",
        "",
        "Measured by `make bench` (benchmarks/run.py), every step in its own process, side by side in one run.",
        "Peak memory is the step's maximum resident set size.",
        "",
        "| N | validate | check-jsonschema | ratio | build database | build site | query | largest HTML page |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        v, c = r["validate"], r["check_jsonschema"]
        out.append(
            f"| {r['n']:,} | {v.seconds:.2f} s, {v.peak_mib:.0f} MiB | {c.seconds:.2f} s, {c.peak_mib:.0f} MiB | "
            f"{c.seconds / v.seconds:.1f}x faster | {r['database'].seconds:.2f} s, {r['database'].peak_mib:.0f} MiB | "
            f"{r['site'].seconds:.2f} s, {r['site'].peak_mib:.0f} MiB | {r['query'].seconds:.2f} s | "
            f"{r['largest_page_mib']:.2f} MiB |"
        )
    by_n = {r["n"]: r for r in rows}
    for r in rows:
        if r.get("full_build") and r.get("incremental_build"):
            full, incremental = r["full_build"], r["incremental_build"]
            out += [
                "",
                f"Rebuild after one submission changed, at {r['n']:,}: full build from scratch {full.seconds:.2f} s "
                f"({full.peak_mib:.0f} MiB), rebuild {incremental.seconds:.2f} s ({incremental.peak_mib:.0f} MiB): "
                f"{full.seconds / incremental.seconds:.1f}x faster (target at least 5x).",
            ]
    if 10_000 in by_n and 100_000 in by_n:
        small, large = by_n[10_000], by_n[100_000]
        build = lambda r: r["database"].seconds + r["site"].seconds  # noqa: E731
        out += [
            "",
            f"Build growth, time(100,000) / time(10,000): {build(large) / build(small):.1f} (target at most 11); "
            f"peak memory at 100,000: {max(large['database'].peak_mib, large['site'].peak_mib):.0f} MiB (target under 2,048).",
        ]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    rows = run([int(s) for s in args.sizes.split(",")])
    text = report(rows)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
