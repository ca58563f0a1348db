"""The GitHub workflows, CODEOWNERS, pre-commit hooks and pull-request template: valid against the
public workflow schema (vendored from check-jsonschema, SchemaStore, Apache-2.0) and safe by design."""

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT

from leaderboard.files import load

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
SCHEMA = json.loads((Path(__file__).parent / "schemas" / "github-workflows.json").read_text())


def workflow(name: str) -> dict:
    doc = load(ROOT / ".github" / "workflows" / name)  # keys stay text: `on` is not read as true
    assert doc.problems == []
    return doc.data


def schema_errors(data: dict) -> list[str]:
    return [e.message for e in jsonschema.Draft7Validator(SCHEMA).iter_errors(data)]


def test_there_are_three_workflows():
    assert [p.name for p in WORKFLOWS] == ["main.yml", "pull-request-comment.yml", "pull-request.yml"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_is_valid_against_the_public_schema(path):
    assert schema_errors(workflow(path.name)) == []


def test_a_typo_fails_the_schema():
    data = workflow("main.yml")
    data["jobs"]["test"]["runs_on"] = data["jobs"]["test"].pop("runs-on")
    assert schema_errors(data)


def steps(data: dict):
    for job in data["jobs"].values():
        yield from job.get("steps", [])


def test_pull_request_check_runs_on_every_pull_request():
    trigger = workflow("pull-request.yml")["on"]["pull_request"] or {}
    # A path or branch filter would let a pull request that only adds submission/x.yaml (or a
    # .txt under submissions/) pass without the check that reports it.
    # A code-only pull request is checked too; its comment says it changes no submission
    # (checkpr_report.NO_SUBMISSION_CHANGES, tested in test_neighbours.py).
    assert not {"paths", "paths-ignore", "branches", "branches-ignore"} & set(trigger), trigger


def checkouts(job: dict) -> list[dict]:
    return [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout")]


def runs(job: dict) -> str:
    return "\n".join(s.get("run", "") for s in job["steps"])


def scripts(job: dict) -> str:
    return "\n".join(s.get("with", {}).get("script", "") for s in job["steps"])


def test_pull_request_check_runs_trusted_code_with_read_only_permissions():
    data = workflow("pull-request.yml")
    assert set(data["on"]) == {"pull_request"}  # never pull_request_target
    assert data["permissions"] == {"contents": "read"}
    assert all(job.get("permissions", {"contents": "read"}) == {"contents": "read"} for job in data["jobs"].values())
    check = data["jobs"]["check"]
    assert checkouts(check)[0]["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert all(s["with"]["persist-credentials"] is False for job in data["jobs"].values() for s in checkouts(job))
    assert "trusted/.venv/bin/leaderboard check-pr --repo pr" in runs(check)
    assert "make -C trusted install" in runs(check) and "make -C pr" not in runs(check)
    assert "pip install -e pr" not in runs(check)


def test_pull_request_workflow_hands_nothing_on():
    # Its artifact was once the comment's text; nothing of this run is trusted any more.
    data = workflow("pull-request.yml")
    assert not [s for s in steps(data) if "artifact" in s.get("uses", "")]
    assert "secrets." not in json.dumps(data)


def test_pull_request_runs_the_test_suite_when_anything_outside_submissions_changes():
    data = workflow("pull-request.yml")
    changes, test = data["jobs"]["changes"], data["jobs"]["test"]
    # Decided by git itself against the merge base, with no third-party action.
    assert [s["uses"].split("@")[0] for s in changes["steps"] if "uses" in s] == ["actions/checkout"]
    assert checkouts(changes)[0]["with"]["fetch-depth"] == 0
    diff = runs(changes)
    assert "git merge-base" in diff and "git diff --name-only" in diff and "^submissions/" in diff
    assert test["needs"] == "changes"
    assert test["if"] == "needs.changes.outputs.outside_submissions == 'true'"
    assert changes["outputs"]["outside_submissions"] == "${{ steps.diff.outputs.outside_submissions }}"
    # The whole suite, in Debian as main.yml runs it, read-only and without secrets.
    assert test["container"] == data["jobs"]["test"]["container"] == "python:3.11-bookworm"
    assert test["permissions"] == {"contents": "read"}
    assert "make test" in runs(test)


@pytest.mark.parametrize(
    "changed, outside",
    [
        (["submissions/published/google/bert-large.yaml"], "false"),
        (["submissions/published/google/bert-large.yaml", "leaderboard/verification.py"], "true"),
        (["catalog/prices.yaml"], "true"),
        (["submission/x.yaml"], "true"),
        ([".github/workflows/pull-request.yml"], "true"),
    ],
)
def test_the_changes_step_tells_code_from_submissions(tmp_path, changed, outside):
    """The step's own shell, run on a real repository: a base commit, then the changes."""
    step = next(s for s in workflow("pull-request.yml")["jobs"]["changes"]["steps"] if s.get("id") == "diff")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "README.md").write_text("base\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    base = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    for name in changed:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("changed\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "change"], check=True)
    output = tmp_path / "output"
    env = {"BASE_SHA": base, "GITHUB_OUTPUT": str(output), "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, check=True, capture_output=True)
    assert f"outside_submissions={outside}" in output.read_text().splitlines()


def test_commenting_workflow_computes_the_comment_with_trusted_code():
    data = workflow("pull-request-comment.yml")
    assert set(data["on"]) == {"workflow_run"}
    assert data["on"]["workflow_run"]["workflows"] == [workflow("pull-request.yml")["name"]]
    text = json.dumps(data)  # what runs, comments aside
    # Nothing produced by the pull request's own run is read: no artifact, no number from a file.
    assert "artifact" not in text.lower() and "pr-number" not in text
    # The archives come from the release, checksummed, for forks too: no repository variable.
    assert "vars." not in text and "MLPERF_DATA" not in text
    check = data["jobs"]["check"]
    trusted, pr = checkouts(check)
    assert trusted["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    assert trusted["with"]["path"] == "trusted"
    assert pr["with"]["ref"] == "${{ github.event.workflow_run.head_sha }}"
    assert pr["with"]["repository"] == "${{ github.event.workflow_run.head_repository.full_name }}"
    assert pr["with"]["path"] == "pr"
    assert trusted["with"]["persist-credentials"] is False and pr["with"]["persist-credentials"] is False
    commands = runs(check)
    # The pull request's folder is data: nothing in it is built, installed or run.
    assert not re.search(r"make -C pr|pip install[^\n]* pr|(^|\s)pr/\S+\.(sh|py)|bash pr/|python pr/", commands)
    assert "make -C trusted install" in commands and "make -C trusted reimport" in commands
    run_check = next(s for s in check["steps"] if s.get("id") == "check")["run"]
    assert "trusted/.venv/bin/leaderboard check-pr --repo pr" in run_check
    assert "--format markdown" in run_check and "--reimported" in run_check and "> comment.md" in run_check
    post = scripts(check)
    assert "readFileSync('comment.md'" in post and "createCommitStatus" in post and "updateComment" in post
    assert "head.sha !== run.head_sha" in post


def test_commenting_workflow_finds_the_pull_request_without_trusting_the_run():
    find = workflow("pull-request-comment.yml")["jobs"]["find"]
    script = scripts(find)
    assert "run.pull_requests" in script and "pulls.list" in script and "p.head.sha === run.head_sha" in script
    # another fork's pull request with the same head commit cannot make it ambiguous (and unchecked)
    assert "p.head.repo.full_name === from" in script and "run.head_repository.full_name" in script
    assert "readFileSync" not in script


def test_the_comment_is_never_cut_unseen():
    post = scripts(workflow("pull-request-comment.yml")["jobs"]["check"])
    assert "text.slice(0, 60000)" not in post
    assert "This comment is cut short" in post


def test_commenting_workflow_has_least_privilege_per_job():
    data = workflow("pull-request-comment.yml")
    assert data["permissions"] == {}
    assert data["jobs"]["find"]["permissions"] == {"pull-requests": "read"}
    assert data["jobs"]["check"]["permissions"] == {"contents": "read", "pull-requests": "write", "statuses": "write"}


def test_the_reimport_fetches_checksummed_archives_and_imports_into_a_new_folder(tmp_path):
    """`make reimport` (which both workflows run from the base's checkout), as make would run it."""
    done = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "reimport", f"ARCHIVES={tmp_path}/a", f"FRESH={tmp_path}/f", "FETCH=--from X"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line for line in done.stdout.splitlines() if "leaderboard" in line or "catalog" in line]
    order = [next(i for i, line in enumerate(lines) if word in line) for word in ("fetch-archives", "import-mlperf")]
    assert order == sorted(order)
    assert f'fetch-archives --to "{tmp_path}/a" --from X' in done.stdout
    assert f'rm -rf "{tmp_path}/f/catalog/verified" "{tmp_path}/f/catalog/imported" "{tmp_path}/f/catalog/skipped"' in (
        done.stdout
    )
    assert f'--out "{tmp_path}/f/submissions"' in done.stdout and f'--catalog "{tmp_path}/f/catalog"' in done.stdout
    assert "import-epoch" in done.stdout


def test_codeowners_cover_everything_but_submissions():
    lines = [
        line.split()
        for line in (ROOT / ".github" / "CODEOWNERS").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    owner = re.compile(r"^@[A-Za-z0-9-]+(/[A-Za-z0-9_-]+)?$")  # @user or @org/team: GitHub's forms
    assert all(owner.match(name) for _, *owners in lines for name in owners)
    owned = {pattern for pattern, *owners in lines if owners}
    assert lines[0][0] == "*" and ["/submissions/"] in lines
    for path in ("catalog/", "leaderboard/", "schemas/", ".github/", "Makefile", "pyproject.toml", "requirements.lock"):
        assert "/" + path in owned
    for path in ("web/package.json", "web/package-lock.json", ".ci/", "tests/"):
        assert "/" + path in owned


def test_no_untrusted_event_text_is_interpolated_into_scripts():
    untrusted = re.compile(
        r"\$\{\{\s*github\.(event\.(pull_request|issue|comment|review|head_commit)\.(title|body|"
        r"head\.ref|label)|head_ref)"
    )
    for path in WORKFLOWS:
        for step in steps(workflow(path.name)):
            assert not untrusted.search(step.get("run", "")), (path.name, step.get("name"))


def test_deploy_job_alone_may_write_pages():
    data = workflow("main.yml")
    assert data["permissions"] == {"contents": "read"}
    assert data["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert "make test" in [s.get("run") for s in data["jobs"]["test"]["steps"]]


def test_the_published_site_is_drawn_by_its_builds_own_workers():
    """The site deployed is drawn by the build's own worker processes: no drawing server, which
    outlives a build, is started or trusted by it (render/drawing_server.py)."""
    build = workflow("main.yml")["jobs"]["build"]["steps"]
    step = next(s for s in build if s.get("run") == "make site")
    assert step["env"]["LEADERBOARD_DRAWING_SERVER_IDLE"] == "0"


def test_pre_commit_files():
    hooks = load(ROOT / ".pre-commit-hooks.yaml").data
    assert hooks[0]["id"] == "leaderboard-validate" and hooks[0]["entry"].startswith("leaderboard validate")
    config = load(ROOT / ".pre-commit-config.yaml").data
    ours = [hook for repo in config["repos"] for hook in repo["hooks"] if hook["id"] == "leaderboard-validate"]
    ids = {hook["id"] for repo in config["repos"] for hook in repo["hooks"]}
    assert {"ruff", "ruff-format", "check-metaschema", "leaderboard-validate"} <= ids
    for pattern in (hooks[0]["files"], ours[0]["files"]):
        # Every file under submissions/ reaches validate, which fails one that is not an entry;
        # in catalog/ only data files (its vendored sources are not checked).
        for name in (
            "submissions/published/google/bert-large.yaml",
            "submissions/published/google/bert-large.txt",
            "submissions/README.md",
            "catalog/rounds.yaml",
        ):
            assert re.search(pattern, name), (pattern, name)
        for name in ("catalog/mlperf-logging/README.md", "README.md", "leaderboard/cli.py"):
            assert not re.search(pattern, name), (pattern, name)


def test_schemas_are_valid_against_their_metaschema():
    for path in sorted((ROOT / "schemas").glob("*.schema.json")):
        body = json.loads(path.read_text())
        jsonschema.validators.validator_for(body).check_schema(body)


def test_pull_request_template_has_the_reviewer_checklist():
    text = (ROOT / ".github" / "pull_request_template.md").read_text()
    for item in ("Source of the numbers", "Chip count and unit", "Division rules", "Prices"):
        assert f"**{item}**" in text


def test_contributing_names_the_status_and_the_jobs_branch_protection_requires():
    from leaderboard.docs import TRUSTED_STATUS

    post = scripts(workflow("pull-request-comment.yml")["jobs"]["check"])
    assert post.count(f"context: '{TRUSTED_STATUS}'") == 2  # pending, then the verdict
    guide = (ROOT / "CONTRIBUTING.md").read_text()
    assert f"**`{TRUSTED_STATUS}`**" in guide and "require review from Code\n  Owners" in guide
    assert {"check", "test"} <= set(workflow("pull-request.yml")["jobs"])
    assert "the jobs `check` and `test`" in guide
