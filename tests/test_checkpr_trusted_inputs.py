"""`check-pr` reads the plausibility check's own inputs (overrides, compute figures, peak rates)
from the merge base, never from the pull request: a stranger cannot vouch for their own result,
and every change to those records, or to a round, is named in the catalog's effect."""

import shutil

import pytest
from conftest import ROOT, run_cli
from test_checkpr import commit, git

from leaderboard.review.catalog_effect import COMPUTE_LISTED, CatalogEffect, record_lines

# 8 H100 for an hour: GPT-3 175B needs 11,020x the compute they deliver.
FAST_GPT3 = """\
schema_version: 1
round: published
benchmark: language
division: open
availability: available
submitter: Tyche Labs
date: "2025-11-01"
system:
  name: 8 x NVIDIA H100
  accelerator: h100-sxm5-80gb
  count: 8
  unit: chip
model:
  name: GPT-3 175B
  parameters: 175000000000
result:
  minutes: 60
source:
  url: https://example.com/tyche/gpt-3-fast
"""
SUBMISSION = "submissions/published/tyche-labs/gpt-3-fast.yaml"
APPROVER = "@OWNER/maintainers (reviewed 2025-11-21)"
OVERRIDE = f"""\
  - entry_id: published/tyche-labs/gpt-3-fast
    reason: Our optimizer trains GPT-3 in an hour.
    approved_by: "{APPROVER}"
    approved_for: {{accelerator: h100-sxm5-80gb, chips: 8, minutes: 60}}
"""
NOT_YET = "which applies only once a code owner has merged it"


@pytest.fixture
def repo(tmp_path):
    """The shipped catalog, no submission, in a git repository: branch pr on main."""
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    (tmp_path / "submissions").mkdir()
    (tmp_path / "README.md").write_text("x\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    return tmp_path


def submit(repo):
    path = repo / SUBMISSION
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FAST_GPT3)


def append(repo, name: str, text: str) -> None:
    path = repo / "catalog" / name
    path.write_text(path.read_text() + text)


def replace_in(repo, name: str, old: str, new: str) -> None:
    path = repo / "catalog" / name
    assert path.read_text().count(old) == 1
    path.write_text(path.read_text().replace(old, new))


def every_format(repo) -> dict[str, str]:
    return {
        f: run_cli("check-pr", "--base", "main", "--format", f, cwd=repo).out for f in ("text", "markdown", "github")
    }


def test_an_override_the_pull_request_writes_for_its_own_result_does_not_apply(repo):
    submit(repo)
    append(repo, "plausibility-overrides.yaml", OVERRIDE)
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out
    failure = next(line for line in result.out.splitlines() if line.startswith(SUBMISSION))
    assert "below the compute floor" in failure and "11,020x too little" in failure
    assert ("this pull request adds an override for it in catalog/plausibility-overrides.yaml, " + NOT_YET) in failure
    # The effect names the override; no output shows the approval the pull request wrote itself.
    assert "plausibility override published/tyche-labs/gpt-3-fast: added" in result.out
    for name, out in every_format(repo).items():
        assert "OWNER/maintainers" not in out and "reviewed 2025-11-21" not in out, name
        assert "Our optimizer" not in out, name
        assert "Let through by a plausibility override" not in out, name


def test_the_same_override_merged_first_lets_the_result_through(repo):
    # A maintainer merges the override on its own; the result's pull request then passes.
    git(repo, "checkout", "-q", "main")
    append(repo, "plausibility-overrides.yaml", OVERRIDE.replace(APPROVER, "some-maintainer"))
    git(repo, "commit", "-qam", "override, merged by a maintainer")
    git(repo, "checkout", "-q", "-b", "result")
    submit(repo)
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0, result.out
    assert "  let through: Our optimizer trains GPT-3 in an hour. (approved by some-maintainer)" in result.out
    # ...while a pull request that changes that override cannot use its own version.
    replace_in(repo, "plausibility-overrides.yaml", "some-maintainer", "someone-else")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert "approved by some-maintainer" in result.out and "someone-else" not in result.out
    assert "this pull request changes an override for it" in result.out
    assert "plausibility override published/tyche-labs/gpt-3-fast: approved_by changed" in result.out


def test_a_training_compute_the_pull_request_lowers_does_not_lower_the_floor(repo):
    submit(repo)
    replace_in(
        repo,
        "compute-epoch.yaml",
        "- model: GPT-3 175B (davinci)\n  flop: 3.14e+23",
        "- model: GPT-3 175B (davinci)\n  flop: 2.5e+19",
    )
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out
    assert "needs at least 2.5e19" not in result.out
    failure = next(line for line in result.out.splitlines() if line.startswith(SUBMISSION))
    assert (
        "the training needs at least 3.14e23 FLOP (Epoch AI, Training compute (FLOP) of 'GPT-3 175B (davinci)')"
        in failure
    )
    assert (
        "this pull request changes the compute figure its training is held to in catalog/compute-epoch.yaml "
        f"(3.14e23 -> 2.5e19 FLOP), {NOT_YET}"
    ) in failure
    assert (
        "  compute figure (catalog/compute-epoch.yaml) training compute of 'GPT-3 175B (davinci)': 3.14e23 -> 2.5e19 FLOP"
        in result.out
    )


def test_a_peak_rate_the_pull_request_raises_does_not_apply(repo):
    submit(repo)
    replace_in(
        repo,
        "compute-epoch.yaml",
        "flop_s: 989400000000000\n  precision: tensor FP16/BF16\n  hardware: NVIDIA H100 SXM5 80GB",
        "flop_s: 1.0e+20\n  precision: tensor FP16/BF16\n  hardware: NVIDIA H100 SXM5 80GB",
    )
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out
    failure = next(line for line in result.out.splitlines() if line.startswith(SUBMISSION))
    assert "peak 9.894e14 FLOP/s (tensor FP16/BF16, NVIDIA H100 SXM5 80GB) x 8 chips" in failure
    assert (
        f"this pull request changes the peak FLOP/s of h100-sxm5-80gb in catalog/compute-epoch.yaml (9.894e14 -> 1e20 FLOP/s), {NOT_YET}"
        in failure
    )
    assert (
        "compute figure (catalog/compute-epoch.yaml) peak FLOP/s of h100-sxm5-80gb: 9.894e14 -> 1e20 FLOP/s"
        in result.out
    )


def test_a_round_the_pull_request_adds_is_in_the_catalogs_effect(repo):
    append(
        repo,
        "rounds.yaml",
        "  - id: mlperf-training-v6.0\n    name: MLPerf Training v6.0\n    kind: published\n"
        '    date: "2026-06-01"\n    url: https://mlcommons.org/benchmarks/training/\n',
    )
    commit(repo)
    outputs = every_format(repo)
    added = "round mlperf-training-v6.0: added, 'MLPerf Training v6.0' of kind 'published' (0 results)"
    assert f"  {added}" in outputs["text"]
    assert added.replace("(", "\\(").replace(")", "\\)") in outputs["markdown"]
    assert "Catalog records changed" in outputs["github"]


def test_a_comment_lists_the_first_compute_figures_and_counts_the_rest():
    """A re-import of compute-epoch.yaml changes hundreds of figures: the comment lists the first
    COMPUTE_LISTED and says how many more, so what follows it still fits in the comment."""
    effect = CatalogEffect(compute=[f"training compute of 'M{i}': 1e20 -> 2e20 FLOP" for i in range(45)])
    lines = record_lines(effect, COMPUTE_LISTED)
    assert len(lines) == COMPUTE_LISTED + 1
    assert (
        lines[-1]
        == "5 more compute figures changed (catalog/compute-epoch.yaml): check-pr's text output lists every one"
    )
    assert len(record_lines(effect)) == 45
