"""Import Epoch AI's "Notable AI Models" database as published training runs: one submission per
model that names a single training hardware, its quantity and the training time.

Files land at <out>/<organization-slug>/<model-slug>.yaml, listed with their digests in
catalog/imported/published.csv. Hand-typed files are never touched; an imported file is wholly
the importer's (a re-import writes the same bytes, and a hand edit does not survive it).
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard import atomic, manifest
from leaderboard.catalog import Catalog
from leaderboard.families import family
from leaderboard.files import dump_yaml, load
from leaderboard.identity import file_slug, paper_key
from leaderboard.importers.prices import (
    CsvError,
    http_url,
    one_line,
    parse_date,
    parse_number,
    read_records,
)
from leaderboard.normalize import chip_hours, chips, slug
from leaderboard.problems import plural

IMPORTER = "leaderboard import-epoch 1"
ROUND = "published"
KIND = "published"  # its family (the round's kind), which names the manifest's folder
DATABASE = "Epoch AI, 'Notable AI Models' database (https://epoch.ai/data/notable-ai-models, CC BY 4.0)"
COST_COLUMN = "Training compute cost (2023 USD)"
REQUIRED_COLUMNS = (
    "Model",
    "Domain",
    "Organization",
    "Publication date",
    "Link",
    "Parameters",
    "Training hardware",
    "Hardware quantity",
    "Training time (hours)",
    COST_COLUMN,
)
MAX_SUBMITTER = 100  # longer organization lists become "<first> et al." (the full list goes to the note)

# Epoch's domains -> our published-run benchmarks. A row naming several domains takes the
# first of PRECEDENCE it has; language, vision and speech together are multimodal.
DOMAINS = {
    "language": "language",
    "mathematics": "language",
    "vision": "vision",
    "image generation": "vision",
    "video": "vision",
    "3d modeling": "vision",
    "speech": "speech",
    "audio": "speech",
    "multimodal": "multimodal",
    "biology": "biology",
    "medicine": "biology",
    "games": "games",
    "robotics": "robotics",
    "materials science": "science",
    "earth science": "science",
    "chemistry": "science",
    "physics": "science",
    "recommendation": "recommendation",
    "search": "recommendation",
}
PRECEDENCE = ("games", "robotics", "biology", "science")
MODALITIES = ("language", "vision", "speech", "multimodal")


def domain_benchmark(domain: str) -> str:
    """Epoch's Domain cell ('Multimodal,Language,Vision') -> a published benchmark id."""
    found = {DOMAINS.get(one_line(d).casefold(), "other") for d in domain.split(",") if d.strip()}
    if not found:
        return "other"
    for benchmark in PRECEDENCE:
        if benchmark in found:
            return benchmark
    modal = found & set(MODALITIES)
    if len(modal) > 1:
        return "multimodal"
    if modal:
        return modal.pop()
    return "recommendation" if "recommendation" in found else "other"


def organizations(cell: str) -> list[str]:
    """'A,"B, Inc",C' -> ['A', 'B, Inc', 'C'] (Epoch quotes names that hold a comma)."""
    try:
        names = next(csv.reader([one_line(cell)], skipinitialspace=True))
    except (csv.Error, StopIteration):
        names = cell.split(",")
    return [one_line(n) for n in names if n.strip()]


def submitter_name(cell: str) -> tuple[str, str | None]:
    """The submitter and, when the list was shortened, the full list for the note."""
    names = organizations(cell)
    if not names:
        return "", None
    joined = ", ".join(names)
    if len(joined) <= MAX_SUBMITTER:
        return joined, None
    return f"{names[0]} et al.", joined


# ---- one row -> one submission ---------------------------------------------------------------


@dataclass(frozen=True)
class Skipped:
    row: int
    model: str
    reason: str


@dataclass(frozen=True)
class Run:
    row: int
    path: Path  # relative to the output folder: <org-slug>/<model-slug>.yaml
    data: dict


def _count(cell: str, what: str) -> tuple[float | None, str | None]:
    if not cell.strip():
        return None, f"no {what}"
    value = parse_number(cell)
    if value is None:
        return None, f"{what} {one_line(cell)[:60]!r} is not a number"
    if value <= 0:
        return None, f"{what} {value:g} is not positive"
    return value, None


def submission_from_row(row: dict[str, str], number: int, catalog: Catalog, today: dt.date) -> Run | Skipped:
    """One CSV row as a submission, or the reason it is not one."""
    model = one_line(row.get("Model", ""))
    hardware_cell = one_line(row.get("Training hardware", ""))
    hardware = [h.strip() for h in hardware_cell.split(",") if h.strip()]
    reasons = []
    if not model:
        reasons.append("no model name")
    if not hardware:
        reasons.append("no training hardware")
    elif len(hardware) > 1:
        reasons.append(f"several hardware types ({', '.join(hardware)})")
    quantity, problem = _count(row.get("Hardware quantity", ""), "hardware quantity")
    if problem:
        reasons.append(problem)
    elif not quantity.is_integer():
        reasons.append(f"hardware quantity {quantity:g} is not a whole number of chips")
    hours, problem = _count(row.get("Training time (hours)", ""), "training time")
    if problem:
        reasons.append(problem)
    if reasons:
        return Skipped(number, model, "; ".join(reasons))
    accelerator = catalog.accelerator_by_alias(hardware[0])
    if accelerator is None:
        return Skipped(
            number,
            model,
            f"unknown hardware {hardware[0]!r}: add it as an alias of an accelerator in catalog/accelerators.yaml",
        )
    date = parse_date(row.get("Publication date", ""))
    if date is None:
        return Skipped(number, model, f"no publication date ({one_line(row.get('Publication date', ''))!r})")
    if dt.date.fromisoformat(date) > today:
        return Skipped(number, model, f"publication date {date} lies in the future")
    submitter, all_organizations = submitter_name(row.get("Organization", ""))
    if not submitter:
        return Skipped(number, model, "no organization")

    link_cell = one_line(row.get("Link", ""))
    url = http_url(link_cell)
    citation = DATABASE
    if url is None and link_cell:
        citation += f"; link given there: {link_cell[:500]}"
    notes = [
        "Imported from Epoch AI: training hardware, its quantity (counted as chips) and training time as "
        "the database records them."
    ]
    if all_organizations:
        notes.append(f"Organizations: {all_organizations}.")
    parameters = parse_number(row.get("Parameters", ""))
    count = int(quantity)
    data: dict[str, Any] = {
        "schema_version": 1,
        "round": ROUND,
        "benchmark": domain_benchmark(row.get("Domain", "")),
        "division": "open",
        "availability": "available",
        "submitter": submitter,
        "date": date,
        "system": {"name": f"{count:,} x {hardware[0]}", "accelerator": accelerator.id, "count": count, "unit": "chip"},
        "model": {"name": model[:300], **({"parameters": _plain(parameters)} if parameters and parameters > 0 else {})},
        "result": {"minutes": _plain(round(hours * 60, 6))},
        "provenance": {"method": "imported", "importer": IMPORTER},
        "source": {**({"url": url} if url else {}), "citation": citation, "note": " ".join(notes)},
    }
    epoch_cost = parse_number(row.get(COST_COLUMN, ""))
    if epoch_cost and epoch_cost > 0:
        data["reference_cost"] = {
            "usd": _plain(round(epoch_cost, 2)),
            "year": 2023,
            "source": f"{DATABASE}, column '{COST_COLUMN}'",
        }
    path = Path(file_slug(submitter, "unknown")) / f"{file_slug(model, f'row-{number}')}.yaml"
    return Run(number, path, data)


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value


# ---- files already there ---------------------------------------------------------------------


def is_imported(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("provenance"), dict)
        and data["provenance"].get("method") == "imported"
    )


@dataclass(frozen=True)
class Overlap:
    row: int
    model: str
    hand_file: Path
    same_run: bool  # True: the hand-typed file stands for this run and the row is not written
    differences: tuple[str, ...]


@dataclass
class EpochImport:
    rows: int = 0
    runs: list[Run] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    overlaps: list[Overlap] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    stale: list[Path] = field(default_factory=list)  # imported files the CSV no longer produces

    def skipped_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for skipped in self.skipped:
            kind = _reason_kind(skipped.reason)
            counts[kind] = counts.get(kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _reason_kind(reason: str) -> str:
    first = reason.split(";")[0]
    return re.sub(r"\s*[('\"].*$", "", first).replace(" is not a number", "").strip()


@dataclass(frozen=True)
class _HandFile:
    path: Path
    data: dict


def _hand_files(out: Path) -> tuple[list[_HandFile], dict[Path, dict]]:
    """Files under `out` typed by hand, and imported files by path (relative to `out`)."""
    hand, imported = [], {}
    for path in sorted(out.rglob("*")):
        if path.suffix.lower() not in (".yaml", ".yml", ".json") or not path.is_file():
            continue
        doc = load(path)
        if not isinstance(doc.data, dict):
            continue
        if is_imported(doc.data):
            imported[path.relative_to(out)] = doc.data
        else:
            hand.append(_HandFile(path, doc.data))
    return hand, imported


def _same_run(run: Run, hand: _HandFile, out: Path, run_paths: frozenset[Path] = frozenset()) -> bool:
    """Whether a hand-typed file stands for the row's run: at its path, or from the same paper
    (or submitter and model). A hand file at another row's path stands for that row only (one
    paper may train several models: Megatron-BERT and Megatron-LM)."""
    data = hand.data
    own = hand.path.relative_to(out).with_suffix("")
    if own == run.path.with_suffix(""):
        return True
    if own in run_paths:
        return False
    if paper_key(run.data["source"].get("url")) and paper_key(run.data["source"].get("url")) == paper_key(
        (data.get("source") or {}).get("url")
    ):
        return True
    return slug(str(data.get("submitter", ""))) == slug(run.data["submitter"]) and slug(
        str((data.get("model") or {}).get("name", ""))
    ) == slug(run.data["model"]["name"])


def _same_model(run: Run, hand: _HandFile) -> bool:
    """Model names where one is the other plus qualifiers: 'GPT-3 175B' and 'GPT-3 175B (davinci)'
    (but not 'GPT-2 (1.5B)' and 'GPT-2 (1.5B, Curriculum Learning 45K)')."""
    ours = " ".join(run.data["model"]["name"].casefold().split())
    theirs = " ".join(str((hand.data.get("model") or {}).get("name", "")).casefold().split())
    if not ours or not theirs:
        return False
    short, long = sorted((ours, theirs), key=len)
    return long == short or long.startswith(short + " ")


def differences(run: Run, hand: dict, catalog: Catalog) -> tuple[str, ...]:
    """Where a hand-typed file and an Epoch row disagree: accelerator, chips, minutes, chip-hours."""
    found = []
    ours, theirs = run.data, hand
    try:
        their_system, their_minutes = theirs["system"], float(theirs["result"]["minutes"])
        their_accelerator = catalog.accelerators[their_system["accelerator"]]
        their_chips = chips(their_system["count"], their_system.get("unit", "chip"), their_accelerator)
    except (KeyError, TypeError, ValueError):
        return ("the hand-typed file cannot be compared (invalid)",)
    our_chips, our_minutes = float(ours["system"]["count"]), float(ours["result"]["minutes"])
    if ours["system"]["accelerator"] != their_accelerator.id:
        found.append(f"accelerator: Epoch {ours['system']['accelerator']}, hand-typed {their_accelerator.id}")
    if not _close(our_chips, their_chips):
        found.append(f"chips: Epoch {our_chips:,.0f}, hand-typed {their_chips:,.0f}")
    if not _close(our_minutes, their_minutes):
        found.append(f"minutes: Epoch {our_minutes:,.0f}, hand-typed {their_minutes:,.0f}")
    ours_ch, theirs_ch = chip_hours(our_chips, our_minutes), chip_hours(their_chips, their_minutes)
    if not _close(ours_ch, theirs_ch):
        found.append(f"chip-hours: Epoch {ours_ch:,.0f}, hand-typed {theirs_ch:,.0f} (x{ours_ch / theirs_ch:.2f})")
    return tuple(found)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


# ---- the whole import ------------------------------------------------------------------------


def plan_import(csv_path: Path, catalog: Catalog, out: Path, today: dt.date | None = None) -> EpochImport:
    """Read the CSV and the files under `out`; decide what to write (nothing is written here)."""
    today = today or dt.datetime.now(dt.UTC).date()
    result = EpochImport()
    hand, imported = _hand_files(out) if out.is_dir() else ([], {})
    taken: dict[Path, int] = {}
    outcomes = []
    for number, row in read_records(csv_path, REQUIRED_COLUMNS):
        result.rows += 1
        outcomes.append(submission_from_row(row, number, catalog, today))
    run_paths = frozenset(o.path.with_suffix("") for o in outcomes if isinstance(o, Run))
    for outcome in outcomes:
        if isinstance(outcome, Skipped):
            result.skipped.append(outcome)
            continue
        run, number = outcome, outcome.row
        if run.path in taken:
            result.skipped.append(
                Skipped(
                    number,
                    run.data["model"]["name"],
                    f"duplicate model name: same organization and model as row {taken[run.path]}",
                )
            )
            continue
        taken[run.path] = number
        same = [h for h in hand if _same_run(run, h, out, run_paths)]
        related = [h for h in hand if h not in same and _same_model(run, h)]
        for h in same + related:
            result.overlaps.append(
                Overlap(number, run.data["model"]["name"], h.path, bool(h in same), differences(run, h.data, catalog))
            )
        if same:
            continue
        result.runs.append(run)  # an imported file is the importer's: a hand edit to it is not kept
    produced = {run.path for run in result.runs}
    result.stale = sorted(path for path in imported if path not in produced)
    return result


def write_import(result: EpochImport, out: Path, changes: atomic.Changes) -> None:
    """Every run's file, into `changes`: written when the caller commits them with its other files."""
    for run in result.runs:
        target = out / run.path
        (result.written if changes.write(target, dump_yaml(run.data)) else result.unchanged).append(target)


def import_epoch(
    csv_path: Path, catalog: Catalog, out: Path, today: dt.date | None = None, catalog_dir: Path | None = None
) -> EpochImport:
    """Plan and write the import; with `catalog_dir`, also its manifest (record_manifest), written
    with the runs' files or (a full disk) none of them."""
    result = plan_import(csv_path, catalog, out, today)
    changes = atomic.Changes()
    write_import(result, out, changes)
    if catalog_dir is not None:
        record_manifest(catalog_dir, result, out, changes)
    changes.commit()
    return result


def record_manifest(catalog_dir: Path, result: EpochImport, out: Path, changes: atomic.Changes | None = None) -> Path:
    """catalog/imported/published.csv: every file this import wrote (or found unchanged), with its
    digest; exactly what a fresh import of the same CSV lists. Imported is not verified."""
    rows = [
        manifest.row(f"{ROUND}/{run.path.with_suffix('').as_posix()}", run.data, dump_yaml(run.data).encode("utf-8"))
        for run in result.runs
    ]
    return manifest.write(catalog_dir, ROUND, rows, family(KIND).manifest_folder or "imported", changes)


def report_lines(result: EpochImport, out: Path) -> list[str]:
    lines = [
        f"{plural(result.rows, 'row')} read; {plural(len(result.runs), 'run')}: "
        f"{plural(len(result.written), 'file')} written, {len(result.unchanged):,} unchanged, under {out}"
    ]
    if result.skipped:
        lines.append(f"{plural(len(result.skipped), 'row')} not written:")
        lines += [f"  {count:4d}  {kind}" for kind, count in result.skipped_by_reason().items()]
    for same_run, heading, sign in (
        (True, "rows already entered by hand (the hand-typed file is kept):", "="),
        (False, "rows name a model that a hand-typed file has from another run (both kept):", "~"),
    ):
        overlaps = [o for o in result.overlaps if o.same_run == same_run]
        if overlaps:
            lines.append(f"{len(overlaps)} {heading}")
            lines += [
                f"  row {o.row} {o.model!r} {sign} {o.hand_file}: "
                + ("; ".join(o.differences) if o.differences else "they agree")
                for o in overlaps
            ]
    if result.stale:
        lines.append(f"{len(result.stale)} imported files are no longer produced by this CSV (left in place):")
        lines += [f"  {out / p}" for p in result.stale]
    return lines


def skipped_lines(result: EpochImport) -> list[str]:
    return [f"row {s.row} {s.model!r}: {s.reason}" for s in result.skipped]


__all__ = ["CsvError", "EpochImport", "import_epoch", "plan_import", "report_lines", "skipped_lines"]
