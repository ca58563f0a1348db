"""The questions `leaderboard new` asks, in order, each answer checked as it is typed and asked
again with the problem (the validator's own rules, new.answer_problems); flags answer in advance."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import click

from leaderboard.catalog import Catalog
from leaderboard.families import family
from leaderboard.new import (
    answer_problems,
    default_date,
    failed_runs_allowed,
    id_problem,
    open_target,
    parse_runs,
)

CHOICES = {
    "division": ("closed", "open"),
    "availability": ("available", "preview", "research"),
    "unit": ("chip", "core", "device"),
}


@dataclass(frozen=True)
class Question:
    name: str  # the Answers field it fills
    text: str
    kind: str = "text"  # text | number | runs | choice
    optional: Callable[[dict, Catalog], bool] = lambda values, catalog: False  # a blank answer leaves it out
    default: Callable[[dict, Catalog], object] = lambda values, catalog: None
    asked: Callable[[dict, Catalog], bool] = lambda values, catalog: True  # else skipped
    detail: Callable[[dict, Catalog], str] = lambda values, catalog: ""  # said after the text


def _facts(values: dict, catalog: Catalog):
    return family(catalog.rounds[values["round"]].kind)


def _mlperf(values, catalog) -> bool:
    return _facts(values, catalog).round_rules


def _open_or_published(values, catalog) -> bool:
    return values.get("division") == "open" or _facts(values, catalog).model_runs


def _runs_text(values, catalog) -> str:
    """A failed run is offered only where the round's scoring may drop one (never for a published run)."""
    rules = catalog.benchmarks[values["benchmark"]].rounds.get(values["round"])
    failed = ", null for a failed run" if failed_runs_allowed(values["round"], values["benchmark"], catalog) else ""
    runs = f"; {rules.runs} runs in this round" if rules is not None else ""
    return f"{failed} (blank: only the final time{runs})"


QUESTIONS = (
    Question("round", "Round"),
    Question("benchmark", "Benchmark"),
    Question(
        "division",
        "Division",
        "choice",
        default=lambda v, c: "open" if _facts(v, c).model_runs else "closed",
        asked=lambda v, c: _facts(v, c).divisions,  # a published run has none: always open
    ),
    Question("availability", "Availability", "choice", default=lambda v, c: "available"),
    Question("submitter", "Submitter (organization, as it names itself)"),
    Question("system", "System name"),
    Question("accelerator", "Accelerator (id from the catalog; a name or alias gets suggestions)"),
    Question("unit", "Unit the count is in", "choice", default=lambda v, c: "chip"),
    Question("count", "Count (in that unit)", "number"),
    Question(
        "date",
        "Date the result was first made public (YYYY-MM-DD)",
        default=lambda v, c: default_date(v["round"], c),
    ),
    Question(
        "runs_minutes",
        "Minutes of every run, comma-separated",
        "runs",
        optional=lambda v, c: True,
        detail=_runs_text,
    ),
    Question("minutes", "Minutes to train", "number", asked=lambda v, c: not v.get("runs_minutes")),
    Question("quality", "Achieved quality", "number", asked=_mlperf),
    Question(
        "quality_target",
        "Quality target trained to (the open division's)",
        "number",
        default=lambda v, c: open_target(v, c),
        detail=lambda v, c: "" if open_target(v, c) is not None else " (the round sets none: the one you trained to)",
        asked=lambda v, c: _mlperf(v, c) and v.get("division") == "open",
    ),
    Question("model", "Model name", optional=lambda v, c: not _facts(v, c).model_runs, asked=_open_or_published),
    Question(
        "parameters",
        "Model parameters (a number such as 7e9; blank if unknown)",
        "number",
        optional=lambda v, c: True,
        asked=_open_or_published,
    ),
    Question(
        "source_url", "Source URL where a reader finds these numbers (blank for none)", optional=lambda v, c: True
    ),
    Question(
        "citation",
        "Citation (authors, title, venue, year; needed without a URL)",
        optional=lambda v, c: bool(v.get("source_url")),
    ),
    Question(
        "note",
        "Note: where in the source the numbers are, anything derived (blank for none)",
        optional=lambda v, c: True,
    ),
)


def _known(name: str, values: dict, catalog: Catalog) -> dict | None:
    """The ids an answer must be one of, where it names a catalog id."""
    if name == "round":
        return catalog.rounds
    if name == "benchmark":
        kind = catalog.rounds[values["round"]].kind
        return {k: b for k, b in catalog.benchmarks.items() if b.kind == kind}
    if name == "accelerator":
        return catalog.accelerators
    return None


def problems_of(name: str, values: dict, catalog: Catalog, today: dt.date | None = None) -> list[str]:
    """Why the answer `values[name]` is refused, one line each (empty: it stands)."""
    known = _known(name, values, catalog)
    if known is not None and (problem := id_problem(name, values[name], known)):
        return [problem]
    return [p.message + (f" (hint: {p.hint})" if p.hint else "") for p in answer_problems(values, name, catalog, today)]


def _read(question: Question, text: str):
    """The typed text as the answer's value, or a ValueError saying why it is not one."""
    text = text.strip()
    if question.kind == "number":
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
    if question.kind == "runs":
        return parse_runs(text)
    if question.kind == "choice" and text not in CHOICES[question.name]:
        raise ValueError(f"{text!r} is not one of: {', '.join(CHOICES[question.name])}")
    return text


def interview(
    given: dict,
    catalog: Catalog,
    today: dt.date | None = None,
    prompt: Callable[..., str] = click.prompt,
    say: Callable[[str], None] = lambda text: click.echo(text, err=True),
) -> dict:
    """Every answer a good entry needs: the flags in `given` first (each checked too), the rest
    asked. A refused answer is said with its problem and asked again."""
    values = dict(given)
    for question in QUESTIONS:
        if values.get(question.name) is None and not question.asked(values, catalog):
            continue
        while True:
            if values.get(question.name) is None:
                default = question.default(values, catalog)
                choices = f" [{'/'.join(CHOICES[question.name])}]" if question.kind == "choice" else ""
                text = prompt(
                    question.text + question.detail(values, catalog) + choices,
                    default="" if default is None else str(default),
                    show_default=default is not None,
                )
                if not text.strip() and question.optional(values, catalog):
                    break
                if not text.strip():
                    say("an answer is needed")
                    continue
                try:
                    values[question.name] = _read(question, text)
                except ValueError as error:
                    say(str(error))
                    continue
            problems = problems_of(question.name, values, catalog, today)
            if not problems:
                break
            for problem in problems:
                say(problem)
            values[question.name] = None
    return values
