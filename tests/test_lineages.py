"""Across rounds, as pure functions: lineages and their segments, the best per round and scale,
the best per accelerator, vendor lines and the scale their generations are compared at."""

from __future__ import annotations

import pytest

from leaderboard.render import lineages
from leaderboard.render.model import SiteData

ROUNDS = [
    {"id": "r1", "name": "Round 1", "kind": "mlperf-training", "date": "2019-01-01"},
    {"id": "r2", "name": "Round 2", "kind": "mlperf-training", "date": "2020-01-01"},
    {"id": "r3", "name": "Round 3", "kind": "mlperf-training", "date": "2021-01-01"},
    {"id": "pub", "name": "Published", "kind": "published", "date": "2022-01-01"},
]
BENCHMARKS = {
    "ssd": {"id": "ssd", "name": "SSD", "kind": "mlperf-training", "task": "detection", "replaces": None},
    "retinanet": {
        "id": "retinanet",
        "name": "RetinaNet",
        "kind": "mlperf-training",
        "task": "detection",
        "replaces": "ssd",
    },
    "resnet": {"id": "resnet", "name": "ResNet-50", "kind": "mlperf-training", "task": "images", "replaces": None},
    "language": {"id": "language", "name": "Language", "kind": "published", "task": "text", "replaces": None},
}
ACCELERATORS = {
    "v100": {"id": "v100", "name": "V100", "vendor": "NVIDIA", "release_date": "2017-06-21"},
    "a100": {"id": "a100", "name": "A100", "vendor": "NVIDIA", "release_date": "2020-05-14"},
    "h100": {"id": "h100", "name": "H100", "vendor": "NVIDIA", "release_date": None},
    "tpu": {"id": "tpu", "name": "TPU v3", "vendor": "Google", "release_date": "2018-05-18"},
}


def result(
    entry_id, round_, benchmark, accelerator, chips, minutes, target=0.5, division="closed", availability="available"
):
    return {
        "entry_id": entry_id,
        "round": round_,
        "round_kind": "published" if round_ == "pub" else "mlperf-training",
        "benchmark": benchmark,
        "accelerator": accelerator,
        "accelerator_name": ACCELERATORS[accelerator]["name"],
        "chips": chips,
        "minutes": minutes,
        "chip_hours": chips * minutes / 60,
        "quality_target": None if round_ == "pub" else target,
        "division": division,
        "availability": availability,
        "date": next(r["date"] for r in ROUNDS if r["id"] == round_),
    }


RESULTS = [
    result("r1/ssd-v100-8", "r1", "ssd", "v100", 8, 50.0, target=0.21),
    result("r2/ssd-v100-8", "r2", "ssd", "v100", 8, 40.0, target=0.23),  # target changed: new segment
    result("r2/ssd-a100-8", "r2", "ssd", "a100", 8, 20.0, target=0.23),
    result("r2/ssd-a100-64", "r2", "ssd", "a100", 64, 4.0, target=0.23),
    result("r2/ssd-a100-64-open", "r2", "ssd", "a100", 64, 1.0, target=0.23, division="open"),
    result("r2/ssd-v100-8-preview", "r2", "ssd", "v100", 8, 3.0, target=0.23, availability="preview"),
    result("r3/retinanet-a100-8", "r3", "retinanet", "a100", 8, 30.0, target=0.34),
    result("r3/retinanet-h100-8", "r3", "retinanet", "h100", 8, 15.0, target=0.34),
    result("r3/retinanet-h100-512", "r3", "retinanet", "h100", 512, 1.0, target=0.34),
    result("r3/retinanet-tpu-8", "r3", "retinanet", "tpu", 8, 25.0, target=0.34),
    result("r1/resnet-tpu-8", "r1", "resnet", "tpu", 8, 60.0, target=0.75),
    result("pub/run", "pub", "language", "tpu", 1024, 9000.0),
]


@pytest.fixture
def data():
    return SiteData(ROUNDS, BENCHMARKS, ACCELERATORS, [], RESULTS, [], [], None)


def test_a_lineage_joins_a_benchmark_and_the_one_it_replaced_and_leaves_published_runs_out(data):
    found = lineages.lineages(data)
    # In order of the first round, then id.
    assert [(lineage.id, lineage.title) for lineage in found] == [("resnet", "ResNet-50"), ("ssd", "SSD → RetinaNet")]
    ssd = found[1]
    assert ssd.path == "benchmarks/ssd.html"
    assert [s.key for s in ssd.segments] == ["ssd@0.21", "ssd@0.23", "retinanet@0.34"]
    assert [[r["id"] for r in s.rounds] for s in ssd.segments] == [["r1"], ["r2"], ["r3"]]
    assert all(row["round_kind"] == "mlperf-training" for lineage in found for row in lineage.rows)


@pytest.mark.parametrize(
    "segment, round_, scale, expected",
    [
        ("ssd@0.23", "r2", "best", "r2/ssd-a100-64"),  # the open and preview results are never the best
        ("ssd@0.23", "r2", "8 chips", "r2/ssd-a100-8"),
        ("ssd@0.23", "r2", "64 chips", "r2/ssd-a100-64"),
        ("ssd@0.23", "r2", "512 chips", None),
        ("ssd@0.23", "r2", "largest", "r2/ssd-a100-64"),
        ("ssd@0.21", "r1", "best", "r1/ssd-v100-8"),
        ("retinanet@0.34", "r3", "8 chips", "r3/retinanet-h100-8"),
        ("retinanet@0.34", "r3", "largest", "r3/retinanet-h100-512"),
    ],
)
def test_progress_gives_the_best_comparable_result_per_round_and_scale(data, segment, round_, scale, expected):
    ssd = lineages.lineages(data)[1]
    [item] = [i for i in lineages.progress(ssd) if i["segment"].key == segment and i["round"]["id"] == round_]
    row = item["cells"][scale]
    assert (row["entry_id"] if row else None) == expected


def test_best_per_accelerator_is_the_fewest_chip_hours_per_segment_newest_first(data):
    groups = lineages.best_per_accelerator(lineages.lineages(data)[1])
    assert [g["segment"].key for g in groups] == ["retinanet@0.34", "ssd@0.23", "ssd@0.21"]
    # Chip-hours: H100 at 8 chips 2.0 (its 512-chip result takes 8.5), TPU v3 3.3, A100 4.0.
    assert [r["entry_id"] for r in groups[0]["rows"]] == [
        "r3/retinanet-h100-8",
        "r3/retinanet-tpu-8",
        "r3/retinanet-a100-8",
    ]
    assert [r["entry_id"] for r in groups[1]["rows"]] == ["r2/ssd-a100-8", "r2/ssd-v100-8"]


def test_vendor_lines_follow_release_dates_else_the_first_result(data):
    lines = lineages.vendor_lines(data)
    assert [(line.vendor, [a["id"] for a in line.accelerators]) for line in lines] == [
        ("Google", ["tpu"]),
        ("NVIDIA", ["v100", "a100", "h100"]),  # H100 has no release date: its first result, 2021
    ]
    assert lines[1].path == "generations/nvidia.html"


@pytest.mark.parametrize(
    "chips_by_accelerator, expected",
    [
        ({"a": [8, 64], "b": [8], "c": [64, 8]}, 8),
        ({"a": [8, 64], "b": [64], "c": [16]}, 64),
        ({"a": [16], "b": [8]}, 8),  # a tie: the smaller scale
        ({}, None),
    ],
)
def test_comparable_scale_is_the_count_most_accelerators_ran(chips_by_accelerator, expected):
    rows = {a: [{"chips": c} for c in counts] for a, counts in chips_by_accelerator.items()}
    assert lineages.comparable_scale(rows) == expected


def test_generations_time_a_line_at_one_scale_per_segment(data):
    found = lineages.lineages(data)
    nvidia = lineages.vendor_lines(data)[1]
    items = lineages.generations(nvidia, found)
    retinanet = next(i for i in items if i["segment"].key == "retinanet@0.34")
    assert retinanet["scale"] == 8
    assert [
        (r["accelerator"]["id"], r["at_scale"]["entry_id"], r["overall"]["entry_id"]) for r in retinanet["rows"]
    ] == [
        ("a100", "r3/retinanet-a100-8", "r3/retinanet-a100-8"),
        ("h100", "r3/retinanet-h100-8", "r3/retinanet-h100-512"),
    ]
    ssd = next(i for i in items if i["segment"].key == "ssd@0.23")
    # V100's faster preview system is not comparable: its closed, available result stands.
    assert [(r["accelerator"]["id"], r["at_scale"]["entry_id"]) for r in ssd["rows"]] == [
        ("v100", "r2/ssd-v100-8"),
        ("a100", "r2/ssd-a100-8"),
    ]


def weak(entry_id, round_, accelerator, chips, minutes, models):
    row = result(entry_id, "r1", "cosmo-weak", accelerator, chips, minutes)
    return {**row, "round": round_, "round_kind": "mlperf-hpc", "models": models, "models_per_minute": models / minutes}


HPC_ROUNDS = [{"id": "h1", "name": "HPC 1", "kind": "mlperf-hpc", "date": "2021-06-01"}]
WEAK = {"id": "cosmo-weak", "name": "Cosmo (weak)", "kind": "mlperf-hpc", "task": "sim", "scaling": "weak"}


@pytest.mark.parametrize(
    ("rows", "metric", "expected"),
    [
        # fewest minutes; ties broken by the entry id
        ([{"entry_id": "b", "minutes": 2.0}, {"entry_id": "a", "minutes": 2.0}], "minutes", "a"),
        # weak scaling: most models per minute wins, however long the run
        (
            [{"entry_id": "a", "models_per_minute": 1.0}, {"entry_id": "b", "models_per_minute": 4.0}],
            "models_per_minute",
            "b",
        ),
        # a result without the metric is never chosen
        ([{"entry_id": "a", "models_per_minute": None}], "models_per_minute", None),
        ([], "minutes", None),
    ],
)
def test_fastest_is_the_best_by_the_lineage_metric(rows, metric, expected):
    best = lineages.fastest(rows, metric)
    assert (best and best["entry_id"]) == expected


def test_a_weak_scaling_lineage_is_best_by_models_per_minute_and_per_model_chip_hours():
    rows = [
        # four models in 100 minutes on 64 chips beats one model in 10 minutes on 8 chips
        weak("h1/a", "h1", "v100", 8, 10.0, 1),
        weak("h1/b", "h1", "a100", 64, 100.0, 4),
    ]
    data = SiteData(HPC_ROUNDS, {"cosmo-weak": WEAK}, ACCELERATORS, [], rows, [], [], None)
    (found,) = lineages.lineages(data)
    assert (found.kind, found.metric, found.family_label) == ("mlperf-hpc", "models_per_minute", "MLPerf HPC")
    (item,) = lineages.progress(found)
    assert item["cells"]["best"]["entry_id"] == "h1/a"  # 0.1 models/min against 0.04
    # per accelerator: chip-hours per model (1.33 for h1/a, 26.7 for h1/b)
    (group,) = lineages.best_per_accelerator(found)
    assert [r["entry_id"] for r in group["rows"]] == ["h1/a", "h1/b"]
    assert lineages.chip_hours_per_model(rows[1]) == pytest.approx(64 * 100 / 60 / 4)
