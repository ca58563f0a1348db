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
    # Its results carry MLPerf's division (closed/open) and availability, shown on every page; a
    # published run has neither (its file's `division: open` only keeps it apart from MLPerf's).
    divisions: bool = True
    # What a round page says the round is ({date}: the round's date) and what a result that is not
    # verified is called, before "Result not verified by MLCommons Association".
    summary: str = "Results ranked by minutes to train, closed and open divisions separately."
    self_reported: str = "Self-reported"
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
        summary="An MLPerf Training round, published {date}; results are ranked by minutes to train, "
        "closed and open divisions separately.",
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
        lineages=True,
        summary="An MLPerf HPC round (scientific models on supercomputers), published {date}; strong-scaling "
        'results are ranked by minutes to train one model, weak-scaling ones (benchmarks marked "weak '
        'scaling") by models per minute, each on its own board, closed and open divisions separately.',
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
        summary="Stanford DAWN's benchmark of time and cost to a target accuracy (2017-2020): entries the "
        "submitters measured themselves and sent by pull request, self-reported and never verified; ranked by "
        "minutes to the target among DAWNBench results only, never beside MLPerf.",
        self_reported="Self-reported to DAWNBench (no logs to recompute it from)",
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
        divisions=False,
        summary="Training runs reported in papers and posts, ranked by chip-hours within each domain; never "
        "ranked or charted together with MLPerf results.",
    ),
}
# A kind the table does not know (a catalog ahead of the code) ranks by minutes, closed to nothing.
UNKNOWN = Family(
    kind="unknown",
    label="Other",
    rank_metric="minutes",
    verifiable=False,
    closed=False,
    manifest_folder=None,
    importer=None,
    round_rules=False,
    model_runs=False,
)


def family(kind: str) -> Family:
    return FAMILIES.get(kind, UNKNOWN)


def rank_metric(kind: str) -> str:
    return family(kind).rank_metric


def verifiable_kinds() -> tuple[str, ...]:
    return tuple(k for k, f in FAMILIES.items() if f.verifiable)
