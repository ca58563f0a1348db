"""Which two results the accelerator compare page puts side by side for one benchmark lineage:
like with like first (same benchmark, same or nearest chip count, nearest rounds). Pure functions.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    """The two results compared (first accelerator, second) and how far from like for like."""

    a: dict
    b: dict

    @property
    def same_benchmark(self) -> bool:
        return self.a["segment"] == self.b["segment"]

    @property
    def same_scale(self) -> bool:
        return self.a["chips"] == self.b["chips"]

    @property
    def same_round(self) -> bool:
        return self.a["round"] == self.b["round"]


def trust(row: dict) -> int:
    """0 for a ranked, verified result (a self-reported one beside verified ones is never
    ranked, so never compared ahead of them); 1 or 2 otherwise."""
    return (0 if row.get("ranked", True) else 1) + (0 if row["verified"] else 1)


def comparable(row: dict) -> bool:
    """Closed division (the reference model and rules) on an available system (one can buy it)."""
    return row["division"] == "closed" and row["availability"] == "available"


def chip_distance(a: float, b: float) -> float:
    """How far apart two scales are, as a ratio: 8 and 16 chips are as far as 64 and 128."""
    return abs(math.log2(a / b)) if a > 0 and b > 0 else math.inf


def days_apart(a: str, b: str) -> int:
    return abs((dt.date.fromisoformat(a) - dt.date.fromisoformat(b)).days)


def _candidates(rows: Iterable[dict]) -> list[dict]:
    """The fastest result per (trust, benchmark target, round, chips): only it can be chosen, so
    the pairs tried stay few for accelerators with hundreds of results."""
    best: dict[tuple, dict] = {}
    for row in rows:
        key = (trust(row), comparable(row), row["segment"], row["round"], row["chips"])
        held = best.get(key)
        if held is None or (row["minutes"], row["id"]) < (held["minutes"], held["id"]):
            best[key] = row
    return list(best.values())


def pick(rows_a: list[dict], rows_b: list[dict], round_dates: dict[str, str]) -> Pair | None:
    """The pair to compare, the first of these that decides: both as trusted as they can be
    (see trust), the same benchmark and quality target, both closed-division and available,
    the same or nearest chip count, the nearest rounds, the newest, the larger scale, the
    fastest. None when a side has no result."""

    def order(pair: tuple[dict, dict]) -> tuple:
        a, b = pair
        newest = max(round_dates[a["round"]], round_dates[b["round"]])
        return (
            trust(a) + trust(b),
            0 if a["segment"] == b["segment"] else 1,
            (0 if comparable(a) else 1) + (0 if comparable(b) else 1),
            chip_distance(a["chips"], b["chips"]),
            days_apart(round_dates[a["round"]], round_dates[b["round"]]),
            -dt.date.fromisoformat(newest).toordinal(),
            -min(a["chips"], b["chips"]),
            a["minutes"] + b["minutes"],
            a["id"],
            b["id"],
        )

    pairs = [(a, b) for a in _candidates(rows_a) for b in _candidates(rows_b)]
    if not pairs:
        return None
    a, b = min(pairs, key=order)
    return Pair(a, b)
