"""The benchmark harness: speed and memory of validate, build (database, site), rebuild and
query at N = 1,000, 10,000 and 100,000 synthetic entries, side by side with the reference
tool (check-jsonschema, installed only into benchmarks/work/ref-venv), written to RESULTS.md.

    python benchmarks/run.py [--sizes 1000,10000,100000] [--out benchmarks/RESULTS.md]

Each step runs in its own process; wall time is measured around it, and peak memory is the
largest total PSS of the process and its descendants (sampled), or its own maximum RSS
(wait4's rusage) when that is larger.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "work"
TRASH = WORK / "trash"  # on the same file system as WORK: moved, not copied (move_aside)
PYTHON = sys.executable
REFERENCE_PINS = ["check-jsonschema==0.39.0", "mlperf-logging==4.1.68"]
DATA = ROOT.parent / "shared" / "data"  # the MLPerf rounds, for the import measurements of issue 14


@dataclass
class Measure:
    seconds: float
    peak_mib: float
    code: int
    cpu: float = 0.0  # user + system seconds of the process and the worker processes it waited for


def measure(command: list[str], cwd: Path, env: dict | None = None, sample: bool = True) -> Measure:
    """Wall time of `command`, and its peak memory: the largest total proportional set size
    (PSS) of the process and all its descendants (worker processes included, shared pages
    counted once), sampled every 50 ms, or the process's own maximum resident set size when
    that is larger (a peak shorter than a sample). `sample` False: no sampling, the process's
    own maximum RSS only (reading another process's PSS walks its memory map under its lock: on
    a 2-core machine the sampling slows a build of several processes by a tenth)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}
    )
    peak = [0]
    done = threading.Event()

    def sampling() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], tree_pss_kib(process.pid))

    sampler = threading.Thread(target=sampling, daemon=True)
    if sample:
        sampler.start()
    err_chunks = []
    reader = threading.Thread(target=lambda: err_chunks.append(process.stderr.read()), daemon=True)
    reader.start()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    done.set()
    if sample:
        sampler.join()
    reader.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    err = b"".join(err_chunks).decode(errors="replace")
    if process.returncode != 0:
        print(f"  ! {' '.join(command[:3])} exited {process.returncode}: {err[-500:]}", file=sys.stderr)
    cpu = usage.ru_utime + usage.ru_stime
    return Measure(seconds, max(peak[0], usage.ru_maxrss) / 1024, process.returncode, cpu)


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


def move_aside(*paths: Path) -> None:
    """Each of `paths` that exists moved into TRASH (empty_trash() deletes it once the run is
    done), not deleted. On a file system like this machine's (ext4 without a journal), an inode
    freed less than a minute ago (up to six while its inode table block is not written back) is
    not given to a new file: each file created meanwhile searches past the thousands just freed
    (the kernel's recently_deleted()), which took a fifth of the next build's CPU. A build timed
    just after a delete is timed slower than a user meets it on a fresh clone."""
    TRASH.mkdir(parents=True, exist_ok=True)
    aside = Path(tempfile.mkdtemp(dir=TRASH))
    for path in paths:
        if path.exists() or path.is_symlink():
            path.rename(aside / path.name)


def empty_trash() -> None:
    """What move_aside() moved, deleted: after the last timed step."""
    shutil.rmtree(TRASH, ignore_errors=True)


def reference_venv() -> Path:
    venv = WORK / "ref-venv"
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = "import check_jsonschema, mlperf_logging.result_summarizer"
    if subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True).returncode != 0:
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *REFERENCE_PINS], check=True)
    return venv


def project(n: int) -> Path:
    folder = WORK / f"n{n}"
    if not (folder / "submissions").is_dir():
        move_aside(folder)
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


def warm(folder: Path) -> None:
    """Read every submission once, so no tool is timed reading the disk for another."""
    for path in (folder / "submissions").rglob("*.yaml"):
        path.read_bytes()


def files_list(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in (folder / "submissions").rglob("*.yaml"))


def run(sizes: list[int]) -> list[dict]:
    ref = reference_venv()
    rows = []
    for n in sizes:
        folder = project(n)
        print(f"N = {n:,}", file=sys.stderr)
        listing = WORK / f"files-{n}.txt"
        listing.write_text("\0".join(files_list(folder)))
        warm(folder)  # both tools start from the same warm page cache
        ours = measure([PYTHON, "-m", "leaderboard", "validate", "-q", "submissions"], folder)
        theirs = measure(
            [
                "sh",
                "-c",
                f"xargs -0 -a {listing} {ref}/bin/check-jsonschema --schemafile {ROOT}/schemas/submission.schema.json",
            ],
            folder,
        )
        # From scratch, no cache: the last run's outputs moved aside, not deleted (move_aside).
        move_aside(*(folder / name for name in ("site", ".site.spare", ".leaderboard-cache", "bench.duckdb")))
        database = measure([PYTHON, "-c", BUILD_DB], folder)
        site = measure([PYTHON, "-c", BUILD_SITE], folder)
        query = measure(
            [PYTHON, "-m", "leaderboard", "query", QUERY, "--db", "bench.duckdb", "--format", "csv"], folder
        )
        largest = max((p.stat().st_size for p in (folder / "site").rglob("*.html")), default=0)
        full, incremental = rebuild(folder, n, changed=n == 10_000)
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


def rebuild(folder: Path, n: int, changed: bool) -> tuple[Measure, Measure | None]:
    """`leaderboard build` from scratch (no previous site, no cache) in a copy of the project
    (benchmarks/work/rebuild-N); with `changed`, then again after one submission changed."""
    copy = WORK / f"rebuild-{n}"
    move_aside(copy)
    copy.mkdir(parents=True)
    shutil.copytree(folder / "catalog", copy / "catalog")
    shutil.copytree(folder / "submissions", copy / "submissions")
    full = measure(BUILD, copy)
    if not changed:
        return full, None
    one = min((copy / "submissions").rglob("*.yaml"))
    text = one.read_text(encoding="utf-8")
    other = "available" if "\navailability: research\n" in text else "research"
    one.write_text(re.sub(r"^availability: .*$", f"availability: {other}", text, count=1, flags=re.M))
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


def import_comparison(data: Path) -> dict:
    """Issue 14's measurements (benchmarks/import_mlperf.py): v3.0 and v4.0 each from the unpacked folder
    (benchmarks/work/rounds) and the tar.xz against one result_summarizer call on the folder; and
    peak memory with 2 MB and 200 MB synthetic logs. Without `data`, only the synthetic check."""
    import import_mlperf

    print("import-mlperf: v3.0 and v4.0 against result_summarizer, and with large logs", file=sys.stderr)
    return import_mlperf.measure_all(
        data,
        WORK / "rounds",
        import_mlperf.COMPARE.split(","),
        str(reference_venv() / "bin" / "python"),
        repeat=3,
        memory=[int(m) for m in import_mlperf.MEMORY.split(",")],
    )


def verdict(value: float, target: float, at_least: bool) -> str:
    met = value >= target if at_least else value <= target
    return "met" if met else "**not met**"


def report(rows: list[dict], imports: dict | None) -> str:
    out = [
        "# Benchmark results",
        "",
        f"Machine: {machine()}.",
        "",
        "Measured by `make bench` (benchmarks/run.py), every step in its own process, side by side in one run.",
        "Peak memory: the largest total PSS of the step's process and its worker processes (sampled every",
        "50 ms), or the process's own maximum RSS when that is larger. Synthetic submissions from",
        "benchmarks/generate.py (seeded); each build step starts with no previous site, database or cache.",
        "",
        "| N | validate | check-jsonschema | ratio | build database | build site | `leaderboard build` | query | largest HTML page |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    cell = lambda m: f"{m.seconds:.2f} s, {m.peak_mib:,.0f} MiB"  # noqa: E731
    for r in rows:
        v, c = r["validate"], r["check_jsonschema"]
        out.append(
            f"| {r['n']:,} | {cell(v)} | {cell(c)} | {c.seconds / v.seconds:.1f}x faster | {cell(r['database'])} | "
            f"{cell(r['site'])} | {cell(r['full_build'])} | {r['query'].seconds:.2f} s | {r['largest_page_mib']:.2f} MiB |"
        )
    by_n = {r["n"]: r for r in rows}
    targets = []
    if 10_000 in by_n:
        r = by_n[10_000]
        ratio = r["check_jsonschema"].seconds / r["validate"].seconds
        targets.append(
            f"- `validate` vs check-jsonschema (same schema, same files) at 10,000: {ratio:.1f}x faster; "
            f"target at least 10x: {verdict(ratio, 10, True)}."
        )
        full, incremental = r["full_build"], r["incremental_build"]
        if incremental is not None:
            ratio = full.seconds / incremental.seconds
            targets.append(
                f"- `leaderboard build` after one submission changed, at 10,000: {incremental.seconds:.2f} s "
                f"({incremental.peak_mib:,.0f} MiB) against {full.seconds:.2f} s from scratch: {ratio:.1f}x faster; "
                f"target at least 5x: {verdict(ratio, 5, True)}. The output is identical to a full build "
                "(tests/test_site.py::test_a_rebuild_after_one_change_is_identical_to_a_full_build)."
            )
    if 10_000 in by_n and 100_000 in by_n:
        small, large = by_n[10_000], by_n[100_000]
        parts = lambda r: r["database"].seconds + r["site"].seconds  # noqa: E731
        growth = parts(large) / parts(small)
        whole = large["full_build"].seconds / small["full_build"].seconds
        targets.append(
            f"- Build growth, time(100,000) / time(10,000): {growth:.1f} for database plus site, {whole:.1f} for "
            f"`leaderboard build`; target at most 11: {verdict(max(growth, whole), 11, False)}."
        )
        peak = max(large[k].peak_mib for k in ("database", "site", "full_build"))
        targets.append(
            f"- Peak memory of a build at 100,000: {peak:,.0f} MiB; target under 2 GB (2,048 MiB): "
            f"{verdict(peak, 2047.99, False)}."
        )
        page = large["largest_page_mib"] * 2**20 / 1e6
        targets.append(
            f"- Largest HTML page at 100,000: {page:.2f} MB; target at most 2 MB: {verdict(page, 2, False)} "
            "(boards paginate at 200 rows a division; sorting and filtering cover every row through the "
            "board's data file: tests/test_browser.py)."
        )
    out += ["", "Targets of issue 6 against this run:", "", *targets]
    if imports:
        import import_mlperf

        out += ["", *import_mlperf.markdown(imports)]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="folder of the MLPerf rounds' .tar.xz for the import measurements (only the synthetic one when absent)",
    )
    args = parser.parse_args()
    import check_pr
    import import_families
    import site_build
    import sql_page

    try:
        rows = run([int(s) for s in args.sizes.split(",")])
        imports = import_comparison(args.data)
        sections = [*site_build.markdown(site_build.measure()), "", *sql_page.markdown(sql_page.measure())]
        sections += ["", *check_pr.markdown(check_pr.measure())]
        sections += ["", *import_families.markdown(import_families.measure(args.data))]
    finally:
        empty_trash()  # what every step moved aside, deleted after the last one timed
    text = report(rows, imports) + "\n" + "\n".join(["", *sections]) + "\n"
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
