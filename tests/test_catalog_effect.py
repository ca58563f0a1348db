"""A catalog change shows its effect: check-pr builds every submission's rows with the base
branch's catalog and with the pull request's and says how many results move, and how far."""

import datetime as dt
import os
import shutil
import subprocess

import pytest
import yaml
from conftest import ROOT, run_cli
from test_checkpr import commit, git, repo  # noqa: F401 - the fixture: a git repository, branch pr on main
from test_validate import PUBLISHED

from leaderboard.catalog import Accelerator, Catalog, Price, load_catalog
from leaderboard.inflation import dollars_of
from leaderboard.review.catalog_effect import (
    Move,
    compare,
    cost_ranks,
    far_prices,
    price_lines,
    rows_with,
)
from leaderboard.review.catalog_records import accelerator_changes
from leaderboard.rows import TableRows, comparison_rows


def row(entry_id, cost, chip_hours=1.0, verified=False, rank=1, group=("r", "b", "closed")):
    return {
        "entry_id": entry_id,
        "round": group[0],
        "benchmark": group[1],
        "division": group[2],
        "cost_usd": cost,
        "chip_hours": chip_hours,
        "verified": verified,
        "rank": rank,
        "accelerator": "x",
    }


def rows(*results, spot=None):
    costs = [{"entry_id": r["entry_id"], "tier": "on-demand", "cost_usd": r["cost_usd"]} for r in results]
    costs += [{"entry_id": e, "tier": "spot", "cost_usd": c} for e, c in (spot or {}).items()]
    return TableRows(list(results), costs, [])


def test_cost_ranks_are_per_board_and_none_without_a_cost():
    ranked = cost_ranks([row("a", 3.0), row("b", 1.0), row("c", None), row("d", 9.0, group=("r", "b", "open"))])
    assert ranked == {"a": 2, "b": 1, "c": None, "d": 1}


COMPARISONS = [
    # (name, before, after, field, expected)
    ("nothing moves", rows(row("a", 1.0)), rows(row("a", 1.0)), "cost_or_rank", 0),
    ("a cost moves, its rank stays", rows(row("a", 1.0)), rows(row("a", 0.5)), "cost", {"on-demand": 1}),
    (
        "a cost moves past another: both ranks change",
        rows(row("a", 1.0), row("b", 2.0)),
        rows(row("a", 3.0), row("b", 2.0)),
        "cost_rank",
        2,
    ),
    (
        "cost or rank: the union",
        rows(row("a", 1.0), row("b", 2.0), row("c", 5.0)),
        rows(row("a", 3.0), row("b", 2.0), row("c", 5.0)),
        "cost_or_rank",
        2,
    ),
    ("another tier", rows(row("a", 1.0), spot={"a": 0.3}), rows(row("a", 1.0), spot={"a": 0.2}), "cost", {"spot": 1}),
    ("chip-hours", rows(row("a", 1.0, chip_hours=2.0)), rows(row("a", 1.0, chip_hours=4.0)), "chip_hours", 1),
    ("verified", rows(row("a", 1.0, verified=True)), rows(row("a", 1.0)), "verified", 1),
    ("rank on its board", rows(row("a", 1.0, rank=1)), rows(row("a", 1.0, rank=2)), "rank", 1),
    ("leaves the boards", rows(row("a", 1.0), row("b", 1.0)), rows(row("a", 1.0)), "left", ["b"]),
    ("joins them", rows(row("a", 1.0)), rows(row("a", 1.0), row("b", 1.0)), "joined", ["b"]),
]


@pytest.mark.parametrize("name, before, after, field, expected", COMPARISONS, ids=[c[0] for c in COMPARISONS])
def test_compare(name, before, after, field, expected):
    found = getattr(compare(before, after), field)
    if isinstance(expected, dict):
        assert {k: found[k] for k in expected} == expected
        assert sum(found.values()) == sum(expected.values())
    else:
        assert found == expected


def test_the_largest_moves_come_first_either_way():
    before = rows(row("a", 10.0), row("b", 10.0), row("c", 10.0), row("d", None), row("e", 10.0))
    after = rows(row("a", 5.0), row("b", 100.0), row("c", 10.0), row("d", 1.0), row("e", 9.0))
    largest = compare(before, after, largest=3).largest
    assert [m.entry_id for m in largest] == ["d", "b", "a"]  # a cost appearing, then x10, then x0.5
    assert largest[1] == Move("b", "r / b / closed", 10.0, 100.0, 1, 5)
    assert largest[2].factor == 0.5


def accelerator(**changes):
    fields = {"id": "h100", "vendor": "NVIDIA", "name": "H100", "chips_per_device": 1.0, "aliases": ()}
    return Accelerator(**{**fields, "release_date": "2022-09-20", **changes})


ACCELERATOR_CHANGES = [
    # (before, after, line)
    (accelerator(), accelerator(name="H100 SXM"), "h100: name 'H100' -> 'H100 SXM' (3 results)"),
    (accelerator(), accelerator(chips_per_device=8.0), "h100: chips_per_device 1.0 -> 8.0 (3 results)"),
    (
        accelerator(),
        accelerator(release_date="2019-01-01"),
        "h100: release_date '2022-09-20' -> '2019-01-01' (3 results)",
    ),
    (accelerator(), None, "h100: removed (3 results)"),
    (None, accelerator(), "h100: added (3 results)"),
    (accelerator(), accelerator(), None),
]


@pytest.mark.parametrize("before, after, line", ACCELERATOR_CHANGES)
def test_accelerator_changes(before, after, line):
    catalogs = [Catalog(accelerators={a.id: a} if a else {}) for a in (before, after)]
    assert accelerator_changes(*catalogs, {"h100": 3}) == ([line] if line else [])


def price(usd, tier="on-demand", unit="chip-hour", date="2023-01-01"):
    return Price("h100", "P", tier, usd, unit, date, "https://p.example/")


FAR = [
    # (the other prices, the added one, flagged)
    ([2.0, 3.0, 4.0], price(0.05), True),
    ([2.0, 3.0, 4.0], price(0.99), True),  # below a third of the median, 3.0
    ([2.0, 3.0, 4.0], price(1.0), False),  # a third exactly
    ([2.0, 3.0, 4.0], price(9.0), False),
    ([2.0, 3.0, 4.0], price(9.5), True),
    ([2.0, 3.0, 4.0], price(24.0, unit="device-hour"), False),  # 8 chips a device: 3.0 per chip-hour
    ([2.0, 3.0, 4.0], price(3.0, tier="spot"), False),  # no other spot price to compare with
    ([30000.0], price(500.0, tier="purchase", unit="chip"), True),
]


@pytest.mark.parametrize("others, added, flagged", FAR)
def test_far_prices(others, added, flagged):
    part = accelerator(id="h100", chips_per_device=8.0)
    catalog = Catalog(accelerators={"h100": part}, prices=[price(p) for p in others] + [added])
    if added.tier == "purchase":
        catalog.prices = [price(p, tier="purchase", unit="chip") for p in others] + [added]
    found = far_prices([added], catalog)
    assert bool(found) == flagged
    if found:
        assert found[0].others == len(others)


# ---- check-pr on a git repository --------------------------------------------------------------


def test_chips_per_device_and_a_rename_show_in_the_effect(repo):  # noqa: F811
    folder = repo / "submissions/published/acme-labs"
    folder.mkdir(parents=True)
    (folder / "acme-lm.yaml").write_text(PUBLISHED)
    commit(repo)
    git(repo, "branch", "-f", "main", "HEAD")
    path = repo / "catalog/accelerators.yaml"
    text = path.read_text()
    tpu = text.index("  - id: tpu-v3")
    changed = (
        text[tpu:]
        .replace("chips_per_device: 4 ", "chips_per_device: 8 ", 1)
        .replace("name: TPU v3", "name: TPU v3e", 1)
    )
    path.write_text(text[:tpu] + changed)
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert "  chip-hours change for 1 result" in result.out, result.out
    assert "  accelerator tpu-v3: name 'TPU v3' -> 'TPU v3e'; chips_per_device 4 -> 8 (1 result)" in result.out
    assert "  cost on demand changes for 1 result" in result.out
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    assert "### Effect of the catalog change" in markdown
    assert "| `published/acme-labs/acme-lm` | published / language / open |" in markdown


def test_a_change_outside_the_catalog_has_no_effect_preview(repo):  # noqa: F811
    (repo / "README.md").write_text("changed\n")
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert "catalog change" not in result.out


@pytest.fixture
def shipped_repo(tmp_path):
    """The shipped catalog and every shipped submission in a git repository, branch pr on main."""
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    shutil.copytree(ROOT / "submissions", tmp_path / "submissions")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    return tmp_path


CHEAP_H100 = (
    "  - {accelerator: h100-sxm5-80gb, provider: Cheap Cloud, tier: on-demand, usd: 0.05, unit: chip-hour, "
    'date: "2019-01-01", source: "https://cheap.example/prices"}\n'
)


def test_issue_22_item_6_a_cheap_h100_price_dated_before_the_part(shipped_repo):
    """$0.05/h for an H100, dated before the H100 existed: refused for the date, and the preview
    counts every H100 result whose cost moves (and the many more whose cost rank moves)."""
    prices = shipped_repo / "catalog/prices.yaml"
    prices.write_text(prices.read_text() + CHEAP_H100)
    commit(shipped_repo)
    result = run_cli("check-pr", "--base", "main", cwd=shipped_repo)
    assert result.code == 1, result.out
    assert "$.prices[" in result.out and "price dated 2019-01-01, before h100-sxm5-80gb was released (2022-09-20)" in (
        result.out
    )
    # Counted independently of the rows: every shipped H100 SXM5 80GB result gets the cheaper price.
    h100 = sum(
        yaml.safe_load(path.read_text())["system"]["accelerator"] == "h100-sxm5-80gb"
        for path in (shipped_repo / "submissions").rglob("*.yaml")
    )
    assert h100 > 300
    assert f"  cost on demand changes for {h100:,} results (other tiers: spot 0, 1-year 0, 3-year 0, purchase 0)" in (
        result.out
    )
    ranks = next(line for line in result.out.splitlines() if line.startswith("  cost rank changes for "))
    either = int(ranks.rsplit("cost or cost rank for ", 1)[1].split()[0].replace(",", ""))
    assert either > h100  # the other results of their boards move down the cost ranking
    assert "  largest cost moves (on demand, top 10):" in result.out
    assert "price far from its part's other prices: h100-sxm5-80gb on-demand $0.05 per chip-hour" in result.out
    seconds = float(result.out.split("pull request's, in ")[1].split(" s)")[0])
    assert seconds < 30

    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=shipped_repo).out
    assert "::notice file=catalog/prices.yaml,title=Effect of the catalog change::cost on demand changes for" in github
    assert "::warning title=Price far from the others::h100-sxm5-80gb on-demand $0.05" in github
    assert subprocess.run(["git", "status", "--porcelain"], cwd=shipped_repo, capture_output=True).stdout == b""


def test_a_link_in_the_base_catalog_is_left_out(repo, tmp_path):  # noqa: F811
    from leaderboard.review.catalog_effect import base_catalog

    os.symlink("/etc/hostname", repo / "catalog/linked.yaml")
    commit(repo)
    folder = base_catalog(repo, "HEAD", "catalog", tmp_path / "out")
    assert (folder / "rounds.yaml").is_file()
    assert not (folder / "linked.yaml").exists() and not (folder / "linked.yaml").is_symlink()


DEAR_H200_COMMITMENT = (
    "  - {accelerator: h200-sxm, provider: Dear Cloud, tier: 1-year, usd: 12.5, unit: chip-hour, "
    'date: "2025-06-01", source: "https://dear.example/prices"}\n'
)


def test_a_commitment_above_on_demand_and_a_lone_provider_are_flagged(shipped_repo):
    """Issue 23 point 3: a 1-year price above the on-demand price then in force, and a tier priced
    by one provider only, are listed for the part whose prices the pull request changes."""
    prices = shipped_repo / "catalog/prices.yaml"
    prices.write_text(prices.read_text() + DEAR_H200_COMMITMENT)
    commit(shipped_repo)
    result = run_cli("check-pr", "--base", "main", cwd=shipped_repo)
    assert "  price anomaly: h200-sxm 1-year (commitment above on-demand): Dear Cloud's 1-year price of 2025-06-01" in (
        result.out
    ), result.out
    assert "  price anomaly: h200-sxm on-demand (one provider)" in result.out
    assert "price anomaly: h100" not in result.out  # parts the pull request leaves alone are not listed
    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=shipped_repo).out
    assert "::warning title=Price anomaly::h200-sxm 1-year (commitment above on-demand)" in github


def test_check_pr_marks_a_cost_from_a_price_dated_after_the_result(shipped_repo):
    """BERT-Large on TPU v3 dated 2018-10-02: the catalog's earliest TPU v3 on-demand price is of
    2018-10-11, 9 days later, and the preview says so beside the cost, as the site does."""
    path = shipped_repo / "submissions/published/google/bert-large.yaml"
    path.write_text(path.read_text().replace('date: "2018-10-11"', 'date: "2018-10-02"', 1))
    commit(shipped_repo)
    result = run_cli("check-pr", "--base", "main", cwd=shipped_repo)
    assert "cost $12,288.00 on demand (price dated 9 days later)" in result.out, result.out


def test_a_price_index_change_moves_costs_in_other_dollars_and_says_so(shipped_repo):
    """No price changes, yet cost_usd_today moves with the index's latest month and Epoch's
    comparison with January 2023: the preview counts both by column, rather than showing 0."""
    index = shipped_repo / "catalog/price-index.yaml"
    data = yaml.safe_load(index.read_text())
    last = max(data["months"])
    text = index.read_text()
    for month, factor in ((last, 2), ("2023-01", 3)):
        text = text.replace(f'"{month}": {data["months"][month]}\n', f'"{month}": {data["months"][month] * factor}\n')
    index.write_text(text)
    commit(shipped_repo)
    result = run_cli("check-pr", "--base", "main", cwd=shipped_repo)
    assert "  cost on demand changes for 0 results" in result.out, result.out
    line = next(x for x in result.out.splitlines() if "column of the database changes" in x)
    # Counted from the base's rows by the months alone: a cost in dollars of a month before the
    # index's last moves in today's dollars; one in dollars of a month other than January 2023
    # moves in Epoch's comparison.
    catalog = load_catalog(shipped_repo / "catalog")
    base = rows_with(catalog, shipped_repo / "submissions", shipped_repo, dt.date.today())
    months = {r["entry_id"]: dollars_of(r["date"], r["price_date"])[:7] for r in base.results if r["cost_usd"]}
    today = sum(month < last for month in months.values())
    compared = {r["entry_id"] for r in comparison_rows(base.results, base.costs, catalog)}
    epoch = sum(months[e] != "2023-01" for e in compared)
    assert today > 1500 and epoch > 10
    assert f"results.cost_usd_today {today:,}" in line, line
    assert f"epoch_cost_comparison.our_cost_usd_2023 {epoch:,}" in line, line
    assert "results.cost_usd " not in line and "costs.cost_usd " not in line
    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=shipped_repo).out
    assert "::notice file=catalog/price-index.yaml,title=Effect of the catalog change::" in github
    assert f"results.cost_usd_today {today:,}" in github


def test_an_unchanged_catalog_changes_no_column():
    before = rows(row("a", 1.0), row("b", None))
    assert compare(before, rows(row("a", 1.0), row("b", None))).columns == {}
    moved = compare(before, rows(row("a", 2.0), row("b", None)))
    assert moved.columns == {"results.cost_usd": 1, "costs.cost_usd": 1} and moved.any_column == 1


def test_a_broken_catalog_gets_no_effect_preview_and_its_submissions_wait(repo):  # noqa: F811
    """Against a catalog that lost its accelerators to a typo, every result would 'leave the
    boards' and every accelerator read as removed: neither is shown; the typo is."""
    path = repo / "catalog/accelerators.yaml"
    path.write_text(path.read_text().replace("chips_per_device: 1", "chips_per_device: one", 1))
    commit(repo)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    assert "must be a number, not string 'one'" in result.out
    assert "catalog change: its effect" not in result.out and "removed (" not in result.out, result.out
    assert result.out.rstrip().endswith(
        "1 changed file checked against main: 1 problem; 2 submission files not checked until every catalog "
        "file can be read, nor the catalog change's effect computed"
    ), result.out


def _p(usd=1.99, provider="Lambda", date="2024-01-01", source="https://lambda.example/p", note=None):
    return Price("h100-sxm5-80gb", provider, "on-demand", usd, "chip-hour", date, source, note=note)


@pytest.mark.parametrize(
    "added, removed, lines",
    [
        # One price edited in place: one line saying what changed, not an addition and a removal.
        (
            [_p(usd=0.01)],
            [_p()],
            ["price changed: h100-sxm5-80gb on-demand per chip-hour, 2024-01-01, Lambda: $1.99 -> $0.01"],
        ),
        (
            [_p(source="https://lambda.example/q", note="n")],
            [_p()],
            [
                "price changed: h100-sxm5-80gb on-demand per chip-hour, 2024-01-01, Lambda: source "
                "https://lambda.example/p -> https://lambda.example/q, note (none) -> n"
            ],
        ),
        # Another date or provider is another price.
        (
            [_p(date="2024-02-01")],
            [_p()],
            [
                "price added: h100-sxm5-80gb on-demand $1.99 per chip-hour, 2024-02-01, Lambda",
                "price removed: h100-sxm5-80gb on-demand $1.99 per chip-hour, 2024-01-01, Lambda",
            ],
        ),
        # Two quotes of one day replaced by one: no guess at which one it edits.
        (
            [_p(usd=2.5)],
            [_p(), _p(usd=2.1, source="https://lambda.example/r")],
            [
                "price added: h100-sxm5-80gb on-demand $2.5 per chip-hour, 2024-01-01, Lambda",
                "price removed: h100-sxm5-80gb on-demand $1.99 per chip-hour, 2024-01-01, Lambda",
                "price removed: h100-sxm5-80gb on-demand $2.1 per chip-hour, 2024-01-01, Lambda",
            ],
        ),
        ([], [], []),
    ],
)
def test_a_price_edited_in_place_is_one_change(added, removed, lines):
    assert price_lines(added, removed) == lines
