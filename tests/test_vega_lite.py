"""vega_lite.py builds the site's Vega-Lite specs in Altair's words without importing Altair: each
object's to_dict() is Altair's, checked here construct by construct and over every chart the
shipped site draws, with Altair as the reference."""

from __future__ import annotations

import altair
import pytest
from altair.utils.schemapi import debug_mode
from conftest import modules_a_build_imports
from test_site import built_site
from test_store import place_acme_results

from leaderboard.catalog import load_catalog
from leaderboard.render import chart_points, charts, lineage_charts, progress, site, vega_lite
from leaderboard.render.kept_charts import KeptChart
from leaderboard.render.writer import SiteWriter

DATA = "points"


def _data(alt):
    return alt.NamedData(name=DATA)


CASES = {
    "a point mark with properties": lambda alt: alt.Chart(_data(alt)).mark_point(filled=True, size=80, opacity=0.85),
    "a bare line mark": lambda alt: alt.Chart(_data(alt)).mark_line(),
    "a text mark": lambda alt: alt.Chart(_data(alt)).mark_text(align="left", dx=4, fontSize=10, color="#555"),
    "a rule mark": lambda alt: alt.Chart(_data(alt)).mark_rule(strokeDash=[4, 4], color="#777"),
    "a line with an overlaid point": lambda alt: alt.Chart(_data(alt)).mark_line(
        strokeWidth=2, point=alt.OverlayMarkDef(filled=True, size=50)
    ),
    "channels of every type, with their properties": lambda alt: (
        alt.Chart(_data(alt))
        .mark_point()
        .encode(
            x=alt.X("chips:Q", title="Chips (log)", scale=alt.Scale(type="log", domain=[1, 2.5])),
            y=alt.Y("label:N", title=None, sort=["a", "b"], axis=alt.Axis(grid=True)),
            color=alt.Color("tier:N", title="Tier", scale=alt.Scale(domain=["a"], range=["#000"]), legend=None),
            shape=alt.Shape("tier:O", legend=alt.Legend(symbolLimit=3, orient="bottom", columns=3)),
            size=alt.Size("size:Q", scale=None, legend=None),
            stroke=alt.Stroke("outline:N", scale=None, legend=None),
            strokeDash=alt.StrokeDash("scale:N", scale=alt.Scale(domain=["a"], range=[[4, 2]])),
            detail=alt.Detail("label:N"),
            text=alt.Text("label:N"),
            href=alt.Href("url:N"),
            tooltip=[alt.Tooltip("date:T", title="Date"), alt.Tooltip("cost:Q", title="Cost", format="$,.2f")],
        )
    ),
    "shorthand strings as channels": lambda alt: (
        alt.Chart(_data(alt)).mark_line().encode(x="date:T", detail="line:N", href="url:N")
    ),
    "a time axis with a dict property": lambda alt: (
        alt.Chart(_data(alt))
        .mark_point()
        .encode(x=alt.X("date:T", axis=alt.Axis(format="%Y", tickCount={"interval": "year", "step": 1})))
    ),
    "filters: an expression, a predicate and its negation": lambda alt: (
        alt.Chart(_data(alt))
        .mark_point()
        .transform_filter("datum.ranked")
        .transform_filter(alt.FieldOneOfPredicate(field="scale", oneOf=["a", "b"]))
        .transform_filter(~alt.FieldOneOfPredicate(field="scale", oneOf=[]))
    ),
    "a legend pick and a list bound to a parameter": lambda alt: (
        alt.Chart(_data(alt))
        .mark_line()
        .encode(x="a:Q")
        .add_params(
            alt.selection_point(name="picked", fields=["segment"], bind="legend"),
            alt.param(
                name="pick_list",
                value="",
                bind=alt.binding_select(options=["", "a"], labels=["every line", "a"], name="Pick out a line: "),
            ),
        )
    ),
    "layers of the same data, sharing an encoding (the data given once, on top)": lambda alt: alt.layer(
        alt.Chart(data := _data(alt)).mark_line(strokeWidth=6).transform_filter("datum.a"),
        alt.Chart(data).mark_line(strokeWidth=2),
    ).encode(x=alt.X("date:T", title="Round published"), y="minutes:Q"),
    "layers of different data (each keeps its own)": lambda alt: alt.layer(
        alt.Chart(_data(alt)).mark_line(), alt.Chart(alt.NamedData(name="other")).mark_point()
    ),
    "an encoding added to an encoded chart": lambda alt: (
        alt.Chart(_data(alt)).mark_point().encode(x="a:Q", y="b:Q").encode(y=alt.Y("c:Q", title="C"))
    ),
}


@pytest.mark.parametrize("build", CASES.values(), ids=list(CASES))
def test_each_construct_gives_altairs_dict(build):
    with debug_mode(False):
        expected = build(altair).to_dict(validate=False)
    assert build(vega_lite).to_dict() == expected


def test_a_chart_is_not_changed_by_what_is_made_from_it():
    base = vega_lite.Chart(vega_lite.NamedData(name=DATA)).mark_point()
    base.encode(x="a:Q").transform_filter("datum.a").add_params(vega_lite.param(name="p", value=1, bind={}))
    assert base.to_dict() == vega_lite.Chart(vega_lite.NamedData(name=DATA)).mark_point().to_dict()


def test_a_finished_spec_shares_nothing_with_another():
    """The chart modules change a finished spec in place (an axis's format, the config)."""
    x = vega_lite.X("a:Q", scale=vega_lite.Scale(type="log"), axis=vega_lite.Axis(grid=True))
    chart = vega_lite.Chart(vega_lite.NamedData(name=DATA)).mark_point().encode(x=x)
    first = chart.to_dict()
    first["encoding"]["x"]["axis"]["format"] = ",~r"
    first["config"]["font"] = "serif"
    assert chart.to_dict()["encoding"]["x"]["axis"] == {"grid": True}
    assert "font" not in chart.to_dict()["config"]


@pytest.mark.parametrize("shorthand", ["sum(chips):Q", "chips", "chips:X", "a.b:Q", "chips:Q "])
def test_a_shorthand_it_does_not_know_is_refused(shorthand):
    with pytest.raises(ValueError, match="not a shorthand"):
        vega_lite.X(shorthand).to_dict()


def test_layers_with_parameters_are_refused():
    chart = vega_lite.Chart(vega_lite.NamedData(name=DATA)).mark_point()
    with pytest.raises(ValueError, match="parameters"):
        vega_lite.layer(chart.add_params(vega_lite.param(name="p", value=1, bind={})), chart)


def test_its_schema_is_the_installed_altairs():
    assert vega_lite.SCHEMA_VERSION == altair.SCHEMA_VERSION
    assert vega_lite.SCHEMA_URL == altair.SCHEMA_URL


def test_every_chart_of_the_shipped_site_is_the_spec_altair_builds(tmp_path_factory, tmp_path, monkeypatch):
    """The shipped site drawn again, each chart's spec built twice: by vega_lite.py (what the site
    gets) and by Altair in its place."""
    project = built_site(tmp_path_factory)
    compared: list[str] = []
    built = SiteWriter.chart_specs
    modules = (charts, chart_points, lineage_charts, progress)
    # Their cached parts (a log scale, a tooltip) were made by whichever module built them first.
    cached = [f for m in modules for f in vars(m).values() if callable(getattr(f, "cache_clear", None))]

    def both(writer, stem, inputs, draw):
        with monkeypatch.context() as patched, debug_mode(False):
            for module in modules:
                patched.setattr(module, "alt", altair)
            for function in cached:
                function.cache_clear()
            expected = [(c.name, c.title, c.description, c.spec) for c in map(KeptChart.of, draw())]
        for function in cached:
            function.cache_clear()
        ours = built(writer, stem, inputs, draw)
        assert [(c.name, c.title, c.description, c.spec) for c in ours] == expected, stem
        compared.extend(chart.name for chart in ours)
        return ours

    monkeypatch.setattr(SiteWriter, "chart_specs", both)
    out = tmp_path / "site"
    site.render_site(project / "leaderboard.duckdb", out, load_catalog(project / "catalog"), project)
    written = {path.name.removesuffix(".vl.json") for path in (out / "charts").glob("*.vl.json")}
    assert len(compared) > 400
    assert set(compared) == written


def test_a_build_never_imports_altair(empty_project):
    """A fresh interpreter builds a site whose boards have charts, and never imports Altair."""
    place_acme_results(empty_project)
    imported = modules_a_build_imports(empty_project)
    assert "leaderboard" in imported and "altair" not in imported
    assert list((empty_project / "site" / "charts").glob("*.vl.json"))
