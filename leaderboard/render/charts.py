"""The site's charts as Vega-Lite specs, built in Altair's words by vega_lite.py (painter.py
draws their static SVGs).

Every chart plots one board's division at most: MLPerf and published runs never share a chart.
"""

from __future__ import annotations

import datetime as dt
import math
import textwrap
from dataclasses import dataclass
from functools import cache

from leaderboard.problems import plural
from leaderboard.render import labels
from leaderboard.render import vega_lite as alt
from leaderboard.render.chart_points import board_tooltip, units, units_note
from leaderboard.render.colours import Style
from leaderboard.render.model import famous, pareto_frontier
from leaderboard.render.painter import SVG_WIDTH

MAX_BARS = 60  # the chip-hours bar chart shows at most this many entries (the fewest chip-hours)
# A scatter plot draws at most this many points (spread evenly over the division's range, the
# Pareto frontier always kept), so a chart and the page embedding its spec stay small at any size.
MAX_POINTS = 300
# What chip-hours and cost are, in a chart's subtitle: an image is shared on its own.
DERIVED = "derived"
DERIVED_MLPERF = "derived; not an official MLPerf metric"
FRONTIER = "on the Pareto frontier"  # a cost chart point's `frontier`; else "dominated" or "not ranked"
# Every log axis's labels and the chip-hours lines' (0.1, 100,000, 1,000,000): one format, never
# "1e+06" beside "100,000" (_finish sets it on each log axis).
LOG_FORMAT = ",~r"
# A chip-hours chart's names, cut in the middle to this many characters (within the 260-pixel
# labelLimit, 47 characters in the image): systems differ in their ends (4x A100, 8x A100).
NAME_CHARACTERS = 38
LEGEND_BESIDE = 16  # a legend of more entries goes below the plot, in columns
LEGEND_COLUMNS = 3
UNKNOWN = Style("#000000", "circle", ())  # an accelerator no look was made for (never on the site)
# A title's and a subtitle's lines are at most this many characters: within the static image's
# 640-pixel plot at Vega's 13-pixel bold title and 11-pixel subtitle. An unbroken line widened
# the image to fit it (1,142 pixels), and a phone cut it short; site.js wraps them again to fit
# the reader's width.
TITLE_CHARACTERS = 80
SUBTITLE_CHARACTERS = 105
OVER_TIME_HEIGHT = 380  # pixels: the published runs' charts over time
OVER_TIME_BASIS = {
    "chip_hours": "Chip-hours = chips x minutes / 60 (derived).",
    "cost": "Cost = chip-hours x the on-demand price in force at the run's date (derived).",
}


@dataclass(frozen=True)
class Chart:
    name: str  # file stem under charts/
    title: str
    description: str  # what the chart shows: the static image's alt text and the caption
    spec: dict  # Vega-Lite, width "container" for the page


@cache
def log_scale() -> alt.Scale:
    return alt.Scale(type="log")


@cache
def year_axis() -> alt.Axis:
    """Publication dates: a tick a year, labelled "2019" (Vega's own fell to months: "October" ran into "2018")."""
    return alt.Axis(format="%Y", tickCount={"interval": "year", "step": 1}, labelOverlap=True, labelSeparation=8)


def legend(count: int) -> alt.Legend:
    """A legend that lists every one of `count` series (Vega drops those past its symbolLimit,
    30 by default): beside the plot while short, else below it in columns."""
    if count <= LEGEND_BESIDE:
        return alt.Legend(symbolLimit=count, labelLimit=260)
    return alt.Legend(symbolLimit=count, labelLimit=260, orient="bottom", columns=LEGEND_COLUMNS, direction="vertical")


def accelerator_encoding(points: list[dict], styles: dict[str, Style]) -> dict:
    """Colour (and, for points, shape) by accelerator, each in its look of the whole site; the
    legend lists every accelerator on the chart, each once (colour and shape in one legend)."""
    names = sorted({p["accelerator"] for p in points})
    looks = [styles.get(n, UNKNOWN) for n in names]
    return {
        "color": alt.Color(
            "accelerator:N",
            title="Accelerator",
            scale=alt.Scale(domain=names, range=[look.colour for look in looks]),
            legend=legend(len(names)),
        ),
        "shape": alt.Shape(
            "accelerator:N",
            title="Accelerator",
            scale=alt.Scale(domain=names, range=[look.shape for look in looks]),
            legend=legend(len(names)),
        ),
    }


def colours_repeat(points: list[dict], styles: dict[str, Style]) -> bool:
    """Whether two accelerators of the points share a colour (told apart by shape then)."""
    names = {p["accelerator"] for p in points}
    return len({styles.get(n, UNKNOWN).colour for n in names}) < len(names)


def result_marks(data: alt.NamedData, points: list[dict], mark: dict, encoding: dict) -> tuple[alt.Chart, ...]:
    """The results as points: filled when the result ranks on its board, hollow when it takes no
    rank (republished, self-reported beside verified results, an estimate), so that no chart
    shows such a result as one of the best. One layer when every result ranks."""
    filled = alt.Chart(data).mark_point(filled=True, **mark).encode(**encoding)
    if all(p["ranked"] for p in points):
        return (filled,)
    outline = {k: v for k, v in encoding.items() if k != "stroke"}  # a hollow point's outline is its colour
    hollow = alt.Chart(data).mark_point(filled=False, strokeWidth=1.5, **mark).encode(**outline)
    return filled.transform_filter("datum.ranked"), hollow.transform_filter("!datum.ranked")


def unranked_note(points: list[dict], frontier: bool = False) -> str:
    """The subtitle's word on hollow points: how many, and why they take no rank."""
    unranked = [p for p in points if not p["ranked"]]
    if not unranked:
        return ""
    reasons = ", ".join(sorted({p["unranked_reason"] or "not ranked" for p in unranked}))
    count = f"{len(unranked)} result{'s' if len(unranked) > 1 else ''} that take{'' if len(unranked) > 1 else 's'}"
    return f" Hollow: {count} no rank ({reasons})" + ("; never on the frontier." if frontier else ".")


def _own(points: list[dict]) -> list[dict]:
    """Copies of the points, which a chart marks (its frontier, its labels): the page's other
    charts, and the reuse key made of them, see the points as result_points gave them."""
    return [dict(p) for p in points]


def _sample(points: list[dict], limit: int = MAX_POINTS, keep=lambda point: False) -> list[dict]:
    """At most `limit` points: every kept one, then evenly spaced ones in chip-hours order."""
    if len(points) <= limit:
        return points
    kept = [p for p in points if keep(p)]
    others = sorted((p for p in points if not keep(p)), key=lambda p: (p["chip_hours"], p["entry_id"]))
    room = max(limit - len(kept), 0)
    step = len(others) / room if room else 0
    chosen = {id(others[int(i * step)]) for i in range(room)}
    return [p for p in points if keep(p) or id(p) in chosen]


def _sampled_note(shown: int, total: int) -> str:
    return f" Showing {shown} of {total} results, evenly spread." if shown < total else ""


def _decades(low: float, high: float) -> list[float]:
    return [10.0**k for k in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 2)]


def _named(datasets: dict[str, list], name: str, values: list[dict]) -> alt.NamedData:
    """Data by name: the values go straight into the spec's top-level datasets, as they are."""
    datasets[name] = values
    return alt.NamedData(name=name)


@dataclass(frozen=True)
class Layers:
    """Charts drawn one over the other, each with its data named in its layer (alt.layer gives
    data every layer shares once, on top). No shared encoding or parameters: use alt.layer. Not
    vega_lite.LayerChart: it puts together Altair's charts too (tests/test_vega_lite.py)."""

    charts: tuple[alt.Chart, ...]

    def to_dict(self, validate: bool = False) -> dict:
        layers = [chart.to_dict(validate=validate) for chart in self.charts]
        top = {"$schema": layers[0]["$schema"], "config": layers[0].get("config", {})}
        for layer in layers:
            layer.pop("$schema", None)
            layer.pop("config", None)
        return {**top, "layer": layers}


def wrapped(text: str, width: int) -> list[str]:
    """`text` as lines of at most `width` characters, broken between words (Vega draws a list of
    lines one under the other)."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


def layers(*charts: alt.Chart) -> Layers:
    return Layers(charts)


def _finish(
    chart: alt.Chart | alt.LayerChart | Layers, title: str, subtitle: str, datasets: dict[str, list], height: int
) -> dict:
    # Not validated here (that takes seconds a build); the tests validate every spec against
    # the Vega-Lite schema.
    spec = chart.to_dict(validate=False)
    spec["title"] = {
        "text": wrapped(title, TITLE_CHARACTERS),
        "subtitle": wrapped(subtitle, SUBTITLE_CHARACTERS),
        "anchor": "start",
    }
    spec["height"] = height
    spec["datasets"] = dict(sorted(datasets.items()))
    spec["width"] = "container"
    spec["config"] = {**spec.get("config", {}), "font": "system-ui, sans-serif"}
    _format_log_axes(spec)
    return spec


def _format_log_axes(view: dict) -> None:
    """Every x and y axis on a log scale in LOG_FORMAT (unless it has a format, or no axis)."""
    fields = [view.get("encoding", {}).get(channel) for channel in ("x", "y")]
    for field in (f for f in fields if isinstance(f, dict) and (f.get("scale") or {}).get("type") == "log"):
        if field.get("axis", {}) is not None:
            field["axis"] = {"format": LOG_FORMAT, **field.get("axis", {})}
    for layer in view.get("layer", []):
        _format_log_axes(layer)


def scaling(name: str, results: list[dict], context: str, styles: dict[str, Style]) -> Chart:
    """Minutes against chips, log-log, with lines of ideal linear scaling (constant chip-hours),
    of a division's `results` (chart_points.result_points: all a board's charts show of them)."""
    datasets: dict[str, list] = {}
    points = _sample(_own(results))
    note = _sampled_note(len(points), len(results))
    chips = [p["chips"] for p in points]
    minutes = [p["minutes"] for p in points]
    x_domain = [min(chips) / 2, max(chips) * 2]
    y_domain = [min(minutes) / 2, max(minutes) * 2]
    lines = [
        {"chips": c, "minutes": level * 60 / c, "label": f"{labels.log_label(level)} chip-hours", "level": level}
        for level in _decades(min(p["chip_hours"] for p in points), max(p["chip_hours"] for p in points))
        for c in x_domain
    ]
    x = alt.X("chips:Q", title=f"{units(points)[0]} (log)", scale=alt.Scale(type="log", domain=x_domain))
    y = alt.Y("minutes:Q", title="Minutes to train (log)", scale=alt.Scale(type="log", domain=y_domain))
    ideal = alt.Chart(_named(datasets, "ideal", lines)).mark_line(
        clip=True, strokeDash=[4, 4], color="#777", strokeWidth=1
    )
    ideal = ideal.encode(x=x, y=y, detail=alt.Detail("label:N"))
    # Each line's label sits where the line enters the plot: the top edge, else the left edge.
    entries = [max(x_domain[0], level * 60 / y_domain[1]) for level in sorted({line["level"] for line in lines})]
    label_points = [
        {"chips": c, "minutes": level * 60 / c, "label": f"{labels.log_label(level)} chip-hours"}
        for level, c in zip(sorted({line["level"] for line in lines}), entries, strict=True)
    ]
    line_labels = alt.Chart(_named(datasets, "ideal_labels", label_points))
    line_labels = line_labels.mark_text(
        clip=True, align="left", baseline="top", dx=4, dy=4, fontSize=10, color="#555"
    ).encode(x=x, y=y, text=alt.Text("label:N"))
    marks = result_marks(
        _named(datasets, "results", points),
        points,
        {"size": 80, "opacity": 0.85},
        {
            "x": x,
            "y": y,
            **accelerator_encoding(points, styles),
            "tooltip": board_tooltip(points),
            "href": alt.Href("url:N"),
        },
    )
    spec = _finish(
        layers(ideal, line_labels, *marks),
        f"Minutes against chips: {context}",
        "Dashed lines: ideal linear scaling (constant chip-hours); below a line is more efficient."
        + units_note(points)
        + unranked_note(points)
        + note,
        datasets,
        height=360,
    )
    description = (
        f"Scatter plot, log-log, of minutes to train against chip count for {plural(len(points), 'result')}, "
        f"{context}, coloured by accelerator, with dashed lines of constant chip-hours.{note}"
    )
    return Chart(name, f"Minutes against chips, {context}", description, spec)


def cost_frontier(
    name: str, results: list[dict], context: str, styles: dict[str, Style], derived: str = DERIVED
) -> Chart | None:
    """Cost against minutes with the Pareto frontier (fastest for its cost) highlighted, of a
    division's `results` (as scaling's); `derived` says what kind of number a cost is
    (DERIVED_MLPERF on an MLPerf board)."""
    datasets: dict[str, list] = {}
    points = [p for p in _own(results) if p["cost"] is not None and p["cost"] > 0]
    if not points:
        return None
    # Only results that rank can be on the frontier: it names the best for their cost.
    ranked = [p for p in points if p["ranked"]]
    for point, on_frontier in zip(ranked, pareto_frontier([(p["minutes"], p["cost"]) for p in ranked]), strict=True):
        point["frontier"] = FRONTIER if on_frontier else "dominated"
    for point in points:
        point.setdefault("frontier", "not ranked")
        point["size"], point["outline"] = (180, "#000") if point["frontier"] == FRONTIER else (50, "transparent")
    priced = len(points)
    points = _sample(points, keep=lambda p: p["frontier"] == FRONTIER)
    frontier = sorted((p for p in points if p["frontier"] == FRONTIER), key=lambda p: p["minutes"])
    x = alt.X("minutes:Q", title="Minutes to train (log)", scale=log_scale())
    y = alt.Y("cost:Q", title="Cost, on-demand, USD (log)", scale=log_scale())
    line = alt.Chart(_named(datasets, "frontier", [{"minutes": p["minutes"], "cost": p["cost"]} for p in frontier]))
    line = line.mark_line(interpolate="step-after", color="#222", strokeWidth=1.5).encode(x=x, y=y)
    marks = result_marks(
        _named(datasets, "results", points),
        points,
        {"opacity": 0.9},
        {
            "x": x,
            "y": y,
            **accelerator_encoding(points, styles),
            "size": alt.Size("size:Q", scale=None, legend=None),
            "stroke": alt.Stroke("outline:N", scale=None, legend=None),
            "tooltip": [*board_tooltip(points), alt.Tooltip("frontier:N", title="Pareto frontier")],
            "href": alt.Href("url:N"),
        },
    )
    missing = len(results) - priced
    note = (
        f" {plural(missing, 'result')} without a price {'is' if missing == 1 else 'are'} not shown." if missing else ""
    )
    note += _sampled_note(len(points), priced)
    spec = _finish(
        layers(line, *marks),
        f"Cost against minutes: {context}",
        f"Cost = chip-hours x the on-demand price ({derived}). Black line and large outlined points: the Pareto "
        "frontier (no ranked result is both faster and cheaper)."
        + units_note(points)
        + unranked_note(points, frontier=True)
        + note,
        datasets,
        height=360,
    )
    description = (
        f"Scatter plot, log-log, of on-demand cost against minutes for {plural(len(points), 'result')}, "
        f"{context}, with the Pareto frontier drawn as a step line.{note}"
    )
    return Chart(name, f"Cost against minutes, {context}", description, spec)


def chip_hours_bars(
    name: str,
    results: list[dict],
    context: str,
    styles: dict[str, Style],
    derived: str = DERIVED,
    by_model: bool = False,
) -> Chart:
    """Chip-hours per entry, sorted (the fewest first), coloured and shaped by accelerator: a dot
    plot on a log axis, of a division's `results` (as scaling's). Not bars: a bar on a log axis
    starts at an arbitrary base, so its length (what the eye compares) means nothing; a dot's
    position does. `by_model`: each result is named by its model (a published run is known by
    its model; its system is only the hardware it ran on), else by its system."""
    datasets: dict[str, list] = {}
    points = sorted(_own(results), key=lambda p: (p["chip_hours"], p["entry_id"]))[:MAX_BARS]
    seen: dict[str, int] = {}
    for point in points:
        full = f"{point['submitter']}: {point['model'] if by_model and point['model'] else point['system']}"
        label = labels.cut_middle(full, NAME_CHARACTERS)  # the tooltip names submitter and system in full
        seen[label] = seen.get(label, 0) + 1
        point["label"] = label if seen[label] == 1 else f"{label} ({seen[label]})"
    low, high = min(p["chip_hours"] for p in points) / 2, max(p["chip_hours"] for p in points) * 2
    dots = result_marks(
        _named(datasets, "results", points),
        points,
        {"size": 70, "opacity": 0.9},
        {
            "x": alt.X(
                "chip_hours:Q", title=f"{units(points)[1]} (log)", scale=alt.Scale(type="log", domain=[low, high])
            ),
            "y": alt.Y("label:N", title=None, sort=[p["label"] for p in points], axis=alt.Axis(grid=True)),
            "tooltip": board_tooltip(points),
            "href": alt.Href("url:N"),
            **accelerator_encoding(points, styles),
        },
    )
    shown = f"the {len(points)} with the fewest chip-hours of {len(results)}" if len(results) > len(points) else ""
    spec = _finish(
        dots[0] if len(dots) == 1 else layers(*dots),
        f"Chip-hours per result: {context}",
        f"Chip-hours = chips x minutes / 60 ({derived}), fewest first; a log axis, so equal steps are equal ratios."
        + units_note(points)
        + unranked_note(points)
        + (f" Showing {shown}." if shown else ""),
        datasets,
        height=22 * len(points) + 10,
    )
    # Names are cut in the middle above; 260 pixels is a safety net (site.js cuts them shorter on a phone).
    spec["config"]["axisY"] = {"labelLimit": 260}
    description = f"Dot plot of chip-hours per result (log scale), {context}, sorted, coloured by accelerator."
    return Chart(name, f"Chip-hours per result, {context}", description, spec)


def over_time(name: str, results: list[dict], metric: str, context: str, styles: dict[str, Style]) -> Chart | None:
    """Published runs: chip-hours or cost of each model against its date, famous models labelled;
    of the round's `results` (chart_points.result_points, as scaling's)."""
    datasets: dict[str, list] = {}
    field, title = {"chip_hours": ("chip_hours", "Chip-hours"), "cost": ("cost", "Cost, on-demand, USD")}[metric]
    points = [p for p in _own(results) if p[field] is not None and p[field] > 0]
    if not points:
        return None
    title = units(points)[1] if field == "chip_hours" else title
    # One label per well-known family (its first run), so labels stay readable.
    labelled: set[str] = set()
    for point in sorted(points, key=lambda p: (p["date"], p["entry_id"])):
        family = famous(point["model"])
        point["label"] = point["model"] if family and family not in labelled else None
        labelled.add(family or "")
    total = len(points)
    points = _sample(points, keep=lambda p: p["label"] is not None)
    x = alt.X("date:T", title="Publication date", axis=year_axis())
    y = alt.Y(f"{field}:Q", title=f"{title} (log)", scale=log_scale())
    marks = result_marks(
        _named(datasets, "results", points),
        points,
        {"size": 80, "opacity": 0.85},
        {
            "x": x,
            "y": y,
            **accelerator_encoding(points, styles),
            "tooltip": [
                alt.Tooltip("model:N", title="Model"),
                alt.Tooltip("date:N", title="Date"),
                *board_tooltip(points),
            ],
            "href": alt.Href("url:N"),
        },
    )
    spec = _finish(
        layers(*marks, *_model_labels(datasets, points, field, x, y)),
        f"{title} by model over time: {context}",
        "Each point is one published training run; well-known models are labelled where there is room. "
        + OVER_TIME_BASIS[field]
        + unranked_note(points)
        + _sampled_note(len(points), total),
        datasets,
        height=OVER_TIME_HEIGHT,
    )
    description = (
        f"Scatter plot of {title.lower()} (log scale) against publication date for {len(points)} "
        f"published training runs, coloured by accelerator."
    )
    return Chart(name, f"{title} by model over time, {context}", description, spec)


def _model_labels(datasets: dict[str, list], points: list[dict], field: str, x: alt.X, y: alt.Y) -> list[alt.Chart]:
    """The text layers naming the labelled points' models: the largest first, each right of its
    point, else left of it, else left off where it would cover another label (labels.place, at
    the static image's size; site.js leaves them all off on a phone)."""
    wanted = sorted((p for p in points if p["label"]), key=lambda p: (-p[field], p["date"], p["entry_id"]))
    if not wanted:
        return []
    day = {p["date"]: dt.date.fromisoformat(p["date"]).toordinal() for p in points}
    first, last = min(day.values()), max(day.values())
    low, high = labels.log_decades([p[field] for p in points])
    spots = [
        (
            labels.linear(day[p["date"]], first, last, SVG_WIDTH),
            OVER_TIME_HEIGHT - labels.linear(math.log10(p[field]), low, high, OVER_TIME_HEIGHT),
            p["label"],
        )
        for p in wanted
    ]
    sides = labels.place(spots, SVG_WIDTH, OVER_TIME_HEIGHT)
    values = [
        {"date": p["date"], field: p[field], "label": p["label"], "side": side}
        for p, side in zip(wanted, sides, strict=True)
        if side is not None
    ]
    data = _named(datasets, "labels", values)
    return [
        alt.Chart(data)
        .mark_text(
            align="left" if side == "right" else "right",
            dx=labels.OFFSET * (1 if side == "right" else -1),
            dy=-labels.OFFSET,
            fontSize=10,
            color="#333",
        )
        .encode(x=x, y=y, text=alt.Text("label:N"))
        .transform_filter(f"datum.side == '{side}'")
        for side in labels.SIDES
        if any(v["side"] == side for v in values)
    ]


def epoch_comparison(name: str, rows: list[dict], results: dict[str, dict]) -> Chart | None:
    """Our cost against Epoch AI's estimate (both 2023 USD), log-log, per tier, with y = x;
    `results` (result points by entry_id) gives each point its submitter, system, chips and times."""
    datasets: dict[str, list] = {}
    points = [
        {
            k: row.get(k)
            for k in (
                "entry_id",
                "model_name",
                "tier",
                "our_cost_usd",
                "our_cost_usd_2023",
                "epoch_cost_usd_2023",
                "ratio",
            )
        }
        for row in rows
        if (row.get("our_cost_usd_2023") or 0) > 0 and (row.get("epoch_cost_usd_2023") or 0) > 0
    ]
    for point in points:
        result = results.get(point["entry_id"], {})
        point.update({k: result.get(k) for k in ("submitter", "system", "chips", "cpu_only", "minutes", "chip_hours")})
    if not points:
        return None
    count, hours = units(points)
    layers = cost_against_cost(
        datasets,
        points,
        alt.X("epoch_cost_usd_2023:Q", title="Epoch AI's cost estimate, 2023 USD (log)", scale=log_scale()),
        alt.Y("our_cost_usd_2023:Q", title="Our cost, 2023 USD (log)", scale=log_scale()),
        color=alt.Color("tier:N", title="Price tier"),
        shape=alt.Shape("tier:N", title="Price tier"),
        tooltip=[
            alt.Tooltip("model_name:N", title="Model"),
            alt.Tooltip("submitter:N", title="Submitter"),
            alt.Tooltip("system:N", title="System"),
            alt.Tooltip("chips:Q", title=count, format=",.4~f"),
            alt.Tooltip("minutes:Q", title="Minutes", format=",.4~f"),
            alt.Tooltip("chip_hours:Q", title=hours, format=",.1f"),
            alt.Tooltip("our_cost_usd:Q", title="Our cost (USD of its date)", format="$,.0f"),
            alt.Tooltip("tier:N", title="Tier"),
            alt.Tooltip("our_cost_usd_2023:Q", title="Our cost (2023 USD)", format="$,.0f"),
            alt.Tooltip("epoch_cost_usd_2023:Q", title="Epoch AI (2023 USD)", format="$,.0f"),
            alt.Tooltip("ratio:Q", title="Ratio", format=",.2f"),
        ],
    )
    spec = _finish(
        layers,
        "Our cost against Epoch AI's estimate",
        "Published runs, per price tier, both in 2023 US dollars. Dashed: y = x (the same cost).",
        datasets,
        height=380,
    )
    description = (
        f"Scatter plot, log-log, of our cost against Epoch AI's cost estimate for {len(points)} "
        "published runs and tiers, with the line y = x."
    )
    return Chart(name, "Our cost against Epoch AI's estimate", description, spec)


def cost_against_cost(datasets: dict[str, list], points: list[dict], x: alt.X, y: alt.Y, **encoding) -> Layers:
    """Points of one cost against another on log axes, over the dashed line y = x (the same
    cost), its ends a factor of 2 beyond the points: Epoch AI's estimates, DAWNBench's reported costs."""
    values = [p[x.shorthand.split(":")[0]] for p in points] + [p[y.shorthand.split(":")[0]] for p in points]
    ends = (min(values) / 2, max(values) * 2)
    diagonal = [{x.shorthand.split(":")[0]: v, y.shorthand.split(":")[0]: v} for v in ends]
    line = alt.Chart(_named(datasets, "diagonal", diagonal)).mark_line(strokeDash=[4, 4], color="#777").encode(x=x, y=y)
    marks = (
        alt.Chart(_named(datasets, "results", points))
        .mark_point(filled=True, size=70, opacity=0.85)
        .encode(x=x, y=y, **encoding)
    )
    return layers(line, marks)
