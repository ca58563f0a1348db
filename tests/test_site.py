"""The static site: every result on its leaderboard with the right rank and numbers, valid
Vega-Lite charts with an SVG beside each, escaping, downloads, the feed, determinism and the
all-or-nothing build. One site is built per session and shared (test_browser.py uses it too).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import html
import json
import re
import shutil
import threading
import time
import urllib.request
import xml.etree.ElementTree as ET
from functools import cache, lru_cache, wraps
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import duckdb
import jinja2
import pytest
from conftest import ROOT, run_cli

from leaderboard import store
from leaderboard.families import family
from leaderboard.normalize import TIERS, competition_ranks, cost_marks, slug
from leaderboard.render import (
    charts,
    downloads,
    entries,
    exports,
    feeds,
    history,
    kept_charts,
    model,
    painter,
    prices,
    site,
    writer,
)
from leaderboard.render import colours as colours_module
from leaderboard.render.chart_points import result_points

HOSTILE_SYSTEM = "<script>alert(1)</script> \"double\" 'single' & Ünïcødé — 🚀 </td>"
HOSTILE_SUBMITTER = 'Ünïcødé & "Quoted" <Lab>'
HOSTILE_SLUG = slug(HOSTILE_SUBMITTER)
HOSTILE_ID = f"mlperf-training-v1.1/{HOSTILE_SLUG}/hostile-resnet"
FORMULAS = {
    "model_name": "=1+2",
    "framework": "@SUM(A1)",
    "host_processor": "+cmd|' /C calc'!A0",
    "source_note": "-2+3",
}
HOSTILE_YAML = f"""schema_version: 1
round: mlperf-training-v1.1
benchmark: resnet
division: closed
availability: research
submitter: {json.dumps(HOSTILE_SUBMITTER, ensure_ascii=False)}
date: "2021-12-01"
system:
  name: {json.dumps(HOSTILE_SYSTEM, ensure_ascii=False)}
  accelerator: a100-sxm4-80gb
  count: 16
  host_processor: {json.dumps(FORMULAS["host_processor"])}
  framework: {json.dumps(FORMULAS["framework"])}
model:
  name: {json.dumps(FORMULAS["model_name"])}
result:
  minutes: 17.5
  quality: 0.76
  quality_target: 0.759
source:
  url: https://example.com/result?a=1&b=2
  note: {json.dumps(FORMULAS["source_note"])}
"""


KNOWN_ID = "published/site-test-lab/known-run"
KNOWN_YAML = """schema_version: 1
round: published
benchmark: vision
division: open
availability: available
submitter: Site Test Lab
date: "2019-06-01"
system:
  name: Sixteen Cloud TPU v3 devices
  accelerator: tpu-v3
  count: 16
  unit: device
model:
  name: Known model
result:
  minutes: 600
source:
  citation: A run the site tests know by heart
"""


def add_known_submission(project: Path) -> None:
    """16 Cloud TPU v3 devices = 64 chips; 64 chips x 600 minutes / 60 = 640 chip-hours."""
    folder = project / "submissions" / "published" / "site-test-lab"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "known-run.yaml").write_text(KNOWN_YAML, encoding="utf-8")


def add_hostile_submission(project: Path) -> None:
    """A valid result whose names try markup, quotes, ampersands, Unicode and spreadsheet formulas."""
    folder = project / "submissions" / "mlperf-training-v1.1" / HOSTILE_SLUG
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hostile-resnet.yaml").write_text(HOSTILE_YAML, encoding="utf-8")


_BUILT: dict[str, Path] = {}


def built_site(factory: pytest.TempPathFactory) -> Path:
    """The shipped submissions plus the hostile one, built once per session (test_browser.py too)."""
    if "project" not in _BUILT:
        project = factory.mktemp("site-project")
        shutil.copytree(ROOT / "catalog", project / "catalog")
        shutil.copytree(ROOT / "submissions", project / "submissions")
        add_hostile_submission(project)
        add_known_submission(project)
        done = run_cli("build", "-q", cwd=project, timeout=1200)  # a loaded machine builds slowly
        assert done.code == 0, done.err
        _BUILT["project"] = project
    return _BUILT["project"]


PAGE_ROWS = 3  # small pages, so the shipped leaderboards span several


def paged_site(factory: pytest.TempPathFactory) -> Path:
    """The same database rendered with at most PAGE_ROWS rows of each division a page."""
    if "paged" not in _BUILT:
        from leaderboard.catalog import load_catalog

        project = built_site(factory)
        out = factory.mktemp("paged") / "site"
        site.render_site(
            project / "leaderboard.duckdb", out, load_catalog(project / "catalog"), project, page_rows=PAGE_ROWS
        )
        _BUILT["paged"] = out
    return _BUILT["paged"]


@pytest.fixture(scope="session")
def project_built(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


@pytest.fixture(scope="session")
def out(project_built) -> Path:
    return project_built / "site"


@pytest.fixture(scope="session")
def results(project_built) -> list[dict]:
    names, rows = store.run_query(project_built / "leaderboard.duckdb", "SELECT * FROM results ORDER BY entry_id")
    return [dict(zip(names, row, strict=True)) for row in rows]


class Page(HTMLParser):
    """The parts of a page the tests read: board rows (cells as text, attributes, division),
    links, scripts, images, the title and the <html lang>."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, dict] = {}
        self.links, self.scripts, self.images, self.stylesheets = [], [], [], []
        self.title, self.lang, self.division = "", None, None
        self._row, self._cell, self._in_title = None, None, False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        elif tag == "title":
            self._in_title = True
        elif tag == "section" and "data-division" in a:
            self.division = a["data-division"]
        elif tag == "tr" and "data-entry" in a:
            self._row = {"attrs": a, "cells": [], "division": self.division}
            self.rows[a["data-entry"]] = self._row
        elif tag == "td" and self._row is not None:
            self._cell = []
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif tag == "script":
            self.scripts.append(a)
        elif tag == "img":
            self.images.append(a)
        elif tag == "link" and a.get("rel") == "stylesheet":
            self.stylesheets.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag == "td" and self._cell is not None and self._row is not None:
            self._row["cells"].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._cell is not None:
            self._cell.append(data)


@cache
def page(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


COLUMNS = [
    "rank",
    "submitter",
    "system",
    "accelerator",
    "chips",
    "minutes",
    "chip_hours",
    "cost",
    "quality",
    "availability",
    "source",
]


# A board whose results measured energy has one more column, after the cost.
ENERGY_COLUMNS = [*COLUMNS[: COLUMNS.index("cost") + 1], "energy_kwh", *COLUMNS[COLUMNS.index("cost") + 1 :]]


# Published runs have no availability (families.py `divisions`): their boards have no such column.
PUBLISHED_COLUMNS = [c for c in COLUMNS if c != "availability"]


def cells(row: dict) -> dict[str, str]:
    columns = {len(c): c for c in (COLUMNS, ENERGY_COLUMNS, PUBLISHED_COLUMNS)}[len(row["cells"])]
    return dict(zip(columns, row["cells"], strict=True))


# ---- pure rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "points, frontier",
    [
        ([], []),
        ([(1.0, 10.0)], [True]),
        ([(1.0, 10.0), (2.0, 5.0), (3.0, 7.0)], [True, True, False]),  # slower and dearer: dominated
        ([(1.0, 10.0), (1.0, 8.0)], [False, True]),  # as fast and cheaper wins
        ([(1.0, 5.0), (2.0, 5.0)], [True, False]),  # as cheap and faster wins
        ([(3.0, 1.0), (2.0, 2.0), (1.0, 3.0)], [True, True, True]),
    ],
)
def test_pareto_frontier(points, frontier):
    assert model.pareto_frontier(points) == frontier


@pytest.mark.parametrize(
    "value, expected",
    [
        ("=1+2", "'=1+2"),
        ("+1", "'+1"),
        ("-x", "'-x"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("==1", "'==1"),  # one quote, at the start only
        ("a\n=b", "a\n=b"),  # a later line's start is not the cell's
        ("=\\1$1", "'=\\1$1"),  # the replacement's own syntax in the value stays as it is
        ("é=", "é="),
        ("plain", "plain"),
        ("a=b", "a=b"),
        (-2.5, -2.5),
        (3, 3),
        (None, None),
        ("", ""),
    ],
)
def test_neutralize(value, expected):
    """The select item the CSV downloads are written with, run by DuckDB on one value."""
    kind = "VARCHAR" if isinstance(value, str) else "DOUBLE"
    with duckdb.connect() as connection:
        item = exports.neutralized("v", kind, "out")
        [(got,)] = connection.execute(f"SELECT {item} FROM (SELECT ?::{kind} AS v)", [value]).fetchall()
    assert got == expected


@pytest.mark.parametrize(
    "name, family",
    [
        ("GPT-3 175B", "GPT-3"),
        ("BERT-Large", "BERT"),
        ("StyleGAN at 1024x1024", "StyleGAN"),
        ("Llama 3.1-405B", "Llama"),
        ("ALBERT", None),
        ("Some model", None),
        (None, None),
    ],
)
def test_famous_models_are_labelled(name, family):
    assert model.famous(name) == family


@pytest.mark.parametrize(
    "value, number, usd",
    [
        (0.347, "0.347", "$0.35"),
        (4320.0, "4,320", "$4,320"),
        (1196.638, "1,196.638", "$1,197"),
        (None, "", ""),
        (99.994, "99.994", "$99.99"),
    ],
)
def test_number_formats(value, number, usd):
    assert writer.number(value) == number
    assert writer.usd(value) == usd


@pytest.mark.parametrize(
    "value, digits, shown",
    [
        (0.0209, 1, "0.021"),  # a DAWNBench run's chip-hours: never "0.0" beside its cost
        (0.04, 1, "0.040"),
        (0.06, 1, "0.1"),  # shows as 0.1: as it is
        (-0.003, 1, "-0.0030"),
        (0.0004, 3, "0.00040"),
        (0.0, 1, "0"),
        (2.5, 1, "2.5"),
    ],
)
def test_a_value_is_never_shown_as_zero(value, digits, shown):
    assert writer.number(value, digits) == shown


@pytest.mark.parametrize(
    "value, shown",
    [
        (44490.0, "44,490"),  # never 4.449e+04
        (1234.5, "1,234"),
        (2.449, "2.449"),
        (2.4, "2.40"),  # a price in dollars keeps its cents
        (10.5, "10.50"),
        (123.4, "123.40"),
        (999.95, "1,000"),  # rounds up past the cents
        (0.0123, "0.0123"),
        (0.00004567, "0.00004567"),  # never 4.567e-05
        (30.0, "30.00"),
        (0.0, "0"),
        (None, ""),
    ],
)
def test_prices_show_four_significant_digits_without_exponents(value, shown):
    assert prices.significant(value) == shown


class _Attributes(dict):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.minutes = "the attribute"


class _Property(dict):
    __slots__ = ()

    @property
    def minutes(self) -> str:
        return "the property"


class _Dynamic(dict):
    def __getattr__(self, name: str) -> str:
        return f"dynamic {name}"


@pytest.mark.parametrize(
    "obj, attribute",
    [
        ({"minutes": 1.5}, "minutes"),  # an item
        ({"minutes": 1.5}, "missing"),  # neither: Undefined
        ({"items": "an item"}, "items"),  # the method, as Jinja2 gives it
        ({"get": 1}, "get"),
        (model.ResultRow({"minutes": 2.0, "frozen": "item"}), "minutes"),
        (model.ResultRow({"minutes": 2.0, "frozen": "item"}), "frozen"),  # the slot, not the item
        (_Attributes({"minutes": 3.0}), "minutes"),  # an instance's attribute comes first
        (_Property({"minutes": 4.0}), "minutes"),
        (_Dynamic({"minutes": 5.0}), "minutes"),
        (_Dynamic({"minutes": 5.0}), "other"),
        (["a list"], "count"),
    ],
)
def test_the_pages_environment_looks_up_what_jinja2_does(obj, attribute):
    ours, theirs = writer.environment(), jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=True)
    found, expected = ours.getattr(obj, attribute), theirs.getattr(obj, attribute)
    if isinstance(expected, jinja2.Undefined):
        assert isinstance(found, jinja2.StrictUndefined)
        with pytest.raises(jinja2.UndefinedError, match=attribute):
            str(found)
    else:
        assert found == expected
    template = f"{{{{ obj.{attribute} if obj.{attribute} is defined else 'undefined' }}}}"
    assert ours.from_string(template).render(obj=obj) == theirs.from_string(template).render(obj=obj)


def test_script_json_cannot_close_the_script_element():
    text = writer.script_json({"name": "</script><script>alert(1)</script>&\u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script>&\u2028"}


# ---- pages --------------------------------------------------------------------------------


def board_path(out: Path, row: dict) -> Path:
    return out / "boards" / row["round"] / f"{row['benchmark']}.html"


def expected_ranks(results: list[dict]) -> dict[str, int | None]:
    """Ranks as the site must show them: MLPerf by the database's rank (minutes), published
    runs by chip-hours, estimates and republished results left out, each within round x
    benchmark x division."""
    ranks = {}
    groups: dict[tuple, list[dict]] = {}
    for row in results:
        groups.setdefault((row["round"], row["benchmark"], row["division"]), []).append(row)
    for rows in groups.values():
        if rows[0]["round_kind"] == "published":
            counted = [None if r["estimated"] or r["republished_from"] else r["chip_hours"] for r in rows]
            for row, rank in zip(rows, competition_ranks(counted), strict=True):
                ranks[row["entry_id"]] = rank
        else:
            ranks.update({r["entry_id"]: r["rank"] for r in rows})
    return ranks


def test_every_result_is_on_its_leaderboard_with_its_rank_and_numbers(out, results):
    ranks = expected_ranks(results)
    assert len(results) >= 18
    for row in results:
        board = page(board_path(out, row))
        assert row["entry_id"] in board.rows, row["entry_id"]
        shown = board.rows[row["entry_id"]]
        got = cells(shown)
        assert shown["division"] == row["division"]
        expected = ranks[row["entry_id"]]  # None: self-reported beside verified results (results.ranked)
        assert got["rank"] == ("—" if expected is None else str(expected))
        assert expected == row["rank"]  # the database ranks as the board
        assert got["submitter"] == " ".join(row["submitter"].split())
        assert got["system"].startswith(" ".join(row["system"].split()))
        # A system of processors alone counts CPUs, and its chip-hours are processor-hours (results.cpu_only).
        cpus = (" CPU" if row["chips"] == 1 else " CPUs") if row["cpu_only"] else ""
        assert got["chips"] == writer.number(row["chips"]) + cpus
        assert got["minutes"] == writer.number(row["minutes"])
        assert got["chip_hours"] == writer.number(row["chip_hours"], 1) + (
            " processor-hours" if row["cpu_only"] else ""
        )
        # A cost from a price dated after the result, or an estimated one, carries its marks; a
        # missing cost reads "n/a", its reason behind it (a <details> disclosure).
        marks = "".join(cost_marks(row))
        if row["cost_usd"] is not None:
            # ... and says what it rests on: the price per chip-hour and its provider, from the database.
            basis = f"${prices.significant(row['price_usd_per_chip_hour'])}/chip-hour, {row['price_provider']}"
            assert got["cost"] == writer.usd(row["cost_usd"]) + basis + marks
        else:
            assert got["cost"].startswith("n/a")
        assert got.get("availability", "none") == (row["availability"] if row["round_kind"] != "published" else "none")
        if row["energy_kwh"] is not None:
            assert got["energy_kwh"] == writer.number(row["energy_kwh"], 2)
        assert float(shown["attrs"]["data-minutes"]) == row["minutes"]
        # A board holds one round only: MLPerf and published runs are never ranked together.
        assert all(entry.startswith(row["round"] + "/") for entry in board.rows)


def test_energy_is_shown_where_it_was_measured(out, results):
    """Boards with a measured energy to train show it beside minutes and chip-hours; others have
    no such column; the entry page says what the number is."""
    measured = [row for row in results if row["energy_kwh"] is not None]
    assert len(measured) >= 4
    for row in measured:
        assert cells(page(board_path(out, row)).rows[row["entry_id"]])["energy_kwh"] != "—"
        entry = (out / "entries" / f"{row['entry_id']}.html").read_text(encoding="utf-8")
        assert "Energy to train" in entry and "MLPerf Power" in entry
    plain = out / "boards" / "mlperf-training-v1.1" / "resnet.html"
    assert "Energy (kWh)" not in plain.read_text(encoding="utf-8")


def test_numbers_written_out(out):
    """The hostile entry's numbers, worked by hand: 16 chips x 17.5 minutes / 60 = 4.667 chip-hours."""
    row = cells(page(out / "boards" / "mlperf-training-v1.1" / "resnet.html").rows[HOSTILE_ID])
    assert (row["chips"], row["minutes"], row["chip_hours"]) == ("16", "17.500", "4.7")
    assert row["quality"] == "0.76 (target 0.759)"
    assert row["availability"] == "research"


def test_ranks_within_each_division_are_one_based_and_ordered(out, results):
    for path in sorted((out / "boards").rglob("*.html")):
        board = page(path)
        by_division: dict[str, list[int]] = {}
        for row in board.rows.values():
            rank = cells(row)["rank"]
            if rank != "—":
                by_division.setdefault(row["division"], []).append(int(rank))
        for ranks in by_division.values():
            assert ranks[0] == 1 and ranks == sorted(ranks), path


def test_published_boards_rank_by_chip_hours(out):
    text = (out / "boards" / "published" / "language.html").read_text(encoding="utf-8")
    assert 'data-default-sort="chip_hours"' in text
    rows = list(page(out / "boards" / "published" / "language.html").rows.values())
    ranked = [r["attrs"]["data-ranked"] == "true" for r in rows]
    assert ranked == sorted(ranked, reverse=True)  # the unranked (estimates) come last
    hours = [float(r["attrs"]["data-chip_hours"]) for r, counts in zip(rows, ranked, strict=True) if counts]
    assert hours == sorted(hours)


def test_every_page_has_lang_title_viewport_and_the_downloads(out):
    pages = sorted(out.rglob("*.html"))
    assert len(pages) > 30
    for path in pages:
        text = path.read_text(encoding="utf-8")
        parsed = page(path)
        assert parsed.lang == "en", path
        assert parsed.title.strip().endswith("Training results leaderboard"), path
        assert 'name="viewport"' in text
        depth = "../" * len(path.relative_to(out).parent.parts)
        for name in ("results.csv", "results.parquet", "results.json", "leaderboard.duckdb"):
            assert f"{depth}data/{name}" in parsed.links, (path, name)
        # The product is not named after the trademark.
        assert "MLPerf leaderboard" not in text


SCRIPTED_ANCHORS = {"compare.html", "compare-accelerators.html", "sql.html"}


def test_every_link_inside_the_site_reaches_a_file_and_its_anchor(out):
    """Every relative link of every page names a file of the site, unescaped ('#' is not '%23'),
    and an anchor that the page it names holds (the compare and SQL pages' anchors are read by their
    scripts)."""
    from urllib.parse import unquote, urlsplit

    broken, pages = [], sorted(out.rglob("*.html"))
    ids: dict[Path, set[str]] = {}
    for path in pages:
        for link in page(path).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("#"):
                continue
            target = (path.parent / unquote(parts.path)).resolve()
            if not target.is_file():
                broken.append((path.relative_to(out), link))
            elif parts.fragment and target.suffix == ".html" and target.name not in SCRIPTED_ANCHORS:
                if target not in ids:
                    ids[target] = set(re.findall(r'\bid="([^"]+)"', target.read_text(encoding="utf-8")))
                if unquote(parts.fragment) not in ids[target]:
                    broken.append((path.relative_to(out), link))
    assert len(pages) > 30
    assert not broken, (len(broken), broken[:10])


def test_pages_load_nothing_from_outside_the_site(out):
    for path in sorted(out.rglob("*.html")):
        parsed = page(path)
        local = [s["src"] for s in parsed.scripts if "src" in s] + [i["src"] for i in parsed.images]
        local += parsed.stylesheets
        for reference in local:
            assert "//" not in reference and ":" not in reference, (path, reference)
            assert (path.parent / reference).resolve().is_file(), (path, reference)
    assert (
        "@import" not in (out / "static" / "site.css").read_text()
        and "url(" not in (out / "static" / "site.css").read_text()
    )
    assert "fonts.googleapis" not in "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))


def test_the_javascript_bundle_ships_once(out):
    # A board's data file grows with its rows; it holds data only, never code.
    data_files = list((out / "data" / "boards").rglob("*.js"))
    for path in data_files:
        assert path.read_text(encoding="utf-8").startswith(
            "(window.leaderboardBoards = window.leaderboardBoards || {})["
        )
    data_files.append(out / "data" / "accelerator-results.js")  # the accelerator compare page's data
    assert data_files[-1].read_text(encoding="utf-8").startswith("window.leaderboardAccelerators = {")
    # DuckDB-WASM's worker ships under static/duckdb/, loaded by the SQL page only (tests/test_sql_page.py).
    bundles = [
        p for p in out.rglob("*.js") if p.stat().st_size > 100_000 and p not in data_files and p.parent.name != "duckdb"
    ]
    assert [p.relative_to(out).as_posix() for p in bundles] == ["static/vega.js"]
    text = (out / "static" / "vega.js").read_text(encoding="utf-8")
    assert "vegaEmbed" in text


def test_entry_page_shows_every_column_and_the_normalization(out, project_built, results):
    path = out / f"entries/{KNOWN_ID}.html"
    text = path.read_text(encoding="utf-8")
    names, _ = store.run_query(project_built / "leaderboard.duckdb", "SELECT * FROM results LIMIT 0")
    for name in names:  # columns added to `results` later appear without template changes
        assert f"<code>{name}</code>" in text, name
    assert "16 devices × 4 chips per device (TPU v3) = <strong>64 chips</strong>" in text
    assert "64 chips × 600 minutes / 60 = <strong>640 chip-hours</strong>" in text
    costs = {
        c[0]: c
        for c in store.run_query(
            project_built / "leaderboard.duckdb",
            f"SELECT tier, provider, usd_per_chip_hour, cost_usd, price_date FROM costs WHERE entry_id = '{KNOWN_ID}'",
        )[1]
    }
    for tier in TIERS:
        assert f'<tr data-tier="{tier}">' in text
        _, provider, per_hour, cost, date = costs[tier]
        if cost is None:
            continue
        assert writer.usd(cost) in text and date.isoformat() in text and provider in text
        if per_hour is not None:
            assert f"640 chip-hours × ${per_hour:.4g}" in text
    assert "A run the site tests know by heart" in text
    assert 'href="../../../data/submissions/published/site-test-lab/known-run.yaml"' in text
    assert (out / "data" / "submissions" / "published" / "site-test-lab" / "known-run.yaml").read_text() == KNOWN_YAML


def test_each_result_records_the_digest_of_the_file_it_was_read_from(out, project_built, results):
    """results.file_sha256 is the SHA-256 of the submission file's bytes, which the site's copy
    holds too; a verified result's is the one its round's manifest lists."""
    from leaderboard.catalog import load_catalog

    verified = load_catalog(project_built / "catalog").verified
    assert sum(1 for row in results if row["verified"]) > 1_000
    for row in results:
        content = (project_built / row["file"]).read_bytes()
        assert row["file_sha256"] == hashlib.sha256(content).hexdigest(), row["entry_id"]
        assert (out / "data" / row["file"]).read_bytes() == content
        if row["verified"]:
            assert verified[row["entry_id"]] == row["file_sha256"]


def test_an_entry_page_reads_its_submission_file_once_and_checks_it(tmp_path, monkeypatch):
    """The page's copy of the file and the page itself show the same bytes, read once (each read a
    system call the page's thread waits on); still checked against the digest the result records."""
    from leaderboard.tree import FileChanged

    (tmp_path / "a.yaml").write_bytes(b"x: 1\n")
    reads: list[str] = []
    real = entries._project_file_bytes
    monkeypatch.setattr(
        entries, "_project_file_bytes", lambda project, relative: reads.append(relative) or real(project, relative)
    )
    shown = entries.SubmissionFile(str(tmp_path), "a.yaml", hashlib.sha256(b"x: 1\n").hexdigest())
    assert shown.content() == b"x: 1\n" and shown.text == "x: 1\n" and shown.content() == b"x: 1\n"
    assert reads == ["a.yaml"]
    shown.forget()  # the page is written: its bytes go, the object stays (a page's key holds it)
    (tmp_path / "a.yaml").write_bytes(b"x: 2\n")
    with pytest.raises(FileChanged, match="a.yaml has changed"):
        shown.content()
    assert reads == ["a.yaml", "a.yaml"]


def test_device_counts_are_worked_out(out, results):
    devices = [r for r in results if r["unit"] == "device"]
    for row in devices:
        text = (out / f"entries/{row['entry_id']}.html").read_text(encoding="utf-8")
        assert "chips per device" in text and f"<strong>{writer.number(row['chips'])} chips</strong>" in text


def test_unverified_results_say_so(out, results):
    for row in results:
        text = (out / f"entries/{row['entry_id']}.html").read_text(encoding="utf-8")
        assert (model.NOT_VERIFIED in text) is (not row["verified"]), row["entry_id"]
        if not row["verified"]:  # labelled by what the family is: DAWNBench's entries were sent to DAWNBench
            assert html.escape(model.unverified_note(row["round_kind"]), quote=False) in text, row["entry_id"]
    dawnbench = next(r for r in results if r["round_kind"] == "dawnbench")
    assert "Self-reported to DAWNBench" in (out / f"entries/{dawnbench['entry_id']}.html").read_text(encoding="utf-8")
    hostile = page(out / "boards" / "mlperf-training-v1.1" / "resnet.html").rows[HOSTILE_ID]
    assert model.NOT_VERIFIED in cells(hostile)["system"]


def test_home_page_states_how_numbers_are_derived_and_shows_the_fastest(out):
    text = (out / "index.html").read_text(encoding="utf-8")
    assert "not official MLPerf metrics" in text
    assert "Chip-hours = chips × minutes / 60" in text
    assert "Fastest per benchmark and division: MLPerf Training v1.1" in text
    assert "Fewest chip-hours per benchmark: Published training runs" in text
    assert "dgxa100_n540_ngc21.09_mxnet" in text  # the ResNet record


def test_accelerator_and_submitter_pages_list_their_results(out, results):
    for row in results:
        accelerator = (out / model.accelerator_path(row["accelerator"])).read_text(encoding="utf-8")
        submitter = (out / model.submitter_path(row["organization"])).read_text(encoding="utf-8")
        link = quote(row["path"] if "path" in row else model.entry_path(row["entry_id"]))
        assert link in accelerator and link in submitter, row["entry_id"]


def test_compare_page_lists_every_board_of_two_results_or_more_and_its_data(out, results):
    """Every board of two results or more but a weak-scaling one (its results trained different
    numbers of models: side by side, their minutes and costs compare unlike things)."""
    text = (out / "compare.html").read_text(encoding="utf-8")
    sizes: dict[tuple[str, str], int] = {}
    for r in results:
        sizes[(r["round"], r["benchmark"])] = sizes.get((r["round"], r["benchmark"]), 0) + 1
    for (round_id, benchmark), size in sizes.items():
        offered = size >= 2 and not benchmark.endswith("-weak")
        assert (f'<option value="{round_id}/{benchmark}">' in text) == offered, (round_id, benchmark)
        script = (out / "data" / "boards" / round_id / f"{benchmark}.js").read_text(encoding="utf-8")
        payload = json.loads(script.split("] = ", 1)[1].rstrip(";\n"))
        assert {r["entry_id"] for r in payload["rows"]} == {
            r["entry_id"] for r in results if (r["round"], r["benchmark"]) == (round_id, benchmark)
        }
        assert "<" not in script


# ---- charts -------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def vega_lite_validator():
    import altair
    import jsonschema

    schema_path = Path(altair.__file__).parent / "vegalite" / "v6" / "schema" / "vega-lite-schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)


def chart_specs(out: Path) -> dict[str, dict]:
    return {
        p.name.removesuffix(".vl.json"): json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((out / "charts").glob("*.vl.json"))
    }


def test_chart_specs_are_valid_vega_lite(out):
    specs = chart_specs(out)
    assert len(specs) >= 10
    validator = vega_lite_validator()
    for name, spec in specs.items():
        errors = [e.message for e in validator.iter_errors(spec)]
        assert not errors, (name, errors[:3])
        assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/v6")


def test_every_chart_has_an_svg_and_is_embedded_as_written(out):
    specs = chart_specs(out)
    for name in specs:
        svg = (out / "charts" / f"{name}.svg").read_text(encoding="utf-8")
        assert svg.startswith("<svg") and "</svg>" in svg
    embedded = 0
    for path in sorted(out.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for name, body in re.findall(r'<script type="application/json" id="spec-([^"]+)">(.*?)</script>', text):
            assert json.loads(body) == specs[name]
            assert f'src="{"../" * len(path.relative_to(out).parent.parts)}charts/{name}.svg"' in text
            embedded += 1
    assert embedded == len(specs)


def subtitle_text(spec: dict) -> str:
    """A chart's subtitle as one text, its lines joined."""
    return " ".join(spec["title"]["subtitle"])


def chart_values(spec: dict) -> list[dict]:
    layers = spec.get("layer", [spec])
    values = [v for layer in layers for v in layer.get("data", {}).get("values", [])]
    for dataset in spec.get("datasets", {}).values():
        values += dataset
    return values


def test_charts_never_mix_rounds_or_divisions_and_have_tooltips(out, results):
    by_id = {r["entry_id"]: r for r in results}
    kinds = set()
    for name, spec in chart_specs(out).items():
        entries = [by_id[v["entry_id"]] for v in chart_values(spec) if "entry_id" in v and v["entry_id"] in by_id]
        assert entries, name
        if name.startswith(("lineage--", "generations--")):
            # Across rounds by design: MLPerf results only, closed division, available systems,
            # each point labelled with its round, division, availability and chips.
            # One family per chart: MLPerf Training and MLPerf HPC are never charted together.
            (kind,) = {e["round_kind"] for e in entries}
            assert family(kind).lineages, name
            if name.startswith("generations--"):
                assert (kind == "mlperf-hpc") is name.endswith(("--hpc", "--hpc-weak")), name
            assert {(e["division"], e["availability"]) for e in entries} == {("closed", "available")}, name
            fields = {t["field"] for t in spec["encoding"]["tooltip"]}
            assert {"round", "division", "availability", "chips"} <= fields, name
        else:
            assert len({(e["round"]) for e in entries}) == 1, name
        if "--closed--" in name or "--open--" in name:
            assert len({e["division"] for e in entries}) == 1, name
        tooltips = [
            t["field"] for layer in [spec, *spec.get("layer", [])] for t in layer.get("encoding", {}).get("tooltip", [])
        ]
        for field in ("submitter", "system", "chips", "minutes", "chip_hours"):
            assert field in tooltips, (name, field)
        assert any(field.startswith(("cost", "our_cost")) for field in tooltips), name
        kinds.add(name.rsplit("--", 1)[1])
    assert {"scaling", "cost", "chip-hours", "chip_hours-over-time", "cost-over-time"} <= kinds


def test_cost_charts_mark_the_pareto_frontier(out, results):
    """A ranked result is on the frontier exactly when no other ranked result is at least as fast
    and as cheap, and better in one; a result that takes no rank is never on it."""
    priced = {r["entry_id"] for r in results if r["cost_usd"]}
    ranked = {r["entry_id"] for r in results if r["ranked"]}
    unranked_seen = 0
    for name, spec in chart_specs(out).items():
        if not name.endswith("--cost"):
            continue
        points = [v for v in chart_values(spec) if "frontier" in v]
        assert {p["entry_id"] for p in points} <= priced
        peers = [p for p in points if p["entry_id"] in ranked]
        for p in points:
            if p["entry_id"] not in ranked:
                unranked_seen += 1
                assert p["frontier"] == "not ranked", (name, p["entry_id"])
                continue
            dominated = any(
                (q["minutes"] <= p["minutes"] and q["cost"] < p["cost"])
                or (q["minutes"] < p["minutes"] and q["cost"] <= p["cost"])
                for q in peers
            )
            assert (p["frontier"] == "dominated") is dominated, (name, p["entry_id"])
    assert unranked_seen > 0  # the shipped boards hold republished results


@pytest.mark.parametrize(
    "text, width, lines",
    [
        ("", 10, [""]),
        ("short", 10, ["short"]),
        ("two words", 5, ["two", "words"]),
        ("a long-hyphenated word stays whole", 12, ["a", "long-hyphenated", "word stays", "whole"]),
        ("3 result(s) without a price are not shown.", 20, ["3 result(s) without", "a price are not", "shown."]),
    ],
)
def test_wrapped(text, width, lines):
    assert charts.wrapped(text, width) == lines


def test_chart_titles_and_subtitles_come_in_lines_that_fit_the_image(out):
    """An unbroken subtitle widened the static image to fit it (the cost chart of a board with
    republished results: 1,142 pixels for a 640-pixel plot)."""
    for name, spec in chart_specs(out).items():
        title = spec["title"]
        assert all(len(line) <= charts.TITLE_CHARACTERS for line in title["text"]), name
        assert all(len(line) <= charts.SUBTITLE_CHARACTERS for line in title["subtitle"]), name
        # Chip-hours and cost are derived, and not MLPerf's: an image is shared on its own.
        if name.endswith(("--cost", "--chip-hours", "-over-time")):
            text = subtitle_text(spec)
            mlperf = name.startswith("mlperf-")
            assert ("(derived; not an official MLPerf metric)" in text) is mlperf, name
            assert mlperf or "(derived)" in text, name
    image = (out / "charts" / "mlperf-training-v2.1--resnet--closed--cost.svg").read_text(encoding="utf-8")
    width = float(re.search(r'<svg[^>]* width="([0-9.]+)"', image).group(1))
    assert width < 900, width  # the plot, its axes and the legend beside it


def test_results_that_take_no_rank_are_hollow_points_on_every_chart(out, results):
    """Republished, self-reported (beside verified) and estimated results are drawn hollow and
    the subtitle says why; ranked ones filled: no chart shows an unranked result as a best."""
    by_id = {r["entry_id"]: r for r in results}
    hollow_charts = 0
    for name, spec in chart_specs(out).items():
        if not name.endswith(("--scaling", "--cost", "--chip-hours", "-over-time")):
            continue  # the other charts draw ranked results only, or costs against costs
        points = spec["datasets"]["results"]
        marks = [layer for layer in spec.get("layer", [spec]) if (layer.get("mark") or {}).get("type") == "point"]
        unranked = [p for p in points if not by_id[p["entry_id"]]["ranked"]]
        for p in points:
            assert p["ranked"] is bool(by_id[p["entry_id"]]["ranked"]), (name, p["entry_id"])
        if not unranked:
            assert all(m["mark"]["filled"] for m in marks), name
            assert "Hollow" not in subtitle_text(spec), name
            continue
        hollow_charts += 1
        filters = {m["mark"]["filled"]: m.get("transform") for m in marks}
        assert filters == {True: [{"filter": "datum.ranked"}], False: [{"filter": "!datum.ranked"}]}, name
        reasons = {by_id[p["entry_id"]]["unranked_reason"] for p in unranked}
        expected = f"Hollow: {len(unranked)} result{'s' if len(unranked) > 1 else ''} that take"
        assert expected in subtitle_text(spec), name
        assert all(reason in subtitle_text(spec) for reason in reasons), name
        assert all(p["rank"].startswith("none: ") for p in unranked), name
    assert hollow_charts > 0


def test_svg_rendering_is_stable_within_a_process(out):
    spec = chart_specs(out)["mlperf-training-v1.1--resnet--closed--scaling"]

    first = painter.draw(painter.static_spec(spec), painter.vega_lite_version())
    second = painter.draw(painter.static_spec(spec), painter.vega_lite_version())
    assert first == second == (out / "charts" / "mlperf-training-v1.1--resnet--closed--scaling.svg").read_text()


def test_epoch_comparison_chart_follows_its_table(out, project_built, tmp_path):
    db = project_built / "leaderboard.duckdb"
    tables = {t for (t,) in store.run_query(db, "SELECT table_name FROM information_schema.tables")[1]}
    has_rows = (
        "epoch_cost_comparison" in tables
        and store.run_query(db, "SELECT count(*) FROM epoch_cost_comparison")[1][0][0] > 0
    )
    assert (out / "charts" / "published--epoch-cost.vl.json").exists() is has_rows
    # With the table (one row) the chart appears; without it the page renders without it.
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(db, copy)
    with duckdb.connect(str(copy)) as connection:
        connection.execute("DROP TABLE IF EXISTS epoch_cost_comparison")
        connection.execute(
            "CREATE TABLE epoch_cost_comparison (entry_id TEXT, model_name TEXT, tier TEXT, "
            "our_cost_usd DOUBLE, our_cost_usd_2023 DOUBLE, epoch_cost_usd_2023 DOUBLE, ratio DOUBLE)"
        )
        connection.execute(
            "INSERT INTO epoch_cost_comparison VALUES ('published/openai/gpt-2', "
            "'GPT-2 <b>&', 'on-demand', 43008, 50000, 40000, 1.25)"
        )
    with_table = tmp_path / "with"
    site.render_site(copy, with_table, None)
    spec = json.loads((with_table / "charts" / "published--epoch-cost.vl.json").read_text())
    assert not list(vega_lite_validator().iter_errors(spec))
    assert "published--epoch-cost" in (with_table / "rounds" / "published.html").read_text()
    with duckdb.connect(str(copy)) as connection:
        connection.execute("DROP TABLE epoch_cost_comparison")
    without = tmp_path / "without"
    site.render_site(copy, without, None)
    assert not (without / "charts" / "published--epoch-cost.vl.json").exists()
    # A database from elsewhere: the home page lists the downloads of the tables it has.
    assert "data/epoch_cost_comparison.csv" in (with_table / "index.html").read_text()
    assert "data/epoch_cost_comparison.csv" not in (without / "index.html").read_text()
    assert not (without / "data" / "epoch_cost_comparison.csv").exists()


# ---- escaping and downloads ---------------------------------------------------------------


def test_hostile_text_is_escaped_everywhere(out):
    entry = out / f"entries/{HOSTILE_ID}.html"
    assert entry.is_file()
    for path in list(out.rglob("*.html")) + list(out.rglob("*.xml")) + list((out / "data" / "boards").rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        assert "<script>alert" not in text, path
        assert "<Lab>" not in text and '</td>"' not in text, path
    text = entry.read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&amp; Ünïcødé — 🚀" in text
    # Chart data carries the literal text (Vega renders it as text), inside JSON that cannot
    # close its <script> element.
    board = (out / "boards" / "mlperf-training-v1.1" / "resnet.html").read_text(encoding="utf-8")
    body = re.search(r'id="spec-mlperf-training-v1.1--resnet--closed--scaling">(.*?)</script>', board).group(1)
    assert "<" not in body
    assert HOSTILE_SYSTEM in [v.get("system") for v in chart_values(json.loads(body))]


def test_feed_is_valid_atom_with_new_entries_and_records(out, results):
    tree = ET.parse(out / "feed.xml")
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = tree.getroot().findall("a:entry", ns)
    titles = [e.find("a:title", ns).text for e in entries]
    assert len(entries) == feeds.FEED_ITEMS <= len(results)  # the newest only: the feed stays small
    assert any(t.startswith("Fastest ranked result in its round: ") for t in titles)
    newest = max(r["date"] for r in results)
    assert tree.getroot().find("a:updated", ns).text == f"{newest}T00:00:00Z"


def test_each_family_has_its_own_feed_linked_from_its_round_pages(out, results):
    ns = {"a": "http://www.w3.org/2005/Atom"}
    kinds = {r["round_kind"] for r in results}
    assert {"mlperf-training", "mlperf-hpc", "dawnbench", "published"} <= kinds
    for kind in kinds:
        path = out / feeds.family_feed_path(kind)
        root = ET.parse(path).getroot()
        links = [e.find("a:link", ns).get("href") for e in root.findall("a:entry", ns)]
        ids = {r["entry_id"] for r in results if r["round_kind"] == kind}
        assert links and all(link.startswith("../entries/") for link in links), kind
        assert all((path.parent / link).resolve().is_file() for link in links), kind
        # every entry of the feed is of its family, the newest first
        assert {link.removeprefix("../entries/").removesuffix(".html") for link in links} <= ids, kind
        newest = max(r["date"] for r in results if r["round_kind"] == kind)
        assert root.find("a:updated", ns).text == f"{newest}T00:00:00Z", kind
    round_page = (out / "rounds" / "mlperf-hpc-v3.0.html").read_text(encoding="utf-8")
    assert 'href="../feeds/mlperf-hpc.xml"' in round_page


def test_feed_keeps_hostile_text_literal(empty_project):
    """The hostile entry is dated by its round (2021), so it is in the feed of a small site only."""
    add_known_submission(empty_project)
    add_hostile_submission(empty_project)
    assert run_cli("build", "-q", cwd=empty_project).code == 0
    ns = {"a": "http://www.w3.org/2005/Atom"}
    feed = ET.parse(empty_project / "site" / "feed.xml").getroot()
    titles = [e.find("a:title", ns).text for e in feed.findall("a:entry", ns)]
    assert any(HOSTILE_SYSTEM in t for t in titles)  # escaped in the file, literal once parsed


def test_csv_neutralizes_formulas_and_keeps_numbers(out, results):
    with (out / "data" / "results.csv").open(encoding="utf-8", newline="") as handle:
        rows = {r["entry_id"]: r for r in csv.DictReader(handle)}
    assert len(rows) == len(results)
    hostile = rows[HOSTILE_ID]
    for column, formula in FORMULAS.items():
        assert hostile[column] == "'" + formula
    assert hostile["system"] == HOSTILE_SYSTEM
    assert float(hostile["minutes"]) == 17.5
    for row in rows.values():
        for value in row.values():
            assert not value.startswith(("=", "+", "@")) and not re.match(r"-[^0-9]", value)


def test_json_parquet_and_duckdb_downloads_hold_every_result(out, results):
    import pyarrow.parquet as pq

    data = json.loads((out / "data" / "results.json").read_text(encoding="utf-8"))
    assert {r["entry_id"] for r in data} == {r["entry_id"] for r in results}
    table = pq.read_table(out / "data" / "results.parquet")
    assert table.num_rows == len(results) and "chip_hours" in table.column_names
    with duckdb.connect(str(out / "data" / "leaderboard.duckdb"), read_only=True) as connection:
        assert connection.execute("SELECT count(*) FROM results").fetchone()[0] == len(results)
    with (out / "data" / "costs.csv").open(encoding="utf-8") as handle:
        assert sum(1 for _ in handle) == len(results) * len(TIERS) + 1


@pytest.mark.parametrize("column", ["date", "price_date"])
def test_downloads_keep_dates_as_dates(out, results, column):
    """DATE in the database: date32 in Parquet, 'YYYY-MM-DD' strings in JSON, ISO text in CSV
    that DuckDB reads back as DATE."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(out / "data" / "results.parquet", columns=["entry_id", column])
    assert table.schema.field(column).type == pa.date32()
    parquet = dict(zip(table["entry_id"].to_pylist(), table[column].to_pylist(), strict=True))
    data = {r["entry_id"]: r[column] for r in json.loads((out / "data" / "results.json").read_text(encoding="utf-8"))}
    assert any(row[column] is not None for row in results)
    for row in results:
        assert row[column] is None or isinstance(row[column], dt.date)
        assert parquet[row["entry_id"]] == row[column]
        assert data[row["entry_id"]] == (None if row[column] is None else row[column].isoformat())
    with duckdb.connect() as connection:
        kinds = connection.execute(
            "SELECT column_type FROM (DESCRIBE SELECT * FROM read_csv(?)) WHERE column_name = ?",
            [str(out / "data" / "results.csv"), column],
        ).fetchall()
    assert kinds == [("DATE",)]


def test_entry_pages_show_every_run_and_how_the_score_follows(out, project_built):
    """The shipped Cisco v5.0 BERT result: 10 runs, one aborted (in the slowest's place: not
    counted, failed), the fastest dropped, 8 counted; each row links its raw log in the results
    repository; the quality is the counted runs' worst."""
    with duckdb.connect(str(project_built / "leaderboard.duckdb"), read_only=True) as connection:
        runs = connection.execute(
            "SELECT run, minutes, status, dropped, log_url FROM runs "
            "WHERE entry_id = 'mlperf-training-v5.0/cisco/hpf_n8-bert' ORDER BY run"
        ).fetchall()
    assert len(runs) == 10
    html = (out / "entries" / "mlperf-training-v5.0" / "cisco" / "hpf_n8-bert.html").read_text(encoding="utf-8")
    section = html[html.index('id="runs"') : html.index("How the numbers are derived")]
    rows = re.findall(r'<tr data-status="(\w+)"(?: data-dropped="(\w+)")?>(.*?)</tr>', section, re.S)
    assert [(status, dropped or None) for status, dropped, _ in rows] == [(r[2], r[3]) for r in runs]
    assert sum(1 for _, dropped, _ in rows if not dropped) == 8
    for (_, _, cells_html), run in zip(rows, runs, strict=True):
        assert f'href="{run[4]}"' in cells_html
        assert run[4].startswith(
            "https://github.com/mlcommons/training_results_v5.0/blob/main/Cisco/results/hpf_n8/bert/"
        )
    assert "failed: run_stop status is aborted, not success" in section
    assert "dropped as fastest" in section and "not counted (failed)" in section
    assert "dropped as slowest" not in section
    assert "is the worst of the counted runs'" in section
    assert "/ 8 = <strong>0.887 minutes</strong>" in section


def test_runs_downloads_hold_every_run(out, project_built):
    import pyarrow.parquet as pq

    with duckdb.connect(str(project_built / "leaderboard.duckdb"), read_only=True) as connection:
        count, columns = (
            connection.execute("SELECT count(*) FROM runs").fetchone()[0],
            [d[0] for d in connection.execute("SELECT * FROM runs LIMIT 0").description],
        )
    assert count > 15_000  # every run of every shipped MLPerf result
    with (out / "data" / "runs.csv").open(encoding="utf-8") as handle:
        assert next(handle).strip().split(",") == columns
        assert sum(1 for _ in handle) == count
    assert pq.read_table(out / "data" / "runs.parquet").num_rows == count
    assert len(json.loads((out / "data" / "runs.json").read_text(encoding="utf-8"))) == count


def test_lineage_pages_hold_the_best_mlperf_result_per_round_and_never_a_published_run(out, project_built):
    with duckdb.connect(str(project_built / "leaderboard.duckdb"), read_only=True) as connection:
        best = dict(
            connection.execute(
                "SELECT round, arg_min(entry_id, (minutes, entry_id)) FROM results WHERE benchmark = 'resnet' "
                "AND division = 'closed' AND availability = 'available' AND ranked GROUP BY round"
            ).fetchall()
        )
        lineages_expected = {
            b
            for (b,) in connection.execute(
                "SELECT DISTINCT b.id FROM results r JOIN benchmarks b ON b.id = r.benchmark "
                "WHERE r.round_kind IN ('mlperf-training', 'mlperf-hpc') AND b.id NOT IN "
                "(SELECT replaces FROM benchmarks WHERE replaces IS NOT NULL)"
            ).fetchall()
        }
    html = (out / "benchmarks" / "resnet.html").read_text(encoding="utf-8")
    table = html[
        html.index('<table class="progress">') : html.index("</table>", html.index('<table class="progress">'))
    ]
    for round_, entry_id in best.items():
        row = next(r for r in table.split("<tr>") if f"boards/{round_}/resnet.html" in r)
        assert f"entries/{entry_id}.html" in row, round_
    # Every lineage has its page, named after its oldest benchmark (SSD for SSD -> RetinaNet).
    pages = {p.stem for p in (out / "benchmarks").glob("*.html")}
    assert "ssd" in pages and "retinanet" not in pages
    for page_file in (out / "benchmarks").glob("*.html"):
        assert "entries/published/" not in page_file.read_text(encoding="utf-8")
    for page_file in (out / "generations").glob("*.html"):
        assert "entries/published/" not in page_file.read_text(encoding="utf-8")
    assert len(pages) >= 14 and pages <= lineages_expected | {"ssd", "dlrm", "gpt3", "stable_diffusion", "bert"}
    for page_file in [*(out / "benchmarks").glob("*.html"), *(out / "generations").glob("*.html")]:
        assert "entries/dawnbench" not in page_file.read_text(encoding="utf-8"), page_file


def test_hpc_lineages_follow_strong_scaling_by_minutes_and_weak_scaling_by_models_per_minute(out, project_built):
    with duckdb.connect(str(project_built / "leaderboard.duckdb"), read_only=True) as connection:
        best = {
            benchmark: dict(
                connection.execute(
                    f"SELECT round, {pick} FROM results WHERE benchmark = ? AND division = 'closed' "
                    "AND availability = 'available' AND ranked GROUP BY round",
                    [benchmark],
                ).fetchall()
            )
            for benchmark, pick in (
                ("cosmoflow", "arg_min(entry_id, (minutes, entry_id))"),
                ("cosmoflow-weak", "arg_min(entry_id, (-models_per_minute, entry_id))"),
            )
        }
    assert best["cosmoflow"] and best["cosmoflow-weak"]
    for benchmark, rounds in best.items():
        html_text = (out / "benchmarks" / f"{benchmark}.html").read_text(encoding="utf-8")
        table = html_text[html_text.index('<table class="progress">') :]
        for round_, entry_id in rounds.items():
            row = next(r for r in table.split("<tr>") if f"boards/{round_}/{benchmark}.html" in r)
            assert f"entries/{entry_id}.html" in row.split("</td>")[1], (benchmark, round_)
        assert ("models/min" in table) is benchmark.endswith("-weak")
    history = (out / "history.html").read_text(encoding="utf-8")
    assert 'id="benchmarks-mlperf-hpc"' in history and 'id="benchmarks-mlperf-training"' in history
    # Fugaku's A64FX has a generation page, with its weak-scaling results charted by models per minute
    fujitsu = (out / "generations" / "fujitsu.html").read_text(encoding="utf-8")
    assert "CosmoFlow (weak scaling)" in fujitsu and "models/min" in fujitsu
    lineage_charts = {name: spec for name, spec in chart_specs(out).items() if name.startswith("lineage--")}
    assert {"lineage--cosmoflow", "lineage--cosmoflow-weak"} <= lineage_charts.keys()
    for name, spec in lineage_charts.items():
        expected = "models_per_minute" if name.endswith("-weak") else "minutes"
        assert spec["encoding"]["y"]["field"] == expected, name


def test_pages_stay_small(out):
    for path in out.rglob("*.html"):
        assert path.stat().st_size < 2_000_000, path


# ---- whole builds -------------------------------------------------------------------------


def tree_digest(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.relative_to(folder).as_posix() not in skip
    }


def duckdb_content(path: Path) -> list:
    with duckdb.connect(str(path), read_only=True) as connection:
        tables = [
            t
            for (t,) in connection.execute(
                "SELECT table_name FROM information_schema.tables ORDER BY table_name"
            ).fetchall()
        ]
        return [(t, connection.execute(f'SELECT * FROM "{t}" ORDER BY ALL').fetchall()) for t in tables]


def test_a_rebuild_from_the_same_input_is_byte_identical(empty_project):
    add_known_submission(empty_project)
    add_hostile_submission(empty_project)
    assert run_cli("build", "-q", cwd=empty_project).code == 0
    before = tree_digest(empty_project / "site")
    assert run_cli("build", "-q", cwd=empty_project).code == 0
    assert tree_digest(empty_project / "site") == before  # the DuckDB file too: its bytes are kept


def test_builds_are_deterministic(out, tmp_path):
    """Same input, byte-identical site, also built elsewhere from scratch. DuckDB writes random
    identifiers into a new file, so that one file is compared by content there."""
    again = tmp_path / "again"
    shutil.copytree(out.parent / "catalog", again / "catalog")
    shutil.copytree(out.parent / "submissions", again / "submissions")
    done = run_cli("build", "-q", cwd=again)
    assert done.code == 0, done.err
    database = "data/leaderboard.duckdb"
    assert tree_digest(out, skip=(database,)) == tree_digest(again / "site", skip=(database,))
    assert duckdb_content(out / database) == duckdb_content(again / "site" / database)


def test_a_failed_build_leaves_the_previous_site(empty_project, monkeypatch):
    project = empty_project
    add_known_submission(project)
    add_hostile_submission(project)
    assert run_cli("build", "-q", cwd=project).code == 0
    before = tree_digest(project / "site")
    # An invalid submission: nothing is built.
    bad = project / "submissions" / "mlperf-training-v1.1" / HOSTILE_SLUG / "broken.yaml"
    bad.write_text("schema_version: 1\nround: nope\n", encoding="utf-8")
    done = run_cli("build", "-q", cwd=project)
    assert done.code == 1 and "nothing was built" in done.err
    assert tree_digest(project / "site") == before
    bad.unlink()
    # A failure halfway through rendering: the previous site stays, no staging folder is left.
    calls = []

    def fail_after_some_pages(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("disk full")
        return original(*args, **kwargs)

    original = entries._entry_page
    monkeypatch.setattr(entries, "_entry_page", fail_after_some_pages)
    with pytest.raises(RuntimeError):
        site.render_site(project / "leaderboard.duckdb", project / "site", None, project=project)
    assert tree_digest(project / "site") == before
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".site")) == []
    monkeypatch.undo()
    # A failure in the downloads, written on a thread of their own: raised, the previous site stays.

    def fail_downloads(*args, **kwargs):
        raise OSError("no space left on device")

    monkeypatch.setattr(site.downloads, "write_all", fail_downloads)
    with pytest.raises(OSError, match="no space left"):
        site.render_site(project / "leaderboard.duckdb", project / "site", None, project=project)
    assert tree_digest(project / "site") == before
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".site")) == []


def test_build_of_the_empty_project(empty_project):
    done = run_cli("build", "-q", cwd=empty_project)
    assert done.code == 0, done.err
    index = (empty_project / "site" / "index.html").read_text(encoding="utf-8")
    assert "Training results leaderboard" in index


def test_serve_serves_the_site_on_localhost(out):
    from leaderboard.render.serve import make_server

    server = make_server(out, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        assert host == "127.0.0.1"
        with urllib.request.urlopen(f"http://{host}:{port}/index.html", timeout=10) as response:
            assert response.status == 200 and b"Training results leaderboard" in response.read()
        with urllib.request.urlopen(f"http://{host}:{port}/static/site.js", timeout=10) as response:
            assert response.headers["Content-Type"].startswith("text/javascript")
        # The .arrow downloads are Arrow IPC files (the random-access format), and say so.
        arrow = next((out / "data").glob("*.arrow")).name
        with urllib.request.urlopen(f"http://{host}:{port}/data/{arrow}", timeout=10) as response:
            assert response.headers["Content-Type"] == "application/vnd.apache.arrow.file"
            assert response.read(6) == b"ARROW1"
    finally:
        server.shutdown()
        server.server_close()


def test_serve_without_a_site_is_a_one_line_error(empty_project):
    done = run_cli("serve", "--port", "0", "--dir", "nowhere", cwd=empty_project)
    assert done.code == 1 and done.err.startswith("error: no site at nowhere")


def test_five_hundred_results_build_quickly_with_small_pages(empty_project):
    """The scale the importers bring: ~500 results; the build stays within seconds, pages small."""
    for i in range(300):
        folder = empty_project / "submissions" / "mlperf-training-v1.1" / f"vendor-{i % 25}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"system-{i}.yaml").write_text(
            HOSTILE_YAML.replace(json.dumps(HOSTILE_SUBMITTER, ensure_ascii=False), f"Vendor {i % 25}")
            .replace(json.dumps(HOSTILE_SYSTEM, ensure_ascii=False), f"System {i}")
            .replace("count: 16", f"count: {8 * (1 + i % 64)}")
            .replace("minutes: 17.5", f"minutes: {5 + (i * 7919 % 1000) / 10}")
            .replace("division: closed", f"division: {'closed' if i % 3 else 'open'}"),
            encoding="utf-8",
        )
    for i in range(200):
        folder = empty_project / "submissions" / "published" / f"lab-{i % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"model-{i}.yaml").write_text(
            f"schema_version: 1\nround: published\nbenchmark: {'language' if i % 2 else 'vision'}\ndivision: open\n"
            f'availability: available\nsubmitter: Lab {i % 40}\ndate: "20{19 + i % 5}-0{1 + i % 9}-01"\n'
            f"system:\n  name: Cluster {i}\n  accelerator: {'v100' if i % 3 else 'tpu-v3'}\n  count: {4 + i}\n"
            f"model:\n  name: Model {i}{' GPT-3' if i % 50 == 0 else ''}\n"
            f"result:\n  minutes: {100 + i * 13}\nsource:\n  url: https://example.org/{i}\n",
            encoding="utf-8",
        )
    started = time.monotonic()
    done = run_cli("build", "-q", cwd=empty_project)
    elapsed = time.monotonic() - started
    assert done.code == 0, done.err + done.out
    assert "500 results" in done.out
    assert elapsed < 90, f"build of 500 results took {elapsed:.1f} s"
    largest = max((p.stat().st_size, p.name) for p in (empty_project / "site").rglob("*.html"))
    assert largest[0] < 2_000_000, largest


def test_site_from_a_postgresql_database(postgres_url, empty_project):
    """A server database renders the same site; its data ships as a DuckDB file written from it."""
    add_known_submission(empty_project)
    add_hostile_submission(empty_project)
    done = run_cli("build", "-q", "--db", postgres_url, cwd=empty_project)
    assert done.code == 0, done.err
    out = empty_project / "site"
    row = cells(page(out / "boards" / "mlperf-training-v1.1" / "resnet.html").rows[HOSTILE_ID])
    assert (row["chips"], row["minutes"], row["chip_hours"]) == ("16", "17.500", "4.7")
    with duckdb.connect(str(out / "data" / "leaderboard.duckdb"), read_only=True) as connection:
        assert connection.execute("SELECT count(*) FROM results").fetchone()[0] == 2
        assert connection.execute("SELECT count(*) FROM costs").fetchone()[0] == 2 * len(TIERS)


def test_a_long_leaderboard_continues_on_pages_that_reach_every_row_without_javascript(tmp_path_factory, results):
    out = paged_site(tmp_path_factory)
    by_board: dict[str, list[dict]] = {}
    for row in results:
        by_board.setdefault(f"{row['round']}/{row['benchmark']}", []).append(row)
    paged = 0
    for key, rows in by_board.items():
        first = out / "boards" / f"{key}.html"
        pages = [first, *sorted((out / "boards" / key).glob("page-*.html"), key=lambda p: int(p.stem[5:]))]
        per_division = {d: sum(1 for r in rows if r["division"] == d) for d in {r["division"] for r in rows}}
        assert len(pages) == max(-(-n // PAGE_ROWS) for n in per_division.values())
        seen: dict[str, str] = {}
        for number, path in enumerate(pages, start=1):
            page = Page(path.read_text(encoding="utf-8"))
            for division in per_division:
                assert sum(1 for r in page.rows.values() if r["division"] == division) <= PAGE_ROWS
            for entry in page.rows:
                assert entry not in seen, f"{entry} on two pages"
                seen[entry] = path.relative_to(out).as_posix()
            if len(pages) > 1:
                # Every page links to every other one: all rows are reachable by following links.
                linked = {(path.parent / link).resolve() for link in page.links}
                assert {p.resolve() for p in pages if p != path} <= linked
                assert f'<strong aria-current="page">{number}</strong>' in path.read_text(encoding="utf-8")
                assert "data-rows=" in path.read_text(encoding="utf-8")
        assert set(seen) == {r["entry_id"] for r in rows}, key
        paged += len(pages) > 1
        for row in rows:
            # An entry page links to the leaderboard page that shows it.
            path = out / model.entry_path(row["entry_id"])
            link = re.search(r'href="([^"]+)#[^"]*">See it on the leaderboard', path.read_text(encoding="utf-8"))
            assert path.parent.joinpath(link.group(1)).resolve() == (out / seen[row["entry_id"]]).resolve()
    assert paged >= 3
    # Pages keep the board's order: the best ranked first.
    resnet = Page((out / "boards" / "mlperf-training-v1.1" / "resnet.html").read_text(encoding="utf-8"))
    closed = [r for r in resnet.rows.values() if r["division"] == "closed"]
    assert [int(r["attrs"]["data-rank"]) for r in closed] == [1, 2, 3]


def test_one_page_boards_have_no_pager(out):
    for path in (out / "boards").rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert 'class="pager"' not in text and "data-rows=" not in text
    assert not list((out / "boards").rglob("page-*.html"))


def test_charts_draw_a_bounded_number_of_points():
    rows = [
        {
            "entry_id": f"r/s/e{i}",
            "submitter": "Lab",
            "system": f"system {i}",
            "accelerator_name": "Chip",
            "chips": 2 ** (i % 12),
            "minutes": 10.0 + i % 977,
            "chip_hours": (2 ** (i % 12)) * (10.0 + i % 977) / 60,
            "cost_usd": (2 ** (i % 12)) * (10.0 + i % 977) / 60 * 2.5 + i % 7,
            "division": "closed",
            "availability": "available",
            "date": "2024-01-01",
            "model_name": None,
            "path": f"entries/e{i}.html",
        }
        for i in range(10_000)
    ]
    colours = {"Chip": colours_module.style(0)}
    points = result_points(rows, "")
    drawn = [
        charts.scaling("big-scaling", points, "Big", colours),
        charts.cost_frontier("big-cost", points, "Big", colours),
        charts.chip_hours_bars("big-bars", points, "Big", colours),
    ]
    for chart in drawn:
        assert len(chart.spec["datasets"]["results"]) <= charts.MAX_POINTS
        assert len(json.dumps(chart.spec)) < 500_000
        assert len(painter.svg(chart.spec, painter.vega_lite_version()).encode()) < 2_000_000
    frontier = [p for p in drawn[1].spec["datasets"]["results"] if p["frontier"] == charts.FRONTIER]
    points = [(r["minutes"], r["cost_usd"]) for r in rows]
    assert len(frontier) == sum(model.pareto_frontier(points))
    assert "Showing 300 of 10000 results" in subtitle_text(drawn[0].spec)


def build_in_process(project: Path):
    from leaderboard.build import build

    result = build(project / "submissions", project / "catalog", project / "leaderboard.duckdb", project / "site")
    assert result.ok, result.problems[:3]
    return result


def test_a_rebuild_after_one_change_is_identical_to_a_full_build(tmp_path, monkeypatch):
    """Build, change one submission, rebuild (reusing what did not change), then build the same
    input from scratch elsewhere: the two sites are the same byte for byte (the DuckDB file,
    which carries random identifiers, by content)."""
    from leaderboard import cache as cache_module
    from leaderboard.render import reuse

    monkeypatch.setenv("LEADERBOARD_CACHE", "")  # the caches beside each site, as in a real project
    first = tmp_path / "incremental"
    shutil.copytree(ROOT / "catalog", first / "catalog")
    shutil.copytree(ROOT / "submissions", first / "submissions")
    add_known_submission(first)
    add_hostile_submission(first)
    build_in_process(first)
    assert (first / ".leaderboard-cache" / reuse.MANIFEST).is_file()
    # Built again from the same input: no page is drawn, no chart built and no file written
    # through the writer: every page's inputs (boards, lineages, vendor lines among them) have a
    # stable hash, and every unchanged file is the previous site's.
    # Nor is any submission file read for its entry page: the database holds its digest.
    drawn, built, written, kept, read, scripts, spec_texts = [], [], [], [], [], [], []
    file_bytes = entries._project_file_bytes
    board_script = downloads.board_script

    @wraps(board_script)  # its name is in the script's reuse key
    def counted_script(board):
        scripts.append(board.key)
        return board_script(board)

    monkeypatch.setattr(downloads, "board_script", counted_script)
    accelerator_text, accelerator_pairs = history.accelerator_text, history.accelerator_pairs

    @wraps(accelerator_text)
    def counted_accelerators(payload):
        scripts.append("accelerators")
        return accelerator_text(payload)

    @wraps(accelerator_pairs)
    def counted_pairs(*inputs):
        scripts.append("accelerator pairs")
        return accelerator_pairs(*inputs)

    monkeypatch.setattr(history, "accelerator_text", counted_accelerators)
    monkeypatch.setattr(history, "accelerator_pairs", counted_pairs)
    monkeypatch.setattr(
        entries, "_project_file_bytes", lambda project, relative: read.append(relative) or file_bytes(project, relative)
    )
    with monkeypatch.context() as patched:
        render, record_charts, write = jinja2.Template.render, reuse.PageReuse.record_charts, writer.SiteWriter.write
        unchanged = reuse.PageReuse.unchanged
        patched.setattr(
            reuse.PageReuse,
            "unchanged",
            lambda self, relative, key: unchanged(self, relative, key) and not kept.append(relative),
        )
        patched.setattr(
            jinja2.Template, "render", lambda self, *a, **k: drawn.append(self.name) or render(self, *a, **k)
        )
        patched.setattr(
            reuse.PageReuse, "record_charts", lambda self, stem, *a: built.append(stem) or record_charts(self, stem, *a)
        )
        patched.setattr(
            writer.SiteWriter, "write", lambda self, relative, *a: written.append(relative) or write(self, relative, *a)
        )
        texts = kept_charts.SpecStore.text
        patched.setattr(
            kept_charts.SpecStore, "text", lambda self, digest: spec_texts.append(digest) or texts(self, digest)
        )
        build_in_process(first)
    # Nor is any chart's spec text read: a page is kept by its charts' hashes.
    assert drawn == [] and built == [] and written == [] and read == [] and scripts == [] and spec_texts == []
    # Nor is any download exported again: each is the previous site's, its tables' rows unchanged.
    downloads_shipped = {
        f"data/{p.name}"
        for p in (first / "site" / "data").iterdir()
        if p.suffix in (".csv", ".json", ".parquet", ".arrow")
    }
    assert len(downloads_shipped) > 30 and downloads_shipped <= set(kept)

    known = first / "submissions" / "published" / "site-test-lab" / "known-run.yaml"
    known.write_text(KNOWN_YAML.replace("count: 16", "count: 8"), encoding="utf-8")
    reused, cached = [], []
    original_unchanged, original_get = reuse.PageReuse.unchanged, cache_module.ValidationCache.get

    def counting_unchanged(self, relative, key):
        unchanged = original_unchanged(self, relative, key)
        if unchanged:
            reused.append(relative)
        return unchanged

    def counting_get(self, key):
        found = original_get(self, key)
        if found is not None:
            cached.append(found[0])
        return found

    monkeypatch.setattr(reuse.PageReuse, "unchanged", counting_unchanged)
    monkeypatch.setattr(cache_module.ValidationCache, "get", counting_get)
    build_in_process(first)
    files = len(list((first / "submissions").rglob("*.yaml")))
    # Everything but the changed file came from the caches; its own page was drawn again.
    assert len(cached) == files - 1 and KNOWN_ID not in cached
    assert len(reused) > files / 2
    # The files read are those of the entry pages drawn again (a page shows its file), no other.
    drawn_entries = {
        str(page.relative_to(first / "site"))
        for page in (first / "site" / "entries").rglob("*.html")
        if str(page.relative_to(first / "site")) not in reused
    }
    assert model.entry_path(KNOWN_ID) in drawn_entries and len(drawn_entries) < 10
    assert {f"entries/{Path(name).relative_to('submissions').with_suffix('.html')}" for name in read} == drawn_entries
    assert model.entry_path(KNOWN_ID) not in reused
    # A chart whose spec did not change keeps the previous site's SVG; the changed one's is drawn again.
    kept_svgs = {r for r in reused if r.startswith("charts/") and r.endswith(".svg")}
    assert len(kept_svgs) > 100
    assert "charts/published--vision--open--chip-hours.svg" not in kept_svgs  # the changed run's board
    # Downloads of tables the change left alone are kept; those of the results are exported again.
    assert {"data/prices.csv", "data/prices.parquet", "data/prices.arrow", "data/accelerators.csv"} <= set(reused)
    assert not {"data/results.csv", "data/results.parquet", "data/results.arrow", "data/runs.json"} & set(reused)

    # A change no chart shows (the run's citation) builds no chart, neither its board's nor its
    # round page's: they are keyed by the points they draw, not by the rows. The full build
    # below checks the result.
    changed = KNOWN_YAML.replace("count: 16", "count: 8").replace("know by heart", "know by heart, cited anew")
    known.write_text(changed, encoding="utf-8")
    built, drawn = [], []
    scripts.clear()
    reused.clear()
    monkeypatch.setattr(
        reuse.PageReuse, "record_charts", lambda self, stem, *a: built.append(stem) or record_charts(self, stem, *a)
    )
    monkeypatch.setattr(
        jinja2.Template, "render", lambda self, *a, **k: drawn.append(self.name) or render(self, *a, **k)
    )
    build_in_process(first)
    assert built == []
    # The compare page's script of the run's board alone is made again (it shows the citation);
    # not the accelerator compare page's, which holds MLPerf results only.
    assert scripts == ["published/vision"]
    # Nor any accelerator's or submitter's page, the compare page or the round's page: they show
    # what their tables show of a board (its heading, counts, record holders), not its rows.
    assert "entry.html" in drawn
    assert not {"accelerator.html", "submitter.html", "compare.html", "round.html"} & set(drawn), drawn
    assert "cited anew" in (first / "site" / model.entry_path(KNOWN_ID)).read_text(encoding="utf-8")
    # The results' downloads are exported again; those of costs and runs, which read only the
    # results' order, are kept.
    assert not {"data/results.csv", "data/results.json", "data/results.parquet", "data/results.arrow"} & set(reused)
    runs_and_costs = {"data/costs.csv", "data/runs.csv", "data/runs.json", "data/runs.parquet", "data/runs.arrow"}
    assert runs_and_costs <= set(reused)
    monkeypatch.undo()
    monkeypatch.setenv("LEADERBOARD_CACHE", "")

    full = tmp_path / "full"
    shutil.copytree(first / "catalog", full / "catalog")
    shutil.copytree(first / "submissions", full / "submissions")
    build_in_process(full)
    database = "data/leaderboard.duckdb"
    assert tree_digest(first / "site", skip=(database,)) == tree_digest(full / "site", skip=(database,))
    assert duckdb_content(first / "site" / database) == duckdb_content(full / "site" / database)
    assert duckdb_content(first / "leaderboard.duckdb") == duckdb_content(full / "leaderboard.duckdb")
    assert "64 chips" not in (first / "site" / model.entry_path(KNOWN_ID)).read_text(encoding="utf-8")


def test_a_file_edited_during_the_build_fails_it_and_the_previous_site_stays(tmp_path, monkeypatch):
    """An entry page shows, and the site ships, the bytes its result was read from: it reads the
    file only when it must be drawn, and checks it against the digest the database records. A
    file edited after validation read it fails the build; the previous site and database stay."""
    from click.testing import CliRunner

    from leaderboard import build as build_module
    from leaderboard import cli

    monkeypatch.setenv("LEADERBOARD_CACHE", "")
    project = tmp_path / "project"
    shutil.copytree(ROOT / "catalog", project / "catalog")
    (project / "submissions").mkdir()
    add_known_submission(project)
    build_in_process(project)
    site_before, database_before = tree_digest(project / "site"), duckdb_content(project / "leaderboard.duckdb")
    known = project / "submissions" / "published" / "site-test-lab" / "known-run.yaml"
    table_rows = build_module.table_rows

    def edited_meanwhile(*args, **kwargs):
        rows = table_rows(*args, **kwargs)
        known.write_text(KNOWN_YAML + "# edited meanwhile\n", encoding="utf-8")
        return rows

    monkeypatch.setattr(build_module, "table_rows", edited_meanwhile)
    known.write_text(KNOWN_YAML.replace("count: 16", "count: 8"), encoding="utf-8")  # its page is drawn again
    monkeypatch.chdir(project)
    done = CliRunner().invoke(cli.main, ["build", "-q", "--jobs", "1"])
    assert done.exit_code == 1, done.output
    assert done.output.strip() == (
        "error: submissions/published/site-test-lab/known-run.yaml has changed since its result was read "
        "(during the build?): build again; nothing was built (the previous database and site stay)"
    )
    assert tree_digest(project / "site") == site_before
    assert duckdb_content(project / "leaderboard.duckdb") == database_before
    # Built again, the file is read as it is now: its page and copy are its bytes.
    monkeypatch.setattr(build_module, "table_rows", table_rows)
    build_in_process(project)
    assert (
        project / "site" / "data" / "submissions" / "published" / "site-test-lab" / "known-run.yaml"
    ).read_bytes() == (known.read_bytes())
    assert "# edited meanwhile" in (project / "site" / model.entry_path(KNOWN_ID)).read_text(encoding="utf-8")


def test_a_corrupt_or_tampered_cache_never_changes_the_output(tmp_path, monkeypatch):
    from leaderboard.render import reuse

    monkeypatch.setenv("LEADERBOARD_CACHE", "")
    project = tmp_path / "project"
    shutil.copytree(ROOT / "catalog", project / "catalog")
    (project / "submissions").mkdir()
    add_known_submission(project)
    add_hostile_submission(project)
    build_in_process(project)
    expected = tree_digest(project / "site")
    cache_folder = project / ".leaderboard-cache"
    # A page and a chart of the previous site edited by hand: their content hashes no longer match.
    page = project / "site" / model.entry_path(KNOWN_ID)
    page.write_text(page.read_text(encoding="utf-8").replace("640", "999"), encoding="utf-8")
    svg = sorted((project / "site" / "charts").glob("*.svg"))[0]
    svg.write_text(
        svg.read_text(encoding="utf-8").replace("</svg>", "<script>alert(1)</script></svg>"), encoding="utf-8"
    )
    # A download of the previous site edited by hand (its table's rows unchanged).
    prices = project / "site" / "data" / "prices.csv"
    prices.write_text(prices.read_text(encoding="utf-8") + "=HYPERLINK(1)\n", encoding="utf-8")
    # A cached submission whose data was changed but whose key was kept.
    validation = cache_folder / "validation.json"
    stored = json.loads(validation.read_text(encoding="utf-8"))
    tampered = [value for value in stored["entries"].values() if value[0] == KNOWN_ID]
    assert len(tampered) == 1 and '"count":16' in tampered[0][1]
    tampered[0][1] = tampered[0][1].replace('"count":16', '"count":8')
    validation.write_text(json.dumps(stored), encoding="utf-8")
    build_in_process(project)
    assert tree_digest(project / "site") == expected
    # Caches that are not JSON at all, or are cut short.
    (cache_folder / reuse.MANIFEST).write_bytes(b"\x00garbage")
    validation.write_text(validation.read_text(encoding="utf-8")[:100], encoding="utf-8")
    build_in_process(project)
    assert tree_digest(project / "site") == expected
    # A manifest that claims a page of other content: the page is drawn again.
    manifest = json.loads((cache_folder / reuse.MANIFEST).read_text(encoding="utf-8"))
    for entry in manifest["pages"].values():
        entry[1] = "0" * 64
    (cache_folder / reuse.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    build_in_process(project)
    assert tree_digest(project / "site") == expected


@pytest.mark.parametrize(
    "value, shown",
    [
        (None, '<span class="muted">—</span>'),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (0.1 + 0.2, "0.30000000000000004"),
        ("2024-05-01", "2024-05-01"),
        ("<b>A&B</b> \"q\" 'a'", "&lt;b&gt;A&amp;B&lt;/b&gt; &#34;q&#34; &#39;a&#39;"),
        (
            "https://example.org/a?b=1&c=<2>",
            '<a href="https://example.org/a?b=1&amp;c=&lt;2&gt;" rel="external noopener noreferrer">'
            "https://example.org/a?b=1&amp;c=&lt;2&gt;</a>",
        ),
        ("http://x.org", '<a href="http://x.org" rel="external noopener noreferrer">http://x.org</a>'),
        ("javascript:alert(1)", "javascript:alert(1)"),  # a link only for http(s)
    ],
)
def test_every_field_rows_show_each_value_escaped(value, shown):
    from leaderboard.render.cells import field_rows

    html = field_rows({"col<1>": value}, [("col<1>", "what it <means>")])
    assert html == (
        f'<tr><th scope="row"><code>col&lt;1&gt;</code></th>\n<td>{shown}</td>\n<td>what it &lt;means&gt;</td></tr>\n'
    )


def test_round_links_are_made_once_per_depth_and_follow_the_rounds():
    from leaderboard.render.writer import RoundLinks

    links = RoundLinks()
    rounds = [{"id": "v1.0", "name": "Round <1>"}, {"id": "a b", "name": "B&C"}]
    expected = (
        '<li><a href="../rounds/v1.0.html">Round &lt;1&gt;</a></li>\n'
        '<li><a href="../rounds/a%20b.html">B&amp;C</a></li>\n'
    )
    assert links("../", rounds) == expected
    assert links("../", rounds) is links("../", rounds)  # made once
    assert links("", rounds) == expected.replace("../", "")
    other = [{"id": "v2.0", "name": "Two"}]
    assert links("../", other) == '<li><a href="../rounds/v2.0.html">Two</a></li>\n'  # new rounds: made again


def test_a_published_run_s_page_is_named_after_its_model(tmp_path):
    """A published run is known by the model it trained (its system is the hardware): the title,
    breadcrumb and heading name the model, the heading the hardware beside it; an MLPerf
    result's page stays named after its system."""
    published = "published/01-ai/yi-lightning"
    mlperf = "mlperf-training-v5.0/cisco/hpf_n8-bert"
    if not (ROOT / "submissions" / f"{published}.yaml").is_file():
        pytest.skip("the shipped submissions are absent")
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    for entry_id in (published, mlperf):
        target = tmp_path / "submissions" / f"{entry_id}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "submissions" / f"{entry_id}.yaml", target)
    done = run_cli("build", "-q", "--jobs", "1", cwd=tmp_path)
    assert done.code == 0, done.err
    page = (tmp_path / "site" / "entries" / f"{published}.html").read_text(encoding="utf-8")
    assert "<title>Yi-Lightning (01.AI), Language models, Published training runs" in page
    assert "› Yi-Lightning</nav>" in page
    assert (
        '<h1>Yi-Lightning <span class="muted">· 2,000 x NVIDIA H100 SXM5 80GB · '
        '<a href="../../../submitters/01-ai.html">01.AI</a></span></h1>'
    ) in page
    page = (tmp_path / "site" / "entries" / f"{mlperf}.html").read_text(encoding="utf-8")
    assert '<h1>hpf_n8 <span class="muted">· <a href="../../../submitters/cisco.html">Cisco</a></span></h1>' in page
    assert "<title>hpf_n8 (Cisco), BERT," in page
    # Each cost's computation multiplies to the cost shown (no rounded price or chip-hours in it).
    for entry_id in (published, mlperf):
        text = (tmp_path / "site" / "entries" / f"{entry_id}.html").read_text(encoding="utf-8")
        cells = re.findall(
            r"<td>([\d,.]+) (?:chips?|chip-hours) × \$([\d,.]+)</td><td class=\"n\">\$([\d,.]+)</td>", text
        )
        assert len(cells) >= 4, text
        for amount, price, cost in cells:
            product, shown = (
                float(amount.replace(",", "")) * float(price.replace(",", "")),
                float(cost.replace(",", "")),
            )
            assert abs(product - shown) <= (0.5 if shown >= 100 else 0.005) + 1e-9, (amount, price, cost)
    # The chip-hours chart labels a published run by its model too.
    charts = tmp_path / "site" / "charts"
    assert '"01.AI: Yi-Lightning"' in (charts / "published--language--open--chip-hours.vl.json").read_text()
    assert '"Cisco: hpf_n8"' in (charts / "mlperf-training-v5.0--bert--closed--chip-hours.vl.json").read_text()
