"""check-pr's rank preview: the results just above and below on the board (review/neighbours.py),
and check-pr as a contributor meets it: run from any folder, a comment-only edit, a code-only change."""

import re
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, run_cli
from test_checkpr import commit, entry, git, repo  # noqa: F401  (repo is a fixture)
from test_validate import MLPERF, PUBLISHED

from leaderboard import store
from leaderboard.catalog import load_catalog
from leaderboard.checkpr import PullRequestCheck, preview
from leaderboard.checkpr_report import NO_SUBMISSION_CHANGES, as_markdown, cost_text
from leaderboard.normalize import rank_metric
from leaderboard.review.neighbours import board_link, neighbour_text, placement, rank_text
from leaderboard.rows import table_rows
from leaderboard.tree import Entry
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


def board_row(name: str, minutes: float, chip_hours: float, cost_usd: float | None, models_per_minute: float) -> dict:
    return dict(row(name, minutes), chip_hours=chip_hours, cost_usd=cost_usd, models_per_minute=models_per_minute)


@pytest.mark.parametrize(
    "kind, scaling, which, line",
    [
        # an MLPerf board ranks by minutes (the official score); chip-hours and cost are its other sorts
        (
            "mlperf-training",
            "strong",
            "b",
            "would rank 2 of 3 by minutes, the board's ranking (sorted by chip-hours: 1 of 3; by cost: no cost)",
        ),
        (
            "mlperf-hpc",
            "strong",
            "c",
            "would rank 3 of 3 by minutes, the board's ranking (sorted by chip-hours: 2 of 3; by cost: 1 of 2)",
        ),
        # a weak-scaling board ranks by models per minute, the most first; minutes is its only sort
        # (its results trained different numbers of models: it sorts by neither chip-hours nor cost)
        (
            "mlperf-hpc",
            "weak",
            "b",
            "would rank 1 of 3 by models per minute, the board's ranking (sorted by minutes: 2 of 3)",
        ),
        # a board of published runs ranks by chip-hours: its minutes are only a sort
        (
            "published",
            None,
            "b",
            "would rank 1 of 3 by chip-hours, the board's ranking (sorted by minutes: 2 of 3; by cost: no cost)",
        ),
        (
            "published",
            None,
            "c",
            "would rank 2 of 3 by chip-hours, the board's ranking (sorted by minutes: 3 of 3; by cost: 1 of 2)",
        ),
    ],
    ids=["mlperf", "hpc-strong", "hpc-weak", "published", "published-priced"],
)
def test_the_rank_line_leads_with_the_boards_own_ranking(kind, scaling, which, line):
    group = [
        board_row("a", 10.0, 100.0, 300.0, 0.5),
        board_row("b", 20.0, 50.0, None, 2.0),  # no cost: last when sorted by cost, and no place there
        board_row("c", 30.0, 80.0, 200.0, 1.0),
    ]
    place = placement(next(r for r in group if r["system"] == which), group, rank_metric(kind, scaling))
    assert rank_text(place) == line
    assert place.above is None or place.above.rank <= place.rank  # the neighbours go by the same ranking


CATALOG = load_catalog(ROOT / "catalog")
GRAPHCORE = "no on-demand cost: Graphcore IPUs have no public hourly or list price"  # its no_price_reason
UNPRICED = "no on-demand cost: no on-demand price for Instinct MI250 in the catalog"  # none: the site's words


@pytest.mark.parametrize(
    "text, accelerator, line, cost",
    [
        (
            MLPERF,
            "a100-sxm4-80gb",
            "would rank 2 of 2 by minutes, the board's ranking (sorted by chip-hours: 1 of 2; by cost: 1 of 2)",
            "cost $19.68 on demand (price dated 135 days later)",
        ),
        (
            MLPERF,
            "ipu-gc200",
            "would rank 2 of 2 by minutes, the board's ranking (sorted by chip-hours: 1 of 2; by cost: no cost)",
            GRAPHCORE,
        ),
        (
            MLPERF,
            "mi250",
            "would rank 2 of 2 by minutes, the board's ranking (sorted by chip-hours: 1 of 2; by cost: no cost)",
            UNPRICED,
        ),
        (
            PUBLISHED,
            "tpu-v3",
            "would rank 1 of 2 by chip-hours, the board's ranking (sorted by minutes: 2 of 2; by cost: 1 of 2)",
            "cost $12,288.00 on demand",
        ),
        (
            PUBLISHED,
            "ipu-gc200",
            "would rank 1 of 2 by chip-hours, the board's ranking (sorted by minutes: 2 of 2; by cost: no cost)",
            GRAPHCORE,
        ),
        (
            PUBLISHED,
            "mi250",
            "would rank 1 of 2 by chip-hours, the board's ranking (sorted by minutes: 2 of 2; by cost: no cost)",
            UNPRICED,
        ),
    ],
    ids=[
        "mlperf-priced",
        "mlperf-graphcore",
        "mlperf-unpriced",
        "published-priced",
        "published-graphcore",
        "published-unpriced",
    ],
)
def test_the_preview_of_a_result_says_its_rank_and_why_it_has_no_cost(text, accelerator, line, cost):
    """Beside another result with 8 times the chips, 4 times faster (twice the chip-hours): the
    preview's rank line and its cost, or why it has none, once, in the site's words."""
    ours = yaml.safe_load(text)
    ours["system"]["accelerator"] = accelerator
    other = yaml.safe_load(text)
    other["system"].update(name="other", count=other["system"]["count"] * 8)
    other["result"]["minutes"] /= 4
    entries = [
        Entry("r/acme-labs/ours", "ours.yaml", ours, None),
        Entry("r/acme-labs/other", "other.yaml", other, None),
    ]
    rows = table_rows(entries, CATALOG).results
    shown = preview(rows[0], rows, "added", CATALOG)
    assert (rank_text(shown.placement), cost_text(shown)) == (line, cost)
    # The pull request's comment gives the same cost, with its marks, or the same reason.
    comment = as_markdown(PullRequestCheck("main", previews=[shown]))
    row = next(r for r in comment.splitlines() if r.startswith("| `r/acme-labs/ours`")).replace("\\", "")
    said = cost.removeprefix("cost ").replace(" on demand", "").replace("no on-demand cost: ", "none: ")
    assert f"| {said} |" in row, row


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


def sam_faster() -> dict:
    """Segment Anything a minute faster: just faster than it, below BigGAN-512, an estimate (12,288
    chip-hours) that the vision board lists without a rank."""
    sam = yaml.safe_load((ROOT / "submissions/published/meta-ai/segment-anything-model.yaml").read_text())
    ours = dict(sam, submitter="Acme Labs", model={"name": "Acme-SAM"}, source={"url": "https://example.org/acme"})
    ours["result"] = {"minutes": sam["result"]["minutes"] - 1}
    ours.pop("reference_cost")
    ours.pop("provenance")
    return ours


def graphcore_lm() -> dict:
    """64 Graphcore GC200s for 600 minutes: far higher by minutes than by chip-hours, and no price."""
    return {
        "schema_version": 1,
        "round": "published",
        "benchmark": "language",
        "division": "open",
        "availability": "available",
        "submitter": "Acme Labs",
        "date": "2024-05-01",
        "system": {"name": "64 x Graphcore GC200", "accelerator": "ipu-gc200", "count": 64, "unit": "chip"},
        "model": {"name": "Acme LM"},
        "result": {"minutes": 600},
        "source": {"url": "https://example.com/acme-lm", "citation": "Acme Labs, Acme LM technical report"},
    }


@pytest.mark.parametrize(
    "make, name, benchmark, cost, above",
    [
        (sam_faster, "acme-sam", "vision", r"cost \$[\d,.]+ on demand", "  above: unranked, "),  # the estimate
        (graphcore_lm, "acme-lm", "language", re.escape(GRAPHCORE), "  above: rank "),
    ],
    ids=["vision-priced", "language-graphcore"],
)
def test_the_preview_ranks_as_the_built_board_does(tmp_path, make, name, benchmark, cost, above):
    """The preview leads with the board's own ranking (chip-hours for published runs), and that
    rank is the one the built board gives, among as many ranked results; an estimate the board
    lists without a rank takes none in the preview either."""
    published_repo(tmp_path)
    folder = tmp_path / "submissions/published/acme-labs"
    folder.mkdir()
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(make(), sort_keys=False))
    result = run_cli("check-pr", "--base", "main", cwd=tmp_path)
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()
    start = lines.index(f"added: published/acme-labs/{name} (submissions/published/acme-labs/{name}.yaml)")
    assert re.fullmatch(rf"  published / {benchmark} / open: .* chip-hours, {cost}", lines[start + 1]), lines[start + 1]
    assert len(re.findall(cost, result.out)) == 1  # the cost, or why there is none, is said once
    would = re.fullmatch(
        r"  would rank (\d+) of (\d+) by chip-hours, the board's ranking "
        r"\(sorted by minutes: \d+ of \d+; by cost: (\d+ of \d+|no cost)\)",
        lines[start + 2],
    )
    assert would, lines[start + 2]
    assert lines[start + 3].startswith(above)
    built = run_cli("build", "-q", "--db-only", cwd=tmp_path)
    assert built.code == 0, built.err
    ranks = store.run_query(
        tmp_path / "leaderboard.duckdb",
        f"SELECT (SELECT rank FROM results WHERE entry_id = 'published/acme-labs/{name}'), count(rank) "
        f"FROM results WHERE round = 'published' AND benchmark = '{benchmark}'",
    )[1]
    assert [(int(would[1]), int(would[2]))] == [tuple(r) for r in ranks]
