"""The site at the size of every shipped round: a cold `leaderboard build` of the shipped
submissions (no site, database or cache), a rebuild after one changed file, a rebuild of
nothing changed, the site's size and largest page, and where a cold build's time goes
(cProfile, by step and page kind). Prints a markdown section for RESULTS.md.

    .venv/bin/python benchmarks/site_build.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "work" / "site-build"
PYTHON = sys.executable
CHANGED = "submissions/mlperf-training-v5.0/cisco/hpf_n8-bert.yaml"

# The steps a cold build takes, as functions of the code: (label, module, function).
STEPS = [
    ("validate every submission", "leaderboard/validate.py", "validate_paths"),
    ("normalize into rows", "leaderboard/rows.py", "table_rows"),
    ("write the database", "leaderboard/store.py", "write_database"),
    ("read the site's data back", "leaderboard/render/model.py", "load"),
    ("leaderboards and round pages", "leaderboard/render/boards.py", "write_pages"),
    ("entry pages", "leaderboard/render/entries.py", "write_pages"),
    ("accelerator and submitter pages", "leaderboard/render/groups.py", "write_pages"),
    ("pages across rounds", "leaderboard/render/history.py", "write_pages"),
    ("downloads (CSV, Parquet, JSON, DuckDB)", "leaderboard/render/downloads.py", "write_all"),
    ("charts drawn as SVG (inside the pages above)", "leaderboard/render/charts.py", "svg"),
    ("templates rendered (inside the pages above)", "jinja2/environment.py", "render"),
]


def fresh_project() -> Path:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    shutil.copytree(ROOT / "catalog", WORK / "catalog")
    shutil.copytree(ROOT / "submissions", WORK / "submissions")
    return WORK


def clean(folder: Path) -> None:
    for name in ("site", ".leaderboard-cache", "leaderboard.duckdb"):
        target = folder / name
        shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)


def timed_build(folder: Path) -> float:
    env = {**os.environ, "LEADERBOARD_CACHE": str(folder / ".leaderboard-cache")}
    start = time.perf_counter()
    subprocess.run([PYTHON, "-m", "leaderboard", "build", "-q"], cwd=folder, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


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
        result = build(Path("submissions"), Path("catalog"), "leaderboard.duckdb", Path("site"))
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
    """Every figure of the section, measured in this run."""
    folder = fresh_project()
    cold, changed, unchanged = [], [], []
    for _ in range(repeat):
        clean(folder)
        cold.append(timed_build(folder))
        path = folder / CHANGED
        original = path.read_text(encoding="utf-8")
        path.write_text(original.replace("framework: ", "framework: Changed ", 1), encoding="utf-8")
        changed.append(timed_build(folder))
        path.write_text(original, encoding="utf-8")
        timed_build(folder)
        unchanged.append(timed_build(folder))
    total_bytes, file_count, largest_page, largest_bytes = site_size(folder)
    profiled, steps = profile_cold(folder)
    return {
        "results": len(list((folder / "submissions").rglob("*.yaml"))),
        "repeat": repeat,
        "cold": cold,
        "changed": changed,
        "unchanged": unchanged,
        "bytes": total_bytes,
        "files": file_count,
        "largest_page": largest_page,
        "largest_bytes": largest_bytes,
        "profiled": profiled,
        "steps": steps,
    }


def markdown(m: dict) -> list[str]:
    def runs(values: list[float]) -> str:
        return ", ".join(f"{v:.1f}" for v in values)

    def met(value: float, target: float) -> str:
        return "met" if value <= target else "NOT met"

    lines = [
        "## Issue 15: the site at every round",
        "",
        f"`benchmarks/site_build.py`: `leaderboard build` of the {m['results']:,} shipped submission files, "
        f"each build in its own process, best of {m['repeat']} (every run in brackets):",
        "",
        "| build | seconds | target |",
        "|---|---:|---|",
        f"| cold (no site, database or cache) | {min(m['cold']):.1f} ({runs(m['cold'])}) | at most 60 s: "
        f"{met(min(m['cold']), 60)} |",
        f"| after one changed file | {min(m['changed']):.1f} ({runs(m['changed'])}) | at most 5 s: "
        f"{met(min(m['changed']), 5)} |",
        f"| nothing changed | {min(m['unchanged']):.1f} ({runs(m['unchanged'])}) | |",
        "",
        f"Site: {m['bytes'] / 2**20:,.1f} MiB in {m['files']:,} files; largest page `{m['largest_page']}`, "
        f"{m['largest_bytes'] / 2**20:.2f} MiB (target at most 2 MB: {met(m['largest_bytes'], 2_000_000)}).",
        "",
        f"Where a cold build's time goes (cProfile, {m['profiled']:.1f} s with the profiler's overhead; "
        "the last two rows are inside the page rows above them):",
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
    print("\n".join(markdown(measure(args.repeat))))


if __name__ == "__main__":
    main()
