"""Price honesty: which price a cost uses (one row per case), price_id and origin, the costs_at
macro against the costs table on the shipped data, and the catalog's price anomalies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT

from leaderboard import costs_at, store
from leaderboard.build import build
from leaderboard.catalog import Accelerator, Price, load_catalog
from leaderboard.inflation import adjust, dollars_of, latest_month, month_of
from leaderboard.normalize import TIERS, cost_marks, costs, price_in_force
from leaderboard.pricing import anomalies, duplicate_ids

A100 = Accelerator("a100", "NVIDIA", "A100", chips_per_device=1, aliases=())
TPU = Accelerator("tpu", "Google", "TPU", chips_per_device=4, aliases=())


def price(usd=1.0, date="2020-01-01", provider="P", tier="on-demand", unit="chip-hour", note=None, accelerator="a100"):
    return Price(accelerator, provider, tier, usd, unit, date, f"https://example.com/{provider}", note=note)


# (prices, result date, expected (provider, usd, date) or None, expected days after the result)
CHOICES = [
    ("one price in force", [price(2, "2020-01-01")], "2021-01-01", ("P", 2, "2020-01-01"), None),
    ("dated on the result's day", [price(2, "2021-01-01")], "2021-01-01", ("P", 2, "2021-01-01"), None),
    (
        "the latest in force, not an older cheaper one",
        [price(1, "2019-01-01"), price(3, "2020-06-01")],
        "2021-01-01",
        ("P", 3, "2020-06-01"),
        None,
    ),
    (
        "the in-force one beats a cheaper later one",
        [price(3, "2020-01-01"), price(1, "2021-06-01")],
        "2021-01-01",
        ("P", 3, "2020-01-01"),
        None,
    ),
    (
        "none in force: the earliest later, with the gap",
        [price(4, "2021-01-31")],
        "2021-01-01",
        ("P", 4, "2021-01-31"),
        30,
    ),
    (
        "none in force: the earliest later, not the cheaper one after it",
        [price(4, "2022-01-01"), price(1, "2023-01-01", provider="Q")],
        "2021-01-01",
        ("P", 4, "2022-01-01"),
        365,
    ),
    (
        "none in force: of the earliest later day, the lowest",
        [price(4, "2022-01-01"), price(3, "2022-01-01", provider="Q")],
        "2021-01-01",
        ("Q", 3, "2022-01-01"),
        365,
    ),
    (
        "lowest among providers in force",
        [price(4, provider="A"), price(3, provider="B")],
        "2021-01-01",
        ("B", 3, "2020-01-01"),
        None,
    ),
    (
        "a tie between providers goes to the first provider",
        [price(3, provider="B"), price(3, provider="A")],
        "2021-01-01",
        ("A", 3, "2020-01-01"),
        None,
    ),
    (
        "one provider, two prices one day (regions): the lowest",
        [price(3, note="east"), price(2, note="west")],
        "2021-01-01",
        ("P", 2, "2020-01-01"),
        None,
    ),
    ("a device-hour price per chip-hour", [price(8, unit="device-hour", accelerator="tpu")], "2021-01-01", None, None),
    ("no price of the tier", [price(2, tier="spot")], "2021-01-01", None, None),
]


@pytest.mark.parametrize("name, prices, date, expected, days", CHOICES, ids=[c[0] for c in CHOICES])
def test_the_price_a_cost_uses(name, prices, date, expected, days):
    choice = price_in_force(prices, A100, "on-demand", date)
    if expected is None:
        assert choice is None
        return
    assert (choice.price.provider, choice.price.usd, choice.price.date) == expected
    assert choice.later_than_result is (days is not None)
    assert choice.days_after == days


def test_a_tie_of_one_provider_one_day_one_amount_is_settled_by_price_id_in_any_order():
    east, west = price(2, note="east"), price(2, note="west")
    first = min(east, west, key=lambda p: p.price_id)
    assert price_in_force([east, west], A100, "on-demand", "2021-01-01").price is first
    assert price_in_force([west, east], A100, "on-demand", "2021-01-01").price is first


def test_price_ids_are_readable_stable_and_tell_regions_apart():
    assert price(2, note="east").price_id.startswith("a100/p/on-demand/2020-01-01/")
    assert price(2, note="east").price_id == price(2, note="east").price_id
    assert price(2, note="east").price_id != price(2, note="west").price_id
    assert duplicate_ids([price(2), price(2), price(3)]) == {price(2).price_id: 2}


@pytest.mark.parametrize(
    "cost, marks",
    [
        ({"cost_usd": 5.0, "price_after_result": True, "price_after_result_days": 412}, ["price dated 412 days later"]),
        ({"cost_usd": 5.0, "price_after_result": False, "price_estimate": True}, ["estimated price"]),
        ({"cost_usd": 5.0, "price_after_result": False, "price_estimate": False}, []),
        ({"cost_usd": None, "price_after_result": None, "cost_missing_reason": "no price"}, []),
    ],
)
def test_cost_marks(cost, marks):
    assert cost_marks(cost) == marks


def test_every_cost_names_its_price_and_origin():
    tier_costs = costs([price(2, "2022-01-01")], A100, 8, 16.0, "2021-01-01")
    on_demand = next(c for c in tier_costs if c.tier == "on-demand")
    assert on_demand.price_id == price(2, "2022-01-01").price_id
    assert on_demand.price_origin == "catalog"
    assert (on_demand.price_after_result, on_demand.price_after_result_days) == (True, 365)
    assert all(c.price_id is None and c.price_origin is None for c in tier_costs if c.tier != "on-demand")


@pytest.mark.parametrize(
    "name, prices, expected",
    [
        (
            "1-year above the on-demand price then in force (another provider's)",
            [price(2, provider="A"), price(3, provider="B"), price(2.5, provider="B", tier="1-year")],
            [("1-year", "commitment above on-demand"), ("1-year", "one provider")],
        ),
        (
            "1-year below on-demand: only its single provider is flagged",
            [price(2, provider="A"), price(3, provider="B"), price(1.5, provider="B", tier="1-year")],
            [("1-year", "one provider")],
        ),
        (
            "on-demand from one provider only",
            [price(2, provider="A")],
            [("on-demand", "one provider")],
        ),
        (
            "a commitment with no on-demand price in force yet is not compared",
            [
                price(2, provider="A", date="2022-01-01"),
                price(3, provider="B", date="2022-01-01"),
                price(9, tier="3-year", provider="A"),
                price(9, tier="3-year", provider="B"),
            ],
            [],
        ),
    ],
)
def test_price_anomalies(name, prices, expected):
    found = anomalies(prices, {"a100": A100})
    assert [(a.tier, a.kind) for a in found] == expected


# ---- the shipped data ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> str:
    db = tmp_path_factory.mktemp("prices") / "shipped.duckdb"
    outcome = build(ROOT / "submissions", ROOT / "catalog", db, None)
    assert not outcome.problems
    return str(db)


def rows(db: str, sql: str) -> list[tuple]:
    with store.reading(db) as query:
        return query(sql)[1]


def test_every_cost_names_exactly_one_price_row_of_its_part_and_tier(shipped):
    assert rows(shipped, "SELECT count(*) - count(DISTINCT price_id) FROM prices") == [(0,)]
    assert rows(shipped, "SELECT DISTINCT origin FROM prices ORDER BY 1") == [("catalog",), ("epoch",)]
    [(priced, matched, wrong)] = rows(
        shipped,
        "SELECT count(c.price_id), count(p.price_id), "
        "count(*) FILTER (WHERE p.accelerator <> r.accelerator OR p.tier <> c.tier OR p.date <> c.price_date "
        "OR p.origin <> c.price_origin) "
        "FROM costs c JOIN results r USING (entry_id) LEFT JOIN prices p ON p.price_id = c.price_id",
    )
    assert priced > 5000 and matched == priced and wrong == 0
    assert rows(shipped, "SELECT count(*) FROM costs WHERE (cost_usd IS NULL) <> (price_id IS NULL)") == [(0,)]


def test_costs_from_later_prices_carry_the_gap(shipped):
    [(later, wrong, longest)] = rows(
        shipped,
        "SELECT count(*) FILTER (WHERE c.price_after_result), "
        "count(*) FILTER (WHERE c.price_after_result_days IS DISTINCT FROM "
        "  CASE WHEN c.price_after_result THEN CAST(c.price_date - r.date AS INTEGER) END), "
        "max(c.price_after_result_days) "
        "FROM costs c JOIN results r USING (entry_id) WHERE c.tier = 'on-demand' AND r.round_kind = 'mlperf-training'",
    )
    assert later > 100 and wrong == 0 and longest > 365
    assert rows(shipped, "SELECT count(*) FROM costs WHERE price_after_result_days <= 0") == [(0,)]
    assert rows(
        shipped,
        "SELECT count(*) FROM results r JOIN costs c ON c.entry_id = r.entry_id AND c.tier = 'on-demand' "
        "WHERE r.price_id IS DISTINCT FROM c.price_id "
        "OR r.price_after_result_days IS DISTINCT FROM c.price_after_result_days",
    ) == [(0,)]


def test_no_today_basis_without_a_cost(shipped):
    assert rows(
        shipped, "SELECT count(*) FROM results WHERE cost_usd_today IS NULL AND cost_usd_today_basis IS NOT NULL"
    ) == [(0,)]
    assert rows(
        shipped, "SELECT count(*) FROM results WHERE cost_usd_today IS NOT NULL AND cost_usd_today_basis IS NULL"
    ) == [(0,)]


@pytest.mark.parametrize(
    "result_date, price_date, dollars",
    [
        ("2024-06-05", "2023-01-10", "2024-06-05"),  # a price in force: the result's dollars
        ("2024-06-05", "2024-06-05", "2024-06-05"),
        ("2024-06-05", "2026-09-20", "2026-09-20"),  # a later price stands in: its own, later dollars
        ("2024-06-05", None, "2024-06-05"),
    ],
)
def test_a_costs_dollars_are_of_the_results_date_or_of_a_later_prices(result_date, price_date, dollars):
    assert dollars_of(result_date, price_date) == dollars


def test_todays_dollars_start_from_a_later_prices_month(shipped):
    """Recomputed from the price index: a cost whose price is dated after the result is in the
    price's dollars, not the result's (865 results in the shipped data)."""
    catalog = load_catalog(ROOT / "catalog")
    found = rows(
        shipped,
        "SELECT date::VARCHAR, price_date::VARCHAR, cost_usd, cost_usd_today, price_after_result FROM results "
        "WHERE cost_usd_today IS NOT NULL",
    )
    today = latest_month(catalog.price_index)
    later = 0
    for date, price_date, cost, cost_today, after in found:
        start = price_date if after else date
        later += after and month_of(price_date) != month_of(date)
        assert cost_today == pytest.approx(adjust(cost, start, today, catalog.price_index), rel=1e-12)
    assert later > 100


DIFFERS = (
    "a.cost_usd IS DISTINCT FROM c.cost_usd OR a.price_id IS DISTINCT FROM c.price_id "
    "OR a.price_after_date IS DISTINCT FROM c.price_after_result "
    "OR a.price_after_date_days IS DISTINCT FROM c.price_after_result_days "
    "OR a.price_origin IS DISTINCT FROM c.price_origin OR a.price_estimate IS DISTINCT FROM c.price_estimate"
)


@pytest.mark.parametrize("tier", TIERS)
def test_costs_at_each_results_own_date_is_the_costs_table(shipped, tier):
    [(count, differ)] = rows(
        shipped,
        f"SELECT count(*), count(*) FILTER (WHERE {DIFFERS}) FROM costs_at(NULL, '{tier}') a "
        f"JOIN costs c ON c.entry_id = a.entry_id AND c.tier = '{tier}'",
    )
    assert count == rows(shipped, "SELECT count(*) FROM results")[0][0] and differ == 0


@pytest.mark.parametrize("tier", ["'on_demand'", "'On-Demand'", "NULL"])
def test_costs_at_refuses_a_tier_it_does_not_know(shipped, tier):
    """A typo used to price nothing, silently: every cost NULL."""
    shown = "NULL" if tier == "NULL" else tier.strip("'")
    with pytest.raises(Exception, match=re.escape(costs_at.unknown_tier_message(shown))):
        rows(shipped, f"SELECT count(*) FROM costs_at(NULL, {tier})")


def test_costs_at_one_date_prices_the_results_of_that_date_as_costs_does(shipped):
    dates = [
        d for (d,) in rows(shipped, "SELECT DISTINCT date FROM results WHERE round_kind = 'mlperf-training' ORDER BY 1")
    ]
    for day in (dates[0], dates[len(dates) // 2], dates[-1]):
        [(count, differ)] = rows(
            shipped,
            f"SELECT count(*), count(*) FILTER (WHERE {DIFFERS}) FROM costs_at(DATE '{day}', 'on-demand') a "
            "JOIN costs c ON c.entry_id = a.entry_id AND c.tier = 'on-demand' "
            f"JOIN results r ON r.entry_id = a.entry_id WHERE r.date = DATE '{day}'",
        )
        assert count > 0 and differ == 0


def test_costs_at_a_late_date_uses_no_later_price_where_any_part_is_priced(shipped):
    [(latest,)] = rows(shipped, "SELECT max(date) FROM prices")
    [(later, priced)] = rows(
        shipped,
        f"SELECT count(*) FILTER (WHERE price_after_date), count(price_id) FROM costs_at(DATE '{latest}', 'on-demand')",
    )
    assert later == 0 and priced > 2000


def test_the_shipped_catalog_flags_its_anomalies():
    catalog = load_catalog(ROOT / "catalog")
    found = anomalies(catalog.prices, catalog.accelerators)
    kinds = {(a.accelerator, a.kind) for a in found}
    assert ("h200-sxm", "one provider") in kinds  # H200's on-demand price: one provider's only
    assert any(a.kind == "commitment above on-demand" for a in found)
    assert not duplicate_ids(catalog.prices)


def test_postgresql_has_the_same_costs_at(postgres_url, tmp_path: Path):
    from test_store import place_acme_results

    project = tmp_path / "project"
    (project / "submissions").mkdir(parents=True)
    import shutil

    shutil.copytree(ROOT / "catalog", project / "catalog")
    place_acme_results(project)
    build(project / "submissions", project / "catalog", postgres_url, None)
    for tier in TIERS:
        [(count, differ)] = rows(
            postgres_url,
            f"SELECT count(*), count(*) FILTER (WHERE {DIFFERS}) FROM costs_at(NULL, '{tier}') a "
            f"JOIN costs c ON c.entry_id = a.entry_id AND c.tier = '{tier}'",
        )
        assert count == 3 and differ == 0
    with pytest.raises(Exception, match=re.escape(costs_at.unknown_tier_message("spot-instance"))):
        rows(postgres_url, "SELECT count(*) FROM costs_at(NULL, 'spot-instance')")


# ---- the site built from the shipped data (shared with test_site.py in one session) -------------


@pytest.fixture(scope="module")
def site_project(tmp_path_factory) -> Path:
    from test_site import built_site

    return built_site(tmp_path_factory)


def board_rows(path: Path) -> dict[str, dict]:
    from test_site import page

    return page(path).rows


def test_boards_mark_every_cost_from_a_later_price_and_count_them(site_project):
    from leaderboard.render.model import Board  # noqa: F401 - the board paths below are Board.path's

    db = site_project / "leaderboard.duckdb"
    later = rows(
        str(db),
        "SELECT r.entry_id, r.round, r.benchmark, c.price_after_result_days FROM results r "
        "JOIN costs c ON c.entry_id = r.entry_id AND c.tier = 'on-demand' WHERE c.price_after_result",
    )
    assert len(later) > 500
    per_board: dict[tuple[str, str], int] = {}
    for _, round_, benchmark, _ in later:
        per_board[(round_, benchmark)] = per_board.get((round_, benchmark), 0) + 1
    marked = 0
    for entry_id, round_, benchmark, days in later:
        board = board_rows(site_project / "site" / "boards" / round_ / f"{benchmark}.html")
        row = board.get(entry_id)
        if row is None:  # on a later page of a long board: the page it is on is checked there
            continue
        assert f"price dated {days} days later" in row["attrs"]["data-marks-on-demand"]
        assert any(f"price dated {days} days later" in cell for cell in row["cells"]), entry_id
        marked += 1
    assert marked > 500
    [(priced,)] = rows(str(db), "SELECT count(cost_usd) FROM results")
    index = (site_project / "site" / "index.html").read_text()
    assert f"{len(later):,} of the {priced:,} on-demand costs use a price dated after their result" in index
    for (round_, benchmark), count in per_board.items():
        text = (site_project / "site" / "boards" / round_ / f"{benchmark}.html").read_text()
        assert f"{count} of the " in text.split('class="notice later-prices">', 1)[1].split("</p>", 1)[0]


def test_boards_offer_costs_at_the_latest_prices_equal_to_costs_at(site_project):
    db = str(site_project / "leaderboard.duckdb")
    [(latest,)] = rows(db, "SELECT max(date) FROM prices")
    expected = dict(rows(db, f"SELECT entry_id, cost_usd FROM costs_at(DATE '{latest}', 'on-demand')"))
    text = (site_project / "site" / "boards" / "mlperf-training-v5.0" / "llama2_70b_lora.html").read_text()
    assert '<select name="prices">' in text and f"(as of {latest})" in text
    board = board_rows(site_project / "site" / "boards" / "mlperf-training-v5.0" / "llama2_70b_lora.html")
    assert board
    for entry_id, row in board.items():
        shown = row["attrs"]["data-latest-on-demand"]
        assert (float(shown) if shown else None) == (
            None if expected[entry_id] is None else pytest.approx(expected[entry_id])
        )


def test_estimated_prices_are_marked_on_boards_and_compare_data(site_project):
    db = str(site_project / "leaderboard.duckdb")
    estimated = rows(
        db,
        "SELECT r.entry_id, r.round, r.benchmark FROM results r JOIN costs c ON c.entry_id = r.entry_id "
        "AND c.tier = 'purchase' WHERE c.price_estimate ORDER BY 1 LIMIT 20",
    )
    assert estimated
    for entry_id, round_, benchmark in estimated:
        row = board_rows(site_project / "site" / "boards" / round_ / f"{benchmark}.html").get(entry_id)
        if row is not None:
            assert "estimated price" in row["attrs"]["data-marks-purchase"]
        script = (site_project / "site" / "data" / "boards" / round_ / f"{benchmark}.js").read_text()
        assert "estimated price" in script


def test_chart_tooltips_and_the_feed_carry_the_gap(site_project):
    db = str(site_project / "leaderboard.duckdb")
    [(entry_id, round_, benchmark, division, days)] = rows(
        db,
        "SELECT r.entry_id, r.round, r.benchmark, r.division, r.price_after_result_days FROM results r "
        "WHERE r.price_after_result AND r.round_kind = 'mlperf-training' ORDER BY r.date DESC, r.entry_id LIMIT 1",
    )
    spec = (site_project / "site" / "charts" / f"{round_}--{benchmark}--{division}--cost.vl.json").read_text()
    assert f"price dated {days} days later" in spec and '"Price used"' in spec
    feed = (site_project / "site" / "feed.xml").read_text()
    assert "days later)" in feed


def test_accelerator_pages_list_who_prices_them_and_flag_anomalies(site_project):
    site = site_project / "site"
    h100 = (site / "accelerators" / "h100-sxm5-80gb.html").read_text()
    assert 'class="price-coverage"' in h100 and "<strong>on-demand</strong>:" in h100
    h200 = (site / "accelerators" / "h200-sxm.html").read_text()
    assert 'data-kind="one provider"' in h200 and "Amazon Web Services" in h200
    catalog = load_catalog(ROOT / "catalog")
    above = {
        a.accelerator for a in anomalies(catalog.prices, catalog.accelerators) if a.kind == "commitment above on-demand"
    }
    shown = [p for p in above if (site / "accelerators" / f"{p}.html").is_file()]
    assert shown
    for part in shown:
        assert 'data-kind="commitment above on-demand"' in (site / "accelerators" / f"{part}.html").read_text()


def test_the_board_toggle_switches_to_the_latest_prices_offline(browser, site_project):
    """The boards' "Prices" control, in a real browser from file:// (no server, no network)."""
    board = (site_project / "site" / "boards" / "mlperf-training-v5.0" / "llama2_70b_lora.html").as_uri()
    context = browser.new_context()
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(board)
        page.wait_for_load_state("load")
        cells = 'section[data-division="closed"] tbody tr:not([hidden]) td.cost'
        assert any("days later" in text for text in page.locator(cells).all_inner_texts())
        page.select_option('select[name="prices"]', "latest")
        page.select_option('select[name="sort"]', "cost")
        assert "prices=latest" in page.url
        assert (
            page.locator('section[data-division="closed"] th.cost-head').inner_text()
            == "Cost (on-demand, latest prices)"
        )
        assert not any("days later" in text for text in page.locator(cells).all_inner_texts())
        latest = page.eval_on_selector_all(
            'section[data-division="closed"] tbody tr:not([hidden])',
            "rows => rows.map(r => r.getAttribute('data-latest-on-demand')).filter(v => v !== '').map(Number)",
        )
        assert latest and latest == sorted(latest)
        again = context.new_page()
        again.goto(page.url)
        again.wait_for_load_state("load")
        assert again.locator('select[name="prices"]').input_value() == "latest"
    finally:
        context.close()
    assert errors == []
