"""`leaderboard new` asked question by question (driven through click's CliRunner): each answer
checked as it is typed and asked again with the validator's message; suggestions by similarity."""

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT, run_cli

from leaderboard.catalog import load_catalog
from leaderboard.cli import main
from leaderboard.new import Answers, id_problem, submission_data
from leaderboard.problems import closest


def new(project, *answers: str, flags: tuple[str, ...] = ()):
    """Run `leaderboard new` in `project`, typing each answer and Enter."""
    args = ["new", "--submissions", str(project / "submissions"), "--catalog", str(project / "catalog"), *flags]
    return CliRunner().invoke(main, args, input="".join(f"{a}\n" for a in answers))


def test_a_published_run_asks_runs_parameters_and_citation_and_re_asks_each_refused_answer(empty_project):
    result = new(
        empty_project,
        "published",
        "langauge",  # a typo: suggested, asked again
        "language",
        "",  # availability: available (no division: a published run is open)
        "Acme Labs",
        "16 Cloud TPU v3",
        "tpu-v3",
        "device",
        "-16",  # the schema's rule, said at once
        "16",
        "2099-01-01",  # in the future
        "2019-01-01",
        "5700, 5760, 5820",  # every run
        "",  # a published run needs its model's name
        "Acme-LM",
        "7e9",
        "",  # no URL
        "",  # then a citation is needed
        "Acme Labs, Training Acme-LM, 2019.",
        "Section 4, Table 2.",
    )
    assert result.exit_code == 0, result.output
    said = result.output
    assert "unknown benchmark 'langauge' (did you mean 'language'?)" in said
    assert "must be greater than 0" in said
    assert "date 2099-01-01 lies in the future (hint: give the publication date)" in said
    assert said.count("an answer is needed") == 2
    assert "Model parameters" in said and "Citation" in said and "Minutes of every run" in said
    assert "Division" not in said
    data = yaml.safe_load((empty_project / "submissions/published/acme-labs/acme-lm.yaml").read_text())
    assert data["system"] == {"name": "16 Cloud TPU v3", "accelerator": "tpu-v3", "count": 16, "unit": "device"}
    assert data["model"] == {"name": "Acme-LM", "parameters": 7000000000}
    assert data["result"] == {"minutes": 5760, "runs_minutes": [5700, 5760, 5820]}
    assert data["source"] == {"citation": "Acme Labs, Training Acme-LM, 2019.", "note": "Section 4, Table 2."}
    assert data["date"] == "2019-01-01"


def test_an_official_round_is_refused_and_each_answer_checked(empty_project):
    result = new(
        empty_project,
        "mlperf-training-v1.1",  # closed to pull requests: said, and asked again
        "published",
        "language",
        "",  # available
        "Acme Labs",
        "acme-8",
        "H100",  # not an id: the H100s are suggested
        "a100-sxm4-80gb",
        "",  # chip
        "8.5",
        "8",
        "2023-01-02",
        "30, 31, 32",
        "Acme-LM",
        "",  # parameters unknown
        "example.com/acme",  # not an http(s) URL
        "https://example.com/acme",
        "",  # no citation: the URL is the source
        "",  # no note
    )
    assert result.exit_code == 0, result.output
    said = result.output
    assert (
        "MLPerf Training v1.1 is an official round, closed to pull requests: only `leaderboard import-mlperf` "
        "writes its results (hint: a result you measured yourself, or read in a paper, is self-reported: choose "
        "round published"
    ) in said
    assert "unknown accelerator 'H100' (did you mean 'h100-nvl' or 'h100-pcie' or 'h100-sxm5-80gb'?)" in said
    assert "v100" not in said and "p100" not in said
    assert "a chip count must be a whole number, not 8.5" in said
    assert "'example.com/acme' is not an http(s) URL" in said
    assert not (empty_project / "submissions/mlperf-training-v1.1").exists()
    data = yaml.safe_load((empty_project / "submissions/published/acme-labs/acme-lm.yaml").read_text())
    assert data["date"] == "2023-01-02" and data["division"] == "open"
    assert data["result"] == {"minutes": 31, "runs_minutes": [30, 31, 32]}  # a published run's mean: none dropped


PUBLISHED_ANSWERS = ("published", "language", "", "Acme Labs", "box3", "h100-sxm5-80gb", "", "8", "2024-06-01")


@pytest.mark.parametrize(
    "flags, typed, refusals",
    [
        ((), ("10,null,12",), 1),
        ((), ("null",), 1),
        ((), ("10, failed, 12", "10,12,null"), 2),  # asked again after each
        (("--runs-minutes", "10,null,12"), (), 1),  # the flag is checked as an answer, then asked
    ],
)
def test_a_failed_run_of_a_published_run_is_refused_at_once_and_asked_again(empty_project, flags, typed, refusals):
    """A published run drops no run: a failed one is refused as it is typed, with why, and the
    question asked again; the prompt offers no null for it."""
    result = new(
        empty_project,
        *PUBLISHED_ANSWERS,
        *typed,
        "10, 12",
        "QLM",
        "",  # parameters unknown
        "https://example.com/y",
        "",  # no citation: the URL is the source
        "",  # no note
        flags=flags,
    )
    assert result.exit_code == 0, result.output
    said = result.output
    refused = (
        "a failed run (null) cannot be listed in Published training runs: the minutes are the mean of every run, "
        "none dropped (hint: give the minutes of each run that reached the target)"
    )
    assert said.count(refused) == refusals
    assert said.count("Minutes of every run, comma-separated (blank: only the final time): ") == len(typed) + 1
    assert "null for a failed run" not in said and "None" not in said
    data = yaml.safe_load((empty_project / "submissions/published/acme-labs/qlm.yaml").read_text())
    assert data["result"] == {"minutes": 11, "runs_minutes": [10, 12]}


def test_flags_are_checked_like_answers_and_asked_again_when_refused(empty_project):
    result = new(
        empty_project,
        "h100-sxm5-80gb",  # the refused flag, asked again
        "2023-01-02",  # the H100 came out after the date given: the date is refused, and asked again
        "",  # runs
        "",  # no citation: the URL is the source
        flags=(
            *("--round", "published", "--benchmark", "language", "--model", "Acme-LM", "--date", "2021-12-01"),
            *("--availability", "available", "--submitter", "Acme Labs", "--system", "acme-8"),
            *("--accelerator", "a100-sxm4-80gbx", "--unit", "chip", "--count", "8", "--minutes", "30"),
            *("--parameters", "7e9", "--source-url", "https://example.com/acme", "--note", "n"),
        ),
    )
    assert "unknown accelerator 'a100-sxm4-80gbx' (did you mean 'a100-sxm4-80gb'" in result.output
    assert "is before the H100 SXM5 80GB was released (2022-09-20)" in result.output
    assert result.exit_code == 0, result.output
    data = yaml.safe_load((empty_project / "submissions/published/acme-labs/acme-lm.yaml").read_text())
    assert data["date"] == "2023-01-02" and data["system"]["accelerator"] == "h100-sxm5-80gb"


def test_no_input_needs_the_target_of_an_open_entry_where_the_round_sets_none(empty_project):
    flags = [
        *("--round", "mlperf-training-v1.1", "--benchmark", "resnet", "--division", "open", "--no-input"),
        *("--submitter", "Acme", "--system", "s", "--accelerator", "a100-sxm4-40gb", "--count", "8"),
        *("--minutes", "30", "--quality", "0.76", "--source-url", "https://example.com/a"),
    ]
    result = CliRunner().invoke(main, ["new", "--catalog", str(ROOT / "catalog"), *flags])
    assert result.exit_code == 2 and "required with --no-input: --quality-target" in result.output


CATALOG = load_catalog(ROOT / "catalog")


@pytest.mark.parametrize(
    "division, round_id, target",
    [
        ("closed", "mlperf-training-v0.7", 0.759),
        ("open", "mlperf-training-v0.7", 0.759),
        ("open", "mlperf-training-v1.1", None),
    ],
)
def test_submission_data_takes_the_division_s_target(division, round_id, target):
    answers = Answers(round_id, "resnet", division, "Acme", "s", "a100-sxm4-40gb", 8, 30.0, quality=0.76)
    assert submission_data(answers, CATALOG)["result"].get("quality_target") == target


@pytest.mark.parametrize(
    "typed, first",
    [
        ("H100", ["h100-nvl", "h100-pcie", "h100-sxm5-80gb"]),  # contains it, before v100 (more letters alike)
        ("gaudy", ["gaudi", "gaudi2"]),
        ("tpu v3", ["tpu-v3"]),
        ("NVIDIA A100-SXM4-80GB", ["a100-sxm4-80gb"]),  # an alias
        ("xyzzy", []),
    ],
)
def test_suggestions_rank_by_similarity(typed, first):
    names = {a.id: [a.name, *a.aliases] for a in CATALOG.accelerators.values()}
    assert closest(typed, names)[: len(first)] == first


def test_id_problem_lists_the_closest_first():
    assert id_problem("accelerator", "gaudi", CATALOG.accelerators) is None
    assert id_problem("round", "nonsense", {"a": 1}) == "unknown round 'nonsense' (known: a)"


def test_validate_suggests_the_same_accelerators(empty_project):
    """A file typed by hand gets the suggestions `new` gives: 'H100' -> the H100s."""
    bert = (ROOT / "submissions/published/google/bert-large.yaml").read_text()
    folder = empty_project / "submissions/published/google"
    folder.mkdir(parents=True)
    (folder / "bert-large.yaml").write_text(bert.replace("accelerator: tpu-v3", "accelerator: H100"))
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert (
        "$.system.accelerator: unknown accelerator 'H100' "
        "(hint: did you mean 'h100-nvl' or 'h100-pcie' or 'h100-sxm5-80gb'? Else a part the catalog lacks is "
        "added to catalog/accelerators.yaml in the same pull request (CONTRIBUTING.md))" in result.out
    )
