"""Speed and memory of importing every shipped archive of every family (issue 24): each importer
as a user runs it, side by side in one run, beside result_summarizer's times for the same trees.

    python benchmarks/import_families.py [--data ../shared/data] [--repeat 3] [--no-per-family]
        [--json results.json]
    python benchmarks/import_families.py --render results.json   # the section again, from saved results

Which archive goes to which importer is the catalog's word, not a file-name pattern: every
archive at the top of --data (*.tar.xz, *.tar.gz, *.tgz, *.tar, *.zip) that catalog/archives.yaml
lists, with the importer it names and the family (round kind, leaderboard/families.py) of the
rounds it feeds. An archive the catalog does not list, or whose round catalog/rounds.yaml does
not hold yet, is reported as not imported, with why; so is one of an importer not timed here.

One repetition runs each importer's call in turn, as `make reimport` does: `leaderboard
import-mlperf` with every MLPerf archive (Training and HPC; it picks the reader by round kind,
one worker process per CPU) and `leaderboard import-dawnbench` with DAWNBench's, each in a fresh
process into a fresh temporary folder with its own copy of the catalog (the importers write
their manifests there): the project's submissions/ and catalog/ are never touched. The best
repetition is the fastest total; peak memory is the largest of any call in any repetition
(import_mlperf.timed: total PSS of the process tree sampled every 50 ms, or its own maximum
RSS). With --per-family, each family's archives are then imported once alone, to show where
the time goes. result_summarizer is not run: its times are read from --data's
reference-times.txt (measured on this machine, per round).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import import_mlperf as common  # timed, warm, entries_written, reference_times, uptime, version
import run as harness  # benchmarks/run.py: machine

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # the project's own catalog readers decide what each archive is

from leaderboard import archives as archive_list  # noqa: E402
from leaderboard.catalog import load_catalog  # noqa: E402
from leaderboard.families import family  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
SUFFIXES = (".tar.xz", ".tar.gz", ".tgz", ".tar", ".zip")
TARGET_S = 30  # issue 24: every shipped archive at most 30 s on 2 cores ...
TARGET_MIB = 1e9 / 2**20  # ... and under 1 GB
# How each timed importer is called: many sources in one call or one call per source, and its
# quiet flag. An archive of any other importer is listed as not timed.
IMPORTERS = {
    "leaderboard import-mlperf": {"many": True, "flags": ["-q"]},
    "leaderboard import-dawnbench": {"many": False, "flags": []},
}


@dataclass(frozen=True)
class Planned:
    path: Path
    importer: str  # `leaderboard import-...`, as catalog/archives.yaml names it
    family: str  # its rounds' family label (MLPerf Training, MLPerf HPC, DAWNBench)
    rounds: tuple[str, ...]


def plan(data: Path, catalog_dir: Path) -> tuple[list[Planned], list[tuple[str, str]]]:
    """The archives at the top of `data` that a timed importer reads, oldest round first within
    each family, and every other archive there with why it is not imported."""
    catalog = load_catalog(catalog_dir)
    listing = {a.file: a for a in catalog.archives.archives} if catalog.archives else {}
    found = sorted(p for p in data.iterdir() if p.is_file() and p.name.endswith(SUFFIXES)) if data.is_dir() else []
    chosen, left = [], []
    for path in found:
        archive = listing.get(path.name)
        if archive is None:
            left.append((path.name, f"not in {archive_list.LISTED_IN}: no importer named for it"))
            continue
        missing = [r for r in archive.feeds if r not in catalog.rounds]
        if missing:
            left.append((path.name, f"feeds {', '.join(missing)}, which catalog/rounds.yaml does not hold yet"))
        elif archive.importer not in IMPORTERS:
            left.append((path.name, f"read by {archive.importer or 'no importer'}, not timed here"))
        else:
            labels = sorted({family(catalog.rounds[r].kind).label for r in archive.feeds})
            chosen.append(Planned(path, archive.importer, " + ".join(labels), archive.feeds))
    return sorted(chosen, key=order), left


def order(planned: Planned) -> tuple:
    """Family, then round version (v0.7 before v1.0 before v10.0), then name."""
    tail = planned.rounds[0].rsplit("-v", 1)[-1] if planned.rounds else ""
    try:
        version = common.version(tail)
    except ValueError:
        version = ()
    return (planned.family, version, planned.path.name)


def calls(planned: list[Planned]) -> list[tuple[str, list[Planned]]]:
    """The importer calls a user makes for these archives: one per importer that takes many
    sources, else one per archive, in the order of IMPORTERS."""
    out = []
    for importer, how in IMPORTERS.items():
        mine = [p for p in planned if p.importer == importer]
        if mine:
            out += [(importer, mine)] if how["many"] else [(importer, [p]) for p in mine]
    return out


def command(importer: str, sources: list[Planned], out: Path, catalog: Path) -> list[str]:
    name = importer.removeprefix("leaderboard ")
    paths = [str(p.path) for p in sources]
    return [sys.executable, "-m", "leaderboard", name, *paths, "--out", str(out), "--catalog", str(catalog)] + list(
        IMPORTERS[importer]["flags"]
    )


def one_call(importer: str, sources: list[Planned]) -> dict:
    """One importer call in a fresh process, into a fresh temporary folder with its own catalog copy."""
    with tempfile.TemporaryDirectory(prefix="bench-families-") as scratch:
        out, catalog = Path(scratch) / "submissions", Path(scratch) / "catalog"
        shutil.copytree(ROOT / "catalog", catalog)
        result = common.timed(command(importer, sources, out, catalog), ROOT)
        result["entries"] = common.entries_written(out)
    result["importer"] = importer
    result["archives"] = [p.path.name for p in sources]
    result["families"] = sorted({p.family for p in sources})
    result["rounds"] = sorted({r for p in sources for r in p.rounds})
    return result


def label(call: dict, families: bool = True) -> str:
    names = call["archives"]
    what = names[0] if len(names) == 1 else f"{len(names)} archives"
    return f"`{call['importer']}` {what}" + (f" ({', '.join(call['families'])})" if families else "")


def produced(entries: dict[str, int]) -> str:
    return f"{sum(entries.values()):,} entries in {len(entries)} round{'' if len(entries) == 1 else 's'}"


def measure(data: Path = DATA, repeat: int = 3, per_family: bool = True) -> dict:
    """Every timed importer's call over every archive of `data`, `repeat` times in turn; then,
    with `per_family`, each family's archives alone once."""
    planned, left = plan(data, ROOT / "catalog")
    results: dict = {
        "machine": harness.machine(),
        "cores": os.cpu_count(),
        "uptime_start": common.uptime(),
        "repeat": repeat,
        "not_imported": left,
        "archives": [{"file": p.path.name, "family": p.family, "importer": p.importer} for p in planned],
        "summarizer_seconds": summarizer_times(data, planned),
    }
    for p in planned:
        common.warm(p.path)
    todo = calls(planned)
    repetitions = []
    for i in range(repeat if todo else 0):
        common.say(f"import of every archive ({len(planned)}), repetition {i + 1} of {repeat}")
        repetitions.append([one_call(importer, sources) for importer, sources in todo])
    results["repetitions"] = repetitions
    results["per_family"] = []
    families = sorted({p.family for p in planned})
    for name in families if per_family and len(families) > 1 else []:
        mine = [p for p in planned if p.family == name]
        common.say(f"{name} alone ({len(mine)} archives)")
        results["per_family"] += [one_call(importer, sources) for importer, sources in calls(mine)]
    results["uptime_end"] = common.uptime()
    return results


def summarizer_times(data: Path, planned: list[Planned]) -> dict[str, float]:
    """reference-times.txt's seconds per round id, for the rounds of `planned` it times. Its rows
    name MLPerf Training rounds by version (`v3.0`: the file is for usage training) or in full."""
    rounds = {r for p in planned for r in p.rounds}
    times = {}
    for name, seconds in common.reference_times(data).items():
        round_id = name if name in rounds else f"{common.PREFIX}{name}"
        if round_id in rounds:
            times[round_id] = seconds
    return times


def best(results: dict) -> list[dict] | None:
    """The repetition with the smallest total wall time."""
    reps = results.get("repetitions") or []
    return min(reps, key=lambda calls: sum(c["seconds"] for c in calls)) if reps else None


def markdown(results: dict) -> list[str]:
    """The issue 24 section: how it was measured, the table, the load, each target's verdict."""
    chosen = best(results)
    reps = results.get("repetitions") or []
    mib = lambda r: f"{r['peak_mib']:,.0f} MiB"  # noqa: E731
    failed = lambda r: "" if r["code"] == 0 else f" (**exit {r['code']}**)"  # noqa: E731
    counts: dict[str, int] = {}
    for a in results["archives"]:
        counts[a["family"]] = counts.get(a["family"], 0) + 1
    out = [
        "## Issue 24: importing every family",
        "",
        f"Machine: {results['machine']}.",
        "",
        "Measured by `benchmarks/import_families.py` (also part of `make bench`): every shipped archive of",
        "../shared/data, "
        + ", ".join(f"{n} {f}" for f, n in sorted(counts.items()))
        + ", imported as a user runs it, side by side in one run.",
        "Which importer reads which archive comes from catalog/archives.yaml and the family from the rounds' kind.",
        "One repetition is the importers' calls in turn (`leaderboard import-mlperf` with every MLPerf archive, one",
        "worker process per core; `leaderboard import-dawnbench` with DAWNBench's), each in a fresh process into a",
        f"fresh temporary folder with its own copy of the catalog; best of {results['repeat']} (the fastest total;",
        "peak memory the largest of any call of any repetition: total PSS of the process tree sampled every",
        "50 ms, or its own maximum RSS when larger; CPU is user+system of the whole process tree).",
        "result_summarizer was not re-run: its times are ../shared/data/reference-times.txt's, measured per",
        "round on this machine (one call for all of a round's organizations, usage training).",
        "",
        f"Load at the start: `{results['uptime_start']}`; at the end: `{results['uptime_end']}`.",
        "",
    ]
    for name, why in results.get("not_imported", []):
        out.append(f"- not imported: {name}: {why}")
    if results.get("not_imported"):
        out.append("")
    if not chosen:
        return [*out, "No archive to import: nothing measured."]
    out += [
        "| measurement | wall s | CPU s | peak memory | output | result_summarizer |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for i, call in enumerate(chosen):
        runs = ", ".join(f"{rep[i]['seconds']:.1f}" for rep in reps)
        entries = call["entries"]
        out.append(
            f"| {label(call)}, runs: {runs} s | {call['seconds']:.1f} | {call['cpu_seconds']:.1f} | "
            f"{max(rep[i]['peak_mib'] for rep in reps):,.0f} MiB | {produced(entries)}{failed(call)} | |"
        )
    wall = sum(c["seconds"] for c in chosen)
    cpu = sum(c["cpu_seconds"] for c in chosen)
    peak = max(c["peak_mib"] for rep in reps for c in rep)
    code = max((c["code"] for rep in reps for c in rep), key=abs)
    totals = ", ".join(f"{sum(c['seconds'] for c in rep):.1f}" for rep in reps)
    written = sum(sum(c["entries"].values()) for c in chosen)
    out.append(
        f"| **every archive, total** (runs: {totals} s) | **{wall:.1f}** | {cpu:.1f} | **{peak:,.0f} MiB** | "
        f"{written:,} entries{'' if code == 0 else ' (**a call failed**)'} | |"
    )
    timed = results.get("summarizer_seconds") or {}
    if timed:
        rounds = sorted(timed, key=lambda r: common.version(r.rsplit("-v", 1)[-1]))
        total = sum(timed.values())
        ours = [c for c in chosen if set(c["rounds"]) & set(timed)]
        out.append(
            f"| result_summarizer, {len(timed)} of these rounds one after another ({', '.join(r.rsplit('-', 1)[-1] for r in rounds)}; "
            f"reference-times.txt) | {total:,.0f} | | | | {total / sum(c['seconds'] for c in ours):.0f}x the time of "
            f"the call above that imports them (and more) |"
        )
    for call in results.get("per_family", []):
        out.append(
            f"| {', '.join(call['families'])} alone: {label(call, False)} (one run) | {call['seconds']:.1f} | "
            f"{call['cpu_seconds']:.1f} | {mib(call)} | {produced(call['entries'])}{failed(call)} | |"
        )
    loads = [c["load_after"] for rep in reps for c in rep] + [c["load_after"] for c in results.get("per_family", [])]
    out += ["", f"1-minute load average after each call: {min(loads):.2f} to {max(loads):.2f}."]
    cores = results.get("cores")
    over = "" if wall <= TARGET_S else f" ({wall - TARGET_S:.1f} s, {wall / TARGET_S - 1:.0%} over)"
    out += [
        "",
        "Targets of issue 24 against this run:",
        "",
        f"- Every shipped archive ({len(results['archives'])}) imported: {wall:.1f} s wall, {cpu:.1f} s CPU "
        f"({cpu / wall:.2f} of {cores} cores busy on average); target at most {TARGET_S} s on 2 cores: "
        f"{common.verdict(wall <= TARGET_S and code == 0)}{over}.",
        f"- Peak memory {peak:,.0f} MiB; target under 1 GB ({TARGET_MIB:.0f} MiB): "
        f"{common.verdict(peak < TARGET_MIB and code == 0)}.",
    ]
    if code != 0:
        out.append(f"- A call exited {code}: see the table; no target counts as met with a failed import.")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="folder of the archives (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-per-family", action="store_true", help="skip importing each family alone")
    parser.add_argument("--json", type=Path, help="also save the raw results here")
    parser.add_argument(
        "--render", type=Path, metavar="JSON", help="print the section of saved results; measure nothing"
    )
    args = parser.parse_args()
    if args.render:
        results = json.loads(args.render.read_text())
    else:
        results = measure(args.data, args.repeat, not args.no_per_family)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
    print("\n".join(markdown(results)))


if __name__ == "__main__":
    main()
