"""The reference data under catalog/: rounds, benchmarks, accelerators and prices as typed records.

Each catalog file is checked against its own JSON Schema and for ids that must agree.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from leaderboard import manifest, schemas
from leaderboard.files import load
from leaderboard.problems import Problem, did_you_mean

CATALOG_FILES = ("rounds", "benchmarks", "accelerators", "prices")
# prices.yaml holds prices entered by hand; prices-<source>.yaml files are written by importers
# (prices-epoch.yaml by `leaderboard import-prices`), so a re-import never touches hand entries.
EXTRA_PRICE_FILES = "prices-*"
# Optional: the price index for expressing costs in the dollars of another month.
PRICE_INDEX_FILE = "price-index"
# Optional: where the site is published (base_url), for absolute links in the feed and sitemap.
SITE_FILE = "site"
OPTIONAL_FILES = (PRICE_INDEX_FILE, SITE_FILE)


@dataclass(frozen=True)
class Round:
    id: str
    name: str
    kind: str  # mlperf-training | mlperf-hpc | published
    date: str
    url: str
    results_repository: str | None = None
    log_format: str | None = None  # MLPerf: mllog | mll | mlpv0.5
    layout: str | None = None  # MLPerf: org-systems | v0.5-entries
    benchmark_folders: dict[str, str] = field(default_factory=dict)  # results folder -> benchmark id
    rules_source: str | None = None
    init_limit_minutes: dict[str, float] = field(default_factory=dict)  # division -> limit on initialization
    system_corrections: tuple[dict, ...] = ()  # {result, set, reason}: a description that does not fit a result
    run_stop_status_required: bool = True  # MLPerf HPC: a run_stop without a status fails the run (not in v0.7)

    def correction_for(self, result_path: str) -> dict | None:
        return next((c for c in self.system_corrections if c["result"].strip("/") == result_path), None)

    def benchmark_of_folder(self, folder: str) -> str:
        """The benchmark a results folder holds in this round (`ssd` is RetinaNet from v2.0)."""
        return self.benchmark_folders.get(folder, folder)


@dataclass(frozen=True)
class RoundRules:
    quality_target: float
    runs: int
    drop_fastest: int
    drop_slowest: int
    extra_targets: dict[str, float] = field(default_factory=dict)
    batch_size_targets: tuple[tuple[float, float], ...] = ()  # (from global batch size, quality target)
    open_quality_target: float | None = None  # the target the open division must reach too, where it must
    rcp_allowance: float = 0.0  # how much faster than the RCP t-test's bound a result may converge and pass


@dataclass(frozen=True)
class Benchmark:
    id: str
    name: str
    kind: str
    task: str
    metric: str
    direction: str | None = None
    dataset: str | None = None
    reference_model: str | None = None
    log_metric: str | None = None
    replaces: str | None = None
    extra_directions: dict[str, str] = field(default_factory=dict)
    rounds: dict[str, RoundRules] = field(default_factory=dict)
    log_key: str = "eval_accuracy"  # the MLLOG key of its evaluations (MLPerf HPC: eval_error for some)
    scaling: str = "strong"  # strong | weak (MLPerf HPC: many models at once, ranked by models per minute)


@dataclass(frozen=True)
class Accelerator:
    id: str
    vendor: str
    name: str
    chips_per_device: float
    aliases: tuple[str, ...]
    cores_per_chip: float | None = None
    memory_gb: float | None = None
    tdp_w: float | None = None
    release_date: str | None = None
    no_price_reason: str | None = None


@dataclass(frozen=True)
class Price:
    accelerator: str
    provider: str
    tier: str  # on-demand | spot | 1-year | 3-year | purchase
    usd: float
    unit: str  # chip-hour | device-hour | core-hour | chip
    date: str
    source: str
    includes_host: bool | None = None
    estimate: bool = False  # an estimate, not a price anyone quoted (Epoch AI's TPU purchase prices)
    note: str | None = None
    origin: str | None = None


@dataclass(frozen=True)
class PriceIndex:
    """A monthly price index (month "YYYY-MM" -> value) and where it comes from."""

    series: str
    name: str
    source: str
    months: dict[str, float]


@dataclass
class Catalog:
    rounds: dict[str, Round] = field(default_factory=dict)
    benchmarks: dict[str, Benchmark] = field(default_factory=dict)
    accelerators: dict[str, Accelerator] = field(default_factory=dict)
    prices: list[Price] = field(default_factory=list)
    price_index: PriceIndex | None = None
    base_url: str | None = None  # where the site is published, ending in '/' (catalog/site.yaml)
    verified: dict[str, str] = field(default_factory=dict)  # entry id -> file digest (catalog/verified/)
    problems: list[Problem] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    _by_alias: dict[str, Accelerator] | None = field(default=None, repr=False, compare=False)

    def accelerator_by_alias(self, name: str) -> Accelerator | None:
        if self._by_alias is None:
            self._by_alias = {}
            for accelerator in self.accelerators.values():
                for alias in (accelerator.id, *accelerator.aliases):
                    self._by_alias.setdefault(_alias_key(alias), accelerator)
        return self._by_alias.get(_alias_key(name))


def _alias_key(name: str) -> str:
    """Names are matched without case, spaces or punctuation: "NVIDIA A100-SXM4-80GB (400W)" and
    "nvidia a100 sxm4 80gb(400w)" are one name."""
    return "".join(c for c in name.casefold() if c.isalnum())


def catalog_name(path: Path) -> str | None:
    """The schema of a catalog file ('rounds' for catalog/rounds.yaml, 'prices' for
    catalog/prices-epoch.yaml); None for a file that is not a catalog file."""
    if path.suffix not in (".yaml", ".yml", ".json"):
        return None
    if path.stem in CATALOG_FILES or path.stem in OPTIONAL_FILES:
        return path.stem
    if path.match(EXTRA_PRICE_FILES + path.suffix):
        return "prices"
    return None


def extra_price_files(directory: Path) -> list[Path]:
    """Importer-written price files beside prices.yaml, in name order."""
    return sorted(p for p in directory.glob(EXTRA_PRICE_FILES) if p.is_file() and catalog_name(p) == "prices")


def find_file(directory: Path, name: str) -> Path | None:
    for suffix in (".yaml", ".yml", ".json"):
        if (directory / f"{name}{suffix}").is_file():
            return directory / f"{name}{suffix}"
    return None


def load_catalog(directory: Path) -> Catalog:
    """Read every catalog file; problems (schema and cross-reference) are collected, not raised."""
    catalog = Catalog()
    data: dict[str, Any] = {}
    price_docs: list[tuple[Any, Any]] = []
    paths: list[tuple[str, Path | None]] = [(name, find_file(directory, name)) for name in CATALOG_FILES]
    paths += [("prices", p) for p in extra_price_files(directory)]
    paths += [(name, find_file(directory, name)) for name in OPTIONAL_FILES if find_file(directory, name)]
    for name, path in paths:
        if path is None:
            catalog.problems.append(
                Problem(str(directory / f"{name}.yaml"), None, None, "$", f"catalog file {name}.yaml is missing")
            )
            continue
        catalog.files.append(path)
        doc = load(path)
        catalog.problems += doc.problems
        if doc.data is None:
            continue
        problems = schemas.check(doc, name)
        catalog.problems += problems
        if problems:
            continue
        if name == "prices":
            price_docs.append((doc, doc.data))
        else:
            data[name] = (doc, doc.data)
    if price_docs:
        data["prices"] = price_docs

    if "rounds" in data:
        for item in data["rounds"][1]["rounds"]:
            catalog.rounds[item["id"]] = Round(
                **{**item, "system_corrections": tuple(item.get("system_corrections", ()))}
            )
    if "benchmarks" in data:
        for item in data["benchmarks"][1]["benchmarks"]:
            rules = {
                r: RoundRules(
                    **{
                        **v,
                        "batch_size_targets": tuple(
                            (t["from_batch_size"], t["quality_target"]) for t in v.get("batch_size_targets", ())
                        ),
                    }
                )
                for r, v in item.get("rounds", {}).items()
            }
            catalog.benchmarks[item["id"]] = Benchmark(**{**item, "rounds": rules})
    if "accelerators" in data:
        for item in data["accelerators"][1]["accelerators"]:
            catalog.accelerators[item["id"]] = Accelerator(**{**item, "aliases": tuple(item["aliases"])})
    if "prices" in data:
        catalog.prices = [Price(**item) for _, content in data["prices"] for item in content["prices"]]
    if PRICE_INDEX_FILE in data:
        index = data[PRICE_INDEX_FILE][1]
        catalog.price_index = PriceIndex(
            index["series"], index["name"], index["source"], {m: float(v) for m, v in index["months"].items()}
        )
    if SITE_FILE in data:
        doc, content = data[SITE_FILE]
        try:
            catalog.base_url = checked_base_url(content["base_url"])
        except ValueError as error:
            catalog.problems.append(doc.problem(("base_url",), str(error)))
    catalog.problems += _cross_check(catalog, data)
    catalog.verified = manifest.load(directory)
    return catalog


def checked_base_url(value: str) -> str:
    """The site's address as pages and files are joined to it: http(s), a host, no query or
    fragment, ending in '/' (added when missing). ValueError says what is wrong."""
    if any(c.isspace() or not c.isprintable() or not c.isascii() for c in value):
        raise ValueError(f"base URL {value!r} holds a space, control or non-ASCII character: percent-encode it")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        raise ValueError(f"base URL {value!r} is not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base URL {value!r} must start with https:// (or http://) and a host name")
    if parts.query or parts.fragment or value.endswith(("?", "#")):
        raise ValueError(f"base URL {value!r} must not have a query or fragment: pages are joined to its path")
    return value if value.endswith("/") else value + "/"


# The dates of the catalog, by file and key: the schemas check their shape, the database stores
# them as DATE, so each must be a real day.
CATALOG_DATES = (("rounds", "rounds", "date"), ("accelerators", "accelerators", "release_date"))


def _unreal_dates(data: dict[str, Any]) -> list[Problem]:
    documents = [(key, name, data[file]) for file, key, name in CATALOG_DATES if file in data]
    documents += [("prices", "date", price_doc) for price_doc in data.get("prices", [])]
    problems = []
    for key, name, (doc, content) in documents:
        for i, item in enumerate(content[key]):
            if item.get(name) is not None and not _real_date(item[name]):
                problems.append(doc.problem((key, i, name), f"{item[name]!r} is not a real date"))
    return problems


def _real_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _cross_check(catalog: Catalog, data: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = _unreal_dates(data)
    for name, key in (("rounds", "rounds"), ("benchmarks", "benchmarks"), ("accelerators", "accelerators")):
        if name not in data:
            continue
        doc, content = data[name]
        seen: set[str] = set()
        for i, item in enumerate(content[key]):
            if item["id"] in seen:
                problems.append(doc.problem((key, i, "id"), f"duplicate id {item['id']!r}"))
            seen.add(item["id"])
    if "rounds" in data and catalog.benchmarks:
        doc, content = data["rounds"]
        for i, item in enumerate(content["rounds"]):
            for folder, benchmark_id in item.get("benchmark_folders", {}).items():
                rules = catalog.benchmarks.get(benchmark_id)
                if rules is None or item["id"] not in rules.rounds:
                    problems.append(
                        doc.problem(
                            ("rounds", i, "benchmark_folders", folder),
                            f"{benchmark_id!r} is not a benchmark of {item['id']} in benchmarks.yaml",
                            did_you_mean(benchmark_id, catalog.benchmarks),
                        )
                    )
    if "benchmarks" in data:
        doc, content = data["benchmarks"]
        for i, item in enumerate(content["benchmarks"]):
            if item.get("replaces") and item["replaces"] not in catalog.benchmarks:
                problems.append(
                    doc.problem(
                        ("benchmarks", i, "replaces"),
                        f"unknown benchmark {item['replaces']!r}",
                        did_you_mean(item["replaces"], catalog.benchmarks),
                    )
                )
            for round_id, rules in item.get("rounds", {}).items():
                path = ("benchmarks", i, "rounds", round_id)
                if catalog.rounds and round_id not in catalog.rounds:
                    problems.append(
                        doc.problem(
                            path, f"unknown round {round_id!r}", did_you_mean(round_id, catalog.rounds), key=True
                        )
                    )
                if rules["drop_fastest"] + rules["drop_slowest"] >= rules["runs"]:
                    problems.append(doc.problem(path, "drops as many runs as it keeps or more"))
                if item.get("direction") is None:
                    problems.append(
                        doc.problem(("benchmarks", i), "a benchmark with quality targets needs a direction")
                    )
    if "accelerators" in data:
        doc, content = data["accelerators"]
        owner: dict[str, str] = {}
        for i, item in enumerate(content["accelerators"]):
            for j, alias in enumerate(item["aliases"]):
                key = _alias_key(alias)
                if key in owner and owner[key] != item["id"]:
                    problems.append(
                        doc.problem(("accelerators", i, "aliases", j), f"alias {alias!r} already names {owner[key]!r}")
                    )
                owner[key] = item["id"]
    for doc, content in data.get("prices", []) if catalog.accelerators else []:
        for i, item in enumerate(content["prices"]):
            if item["accelerator"] not in catalog.accelerators:
                problems.append(
                    doc.problem(
                        ("prices", i, "accelerator"),
                        f"unknown accelerator {item['accelerator']!r}",
                        did_you_mean(item["accelerator"], catalog.accelerators),
                    )
                )
            elif item["unit"] == "core-hour" and catalog.accelerators[item["accelerator"]].cores_per_chip is None:
                problems.append(
                    doc.problem(("prices", i, "unit"), "priced per core-hour but the accelerator has no cores_per_chip")
                )
            if (item["tier"] == "purchase") != (item["unit"] == "chip"):
                problems.append(
                    doc.problem(
                        ("prices", i, "unit"),
                        "a purchase price is per chip; an hourly price is per chip-, device- or core-hour",
                    )
                )
    return problems
