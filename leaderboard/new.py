"""Writing a new submission file from answers (flags or prompts): valid, at the right path.

The file is validated before it is written; nothing is written when anything is wrong.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from dataclasses import dataclass
from pathlib import Path

from leaderboard.catalog import Catalog
from leaderboard.files import dump_yaml
from leaderboard.normalize import slug
from leaderboard.problems import Problem, did_you_mean
from leaderboard.validate import check_submission


@dataclass
class Answers:
    round: str
    benchmark: str
    division: str
    submitter: str
    system: str
    accelerator: str
    count: float
    minutes: float
    source_url: str
    availability: str = "available"
    unit: str = "chip"
    date: str | None = None
    quality: float | None = None
    quality_target: float | None = None


def id_problem(kind: str, value: str, known: dict) -> str | None:
    """A message with suggestions when `value` is not a known id of `kind`."""
    if value in known:
        return None
    hint = did_you_mean(value, known)
    return f"unknown {kind} {value!r}" + (f" ({hint})" if hint else "")


def submission_data(answers: Answers, catalog: Catalog) -> dict:
    """The submission as a mapping, in the order of the format's documentation."""
    rules = (
        catalog.benchmarks[answers.benchmark].rounds.get(answers.round)
        if answers.benchmark in catalog.benchmarks
        else None
    )
    target = answers.quality_target
    if target is None and rules is not None:
        target = rules.quality_target
    count = int(answers.count) if float(answers.count).is_integer() else answers.count
    result: dict = {"minutes": answers.minutes}
    if answers.quality is not None:
        result["quality"] = answers.quality
    if target is not None and (answers.quality is not None or rules is not None):
        result["quality_target"] = target
    return {
        "schema_version": 1,
        "round": answers.round,
        "benchmark": answers.benchmark,
        "division": answers.division,
        "availability": answers.availability,
        "submitter": answers.submitter,
        "date": answers.date or dt.date.today().isoformat(),
        "system": {"name": answers.system, "accelerator": answers.accelerator, "count": count, "unit": answers.unit},
        "result": result,
        "source": {"url": answers.source_url},
    }


def target_path(data: dict, submissions: Path) -> Path:
    name = f"{slug(data['system']['name'])}-{data['benchmark']}.yaml"
    return submissions / data["round"] / slug(data["submitter"]) / name


def write_submission(answers: Answers, catalog: Catalog, submissions: Path) -> tuple[Path, list[Problem]]:
    """Validate, then write; the problems are those of the would-be file (nothing written then)."""
    data = submission_data(answers, catalog)
    path = target_path(data, submissions)
    if path.exists():
        return path, [
            Problem(
                str(path),
                None,
                None,
                "$",
                "a file with this name exists already",
                "edit it, or give a different system name",
            )
        ]
    text = dump_yaml(data)
    with tempfile.TemporaryDirectory() as scratch:
        trial = Path(scratch) / data["round"] / slug(data["submitter"]) / path.name
        trial.parent.mkdir(parents=True)
        trial.write_text(text, encoding="utf-8")
        entry, problems = check_submission(trial, catalog, dt.date.today())
    if problems:
        shown = [Problem(str(path), p.line, p.col, p.json_path, p.message, p.hint) for p in problems]
        return path, shown
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path, []
