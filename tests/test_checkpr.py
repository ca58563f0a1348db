"""`leaderboard check-pr` on a real git repository: a base branch, a change on top."""

import shutil
import subprocess

import pytest
from conftest import ROOT, run_cli
from test_validate import MLPERF

from leaderboard.checkpr import MARKER


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
    assert result.code == 0, result.out + result.err
    assert (
        "added: mlperf-training-v1.1/acme-labs/acme-64 (submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml)"
        in result.out
    )
    assert (
        "mlperf-training-v1.1 / resnet / closed: 64 chips, 4.5 minutes, 4.80 chip-hours, cost $19.68 on demand"
        in result.out
    )
    assert "would rank minutes 2 of 3, chip-hours 2 of 3, cost 2 of 3" in result.out
    assert "1 changed files checked against main: all valid" in result.out


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
    assert result.code == 0
    assert result.out.startswith(MARKER)
    assert (
        "| `mlperf-training-v1.1/acme-labs/acme-8` (modified) | mlperf-training-v1.1 / resnet / closed | 8 | 0.2 |"
        in result.out
    )
    assert "| 1 of 2 | 1 of 2 | 1 of 2 |" in result.out
    assert "not official MLPerf metrics" in result.out


def test_deleted_entry_is_reported(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml").unlink()
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0
    assert "deleted: submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml" in result.out
    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=repo)
    assert "::notice file=submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml::entry deleted" in github.out


def test_non_submission_files_are_ignored(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/NOTES.md").write_text("not data\n")
    (repo / "README.md").write_text("changed\n")
    (repo / "elsewhere").mkdir()
    (repo / "elsewhere/entry.yaml").write_text("not: checked\n")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0, result.out
    for name in ("README.md", "elsewhere/entry.yaml", "submissions/mlperf-training-v1.1/acme-labs/NOTES.md"):
        assert f"ignored (not a submission or catalog file): {name}" in result.out
    assert "0 changed files checked" in result.out


def test_uncommitted_and_untracked_changes_count_too(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/acme-64.yaml").write_text(entry("acme-64", 64, 4.5))
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0 and "added: mlperf-training-v1.1/acme-labs/acme-64" in result.out


def test_duplicate_of_an_existing_entry_is_the_pull_requests_problem(repo):
    (repo / "submissions/mlperf-training-v1.1/acme-labs/copy.yaml").write_text(entry("acme-8", 8, 29.0))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    assert "copy.yaml:1:1: $: duplicate entry" in result.out


def test_unknown_base_is_a_clear_error(repo):
    result = run_cli("check-pr", "--base", "nope", cwd=repo)
    assert result.code == 1 and result.err.startswith("error: git: ") and "Traceback" not in result.err
