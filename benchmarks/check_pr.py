"""`leaderboard check-pr` as a contributor's pull request meets it: on a git clone of the project
(every shipped submission and the catalog), a branch adding one valid submission file (target:
under 5 s), and a branch changing one price of the catalog, whose effect on every result is
previewed (target: under 30 s). Each check is the command CI runs, in a fresh process with no
cache (CI keeps none), timed `--repeat` times, the kinds alternating; wall time, CPU (the process
and its worker processes) and peak memory. Prints a markdown section for RESULTS.md.

`--code DIR` (repeatable) runs the leaderboard package of another checkout of the project too
(`git worktree add /tmp/old <commit>`), alternating with this one's in the same run, for side by
side figures.

    .venv/bin/python benchmarks/check_pr.py [--repeat 3] [--code /tmp/old]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import Measure, machine  # noqa: E402
from run import measure as run_measure  # noqa: E402

ROOT = HERE.parent
WORK = HERE / "work" / "check-pr"
PYTHON = sys.executable
# The submission a contributor adds: a second run of a shipped published run, another size.
TEMPLATE = "submissions/published/google/bert-large.yaml"
ADDED = "submissions/published/bench-labs/bert-large-32-devices.yaml"
PRICES = "catalog/prices.yaml"
COMMAND = [PYTHON, "-m", "leaderboard", "check-pr", "--base", "main"]
# Each kind of pull request: its branch, what check-pr says of it when it does its work, its target (s).
KINDS = {
    "one new submission": ("one-submission", "all valid", 5.0),
    "one price changed": ("one-price", "catalog change: its effect", 30.0),
}


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout


def clone() -> Path:
    """The project as committed, in a repository of its own: main, plus one branch for each kind of
    pull request. The working tree's own changes are left out: commit them first."""
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(WORK)], check=True)
    git(WORK, "checkout", "--quiet", "-B", "main")
    for args in (("config", "user.email", "bench@example.org"), ("config", "user.name", "bench")):
        git(WORK, *args)

    git(WORK, "checkout", "--quiet", "-b", "one-submission", "main")
    text = (WORK / TEMPLATE).read_text(encoding="utf-8")
    changes = [
        ("submitter: Google", "submitter: Bench Labs"),
        ("name: 16 Cloud TPU v3 devices", "name: 32 Cloud TPU v3 devices"),
        ("count: 16", "count: 32"),
        ("minutes: 5760", "minutes: 3000"),
        ('note: "', 'note: "A second run, on 32 devices, measured by Bench Labs. '),
    ]
    for before, after in changes:
        assert before in text, f"{TEMPLATE} no longer holds {before!r}: update the benchmark"
        text = text.replace(before, after, 1)
    (WORK / ADDED).parent.mkdir(parents=True)
    (WORK / ADDED).write_text(text, encoding="utf-8")
    git(WORK, "add", "-A")
    git(WORK, "commit", "--quiet", "-m", "one new submission")

    git(WORK, "checkout", "--quiet", "-b", "one-price", "main")
    prices = (WORK / PRICES).read_text(encoding="utf-8")
    changed, count = re.subn(r"usd: 3\.06,", "usd: 2.96,", prices, count=1)
    assert count == 1, f"{PRICES} no longer holds a price of 3.06: update the benchmark"
    (WORK / PRICES).write_text(changed, encoding="utf-8")
    git(WORK, "commit", "--quiet", "-am", "one price changed")
    return WORK


def check(branch: str, code: Path) -> Measure:
    """check-pr of `branch` against main, timed, with the leaderboard package of `code`."""
    git(WORK, "checkout", "--quiet", branch)
    return run_measure(COMMAND, cwd=WORK, env={"PYTHONPATH": str(code)}, sample=False)


def checked_output(branch: str, expected: str, code: Path) -> None:
    """Run once untimed (which also reads every file into the page cache): the check passes and
    says what it is for, or the figures would time something else."""
    git(WORK, "checkout", "--quiet", branch)
    shown = subprocess.run(
        COMMAND,
        cwd=WORK,
        env={**os.environ, "PYTHONPATH": str(code)},
        capture_output=True,
        text=True,
    )
    assert shown.returncode == 0 and expected in shown.stdout, (
        f"check-pr of {branch} with {code} exited {shown.returncode} without {expected!r}:\n"
        f"{shown.stdout[-2000:]}{shown.stderr[-2000:]}"
    )


def measure(repeat: int = 3, codes: list[Path] | None = None) -> dict:
    codes = [ROOT, *(codes or [])]
    clone()
    for branch, expected, _ in KINDS.values():
        for code in codes:
            checked_output(branch, expected, code)
    times: dict[str, dict[str, list[Measure]]] = {str(c): {k: [] for k in KINDS} for c in codes}
    for _ in range(repeat):
        for kind, (branch, _, _) in KINDS.items():
            for code in codes:
                measured = check(branch, code)
                assert measured.code == 0, f"check-pr of {branch} with {code} failed"
                times[str(code)][kind].append(measured)
    revisions = {str(c): revision(c) for c in codes}
    return {"machine": machine(), "times": times, "revisions": revisions, "repeat": repeat}


def revision(code: Path) -> str:
    """The commit of a checkout, marked when its code differs from it."""
    changed = git(code, "status", "--porcelain", "--", "leaderboard", "schemas").strip()
    return git(code, "rev-parse", "--short", "HEAD").strip() + (" + uncommitted changes" if changed else "")


def markdown(found: dict) -> list[str]:
    lines = [
        "## check-pr: what a contributor waits for",
        "",
        f"Machine: {found['machine']}. `benchmarks/check_pr.py`: `leaderboard check-pr --base main` on a git "
        "clone of the project (every shipped submission and the catalog), in a fresh process with no cache, "
        f"as CI runs it; {found['repeat']} runs of each kind alternating, median (every run in brackets); CPU "
        "is user + system seconds of the process and its worker processes; peak memory its maximum RSS.",
        "",
        "| pull request | code | seconds | CPU s | peak memory | target |",
        "|---|---|---:|---:|---:|---|",
    ]
    for code, kinds in found["times"].items():
        for kind, runs in kinds.items():
            seconds = statistics.median(m.seconds for m in runs)
            target = KINDS[kind][2]
            verdict = "met" if seconds < target else "NOT met"
            lines.append(
                f"| {kind} | {found['revisions'][code]} | {seconds:.2f} ({', '.join(f'{m.seconds:.2f}' for m in runs)}) "
                f"| {statistics.median(m.cpu for m in runs):.2f} | {max(m.peak_mib for m in runs):.0f} MiB "
                f"| under {target:.0f} s: {verdict} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--code", type=Path, action="append", default=[], help="another checkout's folder")
    args = parser.parse_args()
    print("\n".join(markdown(measure(args.repeat, [c.resolve() for c in args.code]))))


if __name__ == "__main__":
    main()
