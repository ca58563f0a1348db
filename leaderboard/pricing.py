"""Facts about the catalog's prices as a whole: which providers and dates price a part, ids given
twice, and the anomalies a reader should see and a reviewer check (pure; no I/O).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from leaderboard.catalog import Accelerator, Price
from leaderboard.normalize import price_in_force, usd_per_chip_hour

HOURLY_TIERS = ("on-demand", "spot", "1-year", "3-year")
COMMITMENT_TIERS = ("1-year", "3-year")


def duplicate_ids(prices: Iterable[Price]) -> dict[str, int]:
    """price_id -> how many prices share it, for ids given more than once (the same price twice)."""
    counts: dict[str, int] = {}
    for price in prices:
        key = price.price_id
        counts[key] = counts.get(key, 0) + 1
    return {key: n for key, n in counts.items() if n > 1}


@dataclass(frozen=True)
class PriceAnomaly:
    """Something about a part's prices a reader should know and a reviewer should check."""

    accelerator: str
    tier: str
    kind: str  # "commitment above on-demand" | "one provider"
    message: str


def anomalies(prices: Sequence[Price], accelerators: Mapping[str, Accelerator]) -> list[PriceAnomaly]:
    """The anomalies of the catalog's hourly prices, per part and tier, in a stable order:
    - a 1-year or 3-year price above the on-demand price in force on its date (the lowest of the
      providers' latest on or before it, as costs choose): a commitment should cost less, and a
      cost board would show the commitment dearer than paying by the hour;
    - a tier priced by one provider only (every cost of the tier then rests on that provider)."""
    found: list[PriceAnomaly] = []
    by_part: dict[str, list[Price]] = {}
    for price in prices:
        if price.tier in HOURLY_TIERS and price.accelerator in accelerators:
            by_part.setdefault(price.accelerator, []).append(price)
    for part in sorted(by_part):
        accelerator, part_prices = accelerators[part], by_part[part]
        for price in sorted(part_prices, key=lambda p: (p.tier, p.date, p.provider, p.price_id)):
            if price.tier not in COMMITMENT_TIERS:
                continue
            on_demand = price_in_force(part_prices, accelerator, "on-demand", price.date)
            amount = usd_per_chip_hour(price, accelerator)
            if on_demand is None or on_demand.later_than_result or amount is None:
                continue
            if amount > on_demand.per_chip_hour:
                found.append(
                    PriceAnomaly(
                        part,
                        price.tier,
                        "commitment above on-demand",
                        f"{price.provider}'s {price.tier} price of {price.date}, ${amount:.2f}/chip-hour, is above "
                        f"the on-demand price then in force, {on_demand.price.provider}'s ${on_demand.per_chip_hour:.2f} "
                        f"of {on_demand.price.date}",
                    )
                )
        for tier in HOURLY_TIERS:
            providers = sorted({p.provider for p in part_prices if p.tier == tier})
            if len(providers) == 1:
                found.append(
                    PriceAnomaly(
                        part,
                        tier,
                        "one provider",
                        f"every {tier} price is {providers[0]}'s: no other provider to compare",
                    )
                )
    return found
