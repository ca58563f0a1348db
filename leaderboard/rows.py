"""Valid entries normalized into the database's rows: results, costs per tier, runs, and the
comparison with Epoch AI's estimates (pure apart from showing file paths relative to the project).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from leaderboard.catalog import Catalog
from leaderboard.failures import failure_reason
from leaderboard.families import family
from leaderboard.files import read_regular
from leaderboard.identity import name_key
from leaderboard.inflation import EPOCH_BASIS, adjust, dollars_of, latest_month
from leaderboard.kept_rows import KeptRows
from leaderboard.manifest import Unmatched, file_digest, unmatched
from leaderboard.normalize import (
    DEFAULT_TIER,
    PriceChoice,
    chip_hours,
    chips,
    costs,
    dropped_runs,
    metric_ranks,
    price_in_force,
    rank_metric,
    reaches_target,
)
from leaderboard.organizations import canonical_names, organization_of
from leaderboard.quality import quality_direction
from leaderboard.republished import Publication, republished_from
from leaderboard.tree import real_folder
from leaderboard.validate import Entry

COMPARISON_TIERS = ("on-demand", "1-year", "3-year")


@dataclass
class TableRows:
    """The rows of the tables built from entries (the catalog's tables come from the catalog)."""

    results: list[dict] = field(default_factory=list)
    costs: list[dict] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)
    progress: list[dict] = field(default_factory=list)
    # Files a verified manifest lists whose bytes differ from its digest: shown not verified.
    unmatched: list[Unmatched] = field(default_factory=list)


def table_rows(
    entries: Sequence[Entry], catalog: Catalog, base: Path | None = None, kept: KeptRows | None = None
) -> TableRows:
    """Normalize valid entries into `results`, `costs` and `runs` rows. `kept`: each unchanged
    entry's rows as a previous build made them (kept_rows.py), and where this one's are kept."""
    rows, cost_rows, runs, progress = [], [], [], []
    unmatched_files: list[Unmatched] = []
    # Each accelerator's prices, found once rather than searched for in every entry.
    prices_of: dict[str, list] = {}
    for price in catalog.prices:
        prices_of.setdefault(price.accelerator, []).append(price)
    base = base.resolve() if base is not None else None
    real_folder.cache_clear()
    # The price in force depends only on accelerator, tier and date, which results share.
    chosen: dict[tuple[str, str, str], PriceChoice | None] = {}
    organization_names = canonical_names(catalog.organizations)

    def choose(prices, accelerator, tier, date):
        key = (accelerator.id, tier, date)
        if key not in chosen:
            chosen[key] = price_in_force(prices, accelerator, tier, date)
        return chosen[key]

    for entry in entries:
        made = kept.get(entry) if kept is not None else None
        if made is None:
            unmatched_before = len(unmatched_files)
            made = _entry_rows(entry, catalog, prices_of, choose, organization_names, base, unmatched_files)
            # An entry a manifest lists with other bytes is said (unmatched_files) each build: not kept.
            if kept is not None and len(unmatched_files) == unmatched_before:
                kept.put(entry, made)
        row, entry_costs, entry_runs, entry_progress = made
        rows.append(row)
        cost_rows += entry_costs
        runs += entry_runs
        progress += entry_progress
    _mark_republished(rows, entries, catalog)
    _assign_ranks(rows, catalog)
    return TableRows(rows, cost_rows, runs, progress, unmatched_files)


def _entry_rows(
    entry: Entry, catalog: Catalog, prices_of, choose, organization_names, base: Path | None, unmatched_files
) -> tuple[dict, list[dict], list[dict], list[dict]]:
    """One entry's results row (before the ranks and republications, which compare entries), its
    cost rows, run rows and progress rows."""
    data = entry.data
    system, result, source = data["system"], data["result"], data["source"]
    round_ = catalog.rounds[data["round"]]
    benchmark = catalog.benchmarks[data["benchmark"]]
    provenance = importer_provenance(entry.entry_id, data, round_.kind, catalog)
    accelerator = catalog.accelerators[system["accelerator"]]
    unit = system.get("unit", "chip")
    n_chips = chips(system["count"], unit, accelerator)
    hours = chip_hours(n_chips, result["minutes"])
    entry_costs = costs(prices_of.get(accelerator.id, []), accelerator, n_chips, hours, data["date"], choose)
    default = next(c for c in entry_costs if c.tier == DEFAULT_TIER)
    # Each cost's fields, as asdict() but flat and fast.
    entry_cost_rows = [{"entry_id": entry.entry_id, **vars(cost)} for cost in entry_costs]
    row = {
        "entry_id": entry.entry_id,
        "file": _display(entry.file, base),
        "file_sha256": _file_sha256(entry),
        "round": data["round"],
        "round_kind": round_.kind,
        "benchmark": data["benchmark"],
        "division": data["division"],
        "availability": data["availability"],
        "submitter": data["submitter"],
        "organization": organization_of(data["submitter"], organization_names),
        "date": data["date"],
        "system": system["name"],
        "accelerator": accelerator.id,
        "accelerator_name": accelerator.name,
        "accelerator_family": accelerator.family or accelerator.name,
        "count": float(system["count"]),
        "unit": unit,
        "chips": n_chips,
        "nodes": system.get("nodes"),
        "host_processor": system.get("host_processor"),
        "host_processor_count": system.get("host_processor_count"),
        "cpu_only": cpu_only(accelerator),
        "framework": system.get("framework"),
        "provider": system.get("provider"),
        "instance_type": system.get("instance_type"),
        "model_name": data.get("model", {}).get("name"),
        "model_parameters": data.get("model", {}).get("parameters"),
        "minutes": float(result["minutes"]),
        "runs": len(result["runs_minutes"]) if "runs_minutes" in result else None,
        "models": result.get("models"),
        "models_per_minute": result["models"] / result["minutes"] if result.get("models") else None,
        "estimated": bool(result.get("estimated", False)),
        "quality": result.get("quality"),
        "quality_target": result.get("quality_target"),
        "quality_direction": quality_direction(result, benchmark),
        "chip_hours": hours,
        "cost_usd": default.cost_usd,
        "price_usd_per_chip_hour": default.usd_per_chip_hour,
        "price_provider": default.provider,
        "price_date": default.price_date,
        "price_source": default.price_source,
        "price_id": default.price_id,
        "price_after_result": default.price_after_result,
        "price_after_result_days": default.price_after_result_days,
        "price_estimate": default.price_estimate,
        "cost_missing_reason": default.cost_missing_reason,
        **_today_dollars(default.cost_usd, dollars_of(data["date"], default.price_date), catalog),
        **_reference_cost(data.get("reference_cost")),
        **_reported_cost(data.get("reported_cost"), default.cost_usd),
        "rank": None,
        "rank_in_availability": None,
        "ranked": False,  # _assign_ranks decides
        "unranked_reason": None,  # _assign_ranks decides
        "republished_from": None,  # _mark_republished decides
        "verified": _verified(round_, entry, catalog.verified, unmatched_files, base),
        "method": provenance.get("method", "self-reported"),
        "scaling": provenance.get("scaling"),
        "rcp_factor": provenance.get("rcp_factor"),
        "minutes_rcp_scaled": _rcp_scaled(result["minutes"], provenance),
        "energy_kwh": (result.get("energy") or {}).get("kwh"),
        "energy_scope": (result.get("energy") or {}).get("scope"),
        "energy_measurement": (result.get("energy") or {}).get("measurement"),
        "import_notes": " | ".join(provenance.get("notes", ())) or None,
        "source_url": source.get("url"),
        "source_citation": source.get("citation"),
        "source_note": source.get("note"),
    }
    runs = run_rows(entry.entry_id, data, catalog) if "runs_minutes" in result else []
    progress = progress_rows(entry.entry_id, result, benchmark) if "progress" in result else []
    return row, entry_cost_rows, runs, progress


def cpu_only(accelerator) -> bool:
    """Whether the system trains on processors alone: the part it counts is a CPU (the catalog's
    `processor`: Fugaku's A64FX, Intel Xeon), so its chips are CPUs and its chip-hours processor-hours."""
    return bool(accelerator is not None and accelerator.processor)


def _reported_cost(reported: dict | None, ours: float | None) -> dict:
    usd = (reported or {}).get("usd")
    return {
        "reported_cost_usd": usd,
        "reported_usd_per_hour": (reported or {}).get("usd_per_hour"),
        "cost_ratio_reported": ours / usd if ours is not None and usd else None,
    }


# A progress row's metric keys (DAWNBench's TSV columns) -> the progress table's columns.
PROGRESS_METRICS = {"top1Accuracy": "top1_accuracy", "top5Accuracy": "top5_accuracy", "f1Score": "f1_score"}


def progress_rows(entry_id: str, result: dict, benchmark) -> list[dict]:
    """One row per evaluation of result.progress; quality is the benchmark's metric there (the
    key its log_metric names), and whether it reaches the result's target."""
    target, key = result.get("quality_target"), benchmark.log_metric
    rows = []
    for index, item in enumerate(result["progress"], start=1):
        quality = item.get(key) if key else None
        known = quality is not None and target is not None and benchmark.direction
        reaches = reaches_target(quality, target, benchmark.direction) if known else None
        rows.append(
            {
                "entry_id": entry_id,
                "row": index,
                "epoch": item["epoch"],
                "hours": item["hours"],
                "quality": quality,
                "reaches_target": reaches,
                **{column: item.get(name) for name, column in PROGRESS_METRICS.items()},
            }
        )
    return rows


def _today_dollars(cost_usd: float | None, date: str, catalog: Catalog) -> dict:
    """cost_usd_today: `cost_usd`, in dollars of `date` (inflation.dollars_of), in the index's latest month's."""
    index = catalog.price_index
    if index is None:
        return {"cost_usd_today": None, "cost_usd_today_basis": None}
    today = latest_month(index)
    adjusted = adjust(cost_usd, date, today, index)
    # The basis says what cost_usd_today is in: without a cost there is nothing it describes.
    return {
        "cost_usd_today": adjusted,
        "cost_usd_today_basis": None if adjusted is None else f"{index.series}, {today}",
    }


def _reference_cost(reference: dict | None) -> dict:
    reference = reference or {}
    return {
        "reference_cost_usd": reference.get("usd"),
        "reference_cost_year": reference.get("year"),
        "reference_cost_source": reference.get("source"),
    }


def comparison_rows(rows: Sequence[dict], cost_rows: Sequence[dict], catalog: Catalog) -> list[dict]:
    """epoch_cost_comparison: per result with a 2023-dollar reference cost and per tier with our cost."""
    ours = {(c["entry_id"], c["tier"]): (c["cost_usd"], c.get("price_date")) for c in cost_rows}
    found = []
    for row in rows:
        if row.get("reference_cost_usd") is None or row.get("reference_cost_year") != 2023:
            continue
        for tier in COMPARISON_TIERS:
            cost, price_date = ours.get((row["entry_id"], tier), (None, None))
            if cost is None:
                continue
            cost_2023 = adjust(cost, dollars_of(row["date"], price_date), EPOCH_BASIS, catalog.price_index)
            found.append(
                {
                    "entry_id": row["entry_id"],
                    "model_name": row["model_name"],
                    "tier": tier,
                    "our_cost_usd": cost,
                    "our_cost_usd_2023": cost_2023,
                    "epoch_cost_usd_2023": row["reference_cost_usd"],
                    "ratio": None if cost_2023 is None else cost_2023 / row["reference_cost_usd"],
                }
            )
    return found


def _rcp_scaled(minutes: float, provenance: dict) -> float | None:
    if provenance.get("scaling") == "rcp-scaled":
        return float(minutes)
    factor = provenance.get("rcp_factor")
    return None if factor is None else minutes * factor


def importer_provenance(entry_id: str, data: dict, kind: str, catalog: Catalog) -> dict:
    """The file's provenance (method, run logs, notes) when an importer wrote it: its entry id is
    in its family's manifest (catalog/verified/ or catalog/imported/). Any other file's claims are
    not read: a hand-written file is self-reported, whatever it says (validate and check-pr
    report the claim)."""
    folder = family(kind).manifest_folder
    listed = catalog.verified if folder == "verified" else catalog.imported if folder == "imported" else {}
    return data.get("provenance") or {} if entry_id in listed else {}


def _verified(
    round_, entry: Entry, manifests: dict[str, str], unmatched_files: list[Unmatched], base: Path | None
) -> bool:
    """Verified only when the file is exactly what the MLPerf importer computed from the round's
    published logs (its digest in catalog/verified/<round>.csv); URLs or provenance a file
    claims prove nothing. A listed file whose bytes differ goes to `unmatched_files` (the build
    says how many results that leaves unverified, and why)."""
    expected = manifests.get(entry.entry_id)
    if not family(round_.kind).verifiable or expected is None:
        return False
    if entry.read_from(expected):
        return True
    # Only a file that differs is read again, for why, and named by its shown path.
    mismatch = unmatched(round_.id, _display(entry.file, base), read_regular(entry.file), expected)
    unmatched_files.append(mismatch)
    return False


def _file_sha256(entry: Entry) -> str | None:
    """The SHA-256 of the bytes the entry was read from: as validation read them, else (an entry
    made elsewhere) the file's now; None when it is no regular file."""
    if entry.sha256 is not None:
        return entry.sha256
    content = read_regular(entry.file)
    return None if content is None else file_digest(content)


def _assign_ranks(rows: list[dict], catalog: Catalog) -> None:
    """Rank within round x benchmark x division, whatever the availability, by the round kind's
    metric (RANK_METRIC), or by models per minute on a weak-scaling benchmark's board, the results
    unranked_reasons lets rank. The same ranked results are ranked again among those of their
    availability (rank_in_availability)."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["round"], row["benchmark"], row["division"]), []).append(row)
    for group in groups.values():
        benchmark = catalog.benchmarks.get(group[0]["benchmark"])
        metric = rank_metric(group[0]["round_kind"], benchmark.scaling if benchmark else None)
        reasons = unranked_reasons(group)
        values = [r[metric] if reason is None else None for r, reason in zip(group, reasons, strict=True)]
        for row, reason, rank in zip(group, reasons, metric_ranks(values, metric), strict=True):
            row["ranked"] = reason is None
            row["unranked_reason"] = reason
            row["rank"] = rank if reason is None else None
        for availability in {r["availability"] for r in group}:
            same = [(r, v) for r, v in zip(group, values, strict=True) if r["availability"] == availability]
            for (row, _), rank in zip(same, metric_ranks([v for _, v in same], metric), strict=True):
                row["rank_in_availability"] = rank


# Why a result on a board takes no rank, record or "best" (results.unranked_reason), first match wins.
UNRANKED_REASONS = {
    "republished": "republished; it ranks where it was first published",
    "self-reported": "self-reported, beside results verified from their logs",
    "estimate": "an estimate; its time was not measured",
}


def unranked_reasons(group: Sequence[dict]) -> list[str | None]:
    """Per result of one board (round x benchmark x division), why it takes no rank, or None:
    republished (republished_from); self-reported where a verified result is in the group
    (ranked_in); an estimated time (result.estimated: a projection is not a run)."""
    flags = ranked_in([r["verified"] for r in group])
    return [_unranked_reason(row, flag) for row, flag in zip(group, flags, strict=True)]


def _unranked_reason(row: dict, ranks_beside_verified: bool) -> str | None:
    if row["republished_from"] is not None:
        return "republished"
    if not ranks_beside_verified:
        return "self-reported"
    if row["estimated"]:
        return "estimate"
    return None


def _typed(row: dict) -> tuple:
    """What typed run times must share besides to be one measurement: the hardware and the model."""
    return (row["accelerator"], row["chips"], name_key(row.get("model_name") or ""))


def _mark_republished(rows: list[dict], entries: Sequence[Entry], catalog: Catalog) -> None:
    """results.republished_from: the first publication of the same runs (leaderboard.republished)."""
    publications = [
        Publication(
            row["entry_id"],
            row["round"],
            str(catalog.rounds[row["round"]].date),
            row["round_kind"],
            row["benchmark"],
            tuple(entry.data["result"].get("runs_minutes") or ()),
            (row["chips"], row["models"], row["minutes"]) if row.get("models") else None,
            row.get("energy_kwh") is not None,
            () if family(row["round_kind"]).verifiable else _typed(row),
        )
        for row, entry in zip(rows, entries, strict=True)
    ]
    first = republished_from(publications)
    for row in rows:
        row["republished_from"] = first.get(row["entry_id"])


def ranked_in(verified: Sequence[bool]) -> list[bool]:
    """Which results of one group take a rank: the verified ones when there are any, else all
    (a self-reported result never outranks, nor ranks among, verified ones)."""
    return list(verified) if any(verified) else [True] * len(verified)


def _display(file: str, base: Path | None) -> str:
    """The submission file's path relative to `base` (resolved by the caller), else as given.
    Submission files are never links (validation refuses them): only their folder is resolved,
    once per folder, not once per file."""
    if base is not None:
        real = os.path.join(real_folder(os.path.dirname(os.path.abspath(file))), os.path.basename(file))
        inside = os.path.join(str(base), "")  # the folder with one separator at its end
        if real.startswith(inside):
            return real[len(inside) :].replace(os.sep, "/")
    return Path(file).as_posix()


def run_rows(entry_id: str, data: dict, catalog: Catalog) -> list[dict]:
    """One row per run in runs_minutes: its status, whether the olympic mean dropped it, its
    quality and energy, and its raw log with a link (when the entry names its logs)."""
    round_ = catalog.rounds.get(data["round"])
    result = data["result"]
    provenance = importer_provenance(entry_id, data, round_.kind if round_ else "", catalog)
    minutes = result["runs_minutes"]
    benchmark = catalog.benchmarks.get(data["benchmark"])
    rules = benchmark.rounds.get(data["round"]) if benchmark is not None else None
    fastest, slowest = (rules.drop_fastest, rules.drop_slowest) if rules is not None else (0, 0)
    drops = dropped_runs(minutes, fastest, slowest)
    qualities = result.get("runs_quality") or []
    energies = (result.get("energy") or {}).get("runs_kwh") or []
    logs = provenance.get("run_logs") or []
    reasons = _failure_reasons(provenance.get("failed_runs") or [], logs)
    folder = _results_folder(data.get("source", {}).get("url"))
    rows = []
    for index, run_minutes in enumerate(minutes):
        log = logs[index] if index < len(logs) else None
        failed = run_minutes is None
        rows.append(
            {
                "entry_id": entry_id,
                "run": index + 1,
                "minutes": run_minutes,
                "status": "failed" if failed else "success",
                "failure_reason": failure_reason(reasons.get(log)) if failed else None,
                "failure_detail": reasons.get(log) if failed else None,
                "dropped": drops[index],
                "counted": not failed and drops[index] is None,
                "quality": qualities[index] if index < len(qualities) else None,
                "energy_kwh": energies[index] if index < len(energies) else None,
                **_log_location(folder, log),
            }
        )
    return rows


def _failure_reasons(failed_runs: Sequence[str], logs: Sequence[str]) -> dict[str, str]:
    """failed_runs lines ("<log>: <why>") by log name."""
    reasons = {}
    for line in failed_runs:
        for log in logs:
            if line.startswith(f"{log}: "):
                reasons[log] = line[len(log) + 2 :]
                break
    return reasons


def _results_folder(url: str | None) -> tuple[str, str] | None:
    """(blob URL prefix, folder path inside the repository) of a GitHub tree URL, else None."""
    prefix = "https://github.com/"
    if not url or not url.startswith(prefix):
        return None
    parts = url[len(prefix) :].rstrip("/").split("/")
    if len(parts) < 4 or parts[2] != "tree":
        return None
    owner, repository, _, branch, *folder = parts
    return f"{prefix}{owner}/{repository}/blob/{branch}", "/".join(folder)


def _log_location(folder: tuple[str, str] | None, log: str | None) -> dict:
    if log is None:
        return {"log_path": None, "log_url": None}
    if folder is None:
        return {"log_path": log, "log_url": None}
    blob, path = folder
    log_path = f"{path}/{log}" if path else log
    return {"log_path": log_path, "log_url": f"{blob}/{log_path}"}
