"""The site in a real browser (Debian's Chromium through Playwright): leaderboards render, sort
and filter with the view in the URL, charts draw, nothing is loaded from outside the site, and
hostile text stays text. Skips, loudly, where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from urllib.parse import quote

import pytest
from conftest import ARGS, CHROMIUM  # noqa: F401 (the browser fixture lives in conftest.py)
from test_site import HOSTILE_ID, HOSTILE_SYSTEM, PAGE_ROWS, built_site, paged_site


@pytest.fixture(scope="session")
def out(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory) / "site"


class Visit:
    """A page with every request, dialog and script error recorded."""

    def __init__(self, browser, **options):
        self.context = browser.new_context(**options)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

        def dismiss(dialog):
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        self.page.on("dialog", dismiss)

    def go(self, url: str):
        self.page.goto(url)
        self.page.wait_for_load_state("load")
        return self.page

    def close(self):
        self.context.close()


@pytest.fixture
def visit(browser):
    visits = []

    def open_visit(**options) -> Visit:
        visits.append(Visit(browser, **options))
        return visits[-1]

    yield open_visit
    for v in visits:
        v.close()


def url(out: Path, path: str, fragment: str = "") -> str:
    return (out / path).as_uri() + (f"#{fragment}" if fragment else "")


RESNET = "boards/mlperf-training-v1.1/resnet.html"


def visible_entries(page, division: str = "closed") -> list[str]:
    return page.eval_on_selector_all(
        f'section[data-division="{division}"] tbody tr', "rows => rows.filter(r => !r.hidden).map(r => r.dataset.entry)"
    )


def numbers(page, attribute: str, division: str = "closed") -> list[float]:
    values = page.eval_on_selector_all(
        f'section[data-division="{division}"] tbody tr',
        f"rows => rows.filter(r => !r.hidden).map(r => r.getAttribute('{attribute}'))",
    )
    return [float(v) for v in values if v]


def test_leaderboard_renders_with_every_result(visit, out):
    v = visit()
    page = v.go(url(out, RESNET))
    rows = page.locator('section[data-division="closed"] tbody tr')
    assert rows.count() >= 2
    assert page.locator("#controls").is_visible()
    assert "Showing" in page.locator("#shown").inner_text()
    assert numbers(page, "data-minutes") == sorted(numbers(page, "data-minutes"))
    assert page.locator(f'tr[data-entry="{HOSTILE_ID}"]').count() == 1
    assert v.errors == []


def test_sorting_updates_the_order_ranks_and_url(visit, out):
    v = visit()
    page = v.go(url(out, RESNET))
    page.locator('section[data-division="closed"] th[data-sort="chip_hours"] button').click()
    hours = numbers(page, "data-chip_hours")
    assert hours == sorted(hours)
    assert "sort=chip_hours" in page.url
    assert page.locator('section[data-division="closed"] tbody tr').first.locator("td.rank").inner_text() == "1"
    assert page.locator('section[data-division="closed"] th.rank-head').first.inner_text() == "Rank by chip-hours"
    caption = page.locator('section[data-division="closed"] table.board caption')
    assert "ranked by chip-hours" in caption.inner_text() and "ranked by minutes" not in caption.inner_text()
    # Cost in another tier, sorted by it; results without a price go last.
    page.select_option('select[name="tier"]', "3-year")
    page.select_option('select[name="sort"]', "cost")
    costs = numbers(page, "data-cost-3-year")
    assert costs == sorted(costs)
    assert "tier=3-year" in page.url and "sort=cost" in page.url
    assert page.locator('section[data-division="closed"] th.cost-head').inner_text() == "Cost (3-year)"
    assert "ranked by cost (3-year)" in caption.inner_text()
    # Each cost says what it rests on, in the tier shown: the 3-year price per chip-hour and its provider.
    first = page.locator('section[data-division="closed"] tbody tr').first
    basis = first.locator("td.cost small.price-basis").inner_text()
    assert (
        basis == first.get_attribute("data-basis-3-year")
        and basis.endswith(("/chip-hour", ""))
        and "/chip-hour" in basis
    )
    # The URL is a permalink: opening it gives the same view.
    permalink = page.url
    order = visible_entries(page)
    again = visit().go(permalink)
    assert visible_entries(again) == order
    assert again.locator('select[name="sort"]').input_value() == "cost"


def test_filters_and_search_hide_rows_and_update_the_url(visit, out):
    v = visit()
    page = v.go(url(out, RESNET))
    everything = visible_entries(page)
    accelerator = page.locator(f'tr[data-entry="{HOSTILE_ID}"]').get_attribute("data-accelerator")
    page.select_option('select[name="accelerator"]', accelerator)
    shown = visible_entries(page)
    assert HOSTILE_ID in shown and len(shown) <= len(everything)
    assert all(page.locator(f'tr[data-entry="{e}"]').get_attribute("data-accelerator") == accelerator for e in shown)
    assert f"accelerator={accelerator}" in page.url
    page.select_option('select[name="availability"]', "research")
    assert visible_entries(page) == [HOSTILE_ID]
    page.select_option('select[name="availability"]', "")
    page.fill('input[name="q"]', "alert(1)")
    assert visible_entries(page) == [HOSTILE_ID]
    assert "q=alert%281%29" in page.url or "q=alert(1)" in page.url
    page.select_option('select[name="division"]', "closed")
    assert "division=closed" in page.url
    assert page.locator("section.division:visible").count() == 1
    page.click('button[type="reset"]')
    page.wait_for_function("() => location.hash === ''")
    assert visible_entries(page) == everything


def test_sorting_works_from_the_keyboard(visit, out):
    v = visit()
    page = v.go(url(out, RESNET))
    button = page.locator('section[data-division="closed"] th[data-sort="chip_hours"] button')
    button.focus()
    page.keyboard.press("Enter")
    assert "sort=chip_hours" in page.url


def test_charts_draw(visit, out):
    v = visit()
    page = v.go(url(out, RESNET))
    figures = page.locator("figure.chart")
    assert figures.count() >= 3
    page.wait_for_function(
        "() => document.querySelectorAll('figure.chart.live').length === "
        "document.querySelectorAll('figure.chart').length",
        timeout=20000,
    )
    assert page.locator("figure.chart .chart-live svg").count() == figures.count()
    assert page.locator("figure.chart .chart-live svg .mark-symbol path").count() > 0
    assert not page.locator("figure.chart img.chart-static").first.is_visible()
    assert v.errors == []


def test_charts_resize_and_tables_scroll_on_a_phone(visit, out):
    v = visit(viewport={"width": 375, "height": 800})
    page = v.go(url(out, RESNET))
    page.wait_for_function("() => document.querySelectorAll('figure.chart.live').length > 0", timeout=20000)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375 + 1
    assert (
        page.evaluate("() => document.querySelector('figure.chart.live .chart-live svg').getBoundingClientRect().width")
        <= 375
    )
    scroller = page.locator(".table-scroll").first
    assert scroller.evaluate("e => e.scrollWidth > e.clientWidth")


def test_no_request_leaves_the_site(visit, out):
    v = visit()
    paths = [
        "index.html",
        RESNET,
        "boards/published/language.html",
        "rounds/published.html",
        "compare.html",
        f"entries/{HOSTILE_ID}.html",
    ]
    for path in paths:
        page = v.go(url(out, quote(path)))
        if page.locator("figure.chart").count():
            page.wait_for_function("() => document.querySelectorAll('figure.chart.live').length > 0", timeout=20000)
    outside = [r for r in v.requests if not r.startswith("file://")]
    assert outside == []
    assert len(v.requests) >= len(paths)


def test_no_request_leaves_the_local_server(visit, out):
    from leaderboard.render.serve import make_server

    server = make_server(out, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host, port = server.server_address[:2]
        base = f"http://{host}:{port}/"
        v = visit()
        page = v.go(base + RESNET + "#sort=cost")
        page.wait_for_function("() => document.querySelectorAll('figure.chart.live').length > 0", timeout=20000)
        v.go(base + "compare.html#board=mlperf-training-v1.1/resnet")
        assert [r for r in v.requests if not r.startswith(base)] == []
        assert v.errors == []
    finally:
        server.shutdown()
        server.server_close()


def test_hostile_text_stays_text(visit, out):
    v = visit()
    page = v.go(url(out, RESNET))
    row = page.locator(f'tr[data-entry="{HOSTILE_ID}"]')
    assert row.locator("td").nth(2).locator("a").inner_text() == HOSTILE_SYSTEM.strip()
    assert page.locator("tbody script").count() == 0
    # The chart data holds the literal text, and its tooltip shows it as text.
    page.wait_for_function(
        "() => (window.leaderboardCharts || []).length === document.querySelectorAll('figure.chart').length",
        timeout=20000,
    )
    systems = page.evaluate("""() => window.leaderboardCharts.flatMap(view =>
        Object.keys(view.getState({data: () => true, signals: () => false, recurse: true}).data || {})
          .flatMap(name => { try { return view.data(name) } catch (e) { return [] } })
          .map(d => d.system).filter(Boolean))""")
    assert HOSTILE_SYSTEM in systems
    figure = page.locator('figure.chart[data-spec="spec-mlperf-training-v1.1--resnet--closed--chip-hours"]')
    figure.scroll_into_view_if_needed()
    dots = figure.locator(".mark-symbol path")  # chip-hours per result: a dot plot, not bars
    shown = None
    for index in range(dots.count()):
        dots.nth(index).hover()
        tooltip = page.locator("#vg-tooltip-element")
        if tooltip.count() and "alert(1)" in tooltip.inner_text():
            shown = tooltip
            break
    assert shown is not None, "no tooltip showed the hostile entry"
    assert HOSTILE_SYSTEM.strip() in shown.inner_text()
    assert shown.locator("script").count() == 0
    # The entry page and the compare page show it literally too.
    entry = v.go(url(out, quote(f"entries/{HOSTILE_ID}.html")))
    assert HOSTILE_SYSTEM.strip() in entry.locator("h1").inner_text()
    compare = v.go(url(out, "compare.html", f"board=mlperf-training-v1.1/resnet&entries={quote(HOSTILE_ID, safe='')}"))
    compare.wait_for_selector("#compare-list li")
    compare.locator("#compare-list input[type=checkbox]:not(:checked)").first.click()
    compare.wait_for_selector("#compare-table:not([hidden])")
    assert compare.locator("#compare-table").is_visible()
    assert HOSTILE_SYSTEM.strip() in compare.locator("#compare-table thead").inner_text()
    assert v.dialogs == [] and v.errors == []


def test_compare_shows_two_to_four_results_side_by_side(visit, out):
    v = visit()
    page = v.go(url(out, "compare.html"))
    page.select_option("#compare-board", "mlperf-training-v1.1/resnet")
    page.wait_for_selector("#compare-list li")
    boxes = page.locator("#compare-list input[type=checkbox]")
    for index in range(4):
        boxes.nth(index).check()
    assert page.locator("#compare-table thead th").count() == 5
    assert page.locator("#compare-list input[type=checkbox]:disabled").count() == boxes.count() - 4
    assert "entries=" in page.url and "board=mlperf-training-v1.1%2Fresnet" in page.url
    text = page.locator("#compare-table").inner_text()
    for label in ("Division", "Chips", "Availability", "Cost (on-demand)", "Round"):
        assert label in text
    again = visit().go(page.url)
    again.wait_for_selector("#compare-table:not([hidden])")
    assert again.locator("#compare-table thead th").count() == 5


def test_without_javascript_the_table_is_complete(visit, out):
    v = visit(java_script_enabled=False)
    page = v.go(url(out, RESNET))
    assert not page.locator("#controls").is_visible()
    assert page.locator(f'tr[data-entry="{HOSTILE_ID}"]').is_visible()
    assert page.locator("figure.chart img.chart-static").first.is_visible()
    rows = page.locator("table.board tbody tr").count()  # the results (the folders left off have a table of their own)
    assert rows == len(page.eval_on_selector_all("tbody tr[data-entry]", "r => r"))


def cells(page) -> dict[str, list[str]]:
    return dict(
        page.eval_on_selector_all(
            "tbody tr[data-entry]",
            "rows => rows.map(r => [r.dataset.entry, Array.from(r.cells).map(c => c.textContent.trim().replace(/\\s+/g, ' '))])",
        )
    )


def test_a_paged_leaderboard_sorts_and_filters_every_row(visit, out, tmp_path_factory):
    paged = paged_site(tmp_path_factory)
    whole = visit().go(url(out, RESNET))
    accelerator = whole.locator(f'tr[data-entry="{HOSTILE_ID}"]').get_attribute("data-accelerator")
    views = [
        "",
        "sort=chip_hours",
        "sort=cost&tier=3-year",
        f"accelerator={accelerator}",
        "availability=research",
        "q=alert%281%29",
        "division=open&sort=chip_hours",
    ]
    total = whole.locator("tbody tr[data-entry]").count()
    assert total > 2 * PAGE_ROWS
    for view in views:
        expected = visit().go(url(out, RESNET, view))
        for page_path in (RESNET, "boards/mlperf-training-v1.1/resnet/page-2.html"):
            v = visit()
            page = v.go(url(paged, page_path, view))
            page.wait_for_function(f"() => document.querySelectorAll('tbody tr[data-entry]').length === {total}")
            # Every row of the board, in the same order, ranks, costs and text as the one-page board.
            for division in ("closed", "open"):
                assert visible_entries(page, division) == visible_entries(expected, division), (view, division)
            assert cells(page) == cells(expected)
            assert page.locator("#shown").inner_text() == expected.locator("#shown").inner_text()
            assert not page.locator("nav.pager").is_visible()
            assert v.errors == []
            assert all(r.startswith(paged.as_uri()) for r in v.requests)
    # Sorting from the page works across all rows and writes the permalink.
    v = visit()
    page = v.go(url(paged, RESNET))
    page.wait_for_function(f"() => document.querySelectorAll('tbody tr[data-entry]').length === {total}")
    page.locator('section[data-division="closed"] th[data-sort="chip_hours"] button').click()
    assert "sort=chip_hours" in page.url
    hours = numbers(page, "data-chip_hours")
    assert hours == sorted(hours) and len(hours) > PAGE_ROWS
    page.fill('input[name="q"]', "alert(1)")
    assert visible_entries(page) == [HOSTILE_ID]


def test_a_paged_leaderboard_without_javascript_shows_one_page_and_its_links(visit, tmp_path_factory):
    paged = paged_site(tmp_path_factory)
    v = visit(java_script_enabled=False)
    page = v.go(url(paged, RESNET))
    assert page.locator("nav.pager").is_visible()
    assert len(visible_entries(page)) == PAGE_ROWS
    page.locator("nav.pager a", has_text="2").first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith("resnet/page-2.html")
    assert 0 < len(visible_entries(page)) <= PAGE_ROWS


PHONE = {"viewport": {"width": 390, "height": 844}}


@pytest.mark.parametrize("path", ["history.html", "benchmarks/bert.html", "generations/nvidia.html"])
def test_pages_across_rounds_draw_their_charts_with_no_errors_and_fit_a_phone(visit, out, path):
    v = visit(**PHONE)
    page = v.go(url(out, path))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390 + 1
    figures = page.locator("figure.chart")
    if figures.count():
        page.wait_for_function(
            "() => document.querySelectorAll('figure.chart.live').length === "
            "document.querySelectorAll('figure.chart').length",
            timeout=20000,
        )
        assert page.locator("figure.chart .chart-live svg .mark-line path").count() > 0
    assert v.errors == []


def test_a_generations_chart_picks_out_a_line_from_the_keyboard(visit, out):
    """A legend takes no keyboard: the list below the chart picks out a line, and the others fade."""
    v = visit()
    page = v.go(url(out, "generations/nvidia.html"))
    page.wait_for_function(
        "() => document.querySelectorAll('figure.chart.live').length === "
        "document.querySelectorAll('figure.chart').length",
        timeout=20000,
    )
    figure = page.locator("figure.chart").first
    chosen = figure.locator("select")
    assert "Pick out a line" in chosen.evaluate("e => e.closest('label').innerText")
    marks = (
        "(f) => [...f.querySelectorAll('.chart-live svg .mark-line path')].map(p => p.getAttribute('opacity') || '1')"
    )
    assert set(figure.evaluate(marks)) == {"1"}
    chosen.focus()
    page.keyboard.press("ArrowDown")
    assert " at " in chosen.input_value()  # a line, e.g. "GNMT (target 0.24) at 8 chips"
    page.wait_for_function(f"(f) => ({marks})(f).includes('0.12')", arg=figure.element_handle())
    opacities = figure.evaluate(marks)
    assert opacities.count("1") == 1 and opacities.count("0.12") == len(opacities) - 1
    assert v.errors == []


def test_a_lineage_page_states_round_division_availability_and_chips_in_its_rows(visit, out):
    page = visit().go(url(out, "benchmarks/resnet.html"))
    rows = page.locator("table.progress tbody tr")
    assert rows.count() >= 9  # ResNet-50 from v0.5 to v4.0
    first = rows.first.inner_text()
    assert "MLPerf Training" in first and "chips" in first and "closed, available" in first
    assert "closed division, available systems" in page.locator("p.derived").inner_text()
    assert "target 0.749" in page.inner_text("main") and "target 0.759" in page.inner_text("main")


def test_compare_two_accelerators_and_call_out_what_is_not_like_for_like(visit, out):
    v = visit(**PHONE)
    page = v.go(url(out, "compare-accelerators.html"))
    page.select_option("#accelerator-a", "a100-sxm4-80gb")
    page.select_option("#accelerator-b", "h100-sxm5-80gb")
    page.wait_for_selector("#pair-table:not([hidden])")
    assert page.url.endswith("#a100-sxm4-80gb-vs-h100-sxm5-80gb")
    rows = page.locator("#pair-table tbody tr")
    assert rows.count() >= 8
    resnet = page.locator("#pair-table tbody tr", has_text="ResNet-50")
    assert resnet.get_attribute("data-like") == "yes"
    assert resnet.locator("td").last.inner_text().endswith("×")
    # Every cell names the benchmark, round, division, chip count and availability.
    cell = resnet.locator("td").first.inner_text()
    assert "ResNet-50 (target" in cell and "MLPerf Training v" in cell and "closed division" in cell
    assert "chips" in cell and "available" in cell
    # ... and the submitter with its software: a speed-up is of two systems, not of the chips.
    path = resnet.locator("td").first.locator("a").get_attribute("href")  # the page is at the site's root
    chosen = page.evaluate("p => window.leaderboardAccelerators.results.find(r => r.path === p)", path)
    assert chosen["framework"] and cell.endswith(f"{chosen['submitter']}, {chosen['framework']}"), cell
    assert "not of the chips alone" in page.locator("#pair-table caption").inner_text()
    # A V100 and a B300 never met in a round: each one's latest, and the callout says so.
    page.select_option("#accelerator-a", "v100")
    page.select_option("#accelerator-b", "b300")
    page.wait_for_selector("#pair-status")
    status = page.locator("#pair-status").inner_text()
    if "no MLPerf benchmark in common" not in status:
        assert page.locator("#pair-callouts").is_visible()
        assert "different rounds" in page.locator("#pair-callouts").inner_text()
        assert page.locator("#pair-table tbody tr[data-like=yes]").count() == 0
    again = visit().go(url(out, "compare-accelerators.html", "a=a100-sxm4-80gb&b=tpu-v4"))
    again.wait_for_selector("#pair-table:not([hidden])")
    assert again.locator("#pair-table thead th").nth(1).inner_text().endswith("A100 SXM4 80GB")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390 + 1
    assert v.errors == []


def test_compare_accelerators_follows_the_url_hash(visit, out):
    v = visit()
    page = v.go(url(out, "compare-accelerators.html", "a100-sxm4-80gb-vs-h100-sxm5-80gb"))
    page.wait_for_selector("#pair-table:not([hidden])")
    assert page.locator("#accelerator-a").input_value() == "a100-sxm4-80gb"
    assert page.locator("#accelerator-b").input_value() == "h100-sxm5-80gb"
    # Changing the selection writes the hash.
    page.select_option("#accelerator-b", "tpu-v4")
    page.wait_for_function("() => location.hash === '#a100-sxm4-80gb-vs-tpu-v4'")
    assert page.locator("#pair-table thead th").nth(2).inner_text().endswith("TPU v4")
    # A changed hash (a link, the back button, a hand edit) changes the selection.
    page.evaluate("() => { location.hash = 'v100-vs-tpu-v3'; }")
    page.wait_for_function("() => document.getElementById('accelerator-a').value === 'v100'")
    assert page.locator("#accelerator-b").input_value() == "tpu-v3"
    page.wait_for_selector("#pair-table:not([hidden])")
    assert "TPU v3" in page.locator("#pair-table thead").inner_text()
    page.go_back()
    page.wait_for_function("() => document.getElementById('accelerator-b').value === 'tpu-v4'")
    # An accelerator page's link opens the page with that accelerator chosen.
    accelerator = v.go(url(out, "accelerators/tpu-v4.html"))
    accelerator.locator("a.compare-link").click()
    accelerator.wait_for_load_state("load")
    assert accelerator.locator("#accelerator-a").input_value() == "tpu-v4"
    assert accelerator.locator("#accelerator-b").input_value() == ""
    assert v.errors == []


def test_compare_results_calls_out_an_open_division_model(visit, out):
    v = visit()
    page = v.go(url(out, "compare.html", "board=mlperf-training-v1.1%2Fbert"))
    page.wait_for_selector("#compare-list li")
    open_result = page.locator("#compare-list li", has_text="tpu-v4-4096")
    closed_result = page.locator("#compare-list li", has_text="closed")
    open_result.first.locator("input").check()
    closed_result.first.locator("input").check()
    callouts = page.locator("#compare-callouts")
    assert callouts.is_visible()
    text = callouts.inner_text()
    assert "different divisions" in text and "open-division result" in text
    # The two train different models, named with their sizes, and ran at different scales.
    assert "They train different models" in text and "480B parameters" in text and "BERT-Large (the reference)" in text
    assert "different scales" in text
    assert "480B parameters" in page.locator("#compare-table").inner_text()
    assert v.errors == []


def test_an_entry_pages_runs_table_on_a_phone(visit, out):
    v = visit(**PHONE)
    page = v.go(url(out, "entries/mlperf-training-v5.0/cisco/hpf_n8-bert.html"))
    table = page.locator("table.runs")
    assert table.locator("tbody tr").count() == 10
    assert table.locator("tbody tr[data-status=failed]").count() == 1
    assert table.locator("tbody tr[data-dropped]").count() == 2
    link = table.locator("tbody tr").first.locator("a")
    assert link.get_attribute("href").startswith("https://github.com/mlcommons/training_results_v5.0/blob/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390 + 1
    scroller = page.locator(".table-scroll", has=table)
    assert scroller.evaluate("e => e.scrollWidth >= e.clientWidth")
    assert v.errors == []


def test_the_cost_header_sorts_like_minutes_and_chip_hours(visit, out):
    v = visit()
    page = v.go(url(out, RESNET))
    closed = page.locator('section[data-division="closed"]')
    cost = closed.locator('th[data-sort="cost"]')
    # A real button, as the other sortable headers have, naming the tier shown.
    assert cost.locator("button.sort").inner_text() == "Cost (on-demand)"
    cost.locator("button.sort").click()
    assert "sort=cost" in page.url
    assert numbers(page, "data-cost-on-demand") == sorted(numbers(page, "data-cost-on-demand"))
    assert cost.get_attribute("aria-sort") == "ascending"
    assert closed.locator('th[data-sort="minutes"]').get_attribute("aria-sort") is None
    # The button stays through a change of tier, and answers the keyboard.
    page.select_option('select[name="tier"]', "spot")
    assert cost.locator("button.sort").inner_text() == "Cost (spot)"
    closed.locator('th[data-sort="minutes"] button').click()
    assert cost.get_attribute("aria-sort") is None
    cost.locator("button.sort").focus()
    page.keyboard.press("Enter")
    assert "sort=cost" in page.url and cost.get_attribute("aria-sort") == "ascending"
    assert v.errors == []


def test_the_caption_counts_the_results_without_a_rank_in_the_ranking_shown(visit, out):
    v = visit()
    page = v.go(url(out, RESNET))
    closed = page.locator('section[data-division="closed"]')

    def counted() -> tuple[int, int]:
        caption = closed.locator("table.board caption").inner_text()
        said = re.search(r"\((\d+) without a rank, each saying why\)", caption)
        dashes = closed.locator("tbody tr td.rank").all_inner_texts().count("—")
        return (int(said.group(1)) if said else 0), dashes

    official = counted()
    assert official[0] == official[1]
    # Ranked by a tier's cost, the results without a price take no rank either: the count says so.
    page.select_option('select[name="tier"]', "purchase")
    page.select_option('select[name="sort"]', "cost")
    by_cost = counted()
    assert by_cost[0] == by_cost[1] and by_cost[1] > official[1]
    page.select_option('select[name="sort"]', "minutes")
    assert counted() == official
    assert v.errors == []


def test_a_published_board_sorted_by_minutes_keeps_its_chip_hours_rank(visit, out):
    v = visit()
    page = v.go(url(out, "boards/published/language.html"))
    official = dict(page.eval_on_selector_all("tbody tr", "rows => rows.map(r => [r.dataset.entry, r.dataset.rank])"))
    page.select_option('select[name="sort"]', "minutes")
    minutes = numbers(page, "data-minutes", division="open")  # published runs: one section
    assert minutes == sorted(minutes)
    # Their minutes measure different models: the rank stays the board's, by chip-hours.
    shown = page.eval_on_selector_all(
        "tbody tr", "rows => rows.map(r => [r.dataset.entry, r.querySelector('td.rank').textContent])"
    )
    assert {entry: rank.replace("—", "") for entry, rank in shown} == official
    ranks = [int(rank) for _, rank in shown if rank.isdigit()]
    assert ranks != sorted(ranks)  # the fastest are not the fewest chip-hours
    assert page.locator("th.rank-head").first.inner_text() == "Rank"
    caption = page.locator("table.board caption").first.inner_text()
    assert "ranked by chip-hours, sorted by minutes" in caption and "ranked by minutes" not in caption
    # Back on its own metric, the caption says only that.
    page.select_option('select[name="sort"]', "chip_hours")
    assert "sorted by" not in page.locator("table.board caption").first.inner_text()
    assert v.errors == []


def test_a_weak_scaling_board_offers_no_sort_by_chip_hours_or_cost(visit, out):
    """Its results trained different numbers of models: a link asking for a cost sort shows the
    board's own ranking, by models per minute, and no header sorts by chip-hours or cost."""
    v = visit()
    page = v.go(url(out, "boards/mlperf-hpc-v1.0/cosmoflow-weak.html", "sort=cost"))
    options = page.eval_on_selector_all('select[name="sort"] option', "options => options.map(o => o.value)")
    assert options == ["models_per_minute", "minutes"]
    assert page.input_value('select[name="sort"]') == "models_per_minute"
    per_minute = numbers(page, "data-models_per_minute")
    assert len(per_minute) >= 2 and per_minute == sorted(per_minute, reverse=True)
    assert page.locator("th.rank-head").first.inner_text() == "Rank"
    headers = page.eval_on_selector_all("table.board th button.sort", "buttons => buttons.map(b => b.textContent)")
    assert set(headers) == {"Minutes"}  # in each division's table
    assert page.locator("svg, img[src*='charts/']").count() == 0
    assert v.errors == []


def test_a_sql_syntax_error_shows_duckdbs_location_once(visit, out):
    from test_sql_page import MISSING_WASM, run_query

    from leaderboard.render.serve import make_server
    from leaderboard.render.sqlpage import WASM_FILES, wasm_folder

    if not all((wasm_folder() / name).is_file() for name in WASM_FILES):
        pytest.skip(MISSING_WASM)
    server = make_server(out, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host, port = server.server_address[:2]
        page = visit().go(f"http://{host}:{port}/sql.html")
        run_query(page, "SELEC nonsense", wait="#sql-error:not([hidden])")
        text = page.inner_text("#sql-error")
        # DuckDB 1.4 appends the location twice (duckdb/duckdb#19070).
        assert text.startswith('Parser Error: syntax error at or near "SELEC"')
        assert text.count("LINE 1: SELEC nonsense") == 1
    finally:
        server.shutdown()
        server.server_close()
