"""Figures the README quotes from the shipped data (counts, our cost against Epoch's), computed
from the submissions and catalog so they are never typed; docs.py writes them into README.md."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path

# An inline figure in Markdown: <!-- fig:name -->value<!-- /fig -->, rendered as the value alone.
FIGURE = re.compile(r"<!-- fig:([a-z0-9_-]+) -->(.*?)<!-- /fig -->")


# Why our cost and Epoch AI's disagree most, per model (the README's five largest disagreements):
# the reasons are read from the sources by a person; the numbers beside them are computed.
DISAGREEMENT_NOTES = {
    "WizardLM-7B": (
        "The row records the fine-tuning (8 V100 for 70 h = 560 chip-hours); Epoch's training compute "
        "(4.02e22 FLOP) and cost are LLaMA-7B's pre-training, which its own notes put at over 100 times the "
        "fine-tuning."
    ),
    "DeBERTa": (
        "16 DGX-2 x 16 V100 for 30 days = 184,320 V100-hours; Epoch's figure is $0.036 per V100-hour for "
        "those hours, below every V100 price in its own table (lowest: $0.19 on demand, $0.25 for 3 years), "
        "so it cannot rest on the hours it records (its chip-hours cell is empty)."
    ),
    "Taiyi-Stable Diffusion": (
        "32 A100 for 100 h of fine-tuning; Epoch's compute (5.1e22 FLOP) is the base Stable Diffusion's 5e22 "
        "plus 1.1e21 of fine-tuning."
    ),
    "SPHINX (Llama 2 13B)": (
        "32 A100 for 290 h; Epoch's compute (3.04e22 FLOP) includes the Llama 2 13B and vision encoders it starts from."
    ),
    "PaLI": (
        "1,024 TPU v4 for 240 h = 245,760 chip-hours at $3.22 on demand (7.0 at the 3-year $1.45); Epoch "
        "records 172,032 chip-hours and its cost comes to $0.30 per TPU v4 chip-hour, an amortized-hardware "
        "figure."
    ),
}


def render_figures(text: str, figure: Callable[[str], str]) -> str:
    """Every inline figure of text rewritten with figure(name); an unknown name raises KeyError."""
    return FIGURE.sub(lambda m: f"<!-- fig:{m.group(1)} -->{figure(m.group(1))}<!-- /fig -->", text)


def count(n: int) -> str:
    """A count as the README writes it: 2,149."""
    return f"{n:,}"


def ratio(x: float) -> str:
    """A ratio to three significant figures at least two decimals: 4.92, 0.0072 -> 0.007."""
    return f"{x:.2f}" if abs(x) >= 0.1 else f"{x:.3f}"


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """Lower quartile, median and upper quartile, interpolated as DuckDB's quantile_cont does."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def comparison_table(comparison: Sequence[Mapping]) -> str:
    """The README's table of our cost over Epoch AI's, one row per tier (epoch_cost_comparison rows)."""
    lines = [
        "| tier | runs | median ours / Epoch | interquartile range | runs where ours is higher |",
        "|---|---:|---:|---:|---:|",
    ]
    for tier in ("on-demand", "1-year", "3-year"):
        ratios = [r["ratio"] for r in comparison if r["tier"] == tier and r["ratio"] is not None]
        if not ratios:
            continue
        q1, median, q3 = quartiles(ratios)
        higher = sum(1 for x in ratios if x > 1)
        lines.append(f"| {tier} | {len(ratios)} | {ratio(median)} | {ratio(q1)} – {ratio(q3)} | {higher} |")
    return "\n".join(lines) + "\n"


def median_ratio(comparison: Sequence[Mapping], tier: str, keep: Callable[[Mapping], bool]) -> str:
    ratios = [r["ratio"] for r in comparison if r["tier"] == tier and r["ratio"] is not None and keep(r)]
    return ratio(statistics.median(ratios)) if ratios else "n/a"


def republished_by_round(republished: Sequence[Mapping], kind: str, round_dates: Mapping[str, object]) -> str:
    """'71 in v2.1, 43 in v3.0': republished results of a round kind per round, in the order the
    rounds were published (`round_dates`: round id -> its date)."""
    rounds: dict[str, int] = {}
    for r in republished:
        if r["round_kind"] == kind:
            rounds[r["round"]] = rounds.get(r["round"], 0) + 1
    ordered = sorted(rounds, key=lambda name: (str(round_dates[name]), name))
    return ", ".join(f"{rounds[name]} in {name.removeprefix(kind + '-')}" for name in ordered)


def disagreement_ratio(x: float) -> str:
    """A ratio as the disagreements table writes it: 0.007, 0.031, 15.6, 69.6."""
    return f"{x:.3f}" if x < 1 else f"{x:.3g}"


def short_submitter(submitter: str) -> str:
    """'A, B, C' -> 'A et al.'; one or two organizations stay whole."""
    parts = [p.strip() for p in submitter.split(",")]
    return f"{parts[0]} et al." if len(parts) > 2 else submitter


def disagreements(comparison: Sequence[Mapping], submitters: Mapping[str, str], top: int = 5) -> str:
    """The runs whose on-demand ratio is furthest from 1, either way, with the note that explains each."""
    on_demand = [r for r in comparison if r["tier"] == "on-demand" and r["ratio"]]
    on_demand.sort(key=lambda r: (-abs(math.log(r["ratio"])), r["entry_id"]))
    lines = ["| run | ours (on-demand) | Epoch (2023 USD) | ratio | why |", "|---|---:|---:|---:|---|"]
    for r in on_demand[:top]:
        why = DISAGREEMENT_NOTES.get(
            r["model_name"], "not yet explained (DISAGREEMENT_NOTES in leaderboard/figures.py)"
        )
        lines.append(
            f"| {r['model_name']} ({short_submitter(submitters[r['entry_id']])}) | ${r['our_cost_usd']:,.0f} "
            f"| ${r['epoch_cost_usd_2023']:,.0f} | {disagreement_ratio(r['ratio'])} | {why} |"
        )
    return "\n".join(lines) + "\n"


def rcp_scaled(results: list[dict]) -> str:
    """'9 results, factors 1.006 to 1.072': the results whose minutes an RCP factor scaled."""
    factors = sorted(r["rcp_factor"] for r in results if r.get("rcp_factor") not in (None, 1))
    if not factors:
        return "no result"
    return f"{count(len(factors))} results, factors {factors[0]:.3f} to {factors[-1]:.3f}"


@cache
def shipped(root: Path) -> dict[str, str]:
    """Every named figure of the shipped submissions and catalog under root (validated and
    normalized as a build does; about ten seconds, so computed once)."""
    from leaderboard.rows import comparison_rows, table_rows
    from leaderboard.validate import validate_paths

    validation = validate_paths([root / "submissions"], root / "catalog")
    if validation.problems:
        raise ValueError(f"the shipped data has {len(validation.problems)} problem(s): run leaderboard validate")
    catalog = validation.catalog
    rows = table_rows(validation.entries, catalog, base=root)
    results = rows.results
    comparison = comparison_rows(results, rows.costs, catalog)
    family = {r["entry_id"]: r["accelerator_family"] for r in results}
    kind = [r["round_kind"] for r in results]
    published = [r for r in results if r["round_kind"] == "published"]
    tiers = {tier: {r["entry_id"] for r in comparison if r["tier"] == tier} for tier in ("on-demand", "1-year")}
    on_tpu = lambda r: family[r["entry_id"]].startswith("TPU")  # noqa: E731
    republished = [r for r in results if r["republished_from"] is not None]
    return {
        "republished-results": count(len(republished)),
        "republished-training": count(sum(1 for r in republished if r["round_kind"] == "mlperf-training")),
        "republished-training-by-round": republished_by_round(
            republished, "mlperf-training", {r.id: r.date for r in catalog.rounds.values()}
        ),
        "republished-hpc": count(sum(1 for r in republished if r["round_kind"] == "mlperf-hpc")),
        "mlperf-training-results": count(kind.count("mlperf-training")),
        "mlperf-hpc-results": count(kind.count("mlperf-hpc")),
        "hpc-rcp-scaled": rcp_scaled([r for r in results if r["round_kind"] == "mlperf-hpc"]),
        "published-runs": count(len(published)),
        "published-imported": count(sum(1 for r in published if r["method"] == "imported")),
        "published-with-cost": count(sum(1 for r in published if r["cost_usd"] is not None)),
        "dawnbench-entries": count(kind.count("dawnbench")),
        "epoch-prices": count(sum(1 for p in catalog.prices if p.origin == "epoch")),
        "epoch-comparison-runs": count(len(tiers["on-demand"])),
        "epoch-comparison-commitment-runs": count(len(tiers["1-year"])),
        "epoch-comparison-table": comparison_table(comparison),
        "epoch-disagreements": disagreements(comparison, {r["entry_id"]: r["submitter"] for r in results}),
        "epoch-median-tpu": median_ratio(comparison, "on-demand", on_tpu),
        "epoch-median-other": median_ratio(comparison, "on-demand", lambda r: not on_tpu(r)),
    }
