"""Speed and memory of `leaderboard import-mlperf` on the real MLPerf Training rounds (issue 14),
side by side in one run with mlperf-logging's result_summarizer (never a project dependency):

1. for each round of --compare (default v3.0,v4.0): the import of that round from its unpacked
   folder and from its .tar.xz, best of --repeat each, against one result_summarizer call for
   all the round's organizations on the unpacked folder (`<folder>/{*}`, ruleset X.Y.0), run
   once since it takes minutes (target: at least 50x less time, folder and tar.xz alike);
2. --memory 2,200: peak memory of importing 5 synthetic logs of 2 MB each, then of 200 MB each
   (target: flat, the largest at most 10% above the smallest).

The import of every shipped archive of every family in one run (issue 24) is
benchmarks/import_families.py's.

    python benchmarks/import_mlperf.py [--data ../shared/data] [--unpacked DIR] [--compare v3.0,v4.0]
        [--summarizer-python PY] [--repeat 3] [--memory 2,200] [--json results.json]
    python benchmarks/import_mlperf.py --render results.json    # the table again, from saved results

Every measurement is the command a user runs (`python -m leaderboard import-mlperf ... -q`), in a
fresh process, timed by benchmarks/run.py's `measure`: wall time, and peak memory as the largest
total PSS of the process and its worker processes (sampled every 50 ms) or its own maximum RSS
when larger; CPU time is the user+system time of the whole process tree. The best of --repeat is
the fastest repetition; its peak memory is the largest of all repetitions. The unpacked folder and
the archive are read once before any tool is timed on them (a warm page cache for every tool).
Prints a markdown table, the machine's load and every target met or not.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import run as harness  # benchmarks/run.py: measure (process-tree memory sampler), machine

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data"
UNPACKED = HERE / "work" / "rounds"
REF_PYTHON = HERE / "work" / "ref-venv" / "bin" / "python"
PREFIX = "mlperf-training-"
COMPARE = "v3.0,v4.0"
MEMORY = "2,200"
SUMMARIZER_TARGET_X = 50
FLAT_TOLERANCE = 1.10


def reference_times(data: Path) -> dict[str, float]:
    """result_summarizer's seconds per round (`v3.0` -> 697) from --data's reference-times.txt
    (`round,seconds,how` rows after `#` comments); {} without it."""
    path = data / "reference-times.txt"
    if not path.is_file():
        return {}
    rows = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    return {row["round"]: float(row["seconds"]) for row in csv.DictReader(rows) if row.get("seconds")}


def version(short: str) -> tuple[int, ...]:
    return tuple(int(part) for part in short.lstrip("v").split("."))


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(command: list[str], cwd: Path) -> dict:
    """One fresh process: wall seconds, peak MiB (run.py's process-tree sampler), CPU seconds of
    the whole tree (reaped children's rusage), exit code, and the 1-minute load afterwards."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    measured = harness.measure(command, cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "seconds": measured.seconds,
        "peak_mib": measured.peak_mib,
        "cpu_seconds": cpu,
        "code": measured.code,
        "load_after": load()[0],
    }


def leaderboard_import(sources: list[Path], out: Path, catalog: Path, round_id: str | None = None) -> list[str]:
    command = [sys.executable, "-m", "leaderboard", "import-mlperf", *map(str, sources), "--out", str(out)]
    command += ["--catalog", str(catalog), "-q"]
    return command + (["--round", round_id] if round_id else [])


def entries_written(out: Path) -> dict[str, int]:
    """Entries per round under an --out folder."""
    if not out.is_dir():  # the import failed before writing anything
        return {}
    return {d.name: sum(1 for _ in d.rglob("*.yaml")) for d in sorted(out.iterdir()) if d.is_dir()}


def best_import(sources: list[Path], repeat: int, round_id: str | None = None) -> dict:
    """`leaderboard import-mlperf SOURCES` `repeat` times, each into a fresh temporary --out: the
    fastest run, with the largest peak memory of all runs and the entries the last one wrote.
    Each run gets its own copy of the catalog (copied before timing), since an import writes its
    manifests to catalog/verified/: the project's are never touched."""
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="bench-import-") as scratch:
            out, catalog = Path(scratch) / "submissions", Path(scratch) / "catalog"
            shutil.copytree(ROOT / "catalog", catalog)
            result = timed(leaderboard_import(sources, out, catalog, round_id), ROOT)
            result["entries"] = entries_written(out)
        runs.append(result)
    best = dict(min(runs, key=lambda r: r["seconds"]))
    best["peak_mib"] = max(r["peak_mib"] for r in runs)
    best["code"] = max((r["code"] for r in runs), key=abs)
    best["all_seconds"] = [r["seconds"] for r in runs]
    return best


def unpacked(round_id: str, data: Path, where: Path) -> Path:
    """The round's unpacked folder in `where`, unpacked from its archive in `data` when absent."""
    folder = where / round_id
    if not folder.is_dir():
        where.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{round_id}-", dir=where))
        subprocess.run(["tar", "-xJf", str(data / f"{round_id}.tar.xz"), "-C", str(partial)], check=True)
        (partial / round_id).rename(folder)
        shutil.rmtree(partial)
    return folder


def warm(path: Path) -> None:
    """Read every file once, so no tool is timed reading the disk for another."""
    files = [path] if path.is_file() else (p for p in path.rglob("*") if p.is_file())
    for file in files:
        with file.open("rb") as handle:
            while handle.read(1 << 20):
                pass


def summarizer(python: str, folder: Path, round_id: str) -> dict:
    """One result_summarizer call for all the round's organizations (`<folder>/{*}`), as
    ../shared/data/reference-times.txt timed it; `scores` counts the scores in its CSV."""
    ruleset = round_id.removeprefix(PREFIX).lstrip("v") + ".0"
    with tempfile.TemporaryDirectory(prefix="bench-summarizer-") as scratch:
        csv_file = Path(scratch) / "summary.csv"
        command = [python, "-m", "mlperf_logging.result_summarizer", f"{folder}/{{*}}", "training", ruleset]
        result = timed([*command, "--csv", str(csv_file)], Path(scratch))
        result["scores"] = summarizer_scores(csv_file)
    result["ruleset"] = ruleset
    result["organizations"] = sum(1 for p in folder.iterdir() if (p / "results").is_dir())
    return result


# result_summarizer's CSV columns that are not a benchmark (its _get_column_schema)
SUMMARY_COLUMNS = {
    "division",
    "availability",
    "submitter",
    "system",
    "number_of_nodes",
    "host_processor_model_name",
    "host_processors_count",
    "accelerator_model_name",
    "accelerators_count",
    "framework",
    "notes",
    "private_id",
    "details_url",
    "code_url",
}


def summarizer_scores(csv_file: Path) -> int:
    """Scores in result_summarizer's CSV: one row per system, one column per benchmark (a
    section with its own header line per kind of score); every filled benchmark cell counts."""
    if not csv_file.exists():
        return 0
    scores, columns = 0, []
    with csv_file.open(newline="", errors="replace") as handle:
        for row in csv.reader(handle):
            if row and row[0] == "division":
                columns = [name not in SUMMARY_COLUMNS and ":" not in name for name in row]
                continue
            scores += sum(1 for cell, score in zip(row, columns, strict=False) if score and cell.strip())
    return scores


def synthetic_tree(root: Path, megabytes: int) -> Path:
    """One v1.1 result directory of five runs, each log padded to `megabytes` with MLLOG lines."""
    (root / "Acme" / "systems").mkdir(parents=True)
    (root / "Acme" / "systems" / "box.json").write_text(
        json.dumps(
            {
                "submitter": "Acme",
                "division": "closed",
                "status": "onprem",
                "system_name": "box",
                "number_of_nodes": 1,
                "accelerators_per_node": 8,
                "accelerator_model_name": "NVIDIA A100-SXM4-80GB (400W)",
            }
        )
    )
    folder = root / "Acme" / "results" / "box" / "resnet"
    folder.mkdir(parents=True)
    padding = (
        b':::MLLOG {"namespace": "", "time_ms": 1, "event_type": "POINT_IN_TIME", "key": "throughput", '
        b'"value": 1234.5, "metadata": {"file": "train.py", "lineno": 1}}\n'
    )
    block = padding * ((1 << 20) // len(padding) + 1)  # a little over 1 MB
    for run in range(5):
        with (folder / f"result_{run}.txt").open("wb") as handle:
            for key, at, extra in (
                ("run_start", 0, ""),
                ("eval_accuracy", 59_000, ', "value": 0.76'),
            ):
                handle.write(
                    f':::MLLOG {{"key": "{key}", "time_ms": {at}{extra}, "metadata": {{"epoch_num": 35}}}}\n'.encode()
                )
            for _ in range(megabytes):
                handle.write(block)
            handle.write(b':::MLLOG {"key": "run_stop", "time_ms": 60000, "metadata": {"status": "success"}}\n')
    return root


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure_all(
    data: Path = DATA,
    where: Path = UNPACKED,
    compare: list[str] | None = None,
    summarizer_python: str | None = None,
    repeat: int = 3,
    memory: list[int] | None = None,
) -> dict:
    """Every measurement of issue 14 that the data allows (none of ../shared/data's rounds is
    needed for the synthetic memory check), in one run; the summarizer last, as it takes minutes."""
    results: dict = {"machine": harness.machine(), "uptime_start": uptime(), "repeat": repeat}
    results["memory"] = []
    for megabytes in memory or []:
        say(f"import-mlperf, 5 synthetic logs of {megabytes} MB")
        with tempfile.TemporaryDirectory(prefix="bench-synthetic-") as scratch:
            tree = synthetic_tree(Path(scratch) / "tree", megabytes)
            warm(tree)
            results["memory"].append({"megabytes": megabytes, **best_import([tree], 1, f"{PREFIX}v1.1")})
    results["compare"] = []
    for short in compare or []:
        round_id = PREFIX + "v" + short.removeprefix(PREFIX).lstrip("v")
        archive = data / f"{round_id}.tar.xz"
        if not archive.is_file():
            say(f"skipping {round_id}: no {archive}")
            continue
        folder = unpacked(round_id, data, where)
        warm(folder)
        warm(archive)
        say(f"import-mlperf {short}, folder and tar.xz, best of {repeat}")
        results["compare"].append(
            {
                "round": round_id,
                "folder_path": str(folder),
                "folder": best_import([folder], repeat),
                "archive": best_import([archive], repeat),
            }
        )
    for row in results["compare"] if summarizer_python else []:
        say(f"result_summarizer {row['round']} (minutes)")
        warm(Path(row["folder_path"]))
        row["summarizer"] = summarizer(summarizer_python, Path(row["folder_path"]), row["round"])
    if summarizer_python and results["compare"]:
        results["summarizer_version"] = summarizer_version(summarizer_python)
    results["uptime_end"] = uptime()
    return results


def summarizer_version(python: str) -> str:
    probe = "from importlib.metadata import version; print(version('mlperf-logging'))"
    done = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "?"


def verdict(met: bool) -> str:
    return "met" if met else "**not met**"


def markdown(results: dict) -> list[str]:
    """The issue 14 section: how it was measured, the table, the load and each target's verdict."""
    mib = lambda r: f"{r['peak_mib']:,.0f} MiB"  # noqa: E731
    failed = lambda r: "" if r["code"] == 0 else f" (**exit {r['code']}**)"  # noqa: E731
    repeat = results["repeat"]
    out = [
        "## Issue 14: importing every round",
        "",
        f"Machine: {results['machine']}.",
        "",
        "Measured by `benchmarks/import_mlperf.py`, everything side by side in one run. Every import is the",
        "command a user runs (`python -m leaderboard import-mlperf SOURCE... --out <fresh temporary folder> -q`)",
        f"in a fresh process, best of {repeat} (wall time of the fastest; peak memory the largest of the {repeat}).",
        "mlperf-logging's result_summarizer"
        + (f" {results['summarizer_version']}" if results.get("summarizer_version") else "")
        + " (a separate venv) runs once per round: one call for all",
        "organizations on the unpacked folder (`<folder>/{*}`, usage training, ruleset X.Y.0), as",
        "../shared/data/reference-times.txt timed it. Peak memory is the largest total PSS of the process",
        "and its worker processes, sampled every 50 ms, or its own maximum RSS when larger; CPU is the",
        "user+system time of the whole process tree. Every folder and archive is read once before any",
        "tool is timed on it (warm page cache).",
        "",
        f"Load at the start: `{results['uptime_start']}`; at the end: `{results['uptime_end']}`.",
        "",
        "| measurement | wall s | CPU s | peak memory | output | vs result_summarizer |",
        "|---|---:|---:|---:|---|---:|",
    ]
    targets = []
    for row in results.get("compare", []):
        short = row["round"].removeprefix(PREFIX)
        reference = row.get("summarizer")
        if reference:
            out.append(
                f"| {short}: result_summarizer, folder (one call, {reference['organizations']} organizations, "
                f"ruleset {reference['ruleset']}) | {reference['seconds']:.1f} | {reference['cpu_seconds']:.1f} | "
                f"{mib(reference)} | {reference['scores']} scores{failed(reference)} | 1x |"
            )
        ratios = []
        for key, label in (("folder", "folder"), ("archive", "tar.xz")):
            m = row[key]
            ratio = reference["seconds"] / m["seconds"] if reference else None
            ratios.append((label, ratio))
            runs = ", ".join(f"{x:.2f}" for x in m["all_seconds"])
            out.append(
                f"| {short}: `leaderboard import-mlperf`, {label} (runs: {runs} s) | {m['seconds']:.2f} | {m['cpu_seconds']:.2f} | "
                f"{mib(m)} | {sum(m['entries'].values())} entries{failed(m)} | "
                f"{f'{ratio:.0f}x' if ratio else '-'} |"
            )
        if reference:
            worst = min(r for _, r in ratios)
            ok = worst >= SUMMARIZER_TARGET_X and all(row[k]["code"] == 0 for k in ("folder", "archive"))
            detail = ", ".join(f"{label} {r:.0f}x" for label, r in ratios)
            short_by = "" if worst >= SUMMARIZER_TARGET_X else f" ({SUMMARIZER_TARGET_X / worst:.2f}x short)"
            targets.append(
                f"- {short} against result_summarizer ({reference['seconds']:.0f} s): {detail} less time; "
                f"target at least {SUMMARIZER_TARGET_X}x: {verdict(ok)}{short_by}."
            )
    flat = results.get("memory", [])
    for m in flat:
        out.append(
            f"| 5 synthetic logs of {m['megabytes']:,} MB each (one run) | {m['seconds']:.2f} | "
            f"{m['cpu_seconds']:.2f} | {mib(m)} | {sum(m['entries'].values())} entry{failed(m)} | |"
        )
    if len(flat) >= 2:
        small, large = min(flat, key=lambda m: m["megabytes"]), max(flat, key=lambda m: m["megabytes"])
        growth = large["peak_mib"] / small["peak_mib"]
        targets.append(
            f"- Peak memory with logs {large['megabytes'] // small['megabytes']}x larger ({small['megabytes']} MB -> "
            f"{large['megabytes']} MB each): {small['peak_mib']:.0f} -> {large['peak_mib']:.0f} MiB ({growth:.2f}x); "
            f"target flat (at most {FLAT_TOLERANCE - 1:.0%} more): {verdict(growth <= FLAT_TOLERANCE)}."
        )
    loads = [r["load_after"] for r in walk(results)]
    if loads:
        out += ["", f"1-minute load average after each measurement: {min(loads):.2f} to {max(loads):.2f}."]
    if targets:
        out += ["", "Targets of issue 14 against this run:", "", *targets]
    return out


def walk(results: dict) -> list[dict]:
    """Every measurement in a results dict."""
    found = list(results.get("memory", []))
    for row in results.get("compare", []):
        found += [row[k] for k in ("folder", "archive", "summarizer") if k in row]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="folder of the rounds' .tar.xz (default: %(default)s)")
    parser.add_argument(
        "--unpacked",
        type=Path,
        default=UNPACKED,
        help="folder of unpacked rounds (<round>/); a compared round missing there is unpacked into it "
        "(default: %(default)s)",
    )
    parser.add_argument("--compare", default=COMPARE, help="rounds to time against result_summarizer ('' for none)")
    parser.add_argument(
        "--summarizer-python",
        default=str(REF_PYTHON) if REF_PYTHON.exists() else None,
        help="python of a separate venv with mlperf-logging (default: benchmarks/work/ref-venv's, when there; "
        "without one the summarizer is not run)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory", default=MEMORY, help="comma-separated synthetic log sizes in MB ('' for none)")
    parser.add_argument("--json", type=Path, help="also save the raw results here")
    parser.add_argument("--render", type=Path, metavar="JSON", help="print the table of saved results; measure nothing")
    args = parser.parse_args()
    if args.render:
        results = json.loads(args.render.read_text())
    else:
        results = measure_all(
            args.data,
            args.unpacked,
            [r.strip() for r in args.compare.split(",") if r.strip()],
            args.summarizer_python,
            args.repeat,
            [int(m) for m in args.memory.split(",") if m.strip()],
        )
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
    print("\n".join(markdown(results)))


if __name__ == "__main__":
    main()
