"""The database's tables and what every column means: the analysts' contract, read by the store,
the downloads and the README's table list (table_docs).

Plain descriptions (plain_tables.py), so a build never imports SQLAlchemy (0.15 s of every
build): its tables for a database a SQLAlchemy engine writes are made from them
(sqlalchemy_metadata)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING

from leaderboard.failures import FAILURE_REASONS
from leaderboard.plain_tables import (  # noqa: F401 - the kinds and classes are part of this module's API
    BigInteger,
    Boolean,
    Column,
    Date,
    Double,
    Kind,
    PrimaryKey,
    Schema,
    Table,
    Text,
    as_sqlalchemy,
)

if TYPE_CHECKING:
    import sqlalchemy as sa

Float, Int, Bool = Double, BigInteger, Boolean

metadata = Schema()


def _col(name: str, kind: type[Kind], doc: str, primary_key: bool = False) -> Column:
    return Column(name, kind(), doc, primary_key)


rounds = Table(
    "rounds",
    metadata,
    _col("id", Text, "Round id (catalog/rounds.yaml).", primary_key=True),
    _col("name", Text, "Display name."),
    _col("kind", Text, "mlperf-training, mlperf-hpc (MLPerf HPC), published or dawnbench."),
    _col("date", Date, "Publication date of the round."),
    _col("url", Text, "Where the round is described."),
    _col("results_repository", Text, "Repository of the round's raw results, if any."),
    _col("log_format", Text, "MLPerf rounds: mllog, mll (v0.6) or mlpv0.5: the format of the raw logs."),
    _col("layout", Text, "MLPerf rounds: org-systems or v0.5-entries: the layout of the results tree."),
    _col("rules_source", Text, "MLPerf rounds: where the round's targets, runs and RCPs come from."),
    _col(
        "left_off",
        Int,
        "Result folders (DAWNBench: training entries) of the round's source that are on no board: its rows in "
        "skipped_results. NULL where no importer lists them (no catalog/skipped/<round>.csv).",
    ),
    comment="The rounds of the catalog.",
)
benchmarks = Table(
    "benchmarks",
    metadata,
    _col("id", Text, "Benchmark id (catalog/benchmarks.yaml).", primary_key=True),
    _col("name", Text, "Display name."),
    _col(
        "kind",
        Text,
        "mlperf-training, mlperf-hpc, published (a domain of published runs) or dawnbench (a DAWNBench task).",
    ),
    _col("task", Text, "What the model learns."),
    _col("dataset", Text, "Training data set."),
    _col("reference_model", Text, "The closed division's model."),
    _col("metric", Text, "Quality metric."),
    _col("direction", Text, "higher or lower: which metric values are better."),
    _col(
        "replaces", Text, "The benchmark this one replaced in MLPerf (RetinaNet replaced SSD); never ranked together."
    ),
    _col(
        "scaling",
        Text,
        "strong (one model to the target, ranked by minutes) or weak (MLPerf HPC: many models at once, ranked "
        "by models_per_minute).",
    ),
    comment="The benchmarks of the catalog.",
)
benchmark_rounds = Table(
    "benchmark_rounds",
    metadata,
    _col("benchmark", Text, "Benchmark id.", primary_key=True),
    _col("round", Text, "Round id.", primary_key=True),
    _col("quality_target", Float, "Closed-division quality target."),
    _col("open_quality_target", Float, "The target the open division must reach too, where the round asks it."),
    _col("runs", Int, "Runs a result needs."),
    _col("drop_fastest", Int, "Fastest runs dropped before averaging."),
    _col("drop_slowest", Int, "Slowest runs dropped before averaging."),
    _col(
        "log_scale",
        Float,
        "The round's logs write the metric times this (100: BLEU logged 0-100 in v0.5 and v0.6); targets and "
        "qualities in the database are on the benchmark's one scale.",
    ),
    comment="Per benchmark and round: the scoring rules.",
)
accelerators = Table(
    "accelerators",
    metadata,
    _col("id", Text, "Accelerator id (catalog/accelerators.yaml).", primary_key=True),
    _col("vendor", Text, "Maker."),
    _col("name", Text, "Display name."),
    _col(
        "family",
        Text,
        "The product the part is a variant of, without form factor, memory size or clock bin: H100 for H100 "
        "SXM5 80GB, H100 PCIe, H100 NVL and H100 SXM5 96GB. A part sold under its own name is its own family.",
    ),
    _col("chips_per_device", Float, "Chips in one device (unit: device)."),
    _col("cores_per_chip", Float, "Cores per chip (unit: core); NULL when not counted in cores."),
    _col("memory_gb", Float, "Memory per chip, GB."),
    _col("tdp_w", Float, "Thermal design power per chip, watts."),
    _col("release_date", Date, "Release date."),
    _col("aliases", Text, "Other names of the part, separated by ' | '."),
    _col(
        "no_price_reason",
        Text,
        "Why the part has no on-demand price, where it has none (results.cost_missing_reason then gives it).",
    ),
    _col(
        "processor",
        Bool,
        "true for a CPU (Fujitsu A64FX, Intel Xeon): a result on it counts processors in place of accelerator "
        "chips (results.cpu_only).",
    ),
    comment="The accelerators of the catalog.",
)
organizations = Table(
    "organizations",
    metadata,
    _col("id", Text, "Organization id (catalog/organizations.yaml).", primary_key=True),
    _col("name", Text, "The canonical name: results.organization of every submitter it names."),
    _col("aliases", Text, "The other names it submits or publishes under, separated by ' | '."),
    _col("source", Text, "Where the names are shown to be one organization."),
    _col("note", Text, "Remarks."),
    comment="Organizations that submit under several names (Dell and Dell EMC); a submitter not listed is its "
    "own organization.",
)
prices = Table(
    "prices",
    metadata,
    _col(
        "price_id",
        Text,
        "Stable key: <accelerator>/<provider slug>/<tier>/<date>/<8 hex digits of a hash of amount, unit, "
        "source and note>. costs.price_id names the row a cost used.",
        primary_key=True,
    ),
    _col("accelerator", Text, "Accelerator id."),
    _col("provider", Text, "Cloud provider or seller."),
    _col("tier", Text, "on-demand, spot, 1-year, 3-year or purchase."),
    _col("usd", Float, "Amount in US dollars, per unit."),
    _col("unit", Text, "chip-hour, device-hour, core-hour or chip (purchase)."),
    _col("usd_per_chip_hour", Float, "The amount converted to one chip-hour; NULL for purchase prices."),
    _col("date", Date, "Date the price was in force."),
    _col("source", Text, "Where the price was published."),
    _col(
        "includes_host",
        Bool,
        "Whether the price covers the host machine (CPUs, memory, network): true for instance prices, false "
        "for the accelerator alone; NULL when the source does not say (Epoch AI's table has no such column), "
        "never guessed.",
    ),
    _col(
        "estimate",
        Bool,
        "true when the amount is someone's estimate, not a price anyone quoted (Epoch AI's estimated TPU "
        "purchase prices).",
    ),
    _col("note", Text, "Remarks on the price."),
    _col(
        "date_before_release",
        Text,
        "Why the price is dated before its accelerator's release date (a reviewed reason); NULL for the others.",
    ),
    _col(
        "origin",
        Text,
        "Where the price came from: 'catalog' (catalog/prices.yaml, entered by hand) or 'epoch' (Epoch AI's "
        "hardware price table, imported into catalog/prices-epoch.yaml).",
    ),
    comment="Every dated, sourced price of the catalog.",
)
results = Table(
    "results",
    metadata,
    _col("entry_id", Text, "<round>/<submitter-slug>/<file name without extension>.", primary_key=True),
    _col("file", Text, "The submission file, relative to the project."),
    _col(
        "file_sha256",
        Text,
        "SHA-256 (hex) of the submission file's bytes the result was read from; for a file an importer "
        "wrote, catalog/verified/ or catalog/imported/ lists it too.",
    ),
    _col("round", Text, "Round id."),
    _col("round_kind", Text, "mlperf-training, mlperf-hpc, published or dawnbench; kinds are never ranked together."),
    _col("benchmark", Text, "Benchmark id."),
    _col("division", Text, "closed or open."),
    _col("availability", Text, "available, preview or research."),
    _col("submitter", Text, "Organization, as it names itself."),
    _col(
        "organization",
        Text,
        "The submitter's canonical organization (organizations.name: Dell for Dell EMC, Intel Habana Labs for "
        "HabanaLabs and Intel-HabanaLabs); the submitter as published where the catalog lists no other name.",
    ),
    _col("date", Date, "Publication date of the result."),
    _col("system", Text, "System name."),
    _col("accelerator", Text, "Accelerator id."),
    _col("accelerator_name", Text, "Accelerator display name."),
    _col("accelerator_family", Text, "The accelerator's family (accelerators.family): H100 for every H100 variant."),
    _col(
        "count",
        Float,
        "Accelerators as submitted, in unit. A double: a count of cores or devices may be fractional "
        "(only a chip count must be whole).",
    ),
    _col("unit", Text, "chip, core or device."),
    _col("chips", Float, "count x chips per unit. A double: an odd number of cores is a fraction of a chip."),
    _col("nodes", Int, "Host machines."),
    _col("host_processor", Text, "Host CPU model."),
    _col("host_processor_count", Int, "Host CPUs in the system."),
    _col(
        "cpu_only",
        Bool,
        "true when the system trains on processors alone: the part it counts is a CPU (accelerators.processor; "
        "MLPerf's accelerators_per_node 0: Fugaku's A64FX, Intel Xeon), so chips counts CPUs and chip_hours "
        "is processor-hours. false for every accelerator.",
    ),
    _col("framework", Text, "Software framework."),
    _col("provider", Text, "Cloud provider the system was rented from, where named (DAWNBench)."),
    _col("instance_type", Text, "The provider's instance type, where named (p3.16xlarge)."),
    _col("model_name", Text, "Model trained, where named."),
    _col(
        "model_parameters",
        Float,
        "Trained parameters, where given. A double, as the submission schema takes any positive number "
        "(counts up to 2^53 are exact).",
    ),
    _col("minutes", Float, "Time to train to the quality target (the official score for MLPerf rounds)."),
    _col("runs", Int, "Number of runs in runs_minutes, where given."),
    _col(
        "models",
        Int,
        "Weak-scaling results (MLPerf HPC <benchmark>-weak): models trained to the target at once; minutes is "
        "the time to train them all. NULL for every other result.",
    ),
    _col(
        "models_per_minute",
        Float,
        "models / minutes: a weak-scaling result's score, ranked most first on its own board. NULL for every "
        "other result.",
    ),
    _col("estimated", Bool, "true when minutes is an estimate."),
    _col("quality", Float, "Achieved quality."),
    _col("quality_target", Float, "Target trained to."),
    _col(
        "quality_direction",
        Text,
        "higher or lower: which way quality (and quality_target) is better: the benchmark's metric's "
        "(benchmarks.direction), else what a published run states (result.quality_direction); NULL when "
        "neither says.",
    ),
    _col("chip_hours", Float, "chips x minutes / 60. Derived; not an official MLPerf metric."),
    _col("cost_usd", Float, "chip_hours x on-demand price per chip-hour. Derived; not an official MLPerf metric."),
    _col("price_usd_per_chip_hour", Float, "The on-demand price used."),
    _col("price_provider", Text, "Provider of that price."),
    _col("price_date", Date, "Date of that price."),
    _col("price_source", Text, "Source of that price."),
    _col("price_id", Text, "That price (prices.price_id)."),
    _col(
        "price_after_result",
        Bool,
        "true when no on-demand price was dated on or before the result's date, so the earliest later one "
        "(price_date) is used; NULL without a cost.",
    ),
    _col(
        "price_after_result_days",
        Int,
        "Days from the result's date to price_date when price_after_result; NULL otherwise.",
    ),
    _col("price_estimate", Bool, "true when that price is an estimate (prices.estimate); NULL without a cost."),
    _col(
        "cost_missing_reason",
        Text,
        "Why cost_usd is NULL: the part's no_price_reason, else that the catalog has no on-demand price for it. "
        "NULL when there is a cost.",
    ),
    _col(
        "cost_usd_today",
        Float,
        "cost_usd (dollars of the result's date; of the price's date when the price is dated after the result) "
        "in dollars of cost_usd_today_basis, by the price index of catalog/price-index.yaml.",
    ),
    _col("cost_usd_today_basis", Text, "Index and month of cost_usd_today: the latest month the index has."),
    _col("reference_cost_usd", Float, "Someone else's estimate of the run's cost (Epoch AI's, for imported runs)."),
    _col("reference_cost_year", Int, "The year whose dollars reference_cost_usd is in."),
    _col("reference_cost_source", Text, "Who made that estimate."),
    _col(
        "reported_cost_usd",
        Float,
        "What the submitter says the run cost: DAWNBench's costPerHour x hours to target; NULL where not given.",
    ),
    _col("reported_usd_per_hour", Float, "The submitter's own price per hour of the whole system (DAWNBench)."),
    _col(
        "cost_ratio_reported",
        Float,
        "cost_usd / reported_cost_usd: our cost from catalog prices over what the submitter paid, where both exist.",
    ),
    _col(
        "rank",
        Int,
        "1 = best within round x benchmark x division, across availabilities (available, preview and research "
        "ranked together, as on the site's boards): fewest minutes in MLPerf rounds, fewest chip-hours for "
        "published runs, most models_per_minute on weak-scaling boards (the order of the site's boards). Only "
        "ranked results take one (see ranked); NULL otherwise.",
    ),
    _col(
        "rank_in_availability",
        Int,
        "The same ranking within round x benchmark x division x availability: MLPerf's availability categories "
        "apart (rank 1 of preview is the fastest preview system). NULL where rank is NULL.",
    ),
    _col(
        "ranked",
        Bool,
        "true when the result takes a rank, record or 'best': a verified result, or any result of a round x "
        "benchmark x division that no verified result populates. A self-reported (not verified) result beside "
        "verified ones is shown, labelled, and never ranked; nor is a republished result (republished_from), "
        "nor an estimate (estimated).",
    ),
    _col(
        "unranked_reason",
        Text,
        "Why the result takes no rank (NULL when ranked): 'republished' (it ranks where first published), "
        "'self-reported' (beside verified results), 'estimate' (its minutes were not measured); the first that "
        "applies.",
    ),
    _col(
        "republished_from",
        Text,
        "The entry_id of the first publication of the same result: an earlier round's result of the same kind "
        "and benchmark with the same run times (every successful run's minutes, two or more; identical logs, or "
        "logs that differ only in their headers; a weak-scaling result, which has no run times: the same chips, "
        "number of models and minutes); or, for run times typed from a paper (a published run), a logged result "
        "of any kind and benchmark whose run times (all or some) they equal to a third of a second each. The earliest round wins, so a chain points to its first. Of twins in "
        "one round (the same runs filed twice), the one that measured its energy, else the smaller entry_id, is "
        "the first publication and the other points to it. Listed on its own round's board, never ranked there, never a record or 'best' (it ranks where first "
        "published). NULL for a first publication.",
    ),
    _col(
        "verified",
        Bool,
        "true only for an MLPerf result whose file is exactly what the importer computed from the round's "
        "published logs (its digest in catalog/verified/<round>.csv); a file's own claims prove nothing.",
    ),
    _col(
        "method",
        Text,
        "self-reported, computed-from-logs or imported: the file's provenance.method, read only from a file its "
        "importer wrote (listed in catalog/verified/ or catalog/imported/); any other file is self-reported.",
    ),
    _col("scaling", Text, "unscaled or rcp-scaled, for scores computed from logs."),
    _col("rcp_factor", Float, "Reference convergence point factor MLPerf's RCP rules give the result, where computed."),
    _col(
        "minutes_rcp_scaled",
        Float,
        "minutes scaled by rcp_factor (= minutes when scaling is rcp-scaled); "
        "NULL without a factor. Not the published score when scaling is unscaled.",
    ),
    _col(
        "energy_kwh",
        Float,
        "Energy to train in kWh, where power was measured (MLPerf Training v4.0 on): MLPerf Power's "
        "metric, the olympic mean of the runs' energy; NULL elsewhere.",
    ),
    _col("energy_scope", Text, "What energy_kwh covers: nodes, or nodes and interconnect."),
    _col("energy_measurement", Text, "AC or DC: where energy_kwh was measured, when the logs say."),
    _col(
        "import_notes",
        Text,
        "What the importer read generously or corrected in the source (a division spelled 'close', "
        "a catalog correction), separated by ' | '.",
    ),
    _col("source_url", Text, "Where the result was published."),
    _col("source_citation", Text, "Citation, for sources without a stable URL."),
    _col("source_note", Text, "Remarks on the source (estimates, unofficial sources)."),
    comment="One row per submission, normalized.",
)
cost_table = Table(
    "costs",
    metadata,
    _col("entry_id", Text, "The result (results.entry_id).", primary_key=True),
    _col("tier", Text, "on-demand, spot, 1-year, 3-year or purchase.", primary_key=True),
    _col("price_id", Text, "The price used (prices.price_id): exactly one row of prices; NULL without a price."),
    _col("provider", Text, "Provider of the price used (the lowest in force)."),
    _col("usd_per_chip_hour", Float, "Price per chip-hour; NULL for purchase."),
    _col(
        "cost_usd",
        Float,
        "chip_hours x usd_per_chip_hour; for purchase, chips x price per chip (capital cost, not amortized over "
        "a run). NULL without a price.",
    ),
    _col("price_date", Date, "Date of the price used."),
    _col("price_source", Text, "Source of the price used."),
    _col("price_origin", Text, "Where that price came from (prices.origin): 'catalog' or 'epoch'."),
    _col(
        "price_after_result",
        Bool,
        "true when no price of the tier was dated on or before the result's date, so the earliest later one "
        "(price_date) is used; NULL without a cost.",
    ),
    _col(
        "price_after_result_days",
        Int,
        "Days from the result's date to price_date when price_after_result (the site marks such a cost with "
        "them); NULL otherwise.",
    ),
    _col("price_estimate", Bool, "true when the price used is an estimate (prices.estimate); NULL without a cost."),
    _col(
        "cost_missing_reason",
        Text,
        "Why cost_usd is NULL: the part's no_price_reason, else that the catalog has no price of the tier for "
        "it. NULL when there is a cost.",
    ),
    comment="Cost of every result for every price tier. Derived; not an official MLPerf metric.",
)


run_table = Table(
    "runs",
    metadata,
    _col("entry_id", Text, "The result (results.entry_id).", primary_key=True),
    _col("run", Int, "The run's place in run order, from 1 (runs_minutes' order).", primary_key=True),
    _col("minutes", Float, "The run's time to train; NULL for a failed run."),
    _col("status", Text, "success, or failed: the run does not count (failure_reason says why)."),
    _col(
        "failure_reason",
        Text,
        "Why the run failed, one of: "
        + ", ".join(FAILURE_REASONS)
        + " (the README's failure_reason table); NULL for a run that "
        "did not fail or whose file gives no reason.",
    ),
    _col("failure_detail", Text, "Why the run failed, in the importer's words (provenance.failed_runs)."),
    _col(
        "dropped",
        Text,
        "Why the olympic mean leaves the run out: failed (it takes the place of one of the slowest), fastest or "
        "slowest; NULL when it counted.",
    ),
    _col("counted", Bool, "true when the run's minutes are in the result's score."),
    _col("quality", Float, "The run's achieved quality (a failed run's last evaluation), where logged."),
    _col("energy_kwh", Float, "The run's energy to train, where power was measured."),
    _col("log_path", Text, "The run's raw log, its path in the round's results repository."),
    _col("log_url", Text, "Where the raw log is published."),
    comment="One row per run of every result that lists its runs (runs_minutes).",
)


progress_table = Table(
    "progress",
    metadata,
    _col("entry_id", Text, "The result (results.entry_id).", primary_key=True),
    _col("row", Int, "The evaluation's place in the source's order, from 1.", primary_key=True),
    _col("epoch", Float, "Epoch (may be fractional)."),
    _col("hours", Float, "Hours since training started."),
    _col("quality", Float, "The benchmark's metric at this evaluation (benchmarks.metric)."),
    _col("reaches_target", Bool, "true when quality reaches the result's quality_target."),
    _col("top1_accuracy", Float, "Top-1 accuracy, percent, where evaluated."),
    _col("top5_accuracy", Float, "Top-5 accuracy, percent, where evaluated."),
    _col("f1_score", Float, "F1 score (0 to 1), where evaluated."),
    comment="Training progress of every result that lists it (DAWNBench's per-epoch TSV): one row per evaluation.",
)


epoch_cost_comparison = Table(
    "epoch_cost_comparison",
    metadata,
    _col("entry_id", Text, "The result (results.entry_id).", primary_key=True),
    _col("model_name", Text, "Model trained."),
    _col("tier", Text, "on-demand, 1-year or 3-year: the price tier of our cost.", primary_key=True),
    _col(
        "our_cost_usd",
        Float,
        "Our cost for the tier (costs.cost_usd), in dollars of the result's date (of the price's, when the price is "
        "dated after the result).",
    ),
    _col(
        "our_cost_usd_2023",
        Float,
        "our_cost_usd in dollars of January 2023 (the price index's value then over its "
        "value in the result's month, or the price's when the price is dated after the result), our reading "
        "of Epoch's 2023 USD.",
    ),
    _col("epoch_cost_usd_2023", Float, "Epoch AI's 'Training compute cost (2023 USD)' for the model."),
    _col("ratio", Float, "our_cost_usd_2023 / epoch_cost_usd_2023."),
    comment="Our cost of each run beside Epoch AI's estimate, per tier, where both exist. Derived; Epoch's "
    "estimate uses its own prices, utilization and hardware assumptions.",
)


skipped_results = Table(
    "skipped_results",
    metadata,
    _col("round", Text, "Round id.", primary_key=True),
    _col(
        "folder",
        Text,
        "The result folder in the round's repository (DAWNBench: <Task>/train/<entry>): one folder of the "
        "round's source that is on no board.",
        primary_key=True,
    ),
    _col("submitter", Text, "Organization, as its system description names it, else its folder."),
    _col("system", Text, "System name, as its description gives it, else the system's folder."),
    _col(
        "benchmark",
        Text,
        "Benchmark id; the folder's own name where the round has no such benchmark (the reason then says so).",
    ),
    _col(
        "reason",
        Text,
        "Why it is on no board: its logs absent from the public copy (MISSING.txt), too few runs, too many failed "
        "runs, an unreadable system description, unresolved hardware (DAWNBench), ...",
    ),
    _col("logs_found", Int, "Run logs the source holds for it; NULL where results are not run logs (DAWNBench)."),
    _col("logs_needed", Int, "Runs the round's rules ask for; NULL where unknown."),
    _col(
        "logs_missing",
        Int,
        "Run logs the source's MISSING.txt lists as absent from the public copy (0: none); NULL for DAWNBench.",
    ),
    _col("source_url", Text, "Where the folder is published."),
    comment="Every result folder of a shipped round's source that is on no board, with why: written by the "
    "round's importer to catalog/skipped/<round>.csv. A round's result folders = its results + these rows.",
)


@functools.cache
def sqlalchemy_metadata() -> sa.MetaData:
    """The tables as SQLAlchemy's, for a database written through an engine (a server's, and the
    DDL of a DuckDB file: store.duckdb_ddl), in the order they are described."""
    return as_sqlalchemy(metadata)


def table_docs() -> Iterable[tuple[str, str, list[tuple[str, str, str]]]]:
    """(table, description, [(column, type, description)]) for every table: the README reads this."""
    for table in metadata.sorted_tables:
        yield table.name, table.comment or "", [(c.name, str(c.type).lower(), c.comment or "") for c in table.columns]
