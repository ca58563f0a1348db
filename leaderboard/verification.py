"""What a pull request does to existing entries: each changed or deleted entry's fields
before -> after (review/closed.py decides which of those changes may pass).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from leaderboard.files import read_regular


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
    submitter: str | None = None  # as the base's version of the file names it

    @property
    def changes_a_result(self) -> bool:
        """Deleted, or a field changed: a result already on the boards moves or goes."""
        return self.status == "deleted" or bool(self.fields)


def _show(repo: Path, revision: str, name: str) -> bytes | None:
    done = subprocess.run(["git", "show", f"{revision}:{name}"], cwd=repo, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None


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


# What a pull request's edit of an entry that parses to the same fields is called (check-pr).
NO_FIELD_CHANGED = "no field changed (only comments or formatting)"


def shown(value: object, limit: int = 80) -> str:
    text = "(none)" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def entry_diffs(
    repo: Path,
    merge_base: str,
    changes: list[tuple[str, str]],  # (status, file)
    submissions: str,
) -> list[EntryDiff]:
    """Every modified or deleted entry, field by field (added ones are previewed instead)."""
    diffs = []
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
        submitter = _parsed(old).get("submitter")
        diffs.append(
            EntryDiff(name, status, field_changes(old, new), submitter if isinstance(submitter, str) else None)
        )
    return diffs
