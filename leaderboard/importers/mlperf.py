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

from leaderboard import atomic, manifest, skipped
from leaderboard.catalog import Catalog, Round
from leaderboard.families import family
from leaderboard.files import SUFFIXES
from leaderboard.importers.archive import READ_ERRORS, SourceError, SourceNotes, iter_source
from leaderboard.importers.energy import PowerLog, hold, read_held_power_log, read_power_log, result_energy
from leaderboard.importers.entries import Written, entry_data, entry_file_name, identity, write_entries
from leaderboard.importers.layouts import LAYOUTS, ResultDir, in_source
from leaderboard.importers.left_off import MAX_MISSING_BYTES, is_missing_list, read_missing, skipped_rows
from leaderboard.importers.rcp import RcpDataError, RcpTable, load_tables, rcp_file
from leaderboard.importers.runlog import RunLog, Targets
from leaderboard.importers.scoring import scaling_factor, score_runs, stored_quality, targets_for
from leaderboard.importers.systems import read_system, system_info
from leaderboard.problems import plural
from leaderboard.workers import available_cpus

# Log format (catalog/rounds.yaml `log_format`) -> the module that reads it (`read_run`).
LOG_READERS = {"mllog": "mllog", "mll": "mll", "mlpv0.5": "mlpv05"}
# Round kind -> the function that imports one of its trees (module:function, imported when used:
# mlperf_hpc builds on this module). MLPerf HPC trees are MLPerf logs scored by other rules.
ROUND_IMPORTERS = {"mlperf-training": "mlperf:import_mlperf", "mlperf-hpc": "mlperf_hpc:import_hpc"}


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
    # (result directory, why its power logs give no energy to train)
    without_energy: list[tuple[str, str]] = field(default_factory=list)
    with_energy: int = 0
    notes: list[str] = field(default_factory=list)
    # every result folder on no board (catalog/skipped/<round>.csv): those skipped, and those MISSING.txt lists
    left_off: list[skipped.SkippedResult] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        counts = {s: sum(1 for w in self.written if w.status == s) for s in ("new", "updated", "unchanged")}
        lines = [
            f"{self.source}: {plural(self.result_dirs, 'result directory', 'result directories')}, "
            f"{plural(self.logs_read, 'log')} ({self.round_id})",
            f"entries written: {len(self.written)} ({counts['new']} new, {counts['updated']} updated, "
            f"{counts['unchanged']} unchanged)",
            f"runs counted: {self.runs_counted}",
            f"runs failed: {len(self.runs_failed)}",
        ]
        lines += [f"  {path}: {reason}" for path, reason in self.runs_failed]
        lines.append(f"result directories skipped: {len(self.skipped)}")
        lines += [f"  {path}: {reason}" for path, reason in self.skipped]
        absent = [row for row in self.left_off if not row.logs_found]
        if absent:
            lines.append(f"result directories the public copy lacks altogether (MISSING.txt): {len(absent)}")
            lines += [f"  {row.folder}: {row.reason}" for row in absent]
        replaced = [w for w in self.written if w.replaced]
        if replaced:
            lines.append(f"files replaced by an imported entry: {len(replaced)}")
            lines += [f"  {w.replaced} -> {w.path}" for w in replaced]
        if self.with_energy or self.without_energy:
            lines.append(f"results with energy to train (power logs): {self.with_energy}")
        if self.without_energy:
            lines.append(f"result directories whose power logs give no energy: {len(self.without_energy)}")
            lines += [f"  {path}: {reason}" for path, reason in self.without_energy]
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


def mlperf_round(catalog: Catalog, round_id: str, kinds=("mlperf-training",)) -> Round:
    """The catalog's MLPerf round (of one of `kinds`), or ImportFailure naming the known ones."""
    round_ = catalog.rounds.get(round_id)
    if round_ is None or round_.kind not in kinds:
        known = ", ".join(r.id for r in catalog.rounds.values() if r.kind in kinds)
        family = "MLPerf Training" if tuple(kinds) == ("mlperf-training",) else "MLPerf"
        raise ImportFailure(f"unknown {family} round {round_id!r} (catalog has: {known or 'none'})")
    return round_


def round_importer(round_: Round) -> Callable[..., ImportReport]:
    """The import function of the round's kind (ROUND_IMPORTERS)."""
    module, function = ROUND_IMPORTERS[round_.kind].split(":")
    return getattr(importlib.import_module(f"leaderboard.importers.{module}"), function)


ARCHIVE_SUFFIXES = (".tar.xz", ".tar.gz", ".tgz", ".tar", ".zip")


def round_of_source(source: Path, catalog: Catalog) -> str:
    """The round a source is named after (`mlperf-training-v4.0.tar.xz` -> mlperf-training-v4.0)."""
    name = source.name
    for suffix in ARCHIVE_SUFFIXES:
        name = name.removesuffix(suffix)
    if name in catalog.rounds and catalog.rounds[name].kind in ROUND_IMPORTERS:
        return name
    raise ImportFailure(f"cannot tell the round of {source} from its name: give --round")


@dataclass
class SourceOutcome:
    """One source of a many-source import: its report, or why it could not be imported."""

    source: Path
    round_id: str
    report: ImportReport | None = None
    failure: str | None = None


def import_sources(
    sources: list[Path],
    round_id: str | None,
    catalog: Catalog,
    catalog_dir: Path,
    out: Path,
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[SourceOutcome]:
    """Import several sources (each a round of its own, taken from its name unless `round_id` is
    given), one worker process per source on every available CPU, largest source first. A
    source that fails does not stop the others; its outcome says why."""
    plan = [SourceOutcome(source, round_id or round_of_source(source, catalog)) for source in sources]
    rounds = [outcome.round_id for outcome in plan]
    twice = sorted({r for r in rounds if rounds.count(r) > 1})
    if twice:
        raise ImportFailure(f"two sources of the same round ({', '.join(twice)}): import them one at a time")
    for outcome in plan:
        mlperf_round(catalog, outcome.round_id, tuple(ROUND_IMPORTERS))
    workers = min(len(plan), jobs or available_cpus())
    if workers <= 1:
        for outcome in plan:
            outcome.report, outcome.failure = _import_in_worker(
                outcome.source, outcome.round_id, catalog, catalog_dir, out, progress
            )
        return plan
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    order = sorted(plan, key=lambda o: -_size(o.source))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = {pool.submit(_import_in_worker, o.source, o.round_id, catalog, catalog_dir, out): o for o in order}
        try:
            for future in as_completed(futures):
                outcome = futures[future]
                outcome.report, outcome.failure = future.result()
                if progress:
                    progress(1)
        except BrokenProcessPool:
            raise ImportFailure(
                "a worker process importing a round died before it finished (out of memory, or killed)"
            ) from None
    return plan


def _size(source: Path) -> int:
    try:
        return (
            source.stat().st_size
            if source.is_file()
            else sum(p.stat().st_size for p in source.rglob("*") if p.is_file())
        )
    except OSError:
        return 0


def _import_in_worker(
    source: Path,
    round_id: str,
    catalog: Catalog,
    catalog_dir: Path,
    out: Path,
    progress: Callable[[int], None] | None = None,
) -> tuple[ImportReport | None, str | None]:
    try:
        tables = read_rcp_tables(catalog_dir, round_id)
        import_round = round_importer(mlperf_round(catalog, round_id, tuple(ROUND_IMPORTERS)))
        # The entries, the round's manifest and its list of what was left off: written together,
        # or (a full disk) none of them.
        changes = atomic.Changes()
        report = import_round(source, round_id, catalog, out, tables, progress, changes)
    except ImportFailure as error:
        return None, str(error)
    record_manifest(catalog_dir, round_id, out, report.written, changes)
    record_skipped(catalog, catalog_dir, round_id, report.left_off, changes)
    changes.commit()
    return report, None


def record_manifest(
    catalog_dir: Path, round_id: str, out: Path, written: list[Written], changes: atomic.Changes | None = None
) -> Path:
    """catalog/verified/<round>.csv: every entry this import wrote, with its file's digest, plus
    the rows of earlier imports whose files are still there (an import of part of a round). With
    `changes`, written when they are committed (and a file they remove is no longer there)."""
    rows = {}
    for item in written:
        entry_id = item.path.relative_to(out).with_suffix("").as_posix()
        rows[entry_id] = manifest.row(entry_id, item.data, item.text.encode("utf-8"))
    gone = changes.removed if changes is not None else lambda path: False
    for old in manifest.read_rows(manifest.manifest_path(catalog_dir, round_id)):
        kept = [out / f"{old['entry_id']}{suffix}" for suffix in SUFFIXES]
        if old["entry_id"] not in rows and any(path.is_file() and not gone(path) for path in kept):
            rows[old["entry_id"]] = old
    return manifest.write(catalog_dir, round_id, rows.values(), changes=changes)


def record_skipped(
    catalog: Catalog,
    catalog_dir: Path,
    round_id: str,
    rows: list[skipped.SkippedResult],
    changes: atomic.Changes | None = None,
) -> Path | None:
    """catalog/skipped/<round>.csv: every result folder of the round this import left off, written whole."""
    folder = family(catalog.rounds[round_id].kind).skipped_folder
    return skipped.write(catalog_dir, round_id, rows, folder, changes) if folder else None


def import_mlperf(
    source: Path,
    round_id: str,
    catalog: Catalog,
    out: Path,
    rcp_tables: dict[str, RcpTable] | None = None,
    progress: Callable[[int], None] | None = None,
    changes: atomic.Changes | None = None,
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
    # result -> power/result_<run> -> its logs: read (from a folder) or held (from an archive)
    power_logs: dict[ResultDir, dict[str, list[PowerLog | tuple[str, str, bytes]]]] = {}
    unread_power: set[ResultDir] = set()  # power logs of a folder left unread: their run's log is not there
    notes = SourceNotes()
    folder = source.resolve().parent if source.is_dir() else None
    targets: dict[str, Targets] = {}  # benchmark id -> what its runs must reach, made once

    missing: dict[ResultDir, list[str]] = {}  # run logs MISSING.txt says the public copy lacks

    def wanted(path: str) -> bool:
        """The layout's files and MISSING.txt; in a folder, a power log only when its run's log is
        there to give it a time to train (a tree may hold power logs alone: v4.0's public copy does)."""
        if is_missing_list(path):
            return True
        if not layout.wanted(path):
            return False
        log = layout.log_file(path) if folder is not None and path.endswith(".txt") else None
        if log is not None and log.kind != "run" and not (folder / log.result.path / f"result_{log.run}.txt").is_file():
            unread_power.add(log.result)
            return False
        return True

    try:
        for source_file in iter_source(source, wanted, notes):
            path = source_file.path
            if is_missing_list(path):
                text = source_file.stream.read(MAX_MISSING_BYTES).decode("utf-8", errors="replace")
                missing.update(read_missing(text, path, layout))
                continue
            if path.endswith(".json"):
                read_system_file(layout, source_file, systems)
                continue
            log = layout.log_file(path)
            if log.kind != "run":
                read = (
                    read_power_log(log.kind, log.name, source_file.stream)
                    if folder is not None
                    else (log.kind, log.name, hold(source_file.stream))
                )
                power_logs.setdefault(log.result, {}).setdefault(log.run, []).append(read)
                continue
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
            f"no MLPerf results in {source}: expected <org>/results/<system>/<benchmark>/result_<i>.txt"
        )
    report.result_dirs = len(logs)
    entries: list[tuple[ResultDir, dict]] = []
    used_systems: set[str] = set()
    left_off: list[tuple[ResultDir, str]] = []
    for result in sorted(logs):
        data, reason = _score_directory(
            result,
            logs[result],
            _power_read(power_logs.get(result, {})),
            systems,
            used_systems,
            round_,
            catalog,
            rcp_tables,
            report,
        )
        if data is None:
            report.skipped.append((result.path, reason))
            left_off.append((result, reason))
        else:
            entries.append((result, data))
    found = {result: len(runs) for result, runs in logs.items()}
    report.left_off = skipped_rows(round_, catalog, left_off, found, missing, systems)

    without_runs = sorted(r.path for r in (set(power_logs) | unread_power) - set(logs))
    if without_runs:
        report.notes.append(
            f"power logs without any run log, so without a time to train: {len(without_runs)} result directories "
            f"({', '.join(without_runs[:3])}{', ...' if len(without_runs) > 3 else ''})"
        )
    for path in sorted(set(systems) - used_systems):
        if path.endswith(".json") and "/systems/" in path:
            report.notes.append(f"{path}: a system description without any result directory")
    if notes.links_ignored:
        report.notes.append(f"symbolic links not followed: {', '.join(notes.links_ignored)}")
    _disambiguate(entries)
    named = [(entry_file_name(result, data["benchmark"]), data) for result, data in entries]
    report.written = write_entries(named, out, round_id, changes)
    return report


def _power_read(by_run: dict[str, list]) -> dict[str, list[PowerLog]]:
    """The power logs of one result, those held from an archive read now."""
    return {
        run: [log if isinstance(log, PowerLog) else read_held_power_log(*log) for log in logs]
        for run, logs in by_run.items()
    }


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


def read_system_file(layout: Any, source_file: Any, systems: dict[str, Any]) -> None:
    """A system description into `systems` (path in the source -> parsed description, or why it
    could not be read). Shared by every MLPerf family's importer."""
    _, org = layout.system_file(source_file.path)
    try:
        systems[source_file.path] = read_system(source_file.stream, org)
    except ValueError as error:
        systems[source_file.path] = str(error)


def read_result_log(
    log: Any,
    stream: BinaryIO,
    read_run: Callable[[BinaryIO, Targets], RunLog],
    round_: Round,
    catalog: Catalog,
    targets: dict[str, Targets],
    logs: dict,
) -> None:
    """Read one run's log into `logs` (result directory -> run number -> (log name, RunLog or
    None)); a directory whose benchmark the round does not know is recorded unread. Each
    benchmark's targets are built once, into `targets`. Shared by every MLPerf family's importer."""
    result = log.result
    benchmark = catalog.benchmarks.get(round_.benchmark_of_folder(result.folder))
    rules = benchmark.rounds.get(round_.id) if benchmark else None
    run = None
    if rules is not None:
        if benchmark.id not in targets:
            targets[benchmark.id] = targets_for(benchmark, rules, round_)
        run = read_run(stream, targets[benchmark.id])
    logs.setdefault(result, {})[log.run] = (log.name, run)


def result_system(
    result: ResultDir, systems: dict[str, Any], used: set[str], round_: Round, catalog: Catalog, report: ImportReport
) -> tuple[Any, str | None, list[str], str | None]:
    """The system a result directory ran on: (SystemInfo, its description file, the catalog's
    corrections applied to it, None), or (None, None, [], why not). Notes the description file
    as used and its notes in the report; shared by every MLPerf family's importer."""
    system_file = next((f for f in result.system_files if in_source(result.top, f) in systems), None)
    if system_file is None:
        return None, None, [], f"no system description {in_source(result.top, result.system_files[0])}"
    shown = in_source(result.top, system_file)
    used.add(shown)
    desc = systems[shown]
    if isinstance(desc, str):
        return None, None, [], f"{shown}: {desc}"
    correction = round_.correction_for(result.repo_path)
    corrected = []
    if correction:
        corrected = [
            f"{key} {desc.get(key)!r} read as {value!r} (catalog/rounds.yaml: {correction['reason']})"
            for key, value in correction["set"].items()
        ]
        desc = {**desc, **correction["set"]}
    system, reason = system_info(desc, catalog)
    if system is None:
        return None, None, [], f"{shown}: {reason}"
    for note in system.notes:
        if f"{shown}: {note}" not in report.notes:
            report.notes.append(f"{shown}: {note}")
    return system, system_file, corrected, None


def benchmark_rules(round_: Round, catalog: Catalog, folder: str) -> tuple[Any, Any]:
    """The benchmark a result folder of `round_` holds, and its rules in that round (both
    importers of MLPerf logs); (None, None) for a folder that names no benchmark of the round."""
    benchmark = catalog.benchmarks.get(round_.benchmark_of_folder(folder))
    rules = benchmark.rounds.get(round_.id) if benchmark else None
    return (benchmark, rules) if rules is not None else (None, None)


def _score_directory(
    result: ResultDir,
    runs_by_number: dict[int, tuple[str, RunLog | None]],
    power_by_number: dict[str, list[PowerLog]],
    systems: dict[str, Any],
    used_systems: set[str],
    round_: Round,
    catalog: Catalog,
    rcp_tables: dict[str, RcpTable],
    report: ImportReport,
) -> tuple[dict | None, str | None]:
    benchmark, rules = benchmark_rules(round_, catalog, result.folder)
    if benchmark is None:
        known = ", ".join(b.id for b in catalog.benchmarks.values() if round_.id in b.rounds)
        return None, f"benchmark folder {result.folder!r} is not a benchmark of {round_.id} ({known})"
    system, system_file, corrected, reason = result_system(result, systems, used_systems, round_, catalog, report)
    if system is None:
        return None, reason
    report.notes += [f"{result.path}: {note}" for note in corrected]
    numbers = sorted(runs_by_number)
    if len(numbers) != rules.runs:
        return None, (f"{plural(len(numbers), 'log')}; {round_.id} {benchmark.name} needs {plural(rules.runs, 'run')}")
    run_files = [runs_by_number[n][0] for n in numbers]
    runs = [runs_by_number[n][1] for n in numbers]
    targets = targets_for(benchmark, rules, round_)
    score = score_runs(runs, rules, system.division == "closed", targets)
    for index, reason in score.failures:
        report.runs_failed.append((f"{result.path}/{run_files[index]}", reason))
    if score.invalid:
        return None, score.invalid
    report.runs_counted += len(runs) - len(score.failures)
    factor = None
    if system.division == "closed":
        factor, why = scaling_factor(runs, {i for i, _ in score.failures}, rcp_tables.get(benchmark.id), rules)
        if factor is None and benchmark.id in rcp_tables:
            report.unscaled.append((result.path, why))
        elif benchmark.id not in rcp_tables:
            report.without_rcp_table.add(benchmark.id)
    batch_sizes = {run.batch_size for run in runs if run is not None}
    quality_target = stored_quality(
        targets.primary_target(batch_sizes.pop() if len(batch_sizes) == 1 else None), targets
    )
    energy, why = result_energy(runs, score, power_by_number, numbers, rules)
    if why:
        report.without_energy.append((result.path, why))
    data = entry_data(round_, benchmark.id, quality_target, result, system_file, system, score, run_files, factor)
    if energy:
        data["result"]["energy"] = energy
        report.with_energy += 1
    notes = [*system.notes, *corrected]
    model = round_.open_model_for(result.repo_path) if system.division == "open" else None
    if model:
        data = entry_with_model(data, model)
        notes.append(f"model as {model['source']} states it (catalog/rounds.yaml open_models)")
    if notes:
        data["provenance"]["notes"] = notes
    return data, None


def entry_with_model(data: dict, model: dict) -> dict:
    """The entry with the catalog's `model` for an open result, placed after `system` as the
    format orders its keys."""
    named = {k: model[k] for k in ("name", "parameters") if k in model}
    found = {}
    for key, value in data.items():
        found[key] = value
        if key == "system":
            found["model"] = named
    return found
