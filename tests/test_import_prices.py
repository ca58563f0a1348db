"""import-prices: Epoch AI's hardware price table into catalog/prices-epoch.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli, write_epoch_csv

from leaderboard.catalog import catalog_name, load_catalog
from leaderboard.importers.prices import (
    http_url,
    import_prices,
    parse_date,
    parse_number,
    price_entries,
    prices_yaml,
)

COLUMNS = [
    "Price source",
    "Price date",
    "Hardware model",
    "Manufacturer",
    "Vendor",
    "Location",
    "Price per chip-hour (on-demand)",
    "Price per chip-hour (1-year CUD)",
    "Price per chip-hour (3-year CUD)",
    "Price (hardware purchase)",
    "Notes",
    "Cloud GPU description",
    "Number of GPUs",
]
TPU_PAGE = "https://web.archive.org/web/20181011013513/https://cloud.google.com/tpu/docs/pricing"


def write_prices_csv(path: Path, rows: list[dict]) -> Path:
    """A price table as Epoch exports it: UTF-8 with a byte order mark."""
    return write_epoch_csv(path, COLUMNS, rows)


SMALL_TABLE = [
    {
        "Price source": TPU_PAGE,
        "Price date": "2018-10-11",
        "Hardware model": "Google TPU v3",
        "Manufacturer": "Google",
        "Vendor": "Google Cloud",
        "Location": "US",
        "Price per chip-hour (on-demand)": "2.00",
    },
    {
        "Price source": "https://aws.example/p2 copy copy",
        "Price date": "2017-08-10",  # after the V100's release (2017-06-21): earlier would be skipped
        "Hardware model": "NVIDIA Tesla V100 SXM2",
        "Manufacturer": "NVIDIA",
        "Vendor": "Amazon Web Services",
        "Price per chip-hour (on-demand)": "3.06",
        "Price per chip-hour (3-year CUD)": "1.23",
        "Notes": '=HYPERLINK("https://evil.example","click")',
    },
    {
        "Price source": "https://www.nextplatform.com/k80",
        "Price date": "2016-07-01",
        "Hardware model": "NVIDIA P100",
        "Manufacturer": "NVIDIA",
        "Price (hardware purchase)": "$5,400.00",
        "Notes": "Single-unit list price",
    },
    {
        "Price source": "https://example.com/wse",
        "Price date": "2021-04-20",
        "Hardware model": "Acme Wafer 9000",
        "Manufacturer": "Acme",
        "Price (hardware purchase)": "2000000",
    },
    {
        "Price source": "No source",
        "Price date": "2023-01-01",
        "Hardware model": "NVIDIA A100",
        "Vendor": "Lambda Labs",
        "Price per chip-hour (on-demand)": "1.10",
    },
    {
        "Price source": "https://example.com/nothing",
        "Price date": "2023-01-01",
        "Hardware model": "NVIDIA A100",
        "Vendor": "Lambda Labs",
    },
    {
        "Price source": "https://example.com/odd",
        "Price date": "2023-01-01",
        "Hardware model": "NVIDIA A100",
        "Vendor": "Lambda Labs",
        "Price per chip-hour (on-demand)": "call us",
        "Price per chip-hour (1-year CUD)": "0.9",
    },
]


# ---- pure functions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cell, expected",
    [
        ("2.00", 2.0),
        ("$5,400.00", 5400.0),
        (" 0.9 ", 0.9),
        ("", None),
        ("call us", None),
        ("nan", None),
        ("inf", None),
        ("-1", -1.0),
        ('=HYPERLINK("x")', None),
    ],
)
def test_parse_number(cell, expected):
    assert parse_number(cell) == expected


@pytest.mark.parametrize(
    "cell, expected",
    [
        ("2018-10-11", "2018-10-11"),
        ("2025-06-10 16:37", "2025-06-10"),
        ("2023-02-30", None),
        ("", None),
        ("June 2020", None),
    ],
)
def test_parse_date(cell, expected):
    assert parse_date(cell) == expected


@pytest.mark.parametrize(
    "cell, expected",
    [
        ("https://a.example/x", "https://a.example/x"),
        ("https://a.example/linux/ copy copy", "https://a.example/linux/"),
        ("No source", None),
        ("Unknown", None),
        ("", None),
        ("arxiv.org/abs/2501.14818", None),
        ('=HYPERLINK("https://evil.example")', None),
        ("ftp://files.example/x", None),
    ],
)
def test_http_url(cell, expected):
    assert http_url(cell) == expected


def test_one_row_gives_one_price_per_tier_with_an_amount():
    row = SMALL_TABLE[1]
    entries, problems = price_entries(row, "v100")
    assert problems == []
    assert [(e["tier"], e["usd"], e["unit"]) for e in entries] == [
        ("on-demand", 3.06, "chip-hour"),
        ("3-year", 1.23, "chip-hour"),
    ]
    assert entries[0]["source"] == "https://aws.example/p2"
    assert entries[0]["note"] == '=HYPERLINK("https://evil.example","click")'
    assert entries[0]["origin"] == "epoch"


def test_a_purchase_price_is_per_chip_and_sold_by_the_maker():
    entries, _ = price_entries(SMALL_TABLE[2], "p100")
    assert entries == [
        {
            "accelerator": "p100",
            "provider": "NVIDIA",
            "tier": "purchase",
            "usd": 5400.0,
            "unit": "chip",
            "date": "2016-07-01",
            "source": "https://www.nextplatform.com/k80",
            "note": "Single-unit list price",
            "origin": "epoch",
        }
    ]


ESTIMATED_TPU = {
    "Price source": "https://arxiv.org/pdf/2405.21015",
    "Price date": "2021-05-20",
    "Hardware model": "Google TPU v4",
    "Manufacturer": "Google",
    "Price (hardware purchase)": "5176.00",
    "Notes": "Estimated TPU purchase price based on geometric mean of TPU manufacturing cost and price of "
    "equivalent GPU. Page 14, table 3.",
}


@pytest.mark.parametrize(
    "row, estimate",
    [
        (ESTIMATED_TPU, True),  # Epoch's notes call it an estimate
        ({**ESTIMATED_TPU, "Notes": "This is not a real sale price. Estimating the price of ..."}, True),
        (SMALL_TABLE[2], False),  # "Single-unit list price"
        (SMALL_TABLE[1], False),  # a quoted cloud price
        ({**ESTIMATED_TPU, "Notes": ""}, False),
        ({**ESTIMATED_TPU, "Notes": "", "Cloud GPU description": "estimated"}, False),  # only Notes say so
    ],
)
def test_a_price_epochs_notes_call_an_estimate_is_flagged(row, estimate):
    entries, _ = price_entries(row, "tpu-v4")
    assert entries and all(e.get("estimate", False) is estimate for e in entries)
    assert all(("estimate" in e) is estimate for e in entries)  # written only when true (default false)


@pytest.mark.parametrize(
    "row, reason",
    [
        (SMALL_TABLE[4], "no source URL ('No source')"),
        (SMALL_TABLE[5], "no price in any tier"),
        ({**SMALL_TABLE[0], "Price date": ""}, "no price date ('blank')"),
    ],
)
def test_rows_without_source_date_or_price_give_no_entries(row, reason):
    entries, problems = price_entries(row, "a100-sxm4-40gb")
    assert entries == [] and reason in problems


def test_prices_yaml_quotes_every_string_that_could_be_read_as_something_else():
    text = prices_yaml(
        [
            {
                "accelerator": "tpu-v3",
                "provider": "Google Cloud",
                "tier": "on-demand",
                "usd": 2.0,
                "unit": "chip-hour",
                "date": "2018-10-11",
                "source": TPU_PAGE,
                "note": "yes: =1+1",
                "origin": "epoch",
            }
        ]
    )
    assert (
        '  - {accelerator: tpu-v3, provider: "Google Cloud", tier: on-demand, usd: 2, unit: chip-hour, '
        'date: "2018-10-11", source: "' + TPU_PAGE + '", note: "yes: =1+1", origin: epoch}'
    ) in text


@pytest.mark.parametrize(
    "name, expected",
    [
        ("prices.yaml", "prices"),
        ("prices-epoch.yaml", "prices"),
        ("price-index.yaml", "price-index"),
        ("prices-epoch.txt", None),
        ("notes.yaml", None),
        ("rounds.yml", "rounds"),
        ("prices-a.b.json", "prices"),
        ("Prices-epoch.yaml", None),
        (".yaml", None),
        ("prices.", None),
    ],
)
def test_catalog_file_names(name, expected):
    assert catalog_name(Path("catalog") / name) == expected


# ---- the command -----------------------------------------------------------------------------


def test_import_writes_prices_lists_unmapped_hardware_and_skipped_rows(empty_project):
    table = write_prices_csv(empty_project / "prices.csv", SMALL_TABLE)
    hand_typed = (empty_project / "catalog" / "prices.yaml").read_bytes()
    run = run_cli("import-prices", table, cwd=empty_project)
    assert run.code == 0, run.err
    assert "7 rows read; 5 prices written to catalog/prices-epoch.yaml" in run.out
    assert "'Acme Wafer 9000': 1 row (row 5) -> add alias 'Acme Wafer 9000'" in run.out
    assert "row 6 (NVIDIA A100): no source URL ('No source')" in run.out
    assert "row 7 (NVIDIA A100): no price in any tier" in run.out
    assert (
        "row 8 (NVIDIA A100): tier skipped: Price per chip-hour (on-demand): 'call us' is not a positive amount"
        in run.out
    )
    assert (empty_project / "catalog" / "prices.yaml").read_bytes() == hand_typed
    assert run_cli("validate", "catalog", cwd=empty_project).code == 0

    catalog = load_catalog(empty_project / "catalog")
    imported = [p for p in catalog.prices if p.origin == "epoch"]
    assert sorted((p.accelerator, p.tier, p.usd) for p in imported) == [
        ("a100-sxm4-40gb", "1-year", 0.9),
        ("p100", "purchase", 5400.0),
        ("tpu-v3", "on-demand", 2.0),
        ("v100", "3-year", 1.23),
        ("v100", "on-demand", 3.06),
    ]
    assert any(p.note == '=HYPERLINK("https://evil.example","click")' for p in imported)
    assert not any(p.estimate for p in catalog.prices)


def test_imported_estimates_reach_the_prices_and_costs_tables(empty_project):
    """An estimated TPU v4 purchase price: prices.estimate, and costs.price_estimate of a result costed by it."""
    import duckdb
    from test_validate import MLPERF, place

    write_prices_csv(empty_project / "prices.csv", [ESTIMATED_TPU])
    assert run_cli("import-prices", "prices.csv", cwd=empty_project).code == 0
    assert "estimate: true" in (empty_project / "catalog" / "prices-epoch.yaml").read_text()
    place(empty_project, MLPERF.replace("a100-sxm4-80gb", "tpu-v4"))
    assert run_cli("build", "-q", cwd=empty_project).code == 0
    with duckdb.connect(str(empty_project / "leaderboard.duckdb"), read_only=True) as con:
        assert con.execute(
            "SELECT estimate FROM prices WHERE source = 'https://arxiv.org/pdf/2405.21015'"
        ).fetchall() == [(True,)]
        assert con.execute("SELECT count(*) FROM prices WHERE estimate").fetchall() == [(1,)]
        tiers = dict(con.execute("SELECT tier, price_estimate FROM costs").fetchall())
        results = con.execute("SELECT price_estimate FROM results").fetchall()
    # Google's quoted on-demand and commitment prices; no spot price; Epoch's estimated purchase price.
    assert tiers == {"on-demand": False, "1-year": False, "3-year": False, "spot": None, "purchase": True}
    assert results == [(False,)]  # the results row gives the on-demand tier's


def test_reimport_is_byte_identical_and_says_unchanged(empty_project):
    table = write_prices_csv(empty_project / "prices.csv", list(reversed(SMALL_TABLE)))
    assert run_cli("import-prices", table, cwd=empty_project).code == 0
    first = (empty_project / "catalog" / "prices-epoch.yaml").read_bytes()
    write_prices_csv(table, SMALL_TABLE)  # same rows, another order
    again = run_cli("import-prices", table, cwd=empty_project)
    assert "(unchanged)" in again.out
    assert (empty_project / "catalog" / "prices-epoch.yaml").read_bytes() == first


def test_a_bad_price_in_the_generated_file_is_reported_there(empty_project):
    (empty_project / "catalog" / "prices-epoch.yaml").write_text(
        'prices:\n  - {accelerator: tpu-v9, provider: X, tier: on-demand, usd: 1, unit: chip-hour, date: "2020-01-01",'
        ' source: "https://x.example", origin: epoch}\n'
    )
    run = run_cli("validate", "catalog", cwd=empty_project)
    assert run.code == 1
    assert "prices-epoch.yaml:2:" in run.out and "unknown accelerator 'tpu-v9'" in run.out


def test_missing_columns_and_missing_files_are_one_line_errors(empty_project):
    (empty_project / "bad.csv").write_text("a,b\n1,2\n")
    run = run_cli("import-prices", "bad.csv", cwd=empty_project)
    assert run.code == 1 and run.err.startswith("error: ") and "missing column(s) 'Price source'" in run.err
    run = run_cli("import-prices", "absent.csv", cwd=empty_project)
    assert run.code == 1 and "Traceback" not in run.err


def test_the_real_price_table_maps_every_row(shared_data, empty_project):
    table = shared_data / "reference" / "epoch-hardware-prices.csv"
    result = import_prices(table, load_catalog(empty_project / "catalog"))
    assert result.rows == 591
    assert result.unmapped == {}
    skipped_rows = {
        s.row for s in result.skipped if not s.reason.startswith(("tier", "on-demand", "1-year", "3-year", "purchase"))
    }
    assert len(skipped_rows) == 7  # five "No source", one "Unknown", one with neither source nor date
    assert {
        "accelerator": "tpu-v3",
        "provider": "Google Cloud",
        "tier": "on-demand",
        "usd": 2.0,
        "unit": "chip-hour",
        "date": "2018-10-11",
        "source": TPU_PAGE,
        "note": "US",
        "origin": "epoch",
    } in result.prices
    estimated = {(p["accelerator"], p["tier"]) for p in result.prices if p.get("estimate")}
    assert estimated == {(f"tpu-{v}", "purchase") for v in ("v1", "v2", "v3", "v4", "v5e", "v5p", "v6e")}
    run = run_cli("import-prices", table, cwd=empty_project)
    assert run.code == 0, run.err
    assert run_cli("validate", "catalog", cwd=empty_project).code == 0
    # The shipped file is this import's output, estimates flagged.
    shipped = Path(__file__).resolve().parent.parent / "catalog" / "prices-epoch.yaml"
    assert (empty_project / "catalog" / "prices-epoch.yaml").read_text() == shipped.read_text()
