"""check-pr's rank preview: the results just above and below on the board (review/neighbours.py),
and check-pr as a contributor meets it: run from any folder, a comment-only edit, a code-only change."""

import shutil
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, run_cli
from test_checkpr import commit, entry, git, repo  # noqa: F401  (repo is a fixture)

from leaderboard import store
from leaderboard.checkpr import NO_SUBMISSION_CHANGES
from leaderboard.review.neighbours import board_link, neighbour_text, placement
from leaderboard.verification import NO_FIELD_CHANGED


def row(name: str, value: float | None, submitter: str = "Acme") -> dict:
    return {
        "entry_id": f"r/{name}",
        "system": name,
        "submitter": submitter,
        "round": "published",
        "benchmark": "language",
        "division": "open",
        "minutes": value,
        "chip_hours": value,
        "models_per_minute": value,
    }


@pytest.mark.parametrize(
    "values, metric, which, rank, out_of, above, below",
    [
        ([1.0, 2.0, 3.0], "minutes", 1, 2, 3, "a", "c"),  # the middle one: one on each side
        ([1.0, 2.0, 3.0], "minutes", 0, 1, 3, None, "b"),  # the fastest: nothing above
        ([3.0, 2.0, 1.0], "minutes", 0, 3, 3, "b", None),  # the slowest, given first: nothing below
        ([1.0, 2.0, 3.0], "models_per_minute", 2, 1, 3, None, "b"),  # more is better
        ([2.0, 2.0, 5.0], "chip_hours", 1, 1, 3, "a", "c"),  # a tie: the earlier one above, same rank
        ([None, 1.0, 2.0], "minutes", 0, None, 2, "c", None),  # no value: last, unranked
        ([4.0], "minutes", 0, 1, 1, None, None),  # alone on its board
    ],
)
def test_placement(values, metric, which, rank, out_of, above, below):
    group = [row(name, value) for name, value in zip("abc", values, strict=False)]
    place = placement(group[which], group, metric)
    assert (place.rank, place.out_of) == (rank, out_of)
    assert (place.above.system if place.above else None, place.below.system if place.below else None) == (above, below)
    assert place.board == "boards/published/language.html#h-open"


def test_board_link_and_text():
    assert board_link("mlperf-training-v1.1", "resnet", "closed") == "boards/mlperf-training-v1.1/resnet.html#h-closed"
    assert (
        board_link("published", "language", "open", "https://example.org/lb/")
        == "https://example.org/lb/boards/published/language.html#h-open"
    )
    group = [row("a", 1.0, "Acme Labs"), row("b", 2.0)]
    place = placement(group[1], group, "chip_hours")
    assert neighbour_text(place.above, "chip_hours", "above") == "above: rank 1, a (Acme Labs), 1 chip-hours"
    assert neighbour_text(place.below, "chip_hours", "below") == "below: none (last on the board)"


def published_repo(folder: Path) -> None:
    """A repository of the shipped catalog and published runs, committed on main."""
    shutil.copytree(ROOT / "catalog", folder / "catalog")
    shutil.copytree(ROOT / "submissions" / "published", folder / "submissions" / "published")
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "base")


def test_the_preview_names_the_neighbours_on_a_real_board(tmp_path):
    """The shipped published runs: a new run a minute slower than BERT-Large (16 Cloud TPU v3
    devices, 6,144 chip-hours) sits just below it, above the next slower real run."""
    published_repo(tmp_path)
    bert = yaml.safe_load((ROOT / "submissions/published/google/bert-large.yaml").read_text())
    ours = dict(bert, submitter="Acme Labs", model={"name": "Acme-BERT"}, source={"url": "https://example.org/acme"})
    ours["result"] = {"minutes": bert["result"]["minutes"] + 1}
    folder = tmp_path / "submissions/published/acme-labs"
    folder.mkdir()
    (folder / "acme-bert.yaml").write_text(yaml.safe_dump(ours, sort_keys=False))
    result = run_cli("check-pr", "--base", "main", cwd=folder)  # from the submitter's own folder
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()
    start = lines.index("added: published/acme-labs/acme-bert (submissions/published/acme-labs/acme-bert.yaml)")
    above, below, board = lines[start + 3 : start + 6]
    assert above.startswith("  above: rank ") and above.endswith(", 16 Cloud TPU v3 devices (Google), 6,144 chip-hours")
    assert below.startswith("  below: rank ") and below.endswith(" chip-hours")
    assert float(below.rsplit(", ", 1)[1].split()[0].replace(",", "")) >= 6144 * 5761 / 5760
    assert int(below.split()[2].rstrip(",")) > int(above.split()[2].rstrip(","))
    assert board == "  board: boards/published/language.html#h-open"
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=folder).out
    assert "### Neighbours on the board" in markdown
    assert "16 Cloud TPU v3 devices \\(Google\\), 6,144 chip-hours" in markdown
    assert "| `boards/published/language.html#h-open` |" in markdown


def test_check_pr_runs_from_any_folder_of_the_repository(repo):  # noqa: F811
    folder = repo / "submissions/mlperf-training-v1.1/acme-labs"
    (folder / "acme-8.yaml").write_text(entry("acme-8", 8, 0.2))
    commit(repo)
    at_root = run_cli("check-pr", "--base", "main", cwd=repo)
    inside = run_cli("check-pr", "--base", "main", cwd=folder)
    pointed = run_cli("check-pr", "--base", "main", "--repo", str(folder), cwd=repo.parent)
    assert "modified: submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml" in at_root.out
    assert inside.out == at_root.out == pointed.out and inside.code == at_root.code == 1
    assert "result.minutes: 29.0 -> 0.2" in inside.out and "above: none (first on the board)" in inside.out


def test_a_comment_only_edit_says_no_field_changed(repo):  # noqa: F811
    path = repo / "submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml"
    path.write_text("# checked against the published log\n" + path.read_text())
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert "changes ()" not in result.out and "()" not in result.out
    assert f"modified: submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml\n  {NO_FIELD_CHANGED}\n" in result.out
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    assert "| `submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml` | no field changed" in markdown


def test_a_code_only_pull_request_says_it_changes_no_submission(repo):  # noqa: F811
    (repo / "README.md").write_text("better words\n")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo)
    assert result.code == 0, result.out + result.err
    assert NO_SUBMISSION_CHANGES in result.out and "Where the entries would rank" not in result.out
    with_entry = repo / "submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml"
    with_entry.write_text(entry("acme-8", 8, 0.2))
    commit(repo)
    assert NO_SUBMISSION_CHANGES not in run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out


@pytest.mark.parametrize(
    "unranked, which, rank, out_of, above",
    [
        ("a", 1, 1, 2, "a"),  # below a result listed without a rank: ranked first, the other shown unranked
        ("b", 2, 2, 2, "b"),  # two ranked (a, c), the unranked b between them takes no rank
        ("c", 2, 3, 3, "b"),  # the entry itself listed without a rank: placed among the ranked ones
    ],
)
def test_a_result_listed_without_a_rank_takes_none_in_the_preview(unranked, which, rank, out_of, above):
    group = [row(name, value) for name, value in zip("abc", [1.0, 2.0, 3.0], strict=True)]
    next(r for r in group if r["system"] == unranked)["unranked_reason"] = "estimate"
    place = placement(group[which], group, "chip_hours")
    assert (place.rank, place.out_of, place.above.system) == (rank, out_of, above)
    if above == unranked:
        assert place.above.rank is None and neighbour_text(place.above, "chip_hours", "above").startswith(
            "above: unranked"
        )


def test_the_preview_ranks_as_the_built_board_does(tmp_path):
    """The shipped vision board lists estimates without a rank (BigGAN-512, 12,288 chip-hours): a new
    run just faster than Segment Anything ranks as the board then ranks it, not one place lower."""
    published_repo(tmp_path)
    sam = yaml.safe_load((ROOT / "submissions/published/meta-ai/segment-anything-model.yaml").read_text())
    ours = dict(sam, submitter="Acme Labs", model={"name": "Acme-SAM"}, source={"url": "https://example.org/acme"})
    ours["result"] = {"minutes": sam["result"]["minutes"] - 1}
    ours.pop("reference_cost")
    ours.pop("provenance")
    folder = tmp_path / "submissions/published/acme-labs"
    folder.mkdir()
    (folder / "acme-sam.yaml").write_text(yaml.safe_dump(ours, sort_keys=False))
    result = run_cli("check-pr", "--base", "main", cwd=tmp_path)
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()
    start = lines.index("added: published/acme-labs/acme-sam (submissions/published/acme-labs/acme-sam.yaml)")
    would = lines[start + 2]
    preview = int(would.split("chip-hours ")[1].split(" of ")[0]), int(would.split(" of ")[2].split(",")[0])
    assert lines[start + 3].startswith("  above: unranked, ")  # an estimate, listed without a rank
    built = run_cli("build", "-q", "--db-only", cwd=tmp_path)
    assert built.code == 0, built.err
    ranks = store.run_query(
        tmp_path / "leaderboard.duckdb",
        "SELECT (SELECT rank FROM results WHERE entry_id = 'published/acme-labs/acme-sam'), count(rank) "
        "FROM results WHERE round = 'published' AND benchmark = 'vision'",
    )[1]
    assert [preview] == [tuple(r) for r in ranks]
