"""Importing an MLPerf Training results tree: every result directory scored from its raw logs,
as MLPerf scores it, and written as one submission file per (organization, system, benchmark).

The round's rules, log format and tree layout come from the catalog; code knows formats and
layouts (layouts.py, mllog.py and its siblings), never rounds.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from leaderboard.catalog import Catalog, Round
from leaderboard.importers.archive import READ_ERRORS, SourceError, SourceNotes, iter_source
from leaderboard.importers.entries import Written, entry_data, entry_file_name, identity, write_entries
from leaderboard.importers.layouts import LAYOUTS, ResultDir, in_source
from leaderboard.importers.rcp import RcpDataError, RcpTable, load_tables, rcp_file
from leaderboard.importers.runlog import RunLog, Targets
from leaderboard.importers.scoring import scaling_factor, score_runs, targets_for
from leaderboard.importers.systems import read_system, system_info

# Log format (catalog/rounds.yaml `log_format`) -> the module that reads it (`read_run`).
LOG_READERS = {"mllog": "mllog", "mll": "mll", "mlpv0.5": "mlpv05"}


class ImportFailure(Exception):
    """The import cannot run at all (unknown round, unreadable or refused source): one line for the user."""


def log_reader(log_format: str) -> Callable[[BinaryIO, Targets], RunLog]:
    module = importlib.import_module(f"leaderboard.importers.{LOG_READERS[log_format]}")
    return module.read_run


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


def mlperf_round(catalog: Catalog, round_id: str) -> Round:
    """The catalog's MLPerf Training round, or ImportFailure naming the known ones."""
    round_ = catalog.rounds.get(round_id)
    if round_ is None or round_.kind != "mlperf-training":
        known = ", ".join(r.id for r in catalog.rounds.values() if r.kind == "mlperf-training")
        raise ImportFailure(f"unknown MLPerf Training round {round_id!r} (catalog has: {known or 'none'})")
    return round_


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
    round_ = mlperf_round(catalog, round_id)
    layout = LAYOUTS[round_.layout or "org-systems"]
    read_run = log_reader(round_.log_format or "mllog")
    rcp_tables = rcp_tables or {}
    report = ImportReport(round_id, str(source))

    systems: dict[str, Any] = {}  # path in the source -> parsed description or an error message
    logs: dict[ResultDir, dict[int, tuple[str, RunLog | None]]] = {}
    notes = SourceNotes()

    try:
        for source_file in iter_source(source, layout.wanted, notes):
            path = source_file.path
            if path.endswith(".json"):
                _, org = layout.system_file(path)
                try:
                    systems[path] = read_system(source_file.stream, org)
                except ValueError as error:
                    systems[path] = str(error)
                continue
            log = layout.log_file(path)
            if log.kind != "run":
                continue
            result = log.result
            benchmark = catalog.benchmarks.get(round_.benchmark_of_folder(result.folder))
            rules = benchmark.rounds.get(round_id) if benchmark else None
            run = None
            if rules is not None:  # a directory the round does not know is skipped unread
                run = read_run(source_file.stream, targets_for(benchmark, rules))
            report.logs_read += 1
            logs.setdefault(result, {})[log.run] = (log.name, run)
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
    used_systems: set[str] = set()
    for result in sorted(logs):
        data, reason = _score_directory(
            result, logs[result], systems, used_systems, round_, catalog, rcp_tables, report
        )
        if data is None:
            report.skipped.append((result.path, reason))
        else:
            entries.append((result, data))

    for path in sorted(set(systems) - used_systems):
        if path.endswith(".json") and "/systems/" in path:
            report.notes.append(f"{path}: a system description without any result directory")
    if notes.links_ignored:
        report.notes.append(f"symbolic links not followed: {', '.join(notes.links_ignored)}")
    _disambiguate(entries)
    named = [(entry_file_name(result, data["benchmark"]), data) for result, data in entries]
    report.written = write_entries(named, out, round_id)
    return report


def _disambiguate(entries: list[tuple[ResultDir, dict]]) -> None:
    """Two system files may share a system_name (one per framework); when two such results are
    of the same benchmark and division, their names get the system folder so they stay two entries."""
    groups: dict[tuple, list[tuple[ResultDir, dict]]] = {}
    for result, data in entries:
        groups.setdefault(identity(data), []).append((result, data))
    for same in groups.values():
        if len(same) > 1:
            for result, data in same:
                data["system"]["name"] = f"{data['system']['name']} ({result.system_slug})"


def _score_directory(
    result: ResultDir,
    runs_by_number: dict[int, tuple[str, RunLog | None]],
    systems: dict[str, Any],
    used_systems: set[str],
    round_: Round,
    catalog: Catalog,
    rcp_tables: dict[str, RcpTable],
    report: ImportReport,
) -> tuple[dict | None, str | None]:
    benchmark_id = round_.benchmark_of_folder(result.folder)
    benchmark = catalog.benchmarks.get(benchmark_id)
    rules = benchmark.rounds.get(round_.id) if benchmark else None
    if rules is None:
        known = ", ".join(b.id for b in catalog.benchmarks.values() if round_.id in b.rounds)
        return None, f"benchmark folder {result.folder!r} is not a benchmark of {round_.id} ({known})"
    system_file = next((f for f in result.system_files if in_source(result.top, f) in systems), None)
    if system_file is None:
        return None, f"no system description {in_source(result.top, result.system_files[0])}"
    shown = in_source(result.top, system_file)
    used_systems.add(shown)
    desc = systems[shown]
    if isinstance(desc, str):
        return None, f"{shown}: {desc}"
    system, reason = system_info(desc, catalog)
    if system is None:
        return None, f"{shown}: {reason}"
    for note in system.notes:
        if f"{shown}: {note}" not in report.notes:
            report.notes.append(f"{shown}: {note}")
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
        factor, why = scaling_factor(runs, {i for i, _ in score.failures}, rcp_tables.get(benchmark_id), rules)
        if factor is None and benchmark_id in rcp_tables:
            report.unscaled.append((result.path, why))
        elif benchmark_id not in rcp_tables:
            report.without_rcp_table.add(benchmark_id)
    batch_sizes = {run.batch_size for run in runs if run is not None}
    quality_target = targets.primary_target(batch_sizes.pop() if len(batch_sizes) == 1 else None)
    return (
        entry_data(round_, benchmark_id, quality_target, result, system_file, system, score, run_files, factor),
        None,
    )
