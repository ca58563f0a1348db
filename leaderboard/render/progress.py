"""A result's training progress (accuracy against hours, DAWNBench's per-epoch TSV) and the cross-check
of our cost from catalog prices against the cost submitters reported: charts and the summary table.
"""

from __future__ import annotations

import statistics
from functools import cache

from leaderboard.render import vega_lite as alt
from leaderboard.render.chart_points import units
from leaderboard.render.charts import (
    Chart,
    _finish,
    _named,
    accelerator_encoding,
    colours_repeat,
    cost_against_cost,
    legend,
    log_scale,
)
from leaderboard.render.charts import (
    layers as chart_layers,
)
from leaderboard.render.colours import Style

RESULT_FIELDS = ("entry_id", "submitter", "system", "chips", "cpu_only", "minutes", "chip_hours", "cost_usd")


def result_tooltip(rows: list[dict]) -> list:
    """The tooltip of each result of `rows`: chips, or CPUs for systems of processors alone (units)."""
    return _result_tooltip(*units(rows))


@cache
def _result_tooltip(count: str, hours: str) -> list:
    return [
        alt.Tooltip("submitter:N", title="Submitter"),
        alt.Tooltip("system:N", title="Hardware"),
        alt.Tooltip("chips:Q", title=count, format=",.4~f"),
        alt.Tooltip("minutes:Q", title="Minutes to the target", format=",.4~f"),
        alt.Tooltip("chip_hours:Q", title=hours, format=",.4~f"),
        alt.Tooltip("cost_usd:Q", title="Our cost, on-demand", format="$,.2f"),
    ]


def progress_chart(name: str, row: dict, benchmark: dict) -> Chart | None:
    """The benchmark's metric at every evaluation against hours since the start, with the target
    (dashed) and the evaluation that reached it first (the result's time)."""
    # Each point also names its result, as every chart's points do (tooltips, and the tests that
    # check a chart never mixes rounds).
    result = {k: row.get(k) for k in RESULT_FIELDS}
    points = [
        {
            "epoch": p["epoch"],
            "hours": p["hours"],
            "quality": p["quality"],
            "reaches_target": bool(p["reaches_target"]),
            **result,
        }
        for p in row.get("progress_rows") or []
        if p["quality"] is not None
    ]
    if not points:
        return None
    datasets: dict[str, list] = {}
    metric = benchmark.get("metric") or "quality"
    x = alt.X("hours:Q", title="Hours since the start")
    y = alt.Y("quality:Q", title=metric, scale=alt.Scale(zero=False))
    line = (
        alt.Chart(_named(datasets, "progress", points))
        .mark_line(point=True, color="#4e79a7")
        .encode(
            x=x,
            y=y,
            tooltip=[
                alt.Tooltip("epoch:Q", title="Epoch", format=",.4~f"),
                alt.Tooltip("hours:Q", title="Hours", format=",.4~f"),
                alt.Tooltip("quality:Q", title=metric, format=",.4~f"),
                *result_tooltip([row]),
            ],
        )
    )
    layers = [line]
    if row.get("quality_target") is not None:
        target = [{"quality": row["quality_target"]}]
        layers.append(
            alt.Chart(_named(datasets, "target", target)).mark_rule(strokeDash=[4, 4], color="#777").encode(y=y)
        )
    first = next((p for p in points if p["reaches_target"]), None)
    if first is not None:
        layers.append(
            alt.Chart(_named(datasets, "reached", [first]))
            .mark_point(size=140, color="#e15759", filled=True)
            .encode(x=x, y=y)
        )
    spec = _finish(
        chart_layers(*layers),
        "Training progress",
        f"{metric} at every evaluation; dashed: the target; red: the first evaluation at the target.",
        datasets,
        height=300,
    )
    description = (
        f"Line chart of {metric} against hours since the start at {len(points)} evaluations, with the target "
        f"{row.get('quality_target')} and the first evaluation reaching it"
        + (f" at {first['hours']:.4g} hours." if first else ".")
    )
    return Chart(name, "Training progress: the metric against hours", description, spec)


def reported_rows(rows: list[dict]) -> list[dict]:
    """Results with both our on-demand cost and the cost their submitter reported."""
    return [r for r in rows if r.get("reported_cost_usd") and r.get("cost_usd")]


def reported_points(rows: list[dict]) -> list[dict]:
    """Each result of `rows` with both costs as reported_cost_chart's point: all it shows of it."""
    return [
        {k: r.get(k) for k in RESULT_FIELDS}
        | {
            "accelerator": r.get("accelerator_name"),
            "reported": r["reported_cost_usd"],
            "ratio": r["cost_ratio_reported"],
            "provider": r.get("provider") or "—",
        }
        for r in reported_rows(rows)
    ]


def reported_cost_chart(name: str, reported: list[dict], context: str, styles: dict[str, Style]) -> Chart | None:
    """Our cost against the submitter's reported cost, log-log, with y = x, of the `reported`
    points (reported_points): colour by accelerator (its look of the whole site), shape by
    provider unless two accelerators share a colour."""
    points = [dict(p) for p in reported]  # the caller's points stay as they are (a reuse key)
    if not points:
        return None
    datasets: dict[str, list] = {}
    encoding = accelerator_encoding(points, styles)
    if not colours_repeat(points, styles):
        providers = sorted({p["provider"] for p in points})
        encoding["shape"] = alt.Shape("provider:N", title="Provider", legend=legend(len(providers)))
    layers = cost_against_cost(
        datasets,
        points,
        alt.X("reported:Q", title="Cost the submitter reported, USD (log)", scale=log_scale()),
        alt.Y("cost_usd:Q", title="Our cost, on-demand catalog prices, USD (log)", scale=log_scale()),
        **encoding,
        tooltip=[
            *result_tooltip(points),
            alt.Tooltip("accelerator:N", title="Accelerator"),
            alt.Tooltip("provider:N", title="Provider"),
            alt.Tooltip("reported:Q", title="Reported", format="$,.2f"),
            alt.Tooltip("ratio:Q", title="Ours / reported", format=",.2f"),
        ],
    )
    spec = _finish(
        layers,
        "Our cost against the cost submitters reported",
        f"{context}. Dashed: y = x (the same cost).",
        datasets,
        height=380,
    )
    description = (
        f"Scatter plot, log-log, of our on-demand cost against the submitter's reported cost for {len(points)} "
        f"results of {context}, with the line y = x."
    )
    return Chart(name, f"Our cost against reported cost, {context}", description, spec)


def cost_check(rows: list[dict]) -> list[dict]:
    """The cross-check in aggregate: per accelerator, and over all, how many results have both
    costs and the median, lowest and highest of ours / theirs."""
    both = reported_rows(rows)
    groups: dict[str, list[dict]] = {}
    for row in both:
        groups.setdefault(row["accelerator_name"], []).append(row)
    summary = [_summary(name, group) for name, group in sorted(groups.items())]
    if both:
        summary.append(_summary("All", both))
    return summary


def _summary(name: str, rows: list[dict]) -> dict:
    ratios = [r["cost_ratio_reported"] for r in rows]
    return {
        "group": name,
        "results": len(rows),
        "median": statistics.median(ratios),
        "low": min(ratios),
        "high": max(ratios),
        "within_10_percent": sum(1 for r in ratios if 0.9 <= r <= 1.1),
        "reported_usd": sum(r["reported_cost_usd"] for r in rows),
        "our_usd": sum(r["cost_usd"] for r in rows),
    }
