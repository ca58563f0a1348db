"""What the site shows about prices beside each cost: its marks (a later price and the gap, an
estimate), every result's cost at the catalog's latest prices (the boards' toggle), and per part
the providers and dates that price it and its anomalies (pricing.anomalies)."""

from __future__ import annotations

import math
from dataclasses import fields
from functools import lru_cache

from leaderboard.catalog import Accelerator, Price
from leaderboard.normalize import TIERS, cost_marks, price_in_force
from leaderboard.pricing import PriceAnomaly, anomalies

_PRICE_FIELDS = {f.name for f in fields(Price)}
_ACCELERATOR_FIELDS = {f.name for f in fields(Accelerator)}


def records(accelerator_rows: dict[str, dict], price_rows: list[dict]) -> tuple[dict[str, Accelerator], list[Price]]:
    """The database's accelerators and prices rows back as the catalog's typed records."""
    parts = {
        key: Accelerator(**{**{k: v for k, v in row.items() if k in _ACCELERATOR_FIELDS}, "aliases": ()})
        for key, row in accelerator_rows.items()
    }
    prices = [Price(**{k: v for k, v in row.items() if k in _PRICE_FIELDS}) for row in price_rows]
    return parts, prices


def latest_date(price_rows: list[dict]) -> str | None:
    """The newest price's date: 'today' for the site, fixed by the catalog so builds stay repeatable."""
    return max((p["date"] for p in price_rows), default=None)


@lru_cache(maxsize=8192)  # the same few hundred rates, for every cost of every result
def significant(value: float | None, digits: int = 4) -> str:
    """A price to `digits` significant digits, never in exponent form, with its cents below
    10^(digits-1) dollars: 2.449, 2.40, 30.00, 0.0123, 44,490 (a whole number from there up,
    every digit kept); empty for no value."""
    if value is None:
        return ""
    if value == 0 or abs(value) >= 10 ** (digits - 1):
        return f"{value:,.0f}"
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    if abs(round(value, decimals)) >= 10 ** (digits - 1):  # 999.95 rounds up past the cents
        return f"{value:,.0f}"
    text = f"{value:,.{decimals}f}".rstrip("0").rstrip(".")
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction:0<2}"


def price_basis(tier: str, rate: float | None, provider: str | None, cost_usd: float | None, chips: float) -> str:
    """What a cost rests on, as the boards show it under the cost: '$2.48/chip-hour, AWS';
    a purchase cost '$30,000/chip, NVIDIA'. Empty without a cost."""
    if cost_usd is None:
        return ""
    amount, unit = (cost_usd / chips, "chip") if tier == "purchase" else (rate, "chip-hour")
    if amount is None:
        return ""
    return f"${significant(amount)}/{unit}" + (f", {provider}" if provider else "")


def annotate(results: list[dict], accelerator_rows: dict[str, dict], price_rows: list[dict]) -> str | None:
    """Give every result row, per tier, its cost's `marks` and `latest_costs` / `latest_marks`:
    the cost at the prices in force on the catalog's latest price date. Returns that date."""
    as_of = latest_date(price_rows)
    parts, prices = records(accelerator_rows, price_rows)
    prices_of: dict[str, list[Price]] = {}
    for price in prices:
        prices_of.setdefault(price.accelerator, []).append(price)
    chosen: dict[tuple[str, str], object] = {}
    for row in results:
        latest, latest_marks, latest_bases = {}, {}, {}
        for tier in TIERS:
            cost = row["costs"][tier]
            cost["marks"] = cost_marks(cost)
            cost["basis"] = price_basis(
                tier, cost.get("usd_per_chip_hour"), cost.get("provider"), cost["cost_usd"], row["chips"]
            )
            key = (row["accelerator"], tier)
            if key not in chosen:
                part = parts.get(row["accelerator"])
                chosen[key] = price_in_force(prices_of.get(key[0], []), part, tier, as_of) if part and as_of else None
            choice = chosen[key]
            if choice is None:
                latest[tier], latest_marks[tier], latest_bases[tier] = None, [], ""
                continue
            amount = row["chips"] * choice.price.usd if tier == "purchase" else row["chip_hours"] * choice.per_chip_hour
            latest[tier] = amount
            latest_marks[tier] = ["estimated price"] if choice.price.estimate else []
            latest_bases[tier] = price_basis(tier, choice.per_chip_hour, choice.price.provider, amount, row["chips"])
        row.update(latest_costs=latest, latest_marks=latest_marks, latest_bases=latest_bases)
    return as_of


def later_price_count(rows: list[dict], tier: str = "on-demand") -> int:
    """How many of the rows' costs of `tier` come from a price dated after the result."""
    return sum(1 for row in rows if row["costs"][tier].get("price_after_result"))


def part_anomalies(accelerator_rows: dict[str, dict], price_rows: list[dict]) -> dict[str, list[PriceAnomaly]]:
    """Each part's price anomalies, by accelerator id."""
    parts, prices = records(accelerator_rows, price_rows)
    found: dict[str, list[PriceAnomaly]] = {}
    for anomaly in anomalies(prices, parts):
        found.setdefault(anomaly.accelerator, []).append(anomaly)
    return found


def coverage(price_rows: list[dict]) -> list[dict]:
    """Per tier (in TIERS order), the providers that price a part and the dates of their prices."""
    tiers = []
    for tier in TIERS:
        of_tier = [p for p in price_rows if p["tier"] == tier]
        if not of_tier:
            continue
        providers = sorted({p["provider"] for p in of_tier}, key=str.casefold)
        tiers.append(
            {
                "tier": tier,
                "providers": providers,
                "first": min(p["date"] for p in of_tier),
                "last": max(p["date"] for p in of_tier),
                "count": len(of_tier),
                "estimates": sum(1 for p in of_tier if p.get("estimate")),
            }
        )
    return tiers
