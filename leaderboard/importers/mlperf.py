"""Importing an MLPerf Training results tree: every result directory scored from its raw logs,
as MLPerf scores it, and written as one submission file per (organization, system, benchmark).

The round's rules (targets, runs, drops, RCP tables) come from the catalog, never from code.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.catalog import Benchmark, Catalog, Round, RoundRules
from leaderboard.files import SUFFIXES, dump_yaml, load
from leaderboard.importers.archive import READ_ERRORS, SourceError, SourceFile, SourceNotes, iter_source
from leaderboard.importers.mllog import RunLog, Targets, read_run
from leaderboard.importers.rcp import RcpDataError, RcpTable, load_tables, rcp_file, rcp_scaling, reference_points
from leaderboard.normalize import olympic_mean, slug

IMPORTER = "leaderboard-mlperf 1"
MINUTES_DECIMALS = 6  # a millisecond is 1.7e-5 minutes
FACTOR_DECIMALS = 6
MAX_SYSTEM_FILE_BYTES = 1 << 20

# MLPerf system files' `status` -> our availability.
AVAILABILITY = {
    "onprem": "available",
    "available": "available",
    "cloud": "available",
    "preview": "preview",
    "research": "research",
    "rdi": "research",
}

_RESULT_PATH = re.compile(
    r"^(?:(?P<prefix>.*)/)?(?P<org>[^/]+)/results/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/result_(?P<run>\d+)\.txt$"
)
_SYSTEM_PATH = re.compile(r"^(?:(?P<prefix>.*)/)?(?P<org>[^/]+)/systems/(?P<system>[^/]+)\.json$")


class ImportFailure(Exception):
    """The import cannot run at all (unknown round, unreadable or refused source): one line for the user."""


# ---- the tree --------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class ResultDir:
    """<org>/results/<system>/<benchmark>, under an optional top folder."""

    prefix: str
    org: str
    system: str
    benchmark: str

    @property
    def path(self) -> str:
        return "/".join(p for p in (self.prefix, self.org, "results", self.system, self.benchmark) if p)

    @property
    def system_file(self) -> str:
        return "/".join(p for p in (self.prefix, self.org, "systems", f"{self.system}.json") if p)


def classify(path: str) -> tuple[str, re.Match] | None:
    """('result', match) for a log, ('system', match) for a system description, None for anything else."""
    if path.endswith(".txt"):
        match = _RESULT_PATH.match(path)
        return ("result", match) if match else None
    if path.endswith(".json"):
        match = _SYSTEM_PATH.match(path)
        return ("system", match) if match else None
    return None


# ---- scoring (pure) --------------------------------------------------------------------


def targets_for(benchmark: Benchmark, rules: RoundRules) -> Targets:
    return Targets(
        quality_target=rules.quality_target,
        direction=benchmark.direction or "higher",
        log_metric=benchmark.log_metric,
        extra_targets=tuple(sorted(rules.extra_targets.items())),
    )


@dataclass
class Score:
    """A result directory scored: minutes is None when the result is invalid (see `invalid`)."""

    runs_minutes: list[float | None]
    failures: list[tuple[int, str]]  # (index in run order, reason)
    minutes: float | None = None  # olympic mean, unscaled
    quality: float | None = None
    invalid: str | None = None


def score_runs(runs: Sequence[RunLog], rules: RoundRules, closed: bool, targets: Targets) -> Score:
    """Olympic mean of the runs' minutes, failed runs counted as slowest. The quality reported is
    the worst achieved quality among the counted runs (see RunLog.achieved_quality): every
    counted run reached at least that."""
    runs_minutes: list[float | None] = []
    failures: list[tuple[int, str]] = []
    qualities: list[float] = []
    for index, run in enumerate(runs):
        reason = run.failure(closed, targets)
        if reason:
            failures.append((index, reason))
            runs_minutes.append(None)
        else:
            runs_minutes.append(run.minutes)
            if run.achieved_quality(closed) is not None:
                qualities.append(run.achieved_quality(closed))
    score = Score(runs_minutes, failures)
    score.minutes = olympic_mean(runs_minutes, rules.drop_fastest, rules.drop_slowest)
    if score.minutes is None:
        score.invalid = f"{len(failures)} of {len(runs)} runs failed; the scoring may drop at most {rules.drop_slowest}"
    elif len(qualities) < len(runs) - len(failures):
        score.invalid = "a counted run logs no eval_accuracy: its quality is unknown"
    elif qualities:
        score.quality = min(qualities) if targets.direction == "higher" else max(qualities)
    return score


def run_progress(run: RunLog, unit: str) -> float | None:
    """How far a run trained before converging, in the RCP table's unit."""
    return run.last_train_samples if unit == "samples" else run.last_epoch


def scaling_factor(
    runs: Sequence[RunLog], failed: set[int], table: RcpTable | None, rules: RoundRules
) -> tuple[float | None, str | None]:
    """(RCP factor, None) or (None, why the score stays unscaled)."""
    if table is None:
        return None, "no RCP table for this benchmark and round"
    sizes = {run.batch_size for run in runs}
    if None in sizes or len(sizes) != 1:
        return None, "the runs log no single global_batch_size"
    progress: list[float | None] = []
    for index, run in enumerate(runs):
        value = None if index in failed else run_progress(run, table.unit)
        if value is None and index not in failed:
            return None, f"run {index} logs no {'train_samples' if table.unit == 'samples' else 'epoch_num'}"
        progress.append(value)
    points = reference_points(table, rules.drop_fastest, rules.drop_slowest)
    scaling = rcp_scaling(progress, sizes.pop(), points, rules.drop_fastest, rules.drop_slowest, rules.runs)
    return scaling.factor, scaling.reason


# ---- system descriptions ---------------------------------------------------------------


@dataclass(frozen=True)
class SystemInfo:
    submitter: str
    name: str
    division: str
    availability: str
    accelerator: str
    chips: int
    nodes: int
    host_processor: str | None
    host_processor_count: int | None
    framework: str | None


def _whole(value: Any) -> int | None:
    """A count given as a number or a string ("8", " 8 ", "8.0"); None when it is not a whole number."""
    if isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if math.isfinite(number) and number.is_integer() else None


def _text(value: Any) -> str | None:
    return " ".join(value.split()) or None if isinstance(value, str) else None


def system_info(desc: Any, catalog: Catalog) -> tuple[SystemInfo | None, str | None]:
    """A system description mapped to our fields, or (None, the reason it cannot be)."""
    if not isinstance(desc, dict):
        return None, "system description is not a JSON object"
    missing = [
        k
        for k in (
            "submitter",
            "system_name",
            "division",
            "status",
            "number_of_nodes",
            "accelerators_per_node",
            "accelerator_model_name",
        )
        if _text(str(desc.get(k) or "")) is None
    ]
    if missing:
        return None, f"system description lacks {', '.join(missing)}"
    division = str(desc["division"]).strip().lower()
    if division not in ("closed", "open"):
        return None, f"division {desc['division']!r} is neither closed nor open"
    status = str(desc["status"]).strip().lower()
    if status not in AVAILABILITY:
        return None, f"status {desc['status']!r} is not one of {', '.join(AVAILABILITY)}"
    nodes, per_node = _whole(desc["number_of_nodes"]), _whole(desc["accelerators_per_node"])
    if not nodes or not per_node or nodes < 1 or per_node < 1:
        return None, (
            f"number_of_nodes {desc['number_of_nodes']!r} x accelerators_per_node "
            f"{desc['accelerators_per_node']!r} is not a positive whole number"
        )
    model = _text(str(desc["accelerator_model_name"]))
    accelerator = catalog.accelerator_by_alias(model)
    if accelerator is None:
        return None, (
            f"unknown accelerator {model!r}: add it to the aliases of its accelerator in catalog/accelerators.yaml"
        )
    hosts_per_node = _whole(desc.get("host_processors_per_node"))
    return SystemInfo(
        submitter=_text(str(desc["submitter"])),
        name=_text(str(desc["system_name"])),
        division=division,
        availability=AVAILABILITY[status],
        accelerator=accelerator.id,
        chips=nodes * per_node,
        nodes=nodes,
        host_processor=_text(desc.get("host_processor_model_name")),
        host_processor_count=nodes * hosts_per_node if hosts_per_node and hosts_per_node > 0 else None,
        framework=_text(desc.get("framework")),
    ), None


def _read_system(source_file: SourceFile) -> Any:
    raw = source_file.stream.read(MAX_SYSTEM_FILE_BYTES + 1)
    if len(raw) > MAX_SYSTEM_FILE_BYTES:
        raise ValueError("system description is over 1 MiB")
    try:
        return json.loads(raw.decode("utf-8-sig", errors="replace"))
    except ValueError as error:
        raise ValueError(f"system description is not valid JSON ({error})") from None


# ---- entries ---------------------------------------------------------------------------


def source_url(round_: Round, result: ResultDir) -> str | None:
    """The result folder in the round's public repository (a repository URL without /tree/
    gets /tree/main; write /tree/<branch> in the catalog for another branch)."""
    if not round_.results_repository:
        return None
    base = round_.results_repository.rstrip("/")
    if "/tree/" not in base:
        base += "/tree/main"
    return f"{base}/{result.org}/results/{result.system}/{result.benchmark}"


def entry_data(
    round_: Round,
    rules: RoundRules,
    result: ResultDir,
    system: SystemInfo,
    score: Score,
    run_files: Sequence[str],
    factor: float | None,
) -> dict:
    """The submission file's content, keys in the order of the format."""
    factor = round(factor, FACTOR_DECIMALS) if factor is not None else None
    runs_minutes = [None if m is None else round(m, MINUTES_DECIMALS) for m in score.runs_minutes]
    # The score stays the plain olympic mean: it is what MLCommons published for this round.
    # The RCP factor of mlperf-logging's tables (newer than some rounds) is recorded beside it.
    minutes = score.minutes
    data: dict[str, Any] = {
        "schema_version": 1,
        "round": round_.id,
        "benchmark": result.benchmark,
        "division": system.division,
        "availability": system.availability,
        "submitter": system.submitter,
        "date": round_.date,
        "system": {
            "name": system.name,
            "accelerator": system.accelerator,
            "count": system.chips,
            "unit": "chip",
            "nodes": system.nodes,
            "host_processor": system.host_processor,
            "host_processor_count": system.host_processor_count,
            "framework": system.framework,
        },
        "result": {
            "minutes": round(minutes, MINUTES_DECIMALS),
            "quality": score.quality,
            "quality_target": rules.quality_target,
            "runs_minutes": runs_minutes,
        },
        "provenance": {
            "method": "computed-from-logs",
            "importer": IMPORTER,
            "scaling": "unscaled",
            "rcp_factor": factor,
            "failed_runs": [f"{run_files[i]}: {reason}" for i, reason in score.failures] or None,
            "system_file": f"{result.org}/systems/{result.system}.json",  # the same from a folder or an archive
        },
        "source": {"url": source_url(round_, result)},
    }
    return _drop_none(data)


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    return value


# What the importer writes; anything else in an existing file (model, notes) was added by
# hand and is kept on re-import.
TOP_ORDER = (
    "schema_version",
    "round",
    "benchmark",
    "division",
    "availability",
    "submitter",
    "date",
    "system",
    "model",
    "result",
    "provenance",
    "source",
)
OWNED = {
    "system": {"name", "accelerator", "count", "unit", "nodes", "host_processor", "host_processor_count", "framework"},
    "result": {"minutes", "quality", "quality_target", "runs_minutes"},
    "provenance": None,  # wholly the importer's
    "source": {"url"},
}
OWNED_TOP = {"schema_version", "round", "benchmark", "division", "availability", "submitter", "date", *OWNED}


def merge(existing: dict | None, generated: dict) -> dict:
    """The generated entry, plus every key of `existing` that the importer does not write."""
    merged: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in generated.items()}
    for key, value in (existing or {}).items():
        if key not in OWNED_TOP:
            merged[key] = value
        elif isinstance(value, dict) and OWNED.get(key) is not None:
            for inner, inner_value in value.items():
                if inner not in OWNED[key]:
                    merged.setdefault(key, {})[inner] = inner_value
    order = {k: i for i, k in enumerate(TOP_ORDER)}
    return dict(sorted(merged.items(), key=lambda kv: order.get(kv[0], len(order))))


def identity(data: dict) -> tuple:
    """(submitter, system name, benchmark, division), compared without case or spacing."""
    try:
        values = (data["submitter"], data["system"]["name"], data["benchmark"], data["division"])
    except (KeyError, TypeError):
        return ()
    return tuple(" ".join(str(v).casefold().split()) for v in values)


# ---- the import ------------------------------------------------------------------------


@dataclass
class Written:
    path: Path
    status: str  # new | updated | unchanged
    replaced: Path | None = None  # a file of the same entry under another name, now removed


@dataclass
class ImportReport:
    round_id: str
    source: str
    logs_read: int = 0
    result_dirs: int = 0
    written: list[Written] = field(default_factory=list)
    runs_counted: int = 0
    runs_failed: list[tuple[str, str]] = field(default_factory=list)  # (log path, reason)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (result directory, reason)
    unscaled: list[tuple[str, str]] = field(default_factory=list)  # (result directory, why no RCP scaling)
    without_rcp_table: set[str] = field(default_factory=set)  # closed-division benchmarks the round has no RCPs for
    notes: list[str] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        counts = {s: sum(1 for w in self.written if w.status == s) for s in ("new", "updated", "unchanged")}
        lines = [
            f"{self.source}: {self.result_dirs} result directories, {self.logs_read} logs ({self.round_id})",
            f"entries written: {len(self.written)} ({counts['new']} new, {counts['updated']} updated, "
            f"{counts['unchanged']} unchanged)",
            f"runs counted: {self.runs_counted}",
            f"runs failed: {len(self.runs_failed)}",
        ]
        lines += [f"  {path}: {reason}" for path, reason in self.runs_failed]
        lines.append(f"result directories skipped: {len(self.skipped)}")
        lines += [f"  {path}: {reason}" for path, reason in self.skipped]
        replaced = [w for w in self.written if w.replaced]
        if replaced:
            lines.append(f"files replaced by an imported entry: {len(replaced)}")
            lines += [f"  {w.replaced} -> {w.path}" for w in replaced]
        if self.unscaled:
            lines.append(f"closed-division scores left unscaled (no RCP applies): {len(self.unscaled)}")
            lines += [f"  {path}: {reason}" for path, reason in self.unscaled]
        if self.without_rcp_table:
            lines.append(
                f"note: no RCP table for {', '.join(sorted(self.without_rcp_table))} in this round: "
                "their closed-division scores are unscaled"
            )
        lines += [f"note: {note}" for note in self.notes]
        return lines


def read_rcp_tables(catalog_dir: Path, round_id: str) -> dict[str, RcpTable]:
    """The round's RCP tables (catalog/rcp/<round>.csv); {} when the round has none."""
    try:
        return load_tables(rcp_file(catalog_dir, round_id))
    except (OSError, RcpDataError) as error:
        raise ImportFailure(str(error)) from None


def import_mlperf(
    source: Path,
    round_id: str,
    catalog: Catalog,
    out: Path,
    rcp_tables: dict[str, RcpTable] | None = None,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Read `source` (folder or archive), score every result directory, write the entries under
    `out/<round>/<submitter-slug>/`. Raises ImportFailure when nothing can be imported."""
    round_ = catalog.rounds.get(round_id)
    if round_ is None or round_.kind != "mlperf-training":
        known = ", ".join(r.id for r in catalog.rounds.values() if r.kind == "mlperf-training")
        raise ImportFailure(f"unknown MLPerf Training round {round_id!r} (catalog has: {known or 'none'})")
    rcp_tables = rcp_tables or {}
    report = ImportReport(round_id, str(source))

    systems: dict[tuple[str, str, str], Any] = {}  # (prefix, org, system) -> parsed JSON or an error message
    logs: dict[ResultDir, dict[int, tuple[str, RunLog | None]]] = {}
    notes = SourceNotes()

    def wanted(path: str) -> bool:
        return classify(path) is not None

    try:
        for source_file in iter_source(source, wanted, notes):
            kind, match = classify(source_file.path)
            if kind == "system":
                key = (match["prefix"] or "", match["org"], match["system"])
                try:
                    systems[key] = _read_system(source_file)
                except ValueError as error:
                    systems[key] = str(error)
                continue
            result = ResultDir(match["prefix"] or "", match["org"], match["system"], match["benchmark"])
            benchmark = catalog.benchmarks.get(result.benchmark)
            rules = benchmark.rounds.get(round_id) if benchmark else None
            run = None
            if rules is not None:  # a directory the round does not know is skipped unread
                run = read_run(source_file.stream, targets_for(benchmark, rules))
            report.logs_read += 1
            logs.setdefault(result, {})[int(match["run"])] = (source_file.path.rsplit("/", 1)[-1], run)
            if progress:
                progress(1)
    except READ_ERRORS as error:
        raise ImportFailure(f"cannot read {source}: {error}") from None
    except SourceError as error:
        raise ImportFailure(str(error)) from None

    if not logs:
        raise ImportFailure(
            f"no MLPerf results in {source}: expected <org>/results/<system>/<benchmark>/result_<i>.txt"
        )
    report.result_dirs = len(logs)
    entries: list[tuple[ResultDir, dict]] = []
    for result in sorted(logs):
        data, reason = _score_directory(result, logs[result], systems, round_, catalog, rcp_tables, report)
        if data is None:
            report.skipped.append((result.path, reason))
        else:
            entries.append((result, data))

    with_results = {(r.prefix, r.org, r.system) for r in logs}
    for prefix, org, system in sorted(set(systems) - with_results):
        report.notes.append(
            f"{'/'.join(p for p in (prefix, org, 'systems', system + '.json') if p)}: "
            "a system description without any result directory"
        )
    if notes.links_ignored:
        report.notes.append(f"symbolic links not followed: {', '.join(notes.links_ignored)}")
    _disambiguate(entries)
    report.written = write_entries([data for _, data in entries], out, round_id)
    return report


def _disambiguate(entries: list[tuple[ResultDir, dict]]) -> None:
    """Two system files may share a system_name (one per framework); when two such results are
    of the same benchmark and division, their names get the system folder so they stay two entries."""
    groups: dict[tuple, list[dict]] = {}
    for _, data in entries:
        groups.setdefault(identity(data), []).append(data)
    for same in groups.values():
        if len(same) > 1:
            for data in same:
                folder = data["provenance"]["system_file"].rsplit("/", 1)[-1].removesuffix(".json")
                data["system"]["name"] = f"{data['system']['name']} ({folder})"


def _score_directory(
    result: ResultDir,
    runs_by_number: dict[int, tuple[str, RunLog | None]],
    systems: dict,
    round_: Round,
    catalog: Catalog,
    rcp_tables: dict[str, RcpTable],
    report: ImportReport,
) -> tuple[dict | None, str | None]:
    benchmark = catalog.benchmarks.get(result.benchmark)
    rules = benchmark.rounds.get(round_.id) if benchmark else None
    if rules is None:
        known = ", ".join(b.id for b in catalog.benchmarks.values() if round_.id in b.rounds)
        return None, f"benchmark folder {result.benchmark!r} is not a benchmark of {round_.id} ({known})"
    desc = systems.get((result.prefix, result.org, result.system))
    if desc is None:
        return None, f"no system description {result.system_file}"
    if isinstance(desc, str):
        return None, f"{result.system_file}: {desc}"
    system, reason = system_info(desc, catalog)
    if system is None:
        return None, f"{result.system_file}: {reason}"
    numbers = sorted(runs_by_number)
    if len(numbers) != rules.runs:
        return None, (f"{len(numbers)} logs; {round_.id} {benchmark.name} needs {rules.runs} runs")
    run_files = [runs_by_number[n][0] for n in numbers]
    runs = [runs_by_number[n][1] for n in numbers]
    targets = targets_for(benchmark, rules)
    score = score_runs(runs, rules, system.division == "closed", targets)
    for index, reason in score.failures:
        report.runs_failed.append((f"{result.path}/{run_files[index]}", reason))
    if score.invalid:
        return None, score.invalid
    report.runs_counted += len(runs) - len(score.failures)
    factor = None
    if system.division == "closed":
        factor, why = scaling_factor(runs, {i for i, _ in score.failures}, rcp_tables.get(result.benchmark), rules)
        if factor is None and result.benchmark in rcp_tables:
            report.unscaled.append((result.path, why))
        elif result.benchmark not in rcp_tables:
            report.without_rcp_table.add(result.benchmark)
    return entry_data(round_, rules, result, system, score, run_files, factor), None


def entry_file_name(data: dict) -> str:
    """<system folder>-<benchmark>.yaml, from the entry's system file path."""
    system_folder = data["provenance"]["system_file"].rsplit("/", 1)[-1].removesuffix(".json")
    return f"{system_folder}-{data['benchmark']}.yaml"


def write_entries(entries: Sequence[dict], out: Path, round_id: str) -> list[Written]:
    """Write each entry to out/<round>/<submitter-slug>/, merged with the file that already holds
    the same entry (same identity or same source URL); that file is removed when its name differs.
    Unchanged files are not rewritten."""
    round_dir = out / round_id
    existing: list[tuple[Path, dict]] = []
    if round_dir.is_dir():
        for folder, _dirs, names in os.walk(round_dir):
            for name in sorted(names):
                path = Path(folder) / name
                if path.suffix.lower() in SUFFIXES and not path.is_symlink():
                    doc = load(path)
                    if isinstance(doc.data, dict):
                        existing.append((path, doc.data))
    existing.sort(key=lambda item: str(item[0]))
    by_identity = {}
    by_url = {}
    for path, data in existing:
        by_identity.setdefault(identity(data), path)
        url = (data.get("source") or {}).get("url") if isinstance(data.get("source"), dict) else None
        if url:
            by_url.setdefault(url.rstrip("/"), path)
    contents = dict(existing)

    written: list[Written] = []
    for data in entries:
        target = round_dir / slug(data["submitter"]) / entry_file_name(data)
        match = by_identity.get(identity(data)) or by_url.get(data["source"].get("url", "").rstrip("/"))
        if match is None and target in contents:
            match = target
        text = dump_yaml(merge(contents.get(match) if match else None, data))
        old_text = target.read_text(encoding="utf-8") if target.is_file() else None
        if old_text == text:
            status = "unchanged"
        else:
            status = "updated" if old_text is not None or match is not None else "new"
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.name}.tmp")
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, target)
        replaced = None
        if match is not None and match != target and match.exists():
            match.unlink()
            replaced = match
        written.append(Written(target, status, replaced))
    return written
