"""`leaderboard new`: a valid file at the right path from flags or prompts; suggestions for unknown ids."""

import subprocess
import sys

import pytest
import yaml
from conftest import run_cli

FLAGS = [
    "--round",
    "mlperf-training-v1.1",
    "--benchmark",
    "resnet",
    "--division",
    "closed",
    "--submitter",
    "Intel-HabanaLabs",
    "--date",
    "2021-12-01",
    "--system",
    "HLS-1H-N64",
    "--accelerator",
    "gaudi",
    "--count",
    "256",
    "--minutes",
    "3.386",
    "--quality",
    "0.7601",
    "--source-url",
    "https://example.com/r",
    "--no-input",
]


def test_an_official_round_is_refused_and_nothing_written(empty_project):
    """Only an importer writes an MLPerf round (check-pr refuses any other file there): `new`
    says so, names where a self-measured result goes, and writes nothing."""
    result = run_cli("new", *FLAGS, cwd=empty_project)
    assert result.code == 1 and result.err == "error: not written: 1 problem\n"
    assert (
        "$.round: MLPerf Training v1.1 is an official round, closed to pull requests: only "
        "`leaderboard import-mlperf` writes its results (hint: a result you measured yourself, or read in a "
        "paper, is self-reported: choose round published"
    ) in result.out
    assert not list((empty_project / "submissions").rglob("*.yaml"))


PUBLISHED_FLAGS = [
    "--round",
    "published",
    "--benchmark",
    "language",
    "--submitter",
    "Acme Labs",
    "--date",
    "2019-01-01",
    "--system",
    "16 Cloud TPU v3",
    "--accelerator",
    "tpu-v3",
    "--count",
    "16",
    "--unit",
    "device",
    "--source-url",
    "https://arxiv.org/abs/1901.00001",
    "--no-input",
]


def test_a_published_run_from_flags_is_named_after_its_model(empty_project):
    result = run_cli(
        "new",
        *PUBLISHED_FLAGS,
        "--model",
        "Acme-LM 7B",
        "--parameters",
        "7e9",
        "--citation",
        'Acme Labs, "Training Acme-LM", 2019.',
        "--note",
        "Section 4: three runs.",
        "--runs-minutes",
        "5700, 5760,5820",
        cwd=empty_project,
    )
    assert result.code == 0, result.out + result.err
    path = empty_project / "submissions/published/acme-labs/acme-lm-7b.yaml"
    assert result.out == f"wrote {path.relative_to(empty_project)}\n"
    data = yaml.safe_load(path.read_text())
    assert data["model"] == {"name": "Acme-LM 7B", "parameters": 7000000000}
    assert data["result"] == {"minutes": 5760, "runs_minutes": [5700, 5760, 5820]}  # their mean
    assert data["source"] == {
        "url": "https://arxiv.org/abs/1901.00001",
        "citation": 'Acme Labs, "Training Acme-LM", 2019.',
        "note": "Section 4: three runs.",
    }
    assert run_cli("validate", cwd=empty_project).code == 0
    again = run_cli("new", *PUBLISHED_FLAGS, "--model", "Acme-LM 7B", "--minutes", "5760", cwd=empty_project)
    assert again.code == 1 and again.err == "error: not written: 1 problem\n"
    assert "duplicate entry: same round, submitter, system, benchmark, division and model as" in again.out
    assert sorted(p.name for p in path.parent.iterdir()) == ["acme-lm-7b.yaml"]


def test_a_second_paper_on_the_same_system_gets_its_own_file(empty_project):
    first = run_cli("new", *PUBLISHED_FLAGS, "--model", "Acme-LM", "--minutes", "5760", cwd=empty_project)
    assert first.code == 0, first.out + first.err
    other_paper = [f if not f.startswith("https://") else "https://arxiv.org/abs/1902.00002" for f in PUBLISHED_FLAGS]
    second = run_cli("new", *other_paper, "--model", "Acme-Vision", "--minutes", "600", cwd=empty_project)
    assert second.code == 0, second.out + second.err
    # the same model name again, on another system: the name is taken, so the next free one
    third_system = [f if f != "16 Cloud TPU v3" else "32 Cloud TPU v3" for f in other_paper]
    third = run_cli("new", *third_system, "--model", "Acme-LM", "--minutes", "3000", cwd=empty_project)
    assert third.code == 0, third.out + third.err
    folder = empty_project / "submissions/published/acme-labs"
    assert sorted(p.name for p in folder.iterdir()) == ["acme-lm-2.yaml", "acme-lm.yaml", "acme-vision.yaml"]
    assert yaml.safe_load((folder / "acme-lm.yaml").read_text())["result"]["minutes"] == 5760
    assert run_cli("validate", cwd=empty_project).code == 0


def test_the_same_published_run_on_another_system_needs_a_note(empty_project):
    assert run_cli("new", *PUBLISHED_FLAGS, "--model", "Acme-LM", "--minutes", "5760", cwd=empty_project).code == 0
    # 128 chips: another measurement than the first's 16 devices of 4 chips (64 would be the same one)
    again = [f if f != "16 Cloud TPU v3" else "128 TPU v3 chips" for f in PUBLISHED_FLAGS]
    again = [f if f != "device" else "chip" for f in again]
    again = [f if f != "16" else "128" for f in again]
    result = run_cli("new", *again, "--model", "acme-lm", "--minutes", "5760", cwd=empty_project)
    assert result.code == 1
    assert (
        "duplicate entry: a published run from the same paper (source.url) with the same model as "
        "submissions/published/acme-labs/acme-lm.yaml" in result.out
    )
    assert not (empty_project / "submissions/published/acme-labs/acme-lm-2.yaml").exists()


def test_unknown_id_gets_a_suggestion_beside_every_other_problem(empty_project):
    flags = [f if f != "tpu-v3" else "tpu-v3x" for f in PUBLISHED_FLAGS]
    flags = [f if f != "2019-01-01" else "2099-01-01" for f in flags]
    result = run_cli("new", *flags, "--model", "Acme-LM", "--minutes", "60", cwd=empty_project)
    assert result.code == 1 and result.err == "error: not written: 2 problems\n"
    # Each said of its flag: the file was not written, so no line and column of it.
    lines = result.out.splitlines()
    assert any(
        line.startswith(
            "--accelerator tpu-v3x: $.system.accelerator: unknown accelerator 'tpu-v3x' (hint: did you mean 'tpu-v3'"
        )
        for line in lines
    ), result.out
    assert "--date 2099-01-01: $.date: date 2099-01-01 lies in the future" in lines[0] + lines[1]
    assert ".yaml:" not in result.out
    assert not list((empty_project / "submissions").rglob("*.yaml"))
    flags = [f if f != "published" else "publishd" for f in flags]
    unknown_round = run_cli("new", *flags, "--model", "Acme-LM", "--minutes", "60", cwd=empty_project)
    assert unknown_round.code == 1 and "unknown round 'publishd' (did you mean 'published'" in unknown_round.err


def test_invalid_answers_write_nothing(empty_project):
    flags = [f if f != "2019-01-01" else "2099-01-01" for f in PUBLISHED_FLAGS]
    result = run_cli("new", *flags, "--model", "Acme-LM", "--minutes", "0", cwd=empty_project)
    assert result.code == 1 and result.err == "error: not written: 1 problem\n"
    assert "$.result.minutes: must be greater than 0" in result.out
    assert not list((empty_project / "submissions").rglob("*.yaml"))


def test_every_missing_flag_with_no_input_is_named_at_once(empty_project):
    result = run_cli("new", "--round", "published", "--no-input", cwd=empty_project)
    assert result.code == 2
    assert (
        "required with --no-input: --benchmark, --submitter, --system, --accelerator, --count, --model, --date, "
        "--minutes (or --runs-minutes), --source-url or --citation"
    ) in result.err
    result = run_cli("new", "--no-input", cwd=empty_project)
    assert result.code == 2 and "required with --no-input: --round, --benchmark," in result.err
    flags = [f for f in FLAGS if f not in ("--quality", "0.7601")]
    result = run_cli("new", *flags, cwd=empty_project)
    assert result.code == 2 and "required with --no-input: --quality\n" in result.err


def test_runs_minutes_that_are_not_numbers_are_a_usage_error(empty_project):
    result = run_cli("new", *FLAGS, "--runs-minutes", "4.4,four", cwd=empty_project)
    assert result.code == 2 and "'four' is not a number of minutes (write null for a failed run)" in result.err


NO_FAILED_RUN = (
    "$.result.runs_minutes: a failed run (null) cannot be listed in Published training runs: the minutes are the "
    "mean of every run, none dropped (hint: give the minutes of each run that reached the target)"
)


@pytest.mark.parametrize(
    "flags, said",
    [
        (("--runs-minutes", "10,null,12"), ["--runs-minutes 10,null,12: " + NO_FAILED_RUN]),
        (("--runs-minutes", "10, failed"), ["--runs-minutes 10,null: " + NO_FAILED_RUN]),
        (("--runs-minutes", "null"), ["--runs-minutes null: " + NO_FAILED_RUN]),
        (("--minutes", "11", "--runs-minutes", "10,null,12"), ["--runs-minutes 10,null,12: " + NO_FAILED_RUN]),
        (  # every other problem is still named, each by its flag
            ("--runs-minutes", "10,null,12", "--date", "2099-01-01"),
            [
                "--runs-minutes 10,null,12: " + NO_FAILED_RUN,
                "--date 2099-01-01: $.date: date 2099-01-01 lies in the future (hint: give the publication date)",
            ],
        ),
    ],
)
def test_a_failed_run_of_a_published_run_is_said_of_its_flag(empty_project, flags, said):
    """A published run's minutes are the mean of every run, none dropped: a failed run (null) has
    no place in it, and the problem is the flag's, not a null minutes in a file never written."""
    result = run_cli("new", *PUBLISHED_FLAGS, "--model", "Acme-LM", *flags, cwd=empty_project)
    assert result.code == 1 and result.err == f"error: not written: {len(said)} problem{'s' * (len(said) > 1)}\n"
    assert sorted(result.out.splitlines()) == sorted(said)
    assert "None" not in result.out
    assert not list((empty_project / "submissions").rglob("*.yaml"))


def test_prompts_ask_again_after_an_unknown_id(empty_project):
    answers = (
        "\n".join(
            [
                "published",
                "langauge",
                "language",
                "available",
                "Acme Labs",
                "16 Cloud TPU v3",
                "tpu-v3",
                "device",
                "16",
                "2019-01-01",
                "",  # no list of runs
                "5760",
                "Acme-LM",
                "",  # parameters unknown
                "",  # no URL
                "Acme Labs, Training Acme-LM, 2019.",
                "",  # no note
            ]
        )
        + "\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", "new"],
        cwd=empty_project,
        input=answers,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "unknown benchmark 'langauge' (did you mean 'language'?)" in done.stderr
    data = yaml.safe_load((empty_project / "submissions/published/acme-labs/acme-lm.yaml").read_text())
    assert data["system"]["unit"] == "device" and data["result"] == {"minutes": 5760}
    assert data["model"] == {"name": "Acme-LM"} and data["source"] == {"citation": "Acme Labs, Training Acme-LM, 2019."}
