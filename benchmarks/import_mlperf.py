"""Speed and memory of `leaderboard import-mlperf` on a whole MLPerf round, side by side with a
plain streaming scan and, when given, mlperf-logging's result_summarizer (never a dependency).

    python benchmarks/import_mlperf.py --folder /tmp/v11/mlperf-training-v1.1 \\
        --archive ../shared/data/mlperf-training-v1.1.tar.xz [--summarizer-python /tmp/mlpl/bin/python]
    python benchmarks/import_mlperf.py --memory 2,200   # peak memory with 2 MB and 200 MB logs

Every measurement runs in a fresh process (wall time, peak resident memory); best of --repeat.
The summarizer is run as its README says, one organization after another (ruleset 1.1.0).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROUND = "mlperf-training-v1.1"


def plain_scan(lines) -> int:
    """Pair run_start with run_stop and nothing else: the least any scorer must do."""
    starts = stops = 0
    for line in lines:
        if b":::MLLOG " in line and (b'"run_start"' in line or b'"run_stop"' in line):
            record = json.loads(line[line.index(b":::MLLOG ") + 9 :])
            if record["key"] == "run_start":
                starts += 1
            elif record["key"] == "run_stop":
                stops += 1
    return min(starts, stops)


def scan_folder(folder: Path) -> int:
    runs = 0
    for path in sorted(folder.glob("*/results/*/*/result_*.txt")):
        with path.open("rb") as handle:
            runs += plain_scan(handle)
    return runs


def scan_archive(archive: Path) -> int:
    runs = 0
    with tarfile.open(archive, "r|*") as tar:
        for member in tar:
            if member.isfile() and "/results/" in member.name and member.name.endswith(".txt"):
                runs += plain_scan(tar.extractfile(member))
    return runs


def run_import(source: Path) -> int:
    from leaderboard.catalog import load_catalog
    from leaderboard.importers.mlperf import import_mlperf, read_rcp_tables

    catalog = load_catalog(ROOT / "catalog")
    with tempfile.TemporaryDirectory() as out:
        report = import_mlperf(source, ROUND, catalog, Path(out), read_rcp_tables(ROOT / "catalog", ROUND))
    return len(report.written)


def synthetic_tree(root: Path, megabytes: int) -> Path:
    """One result directory of five runs, each log padded to `megabytes` with MLLOG lines."""
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


def one(mode: str, path: str) -> None:
    """Child process: run one measurement, print seconds, peak RSS (MB) and what it found."""
    functions = {"scan": scan_folder, "scan-archive": scan_archive, "import": run_import}
    start = time.perf_counter()
    found = functions[mode](Path(path))
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "found": found}))


def measure(mode: str, path: Path, repeat: int) -> dict:
    best = None
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, __file__, "--one", mode, str(path)], capture_output=True, text=True, check=True
        )
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    return best


def summarizer(python: str, folder: Path) -> dict:
    orgs = sorted(p for p in folder.iterdir() if (p / "results").is_dir() and (p / "systems").is_dir())
    start = time.perf_counter()
    for org in orgs:
        subprocess.run(
            [python, "-m", "mlperf_logging.result_summarizer", str(org), "training", "1.1.0"],
            capture_output=True,
            text=True,
            check=False,
            cwd=tempfile.gettempdir(),
        )
    return {"seconds": time.perf_counter() - start, "peak_mb": None, "found": len(orgs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, help="the round unpacked")
    parser.add_argument("--archive", type=Path, help="the round as .tar/.tar.gz/.tar.xz")
    parser.add_argument("--summarizer-python", help="python of a separate venv with mlperf-logging installed")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory", help="comma-separated log sizes in MB: peak memory of an import of 5 such logs")
    parser.add_argument("--one", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(*args.one)
        return

    rows: list[tuple[str, dict]] = []
    for megabytes in [int(m) for m in args.memory.split(",")] if args.memory else []:
        with tempfile.TemporaryDirectory() as scratch:
            tree = synthetic_tree(Path(scratch) / "tree", megabytes)
            rows.append((f"import-mlperf, 5 synthetic logs of {megabytes} MB", measure("import", tree, 1)))
    if args.folder:
        rows.append(("plain scan (run_start/run_stop only), folder", measure("scan", args.folder, args.repeat)))
        rows.append(("leaderboard import-mlperf, folder", measure("import", args.folder, args.repeat)))
    if args.archive:
        rows.append(("plain scan, tar.xz", measure("scan-archive", args.archive, args.repeat)))
        rows.append(("leaderboard import-mlperf, tar.xz", measure("import", args.archive, args.repeat)))
    reference = None
    if args.summarizer_python and args.folder:
        reference = summarizer(args.summarizer_python, args.folder)
        rows.append(("mlperf-logging result_summarizer, folder (14 orgs in turn)", reference))
    print(f"{'measurement':62} {'seconds':>8} {'peak MB':>8} {'x faster than summarizer':>26}")
    for label, result in rows:
        peak = f"{result['peak_mb']:.0f}" if result["peak_mb"] else "-"
        ratio = f"{reference['seconds'] / result['seconds']:.0f}x" if reference and result is not reference else ""
        print(f"{label:62} {result['seconds']:8.2f} {peak:>8} {ratio:>26}")


if __name__ == "__main__":
    main()
