"""`leaderboard check-pr` on a real git repository: a base branch, a change on top."""

import json
import shutil
import subprocess

import pytest
import yaml
from conftest import ROOT, run_cli
from test_validate import MLPERF

from leaderboard.checkpr import PullRequestCheck
from leaderboard.checkpr_report import MARKER, as_github, as_markdown, as_text
from leaderboard.problems import Problem


def git(repo, *args):
    subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
        },
    )


def entry(name: str, count: int, minutes: float) -> str:
    return (
        MLPERF.replace("acme-64", name)
        .replace("count: 64", f"count: {count}")
        .replace("minutes: 4.5", f"minutes: {minutes}")
    )


@pytest.fixture
def repo(tmp_path):
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    folder = tmp_path / "submissions" / "mlperf-training-v1.1" / "acme-labs"
    folder.mkdir(parents=True)
    (folder / "acme-8.yaml").write_text(entry("acme-8", 8, 29.0))
    (folder / "acme-4320.yaml").write_text(entry("acme-4320", 4320, 0.35))
    (tmp_path / "README.md").write_text("x\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    return tmp_path


def commit(repo):
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")


def test_valid_new_entry_gets_a_rank_preview(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml").write_text(entry("acme-64", 64, 4.5))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    # An MLPerf round is closed (only the importer writes it): the file fails, its rank is shown.
    assert result.code == 1 and "is an official round, closed to pull requests" in result.out, result.out + result.err
    assert (
        "added: mlperf-training-v1.1/acme-labs/acme-64 (submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml)"
        in result.out
    )
    assert (
        "mlperf-training-v1.1 / resnet / closed: 64 chips, 4.5 minutes, 4.80 chip-hours, cost $19.68 on demand"
        in result.out
    )
    assert (
        "would rank 2 of 3 by minutes, the board's ranking (sorted by chip-hours: 2 of 3; by cost: 2 of 3)"
        in result.out
    )
    assert "1 changed file checked against main: 1 problem" in result.out


def test_invalid_entry_is_annotated_on_its_line(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml").write_text(
        entry("acme-64", 64, 4.5).replace("count: 64", "count: -64")
    )
    commit(repo)
    result = run_cli("check-pr", "--base", "main", "--format", "github", cwd=repo)
    assert result.code == 1
    assert (
        "::error file=submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml,line=11,col=10,"
        "title=$.system.count::must be greater than 0"
    ) in result.out.splitlines()


def test_a_problem_of_the_whole_file_is_annotated_on_its_first_line(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml").write_text("")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", "--format", "github", cwd=repo)
    assert result.code == 1
    assert (
        "::error file=submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml,line=1,col=1,"
        "title=$::file is empty (hint: a submission is a YAML or JSON mapping; see CONTRIBUTING.md)"
    ) in result.out.splitlines()
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo)
    assert "| `submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml` | 1 | `$` | file is empty" in markdown.out


def test_modified_entry_and_markdown_comment(repo):
    path = repo / "submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml"
    path.write_text(entry("acme-8", 8, 0.2))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo)
    assert result.code == 1 and "### Closed rounds and importer-written results" in result.out
    assert result.out.startswith(MARKER)
    assert (
        "| `mlperf-training-v1.1/acme-labs/acme-8` (modified) | mlperf-training-v1.1 / resnet / closed | 8 | 0.2 |"
        in result.out
    )
    assert "| 1 of 2 by minutes | by chip-hours: 1 of 2; by cost: 1 of 2 |" in result.out
    assert "not official MLPerf metrics" in result.out


def test_deleted_entry_is_reported(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml").unlink()
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    assert "acme-8.yaml:1:1: $: deletes a file of mlperf-training-v1.1, an official round closed" in result.out
    assert "deleted: submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml" in result.out
    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=repo)
    assert "::notice file=submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml::entry deleted" in github.out


def test_changing_or_deleting_a_result_already_on_the_boards_is_flagged_for_a_maintainer(repo):
    """A hand-written published result is open to pull requests, so a stranger's edit or
    deletion passes validation: it must stand first in every format, naming whose result it is."""
    from test_validate import PUBLISHED

    folder = repo / "submissions/published/acme-labs"
    folder.mkdir(parents=True)
    (folder / "acme-lm.yaml").write_text(PUBLISHED)
    (folder / "acme-lm-2.yaml").write_text(PUBLISHED.replace("Acme-LM", "Acme-LM 2"))
    commit(repo)
    git(repo, "branch", "-f", "main", "HEAD")
    (folder / "acme-lm.yaml").write_text(PUBLISHED.replace("minutes: 5760", "minutes: 57600"))
    (folder / "acme-lm-2.yaml").unlink()
    (folder / "comment-only.yaml").write_text(PUBLISHED.replace("Acme-LM", "Acme-LM 3"))
    commit(repo)
    git(repo, "branch", "-f", "base3", "HEAD")
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0, result.out
    lines = result.out.splitlines()
    assert lines[:2] == [
        "changes a result already on the boards, deleted (submitted by Acme Labs): "
        "submissions/published/acme-labs/acme-lm-2.yaml",
        "changes a result already on the boards, changed: result.minutes (submitted by Acme Labs): "
        "submissions/published/acme-labs/acme-lm.yaml",
    ], result.out
    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=repo).out
    assert github.splitlines()[0].startswith(
        "::warning file=submissions/published/acme-labs/acme-lm-2.yaml,title=Changes an existing result::"
        "deleted (submitted by Acme Labs): a maintainer confirms"
    ), github
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    assert "### ⚠️ Changes 2 results already on the boards" in markdown
    assert "| `submissions/published/acme-labs/acme-lm.yaml` | Acme Labs | result.minutes |" in markdown
    assert markdown.index("already on the boards") < markdown.index("### Where the entries would rank")
    # A comment-only edit moves nothing: not flagged.
    path = folder / "comment-only.yaml"
    path.write_text("# a comment\n" + path.read_text())
    commit(repo)
    assert "already on the boards" not in run_cli("check-pr", "--base", "base3", cwd=repo).out


def test_an_estimate_is_previewed_as_not_ranked(repo):
    from test_validate import PUBLISHED

    folder = repo / "submissions/published/acme-labs"
    folder.mkdir(parents=True)
    (folder / "acme-lm.yaml").write_text(
        PUBLISHED.replace("  minutes: 5760\n", "  minutes: 5760\n  estimated: true\n").replace(
            "source:\n", "source:\n  note: projected from a 1/8 run\n"
        )
    )
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0, result.out
    assert "  not ranked on its board: an estimate; its time was not measured\n" in result.out, result.out
    # It takes no rank: the preview says where it would sit among the ranked results, never "would rank".
    assert "  would take no rank; among the ranked results it would sit at 1 of 1 by chip-hours" in result.out
    assert "would rank" not in result.out
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    assert "(added; not ranked on its board: an estimate" in markdown
    assert "| none (it would sit at 1 of 1 by chip-hours) |" in markdown
    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=repo).out
    assert "would take no rank; among the ranked results" in github and "would rank" not in github


def test_files_elsewhere_that_are_not_submissions_are_named_with_their_kind(repo):
    (repo / "README.md").write_text("changed\n")
    (repo / "elsewhere").mkdir()
    (repo / "elsewhere/notes.yaml").write_text("not: a submission\n")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0, result.out
    for name, kind in (("README.md", "docs, modified"), ("elsewhere/notes.yaml", "other, added")):
        assert f"changed outside submissions/ ({kind}): {name}" in result.out
    assert "0 changed files checked" in result.out


@pytest.mark.parametrize(
    "name, message",
    [
        ("mlperf-training-v1.1/acme-labs/acme-64.txt", "not a submission file: submissions/ holds only entries"),
        ("mlperf-training-v1.1/acme-labs/NOTES.md", "not a submission file: submissions/ holds only entries"),
        ("mlperf-training-v1.1/acme-labs/acme-64.yaml.bak", "not a submission file"),
        ("mlperf-training-v1.1/acme-64.yaml", "file is at mlperf-training-v1.1/acme-64.yaml but its content says"),
        (
            "mlperf-training-v1.1/acme-labs/old/acme-64.yaml",
            "file is at mlperf-training-v1.1/acme-labs/old/acme-64.yaml but its content says",
        ),
    ],
)
def test_a_file_under_submissions_that_no_check_would_read_fails(repo, name, message):
    path = repo / "submissions" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(entry("acme-64", 64, 4.5))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out
    assert f"submissions/{name}:1:1: $: {message}" in result.out
    closed_too = name.endswith(".yaml")  # an entry file in an official round: not one the importer wrote
    assert f"1 changed file checked against main: {2 if closed_too else 1} problem" in result.out


def test_a_yml_or_json_entry_is_checked_like_a_yaml_one(repo):
    folder = repo / "submissions/mlperf-training-v1.1/acme-labs"
    (folder / "acme-64.yml").write_text(entry("acme-64", 64, 4.5))
    data = yaml.safe_load(entry("acme-128", 128, 2.5))
    (folder / "acme-128.json").write_text(json.dumps(data))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out
    assert "2 changed files checked against main: 2 problems" in result.out  # valid, but the round is closed
    assert "acme-128.json:1:1: $: mlperf-training-v1.1 is an official round" in result.out


MISPLACED = [
    # (path, why it looks meant as a submission)
    ("submission/mlperf-training-v1.1/acme-labs/acme-64.yaml", "submission/ is not submissions/"),
    ("Submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml", "Submissions/ is not submissions/"),
    ("submisions/mlperf-training-v1.1/acme-labs/acme-64.txt", "submisions/ is not submissions/"),
    ("catalogue/accelerators.yaml", "catalogue/ is not catalog/"),
    ("mlperf-training-v1.1/acme-labs/acme-64.yaml", "mlperf-training-v1.1/ is a round folder outside submissions/"),
    ("results/acme-64.yaml", "it reads as a submission, outside submissions/"),
]


def test_files_outside_submissions_that_look_meant_as_one_are_reported(repo):
    for name, _ in MISPLACED:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(entry("acme-64", 64, 4.5))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out  # nothing else checked: a pull request of misplaced files is never green
    assert "no changed file checked against main: 6 files that look meant as a submission, misplaced" in result.out
    for name, why in MISPLACED:
        assert f"not checked (looks misplaced: {why}): {name} (hint: move it to submissions/" in result.out
    assert "ignored" not in result.out
    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=repo)
    assert "::warning file=submission/mlperf-training-v1.1/acme-labs/acme-64.yaml,title=Not checked::" in github.out
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo)
    assert "### Not checked: files that look misplaced" in markdown.out
    assert "- `results/acme-64.yaml`: it reads as a submission, outside submissions/" in markdown.out
    # Beside an entry that is checked, a misplaced file is named, and the entry decides.
    (repo / "submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml").write_text(entry("acme-64", 64, 4.5))
    beside = run_cli("check-pr", "--base", "main", cwd=repo).out
    assert "1 changed file checked against main" in beside and "no changed file checked" not in beside


def test_uncommitted_and_untracked_changes_count_too(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml").write_text(entry("acme-64", 64, 4.5))
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert (
        "added: mlperf-training-v1.1/acme-labs/acme-64" in result.out
        and "is an official round, closed to pull requests" in result.out
    )


def test_duplicate_of_an_existing_entry_is_the_pull_requests_problem(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/copy.yaml").write_text(entry("acme-8", 8, 29.0))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    assert "copy.yaml:1:1: $: duplicate entry" in result.out


def test_the_original_of_a_duplicate_keeps_its_place_in_the_rank_preview(repo):
    folder = repo / "submissions/mlperf-training-v1.1/acme-labs"
    (folder / "copy.yaml").write_text(entry("acme-8", 8, 29.0))
    (folder / "acme-64.yaml").write_text(entry("acme-64", 64, 4.5))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    # acme-8 (the original, unchanged) and acme-4320 rank with it; the copy does not
    assert "added: mlperf-training-v1.1/acme-labs/acme-64 (" in result.out
    assert (
        "would rank 2 of 3 by minutes, the board's ranking (sorted by chip-hours: 2 of 3; by cost: 2 of 3)"
        in result.out
    )
    assert "added: mlperf-training-v1.1/acme-labs/copy" not in result.out


def test_a_catalog_change_checks_every_submission_again(repo):
    rounds = repo / "catalog/rounds.yaml"
    rounds.write_text(rounds.read_text().replace('date: "2021-12-01"', 'date: "2021-12-02"', 1))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    assert (
        "submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml:7:7: $.date: date 2021-12-01 is not the day "
        "MLPerf Training v1.1 was published (2021-12-02)"
    ) in result.out


def test_changes_to_verified_entries_come_first_and_fail():
    verified = Problem("submissions/r/s/a.yaml", 14, 12, "$.result.minutes", "changes a verified entry")
    other = Problem("submissions/r/s/b.yaml", 1, 1, "$", "file is empty")
    check = PullRequestCheck("main", verified_changes=[verified], problems=[other])
    assert not check.ok
    assert as_text(check).splitlines()[:2] == [verified.format(), other.format()]
    assert as_github(check).splitlines()[0].startswith("::error file=submissions/r/s/a.yaml,line=14,col=12,")
    markdown = as_markdown(check)
    assert markdown.index("### Closed rounds and importer-written results") < markdown.index(
        "### Problems to fix before merging"
    )
    assert "0 changed files checked against main: 2 problems" in markdown
    assert not PullRequestCheck("main", verified_changes=[verified]).ok


def test_unknown_base_is_a_clear_error(repo):
    result = run_cli("check-pr", "--base", "nope", cwd=repo)
    assert result.code == 1 and result.err.startswith("error: git: ") and "Traceback" not in result.err


VERIFIED = "mlperf-training-v1.1/nvidia/dgxa100_n128_ngc21.09_mxnet-resnet"


@pytest.fixture
def repo_with_verified(repo):
    """The base branch also holds a verified MLPerf result (the shipped file; the catalog copy
    holds its manifest row)."""
    git(repo, "checkout", "-q", "main")
    target = repo / "submissions" / f"{VERIFIED}.yaml"
    target.parent.mkdir(parents=True)
    shutil.copyfile(ROOT / "submissions" / f"{VERIFIED}.yaml", target)
    commit(repo)
    git(repo, "checkout", "-q", "-b", "change")
    return repo


def test_changing_a_verified_result_fails_and_shows_every_field_before_and_after(repo_with_verified):
    target = repo_with_verified / "submissions" / f"{VERIFIED}.yaml"
    data = yaml.safe_load(target.read_text())
    data["result"]["minutes"] = 0.9
    data["system"]["count"] = 2048
    del data["result"]["runs_minutes"], data["result"]["runs_quality"], data["provenance"]["run_logs"]
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    commit(repo_with_verified)
    result = run_cli("check-pr", "--base", "main", cwd=repo_with_verified)
    assert result.code == 1, result.out
    first = result.out.splitlines()[0]
    assert first.startswith(f"submissions/{VERIFIED}.yaml:1:1: $: changes (")
    assert "a result verified against MLCommons' published logs" in first
    assert "system.count: 1024 -> 2048" in result.out and "result.minutes: 0.574683 -> 0.9" in result.out
    assert "result.runs_minutes: [" in result.out and "-> (none)" in result.out
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo_with_verified).out
    assert markdown.index("### Closed rounds and importer-written results") < markdown.index(
        "### Changed entries, before → after"
    )
    # A fresh import writes the published result, not this one.
    fresh = fresh_import(
        repo_with_verified.with_name(repo_with_verified.name + "-fresh"),
        {VERIFIED: ROOT / "submissions" / f"{VERIFIED}.yaml"},
    )
    confirmed = run_cli("check-pr", "--base", "main", "--reimported", fresh, cwd=repo_with_verified)
    assert confirmed.code == 1 and "only into what the trusted job's fresh import" in confirmed.out


def test_deleting_a_verified_result_fails(repo_with_verified):
    (repo_with_verified / "submissions" / f"{VERIFIED}.yaml").unlink()
    commit(repo_with_verified)
    result = run_cli("check-pr", "--base", "main", cwd=repo_with_verified)
    assert result.code == 1
    assert f"submissions/{VERIFIED}.yaml:1:1: $: deletes a result verified" in result.out


def test_forging_a_manifest_row_fails_without_the_import_job(repo_with_verified):
    forged = repo_with_verified / "submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml"
    forged.write_text(entry("acme-64", 64, 4.5))
    manifest = repo_with_verified / "catalog" / "verified" / "mlperf-training-v1.1.csv"
    import hashlib

    digest = hashlib.sha256(forged.read_bytes()).hexdigest()
    with manifest.open("a") as handle:
        handle.write(f"mlperf-training-v1.1/acme-labs/acme-64,{digest},closed,a100-sxm4-80gb,64,4.5\n")
    commit(repo_with_verified)
    result = run_cli("check-pr", "--base", "main", cwd=repo_with_verified)
    assert result.code == 1
    assert "catalog/verified/mlperf-training-v1.1.csv:1:1: $: changes the manifest" in result.out


def fresh_import(folder, files: dict, manifest_from=None):
    """A project-shaped folder as the trusted job's fresh import leaves it: entry id -> the file
    it wrote; the manifest copied from `manifest_from` (a catalog folder) when given."""
    for entry_id, source in files.items():
        target = folder / "submissions" / f"{entry_id}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    (folder / "catalog").mkdir(parents=True, exist_ok=True)
    shutil.copytree(manifest_from or ROOT / "catalog" / "verified", folder / "catalog" / "verified")
    return folder


def test_a_reimport_identical_to_the_fresh_import_passes(repo_with_verified):
    """The importer rewrote the file and its manifest row together, and the trusted job's fresh
    import (into an empty folder) wrote the same bytes."""
    import hashlib

    target = repo_with_verified / "submissions" / f"{VERIFIED}.yaml"
    target.write_text(target.read_text().replace("framework: ", "framework: re-imported ", 1))
    manifest = repo_with_verified / "catalog" / "verified" / "mlperf-training-v1.1.csv"
    entry_id = VERIFIED
    lines = manifest.read_text().splitlines()
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    lines = [
        ",".join([entry_id, digest, *line.split(",")[2:]]) if line.startswith(entry_id + ",") else line
        for line in lines
    ]
    manifest.write_text("\n".join(lines) + "\n")
    commit(repo_with_verified)
    assert run_cli("check-pr", "--base", "main", cwd=repo_with_verified).code == 1  # not without the fresh import
    fresh = fresh_import(
        repo_with_verified.with_name(repo_with_verified.name + "-fresh"),
        {VERIFIED: target},
        repo_with_verified / "catalog" / "verified",
    )
    result = run_cli("check-pr", "--base", "main", "--reimported", fresh, cwd=repo_with_verified)
    assert result.code == 0, result.out
    assert "system.framework: " in result.out
