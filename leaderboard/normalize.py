"""Pure arithmetic of the leaderboard: chips, chip-hours, the price in force, cost per tier,
the olympic mean and ranks. No I/O; every function is table-tested.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from leaderboard.catalog import Accelerator, Price
from leaderboard.families import FAMILIES, verifiable_kinds

TIERS = ("on-demand", "spot", "1-year", "3-year", "purchase")
DEFAULT_TIER = "on-demand"
# What results are ranked by within round x benchmark x division, per round kind (families.py
# says why). The database's rank and the site's boards both read it from here.
RANK_METRIC = {kind: f.rank_metric for kind, f in FAMILIES.items()}
# Weak-scaling benchmarks (MLPerf HPC's <benchmark>-weak: many models trained at once) rank on
# boards of their own by throughput, the most models per minute first.
WEAK_SCALING_METRIC = "models_per_minute"
HIGHER_IS_BETTER = frozenset({WEAK_SCALING_METRIC})
# Round kinds whose results are scored from published logs and verifiable against the
# importer's manifest (catalog/verified/): MLPerf's.
MLPERF_KINDS = frozenset(verifiable_kinds())


def rank_metric(kind: str, scaling: str | None = "strong") -> str:
    """What a board of this round kind and benchmark scaling ranks by."""
    return WEAK_SCALING_METRIC if scaling == "weak" else RANK_METRIC.get(kind, "minutes")


def metric_ranks(values: Sequence[float | None], metric: str) -> list[int | None]:
    """competition_ranks, the largest value first for a metric where more is better."""
    if metric in HIGHER_IS_BETTER:
        values = [None if v is None else -v for v in values]
    return competition_ranks(values)


PURCHASE_NOTE = "purchase price of the chips used (capital cost, not amortized over a run)"


def slug(text: str) -> str:
    """Lower-case, every run of characters other than a-z and 0-9 turned into one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def chips(count: float, unit: str, accelerator: Accelerator) -> float:
    """How many chips `count` accelerators counted in `unit` are."""
    if unit == "chip":
        return float(count)
    if unit == "device":
        return count * accelerator.chips_per_device
    if unit == "core":
        if not accelerator.cores_per_chip:
            raise ValueError(f"{accelerator.id} is not counted in cores")
        return count / accelerator.cores_per_chip
    raise ValueError(f"unknown unit {unit!r}")


def chip_hours(chip_count: float, minutes: float) -> float:
    return chip_count * minutes / 60.0


def usd_per_chip_hour(price: Price, accelerator: Accelerator) -> float | None:
    """An hourly price converted to one chip-hour; None for a purchase price (per chip)."""
    if price.unit == "chip-hour":
        return price.usd
    if price.unit == "device-hour":
        return price.usd / accelerator.chips_per_device
    if price.unit == "core-hour":
        return price.usd * (accelerator.cores_per_chip or math.nan)
    return None


@dataclass(frozen=True)
class PriceChoice:
    price: Price
    per_chip_hour: float | None  # None for purchase
    later_than_result: bool  # no price was dated on or before the result: the earliest later one
    days_after: int | None = None  # days from the date priced to the price's date, when later_than_result


def days_between(earlier: str, later: str) -> int:
    """Days from one 'YYYY-MM-DD' date to another."""
    return (dt.date.fromisoformat(later) - dt.date.fromisoformat(earlier)).days


def price_in_force(prices: Iterable[Price], accelerator: Accelerator, tier: str, date: str) -> PriceChoice | None:
    """The price for `tier` in force on `date`.

    In force: per provider, its latest price dated on or before `date` (the lowest, when it
    quoted several that day); among providers, the lowest. When no provider has one, the
    earliest price dated after `date` (the lowest that day), flagged with the gap in days: the
    closest in time, not a cheaper one from years later. Remaining ties (one amount twice) go to
    the provider, then the price_id, first in order, so exactly one price is ever chosen; the
    database's costs_at macro (costs_at.py) follows the same rule in SQL.
    """
    candidates = [p for p in prices if p.accelerator == accelerator.id and p.tier == tier]
    if not candidates:
        return None
    latest: dict[str, Price] = {}
    for price in candidates:
        if price.date <= date:
            held = latest.get(price.provider)
            if held is None or _newer_or_lower(price, held):
                latest[price.provider] = price
    if latest:
        choices = [PriceChoice(p, usd_per_chip_hour(p, accelerator), False) for p in latest.values()]
    else:
        first_date = min(p.date for p in candidates)
        days = days_between(date, first_date)
        choices = [
            PriceChoice(p, usd_per_chip_hour(p, accelerator), True, days) for p in candidates if p.date == first_date
        ]
    return min(choices, key=lambda c: (_unit_amount(c), c.price.provider, c.price.price_id))


def _newer_or_lower(price: Price, held: Price) -> bool:
    """One provider's price replaces another of its own: dated later, else lower, else first by id."""
    if price.date != held.date:
        return price.date > held.date
    if price.usd != held.usd:
        return price.usd < held.usd
    return price.price_id < held.price_id


def _unit_amount(choice: PriceChoice) -> float:
    return choice.per_chip_hour if choice.per_chip_hour is not None else choice.price.usd


@dataclass(frozen=True)
class Cost:
    """One result's cost for one tier; the field names are the `costs` table's columns."""

    tier: str
    price_id: str | None  # the price used (prices.price_id); None without a price
    provider: str | None
    usd_per_chip_hour: float | None
    cost_usd: float | None
    price_date: str | None
    price_source: str | None
    price_origin: str | None  # 'catalog' (prices.yaml) or 'epoch' (Epoch AI's table); None without a price
    price_after_result: bool | None  # the earliest later price was used; None without a price
    price_after_result_days: int | None  # days from the result to that later price; None otherwise
    price_estimate: bool | None  # the price is an estimate (Price.estimate); None without a price
    cost_missing_reason: str | None  # why cost_usd is None; None when there is a cost


def no_cost(tier: str, reason: str) -> Cost:
    return Cost(tier, None, None, None, None, None, None, None, None, None, None, reason)


def costs(
    prices: Sequence[Price],
    accelerator: Accelerator,
    chip_count: float,
    hours_of_chips: float,
    date: str,
    choose: Callable[[Sequence[Price], Accelerator, str, str], PriceChoice | None] = price_in_force,
) -> list[Cost]:
    """The cost of one result for every tier; a tier without a price gets cost None and a reason.
    `choose` picks the price in force (price_in_force, or a memo of it for many results)."""
    result = []
    for tier in TIERS:
        choice = choose(prices, accelerator, tier, date)
        if choice is None:
            result.append(
                no_cost(tier, accelerator.no_price_reason or f"no {tier} price for {accelerator.name} in the catalog")
            )
            continue
        price = choice.price
        amount = chip_count * price.usd if tier == "purchase" else hours_of_chips * choice.per_chip_hour
        result.append(
            Cost(
                tier=tier,
                price_id=price.price_id,
                provider=price.provider,
                usd_per_chip_hour=choice.per_chip_hour,
                cost_usd=amount,
                price_date=price.date,
                price_source=price.source,
                price_origin=price.source_kind,
                price_after_result=choice.later_than_result,
                price_after_result_days=choice.days_after,
                price_estimate=price.estimate,
                cost_missing_reason=None,
            )
        )
    return result


ESTIMATE_NOTE = "the price is an estimate, not a price anyone quoted"


def cost_note(tier: str, date: str, cost: Mapping[str, Any]) -> str | None:
    """A cost's remarks in words, as the site shows them: why it is missing; else that its price
    is dated after the result (`date`) and by how many days, that it is an estimate, and what a
    purchase cost is."""
    if cost["cost_usd"] is None:
        return cost["cost_missing_reason"]
    notes = []
    if cost["price_after_result"]:
        days = cost.get("price_after_result_days")
        gap = f", {days} days after the result" if days is not None else ""
        notes.append(
            f"no price dated on or before {date}: the earliest later price ({cost['price_date']}{gap}) is used"
        )
    if cost.get("price_estimate"):
        notes.append(ESTIMATE_NOTE)
    if tier == "purchase":
        notes.append(PURCHASE_NOTE)
    return "; ".join(notes) or None


def cost_marks(cost: Mapping[str, Any]) -> list[str]:
    """The short marks a cost carries wherever it is shown (tables, tooltips, feeds): the gap when
    its price is dated after the result, 'estimated price' when the price is an estimate."""
    if cost.get("cost_usd") is None:
        return []
    marks = []
    if cost.get("price_after_result"):
        days = cost.get("price_after_result_days")
        marks.append(f"price dated {days} days later" if days is not None else "price dated later")
    if cost.get("price_estimate"):
        marks.append("estimated price")
    return marks


def olympic_mean(minutes: Sequence[float | None], drop_fastest: int, drop_slowest: int) -> float | None:
    """Mean after dropping the fastest and slowest runs; a failed run (None) takes the place of
    one of the slowest.

    None when failed runs outnumber the slowest runs that may be dropped.
    """
    if sum(m is None for m in minutes) > drop_slowest:
        return None
    drops = dropped_runs(minutes, drop_fastest, drop_slowest)
    kept = [m for m, drop in zip(minutes, drops, strict=True) if drop is None]
    if not kept:
        return None
    return sum(sorted(kept)) / len(kept)  # summed fastest first, as MLPerf's scoring does


def dropped_runs(minutes: Sequence[float | None], drop_fastest: int, drop_slowest: int) -> list[str | None]:
    """Per run, in run order, why the olympic mean leaves it out: "failed" (a failed run, None,
    takes the place of one of the slowest), "fastest" or "slowest"; None when it counts. Of equal
    times, the earlier run counts as faster."""
    order = sorted(range(len(minutes)), key=lambda i: (math.inf if minutes[i] is None else minutes[i], i))
    drops: list[str | None] = [None] * len(minutes)
    for position, index in enumerate(order):
        if minutes[index] is None:
            drops[index] = "failed"
        elif position < drop_fastest:
            drops[index] = "fastest"
        elif position >= len(order) - drop_slowest:
            drops[index] = "slowest"
    return drops


def worst_counted_quality(
    qualities: Sequence[float | None], drops: Sequence[str | None], direction: str
) -> float | None:
    """The worst quality among the runs the olympic mean counts (drop None), in the metric's
    direction: every counted run reached at least that. None when no counted run has one."""
    counted = [q for q, drop in zip(qualities, drops, strict=True) if drop is None and q is not None]
    if not counted:
        return None
    return min(counted) if direction == "higher" else max(counted)


def competition_ranks(values: Sequence[float | None]) -> list[int | None]:
    """1 for the smallest value, ties share a rank ("1224"); None values get no rank."""
    ranked = sorted((v, i) for i, v in enumerate(values) if v is not None)
    ranks: list[int | None] = [None] * len(values)
    previous, previous_rank = None, 0
    for position, (value, index) in enumerate(ranked, start=1):
        if value != previous:
            previous, previous_rank = value, position
        ranks[index] = previous_rank
    return ranks


def reaches_target(quality: float, target: float, direction: str, log_scale: float = 1.0) -> bool:
    """quality is at the target or beyond it in the metric's direction. A quality logged in
    single precision that equals the target in single precision reaches it (v0.5 GNMT logs BLEU
    21.799999237060547, which is float32(21.8)); both are compared as logged (`log_scale`: see
    to_logged), where that single precision applies."""
    if log_scale != 1.0:
        quality, target = to_logged(quality, log_scale), to_logged(target, log_scale)
    if quality == _single(target):
        return True
    return quality >= target if direction == "higher" else quality <= target


def to_logged(value: float, log_scale: float) -> float:
    """A value on the benchmark's one scale as a round's logs write it: times `log_scale` (the
    catalog's, 100 for BLEU logged 0-100 in v0.5 and v0.6). Decimal arithmetic on the shortest
    repr, so 0.218 becomes 21.8 and back exactly, not 21.799999999999997."""
    if log_scale == 1.0:
        return value
    return float(Decimal(repr(value)) * Decimal(repr(log_scale)))


def from_logged(value: float, log_scale: float) -> float:
    """A logged value on the benchmark's one scale: divided by `log_scale` (see to_logged)."""
    if log_scale == 1.0:
        return value
    return float(Decimal(repr(value)) / Decimal(repr(log_scale)))


def _single(value: float) -> float:
    """`value` rounded to single precision (float32), as many frameworks log their metrics."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return value
