"""What each family of rounds is (a round's `kind`): how its results rank, whether they can be
verified, whether only its importer writes its rounds, and where that importer lists its files.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    kind: str  # the rounds' `kind` in catalog/rounds.yaml
    label: str  # how the site names the family
    rank_metric: str  # what ranks results within round x benchmark x division: minutes | chip_hours
    verifiable: bool  # results can be recomputed from published logs (verified when they are)
    closed: bool  # only the importer writes its rounds: a pull request cannot add or edit a result
    manifest_folder: str | None  # catalog/<folder>/<round>.csv: every file the importer wrote, with its digest
    importer: str | None  # the command that writes its files
    round_rules: bool  # benchmarks carry rules per round (quality target, runs); results dated by their round
    model_runs: bool  # each result trains its own model, named in the file and dated by its paper
    lineages: bool = False  # its benchmarks are followed across rounds (history, lineage and generation pages)
    # catalog/<folder>/<round>.csv: every result folder of a round's source that its importer left
    # off the boards, with why (skipped.py); None where the importer takes every result it reads
    skipped_folder: str | None = None
    source_unit: str = "result folder"  # one result of the family's published source, in words


# MLPerf rounds rank by time to train (the official score); published runs train different
# models, so their minutes mean little and they rank by chip-hours. Imported published runs are
# copied from a database, never recomputed: listed in a manifest (protected), never verified.
FAMILIES = {
    "mlperf-training": Family(
        kind="mlperf-training",
        label="MLPerf Training",
        rank_metric="minutes",
        verifiable=True,
        closed=True,
        manifest_folder="verified",
        importer="leaderboard import-mlperf",
        round_rules=True,
        model_runs=False,
        lineages=True,
        skipped_folder="skipped",
    ),
    "mlperf-hpc": Family(
        kind="mlperf-hpc",
        label="MLPerf HPC",
        rank_metric="minutes",  # strong scaling; weak-scaling benchmarks rank by models per minute (normalize.rank_metric)
        verifiable=True,
        closed=True,
        manifest_folder="verified",
        importer="leaderboard import-mlperf",
        round_rules=True,
        model_runs=False,
        skipped_folder="skipped",
    ),
    # DAWNBench (2017-2020) took self-measured entries by pull request; it is closed, so only its
    # importer writes the round, listed in a manifest, never verified (no logs to recompute from).
    "dawnbench": Family(
        kind="dawnbench",
        label="DAWNBench",
        rank_metric="minutes",
        verifiable=False,
        closed=True,
        manifest_folder="imported",
        importer="leaderboard import-dawnbench",
        round_rules=False,
        model_runs=False,
        skipped_folder="skipped",
        source_unit="training entry",
    ),
    "published": Family(
        kind="published",
        label="Published training runs",
        rank_metric="chip_hours",
        verifiable=False,
        closed=False,
        manifest_folder="imported",
        importer="leaderboard import-epoch",
        round_rules=False,
        model_runs=True,
    ),
}
# A kind the table does not know (a catalog ahead of the code) ranks by minutes, closed to nothing.
UNKNOWN = Family("unknown", "Other", "minutes", False, False, None, None, False, False)


def family(kind: str) -> Family:
    return FAMILIES.get(kind, UNKNOWN)


def rank_metric(kind: str) -> str:
    return family(kind).rank_metric


def verifiable_kinds() -> tuple[str, ...]:
    return tuple(k for k, f in FAMILIES.items() if f.verifiable)
