"""Synthetic but realistic submission files for the benchmark harness, deterministic from a seed.

Valid against the schema and the catalog, spread over rounds, benchmarks, accelerators,
divisions and submitters: `python benchmarks/generate.py N OUT [--seed S]`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from leaderboard.bounds import BEFORE_RELEASE_DAYS  # noqa: E402
from leaderboard.catalog import load_catalog  # noqa: E402
from leaderboard.files import dump_yaml  # noqa: E402
from leaderboard.normalize import olympic_mean, slug  # noqa: E402

SUBMITTERS = [
    "NVIDIA",
    "Google",
    "Intel-HabanaLabs",
    "Graphcore",
    "Azure",
    "Dell",
    "Inspur",
    "Lenovo",
    "Fujitsu",
    "Supermicro",
    "HPE",
    "Baidu",
    "Samsung",
    "GIGABYTE",
    "Acme Labs",
    "Example Cloud",
]
MLPERF_ACCELERATORS = [
    "a100-sxm4-80gb",
    "a100-sxm4-40gb",
    "a100-pcie-80gb",
    "tpu-v4",
    "gaudi",
    "ipu-gc200",
    "v100",
    "h100-sxm5-80gb",
]


EARLIEST = dt.timedelta(days=BEFORE_RELEASE_DAYS)


def generate(n: int, out: Path, seed: int = 1, catalog_dir: Path = ROOT / "catalog") -> list[Path]:
    catalog = load_catalog(catalog_dir)
    rng = random.Random(seed)
    mlperf_rounds = [r for r in catalog.rounds.values() if r.kind == "mlperf-training"]
    published = [b for b in catalog.benchmarks.values() if b.kind == "published"]
    accelerators = [a for a in MLPERF_ACCELERATORS if a in catalog.accelerators]

    def too_early(date: str, accelerator: str) -> bool:
        released = catalog.accelerators[accelerator].release_date
        return bool(released) and dt.date.fromisoformat(released) - dt.date.fromisoformat(date) > EARLIEST

    paths = []
    for i in range(n):
        submitter = rng.choice(SUBMITTERS)
        accelerator = rng.choice(accelerators)
        chips = 2 ** rng.randint(0, 12) * rng.choice([1, 1, 1, 3, 5])
        if rng.random() < 0.8 and mlperf_rounds:
            round_ = rng.choice(mlperf_rounds)
            benchmark = rng.choice([b for b in catalog.benchmarks.values() if round_.id in b.rounds])
            rules = benchmark.rounds[round_.id]
            division = "closed" if rng.random() < 0.85 else "open"
            base = rng.uniform(5, 3000) / chips**0.8 + 0.2
            runs = [round(base * rng.uniform(0.95, 1.08), 3) for _ in range(rules.runs)]
            minutes = round(olympic_mean(runs, rules.drop_fastest, rules.drop_slowest), 4)
            target = rules.quality_target
            quality = round(target - 0.002 if benchmark.direction == "lower" else target + 0.002, 4)
            result = {"minutes": minutes, "quality": quality, "quality_target": target, "runs_minutes": runs}
        else:
            round_ = catalog.rounds["published"]
            benchmark = rng.choice(published)
            division = "open"
            result = {"minutes": round(rng.uniform(60, 60 * 24 * 60), 1)}
        availability = rng.choice(["available", "available", "preview", "research"])
        date = f"20{rng.randint(19, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if round_.kind == "mlperf-training":
            date = round_.date  # an MLPerf result is dated by its round
        if too_early(date, accelerator):  # bounds.py refuses a part released years after the result
            accelerator = rng.choice([a for a in accelerators if not too_early(date, a)])
        released = catalog.accelerators[accelerator].release_date
        if released and date < released and availability == "available":
            # nothing available predates its accelerator: a published run comes later, an MLPerf one is a preview
            date, availability = (date, "preview") if round_.kind == "mlperf-training" else (released, availability)
        data = {
            "schema_version": 1,
            "round": round_.id,
            "benchmark": benchmark.id,
            "division": division,
            "availability": availability,
            "submitter": submitter,
            "date": date,
            "system": {
                "name": f"{slug(submitter)}-system-{i:06d}",
                "accelerator": accelerator,
                "count": chips,
                "unit": "chip",
                "nodes": max(1, chips // 8),
                "framework": rng.choice(["PyTorch", "JAX", "MXNet"]),
            },
            "model": {"name": f"model-{i:06d}"},
            "result": result,
            "source": {"url": f"https://example.com/results/{i:06d}"},
        }
        path = out / round_.id / slug(submitter) / f"entry-{i:06d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_yaml(data), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("n", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.n, args.out, args.seed)


if __name__ == "__main__":
    main()
