"""Expressing a dollar amount of one month in the dollars of another, with a monthly price index.

Pure functions over catalog/price-index.yaml (Epoch AI's choice: the US producer price index
for data processing and hosting services, BLS PCU518210518210).
"""

from __future__ import annotations

import csv
import json
from bisect import bisect_right
from pathlib import Path

from leaderboard.catalog import PriceIndex

# Epoch AI's "2023 USD": its code adjusts costs to one month of this index; we read it as January
# 2023 (the 2023 average is 0.8% higher).
EPOCH_BASIS = "2023-01"


def month_of(date: str) -> str:
    """'2019-06-19' -> '2019-06'."""
    return date[:7]


def index_value(index: PriceIndex, month: str) -> float | None:
    """The index for `month`; after the last published month, the last value; before the first, None."""
    if month in index.months:
        return index.months[month]
    earlier = bisect_right(index.in_order, month)  # how many months are at or before `month`
    return index.months[index.in_order[earlier - 1]] if earlier else None


def latest_month(index: PriceIndex) -> str:
    return index.in_order[-1]


def dollars_of(result_date: str, price_date: str | None) -> str:
    """The date whose dollars a cost is in: the result's, whose price was in force then; or the
    price's, when only a price dated after the result was found (its later dollars)."""
    return max(result_date, price_date) if price_date else result_date


def adjust(usd: float | None, from_date: str, to_month: str, index: PriceIndex | None) -> float | None:
    """`usd` in dollars of the month of `from_date`, expressed in dollars of `to_month`."""
    if usd is None or index is None:
        return None
    start, end = index_value(index, month_of(from_date)), index_value(index, to_month)
    if start is None or end is None:
        return None
    return usd * end / start


def read_fred_csv(path: Path) -> dict[str, float]:
    """A FRED monthly series download (observation_date, SERIES) as month -> value."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        return {row[0][:7]: float(row[1]) for row in reader if len(row) >= 2 and row[1].strip() not in ("", ".")}


def price_index_yaml(months: dict[str, float], series: str, name: str, source: str) -> str:
    """catalog/price-index.yaml: one line per month, so a new month is a one-line diff."""
    lines = [
        "# Monthly price index used to express costs in the dollars of another month (cost_usd_today,",
        "# epoch_cost_comparison). Generated from the FRED download by leaderboard.inflation.price_index_yaml.",
        f"series: {json.dumps(series)}",
        f"name: {json.dumps(name)}",
        f"source: {json.dumps(source)}",
        "months:",
    ]
    lines += [f'  "{month}": {value:g}' for month, value in sorted(months.items())]
    return "\n".join(lines) + "\n"
