"""Import Stanford DAWN's DAWNBench entries (2017-2020): one self-reported submission per training
entry, time to target read off its per-epoch TSV exactly as DAWNBench's README says.

Reads the entries repository as a folder or archive (CIFAR10, ImageNet, SQuAD; train/ JSON + TSV,
inference/ JSON). Hardware resolves through catalog data (importers/hardware.py); an entry whose
hardware or TSV cannot be read is skipped with its reason and the others are written. Files land at
<out>/dawnbench-v1.0/<author-slug>/<task>-<entry>.yaml, with an importer manifest
(catalog/imported/dawnbench-v1.0.csv): every file is exactly what this importer writes.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from leaderboard import atomic, manifest, skipped
from leaderboard.catalog import Catalog
from leaderboard.files import dump_yaml
from leaderboard.importers.archive import READ_ERRORS, SourceError, iter_source
from leaderboard.importers.hardware import Hardware, read_hardware
from leaderboard.normalize import slug
from leaderboard.problems import plural
from leaderboard.tree import identity

IMPORTER = "leaderboard import-dawnbench 1"
ROUND = "dawnbench-v1.0"
MANIFEST_FOLDER = "imported"  # catalog/imported/<round>.csv: importer-written, never "verified"
SKIPPED_FOLDER = "skipped"  # catalog/skipped/<round>.csv: the training entries it did not write, with why

# The family's facts, for leaderboard/families.py: self-reported (never verified), ranked by
# time to target among DAWNBench results only, closed to hand edits (importer-written files).


@dataclass(frozen=True)
class Task:
    benchmark: str
    column: str  # the TSV column the README reads the target off


# DAWNBench's README: the first TSV row with top-1 >= 94 (CIFAR10), top-5 >= 93 (ImageNet),
# F1 >= 0.73 (SQuAD); the targets themselves are the catalog's (benchmarks.yaml).
TASKS = {
    "CIFAR10": Task("dawnbench-cifar10", "top1Accuracy"),
    "ImageNet": Task("dawnbench-imagenet", "top5Accuracy"),
    "SQuAD": Task("dawnbench-squad", "f1Score"),
}
METRIC_COLUMNS = ("top1Accuracy", "top5Accuracy", "f1Score")  # every metric a TSV may carry
_ENTRY = re.compile(
    r"(?:^|/)(?P<task>CIFAR10|ImageNet|SQuAD)/(?P<kind>train|inference)/(?P<name>[^/]+)\.(?P<ext>json|tsv)$"
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")  # addresses never reach a file, whatever a field holds
MAX_TSV_BYTES = 4 << 20


class TsvError(ValueError):
    """A TSV that cannot give a time to target: a missing column, a non-numeric cell, a target never reached."""


@dataclass(frozen=True)
class ProgressRow:
    line: int
    epoch: float
    hours: float
    metrics: dict[str, float]


def read_progress(text: str, columns: tuple[str, ...]) -> list[ProgressRow]:
    """Every row of a per-epoch TSV (epoch, hours and the metric columns it has), in file order.
    `columns` must be there; TsvError names the line and column of the first bad cell."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter="\t")
    header = [cell.strip() for cell in next(reader, [])]
    missing = [c for c in ("epoch", "hours", *columns) if c not in header]
    if missing:
        raise TsvError(
            f"missing column {', '.join(map(repr, missing))} (the header has {', '.join(header) or 'nothing'})"
        )
    kept = [c for c in ("epoch", "hours", *METRIC_COLUMNS) if c in header]
    rows = []
    for line, cells in enumerate(reader, start=2):
        if not any(cell.strip() for cell in cells):
            continue
        values = {}
        for name in kept:
            index = header.index(name)
            cell = cells[index].strip() if index < len(cells) else ""
            try:
                value = float(cell)
            except ValueError:
                raise TsvError(f"line {line}, column {name!r}: {cell!r} is not a number") from None
            if not math.isfinite(value) or (name == "hours" and value < 0):
                raise TsvError(f"line {line}, column {name!r}: {cell!r} is not a finite, non-negative number")
            values[name] = value
        epoch, hours = values.pop("epoch"), values.pop("hours")
        rows.append(ProgressRow(line, epoch, hours, values))
    if not rows:
        raise TsvError("no rows after the header")
    return rows


def time_to_target(rows: list[ProgressRow], column: str, target: float) -> ProgressRow:
    """The first row (file order) whose `column` reaches `target`, as DAWNBench reads it off."""
    for row in rows:
        if row.metrics[column] >= target:
            if row.hours <= 0:
                raise TsvError(f"line {row.line}: reaches the target at {row.hours:g} hours; a time must be positive")
            return row
    best = max(rows, key=lambda r: r.metrics[column])
    raise TsvError(
        f"no row reaches {column} >= {target:g} (the best is {best.metrics[column]:g} at line {best.line}, "
        f"epoch {best.epoch:g})"
    )


# ---- one entry -> one submission -------------------------------------------------------------


@dataclass(frozen=True)
class Skipped:
    entry: str  # <Task>/train/<name>
    reason: str


@dataclass(frozen=True)
class Written:
    entry: str
    path: Path  # relative to the submissions folder
    data: dict


def _text(value: Any, limit: int) -> str:
    """A one-line string of a JSON field, e-mail addresses removed."""
    text = " ".join(str(value).split()) if value is not None else ""
    return _EMAIL.sub("(address removed)", text)[:limit]


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value


def _source_url(catalog: Catalog, task: str, name: str) -> str:
    repository = catalog.rounds[ROUND].results_repository or ""
    return f"{repository.replace('/tree/', '/blob/', 1)}/{task}/train/{name}.json"


def submission(task: str, name: str, record: Any, tsv: str | None, catalog: Catalog) -> Written | Skipped:
    """One training entry (its JSON record and TSV text) as a submission, or why it is not one."""
    entry = f"{task}/train/{name}"
    if not isinstance(record, dict):
        return Skipped(entry, "the JSON file is not an object")
    missing = [k for k in ("author", "model", "hardware", "timestamp") if not _text(record.get(k), 300)]
    if missing:
        return Skipped(entry, f"the JSON file has no {', '.join(missing)}")
    if tsv is None:
        return Skipped(entry, f"no TSV beside the JSON ({name}.tsv)")
    spec = TASKS[task]
    rules = catalog.benchmarks[spec.benchmark].rounds[ROUND]
    try:
        rows = read_progress(tsv, (spec.column,))
        reached = time_to_target(rows, spec.column, rules.quality_target)
    except TsvError as error:
        return Skipped(entry, f"{name}.tsv: {error}")
    date = _text(record["timestamp"], 20)
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        return Skipped(entry, f"timestamp {date!r} is not a date YYYY-MM-DD")
    hardware_text = _text(record["hardware"], 300)
    hardware = read_hardware(hardware_text, catalog)
    if not isinstance(hardware, Hardware):
        return Skipped(entry, f"hardware {hardware_text!r}: {hardware.reason}")

    system: dict[str, Any] = {
        "name": hardware_text,
        "accelerator": hardware.accelerator,
        "count": hardware.count,
        "unit": hardware.unit,
    }
    if hardware.nodes:
        system["nodes"] = hardware.nodes
    for key, value in (("provider", hardware.provider), ("instance_type", hardware.instance_type)):
        if value:
            system[key] = value
    if _text(record.get("framework"), 300):
        system["framework"] = _text(record["framework"], 300)
    minutes = reached.hours * 60
    data: dict[str, Any] = {
        "schema_version": 1,
        "round": ROUND,
        "benchmark": spec.benchmark,
        "division": "open",
        "availability": "available",
        "submitter": _text(record["author"], 200),
        "date": date,
        "system": system,
        "model": {"name": _text(record["model"], 300)},
        "result": {
            "minutes": _plain(minutes),
            "quality": _plain(reached.metrics[spec.column]),
            "quality_target": _plain(rules.quality_target),
            "progress": [
                {"epoch": _plain(r.epoch), "hours": _plain(r.hours), **{k: _plain(v) for k, v in r.metrics.items()}}
                for r in rows
            ],
        },
    }
    cost = record.get("costPerHour")
    if isinstance(cost, int | float) and not isinstance(cost, bool) and math.isfinite(cost) and cost > 0:
        data["reported_cost"] = {"usd_per_hour": _plain(cost), "usd": _plain(round(cost * reached.hours, 6))}
    data["provenance"] = {
        "method": "imported",
        "importer": IMPORTER,
        "notes": [
            f"hardware: {hardware.how}",
            f"time to target: TSV line {reached.line} (epoch {reached.epoch:g}, {reached.hours:g} hours), the first "
            f"row with {spec.column} >= {rules.quality_target:g}",
        ],
    }
    note = "Self-reported to DAWNBench by pull request; cost per hour is the submitter's own figure."
    links = [
        f"{label}: {_text(record[key], 500)}"
        for key, label in (("codeURL", "code"), ("logFilename", "logs"))
        if _text(record.get(key), 500)
    ]
    data["source"] = {
        "url": _source_url(catalog, task, name),
        "citation": "DAWNBench (Stanford DAWN), stanford-futuredata/dawn-bench-entries",
        "note": " ".join([note, *(f"{link}." for link in links)]),
    }
    path = Path(ROUND) / slug(data["submitter"]) / f"{task.lower()}-{slug(name)}.yaml"
    return Written(entry, path, data)


def _tell_apart(written: list[Written]) -> list[Written]:
    """Entries that are one entry to the board (same submitter, system, benchmark and model: the
    same model in two frameworks, or a second run) get the framework, then the date, then the
    entry's name added to their model name until each is one of its own."""
    for extra in (
        lambda w: w.data["system"].get("framework"),
        lambda w: w.data["date"],
        lambda w: w.entry.rsplit("/", 1)[-1],
    ):
        groups: dict[tuple, list[Written]] = {}
        for item in written:
            groups.setdefault(identity(item.data), []).append(item)
        for group in groups.values():
            if len(group) > 1:
                for item in group:
                    if extra(item):
                        item.data["model"]["name"] = f"{item.data['model']['name']} ({extra(item)})"[:300]
    return written


# ---- the whole import ------------------------------------------------------------------------


@dataclass
class DawnbenchImport:
    training_entries: int = 0
    inference_entries: int = 0
    inference_problems: list[Skipped] = field(default_factory=list)
    entries: list[Written] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    stale: list[Path] = field(default_factory=list)  # files of the round this import no longer writes
    manifest: Path | None = None
    left_off: list[skipped.SkippedResult] = field(default_factory=list)  # catalog/skipped/<round>.csv's rows
    left_off_list: Path | None = None


def _read_tree(source: Path) -> dict[tuple[str, str, str, str], bytes]:
    files = {}
    for item in iter_source(source, lambda path: _ENTRY.search(path) is not None):
        match = _ENTRY.search(item.path)
        content = item.stream.read(MAX_TSV_BYTES + 1)
        files[(match["task"], match["kind"], match["name"], match["ext"])] = content
    return files


def _json(content: bytes) -> tuple[Any, str | None]:
    try:
        return orjson.loads(content), None
    except orjson.JSONDecodeError as error:
        return None, f"the JSON file does not parse ({error})"


def left_off(entry: Skipped, record: Any, catalog: Catalog) -> skipped.SkippedResult:
    """A training entry not written, as a row of the skipped list (its author and hardware as the
    JSON file gives them, where it is an object)."""
    task, _, name = entry.entry.split("/", 2)
    fields = record if isinstance(record, dict) else {}
    return skipped.SkippedResult(
        round=ROUND,
        folder=entry.entry,
        submitter=_text(fields.get("author"), 200) or "(not named)",
        system=_text(fields.get("hardware"), 300) or "(not named)",
        benchmark=TASKS[task].benchmark,
        reason=entry.reason,
        logs_found=None,
        logs_needed=None,
        logs_missing=None,
        source_url=_source_url(catalog, task, name),
    )


def plan_import(source: Path, catalog: Catalog) -> DawnbenchImport:
    """Read the entries (folder or archive) and decide every file; nothing is written here."""
    try:
        files = _read_tree(source)
    except READ_ERRORS as error:
        raise SourceError(f"cannot read {source}: {error}") from None
    result = DawnbenchImport()
    for (task, kind, name, ext), content in sorted(files.items()):
        if ext != "json":
            continue
        record, problem = _json(content)
        if kind == "inference":
            result.inference_entries += 1
            if problem or not isinstance(record, dict):
                result.inference_problems.append(Skipped(f"{task}/inference/{name}", problem or "not an object"))
            continue
        result.training_entries += 1
        if problem:
            outcome: Written | Skipped = Skipped(f"{task}/train/{name}", problem)
        else:
            tsv = files.get((task, kind, name, "tsv"))
            if tsv is not None and len(tsv) > MAX_TSV_BYTES:
                outcome = Skipped(f"{task}/train/{name}", f"{name}.tsv is over {MAX_TSV_BYTES >> 20} MiB")
            else:
                text = tsv.decode("utf-8", errors="replace") if tsv is not None else None
                outcome = submission(task, name, record, text, catalog)
        if isinstance(outcome, Written):
            result.entries.append(outcome)
        else:
            result.skipped.append(outcome)
            result.left_off.append(left_off(outcome, record, catalog))
    if result.training_entries == 0:
        raise SourceError(f"{source} holds no DAWNBench training entries (<Task>/train/<entry>.json)")
    _tell_apart(result.entries)
    return result


def write_import(result: DawnbenchImport, out: Path, catalog_dir: Path) -> None:
    """Write every entry, the round's manifest and its list of what was left off, together (a full
    disk leaves all of them as they were); list the round's files no longer written."""
    rows = []
    changes = atomic.Changes()
    for item in result.entries:
        text = dump_yaml(item.data)
        target = out / item.path
        (result.written if changes.write(target, text) else result.unchanged).append(target)
        entry_id = item.path.with_suffix("").as_posix()
        rows.append(manifest.row(entry_id, item.data, text.encode("utf-8")))
    result.manifest = manifest.write(catalog_dir, ROUND, rows, MANIFEST_FOLDER, changes)
    result.left_off_list = skipped.write(catalog_dir, ROUND, result.left_off, SKIPPED_FOLDER, changes)
    changes.commit()
    produced = {out / item.path for item in result.entries}
    round_dir = out / ROUND
    if round_dir.is_dir():
        result.stale = sorted(p for p in round_dir.rglob("*") if p.is_file() and p not in produced)


def import_dawnbench(source: Path, catalog: Catalog, out: Path, catalog_dir: Path) -> DawnbenchImport:
    result = plan_import(source, catalog)
    write_import(result, out, catalog_dir)
    return result


def report_lines(result: DawnbenchImport, out: Path) -> list[str]:
    lines = [
        f"{plural(result.training_entries, 'training entry', 'training entries')} read; {len(result.entries):,} written "
        f"({plural(len(result.written), 'file')} changed, {len(result.unchanged):,} unchanged) under {out / ROUND}",
        f"manifest: {result.manifest}",
        f"entries left off, with why: {result.left_off_list}",
        f"{plural(result.inference_entries, 'inference entry', 'inference entries')} read (latency results, not boards: "
        f"{len(result.inference_problems)} unreadable)",
    ]
    if result.skipped:
        lines.append(f"{plural(len(result.skipped), 'training entry', 'training entries')} not written:")
        lines += [f"  {s.entry}: {s.reason}" for s in result.skipped]
    lines += [f"  inference {s.entry}: {s.reason}" for s in result.inference_problems]
    if result.stale:
        lines.append(
            f"{plural(len(result.stale), 'file')} of {ROUND} are no longer written by this import (left in place):"
        )
        lines += [f"  {p}" for p in result.stale]
    return lines


__all__ = ["DawnbenchImport", "SourceError", "TsvError", "import_dawnbench", "plan_import", "report_lines"]
