"""Across rounds: benchmark lineages (a benchmark and those it replaced), their segments (one
quality target each: a changed target starts a new line), the best result per round and scale,
and accelerator generations per vendor line. Pure functions over the site's rows; no HTML.

Only the families followed across rounds enter these views (families.lineages: MLPerf Training
and MLPerf HPC; published runs train different models and are never ranked with them), and only
closed-division, available ones where a "best" is chosen. A lineage is "best" by its boards' metric:
minutes, or models per minute for a weak-scaling HPC benchmark.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from leaderboard.families import family
from leaderboard.normalize import HIGHER_IS_BETTER, rank_metric
from leaderboard.render.model import SiteData

# The fixed scales a lineage page follows, besides the best result at any scale and at the
# largest scale of the round: single-node, a few racks, a large cluster.
FIXED_SCALES = (8, 64, 512)
SCALES = ("best", *(f"{n} chips" for n in FIXED_SCALES), "largest")


@dataclass
class Segment:
    """A benchmark under one quality target: results of two segments are never on one line."""

    key: str  # <benchmark id>@<target>
    benchmark: dict
    quality_target: float
    rounds: list[dict] = field(default_factory=list)  # in date order

    @property
    def label(self) -> str:
        return f"{self.benchmark['name']} (target {self.quality_target:g})"


@dataclass
class Lineage:
    """A benchmark and the benchmarks it replaced in MLPerf (SSD -> RetinaNet), oldest first."""

    id: str  # the oldest benchmark's id: a new replacement does not move the page
    task: str
    benchmarks: list[dict]
    segments: list[Segment]
    rows: list[dict]  # every MLPerf result of its benchmarks, any division
    kind: str = "mlperf-training"  # the family (round kind) of its benchmarks
    metric: str = "minutes"  # what "best" means: its boards' rank metric

    @property
    def family_label(self) -> str:
        return family(self.kind).label

    @property
    def path(self) -> str:
        return f"benchmarks/{self.id}.html"

    @property
    def title(self) -> str:
        return " → ".join(b["name"] for b in self.benchmarks)


def comparable(row: dict) -> bool:
    """A result a "best" may be chosen from: closed division (the reference model and rules),
    available (commercially, as MLPerf's availability categories say) and ranked (a self-reported
    result beside verified ones never is, nor a republished one: it ranks where first published)."""
    return row["division"] == "closed" and row["availability"] == "available" and row.get("ranked", True)


def fastest(rows: list[dict], metric: str = "minutes") -> dict | None:
    """The best result by metric: fewest minutes, or most models per minute for a weak-scaling
    benchmark (ties: the entry id), or None."""
    sign = -1 if metric in HIGHER_IS_BETTER else 1
    scored = [r for r in rows if r.get(metric) is not None]
    return min(scored, key=lambda r: (sign * r[metric], r["entry_id"]), default=None)


def chip_hours_per_model(row: dict) -> float | None:
    """Chip-hours per trained model: a weak-scaling result trains `models` at once."""
    if row["chip_hours"] is None:
        return None
    return row["chip_hours"] / (row.get("models") or 1)


def lineages(data: SiteData) -> list[Lineage]:
    """Every lineage of a family followed across rounds that has results, in order of its first
    round. A benchmark is replaced only by one of its own family and scaling."""
    mlperf = {b["id"]: b for b in data.benchmarks.values() if family(b["kind"]).lineages}
    successor = {b["replaces"]: b["id"] for b in mlperf.values() if b.get("replaces") in mlperf}
    rows_of: dict[str, list[dict]] = {}
    for row in data.results:
        if family(row["round_kind"]).lineages:
            rows_of.setdefault(row["benchmark"], []).append(row)
    round_by_id = {r["id"]: r for r in data.rounds}
    found = []
    for benchmark in mlperf.values():
        if benchmark.get("replaces") in mlperf:
            continue  # not the oldest of its line
        chain = [benchmark]
        while chain[-1]["id"] in successor:
            chain.append(mlperf[successor[chain[-1]["id"]]])
        rows = [row for b in chain for row in rows_of.get(b["id"], [])]
        if not rows:
            continue
        segments = _segments(chain, rows, round_by_id)
        if not segments:
            continue  # open-division results only: nothing to follow
        metric = rank_metric(benchmark["kind"], benchmark.get("scaling"))
        found.append(Lineage(benchmark["id"], chain[-1]["task"], chain, segments, rows, benchmark["kind"], metric))
    return sorted(found, key=lambda lineage: (lineage.segments[0].rounds[0]["date"], lineage.id))


def _segments(chain: list[dict], rows: list[dict], round_by_id: dict[str, dict]) -> list[Segment]:
    segments: dict[str, Segment] = {}
    seen: set[tuple[str, str]] = set()
    for row in sorted(rows, key=lambda r: (round_by_id[r["round"]]["date"], r["round"])):
        if row["quality_target"] is None or row["division"] != "closed":
            continue
        benchmark = next(b for b in chain if b["id"] == row["benchmark"])
        key = f"{benchmark['id']}@{row['quality_target']:g}"
        segment = segments.setdefault(key, Segment(key, benchmark, row["quality_target"]))
        if (key, row["round"]) not in seen:
            seen.add((key, row["round"]))
            segment.rounds.append(round_by_id[row["round"]])
    return sorted(segments.values(), key=lambda s: (s.rounds[0]["date"], s.key))


def segment_of(row: dict) -> str | None:
    """The segment key of a result: its benchmark and the closed target it trained to."""
    if row["quality_target"] is None:
        return None
    return f"{row['benchmark']}@{row['quality_target']:g}"


def progress(lineage: Lineage) -> list[dict]:
    """Per segment and round (in date order): the best comparable result overall, at each fixed
    scale, and at the round's largest scale. {"segment", "round", "cells": {scale: row | None}}."""
    found = []
    for segment in lineage.segments:
        for round_ in segment.rounds:
            rows = [
                r for r in lineage.rows if r["round"] == round_["id"] and segment_of(r) == segment.key and comparable(r)
            ]
            if not rows:
                continue
            largest = max(r["chips"] for r in rows)
            metric = lineage.metric
            cells = {"best": fastest(rows, metric)}
            for count in FIXED_SCALES:
                cells[f"{count} chips"] = fastest([r for r in rows if r["chips"] == count], metric)
            cells["largest"] = fastest([r for r in rows if r["chips"] == largest], metric)
            found.append({"segment": segment, "round": round_, "cells": cells})
    return found


def best_per_accelerator(lineage: Lineage) -> list[dict]:
    """Per segment (newest first), per accelerator: its comparable result of fewest chip-hours per
    trained model (chip-hours, but for weak scaling). {"segment", "rows": [row, ...]} in that order."""
    found = []
    for segment in reversed(lineage.segments):
        best: dict[str, dict] = {}
        for row in lineage.rows:
            if segment_of(row) != segment.key or not comparable(row) or row["chip_hours"] is None:
                continue
            held = best.get(row["accelerator"])
            key = (chip_hours_per_model(row), row["entry_id"])
            if held is None or key < (chip_hours_per_model(held), held["entry_id"]):
                best[row["accelerator"]] = row
        if best:
            rows = sorted(best.values(), key=lambda r: (chip_hours_per_model(r), r["entry_id"]))
            found.append({"segment": segment, "rows": rows})
    return found


@dataclass
class VendorLine:
    """One vendor's accelerators in order of release (else of first MLPerf result)."""

    vendor: str
    accelerators: list[dict]  # accelerator rows, plus "first_round_date"

    @property
    def slug(self) -> str:
        from leaderboard.normalize import slug

        return slug(self.vendor) or "unnamed"

    @property
    def path(self) -> str:
        return f"generations/{self.slug}.html"


def vendor_lines(data: SiteData) -> list[VendorLine]:
    first: dict[str, str] = {}
    for row in data.results:
        if family(row["round_kind"]).lineages:
            first[row["accelerator"]] = min(first.get(row["accelerator"], row["date"]), row["date"])
    lines: dict[str, list[dict]] = {}
    for accelerator_id, date in first.items():
        accelerator = data.accelerators[accelerator_id]
        lines.setdefault(accelerator["vendor"], []).append({**accelerator, "first_round_date": date})
    return [
        VendorLine(vendor, sorted(parts, key=lambda a: (a["release_date"] or a["first_round_date"], a["id"])))
        for vendor, parts in sorted(lines.items(), key=lambda kv: kv[0].casefold())
    ]


def comparable_scale(rows_by_accelerator: dict[str, list[dict]]) -> int | None:
    """The chip count most of the accelerators share (ties: the smaller), so each is timed at
    the same scale; None when there are no rows."""
    counts = Counter(chips for rows in rows_by_accelerator.values() for chips in {r["chips"] for r in rows})
    if not counts:
        return None
    return min(counts, key=lambda chips: (-counts[chips], chips))


def generations(line: VendorLine, all_lineages: list[Lineage]) -> list[dict]:
    """Per segment the line's accelerators ran (newest segment first within a lineage): the
    comparable scale, and per accelerator its fastest result at that scale and overall."""
    found = []
    ids = [a["id"] for a in line.accelerators]
    for lineage in all_lineages:
        for segment in reversed(lineage.segments):
            by_accelerator: dict[str, list[dict]] = {}
            for row in lineage.rows:
                if row["accelerator"] in ids and segment_of(row) == segment.key and comparable(row):
                    by_accelerator.setdefault(row["accelerator"], []).append(row)
            if not by_accelerator:
                continue
            scale = comparable_scale(by_accelerator)
            rows = []
            for accelerator in line.accelerators:
                results = by_accelerator.get(accelerator["id"])
                if not results:
                    continue
                rows.append(
                    {
                        "accelerator": accelerator,
                        "at_scale": fastest([r for r in results if r["chips"] == scale], lineage.metric),
                        "overall": fastest(results, lineage.metric),
                    }
                )
            # Systems of processors alone count CPUs (results.cpu_only): a scale of theirs is of CPUs.
            cpus = all(r.get("cpu_only") for results in by_accelerator.values() for r in results)
            found.append(
                {
                    "lineage": lineage,
                    "segment": segment,
                    "scale": scale,
                    "unit": "CPUs" if cpus else "chips",
                    "rows": rows,
                }
            )
    return found
