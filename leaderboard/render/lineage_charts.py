"""Charts across rounds: a lineage's minutes over time per scale, and a vendor line's
generations. Vega-Lite specs built with Altair, as charts.py builds the per-board ones.

A line never joins two segments (a changed quality target): each is its own line. A weak-scaling
HPC benchmark is charted by models per minute (its boards' metric), never on a minutes axis.
"""

from __future__ import annotations

from functools import cache

from leaderboard.families import family
from leaderboard.render import vega_lite as alt
from leaderboard.render.chart_points import result_points, units, units_note
from leaderboard.render.charts import Chart, _finish, _named, legend, log_scale
from leaderboard.render.colours import distinct_styles
from leaderboard.render.lineages import Lineage, VendorLine

# The y axis of a lineage's metric: what "best" means on its boards.
AXIS = {
    "minutes": ("minutes:Q", "Minutes to train (log)", "Best time to train per round", "in minutes"),
    "models_per_minute": (
        "models_per_minute:Q",
        "Models trained per minute (log)",
        "Most models per minute per round",
        "in models trained per minute (weak scaling)",
    ),
}


def _point(row: dict, round_: dict, root: str, **extra: object) -> dict:
    """The per-board charts' point for a result, dated by its round."""
    point = {**result_points([row], root)[0], "round": round_["name"], "date": round_["date"], **extra}
    return {**point, "models_per_minute": row.get("models_per_minute")}


DRAWN_UNDER = ("best",)  # wide and pale, under the scales that may hold the same result
DASH_OF_SCALE = {"largest": (6, 3)}  # others solid
PICK_LIST = "picked_line"  # the generations chart's list of lines (a Vega signal)


@cache
def line_legend() -> alt.Legend:
    """Lines in the legend, each in its colour and dash at full strength."""
    return alt.Legend(symbolType="stroke", symbolOpacity=1, symbolStrokeWidth=3, symbolSize=300)


def tooltip(points: list[dict]) -> list:
    """The tooltip of a lineage chart's points (each a result's, with its cpu_only)."""
    return _tooltip(*units(points))


@cache
def _tooltip(count: str, hours: str) -> list:
    return [
        alt.Tooltip("round:N", title="Round"),
        alt.Tooltip("segment:N", title="Benchmark (target)"),
        alt.Tooltip("division:N", title="Division"),
        alt.Tooltip("availability:N", title="Availability"),
        alt.Tooltip("chips:Q", title=count, format=",.4~f"),
        alt.Tooltip("minutes:Q", title="Minutes", format=",.4~f"),
        alt.Tooltip("models_per_minute:Q", title="Models per minute (weak scaling)", format=",.4~f"),
        alt.Tooltip("chip_hours:Q", title=f"{hours} (derived)", format=",.1f"),
        alt.Tooltip("cost:Q", title="Cost, on-demand (USD, derived)", format="$,.2f"),
        alt.Tooltip("price:N", title="Price used"),
        alt.Tooltip("accelerator:N", title="Accelerator"),
        alt.Tooltip("submitter:N", title="Submitter"),
        alt.Tooltip("system:N", title="System"),
    ]


def minutes_over_time(
    name: str, lineage: Lineage, progress: list[dict], scales: tuple[str, ...], root: str
) -> Chart | None:
    """Best minutes (or models per minute) per round, one line per scale and segment (never joined
    across targets)."""
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
    field, axis_title, title, unit = AXIS[lineage.metric]
    datasets: dict[str, list] = {}
    data = _named(datasets, "best", points)
    looks = distinct_styles(len(scales))
    # "best" is often the largest scale's result too: it is drawn first, wide and pale, and
    # "largest" dashed on top, so where they are one line both stay in sight.
    encoding = {
        "x": alt.X("date:T", title="Round published"),
        "y": alt.Y(field, title=axis_title, scale=log_scale()),
        "color": alt.Color(
            "scale:N",
            title="Scale",
            sort=list(scales),
            scale=alt.Scale(domain=list(scales), range=[look.colour for look in looks]),
            legend=line_legend(),
        ),
        "strokeDash": alt.StrokeDash(
            "scale:N",
            title="Scale",
            sort=list(scales),
            scale=alt.Scale(domain=list(scales), range=[list(DASH_OF_SCALE.get(s, ())) for s in scales]),
            legend=line_legend(),
        ),
        "detail": "line:N",
        "tooltip": tooltip(points),
        "href": "url:N",
    }
    under = [s for s in scales if s in DRAWN_UNDER]
    chart = alt.layer(
        alt.Chart(data)
        .mark_line(strokeWidth=6, opacity=0.45, point=alt.OverlayMarkDef(filled=True, size=130, opacity=0.45))
        .transform_filter(alt.FieldOneOfPredicate(field="scale", oneOf=under)),
        alt.Chart(data)
        .mark_line(strokeWidth=2, point=alt.OverlayMarkDef(filled=True, size=50))
        .transform_filter(~alt.FieldOneOfPredicate(field="scale", oneOf=under)),
    ).encode(**encoding)
    segments = len(lineage.segments)
    spec = _finish(
        chart,
        f"{title}: {lineage.title}",
        f"Closed division, available systems, {lineage.family_label} rounds only. A changed quality target starts a new line"
        + (f" ({segments} targets here)." if segments > 1 else ".")
        + " Wide pale line: the best at any scale; dashed: the round's largest scale."
        + units_note(points),
        datasets,
        height=360,
    )
    description = (
        f"Line chart of the best closed-division, available result of each {lineage.family_label} round for "
        f"{lineage.title}, {unit} (log scale) against the round's date, one line per scale (best at any scale, "
        f"at 8, 64 and 512 chips, at the round's largest scale) and quality target."
    )
    return Chart(name, f"{title}, {lineage.title}", description, spec)


def generations_chart(
    name: str,
    line: VendorLine,
    items: list[dict],
    rounds: dict[str, dict],
    root: str,
    kind: str = "mlperf-training",
    metric: str = "minutes",
) -> Chart | None:
    """Per benchmark segment of one family (round kind) whose lineage ranks by metric, each
    accelerator's best result at the segment's comparable scale, accelerators in order of release:
    a line per segment with two or more accelerators. Families never share a chart."""
    order = [a["name"] for a in line.accelerators]
    field, axis_title, _, unit = AXIS[metric]
    label = family(kind).label
    points = []
    for item in items:
        if item["lineage"].metric != metric or item["lineage"].kind != kind:
            continue
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
    # Every segment its own colour, and past the palette its own dash and point shape; the
    # legend lists every one, below the plot in columns when long.
    segments = list(dict.fromkeys(p["segment"] for p in points))
    looks = distinct_styles(len(segments))
    chart = (
        alt.Chart(_named(datasets, "generations", points))
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=60))
        .encode(
            x=alt.X("accelerator:N", title="Accelerator, in order of release", sort=order),
            y=alt.Y(field, title=axis_title, scale=log_scale()),
            color=alt.Color(
                "segment:N",
                title="Benchmark (target) at scale",
                scale=alt.Scale(domain=segments, range=[look.colour for look in looks]),
                legend=legend(len(segments)),
            ),
            strokeDash=alt.StrokeDash(
                "segment:N",
                title="Benchmark (target) at scale",
                scale=alt.Scale(domain=segments, range=[list(look.dash) for look in looks]),
                legend=legend(len(segments)),
            ),
            shape=alt.Shape(
                "segment:N",
                title="Benchmark (target) at scale",
                scale=alt.Scale(domain=segments, range=[look.shape for look in looks]),
                legend=legend(len(segments)),
            ),
            tooltip=tooltip(points),
            href=alt.Href("url:N"),
        )
    )
    # A line per benchmark makes a crowded chart: a click on a legend entry picks out its line
    # (shift-click adds one), the others fade; a double-click brings them all back. A legend
    # takes no keyboard or screen reader, so a list below the chart picks out a line too.
    pick = alt.selection_point(name="picked", fields=["segment"], bind="legend")
    chosen = alt.param(
        name=PICK_LIST,
        value="",
        bind=alt.binding_select(options=["", *segments], labels=["every line", *segments], name="Pick out a line: "),
    )
    spec = _finish(
        chart.add_params(pick, chosen),
        f"{line.vendor} in {label}: best result per accelerator at the same scale, {unit}",
        f"Closed division, available systems, {label} rounds only; each benchmark at the chip count most of the "
        "accelerators ran. Results may come from different rounds (see the table). On the page, a click on a "
        "legend entry, or the list below the chart, picks out a line." + units_note(points),
        datasets,
        height=380,
    )
    # Shown when the legend's pick holds it (or holds nothing) and the list names it (or every
    # line): Altair composes no parameter with an expression, so the condition is written here.
    spec["encoding"]["opacity"] = {
        "condition": {
            "test": {"and": [{"param": "picked"}, f"{PICK_LIST} === '' || datum.segment === {PICK_LIST}"]},
            "value": 1.0,
        },
        "value": 0.12,
    }
    description = (
        f"Line chart of each {line.vendor} accelerator's best closed-division, available {label} result per "
        f"benchmark at a shared chip count, {unit} on a log scale, accelerators in order of release."
    )
    return Chart(name, f"{line.vendor} accelerators side by side in {label}, {unit}", description, spec)
