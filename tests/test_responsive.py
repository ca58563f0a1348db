"""The shipped site in Chromium at a 390 px phone and 1,400 and 1,920 px screens: no page scrolls
sideways, every table column is on screen or inside a region that says it scrolls, charts keep a
readable plot, and the reasons behind "n/a" open by keyboard and touch (issue 25).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ARGS, CHROMIUM  # noqa: F401 (the browser fixture lives in conftest.py)
from test_site import built_site

WIDTHS = (390, 1400, 1920)
BOARDS = (
    "boards/mlperf-training-v1.1/resnet.html",
    "boards/mlperf-training-v5.0/bert.html",  # an energy board: Energy, Quality, Availability, Source
    "boards/published/language.html",
)
PAGES = (
    *BOARDS,
    "entries/mlperf-training-v5.0/nvidia/tyche_ngpu64_ngc25.03_hugectr-dlrm_dcnv2.html",
    "entries/published/01-ai/yi-lightning.html",
    "accelerators/a100-sxm4-80gb.html",
    "rounds/mlperf-training-v5.0.html",
    "index.html",
)
RESNET_KEY = "mlperf-training-v1.1/resnet"
# Two priced results and two Graphcore ones, which have no price (their costs read "n/a").
COMPARED = (
    "mlperf-training-v1.1/graphcore/ipu-pod256-TF1-resnet",
    "mlperf-training-v1.1/graphcore/ipu-pod128-TF1-resnet",
)

# Every header cell outside the part of the page or of its scroll region one can see, unless
# that region is marked as scrolling (site.js) and labelled so.
HIDDEN_COLUMNS = """() => {
  const width = document.documentElement.clientWidth;
  const hidden = [];
  for (const th of document.querySelectorAll('th')) {
    const box = th.getBoundingClientRect();
    if (box.width === 0) continue;
    const region = th.closest('.table-scroll');
    const says = region && region.dataset.overflow === 'scroll'
      && region.getAttribute('aria-label').endsWith('(scrolls sideways)')
      && region.previousElementSibling.classList.contains('scroll-hint');
    const seen = region ? region.getBoundingClientRect() : {left: 0, right: width};
    const off = box.right > Math.min(width, seen.right) + 1 || box.left < Math.max(0, seen.left) - 1;
    if (off && !says) hidden.push(th.textContent.trim());
  }
  return hidden;
}"""
SCROLLING = "() => [...document.querySelectorAll('.table-scroll[data-overflow=scroll]')].length"


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory) / "site"


@pytest.fixture(scope="module")
def pages(browser):
    contexts = {width: browser.new_context(viewport={"width": width, "height": 900}) for width in WIDTHS}
    yield {width: context.new_page() for width, context in contexts.items()}
    for context in contexts.values():
        context.close()


def open_page(page, out: Path, path: str, fragment: str = ""):
    page.goto((out / path).as_uri() + fragment)
    page.wait_for_load_state("load")
    page.wait_for_function(
        "() => document.querySelectorAll('figure.chart.live').length === "
        "document.querySelectorAll('figure.chart').length",
        timeout=20000,
    )
    return page


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_no_page_scrolls_sideways_and_no_column_hides(pages, out, path, width):
    page = open_page(pages[width], out, path)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.evaluate(HIDDEN_COLUMNS) == []
    if width >= 1400 and path in BOARDS:
        assert page.evaluate(SCROLLING) == 0  # on a screen, board tables fit their column


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_page_fits_and_its_table_says_when_it_scrolls(pages, out, width):
    page = open_page(pages[width], out, "compare.html", f"#board={RESNET_KEY}&entries={','.join(COMPARED)}")
    page.wait_for_selector("#compare-table:not([hidden])")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.evaluate(HIDDEN_COLUMNS) == []


def test_charts_keep_a_readable_plot_on_a_phone(pages, out):
    page = open_page(pages[390], out, BOARDS[0])
    # The scatter plots, the cost frontier and the chip-hours dot plot: each plot area (the view's
    # width, legend and axis labels apart) at least 200 px wide, not a strip.
    widths = page.evaluate("() => window.leaderboardCharts.map(v => v.width())")
    assert len(widths) >= 3 and min(widths) >= 200, widths


# Every line of every live chart's title and subtitle: its right edge past the chart's, or cut
# short with an ellipsis.
TITLES_CUT = """() => {
  const cut = [];
  for (const figure of document.querySelectorAll('figure.chart.live')) {
    const right = figure.getBoundingClientRect().right;
    for (const line of figure.querySelectorAll('.role-title-text tspan, .role-title-text text:not(:has(tspan)), '
        + '.role-title-subtitle tspan, .role-title-subtitle text:not(:has(tspan))')) {
      if (line.getBoundingClientRect().right > right + 1 || line.textContent.includes('\u2026')) cut.push(line.textContent);
    }
  }
  return cut;
}"""
TITLE_LINES = "() => document.querySelectorAll('figure.chart.live .role-title-subtitle tspan').length"
# Every legend label of every live chart past the chart's right edge.
LEGENDS_CUT = """() => {
  const cut = [];
  for (const figure of document.querySelectorAll('figure.chart.live')) {
    const right = figure.getBoundingClientRect().right;
    for (const label of figure.querySelectorAll('.role-legend-label text')) {
      if (label.getBoundingClientRect().right > right + 1) cut.push(label.textContent);
    }
  }
  return cut;
}"""
LEGEND_LABELS = "() => document.querySelectorAll('figure.chart.live .role-legend-label text').length"


@pytest.mark.parametrize(
    "path",
    # Long legend names; a board whose chip-hours chart has names on its y axis too.
    ["generations/nvidia.html", "rounds/published.html", BOARDS[0], "boards/mlperf-training-v2.1/bert.html"],
)
def test_chart_legends_are_whole_on_a_phone(pages, out, path):
    """A legend of more than 16 entries came in three columns of 260-pixel names: on a phone its
    last columns fell off the chart (which colour is which benchmark or accelerator)."""
    page = open_page(pages[390], out, path)
    assert page.evaluate(LEGEND_LABELS) >= 5
    assert page.evaluate(LEGENDS_CUT) == []


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_titles_and_subtitles_are_whole_at_every_width(pages, out, width):
    """A subtitle says what a chart leaves out ("3 result(s) without a price are not shown") and
    which points take no rank: on a phone it was cut to one line ending in an ellipsis."""
    page = open_page(pages[width], out, "boards/mlperf-training-v2.1/resnet.html")
    assert page.evaluate("() => window.leaderboardCharts.length") >= 3
    assert page.evaluate(TITLE_LINES) >= 3  # subtitles of several lines, each a tspan
    assert page.evaluate(TITLES_CUT) == []


def test_compare_table_has_no_empty_header_and_its_na_reasons_open_by_keyboard(pages, out):
    page = open_page(pages[1400], out, "compare.html", f"#board={RESNET_KEY}&entries={','.join(COMPARED)}")
    page.wait_for_selector("#compare-table:not([hidden])")
    headers = page.eval_on_selector_all("#compare-table th", "cells => cells.map(c => c.textContent.trim())")
    assert headers and all(headers)  # axe-core's empty-table-header: every header says something
    summary = page.locator("#compare-table details.na summary").first
    reason = page.locator("#compare-table details.na p").first
    assert not reason.is_visible()
    summary.focus()
    page.keyboard.press("Enter")
    assert reason.is_visible() and "price" in reason.inner_text()


def test_board_na_reasons_open_by_keyboard_and_touch_and_follow_the_tier(pages, out):
    page = open_page(pages[390], out, BOARDS[0])
    row = page.locator(f'tr[data-entry="{COMPARED[0]}"]')
    assert row.locator("td.cost [title]").count() == 0  # no reason on hover only
    row.locator("td.cost summary").focus()
    page.keyboard.press("Enter")
    assert row.locator("td.cost details.na p").is_visible()
    page.select_option('select[name="tier"]', "3-year")
    reason = row.get_attribute("data-na-3-year")
    assert reason and row.locator("td.cost details.na p").text_content() == reason
    row.locator("td.cost summary").click()  # a tap is a click
    assert row.locator("td.cost details.na p").is_visible()


def test_the_site_links_take_one_scrolling_row_on_a_phone_and_each_is_reachable(pages, out):
    """The navigation took 320 px of a 390 px phone's screen before any content: 15 rows of links."""
    page = open_page(pages[min(WIDTHS)], out, "index.html")
    header = page.evaluate("() => document.querySelector('header.site').getBoundingClientRect().height")
    assert header <= 110, header
    links = page.locator("header.site nav li a")
    assert links.count() >= 10
    for index in (0, links.count() - 1):  # the first and the last, scrolled to as a keyboard's focus does
        link = links.nth(index)
        link.focus()
        box = link.bounding_box()
        assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= min(WIDTHS) + 1, (index, box)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= min(WIDTHS)


# The boxes the browser draws the given texts in, for every <text> holding one of them.
TEXT_BOXES = """texts => [...document.querySelectorAll('text')].filter(t => texts.includes(t.textContent))
  .map(t => { const b = t.getBoundingClientRect(); return [t.textContent, b.left, b.top, b.right, b.bottom]; })"""


@pytest.mark.parametrize("metric", ["chip_hours", "cost"])
def test_model_labels_on_the_published_charts_never_cover_each_other(pages, out, metric):
    """The well-known models' names beside their points on the published runs' charts: GPT-3
    175B's ran into Gopher's, GPT-2's into XLNet's. In the image each has room of its own; on a
    phone they are left off (each point's tooltip names its model)."""
    name = f"published--{metric}-over-time"
    spec = json.loads((out / "charts" / f"{name}.vl.json").read_text(encoding="utf-8"))
    texts = [v["label"] for v in spec["datasets"]["labels"]]
    assert len(texts) >= 8
    page = pages[1400]
    page.goto((out / "charts" / f"{name}.svg").as_uri())
    boxes = page.evaluate(TEXT_BOXES, texts)
    assert sorted(b[0] for b in boxes) == sorted(texts)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2]
            assert apart, (a, b)
    assert open_page(pages[1400], out, "rounds/published.html").evaluate(TEXT_BOXES, texts)
    assert open_page(pages[390], out, "rounds/published.html").evaluate(TEXT_BOXES, texts) == []


LINE_OPACITIES = """() => [...document.querySelector('figure.chart.live').querySelectorAll('.mark-line path')]
  .map(path => Number(path.getAttribute('opacity') ?? 1))"""


# A point of the first live chart's plot (its root group's background) with no mark over it,
# scanned row by row.
EMPTY_SPOT = """() => {
  const svg = document.querySelector('figure.chart.live .chart-live svg');
  const box = svg.querySelector('.root > g > path.background').getBoundingClientRect();
  for (let y = box.top + 10; y < box.bottom - 10; y += 7) {
    for (let x = box.left + 10; x < box.right - 10; x += 7) {
      const hit = document.elementFromPoint(x, y);
      if (hit && svg.contains(hit) && hit.classList.contains('background')) return [x, y];
    }
  }
  throw new Error('no empty spot on the chart');
}"""


def test_a_click_on_a_legend_entry_picks_out_its_line_on_a_crowded_chart(pages, out):
    """NVIDIA's generations chart draws 19 lines, one a benchmark: a click on a legend entry
    leaves its line alone at full strength, the others faded; a double-click brings them back."""
    page = open_page(pages[1400], out, "generations/nvidia.html")
    assert set(page.evaluate(LINE_OPACITIES)) == {1}
    figure = page.locator("figure.chart.live").first
    entry = figure.locator(".role-legend-label text", has_text="ResNet-50")
    entry.click()
    page.wait_for_function(f"() => ({LINE_OPACITIES})().filter(o => o === 1).length === 1")
    opacities = page.evaluate(LINE_OPACITIES)
    assert len(opacities) >= 10 and sorted(opacities)[:-1] == [0.12] * (len(opacities) - 1)
    picked = page.evaluate("() => window.leaderboardCharts[0].data('picked_store')")
    name = entry.text_content()
    assert "ResNet-50" in name and [p["values"] for p in picked] == [[name]]
    figure.scroll_into_view_if_needed()
    x, y = page.evaluate(EMPTY_SPOT)  # a mark there would be a link: a double-click would follow it
    page.mouse.dblclick(x, y)  # clears the pick
    page.wait_for_function(f"() => ({LINE_OPACITIES})().every(o => o === 1)")
