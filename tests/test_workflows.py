"""The GitHub workflows, pre-commit hooks and pull-request template: valid against the public
workflow schema (vendored from check-jsonschema, SchemaStore, Apache-2.0) and safe by design."""

import json
import re
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
    assert not {"paths", "paths-ignore", "branches", "branches-ignore"} & set(trigger), trigger


def test_pull_request_check_runs_trusted_code_with_read_only_permissions():
    data = workflow("pull-request.yml")
    assert set(data["on"]) == {"pull_request"}  # never pull_request_target
    assert data["permissions"] == {"contents": "read"}
    checkouts = [s for s in steps(data) if s.get("uses", "").startswith("actions/checkout")]
    assert checkouts[0]["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)
    runs = "\n".join(s.get("run", "") for s in steps(data))
    assert "trusted/.venv/bin/leaderboard check-pr --repo pr" in runs
    assert "make -C trusted install" in runs and "make -C pr" not in runs and "pip install -e pr" not in runs


def test_commenting_workflow_has_only_the_permissions_it_needs_and_runs_nothing_from_the_pr():
    data = workflow("pull-request-comment.yml")
    assert set(data["on"]) == {"workflow_run"}
    assert data["permissions"] == {"pull-requests": "write", "actions": "read"}
    assert not [s for s in steps(data) if "checkout" in s.get("uses", "") or "run" in s]
    script = [s for s in steps(data) if s.get("uses", "").startswith("actions/github-script")][0]["with"]["script"]
    assert "updateComment" in script and "head.sha" in script


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
