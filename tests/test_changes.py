"""Every path a pull request changes outside submissions/ is named by check-pr, with its kind and
how it changed; code, workflows and the like come first, for a code owner to review."""

import os

import pytest
from conftest import run_cli
from test_checkpr import commit, git, repo  # noqa: F401 - the fixture: a git repository, branch pr on main

from leaderboard.review.changes import ChangedPath, base_url_change, change_kind, markdown_lines, path_kind, text_lines

PATH_KINDS = [
    # (path, kind)
    ("leaderboard/verification.py", "code"),
    ("leaderboard/render/templates/base.html", "code"),
    ("benchmarks/bench.py", "code"),
    ("scripts/evil.sh", "code"),
    ("catalog/mlperf-logging/mlperf_logging/rcp_checker/rcp_checker.py", "code"),
    (".github/workflows/pull-request.yml", "workflow"),
    (".github/CODEOWNERS", "repository settings"),
    (".github/pull_request_template.md", "repository settings"),
    (".gitattributes", "repository settings"),
    ("Makefile", "build"),
    (".ci/setup.sh", "build"),
    ("pyproject.toml", "packaging"),
    ("web/package.json", "packaging"),
    ("requirements.lock", "lockfile"),
    ("web/package-lock.json", "lockfile"),
    ("schemas/submission.schema.json", "schema"),
    ("catalog/site.yaml", "site config"),
    ("catalog/prices.yaml", "catalog"),
    ("catalog/prices-pnpm-lock.yaml", "catalog"),  # a price file the catalog loader reads
    ("catalog/prices-package-lock.json", "catalog"),
    ("catalog/compute-epoch.yaml", "catalog"),
    ("catalog/notes.lock", "lockfile"),  # not read by the loader
    ("catalog/verified/mlperf-training-v5.0.csv", "catalog"),
    ("catalog/mlperf-logging/README.md", "catalog"),
    ("tests/test_checkpr.py", "tests"),
    ("README.md", "docs"),
    ("CONTRIBUTING.md", "docs"),
    ("LICENSE", "docs"),
    ("elsewhere/notes.yaml", "other"),
]


@pytest.mark.parametrize("name, kind", PATH_KINDS)
def test_path_kind(name, kind):
    assert path_kind(name) == kind


CHANGE_KINDS = [
    # (status, old mode, new mode, content changed, description)
    ("A", "000000", "100644", True, "added"),
    ("A", "000000", "100755", True, "added (executable)"),
    ("A", "000000", "120000", True, "added (symbolic link)"),
    ("D", "100644", "000000", True, "deleted"),
    ("M", "100644", "100644", True, "modified"),
    ("M", "100644", "100755", False, "made executable"),
    ("M", "100644", "100755", True, "modified, made executable"),
    ("M", "100755", "100644", False, "no longer executable"),
    ("T", "100644", "120000", True, "modified, now a symbolic link"),
    ("T", "120000", "100644", True, "modified, no longer a symbolic link"),
    ("M", "120000", "120000", True, "modified (symbolic link)"),
]


@pytest.mark.parametrize("status, old, new, content, description", CHANGE_KINDS)
def test_change_kind(status, old, new, content, description):
    assert change_kind(status, old, new, content) == description


BASE_URLS = [
    # (before, after, detail)
    (
        {"base_url": "https://a.example/"},
        {"base_url": "https://b.example/"},
        "base_url https://a.example/ -> https://b.example/",
    ),
    (None, {"base_url": "https://b.example/"}, "base_url (none) -> https://b.example/"),
    ({"base_url": "https://a.example/"}, None, "base_url https://a.example/ -> (none)"),
    ({"base_url": "https://a.example/"}, {"base_url": "https://a.example/"}, None),
    ({"base_url": "https://a.example/"}, "not a mapping", "base_url https://a.example/ -> (none)"),
]


@pytest.mark.parametrize("before, after, detail", BASE_URLS)
def test_base_url_change(before, after, detail):
    assert base_url_change(before, after) == detail


def test_paths_needing_review_go_first_in_text_and_under_a_heading_in_markdown():
    paths = [
        ChangedPath("leaderboard/rows.py", "code", "modified"),
        ChangedPath("README.md", "docs", "modified"),
    ]
    first, rest = text_lines(paths)
    assert first == ["needs a code owner's review (code, modified): leaderboard/rows.py"]
    assert rest == ["changed outside submissions/ (docs, modified): README.md"]
    review, others = markdown_lines(paths, lambda text: text)
    assert "### ⚠️ Needs a code owner's review: 1 changed path outside submissions/" in review
    assert "| `leaderboard/rows.py` | code | modified |" in review
    assert "| `README.md` | docs | modified |" in others


def test_code_and_workflow_changes_are_named_first_in_every_format(repo):  # noqa: F811
    (repo / "leaderboard").mkdir()
    (repo / "leaderboard/verification.py").write_text("def verified():\n    return True\n")
    (repo / ".github/workflows").mkdir(parents=True)
    (repo / ".github/workflows/pull-request.yml").write_text("on: pull_request\n")
    (repo / "Makefile").write_text("test:\n\ttrue\n")
    (repo / "README.md").write_text("changed\n")
    commit(repo)
    # Run from outside the checkout: `python -m leaderboard` in it would import its leaderboard/.
    result = run_cli("check-pr", "--base", "main", "--repo", repo, cwd=repo.parent)
    assert result.code == 0, result.out + result.err  # named, not failed: a code owner reviews them
    lines = result.out.splitlines()
    assert lines[:3] == [
        "needs a code owner's review (workflow, added): .github/workflows/pull-request.yml",
        "needs a code owner's review (build, added): Makefile",
        "needs a code owner's review (code, added): leaderboard/verification.py",
    ]
    assert "changed outside submissions/ (docs, modified): README.md" in lines
    assert "ignored" not in result.out

    github = run_cli("check-pr", "--base", "main", "--format", "github", "--repo", repo, cwd=repo.parent).out
    github = github.splitlines()
    assert github[2] == (
        "::warning file=leaderboard/verification.py,title=Needs a code owner::code, added: a code owner must "
        "review this change; it can change what runs or what the checks trust"
    )
    assert "::notice file=README.md,title=Changed outside submissions::docs, modified" in github

    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", "--repo", repo, cwd=repo.parent).out
    heading = "### ⚠️ Needs a code owner's review: 3 changed paths outside submissions/"
    assert markdown.index(heading) < markdown.index("### Other changed paths outside submissions/")
    assert "| `leaderboard/verification.py` | code | added |" in markdown


def test_a_mode_change_and_a_symlink_are_named(repo):  # noqa: F811
    (repo / "run.sh").write_text("echo hi\n")
    os.chmod(repo / "run.sh", 0o755)
    (repo / "docs").mkdir()
    os.symlink("/etc/hostname", repo / "docs/notes.md")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert "needs a code owner's review (code, added (executable)): run.sh" in result.out
    assert "changed outside submissions/ (docs, added (symbolic link)): docs/notes.md" in result.out


def test_an_executable_bit_alone_is_named(repo):  # noqa: F811
    (repo / "catalog/extra.sh").write_text("echo hi\n")
    commit(repo)
    git(repo, "branch", "-f", "main", "HEAD")
    os.chmod(repo / "catalog/extra.sh", 0o755)
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert "needs a code owner's review (code, made executable): catalog/extra.sh" in result.out


def test_a_base_url_change_says_old_and_new(repo):  # noqa: F811
    (repo / "catalog/site.yaml").write_text("base_url: https://leaderboard.example.org/\n")
    commit(repo)
    git(repo, "branch", "-f", "main", "HEAD")
    (repo / "catalog/site.yaml").write_text("base_url: https://evil.example.net/\n")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0, result.out
    assert (
        "needs a code owner's review (site config, modified; base_url https://leaderboard.example.org/ -> "
        "https://evil.example.net/): catalog/site.yaml"
    ) == result.out.splitlines()[0]
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    row = next(line for line in markdown.splitlines() if line.startswith("| `catalog/site.yaml` | site config |"))
    # Escaped as every text from the pull request is (review/markdown.py): no live link, no emphasis.
    assert "modified; base\\_url https:" in row and "evil.example.net" in row


def test_a_site_config_that_is_a_link_is_named_and_not_read(repo):  # noqa: F811
    secret = repo.parent / "secret.yaml"
    secret.write_text("base_url: https://secret-marker.example/\n")
    os.symlink(secret, repo / "catalog/site.yaml")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert (
        "needs a code owner's review (site config, added (symbolic link); a symbolic link: not read): catalog/site.yaml"
        in result.out
    )
    assert "secret-marker" not in result.out
