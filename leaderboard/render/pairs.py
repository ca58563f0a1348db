"""Which two results the accelerator compare page puts side by side for one benchmark lineage:
like with like first (same benchmark, same or nearest chip count, nearest rounds). Pure functions.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass

import orjson


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


# A result pick() may choose: the row, its trust(), 0 when comparable() else 1, its round's day.
Side = tuple[dict, int, int, int]


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


def candidates(rows: Iterable[dict], round_dates: dict[str, str]) -> list[Side]:
    """The results pick() may choose among (see _candidates), each with what ordering the pairs
    needs worked out once, not once a pair."""
    return [
        (row, trust(row), 0 if comparable(row) else 1, dt.date.fromisoformat(round_dates[row["round"]]).toordinal())
        for row in _candidates(rows)
    ]


def side_key(side: list[Side]) -> str:
    """Everything pick_among() reads of a side's candidates, hashed: two sides with the same keys
    give the same pair, so a pair once chosen is known by its sides' keys (history.accelerator_pairs).
    80 bits: a rebuild's few thousand sides never meet a collision."""
    read = [(row["id"], row["segment"], row["chips"], row["minutes"], *rest) for row, *rest in side]
    return hashlib.blake2b(orjson.dumps(read), digest_size=10).hexdigest()


def pick(rows_a: list[dict], rows_b: list[dict], round_dates: dict[str, str]) -> Pair | None:
    """The pair to compare, the first of these that decides: both as trusted as they can be
    (see trust), the same benchmark and quality target, both closed-division and available,
    the same or nearest chip count, the nearest rounds, the newest, the larger scale, the
    fastest. None when a side has no result."""
    return pick_among(candidates(rows_a, round_dates), candidates(rows_b, round_dates))


def pick_among(side_a: list[Side], side_b: list[Side]) -> Pair | None:
    """pick() for two sides' candidates(). A pair is ordered by a tuple whose first three items
    (trust, benchmark, division and availability) are worked out first: a pair that loses on them
    is passed over without the rest (most pairs of a lineage's hundreds)."""
    best = None
    best_head = None
    for a, trust_a, far_a, day_a in side_a:
        segment_a, chips_a = a["segment"], a["chips"]
        for b, trust_b, far_b, day_b in side_b:
            head = (trust_a + trust_b, 0 if segment_a == b["segment"] else 1, far_a + far_b)
            if best_head is not None and head > best_head:
                continue
            order = (
                *head,
                chip_distance(chips_a, b["chips"]),
                abs(day_a - day_b),
                -max(day_a, day_b),  # the newest
                -min(chips_a, b["chips"]),
                a["minutes"] + b["minutes"],
                a["id"],
                b["id"],
            )
            if best is None or order < best[0]:
                best, best_head = (order, a, b), head
    return None if best is None else Pair(best[1], best[2])
