"""What a pull request does to verified entries: each changed entry's fields before -> after,
and a problem for every change to a verified MLPerf result (or to the manifest that makes
results verified) that is not exactly a re-import confirmed by re-running the importer.
"""

from __future__ import annotations

import csv
import io
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from leaderboard import manifest
from leaderboard.files import read_regular
from leaderboard.problems import Problem

REIMPORT_HINT = (
    "a verified result changes only by re-running `leaderboard import-mlperf` on the round's published logs; "
    "open an issue if the published result itself is wrong"
)


@dataclass
class FieldChange:
    path: str  # result.minutes
    before: object
    after: object


@dataclass
class EntryDiff:
    file: str
    status: str  # modified | deleted
    fields: list[FieldChange]


def _show(repo: Path, revision: str, name: str) -> bytes | None:
    done = subprocess.run(["git", "show", f"{revision}:{name}"], cwd=repo, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None


def base_manifest(repo: Path, revision: str, catalog: str) -> dict[str, str]:
    """The manifests as they were at `revision` (entry id -> file digest)."""
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", revision, f"{catalog}/{manifest.FOLDER}/"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    found: dict[str, str] = {}
    for name in listing:
        content = _show(repo, revision, name) if name.endswith(".csv") else None
        if content is not None:
            for item in csv.DictReader(io.StringIO(content.decode("utf-8", errors="replace"))):
                found[item.get("entry_id", "")] = item.get("sha256", "")
    return found


def _flatten(value: object, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        flat: dict[str, object] = {}
        for key, inner in value.items():
            flat.update(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def _parsed(content: bytes | None) -> dict:
    try:
        data = yaml.safe_load(content) if content else None
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def field_changes(before: bytes | None, after: bytes | None) -> list[FieldChange]:
    """Every field that differs, in the order of the format, lists compared whole."""
    old, new = _flatten(_parsed(before)), _flatten(_parsed(after))
    keys = list(old) + [k for k in new if k not in old]
    return [FieldChange(k, old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k)]


def shown(value: object, limit: int = 80) -> str:
    text = "(none)" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check(
    repo: Path,
    merge_base: str,
    changes: list[tuple[str, str]],  # (status, file)
    submissions: str,
    catalog: str,
    reimport_confirmed: bool,
) -> tuple[list[EntryDiff], list[Problem]]:
    """Diffs of changed and deleted entries, and the problems of changes to verified ones."""
    before = base_manifest(repo, merge_base, catalog)
    after = manifest.load(repo / catalog)
    manifest_changed = [f for s, f in changes if f.startswith(f"{catalog}/{manifest.FOLDER}/")]
    diffs, problems = [], []
    for name in manifest_changed:
        if not reimport_confirmed:
            problems.append(
                Problem(
                    name,
                    1,
                    1,
                    "$",
                    "changes the manifest that makes MLPerf results verified: only a re-import may, and the import "
                    "job must confirm it (check-pr --reimport-confirmed)",
                    REIMPORT_HINT,
                )
            )
    for status, name in changes:
        path = Path(name)
        if (
            path.parts[:1] != (submissions,)
            or status == "added"
            or path.suffix.lower() not in (".yaml", ".yml", ".json")
        ):
            continue
        old = _show(repo, merge_base, name)
        new = None if status == "deleted" else read_regular(repo / name)  # a link is never followed
        diffs.append(EntryDiff(name, status, field_changes(old, new)))
        entry_id = path.relative_to(submissions).with_suffix("").as_posix()
        was_verified = old is not None and before.get(entry_id) == manifest.file_digest(old)
        if not was_verified:
            continue
        if status == "deleted":
            reimport = entry_id not in after
        else:
            reimport = new is not None and after.get(entry_id) == manifest.file_digest(new)
        if not (reimport and reimport_confirmed):
            fields = ", ".join(f"{c.path}: {shown(c.before, 30)} -> {shown(c.after, 30)}" for c in diffs[-1].fields[:4])
            what = "deletes" if status == "deleted" else f"changes ({fields})"
            problems.append(
                Problem(name, 1, 1, "$", f"{what} a result verified against MLCommons' published logs", REIMPORT_HINT)
            )
    return diffs, problems
