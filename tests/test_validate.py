"""`leaderboard validate` on broken copies of real submissions: every check, its message,
its line and column, its JSON path and hint, and the exit code."""

import datetime as dt
import json
import os
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, run_cli
from test_files import alias_bomb

from leaderboard.validate import validate_paths

MLPERF = """\
schema_version: 1
round: mlperf-training-v1.1
benchmark: resnet
division: closed
availability: available
submitter: Acme Labs
date: "2021-12-01"
system:
  name: acme-64
  accelerator: a100-sxm4-80gb
  count: 64
  unit: chip
result:
  minutes: 4.5
  quality: 0.7601
  quality_target: 0.759
source:
  url: https://example.com/acme/resnet
"""

PUBLISHED = """\
schema_version: 1
round: published
benchmark: language
division: open
availability: available
submitter: Acme Labs
date: "2019-01-01"
system:
  name: 16 Cloud TPU v3
  accelerator: tpu-v3
  count: 16
  unit: device
model:
  name: Acme-LM
result:
  minutes: 5760
source:
  citation: Acme Labs, "Training Acme-LM", 2019.
"""


def place(project: Path, text: str, round_="mlperf-training-v1.1", folder="acme-labs", name="entry.yaml") -> Path:
    path = project / "submissions" / round_ / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_the_shipped_submissions_and_catalog_are_valid():
    root = Path(__file__).resolve().parent.parent
    result = run_cli("validate", cwd=root)
    assert result.code == 0, result.out + result.err
    assert "all valid" in result.err


def test_valid_examples_pass(empty_project):
    place(empty_project, MLPERF)
    place(empty_project, PUBLISHED, round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 0, result.out
    assert result.out == ""


CASES = [
    # (name, base, old, new, where "line:col", json path, message part, hint part)
    (
        "unknown round",
        MLPERF,
        "round: mlperf-training-v1.1",
        "round: mlperf-training-v1.2",
        "2:8",
        "$.round",
        "unknown round 'mlperf-training-v1.2'",
        "did you mean 'mlperf-training-v1.1'",
    ),
    (
        "unknown benchmark",
        MLPERF,
        "benchmark: resnet",
        "benchmark: resnet50",
        "3:12",
        "$.benchmark",
        "unknown benchmark 'resnet50'",
        "did you mean 'resnet'",
    ),
    (
        "a benchmark the round did not run",
        MLPERF,
        "benchmark: resnet",
        "benchmark: llama2_70b_lora",
        "3:12",
        "$.benchmark",
        "benchmark 'llama2_70b_lora' is not part of round 'mlperf-training-v1.1'",
        "(hint: MLPerf Training v1.1 ran bert, dlrm, maskrcnn, minigo, resnet, rnnt, ssd, unet3d)",
    ),
    (
        "unknown accelerator",
        MLPERF,
        "accelerator: a100-sxm4-80gb",
        "accelerator: a100-sxm4-80",
        "10:16",
        "$.system.accelerator",
        "unknown accelerator",
        "did you mean 'a100-sxm4-80gb'",
    ),
    (
        "accelerator named by alias",
        MLPERF,
        "accelerator: a100-sxm4-80gb",
        "accelerator: NVIDIA A100-SXM4-80GB (400W)",
        "10:16",
        "$.system.accelerator",
        "unknown accelerator",
        "did you mean 'a100-sxm4-80gb'",
    ),
    (
        "unknown field",
        MLPERF,
        "  unit: chip\n",
        "  unit: chip\n  colour: green\n",
        "13:3",
        "$.system.colour",
        "unknown field 'colour'",
        None,
    ),
    (
        "misspelt field",
        MLPERF,
        "  minutes: 4.5",
        "  minuts: 4.5",
        "14:3",
        "$.result.minuts",
        "unknown field 'minuts'",
        "did you mean 'minutes'",
    ),
    (
        "missing field",
        MLPERF,
        "availability: available\n",
        "",
        "1:1",
        "$",
        "missing required field 'availability'",
        None,
    ),
    (
        "bad enum",
        MLPERF,
        "division: closed",
        "division: closd",
        "4:11",
        "$.division",
        "'closd' is not one of",
        "did you mean 'closed'",
    ),
    (
        "closed target differs",
        MLPERF,
        "quality_target: 0.759",
        "quality_target: 0.75",
        "16:19",
        "$.result.quality_target",
        "closed division target for ResNet-50",
        "use division: open",
    ),
    (
        "quality misses target",
        MLPERF,
        "quality: 0.7601",
        "quality: 0.7501",
        "15:12",
        "$.result.quality",
        "quality 0.7501 misses the target 0.759",
        None,
    ),
    (
        "quality missing in MLPerf",
        MLPERF,
        "  quality: 0.7601\n",
        "",
        "14:3",
        "$.result",
        "missing required field 'quality'",
        None,
    ),
    (
        "runs wrong count",
        MLPERF,
        "  minutes: 4.5\n",
        "  minutes: 4.5\n  runs_minutes: [4.4, 4.5, 4.6]\n",
        "15:17",
        "$.result.runs_minutes",
        "3 runs given; MLPerf Training v1.1 ResNet-50 needs 5",
        None,
    ),
    (
        "runs_quality not one per run",
        MLPERF,
        "  minutes: 4.5\n",
        "  minutes: 4.5\n  runs_minutes: [4.4, 4.5, 4.6, 4.7, 4.5]\n  runs_quality: [0.76, 0.77]\n",
        "16:17",
        "$.result.runs_quality",
        "2 values for 5 runs",
        "one value per run",
    ),
    (
        "run_logs without runs",
        MLPERF,
        "source:",
        "provenance:\n  method: self-reported\n  run_logs: [result_0.txt]\nsource:",
        "19:13",
        "$.provenance.run_logs",
        "run_logs is given without result.runs_minutes",
        "list every run's minutes",
    ),
    (
        "minutes not the olympic mean",
        MLPERF,
        "  minutes: 4.5\n",
        "  minutes: 4.5\n  runs_minutes: [4.4, 4.5, 4.6, 4.7, 9]\n",
        "14:12",
        "$.result.minutes",
        "is not the olympic mean of runs_minutes (4.6000)",
        "drop the 1 fastest",
    ),
    (
        # 0.7601 is the worst of all runs, the dropped fastest one's; the counted runs' worst is 0.7602.
        "quality not the worst counted run's",
        MLPERF,
        "  minutes: 4.5\n",
        "  minutes: 4.5\n  runs_minutes: [4.4, 4.5, 4.6, 4.7, 4.3]\n  runs_quality: [0.7603, 0.7602, 0.7604, 0.7605, 0.7601]\n",
        "17:12",
        "$.result.quality",
        "quality 0.7601 is not the worst quality of the counted runs (0.7602)",
        "neither the dropped fastest and slowest nor the failed",
    ),
    (
        "minutes not positive",
        MLPERF,
        "minutes: 4.5",
        "minutes: 0",
        "14:12",
        "$.result.minutes",
        "must be greater than 0",
        None,
    ),
    (
        "minutes not finite",
        MLPERF,
        "minutes: 4.5",
        "minutes: .inf",
        "14:12",
        "$.result.minutes",
        "must be a finite number of magnitude at most 1e18, not inf",
        None,
    ),
    (
        "count absurdly large",
        MLPERF,
        "count: 64",
        "count: 1" + "0" * 30,
        "11:10",
        "$.system.count",
        "must be a finite number of magnitude at most 1e18, not a 31-digit number",
        None,
    ),
    (
        "count quoted",
        MLPERF,
        "count: 64",
        'count: "64"',
        "11:10",
        "$.system.count",
        "must be a number, not string",
        "without quotes",
    ),
    ("count negative", MLPERF, "count: 64", "count: -8", "11:10", "$.system.count", "must be greater than 0", None),
    (
        "count fractional chips",
        MLPERF,
        "count: 64",
        "count: 64.5",
        "11:10",
        "$.system.count",
        "a chip count must be a whole number",
        None,
    ),
    ("cores of a GPU", MLPERF, "unit: chip", "unit: core", "12:9", "$.system.unit", "is not counted in cores", None),
    (
        "not a real date",
        MLPERF,
        'date: "2021-12-01"',
        'date: "2021-02-30"',
        "7:7",
        "$.date",
        "is not a real date",
        None,
    ),
    (
        "date unquoted but malformed",
        MLPERF,
        'date: "2021-12-01"',
        "date: 1 December 2021",
        "7:7",
        "$.date",
        "is not a date in the form YYYY-MM-DD",
        'write year, month and day, with their zeros: "2021-12-01"',
    ),
    (
        "date quoted, month first",
        MLPERF,
        'date: "2021-12-01"',
        'date: "12/01/2021"',
        "7:7",
        "$.date",
        "is not a date in the form YYYY-MM-DD",
        'write year, month and day, with their zeros: "2021-12-01"',
    ),
    (
        "MLPerf date not the round's",
        MLPERF,
        'date: "2021-12-01"',
        'date: "2021-11-30"',
        "7:7",
        "$.date",
        "date 2021-11-30 is not the day MLPerf Training v1.1 was published (2021-12-01)",
        'an MLPerf result is dated by its round: date: "2021-12-01"',
    ),
    (
        "date before the accelerator's release",
        MLPERF,
        "accelerator: a100-sxm4-80gb",
        "accelerator: h100-sxm5-80gb",
        "7:7",
        "$.date",
        "date 2021-12-01 is before the H100 SXM5 80GB was released (2022-09-20)",
        "a system not yet released is availability: preview or research",
    ),
    (
        "date in the future",
        MLPERF,
        'date: "2021-12-01"',
        'date: "2999-01-01"',
        "7:7",
        "$.date",
        "lies in the future",
        None,
    ),
    (
        "source not http",
        MLPERF,
        "url: https://example.com/acme/resnet",
        "url: ftp://example.com/x",
        "18:8",
        "$.source.url",
        "is not an http(s) URL",
        None,
    ),
    (
        "source with a space",
        MLPERF,
        "url: https://example.com/acme/resnet",
        'url: "https://exa mple.com/a%20b"',
        "18:8",
        "$.source.url",
        "'https://exa mple.com/a%20b' has a space in its host name, which no address has",
        None,
    ),
    (
        "source empty",
        MLPERF,
        "  url: https://example.com/acme/resnet\n",
        "  note: x\n",
        "18:3",
        "$.source",
        "needs 'url' or 'citation'",
        None,
    ),
    (
        "benchmark of another round",
        MLPERF,
        "benchmark: resnet",
        "benchmark: language",
        "3:12",
        "$.benchmark",
        "benchmark 'language' is not part of round 'mlperf-training-v1.1'",
        None,
    ),
    (
        "schema version",
        MLPERF,
        "schema_version: 1",
        "schema_version: 2",
        "1:17",
        "$.schema_version",
        "must be 1, not 2",
        None,
    ),
    (
        "duplicate key",
        MLPERF,
        "division: closed\n",
        "division: closed\ndivision: open\n",
        "5:1",
        "$",
        "duplicate key 'division' (first at line 4)",
        None,
    ),
    (
        "does not parse",
        MLPERF,
        "  count: 64\n",
        "  count: [64\n",
        "12:7",
        "$",
        "YAML does not parse: did not find expected ',' or ']' (while parsing a flow sequence that starts at line 11",
        None,
    ),
    (
        # YAML reads on to the next quote (the date's, a line below) and stops there
        "quote left open",
        MLPERF,
        "submitter: Acme Labs",
        'submitter: "Acme Labs',
        "6:12",
        "$",
        "YAML does not parse: the quoted value that opens here runs on to line 7, where YAML stops "
        "(did not find expected key): is its closing quote missing?",
        "close the quote on this line",
    ),
    (
        "quote never closed",
        MLPERF,
        "  name: acme-64",
        "  name: 'acme-64",
        "9:9",
        "$",
        "YAML does not parse: the quoted value that opens here is never closed (the file ends inside it)",
        "close the quote on this line; inside single quotes write a ' as ''",
    ),
    ("not a mapping", MLPERF, MLPERF, "- a\n- b\n", "1:1", "$", "a submission must be a mapping", None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_each_check_reports_where_and_why(empty_project, case):
    _, base, old, new, where, path, message, hint = case
    file = place(empty_project, edit(base, old, new))
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1, result.out
    rel = os.path.join("submissions", "mlperf-training-v1.1", "acme-labs", "entry.yaml")
    prefix = f"{rel}:{where}: {path}: "
    lines = [line for line in result.out.splitlines() if line.startswith(prefix) and message in line]
    assert lines, f"expected {prefix}...{message} in:\n{result.out}"
    if hint:
        assert hint in lines[0]
    assert "Traceback" not in result.out + result.err
    assert file.exists()


def test_a_published_run_has_no_divisions(empty_project):
    place(empty_project, edit(PUBLISHED, "division: open", "division: closed"), round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    rel = os.path.join("submissions", "published", "acme-labs", "entry.yaml")
    assert (
        f"{rel}:4:11: $.division: results of Published training runs have no divisions (hint: write division: open)"
        in result.out
    )


def test_a_misspelt_field_hides_no_other_problem(empty_project):
    """A misspelt field name is all the schema finds: the domain rules check the rest in the same
    pass. Any other schema problem still stops them (they need the file's shape)."""
    text = edit(edit(PUBLISHED, '"2019-01-01"', '"2099-01-01"'), "  unit: device\n", "  unit: device\n  frmework: x\n")
    place(empty_project, edit(text, "source:\n", "source:\n  url: ftp://example.com/paper\n"), round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1 and "3 problems in 1 file" in result.err, result.out + result.err
    rel = os.path.join("submissions", "published", "acme-labs", "entry.yaml")
    assert f"{rel}:7:7: $.date: date 2099-01-01 lies in the future" in result.out
    assert f"{rel}:13:3: $.system.frmework: unknown field 'frmework' (hint: did you mean 'framework'?)" in result.out
    assert f"{rel}:19:8: $.source.url: 'ftp://example.com/paper' is not an http(s) URL" in result.out
    place(empty_project, edit(text, "  count: 16", "  count: -16"), round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert "2 problems in 1 file" in result.err and "lies in the future" not in result.out, result.out + result.err
    # A required field misspelt (minuts): read as the field it misses for the checks, so the date
    # in the future shows in the same pass; a missing field with nothing spelt like it still stops them.
    place(empty_project, edit(text, "  minutes: 5760", "  minuts: 5760"), round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert "lies in the future" in result.out and "missing required field 'minutes'" in result.out, result.out
    assert "unknown field 'minuts' (hint: did you mean 'minutes'" in result.out
    place(empty_project, edit(text, "  minutes: 5760", "  hours: 96"), round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert "missing required field 'minutes'" in result.out and "lies in the future" not in result.out
    # An unknown field holding a number beyond any bound is left out with its number (found by fuzzing).
    place(empty_project, edit(PUBLISHED, "  unit: device\n", "  unit: device\n  '': 1000000000000000000001\n"))
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1 and "$.system.: unknown field ''" in result.out and "Traceback" not in result.err, (
        result.out + result.err
    )


def test_a_published_run_names_its_model(empty_project):
    place(empty_project, PUBLISHED.replace("model:\n  name: Acme-LM\n", ""), round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    rel = os.path.join("submissions", "published", "acme-labs", "entry.yaml")
    assert f"{rel}:1:1: $: a published run names the model it trained (model.name)" in result.out


BOUNDS = [
    # (name, edits, where, message): the bounds no real result crosses (leaderboard/bounds.py)
    (
        "a date before 2000",
        [('date: "2021-12-01"', 'date: "0001-01-01"')],
        "7:7",
        "date 0001-01-01 is before 2000-01-01, earlier than any training result the leaderboard holds",
    ),
    (
        "a research system years before its part",
        [("accelerator: a100-sxm4-80gb", "accelerator: b300"), ("availability: available", "availability: research")],
        "7:7",
        "date 2021-12-01 is more than 2 years before the B300 (Blackwell Ultra) SXM was released (2025-08-15), "
        "even for a preview or research system",
    ),
    (
        "a trillion chips",
        [("count: 64", "count: 1000000000000")],
        "11:10",
        "1,000,000,000,000 chips is more than 1,000,000, ten times the largest machine the leaderboard holds",
    ),
    (
        "a million devices of 4 chips",
        [
            ("accelerator: a100-sxm4-80gb", "accelerator: tpu-v3"),
            ("count: 64", "count: 250001"),
            ("unit: chip", "unit: device"),
        ],
        "11:10",
        "1,000,004 chips is more than 1,000,000",
    ),
    (
        "a time too short to be real",
        [("minutes: 4.5", "minutes: 1.0e-300")],
        "14:12",
        "1e-300 minutes is less than a second, faster than any training run to a quality target",
    ),
    (
        "a YAML-tagged time too short to be real",
        [("minutes: 4.5", "minutes: !!float 0.01")],
        "14:12",
        "0.01 minutes is less than a second",
    ),
]


@pytest.mark.parametrize("name, edits, where, message", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_bounds_no_real_result_crosses(empty_project, name, edits, where, message):
    text = MLPERF
    for old, new in edits:
        text = edit(text, old, new)
    place(empty_project, text)
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1, result.out
    assert f"entry.yaml:{where}: " in result.out and message in result.out, result.out


def test_a_research_system_within_two_years_of_its_part_and_a_million_chips_pass(empty_project):
    early = edit(MLPERF, "accelerator: a100-sxm4-80gb", "accelerator: h100-sxm5-80gb")  # 2022-09-20
    place(
        empty_project,
        edit(edit(early, "availability: available", "availability: research"), "count: 64", "count: 1000000"),
    )
    assert run_cli("validate", cwd=empty_project).code == 0


def test_published_runs_need_no_quality(empty_project):
    place(empty_project, PUBLISHED, round_="published")
    assert run_cli("validate", cwd=empty_project).code == 0


@pytest.mark.parametrize(
    "quality, expected",
    [
        # Published runs share no metric: a quality and a target need the direction the run states...
        ("  quality: 2.9\n  quality_target: 3.0\n", "$.result: missing required field 'quality_direction'"),
        # ...and then the quality must reach the target in it.
        ("  quality: 2.9\n  quality_target: 3.0\n  quality_direction: lower\n", None),
        (
            "  quality: 3.1\n  quality_target: 3.0\n  quality_direction: lower\n",
            "$.result.quality: quality 3.1 misses the target 3.0 (lower is better: at most the target)",
        ),
        (
            "  quality: 0.71\n  quality_target: 0.72\n  quality_direction: higher\n",
            "$.result.quality: quality 0.71 misses the target 0.72 (higher is better: at least the target)",
        ),
        ("  quality: 0.72\n  quality_target: 0.72\n  quality_direction: higher\n", None),
        # A quality alone, or a direction alone, says nothing to check.
        ("  quality: 0.71\n", None),
        ("  quality_direction: sideways\n", "$.result.quality_direction: 'sideways' is not one of"),
    ],
)
def test_a_published_run_reaches_its_own_target_in_the_direction_it_states(empty_project, quality, expected):
    place(empty_project, PUBLISHED.replace("  minutes: 5760\n", "  minutes: 5760\n" + quality), round_="published")
    result = run_cli("validate", cwd=empty_project)
    if expected is None:
        assert result.code == 0, result.out
    else:
        assert result.code == 1 and expected in result.out, result.out


def test_a_stated_direction_must_agree_with_the_catalogs(empty_project):
    place(empty_project, MLPERF.replace("  quality: 0.7601\n", "  quality: 0.7601\n  quality_direction: lower\n"))
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "$.result.quality_direction: ResNet-50's top-1 accuracy is better when higher, not lower" in result.out, (
        result.out
    )
    place(empty_project, MLPERF.replace("  quality: 0.7601\n", "  quality: 0.7601\n  quality_direction: higher\n"))
    assert run_cli("validate", cwd=empty_project).code == 0


def test_a_system_not_yet_released_is_a_preview_or_research(empty_project):
    early = edit(MLPERF, "accelerator: a100-sxm4-80gb", "accelerator: h100-sxm5-80gb")
    place(empty_project, edit(early, "availability: available", "availability: research"))
    assert run_cli("validate", cwd=empty_project).code == 0
    place(empty_project, edit(early, "availability: available", "availability: preview"))
    assert run_cli("validate", cwd=empty_project).code == 0
    place(empty_project, PUBLISHED.replace('date: "2019-01-01"', 'date: "2018-05-17"'), round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "$.date: date 2018-05-17 is before the TPU v3 was released (2018-05-18)" in result.out


def test_lower_is_better_metric(empty_project):
    rnnt = MLPERF.replace("benchmark: resnet", "benchmark: rnnt").replace("quality: 0.7601", "quality: 0.061")
    rnnt = rnnt.replace("quality_target: 0.759", "quality_target: 0.058")
    place(empty_project, rnnt)
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1 and "quality 0.061 misses the target 0.058" in result.out
    place(empty_project, rnnt.replace("quality: 0.061", "quality: 0.0575"))
    assert run_cli("validate", cwd=empty_project).code == 0


def test_runs_with_a_failed_run_must_average_to_minutes(empty_project):
    place(
        empty_project,
        MLPERF.replace("  minutes: 4.5\n", "  minutes: 4.5\n  runs_minutes: [4.4, 4.5, null, 4.6, 4.3]\n"),
    )
    assert run_cli("validate", cwd=empty_project).code == 0


def test_duplicate_entries_name_both_files(empty_project):
    place(empty_project, MLPERF, name="one.yaml")
    place(empty_project, MLPERF.replace("acme-64", "ACME-64 "), name="two.yaml")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    folder = "submissions/mlperf-training-v1.1/acme-labs"
    same = "duplicate entry: same round, submitter, system, benchmark, division and model as"
    assert f"{folder}/one.yaml:1:1: $: {same} {folder}/two.yaml" in result.out
    assert f"{folder}/two.yaml:1:1: $: {same} {folder}/one.yaml" in result.out
    assert result.out.count("duplicate entry") == 2


def test_a_copy_in_the_wrong_folder_says_it_is_a_copy_at_once(empty_project):
    """Another submitter's file copied into one's own folder: both its place and the result it
    copies are said in one pass (the copy was compared only once it was moved)."""
    place(empty_project, PUBLISHED, round_="published")
    place(empty_project, PUBLISHED, round_="published", folder="acme-cloud", name="mine.yaml")
    result = run_cli("validate", "submissions/published/acme-cloud/mine.yaml", cwd=empty_project)
    assert result.code == 1, result.out + result.err
    mine = "submissions/published/acme-cloud/mine.yaml:1:1: $: "
    assert f"{mine}file is at published/acme-cloud/mine.yaml but its content says" in result.out
    assert f"{mine}duplicate entry: same round, submitter, system, benchmark, division and model as " in result.out
    assert "submissions/published/acme-labs/entry.yaml:1:1" not in result.out  # the original is not to blame
    assert result.err == "1 file checked: 2 problems in 1 file\n"


@pytest.mark.parametrize("named", ["two.yaml", "one.yaml"])
def test_one_file_named_is_checked_against_every_other_entry(empty_project, named):
    """validate FILE (as the pre-commit hook runs it on the changed files) finds the same entry
    under another name, wherever it is in submissions/."""
    place(empty_project, MLPERF, name="one.yaml")
    place(empty_project, MLPERF.replace("acme-64", "ACME-64 "), name="two.yaml")
    place(empty_project, PUBLISHED, round_="published")
    result = run_cli("validate", "--quiet", f"submissions/mlperf-training-v1.1/acme-labs/{named}", cwd=empty_project)
    assert result.code == 1, result.out + result.err
    assert result.out.count("duplicate entry: same round, submitter") == 2
    assert result.err == "1 file checked: 2 problems in 2 files\n"
    alone = run_cli("validate", "submissions/published/acme-labs/entry.yaml", cwd=empty_project)
    assert alone.code == 0 and alone.err == "1 file checked: all valid\n"


def test_the_same_published_run_twice_is_a_duplicate_unless_the_notes_tell_them_apart(empty_project):
    paper = PUBLISHED.replace(
        '  citation: Acme Labs, "Training Acme-LM", 2019.\n', "  url: http://arxiv.org/pdf/1901.00001v2\n"
    )
    other_system = paper.replace("16 Cloud TPU v3", "128 TPU v3 chips").replace("count: 16", "count: 128")
    other_system = other_system.replace("unit: device", "unit: chip").replace(
        "url: http://arxiv.org/pdf/1901.00001v2", "url: https://arxiv.org/abs/1901.00001"
    )
    place(empty_project, paper, round_="published", name="acme-lm.yaml")
    place(empty_project, other_system, round_="published", name="acme-lm-2.yaml")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    folder = "submissions/published/acme-labs"
    same = "duplicate entry: a published run from the same paper (source.url) with the same model as"
    assert f"{folder}/acme-lm-2.yaml:1:1: $: {same} {folder}/acme-lm.yaml (hint: if it is another run" in result.out
    assert f"{folder}/acme-lm.yaml:1:1: $: {same} {folder}/acme-lm-2.yaml" in result.out
    # one note is not enough: the first file does not say it is another run
    noted = other_system + "  note: Section 5, the same model trained again on 128 chips.\n"
    place(empty_project, noted, round_="published", name="acme-lm-2.yaml")
    assert run_cli("validate", cwd=empty_project).code == 1
    place(empty_project, paper + "  note: Section 4, the first run.\n", round_="published", name="acme-lm.yaml")
    assert run_cli("validate", cwd=empty_project).code == 0
    # another model from the same paper is another entry
    place(empty_project, paper.replace("Acme-LM", "Acme-LM small"), round_="published", name="acme-lm-small.yaml")
    assert run_cli("validate", cwd=empty_project).code == 0
    # notes cannot make two runs of one measurement: a copy under another system name, its link
    # written another way (?tab=, a fragment), with a note of its own
    copy = paper.replace("16 Cloud TPU v3", "A pod of TPUs").replace(
        "url: http://arxiv.org/pdf/1901.00001v2", "url: https://arxiv.org/abs/1901.00001?tab=readme#results"
    )
    place(empty_project, copy + "  note: from the model card\n", round_="published", name="acme-lm-copy.yaml")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    # the same 16 TPU v3 devices counted as their 64 chips are the same measurement too
    as_chips = copy.replace("count: 16", "count: 64").replace("unit: device", "unit: chip")
    place(empty_project, as_chips + "  note: from the model card\n", round_="published", name="acme-lm-chips.yaml")
    chips_result = run_cli("validate", cwd=empty_project)
    assert (
        "acme-lm-chips.yaml:1:1: $: duplicate entry:" in chips_result.out
        and "same part, chip count" in chips_result.out
    )
    (empty_project / "submissions/published/acme-labs/acme-lm-chips.yaml").unlink()
    assert (
        f"{folder}/acme-lm-copy.yaml:1:1: $: {same[:-3]}, on the same part, chip count and minutes as "
        f"{folder}/acme-lm.yaml (hint: the two measured the same, so they are one run whatever their notes say: "
        "keep one file)"
    ) in result.out, result.out


@pytest.mark.parametrize("written", ["Acme LM", "acme_lm", "ACME-LM", "Acme - LM"])
def test_a_model_name_written_another_way_is_the_same_model(empty_project, written):
    paper = PUBLISHED.replace(
        '  citation: Acme Labs, "Training Acme-LM", 2019.\n', "  url: https://arxiv.org/abs/1901.00001\n"
    )
    place(empty_project, paper, round_="published", name="acme-lm.yaml")
    place(empty_project, paper.replace("name: Acme-LM", f"name: {written}"), round_="published", name="again.yaml")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1 and "again.yaml:1:1: $: duplicate entry:" in result.out, result.out


def test_the_shipped_published_runs_have_no_duplicates_from_one_paper():
    from leaderboard.tree import paper_and_model

    result = validate_paths([ROOT / "submissions" / "published"], ROOT / "catalog")
    keys = [paper_and_model(e.data, result.catalog) for e in result.entries]
    keys = [k for k in keys if k is not None]
    assert len(keys) > 200 and result.ok
    assert not result.duplicates


def test_a_file_that_is_not_yaml_or_json_is_named_as_ignored(empty_project):
    (empty_project / "x.txt").write_text(MLPERF)
    result = run_cli("validate", "x.txt", cwd=empty_project)
    assert result.code == 1  # nothing was checked
    assert result.err == "ignored x.txt: not .yaml, .yml or .json\nno file checked: every file named was ignored\n"
    place(empty_project, MLPERF)
    both = run_cli("validate", "x.txt", "submissions/mlperf-training-v1.1/acme-labs/entry.yaml", cwd=empty_project)
    assert both.code == 0, both.err
    # (Between the two lines: check-pr refuses the file, a hand-written file in an official round.)
    assert both.err.startswith("ignored x.txt: not .yaml, .yml or .json\ncheck-pr refuses submissions/")
    assert both.err.endswith("\n1 file checked: all valid\n")
    report = json.loads(run_cli("validate", "--format", "json", "x.txt", cwd=empty_project).out)
    assert report["valid"] is False and report["ignored"] == [{"file": "x.txt", "reason": "not .yaml, .yml or .json"}]


def test_a_file_in_submissions_that_is_not_an_entry_is_a_problem(empty_project):
    path = place(empty_project, MLPERF, name="entry.txt")
    result = run_cli("validate", str(path), cwd=empty_project)
    assert result.code == 1
    assert (
        "submissions/mlperf-training-v1.1/acme-labs/entry.txt:1:1: $: not a submission file: submissions/ holds "
        "only entries, as .yaml, .yml or .json files"
    ) in result.out
    # met in a folder, it is named as not read (a .swp or a backup file must not stop a build)
    everything = run_cli("validate", cwd=empty_project)
    assert everything.code == 0
    assert "ignored submissions/mlperf-training-v1.1/acme-labs/entry.txt: not .yaml, .yml or .json" in everything.err


def test_paths_are_shown_from_the_project_folder_with_their_round(empty_project, tmp_path_factory):
    folder = place(empty_project, edit(MLPERF, "count: 64", "count: -1")).parent
    where = "submissions/mlperf-training-v1.1/acme-labs/entry.yaml:11:10: $.system.count: must be greater than 0"
    inside = run_cli("validate", "entry.yaml", cwd=folder)  # the catalog is found in a folder above
    assert inside.code == 1 and where in inside.out.splitlines()
    absolute = run_cli("validate", str(folder / "entry.yaml"), cwd=tmp_path_factory.mktemp("elsewhere"))
    assert absolute.code == 1 and "catalog file rounds.yaml is missing" in absolute.out
    given = run_cli("validate", "--catalog", empty_project / "catalog", folder / "entry.yaml", cwd=folder.parent)
    assert given.code == 1 and where in given.out.splitlines()


def test_a_file_outside_submissions_is_not_in_its_place(empty_project):
    draft = empty_project / "drafts" / "mlperf-training-v1.1" / "acme-labs" / "entry.yaml"
    draft.parent.mkdir(parents=True)
    draft.write_text(MLPERF)
    result = run_cli("validate", "drafts/mlperf-training-v1.1/acme-labs/entry.yaml", cwd=empty_project)
    assert result.code == 1
    assert (
        "drafts/mlperf-training-v1.1/acme-labs/entry.yaml:1:1: $: file is outside submissions/ but its content "
        "says mlperf-training-v1.1/acme-labs/entry.yaml (hint: move it to submissions/mlperf-training-v1.1/"
        "acme-labs/entry.yaml)"
    ) in result.out


def test_location_must_agree_with_content(empty_project):
    place(empty_project, MLPERF, folder="acme")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "file is at mlperf-training-v1.1/acme/entry.yaml but its content says" in result.out
    assert "mlperf-training-v1.1/acme-labs/entry.yaml" in result.out
    assert "move it to submissions/mlperf-training-v1.1/acme-labs/entry.yaml" in result.out


def test_json_submission_with_positions(empty_project):
    data = yaml.safe_load(MLPERF)
    data["date"] = "2021-12-01"
    data["system"]["count"] = -1
    place(empty_project, json.dumps(data, indent=2), name="entry.json")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "entry.json:12:14: $.system.count: must be greater than 0" in result.out


@pytest.mark.parametrize(
    "content, message",
    [(b"", "file is empty"), (b"name: Montr\xe9al\n", "file is not UTF-8"), (b"x" * (1024 * 1024 + 1), "1 MiB")],
)
def test_bad_files_exit_1_with_message(empty_project, content, message):
    path = empty_project / "submissions" / "mlperf-training-v1.1" / "acme-labs" / "entry.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1 and message in result.out


WHOLE_FILE_CASES = [
    # (name, file name, content, "line:col", message start): a problem of the whole file is at
    # the node where a limit was crossed, else at 1:1, so an annotation lands on a line
    ("alias bomb", "entry.yaml", alias_bomb(), "6:8", "document holds more than 100,000 values"),
    ("huge document", "entry.yaml", "- 1\n" * 100_001, "100000:3", "document holds more than 100,000 values"),
    ("list at the top level", "entry.yaml", "# one result\n- a\n- b\n", "2:1", "a submission must be a mapping"),
    ("number at the top level", "entry.json", "\n  42\n", "2:3", "a submission must be a mapping"),
    ("invalid UTF-8", "entry.yaml", b"# one result\nsubmitter: Acme Lab\xe9\n", "2:20", "file is not UTF-8"),
    ("two documents", "entry.yaml", MLPERF + "---\n" + MLPERF, "20:1", "file holds 2 YAML documents"),
    ("empty file", "entry.yaml", b"", "1:1", "file is empty"),
    ("over 1 MiB", "entry.yaml", b"#" * (1024 * 1024 + 1), "1:1", "file is 1,048,577 bytes, over the 1 MiB limit"),
]


@pytest.mark.parametrize("case", WHOLE_FILE_CASES, ids=[c[0] for c in WHOLE_FILE_CASES])
def test_a_problem_of_the_whole_file_has_a_line_and_column(tmp_path, case):
    _, name, content, where, message = case
    path = tmp_path / "submissions" / "mlperf-training-v1.1" / "acme-labs" / name
    path.parent.mkdir(parents=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = validate_paths([tmp_path / "submissions"], ROOT / "catalog", today=dt.date(2024, 1, 1))
    [problem] = result.problems
    assert problem.format().startswith(f"{path}:{where}: $: {message}"), problem.format()


def test_an_alias_bomb_is_reported_on_the_alias_that_crosses_the_limit(empty_project):
    place(empty_project, alias_bomb())
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    rel = os.path.join("submissions", "mlperf-training-v1.1", "acme-labs", "entry.yaml")
    assert f"{rel}:6:8: $: document holds more than 100,000 values (counting what YAML aliases repeat)" in result.out


def test_every_problem_in_every_file_is_reported(empty_project):
    place(empty_project, edit(edit(MLPERF, "count: 64", "count: -1"), "division: closed", "division: x"), name="a.yaml")
    place(
        empty_project,
        edit(MLPERF, "round: mlperf-training-v1.1\n", "round: mlperf-training-v1.1\nextra: 1\n"),
        name="b.yaml",
    )
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "a.yaml:4:11: $.division" in result.out and "a.yaml:11:10: $.system.count" in result.out
    assert "b.yaml:3:1: $.extra: unknown field 'extra'" in result.out
    assert "3 problems in 2 files" in result.err


def test_json_format_for_machines(empty_project):
    place(empty_project, edit(MLPERF, "count: 64", "count: 0"))
    result = run_cli("validate", "--format", "json", cwd=empty_project)
    assert result.code == 1
    report = json.loads(result.out)
    assert report["valid"] is False
    [problem] = report["problems"]
    assert problem["line"] == 11 and problem["col"] == 10 and problem["json_path"] == "$.system.count"
    assert set(problem) == {"file", "line", "col", "json_path", "message", "hint"}


def test_usage_errors_exit_2(empty_project):
    assert run_cli("validate", "--format", "xml", cwd=empty_project).code == 2
    assert run_cli("frobnicate", cwd=empty_project).code == 2


def test_missing_path_is_a_problem_not_a_crash(empty_project):
    result = run_cli("validate", "nowhere", cwd=empty_project)
    assert result.code == 1 and "nowhere:1:1: $: no such file or folder" in result.out
    assert result.err.strip() == "no file checked: 1 path named not found"  # not "1 file checked"


def test_symlink_leaving_the_folder_is_not_read(empty_project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.yaml"
    outside.write_text(MLPERF)
    link = empty_project / "submissions" / "mlperf-training-v1.1" / "acme-labs" / "entry.yaml"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1 and "entry.yaml:1:1: $: is a symbolic link: submissions and catalog files" in result.out


def test_catalog_problems_are_reported(empty_project):
    prices = empty_project / "catalog" / "prices.yaml"
    prices.write_text(prices.read_text().replace("accelerator: tpu-v2,", "accelerator: tpu-v9,", 1))
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "prices.yaml:" in result.out and "unknown accelerator 'tpu-v9'" in result.out


def test_a_broken_catalog_is_reported_alone_not_with_every_submission_failing(empty_project):
    """One typo in accelerators.yaml left the catalog without accelerators, and every submission
    failed with 'unknown accelerator': 2,601 problems for one. The catalog's problem is reported;
    the submissions wait for it, counted, and fail the run all the same."""
    place(empty_project, MLPERF)
    place(empty_project, PUBLISHED, round_="published")
    path = empty_project / "catalog" / "accelerators.yaml"
    path.write_text(path.read_text().replace("chips_per_device: 1", "chips_per_device: one", 1))
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "accelerators.yaml:" in result.out and "must be a number, not string 'one'" in result.out
    assert "unknown accelerator" not in result.out and "entry.yaml" not in result.out, result.out
    assert result.err.strip().endswith(
        "1 problem in 1 file; 2 submission files not checked until every catalog file can be read"
    ), result.err
    report = json.loads(run_cli("validate", "--format", "json", cwd=empty_project).out)
    assert report["valid"] is False and len(report["problems"]) == 1
    assert sorted(report["unchecked"]) == [
        "submissions/mlperf-training-v1.1/acme-labs/entry.yaml",
        "submissions/published/acme-labs/entry.yaml",
    ]


def test_python_api_validate_collects_entries(empty_project):
    place(empty_project, MLPERF)
    result = validate_paths([empty_project / "submissions"], empty_project / "catalog", today=dt.date(2022, 1, 1))
    assert result.ok and [e.entry_id for e in result.entries] == ["mlperf-training-v1.1/acme-labs/entry"]


def _broken_copies(project: Path) -> None:
    """Break shipped files in several ways and add a duplicate, among hundreds of valid ones."""
    files = sorted((project / "submissions").rglob("*.yaml"))
    files[3].write_text(files[3].read_text().replace("division: ", "division: closd\nx: ", 1))
    files[50].write_text("round: [unclosed\n")
    files[120].write_text(files[120].read_text().replace("schema_version: 1", "schema_version: 2"))
    files[200].write_bytes(b"\xff\xfe not text")
    copy = files[300].with_name("copy-" + files[300].name)
    copy.write_text(files[300].read_text())


def _outcome(result) -> tuple:
    return (
        result.files,
        [p.as_dict() for p in result.problems],
        [(e.entry_id, e.file, e.data) for e in result.entries],
    )


def test_a_pool_of_workers_reports_exactly_what_one_process_does(project):
    _broken_copies(project)
    paths, catalog = [project / "submissions", project / "catalog"], project / "catalog"
    alone = validate_paths(paths, catalog, today=dt.date(2026, 1, 1), jobs=1)
    pooled = validate_paths(paths, catalog, today=dt.date(2026, 1, 1), jobs=2)
    assert len(alone.files) > 400 and len(alone.problems) >= 6
    assert _outcome(pooled) == _outcome(alone)


def test_the_cli_on_hundreds_of_files_reports_every_problem_once(project):
    _broken_copies(project)
    result = run_cli("validate", cwd=project)
    assert result.code == 1
    lines = [line for line in result.out.splitlines() if line.startswith("submissions/")]
    assert len(lines) == len(set(lines)) >= 6
    assert any("unclosed" in line or "does not parse" in line for line in lines)
    assert sum("duplicate entry" in line for line in lines) == 2


def test_files_come_in_the_order_of_their_path_parts(tmp_path):
    """'a-b/x' sorts after 'a/x' part by part (as paths compare), though '-' < '/' as text:
    the order decides which of two duplicates is named first."""
    from leaderboard.validate import iter_files

    names = ["a/x.yaml", "a-b/x.yaml", "a.b/y.yml", "a/b/z.json", "A/x.yaml", "a/x.txt", "ab/c.YAML"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x: 1\n")
    found = [path for path, problem in iter_files([tmp_path]) if problem is None]
    expected = sorted(tmp_path / name for name in names if not name.endswith(".txt"))
    assert found == expected


def test_a_closed_output_pipe_ends_the_command_quietly(project):
    import subprocess
    import sys

    result = subprocess.run(
        f"{sys.executable} -m leaderboard validate --format json | head -c 1",
        shell=True,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.stdout == "{" and "Traceback" not in result.stderr


def test_a_worker_that_dies_is_an_error_not_a_hang(project, monkeypatch):
    import sys

    from leaderboard.validate import CheckFailed

    validate_module = sys.modules["leaderboard.validate"]  # the package's `validate` is the function
    checked = validate_module._check_one
    victim = sorted((project / "submissions").rglob("*.yaml"))[100]

    def dies_on_one(path, catalog, today):
        if path == victim:
            os._exit(9)  # as a worker killed for memory would
        return checked(path, catalog, today)

    monkeypatch.setattr(validate_module, "_check_one", dies_on_one)
    with pytest.raises(CheckFailed, match="worker process"):
        validate_paths([project / "submissions"], project / "catalog", jobs=2)


@pytest.mark.parametrize(
    "written, hint",
    [
        ("7e9", "YAML reads 7e9 as text, not a number (it needs a dot and a signed exponent): write 7.0e+9"),
        ("1.5E3", "write 1.5e+3"),
        ("-2e+4", "write -2.0e+4"),
        ('"64"', "write the number without quotes or units"),
        ("64 chips", "write the number without quotes or units"),
    ],
)
def test_a_number_yaml_reads_as_text_gets_a_hint_that_fixes_it(empty_project, written, hint):
    place(empty_project, edit(MLPERF, "count: 64", f"count: {written}"))
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1 and "$.system.count: must be a number, not string" in result.out
    assert hint in result.out, result.out
    fixed = hint.rsplit("write ", 1)[1]
    if fixed[0].isdigit() or fixed[0] == "-":  # the number the hint gives is one YAML reads as a number
        import yaml

        assert isinstance(yaml.safe_load(f"a: {fixed}")["a"], float)


def test_an_unknown_id_shows_with_the_schemas_problems_not_after_them(empty_project):
    """A missing source and a mistyped accelerator: both at once, so one edit fixes the file."""
    text = edit(MLPERF, "accelerator: a100-sxm4-80gb", "accelerator: a100-sxm4-80")
    text = text[: text.index("source:")]
    place(empty_project, text)
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "$: missing required field 'source'" in result.out, result.out
    assert "$.system.accelerator: unknown accelerator 'a100-sxm4-80' (hint: did you mean 'a100-sxm4-80gb'" in (
        result.out
    ), result.out
    # An id the schema already refuses (a number) is not reported twice.
    place(empty_project, edit(MLPERF, "benchmark: resnet", "benchmark: 42"))
    again = run_cli("validate", cwd=empty_project)
    assert again.out.count("$.benchmark:") == 1, again.out


@pytest.mark.parametrize(
    "minutes, says",
    [
        ("null", "$.result.minutes: must be a number, not null"),  # no Python None after it
        ("true", "$.result.minutes: must be a number, not boolean true"),  # as YAML writes it, not True
        ('"90"', "$.result.minutes: must be a number, not string '90'"),
    ],
)
def test_a_value_of_the_wrong_type_is_shown_as_the_file_writes_it(empty_project, minutes, says):
    place(empty_project, PUBLISHED.replace("minutes: 5760", f"minutes: {minutes}"), round_="published")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    line = next(x for x in result.out.splitlines() if "$.result.minutes" in x)
    assert says in line and "None" not in line and "True" not in line, line


def test_valid_files_are_checked_without_importing_what_only_errors_and_fetching_need(empty_project):
    """jsonschema words the messages of an invalid file, and urllib fetches archives: a build or
    check whose files are valid imports neither (0.07 s of every run); an invalid file still gets
    jsonschema's message."""
    import subprocess
    import sys

    place(empty_project, MLPERF)
    place(empty_project, PUBLISHED, round_="published", name="acme-lm.yaml")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "import leaderboard.build\n"
        "from leaderboard.validate import validate_paths\n"
        "result = validate_paths([Path('submissions')], Path('catalog'), jobs=1)\n"
        "print(len(result.entries), [p.message for p in result.problems],"
        " sorted(m for m in ('jsonschema', 'http.client', 'urllib.request') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=empty_project, capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "2 [] []", run.stderr
    place(empty_project, MLPERF.replace("minutes: 4.5", "minuts: 4.5"))
    run = subprocess.run([sys.executable, "-c", script], cwd=empty_project, capture_output=True, text=True, check=True)
    assert "'minuts'" in run.stdout and "'jsonschema'" in run.stdout, run.stdout
