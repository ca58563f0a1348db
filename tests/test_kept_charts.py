"""Charts a rebuild remembers (render/kept_charts.py): their spec texts are read only when asked
for, from the cache, and built again when the cache lost or spoilt them."""

from __future__ import annotations

import pytest

from leaderboard.render.charts import Chart
from leaderboard.render.kept_charts import SPECS, KeptChart
from leaderboard.render.reuse import PageReuse

SPEC = {"mark": "point", "title": "<b>A & B</b>", "data": {"values": [{"x": 0.00001, "y": 1e22}, {"x": 2, "y": 3}]}}


def drawn(spec: dict = SPEC) -> list[Chart]:
    return [Chart("board--scaling", "Scaling", "What it shows", spec)]


@pytest.fixture
def remembered(tmp_path):
    """A manifest that remembers the chart of drawn() for the inputs ["x"]; its cache folder."""
    manifest = tmp_path / "cache" / "site-pages.json"
    first = PageReuse(tmp_path / "site", manifest)
    first.record_charts("board", ["x"], [KeptChart.of(chart) for chart in drawn()])
    first.save()
    return manifest


def test_a_kept_chart_is_the_chart_as_json_gives_it_back():
    kept = KeptChart.of(drawn()[0])
    assert (kept.name, kept.title, kept.description, kept.spec) == ("board--scaling", "Scaling", "What it shows", SPEC)
    again = KeptChart(*kept.fields(), load=lambda chart: kept.spec_json)
    assert again.spec == SPEC and again.spec_file() == kept.spec_file()
    assert kept.spec_file().endswith(b"}\n") and b'\n  "data": {' in kept.spec_file()
    with pytest.raises(TypeError):
        KeptChart("name", "title", "description", None, "digest")


def test_a_rebuild_reads_a_charts_spec_only_when_asked_and_never_draws_it(remembered):
    calls = []
    charts = PageReuse(None, remembered).charts("board", ["x"], lambda: calls.append(1) or drawn())
    assert [c.name for c in charts] == ["board--scaling"] and charts[0]._text is None
    assert charts[0].spec == SPEC and calls == []
    assert PageReuse(None, remembered).charts("board", ["y"], drawn) is None  # other inputs


@pytest.mark.parametrize("spoil", ["delete", "edit", "folder"])
def test_a_spec_text_lost_or_spoilt_is_built_again_and_stored(remembered, spoil):
    folder = remembered.parent / SPECS
    [stored] = folder.iterdir()
    if spoil == "delete":
        stored.unlink()
    elif spoil == "edit":
        stored.write_text(stored.read_text().replace("point", "line"))
    else:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    calls = []
    reuse = PageReuse(None, remembered)
    [chart] = reuse.charts("board", ["x"], lambda: calls.append(1) or drawn())
    assert chart.spec == SPEC and calls == [1]
    assert stored.read_text() == KeptChart.of(drawn()[0]).spec_json  # stored again


def test_charts_built_otherwise_from_the_same_inputs_stop_the_build(remembered):
    for path in (remembered.parent / SPECS).iterdir():
        path.unlink()
    [chart] = PageReuse(None, remembered).charts("board", ["x"], lambda: drawn({**SPEC, "mark": "bar"}))
    with pytest.raises(RuntimeError, match="board--scaling was built otherwise"):
        _ = chart.spec_json


def test_spec_texts_no_chart_of_the_new_site_has_are_removed(remembered, tmp_path):
    folder = remembered.parent / SPECS
    (folder / "stale.json").write_text("{}")
    reuse = PageReuse(None, remembered)
    reuse.charts("board", ["x"], drawn)
    reuse.save()
    assert [p.name for p in folder.iterdir()] == [f"{KeptChart.of(drawn()[0]).json_digest}.json"]
    # A build that no longer has the chart removes its text too.
    PageReuse(None, remembered).save()
    assert list(folder.iterdir()) == []
