"""Charts across rounds: a lineage's minutes over time per scale, and a vendor line's
generations. Vega-Lite specs built with Altair, as charts.py builds the per-board ones.

A line never joins two segments (a changed quality target): each is its own line.
"""

from __future__ import annotations

import altair as alt

from leaderboard.render.charts import LOG, Chart, _finish, _named, _points
from leaderboard.render.lineages import Lineage, VendorLine


def _point(row: dict, round_: dict, root: str, **extra: object) -> dict:
    """The per-board charts' point for a result, dated by its round."""
    return {**_points([row], root)[0], "round": round_["name"], "date": round_["date"], **extra}


TOOLTIP = [
    alt.Tooltip("round:N", title="Round"),
    alt.Tooltip("segment:N", title="Benchmark (target)"),
    alt.Tooltip("division:N", title="Division"),
    alt.Tooltip("availability:N", title="Availability"),
    alt.Tooltip("chips:Q", title="Chips", format=",.4~f"),
    alt.Tooltip("minutes:Q", title="Minutes", format=",.4~f"),
    alt.Tooltip("chip_hours:Q", title="Chip-hours (derived)", format=",.1f"),
    alt.Tooltip("cost:Q", title="Cost, on-demand (USD, derived)", format="$,.2f"),
    alt.Tooltip("price:N", title="Price used"),
    alt.Tooltip("accelerator:N", title="Accelerator"),
    alt.Tooltip("submitter:N", title="Submitter"),
    alt.Tooltip("system:N", title="System"),
]


def minutes_over_time(
    name: str, lineage: Lineage, progress: list[dict], scales: tuple[str, ...], root: str
) -> Chart | None:
    """Best minutes per round, one line per scale and segment (never joined across targets)."""
    points = []
    for item in progress:
        for scale in scales:
            row = item["cells"][scale]
            if row is None:
                continue
            points.append(
                _point(
                    row,
                    item["round"],
                    root,
                    scale=scale,
                    segment=item["segment"].label,
                    line=f"{scale} | {item['segment'].key}",
                )
            )
    if not points:
        return None
    datasets: dict[str, list] = {}
    chart = (
        alt.Chart(_named(datasets, "best", points))
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=60))
        .encode(
            x=alt.X("date:T", title="Round published"),
            y=alt.Y("minutes:Q", title="Minutes to train (log)", scale=LOG),
            color=alt.Color("scale:N", title="Scale", sort=list(scales)),
            detail="line:N",
            tooltip=TOOLTIP,
            href="url:N",
        )
        .properties(height=360)
    )
    segments = len(lineage.segments)
    spec = _finish(
        chart,
        f"Best time to train per round: {lineage.title}",
        "Closed division, available systems, MLPerf rounds only. A changed quality target starts a new line"
        + (f" ({segments} targets here)." if segments > 1 else "."),
        datasets,
    )
    description = (
        f"Line chart of the fastest closed-division, available result of each MLPerf round for {lineage.title}, "
        f"in minutes (log scale) against the round's date, one line per scale (best at any scale, "
        f"at 8, 64 and 512 chips, at the round's largest scale) and quality target."
    )
    return Chart(name, f"Best time to train per round, {lineage.title}", description, spec)


def generations_chart(
    name: str, line: VendorLine, items: list[dict], rounds: dict[str, dict], root: str
) -> Chart | None:
    """Per benchmark segment, each accelerator's fastest time at the segment's comparable scale,
    accelerators in order of release: a line per segment with two or more accelerators."""
    order = [a["name"] for a in line.accelerators]
    points = []
    for item in items:
        rows = [r for r in item["rows"] if r["at_scale"] is not None]
        if len(rows) < 2:
            continue
        for entry in rows:
            row = entry["at_scale"]
            points.append(
                _point(
                    row,
                    rounds[row["round"]],
                    root,
                    segment=f"{item['segment'].label} at {item['scale']:g} chips",
                )
            )
    if not points:
        return None
    datasets: dict[str, list] = {}
    chart = (
        alt.Chart(_named(datasets, "generations", points))
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=60))
        .encode(
            x=alt.X("accelerator:N", title="Accelerator, in order of release", sort=order),
            y=alt.Y("minutes:Q", title="Minutes to train (log)", scale=LOG),
            color=alt.Color("segment:N", title="Benchmark (target) at scale"),
            tooltip=TOOLTIP,
            href="url:N",
        )
        .properties(height=380)
    )
    spec = _finish(
        chart,
        f"{line.vendor}: fastest time per accelerator at the same scale",
        "Closed division, available systems, MLPerf rounds only; each benchmark at the chip count most of the "
        "accelerators ran. Results may come from different rounds (see the table).",
        datasets,
    )
    description = (
        f"Line chart of each {line.vendor} accelerator's fastest closed-division, available MLPerf result per "
        f"benchmark at a shared chip count, minutes on a log scale, accelerators in order of release."
    )
    return Chart(name, f"{line.vendor} accelerators side by side", description, spec)
