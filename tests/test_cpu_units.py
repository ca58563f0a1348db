"""CPU-only systems count processors, not accelerator chips (MLPerf HPC's Fugaku, 82,944 Fujitsu
A64FX; Cori's Xeon Phi 7250; MLPerf Training's Intel Xeon results): the database flags them
(results.cpu_only) and every page that gives such a result's count says CPUs, and its
chip-hours processor-hours, so 82,944 of them are never read as 82,944 GPU chips. Also: counts
of models with thousands separators, and one filter for four significant digits.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import ROOT, run_cli
from test_browser import cells, url, visit  # noqa: F401 (visit is a fixture)
from test_reader import visible_text
from test_site import built_site, paged_site

from leaderboard.render import model
from leaderboard.render.writer import number

# The CPU parts of the shipped results (catalog: processor: true): the processors are the compute
# unit, in MLPerf (host processors, accelerators_per_node 0) and DAWNBench (AWS C5 instances) alike.
CPU_PARTS = {
    "xeon-platinum-8124m",
    "a64fx",
    "xeon-phi-7250",
    "xeon-platinum-8180",
    "xeon-platinum-8260l",
    "xeon-platinum-8376h",
    "xeon-platinum-8380h",
    "xeon-platinum-8480plus",
    "xeon-sapphire-rapids-preview",
}
FUGAKU = "mlperf-hpc-v1.0/fujitsu-riken/fugaku_82944xA64FX_tensorflow_closed-cosmoflow-weak"
ATOM = {"a": "http://www.w3.org/2005/Atom"}


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory) / "site"


@pytest.fixture(scope="module")
def results(out) -> list[dict]:
    from leaderboard import store

    names, rows = store.run_query(out.parent / "leaderboard.duckdb", "SELECT * FROM results ORDER BY entry_id")
    return [dict(zip(names, row, strict=True)) for row in rows]


@pytest.fixture(scope="module")
def cpu_results(results) -> list[dict]:
    return [r for r in results if r["cpu_only"]]


def test_the_database_flags_the_results_that_count_processors(results, cpu_results):
    """cpu_only: the part a result counts is a CPU (the catalog's processor: true); in MLPerf, the
    system's host processors are the part it counts (accelerators_per_node 0)."""
    assert {r["accelerator"] for r in cpu_results} == CPU_PARTS
    for row in results:
        assert row["cpu_only"] == (row["accelerator"] in CPU_PARTS), row["entry_id"]
        if row["cpu_only"] and row["round_kind"].startswith("mlperf"):
            assert row["host_processor_count"] == row["chips"], row["entry_id"]
    assert any(r["cpu_only"] for r in results if r["round_kind"] == "dawnbench")
    fugaku = next(r for r in results if r["entry_id"] == FUGAKU)
    assert fugaku["cpu_only"] and fugaku["chips"] == 82944
    assert not any(r["cpu_only"] for r in results if r["accelerator"].startswith(("a100", "h100", "v100", "tpu")))


def _rows_linking(text: str, entry_path: str) -> list[str]:
    """The table rows of a page that link to an entry page, as visible text."""
    found = []
    for chunk in text.split("<tr")[1:]:
        chunk = chunk.split("</tr>", 1)[0]
        if re.search(rf'href="(?:\.\./)*{re.escape(entry_path)}"', chunk):
            found.append(" ".join(re.sub(r"<[^>]+>", " ", chunk).split()))
    return found


def _cpus(row: dict) -> str:
    return f"{number(row['chips'])} CPU{'s' if row['chips'] != 1 else ''}"


def test_every_table_row_of_a_cpu_result_counts_cpus(out, cpu_results):
    """Boards, the home page's and round pages' best results, accelerator and submitter pages,
    benchmark lineages and vendor lines: a CPU result's count says CPUs wherever a row shows it."""
    pages = [
        out / "index.html",
        *(out / "rounds").glob("*.html"),
        *(out / "benchmarks").glob("*.html"),
        *(out / "generations").glob("*.html"),
    ]
    seen: dict[str, int] = {}
    for row in cpu_results:
        entry = model.entry_path(row["entry_id"])
        board = out / "boards" / row["round"] / f"{row['benchmark']}.html"
        own = [board, out / model.accelerator_path(row["accelerator"]), out / model.submitter_path(row["organization"])]
        for path in own + pages:
            text = path.read_text(encoding="utf-8")
            for shown in _rows_linking(text, entry):
                seen[path.parent.name] = seen.get(path.parent.name, 0) + 1
                assert _cpus(row) in shown, (path.relative_to(out).as_posix(), shown)
                assert f"{number(row['chips'])} chips" not in shown, shown
        # on its board and the accelerator and submitter pages, its chip-hours are processor-hours
        for path in own:
            for shown in _rows_linking(path.read_text(encoding="utf-8"), entry):
                assert "processor-hours" in shown, (path.relative_to(out).as_posix(), shown)
    # each kind of page showed some
    assert {"boards", "accelerators", "submitters", "rounds", "benchmarks", "generations"} <= {
        "boards" if k.startswith("mlperf") else k for k in seen
    }, seen
    assert "site" in seen  # index.html


def test_no_page_calls_a_cpu_count_chips(out):
    """No "82,944 chips (A64FX)", "16 chips (Xeon Platinum ...)" anywhere."""
    names = r"A64FX|Xeon Phi 7250|Xeon Platinum 8\w+|Xeon Scalable"
    wrong = []
    for path in [out / "index.html", *out.glob("*/*.html"), *out.glob("*/*/*.html"), *out.glob("entries/**/*.html")]:
        text = " ".join(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")).split())
        wrong += [
            (path.relative_to(out).as_posix(), m.group(0)) for m in re.finditer(rf"[\d,]+ chips? \(({names})", text)
        ]
    assert not wrong, wrong[:10]


def _titles(spec: object, field: str) -> list[str]:
    """The titles a Vega-Lite spec gives `field` anywhere: its axes and its tooltips."""
    found = []
    if isinstance(spec, dict):
        if spec.get("field") == field and "title" in spec:
            found.append(spec["title"])
        for key, value in spec.items():
            if key != "datasets":
                found += _titles(value, field)
    elif isinstance(spec, list):
        for value in spec:
            found += _titles(value, field)
    return found


def test_charts_of_cpu_results_call_their_count_cpus_and_their_hours_processor_hours(out, results):
    """A chart's axes and tooltips say Chips where its points are all chips, CPUs where all are
    CPUs, and both (with a sentence saying which) where it mixes them: the scaling chart of
    Fugaku's board no longer says "Chips (log)" of 82,944 processors."""
    cpu = {r["entry_id"]: r["cpu_only"] for r in results}
    seen = {"CPUs": 0, "Chips or CPUs": 0, "Chips": 0}
    for path in sorted((out / "charts").glob("*.vl.json")):
        spec = json.loads(path.read_text(encoding="utf-8"))
        kinds = {
            cpu[p["entry_id"]] for data in spec.get("datasets", {}).values() for p in data if p.get("entry_id") in cpu
        }
        if not kinds:
            continue
        count, hours = {
            frozenset({True}): ("CPUs", "Processor-hours"),
            frozenset({False}): ("Chips", "Chip-hours"),
            frozenset({True, False}): ("Chips or CPUs", "Chip- or processor-hours"),
        }[frozenset(kinds)]
        for title in _titles(spec, "chips"):
            assert title.removesuffix(" (log)") == count, (path.name, title)
            seen[count] += 1
        for title in _titles(spec, "chip_hours"):
            assert title.removesuffix(" (log)").removesuffix(" (derived)") == hours, (path.name, title)
        if count == "Chips or CPUs":
            subtitle = " ".join(spec["title"]["subtitle"])  # wrapped into lines
            assert "Systems of processors alone count CPUs, not chips" in subtitle, path.name
    # The shipped data has charts of each kind (Fugaku's boards mix A64FX with GPU systems).
    assert seen["Chips or CPUs"] and seen["Chips"], seen


def test_a_cpu_results_entry_page_counts_cpus_and_processor_hours(out, results):
    fugaku = next(r for r in results if r["entry_id"] == FUGAKU)
    text = " ".join(visible_text(out / model.entry_path(FUGAKU)).split())
    assert "82,944 CPUs (A64FX), 637 models in" in text
    assert "82,944 chips" not in text
    hours = number(fugaku["chip_hours"], 2)
    assert f"82,944 CPUs × {number(fugaku['minutes'])} minutes / 60 = {hours} processor-hours" in text, text
    assert "counted as the compute unit" in text  # the step says why a processor stands for a chip
    # a GPU result's page is unchanged
    gpu = next(r for r in results if r["accelerator"] == "a100-sxm4-80gb" and r["unit"] == "chip")
    page = " ".join(visible_text(out / model.entry_path(gpu["entry_id"])).split())
    said = f"{number(gpu['chips'])} chips × {number(gpu['minutes'])} minutes / 60 = {number(gpu['chip_hours'], 2)} chip-hours"
    assert f"{number(gpu['chips'])} chips (" in page and said in page


def test_a_board_with_cpu_results_says_what_their_numbers_count(out, results, cpu_results):
    boards = {(r["round"], r["benchmark"]) for r in cpu_results}
    for round_, benchmark in sorted(boards):
        text = (out / "boards" / round_ / f"{benchmark}.html").read_text(encoding="utf-8")
        notice = re.search(r'<p class="notice cpu-note">(.*?)</p>', text, re.S)
        assert notice, (round_, benchmark)
        said = " ".join(re.sub(r"<[^>]+>", " ", notice.group(1)).split())
        assert "processors" in said and "processor-hours" in said, said
        mine = [r for r in cpu_results if (r["round"], r["benchmark"]) == (round_, benchmark)]
        for name in {r["accelerator_name"] for r in mine}:
            assert name in said, said
    plain = next(r for r in results if (r["round"], r["benchmark"]) not in boards and r["round_kind"] != "published")
    text = (out / "boards" / plain["round"] / f"{plain['benchmark']}.html").read_text(encoding="utf-8")
    assert "cpu-note" not in text.split("</form>")[0].split("<main")[1]


def test_an_accelerator_page_of_a_cpu_says_it_counts_processors(out):
    text = " ".join(visible_text(out / model.accelerator_path("a64fx")).split())
    assert "counts processors" in text and "processor-hours" in text
    gpu = " ".join(visible_text(out / model.accelerator_path("a100-sxm4-80gb")).split())
    assert "processor-hours" not in gpu


def test_feed_items_of_cpu_results_count_cpus_and_processor_hours(out, cpu_results):
    by_path = {model.entry_path(r["entry_id"]): r for r in cpu_results}
    seen = 0
    for path in [out / "feed.xml", *sorted((out / "feeds").glob("*.xml"))]:
        for entry in ET.parse(path).getroot().findall("a:entry", ATOM):
            href = entry.find("a:link", ATOM).get("href")
            row = next((r for p, r in by_path.items() if href.endswith(p)), None)
            if row is None:
                continue
            seen += 1
            title, summary = entry.find("a:title", ATOM).text, entry.find("a:summary", ATOM).text
            assert f"{_cpus(row)}, " in title and " chips" not in title, title
            assert "processor-hours" in summary and "chip-hours" not in summary, summary
    assert seen


def test_the_accelerator_compare_data_knows_cpu_results_and_why_they_have_no_cost(out):
    script = (out / "data" / "accelerator-results.js").read_text(encoding="utf-8")
    data = json.loads(script.split("=", 1)[1].strip().rstrip(";"))
    a64fx = [r for r in data["results"] if r["accelerator"] == "a64fx"]
    assert a64fx and all(r["cpu_only"] for r in a64fx)
    assert not any(r["cpu_only"] for r in data["results"] if r["accelerator"].startswith("a100"))
    from leaderboard.catalog import load_catalog

    reason = load_catalog(ROOT / "catalog").accelerators["a64fx"].no_price_reason
    assert all(r["cost"] is None and r["cost_note"] == reason for r in a64fx)


# ---- in a browser ---------------------------------------------------------------------------

COSMOFLOW = "boards/mlperf-hpc-v0.7/cosmoflow.html"  # Fugaku and Cori (CPUs) beside GPU systems


def test_a_paged_board_draws_cpu_rows_as_the_whole_board_does(visit, out, tmp_path_factory):  # noqa: F811
    """site.js draws a paged board's rows from its data file: a CPU row says CPUs and
    processor-hours there too, and sorting by chip-hours still sorts by the number."""
    paged = paged_site(tmp_path_factory)
    whole = visit().go(url(out, COSMOFLOW))
    total = whole.locator("tbody tr[data-entry]").count()
    for view in ("", "sort=chip_hours"):
        expected = visit().go(url(out, COSMOFLOW, view))
        v = visit()
        page = v.go(url(paged, COSMOFLOW, view))
        page.wait_for_function(f"() => document.querySelectorAll('tbody tr[data-entry]').length === {total}")
        shown = cells(page)
        assert shown == cells(expected)
        cpu_rows = [c for c in shown.values() if c[4].endswith("CPUs")]
        assert cpu_rows and all(c[6].endswith("processor-hours") for c in cpu_rows)
        assert v.errors == []
    page = visit().go(url(paged, COSMOFLOW, "sort=chip_hours"))
    page.wait_for_function(f"() => document.querySelectorAll('tbody tr[data-entry]').length === {total}")
    hours = page.eval_on_selector_all(
        'section[data-division="closed"] tbody tr', "rows => rows.map(r => parseFloat(r.dataset.chip_hours))"
    )
    assert hours == sorted(hours)


def test_compare_results_counts_cpus_and_calls_them_out(visit, out, cpu_results):  # noqa: F811
    v = visit()
    page = v.go(url(out, "compare.html", "board=mlperf-hpc-v0.7%2Fcosmoflow"))
    page.wait_for_selector("#compare-list li")
    cpu = next(r for r in cpu_results if r["round"] == "mlperf-hpc-v0.7" and r["benchmark"] == "cosmoflow")
    assert page.locator("#compare-list li", has_text=f"{_cpus(cpu)}, ").count() >= 1
    page.locator("#compare-list li", has_text=" CPUs, ").first.locator("input").check()
    page.locator("#compare-list li", has_text=" chips, ").first.locator("input").check()
    table = page.locator("#compare-table")
    chips_row = table.locator("tbody tr", has_text="Chips").first.inner_text()
    assert "CPUs" in chips_row, chips_row
    assert "processor-hours" in table.locator("tbody tr", has_text="Chip-hours").first.inner_text()
    callouts = page.locator("#compare-callouts").inner_text()
    assert "processors (CPUs), not accelerator chips" in callouts, callouts
    assert v.errors == []


def _a64fx_beside_a_gpu(page) -> None:
    partner = page.evaluate(
        "() => Object.keys(window.leaderboardAccelerators.pairs).map(k => k.split(' '))"
        ".filter(p => p.includes('a64fx')).map(p => p[0] === 'a64fx' ? p[1] : p[0])[0]"
    )
    assert partner
    page.select_option("#accelerator-a", "a64fx")
    page.select_option("#accelerator-b", partner)
    page.wait_for_selector("#pair-table:not([hidden])")


def test_compare_accelerators_counts_cpus(visit, out):  # noqa: F811
    v = visit()
    page = v.go(url(out, "compare-accelerators.html"))
    _a64fx_beside_a_gpu(page)
    cell = page.locator("#pair-table tbody tr").first.locator("td").first
    assert " CPUs, " in cell.inner_text() and "processor-hours" in cell.inner_text()
    other = page.locator("#pair-table tbody tr").first.locator("td").nth(1)
    assert " chips, " in other.inner_text() and "chip-hours" in other.inner_text()
    # 512 CPUs beside 512 GPUs is no match of scale: no speed-up, and the callout says why
    assert "not accelerator chips" in page.locator("#pair-callouts").inner_text()
    assert page.locator("#pair-table tbody tr[data-like=yes]").count() == 0
    assert v.errors == []


def test_compare_accelerators_says_why_a_cost_is_na(visit, out):  # noqa: F811
    """The A64FX has no price: why opens from its "n/a" (keyboard and touch; not a hover-only
    title), the part's no_price_reason as its board gives it."""
    from leaderboard.catalog import load_catalog

    reason = load_catalog(ROOT / "catalog").accelerators["a64fx"].no_price_reason
    v = visit()
    page = v.go(url(out, "compare-accelerators.html"))
    _a64fx_beside_a_gpu(page)
    cell = page.locator("#pair-table tbody tr").first.locator("td").first
    na = cell.locator("details.na")
    assert na.count() == 1 and "n/a" in na.locator("summary").inner_text()
    assert not na.locator("p").is_visible()
    na.locator("summary").focus()
    page.keyboard.press("Enter")
    assert na.locator("p").is_visible() and na.locator("p").inner_text() == reason
    assert cell.locator("[title]").count() == 0
    assert v.errors == []


# ---- counts of models and four significant digits -------------------------------------------


def test_counts_of_models_have_thousands_separators(tmp_path):
    """A weak-scaling result of 1,250 models: "1,250 models" on its board, the home page, its round
    page and the pages across rounds, never "1250 models"."""
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    target = tmp_path / "submissions" / "mlperf-hpc-v1.0" / "fujitsu-riken" / "fugaku-weak.yaml"
    target.parent.mkdir(parents=True)
    source = (ROOT / "submissions" / f"{FUGAKU}.yaml").read_text(encoding="utf-8")
    assert "\n  models: 637\n" in source
    target.write_text(source.replace("\n  models: 637\n", "\n  models: 1250\n"), encoding="utf-8")
    done = run_cli("build", "-q", "--jobs", "1", cwd=tmp_path)
    assert done.code == 0, done.err
    site = tmp_path / "site"
    for page in (
        "boards/mlperf-hpc-v1.0/cosmoflow-weak.html",
        "index.html",
        "rounds/mlperf-hpc-v1.0.html",
        "benchmarks/cosmoflow-weak.html",
        "generations/fujitsu.html",
        "accelerators/a64fx.html",
        "entries/mlperf-hpc-v1.0/fujitsu-riken/fugaku-weak.html",
    ):
        text = " ".join(visible_text(site / page).split())
        assert "1,250 models" in text, page
        if not page.startswith("entries/"):  # an entry page's "Every field" and file give the raw value
            assert "1250" not in text, page


def test_four_significant_digits_is_one_filter_used_everywhere():
    from leaderboard.render.writer import environment

    g4 = environment().filters["g4"]
    for value in (1.28512, 0.75901, 637.0, 12345.6, 0.000123456):
        assert g4(value) == "%.4g" % value  # noqa: UP031 (what the templates wrote before)
    templates = Path(__file__).resolve().parent.parent / "leaderboard" / "render" / "templates"
    left = [p.name for p in templates.iterdir() if "'%.4g'|format" in p.read_text(encoding="utf-8")]
    assert not left, left
