"""Writing a new submission file from answers (flags or prompts): valid, at the right path.

The file is validated before it is written, alone and against every entry already in the
submissions folder; nothing is written when anything is wrong, and no file is overwritten.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from dataclasses import dataclass
from pathlib import Path

from leaderboard.catalog import Catalog
from leaderboard.families import family
from leaderboard.files import dump_yaml, load
from leaderboard.identity import file_slug
from leaderboard.normalize import olympic_mean, slug
from leaderboard.problems import Problem, plural, suggestion
from leaderboard.review.closed import open_round
from leaderboard.tree import Entry, duplicate_problems
from leaderboard.validate import check_submission, entries_in


@dataclass
class Answers:
    round: str
    benchmark: str
    division: str
    submitter: str
    system: str
    accelerator: str
    count: float
    minutes: float | None  # None: the olympic mean of runs_minutes
    source_url: str | None = None
    availability: str = "available"
    unit: str = "chip"
    date: str | None = None  # None: the round's publication date
    quality: float | None = None
    quality_target: float | None = None
    runs_minutes: list[float | None] | None = None
    model: str | None = None
    parameters: float | None = None
    citation: str | None = None
    note: str | None = None


def missing_flags(values: dict, catalog: Catalog) -> list[str]:
    """Every flag a file needs that `values` (flag name -> value, None when not given) lacks;
    what a round needs depends on its kind (MLPerf: quality; published runs: model and date)."""
    round_ = catalog.rounds.get(values.get("round") or "")
    kind = round_.kind if round_ is not None else None
    needed = ["round", "benchmark", "submitter", "system", "accelerator", "count"]
    facts = family(kind or "")
    needed += (["quality"] if facts.round_rules else []) + (["model", "date"] if facts.model_runs else [])
    if facts.round_rules and values.get("division") == "open" and open_target(values, catalog) is None:
        needed.append("quality_target")  # the open division's own, where the round sets none
    missing = [f"--{name.replace('_', '-')}" for name in needed if values.get(name) is None]
    if values.get("minutes") is None and not values.get("runs_minutes"):
        missing.append("--minutes (or --runs-minutes)")
    if not values.get("source_url") and not values.get("citation"):
        missing.append("--source-url or --citation")
    return missing


def parse_runs(text: str) -> list[float | None]:
    """'4.4,4.5,null,4.6' -> [4.4, 4.5, None, 4.6]: every run's minutes, null for a failed run."""
    runs: list[float | None] = []
    for part in text.split(","):
        word = part.strip()
        if word.lower() in ("null", "failed"):
            runs.append(None)
            continue
        try:
            value = float(word)
        except ValueError:
            raise ValueError(f"{word!r} is not a number of minutes (write null for a failed run)") from None
        if not value > 0 or value == float("inf"):
            raise ValueError(f"{word} minutes: a run takes a positive, finite time")
        runs.append(value)
    return runs


def failed_runs_allowed(round_id: str | None, benchmark: str | None, catalog: Catalog) -> int:
    """How many failed runs (null) the round's scoring may list: a failed run takes the place of
    one of the slowest it drops; a round without rules for the benchmark (published runs, a plain
    mean of every run) drops none."""
    rules = _rules(round_id, benchmark, catalog)
    return rules.drop_slowest if rules is not None else 0


def failed_runs_problem(
    round_id: str, benchmark: str, runs: list[float | None], catalog: Catalog
) -> tuple[str, str] | None:
    """(message, hint) when `runs` lists more failed runs than the round's scoring may drop: the
    minutes are then no mean of them, and the file cannot be written."""
    failed = sum(minutes is None for minutes in runs)
    allowed = failed_runs_allowed(round_id, benchmark, catalog)
    if failed <= allowed:
        return None
    hint = "give the minutes of each run that reached the target"
    rules = _rules(round_id, benchmark, catalog)
    round_ = catalog.rounds.get(round_id)
    name = round_.name if round_ is not None else round_id
    if rules is None:
        return (
            f"a failed run (null) cannot be listed in {name}: the minutes are the mean of every run, none dropped",
            hint,
        )
    return (
        f"{plural(failed, 'failed run')} (null) listed; {name} {catalog.benchmarks[benchmark].name} drops at most "
        f"{plural(allowed, 'run')} of {rules.runs}, a failed one in place of the slowest",
        hint,
    )


def id_problem(kind: str, value: str, known: dict) -> str | None:
    """A message with suggestions when `value` is not a known id of `kind`, the most similar
    first, by id, name and aliases ('H100': the H100s)."""
    if value in known:
        return None
    names = {id_: [getattr(item, "name", ""), *getattr(item, "aliases", ())] for id_, item in known.items()}
    hint = suggestion(value, names)
    return f"unknown {kind} {value!r}" + (f" ({hint})" if hint else "")


def unknown_ids(values: dict, catalog: Catalog) -> list[str]:
    """A message for each id among the round, benchmark (of the round's kind) and accelerator
    that the catalog does not know, with the most similar known ones."""
    round_ = catalog.rounds.get(values["round"])
    benchmarks = {k: b for k, b in catalog.benchmarks.items() if round_ is None or b.kind == round_.kind}
    checks = (("round", catalog.rounds), ("benchmark", benchmarks), ("accelerator", catalog.accelerators))
    return [problem for name, known in checks if (problem := id_problem(name, values[name], known))]


def answers_from(values: dict, catalog: Catalog) -> Answers:
    """The answers (flags or prompts) as a record; what was not given takes its default (the
    division: open for a published run, else closed)."""
    published = family(catalog.rounds[values["round"]].kind).model_runs
    defaults = {"division": "open" if published else "closed", "availability": "available", "unit": "chip"}
    fields = {name: values.get(name) for name in Answers.__dataclass_fields__}
    return Answers(**{**fields, **{k: v for k, v in defaults.items() if fields[k] is None}})


def open_target(values: dict, catalog: Catalog) -> float | None:
    """The target an open-division entry of this round and benchmark must reach, where the round
    sets one (else the entry trains to its own)."""
    rules = _rules(values.get("round"), values.get("benchmark"), catalog)
    return rules.open_quality_target if rules is not None else None


def _rules(round_id: str | None, benchmark: str | None, catalog: Catalog):
    found = catalog.benchmarks.get(benchmark or "")
    return found.rounds.get(round_id or "") if found is not None else None


def default_date(round_id: str, catalog: Catalog) -> str | None:
    """An MLPerf result is dated by its round's publication; a published run has no default."""
    round_ = catalog.rounds.get(round_id)
    return round_.date if round_ is not None and family(round_.kind).round_rules else None


def submission_data(answers: Answers, catalog: Catalog) -> dict:
    """The submission as a mapping, in the order of the format's documentation."""
    rules = (
        catalog.benchmarks[answers.benchmark].rounds.get(answers.round)
        if answers.benchmark in catalog.benchmarks
        else None
    )
    target = answers.quality_target
    if target is None and rules is not None:
        target = rules.open_quality_target if answers.division == "open" else rules.quality_target
    minutes = answers.minutes
    if minutes is None and answers.runs_minutes:
        drops = (rules.drop_fastest, rules.drop_slowest) if rules is not None else (0, 0)
        mean = olympic_mean(answers.runs_minutes, *drops)
        minutes = round(mean, 4) if mean is not None else None
    result: dict = {"minutes": _plain(minutes) if minutes is not None else None}
    if answers.quality is not None:
        result["quality"] = answers.quality
    if target is not None and (answers.quality is not None or rules is not None):
        result["quality_target"] = target
    if answers.runs_minutes:
        result["runs_minutes"] = [None if m is None else _plain(m) for m in answers.runs_minutes]
    data = {
        "schema_version": 1,
        "round": answers.round,
        "benchmark": answers.benchmark,
        "division": answers.division,
        "availability": answers.availability,
        "submitter": answers.submitter,
        "date": answers.date or default_date(answers.round, catalog) or dt.date.today().isoformat(),
        "system": {
            "name": answers.system,
            "accelerator": answers.accelerator,
            "count": _plain(answers.count),
            "unit": answers.unit,
        },
    }
    model = {"name": answers.model} if answers.model else {}
    if answers.parameters is not None:
        model["parameters"] = _plain(answers.parameters)
    if model:
        data["model"] = model
    data["result"] = result
    source = {"url": answers.source_url, "citation": answers.citation, "note": answers.note}
    data["source"] = {key: value for key, value in source.items() if value}
    return data


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value


def file_name(data: dict) -> str:
    """A published run is named after its model, as import-epoch names it; an MLPerf result
    after its system and benchmark, as import-mlperf does."""
    model = (data.get("model") or {}).get("name")
    if model and data["round"] == "published":
        return f"{file_slug(model, 'run')}.yaml"
    return f"{slug(data['system']['name'])}-{data['benchmark']}.yaml"


def target_path(data: dict, submissions: Path) -> Path:
    """The file's path; when its name is taken (a second paper on the same system, say), the
    first free one of name-2, name-3, ...: an existing file is never overwritten."""
    folder = submissions / data["round"] / slug(data["submitter"])
    path = folder / file_name(data)
    number = 2
    while path.exists() or path.is_symlink():
        path = folder / f"{Path(file_name(data)).stem}-{number}.yaml"
        number += 1
    return path


def _trial(data: dict, name: str, catalog: Catalog, today: dt.date) -> tuple[Entry | None, list[Problem]]:
    """The validator's verdict on `data` as a file at its place, written in a scratch folder, and
    check-pr's on its round: an official round is closed to a file `new` writes."""
    runs = data["result"].get("runs_minutes")
    failed = failed_runs_problem(str(data["round"]), str(data["benchmark"]), runs, catalog) if runs else None
    with tempfile.TemporaryDirectory() as scratch:
        trial = Path(scratch) / str(data["round"]) / slug(str(data["submitter"])) / name
        trial.parent.mkdir(parents=True)
        trial.write_text(dump_yaml(_checkable(data, failed is not None)), encoding="utf-8")
        entry, problems = check_submission(trial, catalog, today)
        if failed is not None:  # said of the runs, which the trial left out
            problems = [Problem(str(trial), None, None, "$.result.runs_minutes", *failed), *problems]
            entry = None
        closed = closed_round_problem(str(data["round"]), catalog)
        if closed is not None:
            line, col = load(trial).where(("round",))
            problems = [Problem(str(trial), line, col, "$.round", *closed), *problems]
            entry = None
        return entry, problems


def _checkable(data: dict, failed: bool) -> dict:
    """`data` as the validator is to see it: runs with no mean (too many failed, or too few to
    keep one) leave the minutes null, which would stop the validator at the schema, so a
    placeholder stands in and every other answer is still checked. The runs' own problem is
    said instead: failed_runs_problem's (the trial leaves them out), or the validator's count."""
    result = dict(data["result"])
    if result["minutes"] is None and result.get("runs_minutes"):
        result["minutes"] = 1
    if failed:
        del result["runs_minutes"]
    return {**data, "result": result}


def closed_round_problem(round_id: str, catalog: Catalog) -> tuple[str, str] | None:
    """(message, hint) when only an importer writes the round's results (check-pr refuses any
    other file there): a result its submitter measured goes to a round open to pull requests."""
    round_ = catalog.rounds.get(round_id)
    facts = family(round_.kind) if round_ is not None else None
    if facts is None or not facts.closed:
        return None
    kinds = {r.id: r.kind for r in catalog.rounds.values()}
    return (
        f"{round_.name} is an official round, closed to pull requests: only `{facts.importer}` writes its results",
        f"a result you measured yourself, or read in a paper, is self-reported: choose round "
        f"{open_round(kinds)}, with one of its benchmarks (CONTRIBUTING.md, "
        "'Official rounds are closed; self-reported results')",
    )


# Where in the file each answer lands: the problems there are the answer's.
ANSWER_PATHS = {
    "round": "$.round",
    "benchmark": "$.benchmark",
    "division": "$.division",
    "availability": "$.availability",
    "submitter": "$.submitter",
    "system": "$.system.name",
    "accelerator": "$.system.accelerator",
    "unit": "$.system.unit",
    "count": "$.system.count",
    "date": "$.date",
    "runs_minutes": "$.result.runs_minutes",
    "minutes": "$.result.minutes",
    "quality": "$.result.quality",
    "quality_target": "$.result.quality_target",
    "model": "$.model.name",
    "parameters": "$.model.parameters",
    "source_url": "$.source.url",
    "citation": "$.source.citation",
    "note": "$.source.note",
}


def flag_lines(problems: list[Problem], values: dict) -> list[str]:
    """The problems of a file `new --no-input` did not write, each said of the flag its value
    came from ("--accelerator tpu-v3x: $.system.accelerator: unknown accelerator ..."): the file
    has no line to point at. A problem of no one flag keeps the place in the file it would have."""
    lines = []
    for problem in problems:
        name = next((n for n, where in ANSWER_PATHS.items() if _within(problem.json_path, where)), None)
        if name is None or values.get(name) is None:
            lines.append(problem.format())
            continue
        value = values[name]
        shown = ",".join("null" if v is None else f"{v:g}" for v in value) if isinstance(value, list) else value
        text = f"--{name.replace('_', '-')} {shown}: {problem.json_path}: {problem.message}"
        lines.append(text + (f" (hint: {problem.hint})" if problem.hint else ""))
    return lines


def answer_problems(values: dict, name: str, catalog: Catalog, today: dt.date | None = None) -> list[Problem]:
    """What the validator says about one answer (`values[name]`) as it is typed: the answers so
    far make a file, every question not yet answered filled with a placeholder that passes, and
    the problems at the answer's place in it are the answer's (the same rules as `validate`)."""
    today = today or dt.date.today()
    given = {key: value for key, value in values.items() if value is not None and key in ANSWER_PATHS}
    data = submission_data(Answers(**{**_placeholders(given, catalog, today), **given}), catalog)
    where = ANSWER_PATHS[name]
    _, problems = _trial(data, "placeholder.yaml", catalog, today)
    return [p for p in problems if _within(p.json_path, where)]


def _within(json_path: str, where: str) -> bool:
    """Whether a problem at `json_path` is about the value at `where` (it, or a part of it)."""
    return json_path == where or json_path.startswith((where + ".", where + "["))


def _placeholders(given: dict, catalog: Catalog, today: dt.date) -> dict:
    """A passing value for every answer not given yet, consistent with those that are."""
    round_id = given.get("round") if given.get("round") in catalog.rounds else next(iter(catalog.rounds))
    round_ = catalog.rounds[round_id]
    facts = family(round_.kind)
    benchmark = next(
        (
            b.id
            for b in catalog.benchmarks.values()
            if b.kind == round_.kind and (not facts.round_rules or round_id in b.rounds)
        ),
        next(iter(catalog.benchmarks)),
    )
    rules = _rules(round_id, given.get("benchmark") or benchmark, catalog)
    target = rules.quality_target if rules is not None else None
    accelerator = given.get("accelerator") if given.get("accelerator") in catalog.accelerators else None
    released = catalog.accelerators[accelerator].release_date if accelerator else None
    date = default_date(round_id, catalog) or max(released or "", "2019-01-01")
    return {
        "round": round_id,
        "benchmark": benchmark,
        "division": "open" if facts.model_runs else "closed",
        "availability": "available",
        "submitter": "Placeholder",
        "system": "placeholder",
        "accelerator": accelerator or next(iter(catalog.accelerators)),
        "count": 1,
        "unit": "chip",
        "date": min(date, today.isoformat()),
        "minutes": None if given.get("runs_minutes") else 1.0,
        "quality": given.get("quality_target", target) if facts.round_rules else None,
        "quality_target": target if facts.round_rules else None,
        "model": "placeholder" if facts.model_runs else None,
        "source_url": "https://example.org/",
    }


def write_submission(
    answers: Answers, catalog: Catalog, submissions: Path, today: dt.date | None = None
) -> tuple[Path, list[Problem]]:
    """Validate, then write; the problems are those of the would-be file, alone and beside the
    entries already in `submissions` (nothing is written then)."""
    today = today or dt.date.today()
    data = submission_data(answers, catalog)
    path = target_path(data, submissions)
    text = dump_yaml(data)
    entry, problems = _trial(data, path.name, catalog, today)
    if problems:
        shown = [Problem(str(path), p.line, p.col, p.json_path, p.message, p.hint) for p in problems]
        return path, shown
    new = Entry(entry.entry_id, str(path), data, None)
    problems = duplicate_problems(new, entries_in(submissions, catalog, today), catalog)
    if problems:
        return path, [Problem(str(path), None, None, p.json_path, p.message, p.hint) for p in problems]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as handle:  # "x": never over a file made meanwhile
        handle.write(text)
    return path, []
