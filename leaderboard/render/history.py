"""Pages across rounds: the "Across rounds" index, one page per benchmark lineage, one per
accelerator vendor line, and the two-accelerator compare page with its data file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

import orjson

from leaderboard.families import family
from leaderboard.normalize import WEAK_SCALING_METRIC
from leaderboard.render import lineage_charts, lineages, pairs
from leaderboard.render.lineages import Lineage
from leaderboard.render.writer import SiteWriter

ACCELERATOR_DATA = "data/accelerator-results.js"
# What accelerator_pairs() chooses a pair by (pairs.py): the fields of a result it reads.
PAIR_FIELDS = (
    "id",
    "lineage",
    "segment",
    "accelerator",
    "round",
    "chips",
    "minutes",
    "ranked",
    "verified",
    "division",
    "availability",
)
# Under which the pairs chosen are carried from build to build (accelerator_pairs' chosen_before).
PAIR_CHOICES = "accelerator-pair-choices"
NON_ASCII = re.compile(r"[^\x00-\x7f]")
# A vendor line's generation charts: chart name suffix -> (family, metric).
GENERATION_CHARTS = {
    "": ("mlperf-training", "minutes"),
    "--hpc": ("mlperf-hpc", "minutes"),
    "--hpc-weak": ("mlperf-hpc", WEAK_SCALING_METRIC),
}


def write_pages(site: SiteWriter) -> None:
    data = site.data
    found = lineages.lineages(data)
    lines = lineages.vendor_lines(data)
    rounds = {r["id"]: r for r in data.rounds}
    round_names = {r["id"]: r["name"] for r in data.rounds}
    mlperf_rounds = sorted((r for r in data.rounds if family(r["kind"]).lineages), key=lambda r: r["date"])
    if not found:
        return
    site.page(
        "history.html",
        "history.html",
        lineages=found,
        lines=lines,
        first_round=mlperf_rounds[0],
        last_round=mlperf_rounds[-1],
    )
    for lineage in found:
        _lineage_page(site, lineage, round_names)
    for line in lines:
        items = lineages.generations(line, found)
        stem = f"generations--{line.slug}"
        charts = site.chart_specs(
            stem, [stem, line, items, rounds], partial(_generation_charts, stem, line, items, rounds)
        )
        site.page(
            line.path,
            "generations.html",
            line=line,
            items=items,
            charts=[site.chart(c) for c in charts],
            round_names=round_names,
            cpu_parts=[a["name"] for a in line.accelerators if a["processor"]],  # results count processors
        )

    def remembered_pairs(lineage_ids: list[str], results: list[dict], rounds: dict[str, dict]) -> dict:
        # Chosen again only when what they are chosen by changes (not a result's framework, say);
        # then only the pairs whose sides changed (a result's trust, say), the rest as chosen before.
        inputs = [
            lineage_ids,
            [[r[k] for k in PAIR_FIELDS] for r in results],
            {k: r["date"] for k, r in rounds.items()},
        ]
        before = site.carried(PAIR_CHOICES)
        chosen: dict = {}
        found = site.remembered(
            "accelerator-pairs", inputs, partial(accelerator_pairs, lineage_ids, results, rounds, before, chosen)
        )
        if chosen:
            site.carry(PAIR_CHOICES, chosen)
        return found

    # Written when the data changes.
    site.derived(ACCELERATOR_DATA, accelerator_text, payload=accelerator_data(found, rounds, remembered_pairs))
    site.page(
        "compare-accelerators.html",
        "compare_accelerators.html",
        accelerators=sorted(
            (a for line in lines for a in line.accelerators), key=lambda a: (a["vendor"].casefold(), a["name"])
        ),
        data_file=ACCELERATOR_DATA,
    )


def _generation_charts(stem: str, line, items: list[dict], rounds: dict[str, dict]) -> list:
    """A vendor line's charts: one per family and metric (MLPerf Training and MLPerf HPC never
    share one)."""
    charts = [
        lineage_charts.generations_chart(f"{stem}{suffix}", line, items, rounds, "../", *on)
        for suffix, on in GENERATION_CHARTS.items()
    ]
    return [c for c in charts if c]


def _lineage_page(site: SiteWriter, lineage: Lineage, round_names: dict[str, str]) -> None:
    progress = lineages.progress(lineage)
    name = f"lineage--{lineage.id}"
    charts = site.chart_specs(
        name,
        [name, lineage, progress, lineages.SCALES],
        lambda: [c for c in [lineage_charts.minutes_over_time(name, lineage, progress, lineages.SCALES, "../")] if c],
    )
    site.page(
        lineage.path,
        "lineage.html",
        lineage=lineage,
        progress=progress,
        scales=lineages.SCALES,
        fixed_scales=lineages.FIXED_SCALES,
        per_accelerator=lineages.best_per_accelerator(lineage),
        charts=[site.chart(c) for c in charts],
        round_names=round_names,
    )


def accelerator_script(found: list[Lineage], rounds: dict[str, dict]) -> str:
    """Every MLPerf result timed to train one model (training and strong-scaling HPC), compact, for
    the compare page's script: it picks per benchmark the results of two accelerators to put side
    by side (a <script>, as fetch() fails on file://)."""
    return accelerator_text(accelerator_data(found, rounds))


def accelerator_text(payload: dict) -> str:
    """The compare page's script of accelerator_data()'s `payload`: JSON, ASCII only, no '<'."""
    text = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).decode()
    if not text.isascii():
        text = NON_ASCII.sub(_escaped, text)
    text = text.replace("<", "\\u003c")
    return f"window.leaderboardAccelerators = {text};\n"


def _escaped(match: re.Match) -> str:
    """A character outside ASCII as JSON escapes it (json.dumps(ensure_ascii=True)): beyond the
    Basic Multilingual Plane, as two UTF-16 surrogates."""
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def accelerator_data(
    found: list[Lineage], rounds: dict[str, dict], chosen: Callable[[list[str], list[dict], dict], dict] | None = None
) -> dict:
    """What accelerator_script() writes; its pairs are `chosen(lineage ids, results, rounds)`
    (default: accelerator_pairs)."""
    benchmarks = {}
    results = []
    # weak scaling: models trained at once are compared on their own boards
    found = [lineage for lineage in found if lineage.metric == "minutes"]
    for lineage in found:
        for segment in lineage.segments:
            benchmarks[segment.key] = {
                "lineage": lineage.id,
                "lineage_title": lineage.title,
                "label": segment.label,
                "reference_model": segment.benchmark.get("reference_model"),
            }
        for row in lineage.rows:
            if row.get("republished_from"):
                continue  # a result published again is compared as its first publication
            results.append(
                {
                    "id": row["entry_id"],
                    "path": row["path"],
                    "lineage": lineage.id,
                    "segment": lineages.segment_of(row),
                    "benchmark_name": next(b["name"] for b in lineage.benchmarks if b["id"] == row["benchmark"]),
                    "quality_target": row["quality_target"],
                    "round": row["round"],
                    "accelerator": row["accelerator"],
                    "division": row["division"],
                    "availability": row["availability"],
                    "submitter": row["submitter"],
                    "system": row["system"],
                    "framework": row["framework"],
                    "chips": row["chips"],
                    "cpu_only": row["cpu_only"],  # processors counted as the chips: "512 CPUs"
                    "minutes": row["minutes"],
                    "chip_hours": row["chip_hours"],
                    "cost": row["cost_usd"],
                    "cost_mark": "; ".join(row["costs"]["on-demand"].get("marks") or []),
                    # Why there is no cost (the part's no_price_reason), as the boards give it.
                    "cost_note": row["cost_missing_reason"],
                    "model": row["model_name"],
                    "verified": bool(row["verified"]),
                    "ranked": bool(row.get("ranked", True)),
                }
            )
    results.sort(key=lambda r: r["id"])
    payload = {
        "rounds": {k: {"name": r["name"], "date": r["date"]} for k, r in rounds.items() if family(r["kind"]).lineages},
        "lineages": [{"id": lineage.id, "title": lineage.title} for lineage in found],
        "segments": benchmarks,
        "results": results,
        "pairs": (chosen or accelerator_pairs)([lineage.id for lineage in found], results, rounds),
    }
    return payload


def accelerator_pairs(
    lineage_ids: list[str],
    results: list[dict],
    rounds: dict[str, dict],
    chosen_before: dict[str, list[str] | None] | None = None,
    chosen: dict[str, list[str] | None] | None = None,
) -> dict[str, list[list[int]]]:
    """For every two accelerators ("<a> <b>", ids in order) that ran a lineage each: per such
    lineage [its index in `lineage_ids`, index of a's result, index of b's result] in `results`, the pair
    pairs.pick chooses. Chosen here, once, so the page and the tests agree on what is compared.

    `chosen_before`: pairs a build chose, by their sides' keys (pairs.side_key): "<key a> <key b>"
    -> the two results' ids, or None for no pair; a pair whose sides are as they were is taken
    from there, not chosen again (a rebuild's changed result changes a few of the thousands).
    Every pair of this call is put in `chosen` the same way."""
    dates = {k: r["date"] for k, r in rounds.items()}
    index = {r["id"]: i for i, r in enumerate(results)}
    before = chosen_before or {}
    by_lineage: dict[str, dict[str, list[dict]]] = {}
    for row in results:
        if row["segment"] is not None:
            by_lineage.setdefault(row["lineage"], {}).setdefault(row["accelerator"], []).append(row)
    found_pairs: dict[str, list[list[int]]] = {}
    for number, lineage_id in enumerate(lineage_ids):
        sides = {name: pairs.candidates(rows, dates) for name, rows in by_lineage.get(lineage_id, {}).items()}
        keys = {name: pairs.side_key(side) for name, side in sides.items()}
        names = sorted(sides)
        for i, first in enumerate(names):
            for second in names[i + 1 :]:
                key = f"{keys[first]} {keys[second]}"
                ids = before.get(key, False)
                if not (ids is None or _known_pair(ids, index)):
                    pair = pairs.pick_among(sides[first], sides[second])
                    ids = None if pair is None else [pair.a["id"], pair.b["id"]]
                if chosen is not None:
                    chosen[key] = ids
                if ids is not None:
                    found_pairs.setdefault(f"{first} {second}", []).append([number, index[ids[0]], index[ids[1]]])
    return dict(sorted(found_pairs.items()))


def _known_pair(ids: object, index: dict[str, int]) -> bool:
    """Whether a pair chosen before names two of the results (a pair's sides' keys hash their ids)."""
    return isinstance(ids, list) and len(ids) == 2 and all(isinstance(i, str) and i in index for i in ids)
