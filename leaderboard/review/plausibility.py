"""Whether a new or changed result is plausible: compared per chip with the verified results of its
benchmark and accelerator, and with the compute floor of its model (pure functions over rows and the catalog).
Its own inputs (overrides, compute figures) are the merge base's: a pull request cannot vouch for itself.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from leaderboard.catalog import COMPUTE_FILE, OVERRIDES_FILE, Catalog, Override, PeakRate
from leaderboard.families import family

# A result may be at most this much better per chip (fewer chip-hours) than the best verified
# result of its benchmark, accelerator and division at the nearest chip count.
PER_CHIP_LIMIT = 1.5
# Where no database gives a benchmark's training compute, it is derived from the verified results:
# the smallest peak FLOP x chip-seconds any of them needed, divided by this margin (a newer round or
# FP8 training has needed up to about half of what the best earlier verified result did).
FLOOR_MARGIN = 2.0
OVERRIDES = "catalog/plausibility-overrides.yaml"
COMPUTE = "catalog/compute-epoch.yaml"
# The catalog files the check reads from the merge base, never from the pull request (trusted_catalog).
TRUSTED_FILES = ("accelerators", COMPUTE_FILE, OVERRIDES_FILE)
# Why an override or compute figure that a pull request adds waits: the check trusts the base branch's.
NOT_YET = (
    "which applies only once a code owner has merged it: a maintainer merges the catalog change "
    "in a pull request of its own first"
)
HINT = (
    f"if the numbers are right, ask for an override: add the entry to {OVERRIDES} with the evidence; "
    "a maintainer (CODEOWNERS) must approve it"
)


@dataclass(frozen=True)
class PerChip:
    """A result's chip-hours beside the best verified result at the nearest chip count."""

    chips: float
    minutes: float
    chip_hours: float
    accelerator: str
    best_entry_id: str
    best_chips: float
    best_minutes: float
    best_chip_hours: float
    compared: int  # verified results at that chip count

    @property
    def ratio(self) -> float:
        """How many times better per chip than the best verified result (above 1: better)."""
        return self.best_chip_hours / self.chip_hours if self.chip_hours > 0 else float("inf")

    @property
    def limit(self) -> float:
        """PER_CHIP_LIMIT at or above the verified scale; below it, a smaller run may be better per
        chip by the square root of the scale between them (4x fewer chips: 2x the limit)."""
        return PER_CHIP_LIMIT * max(1.0, (self.best_chips / self.chips) ** 0.5) if self.chips > 0 else PER_CHIP_LIMIT

    @property
    def implausible(self) -> bool:
        return self.ratio > self.limit

    def describe(self) -> str:
        return (
            f"{self.chips:g} {self.accelerator}, {self.minutes:g} min = {self.chip_hours:.3g} chip-hours; "
            f"best verified on {self.accelerator} at {self.best_chips:g} chips "
            f"(of {self.compared} verified there): {self.best_chip_hours:.3g} chip-hours "
            f"({self.best_entry_id}, {self.best_minutes:g} min): {_times(self.ratio)} "
            f"{'better' if self.ratio >= 1 else 'worse'} per chip; limit {self.limit:.3g}x better"
        )


@dataclass(frozen=True)
class ComputeFloor:
    """The most the chips could compute in the time (peak x chips x seconds) against what the
    training needs at least."""

    peak: PeakRate
    chips: float
    seconds: float
    needed_flop: float
    source: str

    @property
    def available_flop(self) -> float:
        return self.peak.flop_s * self.chips * self.seconds

    @property
    def implausible(self) -> bool:
        return self.available_flop < self.needed_flop

    def describe(self) -> str:
        shortfall = self.needed_flop / self.available_flop if self.available_flop > 0 else float("inf")
        verdict = f"{_times(shortfall)} too little" if self.implausible else "enough"
        return (
            f"peak {_sci(self.peak.flop_s)} FLOP/s ({self.peak.precision}, {self.peak.hardware}) x {self.chips:g} chips "
            f"x {_sci(self.seconds)} s = {_sci(self.available_flop)} FLOP; the training needs at least "
            f"{_sci(self.needed_flop)} FLOP ({self.source}): {verdict}"
        )


@dataclass(frozen=True)
class Verdict:
    """One new or changed result: its comparisons, and the override that lets it through."""

    entry_id: str
    file: str
    per_chip: PerChip | None
    floor: ComputeFloor | None
    override: Override | None = None
    not_compared: tuple[str, ...] = ()  # why a comparison could not be made: shown, never failed
    # What the pull request adds or changes for this result (an override, a compute figure) that the
    # check does not apply: it reads them from the merge base (trusted_catalog).
    not_applied: tuple[str, ...] = ()

    @property
    def findings(self) -> list[str]:
        """What is implausible about the result, each with its comparison."""
        found = []
        if self.per_chip is not None and self.per_chip.implausible:
            found.append(f"implausibly fast per chip: {self.per_chip.describe()}")
        if self.floor is not None and self.floor.implausible:
            found.append(f"below the compute floor: {self.floor.describe()}")
        return found

    @property
    def fails(self) -> bool:
        return bool(self.findings) and self.override is None

    def lines(self) -> list[str]:
        """Every comparison made, failing or not."""
        lines = []
        if self.per_chip is not None:
            lines.append(f"per chip: {self.per_chip.describe()}")
        if self.floor is not None:
            lines.append(f"compute floor: {self.floor.describe()}")
        lines += [f"not compared: {why}" for why in self.not_compared]
        return lines + [f"not applied: {what}" for what in self.not_applied]


def reference_chips(chips: float, verified_chips: Iterable[float]) -> float | None:
    """The verified chip count to compare with: the largest at or below `chips` (chip-hours
    usually grow with scale, so a result may beat a larger-scale one per chip, not a smaller
    one); with none there, the smallest above (a result below every verified scale is compared
    with the nearest). None when there are no verified results."""
    counts = set(verified_chips)
    below = [c for c in counts if c <= chips]
    if below:
        return max(below)
    return min(counts) if counts else None


def per_chip(row: dict, verified: Sequence[dict]) -> PerChip | None:
    """`row` beside the best (fewest chip-hours) of `verified` at the reference chip count;
    `verified` holds the verified results of its benchmark, accelerator and division."""
    others = [v for v in verified if v["entry_id"] != row["entry_id"]]
    scale = reference_chips(row["chips"], (v["chips"] for v in others))
    if scale is None:
        return None
    there = [v for v in others if v["chips"] == scale]
    best = min(there, key=lambda v: (v["chip_hours"], v["entry_id"]))
    return PerChip(
        row["chips"],
        row["minutes"],
        row["chip_hours"],
        row["accelerator"],
        best["entry_id"],
        best["chips"],
        best["minutes"],
        best["chip_hours"],
        len(there),
    )


def peak_flop(row: dict, catalog: Catalog) -> float | None:
    """Peak FLOP x chip-seconds of a result: the most its chips could compute in its time."""
    peak = catalog.peak_flop_s.get(row["accelerator"])
    return None if peak is None else peak.flop_s * row["chips"] * row["minutes"] * 60


def needed_flop(row: dict, verified_of_benchmark: Sequence[dict], catalog: Catalog) -> tuple[float, str] | None:
    """The least compute a result's training needs, and where that figure comes from: derived from
    the verified results of its benchmark where it has any (their smallest peak FLOP x
    chip-seconds / FLOOR_MARGIN), else, for a published run (a model trained as its paper says;
    a DAWNBench entry trains only to the benchmark's target), its model's training compute in the
    catalog."""
    derived = [
        (flop, v["entry_id"])
        for v in verified_of_benchmark
        if v["entry_id"] != row["entry_id"] and (flop := peak_flop(v, catalog)) is not None
    ]
    if derived:
        flop, entry_id = min(derived)
        return flop / FLOOR_MARGIN, (
            f"derived: the smallest peak FLOP x chip-seconds of a verified {row['benchmark']} result, "
            f"{_sci(flop)} ({entry_id}), / {FLOOR_MARGIN:g}"
        )
    if not family(row.get("round_kind", "")).model_runs:
        return None
    known = training_compute_of(row.get("model_name") or "", catalog, _index(catalog))
    if known is not None:
        return known.flop, f"Epoch AI, {known.column} of {known.model!r}"
    return None


def model_key(name: str) -> str:
    """A model's name as names are compared: case, spaces, hyphens and underscores aside (Pythia-12B
    is Epoch's Pythia-12b); a dot stays (Pythia-1.2B is another model)."""
    return "".join(c for c in name.casefold() if c not in " -_")


def loose_key(name: str) -> str:
    """Every sign but a dot aside too: 'GPT3 175B davinci' is 'GPT-3 175B (davinci)'."""
    return "".join(c for c in name.casefold() if c.isalnum() or c == ".")


def key_without_asides(name: str) -> str:
    """The name without what it says in brackets: 'GPT-3 175B' is Epoch's 'GPT-3 175B (davinci)'."""
    return loose_key(re.sub(r"\([^()]*\)|\[[^\[\]]*\]", " ", name))


# From the strictest to the loosest: a name is matched at the first that finds one model only.
MODEL_KEYS = (model_key, loose_key, key_without_asides)


def training_compute_of(name: str, catalog: Catalog, index: list[dict[str, list]] | None = None):
    """The catalog's training compute of the model named `name`: by its exact name, else by the
    one name that compares equal, trying each of MODEL_KEYS in turn; None when there is none,
    or when the strictest key that finds any finds more than one. `index`: _index(catalog),
    when at hand."""
    if name in catalog.training_compute:
        return catalog.training_compute[name]
    if not name:
        return None
    for key, by_key in zip(MODEL_KEYS, index if index is not None else _index(catalog), strict=True):
        alike = by_key.get(key(name), [])
        if alike:
            return alike[0] if len(alike) == 1 else None
    return None


def closest_models(name: str, catalog: Catalog, count: int = 3) -> list[str]:
    """The catalog's model names nearest to `name` (a reviewer sees which one was meant)."""
    by_loose_key = _index(catalog)[MODEL_KEYS.index(loose_key)]
    close = difflib.get_close_matches(loose_key(name), sorted(by_loose_key), n=count, cutoff=0.6)
    return [min(known.model for known in by_loose_key[key]) for key in close]


_INDEXES: dict[int, tuple[dict, list[dict[str, list]]]] = {}  # id -> (the catalog's training_compute, by each key)


def _index(catalog: Catalog) -> list[dict[str, list]]:
    known = catalog.training_compute
    kept = _INDEXES.get(id(known))
    if kept is None or kept[0] is not known:
        indexes: list[dict[str, list]] = [{} for _ in MODEL_KEYS]
        for name, compute in known.items():
            for key, index in zip(MODEL_KEYS, indexes, strict=True):
                index.setdefault(key(name), []).append(compute)
        kept = _INDEXES[id(known)] = (known, indexes)
    return kept[1]


def compute_floor(row: dict, verified_of_benchmark: Sequence[dict], catalog: Catalog) -> ComputeFloor | None:
    peak = catalog.peak_flop_s.get(row["accelerator"])
    needed = needed_flop(row, verified_of_benchmark, catalog)
    if peak is None or needed is None:
        return None
    return ComputeFloor(peak, row["chips"], row["minutes"] * 60, needed[0], needed[1])


def trusted_catalog(catalog: Catalog, base: Catalog) -> Catalog:
    """`catalog` (the pull request's) with the check's own inputs taken from `base` (the merge
    base's): its overrides, its training compute, and its peak FLOP/s of every accelerator it
    has. Only a part the pull request adds is compared with the peak rate the pull request gives
    it (without one it would escape the floor anyway; the catalog's effect lists both)."""
    known = base.accelerators.keys() | base.peak_flop_s.keys()
    peaks = {a: peak for a, peak in catalog.peak_flop_s.items() if a not in known} | base.peak_flop_s
    return replace(
        catalog,
        peak_flop_s=peaks,
        training_compute=base.training_compute,
        plausibility_overrides=base.plausibility_overrides,
    )


def not_applied(
    row: dict, verified_of_benchmark: Sequence[dict], catalog: Catalog, trusted: Catalog
) -> tuple[str, ...]:
    """What `catalog` (the pull request's) says differently from `trusted` about `row`: an
    override, its accelerator's peak FLOP/s, the compute its training needs, each not applied."""
    found = []
    entry_id, accelerator = row["entry_id"], row["accelerator"]
    mine, base = catalog.plausibility_overrides.get(entry_id), trusted.plausibility_overrides.get(entry_id)
    if mine != base:
        # Never its reason or approver: the pull request wrote them, and nobody has approved them yet.
        found.append(f"this pull request {_verb(base, mine)} an override for it in {OVERRIDES}, {NOT_YET}")
    peaks = [c.peak_flop_s.get(accelerator) for c in (trusted, catalog)]
    rates = [None if peak is None else peak.flop_s for peak in peaks]
    if peaks[0] != peaks[1]:
        found.append(
            f"this pull request {_verb(*peaks)} the peak FLOP/s of {accelerator} in {COMPUTE} "
            f"({flop_text(rates[0])} -> {flop_text(rates[1])} FLOP/s), {NOT_YET}"
        )
    needed = [needed_flop(row, verified_of_benchmark, c) for c in (trusted, catalog)]
    flop = [None if n is None else n[0] for n in needed]
    if flop[0] != flop[1]:
        found.append(
            f"this pull request {_verb(*flop)} the compute figure its training is held to in {COMPUTE} "
            f"({flop_text(flop[0])} -> {flop_text(flop[1])} FLOP), {NOT_YET}"
        )
    return tuple(found)


def _verb(before: object, after: object) -> str:
    return "adds" if before is None else "removes" if after is None else "changes"


def flop_text(value: float | None) -> str:
    """A FLOP count or rate as the check prints it ('3.14e23'), 'none' without one."""
    return "none" if value is None else _sci(value)


def check(
    rows: Sequence[dict], entry_ids: Iterable[str], catalog: Catalog, base: Catalog | None = None
) -> list[Verdict]:
    """A verdict for every result of `entry_ids` that is not verified (a verified result is
    recomputed from published logs: it is the evidence the others are compared with). With
    `base`, the merge base's catalog, the check's own inputs come from it (trusted_catalog), and
    what `catalog` says differently of a result is named in its verdict, not applied."""
    trusted = catalog if base is None else trusted_catalog(catalog, base)
    wanted = set(entry_ids)
    by_group: dict[tuple, list[dict]] = {}
    by_benchmark: dict[str, list[dict]] = {}
    for row in rows:
        if row["verified"]:
            by_group.setdefault((row["benchmark"], row["accelerator"], row["division"]), []).append(row)
            by_benchmark.setdefault(row["benchmark"], []).append(row)
    verdicts = []
    for row in rows:
        if row["entry_id"] not in wanted or row["verified"]:
            continue
        group = by_group.get((row["benchmark"], row["accelerator"], row["division"]), [])
        verified_of_benchmark = by_benchmark.get(row["benchmark"], [])
        override = trusted.plausibility_overrides.get(row["entry_id"])
        verdicts.append(
            Verdict(
                row["entry_id"],
                row["file"],
                per_chip(row, group),
                compute_floor(row, verified_of_benchmark, trusted),
                override if override is not None and covers(override, row) else None,
                not_compared(row, group, verified_of_benchmark, trusted),
                (not_applied(row, verified_of_benchmark, catalog, trusted) if base is not None else ())
                + uncovered(row, override),
            )
        )
    return verdicts


def covers(override: Override, row: dict) -> bool:
    """Whether the result `row` gives the numbers `override` was approved for (its approved_for)."""
    return (row["accelerator"], float(row["chips"]), float(row["minutes"])) == override.approved_for


def uncovered(row: dict, override: Override | None) -> tuple[str, ...]:
    """Why an override does not let `row` through: it was approved for other numbers."""
    if override is None or covers(override, row):
        return ()
    accelerator, chips, minutes = override.approved_for
    approved = f"{chips:g} {accelerator} chips in {minutes:g} minutes"
    given = f"{row['chips']:g} {row['accelerator']} chips in {row['minutes']:g} minutes"
    return (
        f"the override in {OVERRIDES} was approved for {approved}, and this result gives "
        f"{given}: it applies again once a code owner approves it for these numbers (its approved_for)",
    )


def not_compared(
    row: dict, group: Sequence[dict], verified_of_benchmark: Sequence[dict], catalog: Catalog
) -> tuple[str, ...]:
    """Why a result escapes a comparison (a reviewer should know what was not checked)."""
    why = []
    if not [v for v in group if v["entry_id"] != row["entry_id"]]:
        why.append(f"no verified {row['benchmark']} result on {row['accelerator']} ({row['division']}) to compare with")
    if row["accelerator"] not in catalog.peak_flop_s:
        why.append(f"no peak FLOP/s for {row['accelerator']} in catalog/compute-epoch.yaml: no compute floor")
    elif needed_flop(row, verified_of_benchmark, catalog) is None:
        model = row.get("model_name")
        if not model:
            why.append(f"no verified {row['benchmark']} result and no model name: no compute floor")
        else:
            close = closest_models(model, catalog)
            nearest = f" (closest in catalog/compute-epoch.yaml: {', '.join(close)})" if close else ""
            why.append(f"no training compute known for model {model!r}{nearest}: no compute floor")
    return tuple(why)


def _times(ratio: float) -> str:
    """'4,368x', '2.5x', '1.05x': enough digits that a ratio just over 1 does not read as 1x."""
    if ratio == float("inf"):
        return "infinitely"
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.3g}x"


def _sci(value: float) -> str:
    """9.894e14, not 9.894e+14: FLOP counts as a reader writes them."""
    return f"{value:.4g}".replace("e+", "e")
