"""Importing an MLPerf HPC results tree: strong-scaling results (time to train one model) and
weak-scaling ones (many models at once, scored in models per minute), as result_summarizer scores them.

Reuses the MLPerf Training readers (archive, layouts, mllog, systems, entries); what differs is
the scoring, here: mlperf-logging 4.1.68's `result_summarizer` with usage `hpc`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboard import atomic
from leaderboard.catalog import Catalog, Round, RoundRules
from leaderboard.importers.archive import READ_ERRORS, SourceError, SourceNotes, iter_source
from leaderboard.importers.entries import entry_data, entry_file_name, write_entries
from leaderboard.importers.layouts import LAYOUTS, ResultDir, in_source
from leaderboard.importers.left_off import MAX_MISSING_BYTES, is_missing_list, read_missing, skipped_rows
from leaderboard.importers.mllog import read_run
from leaderboard.importers.mlperf import (
    ImportFailure,
    ImportReport,
    _disambiguate,
    benchmark_rules,
    read_result_log,
    read_system_file,
    result_system,
)
from leaderboard.importers.rcp import RcpTable
from leaderboard.importers.runlog import RunLog, Targets
from leaderboard.importers.scoring import Score, scaling_factor, targets_for
from leaderboard.normalize import dropped_runs, olympic_mean, worst_counted_quality
from leaderboard.problems import plural

IMPORTER = "leaderboard-mlperf-hpc 1"
SCALING_FILE = "scaling.json"  # a result folder's scaling factor (result_summarizer's _get_scaling_factor)


def run_failure(run: RunLog | None, targets: Targets, status_required: bool = True) -> str | None:
    """Why a run does not count under the HPC rules, or None. result_summarizer (usage hpc)
    counts a run whose log passes the compliance checker (hpc_X.Y.0/common.yaml and the
    benchmark's file): one run_start and one run_stop carrying a status (any status: the
    checker does not ask for success), initialization within the limit of the first
    init_start, and some evaluation reaching the target, in the open division too. Where the
    round has no checker (v0.7), `status_required` may be off (catalog: run_stop_status_required)."""
    if run is None:
        return "not read"
    if run.error:
        return run.error
    for key, count in (("run_start", run.run_starts), ("run_stop", run.run_stops)):
        if count != 1:
            return f"no {key}" if count == 0 else f"{key} logged {count} times"
    if run.status is None and status_required:
        return "run_stop has no status"
    if run.minutes is None or not math.isfinite(run.minutes) or run.minutes <= 0:
        return "run_stop is not after run_start"
    init, limit = run.init_minutes, targets.init_limit_minutes[0]
    if init is not None and init >= limit:
        return f"initialization took {init:.1f} minutes (limit {limit:g})"
    if not run.reached_target:
        return f"quality target never reached before run_stop ({targets.eval_key} {targets.quality_target})"
    return None


def _worst(qualities: Sequence[float], direction: str) -> float | None:
    """The worst of a weak-scaling result's models (all of them count)."""
    return worst_counted_quality(qualities, [None] * len(qualities), direction)


def score_strong(
    runs: Sequence[RunLog | None], rules: RoundRules, targets: Targets, status_required: bool = True
) -> Score:
    """Olympic mean of the runs' minutes (`_compute_strong_score_standalone`): a failed run counts
    as the slowest; more failed runs than the slowest dropped invalidates the result."""
    failures = [(i, why) for i, run in enumerate(runs) if (why := run_failure(run, targets, status_required))]
    failed = {i for i, _ in failures}
    minutes = [None if i in failed else run.minutes for i, run in enumerate(runs)]
    # A counted run's quality: its last evaluation that reached the target; a failed run's: its last one.
    quality = [
        None if run is None else run.last_quality if i in failed else run.achieved_quality(True)
        for i, run in enumerate(runs)
    ]
    score = Score(minutes, failures, quality)
    score.minutes = olympic_mean(minutes, rules.drop_fastest, rules.drop_slowest)
    if score.minutes is None:
        score.invalid = (
            f"{len(failures)} of {len(runs)} runs failed ({failures[0][1] if failures else 'none'}); "
            f"the scoring may drop at most {rules.drop_slowest}"
        )
    # As MLPerf Training's: the worst quality among the runs the olympic mean counts.
    drops = dropped_runs(minutes, rules.drop_fastest, rules.drop_slowest)
    score.quality = worst_counted_quality(quality, drops, targets.direction)
    return score


@dataclass(frozen=True)
class WeakScore:
    """A weak-scaling result: `models` instances reached the target, all of them within `minutes`."""

    models: int
    minutes: float | None
    quality: float | None
    failures: list[tuple[int, str]]
    invalid: str | None = None

    @property
    def models_per_minute(self) -> float | None:
        return self.models / self.minutes if self.minutes else None


def score_weak(
    runs: Sequence[RunLog | None], rules: RoundRules, targets: Targets, status_required: bool = True
) -> WeakScore:
    """`_compute_weak_score_standalone`: the instances whose logs pass count as models; the time
    to train them all runs from the earliest run_start to the latest run_stop among them; fewer
    models than the benchmark's minimum (benchmark_meta's result count: `runs`) is no score."""
    failures = [(i, why) for i, run in enumerate(runs) if (why := run_failure(run, targets, status_required))]
    failed = {i for i, _ in failures}
    counted = [run for i, run in enumerate(runs) if i not in failed]
    quality = _worst([q for r in counted if (q := r.achieved_quality(True)) is not None], targets.direction)
    if len(counted) < rules.runs:
        why = f"; {failures[0][1]}" if failures else ""
        return WeakScore(
            len(counted),
            None,
            quality,
            failures,
            f"{len(counted)} models reached the target, at least {rules.runs} must{why}",
        )
    start = min(run.start_ms for run in counted)
    stop = max(run.stop_ms for run in counted)
    return WeakScore(len(counted), (stop - start) / 60000.0, quality, failures)


def hpc_round(catalog: Catalog, round_id: str) -> Round:
    round_ = catalog.rounds.get(round_id)
    if round_ is None or round_.kind != "mlperf-hpc":
        known = ", ".join(r.id for r in catalog.rounds.values() if r.kind == "mlperf-hpc")
        raise ImportFailure(f"unknown MLPerf HPC round {round_id!r} (catalog has: {known or 'none'})")
    return round_


def _scaling_factor(raw: bytes) -> float:
    value = json.loads(raw.decode("utf-8")).get("scaling_factor")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"scaling_factor {value!r} is not a positive number")
    return float(value)


def import_hpc(
    source: Path,
    round_id: str,
    catalog: Catalog,
    out: Path,
    rcp_tables: dict[str, RcpTable] | None = None,
    progress: Callable[[int], None] | None = None,
    changes: atomic.Changes | None = None,
) -> ImportReport:
    """Read `source` (folder or archive) of an MLPerf HPC round, score every result folder, write
    the entries under `out/<round>/<submitter-slug>/`. A closed strong-scaling score is scaled
    by its folder's scaling.json, else by the RCP factor of `rcp_tables` (catalog/rcp/<round>.csv)."""
    rcp_tables = rcp_tables or {}
    round_ = hpc_round(catalog, round_id)
    layout = LAYOUTS[round_.layout or "hpc-org-systems"]
    report = ImportReport(round_id, str(source))
    systems: dict[str, Any] = {}
    factors: dict[str, float | str] = {}  # result folder (repository path) -> scaling factor, or why unreadable
    logs: dict[ResultDir, dict[int, tuple[str, RunLog | None]]] = {}
    targets: dict[str, Targets] = {}
    notes = SourceNotes()
    missing: dict[ResultDir, list[str]] = {}  # run logs MISSING.txt says the public copy lacks

    def wanted(path: str) -> bool:
        if path.endswith(f"/{SCALING_FILE}") or is_missing_list(path):
            return True
        if not layout.wanted(path):
            return False
        return path.endswith(".json") or layout.log_file(path).kind == "run"

    try:
        for source_file in iter_source(source, wanted, notes):
            path = source_file.path
            if is_missing_list(path):
                text = source_file.stream.read(MAX_MISSING_BYTES).decode("utf-8", errors="replace")
                missing.update(read_missing(text, path, layout))
                continue
            if path.endswith(f"/{SCALING_FILE}"):
                folder = path.removesuffix(f"/{SCALING_FILE}")
                try:
                    factors[folder] = _scaling_factor(source_file.stream.read(1 << 16))
                except (ValueError, AttributeError) as error:
                    factors[folder] = f"{path}: unreadable ({error})"
                continue
            if path.endswith(".json"):
                read_system_file(layout, source_file, systems)
                continue
            log = layout.log_file(path)
            read_result_log(log, source_file.stream, read_run, round_, catalog, targets, logs)
            report.logs_read += 1
            if progress:
                progress(1)
    except READ_ERRORS as error:
        raise ImportFailure(f"cannot read {source}: {error}") from None
    except SourceError as error:
        raise ImportFailure(str(error)) from None
    if not logs:
        raise ImportFailure(
            f"no MLPerf HPC results in {source}: expected <org>/results/<system>/<strong|weak>/<benchmark>/result_<i>.txt"
        )
    report.result_dirs = len(logs)
    entries: list[tuple[ResultDir, dict]] = []
    used: set[str] = set()
    left_off: list[tuple[ResultDir, str]] = []
    for result in sorted(logs):
        factor = factors.get(in_source(result.top, result.repo_path))
        data, reason = _score_folder(result, logs[result], systems, used, factor, rcp_tables, round_, catalog, report)
        if data is None:
            report.skipped.append((result.path, reason))
            left_off.append((result, reason))
        else:
            entries.append((result, data))
    found = {result: len(runs) for result, runs in logs.items()}
    report.left_off = skipped_rows(round_, catalog, left_off, found, missing, systems)
    for path in sorted(set(systems) - used):
        if "/systems/" in path:
            report.notes.append(f"{path}: a system description without any result folder")
    if notes.links_ignored:
        report.notes.append(f"symbolic links not followed: {', '.join(notes.links_ignored)}")
    _disambiguate(entries)
    named = [(entry_file_name(result, data["benchmark"]), data) for result, data in entries]
    report.written = write_entries(named, out, round_id, changes)
    return report


def _score_folder(
    result: ResultDir,
    runs_by_number: dict[int, tuple[str, RunLog | None]],
    systems: dict[str, Any],
    used: set[str],
    factor: float | str | None,
    rcp_tables: dict[str, RcpTable],
    round_: Round,
    catalog: Catalog,
    report: ImportReport,
) -> tuple[dict | None, str | None]:
    benchmark, rules = benchmark_rules(round_, catalog, result.folder)
    if benchmark is None:
        known = ", ".join(
            sorted(round_.benchmark_folders) or [b.id for b in catalog.benchmarks.values() if round_.id in b.rounds]
        )
        return None, f"results folder {result.folder!r} is not a benchmark of {round_.id} ({known})"
    system, system_file, corrected, reason = result_system(result, systems, used, round_, catalog, report)
    if system is None:
        return None, reason
    numbers = sorted(runs_by_number)
    run_files = [runs_by_number[n][0] for n in numbers]
    runs = [runs_by_number[n][1] for n in numbers]
    targets = targets_for(benchmark, rules, round_)
    if benchmark.scaling == "weak":
        return _weak_entry(
            result, system_file, system, run_files, runs, rules, targets, round_, benchmark.id, corrected, report
        )
    if len(runs) != rules.runs:
        return None, f"{plural(len(runs), 'log')}; {round_.id} {benchmark.name} needs {plural(rules.runs, 'run')}"
    score = score_strong(runs, rules, targets, round_.run_stop_status_required)
    for index, why in score.failures:
        report.runs_failed.append((f"{result.path}/{run_files[index]}", why))
    if score.invalid:
        return None, score.invalid
    report.runs_counted += len(runs) - len(score.failures)
    if isinstance(factor, str):
        return None, factor
    notes = [*system.notes, *corrected]
    if factor is not None:
        notes.append(
            f"{SCALING_FILE}: the olympic mean times its scaling_factor {factor:g}, as result_summarizer scores it"
        )
    elif system.division == "closed" and benchmark.id in rcp_tables:
        failed = {i for i, _ in score.failures}
        factor, why = scaling_factor(runs, failed, rcp_tables[benchmark.id], rules)
        if factor is None:
            report.unscaled.append((result.path, why))
    data = entry_data(round_, benchmark.id, rules.quality_target, result, system_file, system, score, run_files, factor)
    data["provenance"]["importer"] = IMPORTER
    if factor is not None and round(factor, 6) != 1.0:
        # result_summarizer's HPC score is the olympic mean times the folder's scaling factor (the
        # RCP checker's, written to scaling.json): the score MLCommons published.
        data["result"]["minutes"] = round(score.minutes * round(factor, 6), 6)
        data["provenance"]["scaling"] = "rcp-scaled"
    if notes:
        data["provenance"]["notes"] = notes
    return data, None


def _weak_entry(
    result: ResultDir,
    system_file: str,
    system,
    run_files: list[str],
    runs: list[RunLog | None],
    rules: RoundRules,
    targets: Targets,
    round_: Round,
    benchmark_id: str,
    corrected: list[str],
    report: ImportReport,
) -> tuple[dict | None, str | None]:
    weak = score_weak(runs, rules, targets, round_.run_stop_status_required)
    for index, why in weak.failures:
        report.runs_failed.append((f"{result.path}/{run_files[index]}", why))
    if weak.invalid:
        return None, weak.invalid
    report.runs_counted += weak.models
    score = Score([], [], [], minutes=weak.minutes, quality=weak.quality)
    data = entry_data(round_, benchmark_id, rules.quality_target, result, system_file, system, score, [], None)
    data["result"].pop("runs_minutes", None)
    data["result"] = {"minutes": data["result"]["minutes"], "models": weak.models, **data["result"]}
    provenance = data["provenance"]
    provenance["importer"] = IMPORTER
    provenance.pop("run_logs", None)
    if weak.failures:
        provenance["failed_runs"] = [f"{run_files[i]}: {why}" for i, why in weak.failures]
    notes = [
        *system.notes,
        *corrected,
        f"weak scaling: {weak.models} of {len(runs)} instances reached the target; minutes is the time from the "
        "first run_start to the last run_stop among them (pruned_results/ not read)",
    ]
    provenance["notes"] = notes
    return data, None
