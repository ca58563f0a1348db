"""Costs in the dollars of another month, by a monthly price index."""

from __future__ import annotations

import pytest

from leaderboard.catalog import PriceIndex
from leaderboard.inflation import adjust, index_value, month_of, price_index_yaml

INDEX = PriceIndex("TEST", "test index", "https://example.com", {"2019-06": 100.0, "2023-01": 125.0, "2025-06": 150.0})


@pytest.mark.parametrize(
    "month, expected",
    [
        ("2019-06", 100.0),
        ("2020-01", 100.0),  # between published months: the latest before
        ("2026-01", 150.0),  # after the last published month: the last value
        ("2018-12", None),  # before the first: unknown
    ],
)
def test_index_value(month, expected):
    assert index_value(INDEX, month) == expected


@pytest.mark.parametrize(
    "usd, date, to_month, expected",
    [
        (1000.0, "2019-06-19", "2023-01", 1250.0),
        (1000.0, "2019-06-19", "2025-06", 1500.0),
        (1250.0, "2023-01-31", "2019-06", 1000.0),
        (1000.0, "2010-01-01", "2023-01", None),
        (None, "2019-06-19", "2023-01", None),
    ],
)
def test_adjust(usd, date, to_month, expected):
    assert (
        adjust(usd, date, to_month, INDEX) == pytest.approx(expected)
        if expected
        else adjust(usd, date, to_month, INDEX) is None
    )


def test_without_an_index_nothing_is_adjusted():
    assert adjust(1000.0, "2019-06-19", "2023-01", None) is None


def test_month_of():
    assert month_of("2019-06-19") == "2019-06"


def test_index_file_has_one_line_per_month():
    text = price_index_yaml({"2001-01": 100.6, "2000-12": 100.0}, "S", "a: b", "https://x.example")
    assert text.splitlines()[-3:] == ["months:", '  "2000-12": 100', '  "2001-01": 100.6']
    assert 'name: "a: b"' in text
