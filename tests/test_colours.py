"""Colours on charts: the pure assignment of looks (table-driven), and every chart the site
draws from the shipped results: one look per accelerator, no two series alike, every legend entry shown."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import given
from hypothesis import strategies as st

from leaderboard.render import boards, charts, lineage_charts, lineages, model, painter
from leaderboard.render.chart_points import result_points
from leaderboard.render.colours import (
    DASHES,
    LEVELS,
    PALETTE,
    SHAPES,
    Style,
    accelerator_indices,
    accelerator_styles,
    distinct_styles,
    style,
)
from leaderboard.render.site import accelerator_looks

# ---- pure rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "index, expected",
    [
        (0, Style("#4e79a7", "circle", ())),
        (1, Style("#f28e2b", "circle", ())),
        (19, Style("#bab0ac", "circle", ())),
        (20, Style("#4e79a7", "square", (6, 3))),  # the palette again, with the next shape and dash
        (41, Style("#f28e2b", "triangle-up", (2, 2))),
    ],
)
def test_style(index, expected):
    assert style(index) == expected


def test_the_palette_shapes_and_dashes_are_distinct():
    assert len(set(PALETTE)) == len(PALETTE) == 20
    assert len(set(SHAPES)) == len(SHAPES) == len(set(DASHES)) == len(DASHES) == LEVELS
    looks = distinct_styles(len(PALETTE) * LEVELS)
    assert len(set(looks)) == len(looks)
    assert len({(look.colour, look.shape) for look in looks}) == len(looks)
    assert len({(look.colour, look.dash) for look in looks}) == len(looks)


BIG = [f"x{i:02}" for i in range(21)]  # more accelerators than colours on one chart


@pytest.mark.parametrize(
    "order, groups, expected",
    [
        (["a", "b"], [], {"a": 0, "b": 0}),  # never on one chart: they may look alike
        (["a", "b"], [{"a", "b"}], {"a": 0, "b": 1}),
        (["b", "a"], [{"a", "b"}], {"b": 0, "a": 1}),  # ties: in the order given
        # The accelerator on most charts first, whatever the order.
        (["a", "b", "c"], [{"a", "b"}, {"b", "c"}], {"b": 0, "a": 1, "c": 1}),
        # An accelerator in no group but in the catalog still gets a look.
        (["a", "z"], [{"a"}], {"a": 0, "z": 0}),
        # An accelerator of the groups missing from the order comes after, by name.
        (["a"], [{"a", "q"}], {"a": 0, "q": 1}),
        # 21 on one chart: the 21st takes the first colour again with the next shape, unless it
        # shares a small chart with the first colour's holder (x00, x20 here): then x19 does.
        (BIG, [set(BIG)], {**{x: i for i, x in enumerate(BIG)}}),
        (
            BIG,
            [set(BIG), {"x00", "x20"}],
            {"x00": 0, "x20": 1, **{f"x{i:02}": i + 1 for i in range(1, 19)}, "x19": 20},
        ),
    ],
)
def test_accelerator_indices(order, groups, expected):
    assert accelerator_indices(order, groups) == expected


@given(
    st.lists(
        st.sets(st.sampled_from([f"a{i}" for i in range(40)]), min_size=1, max_size=30),
        max_size=12,
    )
)
def test_no_group_ever_holds_two_alike(groups):
    looks = accelerator_styles([], groups)
    for group in groups:
        assert len({looks[a] for a in group}) == len(group)


# ---- every chart of the shipped results --------------------------------------------------


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> model.SiteData:
    from leaderboard.build import build

    db = tmp_path_factory.mktemp("colours") / "leaderboard.duckdb"
    done = build(ROOT / "submissions", ROOT / "catalog", db, None)
    assert done.ok, done.problems[:3]
    return model.load(db)


@pytest.fixture(scope="module")
def looks(data) -> dict[str, Style]:
    return accelerator_looks(data)


@pytest.fixture(scope="module")
def accelerator_charts(data, looks) -> list[charts.Chart]:
    """Every chart of a board division and of a round page, as the site builds them."""
    built = [
        chart
        for board in data.boards
        for division in board.divisions
        for chart in boards.division_charts(board, division, looks, result_points(board.divisions[division], "../../"))
    ]
    built += [
        chart
        for round_ in data.rounds
        for chart in boards.round_charts(data, round_, looks, *boards.round_points(data, round_))
    ]
    return [c for c in built if channel(c.spec, "color", "accelerator")]


def channel(spec: dict, name: str, field: str) -> dict | None:
    """The spec's encoding `name` of `field`, at the top or in a layer."""
    for part in [spec, *spec.get("layer", [])]:
        found = part.get("encoding", {}).get(name)
        if found and found.get("field") == field:
            return found
    return None


def series_looks(spec: dict, field: str, channels: tuple[str, ...]) -> dict[str, tuple]:
    """Each value of `field` on the chart -> its look on `channels` (colour first)."""
    encodings = [channel(spec, name, field) for name in channels]
    domain = encodings[0]["scale"]["domain"]
    for encoding in encodings:
        assert encoding is not None and encoding["scale"]["domain"] == domain
    ranges = [[tuple(v) if isinstance(v, list) else v for v in e["scale"]["range"]] for e in encodings]
    return {value: tuple(r[i] for r in ranges) for i, value in enumerate(domain)}


def drawn_values(spec: dict, field: str) -> set[str]:
    return {v[field] for values in spec["datasets"].values() for v in values if field in v}


def legend_shows_all(spec: dict, field: str, channels: tuple[str, ...], count: int) -> None:
    for name in channels:
        legend = channel(spec, name, field)["legend"]
        assert legend["symbolLimit"] >= count
        if count > charts.LEGEND_BESIDE:
            assert legend["columns"] >= 2 and legend["orient"] == "bottom"


def test_every_accelerator_chart_gives_each_accelerator_its_own_look_and_legend_entry(accelerator_charts, looks):
    assert len(accelerator_charts) >= 290  # the issue counted 293
    repeats = 0
    for chart in accelerator_charts:
        spec = chart.spec
        shaped = channel(spec, "shape", "accelerator") is not None
        seen = series_looks(spec, "accelerator", ("color", "shape") if shaped else ("color",))
        assert set(seen) == drawn_values(spec, "accelerator"), chart.name
        assert len(set(seen.values())) == len(seen), chart.name  # no two alike
        colours = [look[0] for look in seen.values()]
        if len(set(colours)) < len(colours):  # colours ran out: the shapes tell them apart
            repeats += 1
            assert shaped, chart.name
        for name, look in seen.items():
            assert look[0] == looks[name].colour, (chart.name, name)  # one colour per accelerator
            if shaped:
                assert look[1] == looks[name].shape, (chart.name, name)
        legend_shows_all(spec, "accelerator", ("color", "shape") if shaped else ("color",), len(seen))
    assert repeats < len(accelerator_charts) // 10


def test_charts_of_few_accelerators_never_repeat_a_colour(data, looks):
    """Every board division and round of at most 20 accelerators: 20 colours, none twice."""
    for group in boards.accelerator_groups(data):
        names = [data.accelerators[a]["name"] for a in group]
        if len(names) <= len(PALETTE):
            assert len({looks[n].colour for n in names}) == len(names), sorted(names)
        assert len({looks[n] for n in names}) == len(names), sorted(names)


def test_the_accelerators_the_issue_named_look_different(looks):
    """TPU v3 and V100 (v0.5, v0.6), A100 80GB and H100 (v3.0) shared a colour before."""
    pairs = [("TPU v3", "Tesla V100 SXM2 16GB"), ("A100 SXM4 80GB", "H100 SXM5 80GB")]
    for one, other in pairs:
        assert looks[one].colour != looks[other].colour


def test_an_accelerator_has_one_colour_across_the_site(accelerator_charts):
    colours = defaultdict(set)
    for chart in accelerator_charts:
        for name, look in series_looks(chart.spec, "accelerator", ("color",)).items():
            colours[name].add(look[0])
    assert len(colours) > 50
    assert {name: c for name, c in colours.items() if len(c) > 1} == {}


@pytest.fixture(scope="module")
def generation_charts(data) -> dict[str, charts.Chart]:
    found = lineages.lineages(data)
    rounds = {r["id"]: r for r in data.rounds}
    built = {
        line.vendor: lineage_charts.generations_chart("g", line, lineages.generations(line, found), rounds, "../")
        for line in lineages.vendor_lines(data)
    }
    return {vendor: chart for vendor, chart in built.items() if chart}


def test_generation_charts_tell_every_series_apart(generation_charts):
    assert len(generation_charts["NVIDIA"].spec["datasets"]["generations"]) > 40
    for vendor, chart in generation_charts.items():
        channels = ("color", "strokeDash", "shape")
        seen = series_looks(chart.spec, "segment", channels)
        assert set(seen) == drawn_values(chart.spec, "segment"), vendor
        assert len(set(seen.values())) == len(seen), vendor
        assert len({(colour, dash) for colour, dash, _ in seen.values()}) == len(seen), vendor
        legend_shows_all(chart.spec, "segment", channels, len(seen))
    # many series (19 of MLPerf Training for NVIDIA; its HPC benchmarks have charts of their own)
    assert len(series_looks(generation_charts["NVIDIA"].spec, "segment", ("color",))) >= 15


def test_the_best_line_is_drawn_under_the_largest_and_stays_visible(data):
    found = lineages.lineages(data)
    drawn = 0
    for lineage in found:
        chart = lineage_charts.minutes_over_time("l", lineage, lineages.progress(lineage), lineages.SCALES, "../")
        if chart is None:
            continue
        drawn += 1
        under, over = chart.spec["layer"]
        assert under["transform"] == [{"filter": {"field": "scale", "oneOf": ["best"]}}]
        assert over["transform"] == [{"filter": {"not": {"field": "scale", "oneOf": ["best"]}}}]
        assert under["mark"]["strokeWidth"] > over["mark"]["strokeWidth"]  # wider, so it shows around the others
        seen = series_looks(chart.spec, "scale", ("color", "strokeDash"))
        assert len(set(seen.values())) == len(seen) == len(lineages.SCALES)
        assert seen["largest"][1] != () and seen["best"][1] == ()
    assert drawn > 10


def test_the_drawn_legend_names_every_series(accelerator_charts, generation_charts, tmp_path: Path):
    """Drawn by Vega (not only written in the spec): the longest legends list every entry."""
    longest = max(accelerator_charts, key=lambda c: len(drawn_values(c.spec, "accelerator")))
    names = drawn_values(longest.spec, "accelerator")
    assert len(names) > 30  # past Vega's default limit of 30 symbols
    svg = painter.svg(longest.spec, painter.vega_lite_version())
    assert all(f">{_escaped(n)}</text>" in svg for n in names), [n for n in names if _escaped(n) not in svg]
    nvidia = generation_charts["NVIDIA"]
    svg = painter.svg(nvidia.spec, painter.vega_lite_version())
    segments = drawn_values(nvidia.spec, "segment")
    assert all(f">{_escaped(s)}</text>" in svg for s in segments)


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_the_specs_are_valid_vega_lite(accelerator_charts, generation_charts, data):
    from test_site import vega_lite_validator

    validator = vega_lite_validator()
    lineage = lineages.lineages(data)[0]
    specs = [
        lineage_charts.minutes_over_time("l", lineage, lineages.progress(lineage), lineages.SCALES, "../").spec,
        *(chart.spec for chart in generation_charts.values()),
        # One of each kind, and every chart where colours ran out (the bars gain a layer).
        *{chart.name.rsplit("--", 1)[1]: chart.spec for chart in accelerator_charts}.values(),
        *(
            c.spec
            for c in accelerator_charts
            if len({v[0] for v in series_looks(c.spec, "accelerator", ("color",)).values()})
            < len(drawn_values(c.spec, "accelerator"))
        ),
    ]
    for spec in specs:
        assert not [e.message for e in validator.iter_errors(spec)][:3]
        assert not [e.message for e in validator.iter_errors(painter.static_spec(spec))][:3]
