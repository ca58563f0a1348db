"""The submission files an MLPerf import writes: one entry per result directory, wholly the
importer's (an official round is closed to hand edits), written only when its bytes change.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from leaderboard import atomic
from leaderboard.catalog import Round
from leaderboard.files import SUFFIXES, dump_yaml, load
from leaderboard.importers.layouts import ResultDir
from leaderboard.importers.scoring import Score
from leaderboard.importers.systems import SystemInfo
from leaderboard.normalize import slug

IMPORTER = "leaderboard-mlperf 1"
MINUTES_DECIMALS = 6  # a millisecond is 1.7e-5 minutes
FACTOR_DECIMALS = 6
# What RFC 3986 lets a URL path hold besides letters, digits and "-._~" (which quote() keeps).
URL_PATH_SAFE = "/!$&'()*+,;=:@"


@dataclass
class Written:
    path: Path
    status: str  # new | updated | unchanged
    replaced: Path | None = None  # a file of the same entry under another name, now removed
    data: dict | None = None  # what the file holds
    text: str = ""  # the file's text


def source_url(round_: Round, result: ResultDir) -> str | None:
    """The result folder in the round's public repository (a repository URL without /tree/
    gets /tree/main; write /tree/<branch> in the catalog for another branch)."""
    if not round_.results_repository:
        return None
    base = round_.results_repository.rstrip("/")
    if "/tree/" not in base:
        base += "/tree/main"
    # A folder name may hold spaces (Nettrix's "X660 G45_…" in v1.0): written as %20, as a URL
    # has no space; every character a URL's path allows stays as it is.
    return f"{base}/{quote(result.repo_path, safe=URL_PATH_SAFE)}"


def entry_data(
    round_: Round,
    benchmark_id: str,
    quality_target: float,
    result: ResultDir,
    system_file: str,
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
        "benchmark": benchmark_id,
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
            "quality_target": quality_target,
            "runs_minutes": runs_minutes,
            "runs_quality": score.runs_quality if any(q is not None for q in score.runs_quality) else None,
        },
        "provenance": {
            "method": "computed-from-logs",
            "importer": IMPORTER,
            "scaling": "unscaled",
            "rcp_factor": factor,
            "run_logs": list(run_files),
            "failed_runs": [f"{run_files[i]}: {reason}" for i, reason in score.failures] or None,
            "system_file": system_file,  # in the repository: the same from a folder or an archive
        },
        "source": {"url": source_url(round_, result)},
    }
    return _drop_none(data)


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    return value


def identity(data: dict) -> tuple:
    """(submitter, system name, benchmark, division), compared without case or spacing."""
    try:
        values = (data["submitter"], data["system"]["name"], data["benchmark"], data["division"])
    except (KeyError, TypeError):
        return ()
    return tuple(" ".join(str(v).casefold().split()) for v in values)


def entry_file_name(result: ResultDir, benchmark_id: str) -> str:
    """<system>-<benchmark>.yaml (the system's key in its organization, '/' as '-')."""
    return f"{result.system_slug}-{benchmark_id}.yaml"


def write_entries(
    entries: Sequence[tuple[str, dict]], out: Path, round_id: str, changes: atomic.Changes | None = None
) -> list[Written]:
    """Write each entry to out/<round>/<submitter-slug>/, replacing the file that already holds
    the same entry (same identity or same source URL; removed when its name differs). Nothing a
    person added to that file is kept: a fresh import writes the same bytes. Unchanged files are
    not rewritten. Every file, or none (a full disk halfway leaves the round as it was). With
    `changes`, the files are written when the caller commits them, with its other files."""
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
    changed: list[tuple[Path, str]] = []
    for file_name, data in entries:
        target = round_dir / slug(data["submitter"]) / file_name
        match = by_identity.get(identity(data)) or by_url.get(data["source"].get("url", "").rstrip("/"))
        if match is None and target in contents:
            match = target
        text = dump_yaml(data)
        old_text = target.read_text(encoding="utf-8") if target.is_file() else None
        if old_text == text:
            status = "unchanged"
        else:
            status = "updated" if old_text is not None or match is not None else "new"
            changed.append((target, text))
        replaced = match if match is not None and match != target and match.exists() else None
        written.append(Written(target, status, replaced, data, text))
    own = changes is None
    changes = atomic.Changes() if own else changes
    changes.writes.extend(changed)
    for item in written:
        if item.replaced is not None:
            changes.remove(item.replaced)  # after the writes, unless it is written itself
    if own:
        changes.commit()
    return written
