"""The README's figures come from the data: the formats, the quartiles (as DuckDB's), the
comparison table, the inline markers, and the README's figures against the shipped database."""

from __future__ import annotations

import duckdb
import pytest
from conftest import ROOT

from leaderboard import docs
from leaderboard.build import build
from leaderboard.figures import (
    FIGURE,
    comparison_table,
    count,
    disagreements,
    quartiles,
    ratio,
    render_figures,
    short_submitter,
)


@pytest.mark.parametrize(("n", "text"), [(0, "0"), (83, "83"), (2149, "2,149"), (1234567, "1,234,567")])
def test_count(n, text):
    assert count(n) == text


@pytest.mark.parametrize(("x", "text"), [(4.9236, "4.92"), (69.61, "69.61"), (0.10, "0.10"), (0.0072, "0.007")])
def test_ratio(x, text):
    assert ratio(x) == text


@pytest.mark.parametrize(
    ("values", "expected"),
    [([1, 2, 3, 4, 5], (2, 3, 4)), ([1, 2, 3, 4], (1.75, 2.5, 3.25)), ([4, 1, 3, 2], (1.75, 2.5, 3.25))],
)
def test_quartiles_interpolate_as_duckdb(values, expected):
    assert quartiles(values) == pytest.approx(expected)
    duck = duckdb.sql(
        "SELECT quantile_cont(v, 0.25), quantile_cont(v, 0.5), quantile_cont(v, 0.75) FROM unnest(?) t(v)",
        params=[values],
    ).fetchall()[0]
    assert duck == pytest.approx(expected)


def test_comparison_table_rows_per_tier():
    rows = [{"tier": "on-demand", "ratio": r} for r in (0.5, 2.0, 4.0)] + [{"tier": "3-year", "ratio": 1.5}]
    assert comparison_table(rows).splitlines()[2:] == [
        "| on-demand | 3 | 2.00 | 1.25 – 3.00 | 2 |",
        "| 3-year | 1 | 1.50 | 1.50 – 1.50 | 1 |",
    ]


def test_inline_figures_are_rewritten_and_unknown_ones_refused():
    text = "holds <!-- fig:a -->1<!-- /fig --> and <!-- fig:b -->old<!-- /fig -->."
    assert render_figures(text, {"a": "2,149", "b": "4.92"}.__getitem__) == (
        "holds <!-- fig:a -->2,149<!-- /fig --> and <!-- fig:b -->4.92<!-- /fig -->."
    )
    with pytest.raises(KeyError):
        render_figures("<!-- fig:nope -->1<!-- /fig -->", {}.__getitem__)


def test_the_readme_figures_agree_with_the_shipped_database(tmp_path):
    """What docs.py writes is what SQL on a built database says (the summary a reader checks)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert docs.render(text) == text, "README.md is stale: run python -m leaderboard.docs"
    figures = {m.group(1): m.group(2) for m in FIGURE.finditer(text)}
    assert len(figures) >= 10
    db = tmp_path / "leaderboard.duckdb"
    assert not build(ROOT / "submissions", ROOT / "catalog", db, None).problems
    with duckdb.connect(str(db), read_only=True) as con:
        median, runs = con.sql(
            "SELECT median(ratio), count(*) FROM epoch_cost_comparison WHERE tier = 'on-demand'"
        ).fetchall()[0]
        training = con.sql("SELECT count(*) FROM results WHERE round_kind = 'mlperf-training'").fetchall()[0][0]
        prices = con.sql("SELECT count(*) FROM prices WHERE source IS NOT NULL").fetchall()[0][0]
    assert f"| on-demand | {runs} | {median:.2f} |" in text
    assert figures["epoch-comparison-runs"] == str(runs)
    assert figures["mlperf-training-results"] == f"{training:,}"
    assert 0 < int(figures["epoch-prices"].replace(",", "")) <= prices


@pytest.mark.parametrize(
    ("submitter", "short"),
    [("Google", "Google"), ("Microsoft, Peking University", "Microsoft, Peking University"), ("A, B, C", "A et al.")],
)
def test_short_submitter(submitter, short):
    assert short_submitter(submitter) == short


def test_disagreements_are_the_furthest_from_one_either_way():
    def row(entry, model, ours, epoch):
        return {
            "entry_id": entry,
            "tier": "on-demand",
            "model_name": model,
            "our_cost_usd": ours,
            "epoch_cost_usd_2023": epoch,
            "ratio": ours / epoch,
        }

    rows = [row("a", "Near", 110, 100), row("b", "Low", 10, 1000), row("c", "High", 5000, 100)]
    lines = disagreements(rows, {"a": "X", "b": "Y", "c": "Z"}, top=2).splitlines()[2:]
    assert [line.split(" | ")[0] for line in lines] == ["| Low (Y)", "| High (Z)"]
    assert lines[0].startswith("| Low (Y) | $10 | $1,000 | 0.010 | not yet explained")
