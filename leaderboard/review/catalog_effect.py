"""What a catalog change does: every submission's rows built with the base branch's catalog and
with the pull request's, and how many results change cost, cost rank, chip-hours, verified
status or board, the largest moves listed; new prices far from their part's other prices; every
round, compute figure and plausibility override added, removed or changed.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import statistics
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from leaderboard.catalog import (
    Catalog,
    Price,
    catalog_name,
    load_catalog,
)
from leaderboard.normalize import DEFAULT_TIER, TIERS, competition_ranks, usd_per_chip_hour
from leaderboard.pricing import PriceAnomaly, anomalies
from leaderboard.problems import plural
from leaderboard.review import markdown, plausibility
from leaderboard.review.catalog_records import accelerator_changes, compute_changes, override_changes, round_changes
from leaderboard.rows import TableRows, comparison_rows, table_rows
from leaderboard.validate import entries_in
from leaderboard.verification import shown

LARGEST = 10  # the moves listed, by relative change of on-demand cost
COMPUTE_LISTED = 40  # the compute figures changed that the comment and annotations list; the text lists all
DETAILS_LISTED = 120  # the comment's lines of warnings, records and prices changed; the text lists all
# A new price below a third or above three times the median of its part's other prices of the
# same tier (per chip-hour, or per chip for purchase) is flagged for the reviewer, not failed:
# real prices spread that far too (34 of the 827 shipped ones, against the others: marketplaces,
# old parts' fallen purchase prices), while a typo or an invented price is usually off by more.
FAR_FACTOR = 3.0


@dataclass(frozen=True)
class Move:
    """One result's on-demand cost before -> after the catalog change, and its cost rank."""

    entry_id: str
    group: str  # round / benchmark / division
    before: float | None
    after: float | None
    rank_before: int | None
    rank_after: int | None

    @property
    def factor(self) -> float:
        """after / before; infinite when a cost appears or disappears."""
        if self.before is None or self.after is None or self.before == 0:
            return math.inf
        return self.after / self.before


@dataclass(frozen=True)
class FarPrice:
    """A price the pull request adds far from the same part's other prices of its tier."""

    price: Price
    amount: float  # per chip-hour, or per chip for purchase
    median: float
    others: int


@dataclass
class CatalogEffect:
    """Counts of results whose derived numbers change, the largest cost moves, and what changed
    in the catalog's own records (accelerators, prices)."""

    results: int = 0  # results valid with either catalog
    cost: dict[str, int] = field(default_factory=dict)  # tier -> results whose cost in that tier changes
    cost_rank: int = 0
    cost_or_rank: int = 0  # results whose on-demand cost or cost rank changes (either moves them on the board)
    chip_hours: int = 0
    verified: int = 0
    rank: int = 0  # rank on its board (round x benchmark x division, by the round kind's metric)
    # Every column of every table built from the submissions, named "table.column", with the
    # number of results whose value in it changes: nothing a catalog change moves goes unseen
    # (a price index moves every cost_usd_today without touching a price).
    columns: dict[str, int] = field(default_factory=dict)
    any_column: int = 0  # results with at least one changed column
    left: list[str] = field(default_factory=list)  # valid with the base's catalog only
    joined: list[str] = field(default_factory=list)  # valid with the pull request's catalog only
    largest: list[Move] = field(default_factory=list)
    accelerators: list[str] = field(default_factory=list)  # "h100-sxm5-80gb: release_date A -> B (412 results)"
    prices_added: list[Price] = field(default_factory=list)
    prices_removed: list[Price] = field(default_factory=list)
    far_prices: list[FarPrice] = field(default_factory=list)
    # The price anomalies (pricing.anomalies) of every part whose prices the pull request changes.
    price_anomalies: list[PriceAnomaly] = field(default_factory=list)
    # Records that move no column but change what the checks do: rounds (a kind decides whether a
    # round is open to pull requests), the plausibility check's compute figures and overrides.
    rounds: list[str] = field(default_factory=list)  # "mlperf-training-v6.0: added, ... kind 'published'"
    compute: list[str] = field(default_factory=list)  # "training compute of 'GPT-3 175B (davinci)': A -> B"
    overrides: list[str] = field(default_factory=list)  # "published/x/y: added (...)"
    seconds: float = 0.0


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and _close(float(a), float(b))
    return a == b


def _by_entry(rows: Sequence[dict]) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for row in rows:
        found.setdefault(row["entry_id"], []).append(row)
    return found


def _tables(rows: TableRows) -> dict[str, list[dict]]:
    return {"results": rows.results, "costs": rows.costs, "runs": rows.runs, "progress": rows.progress}


def column_changes(before: dict[str, list[dict]], after: dict[str, list[dict]], both: set[str]) -> dict[str, set[str]]:
    """'table.column' -> the results (of `both`) whose value in it changes, for tables of rows
    keyed by entry_id (a result's rows are matched in order: a tier's cost, a run)."""
    changed: dict[str, set[str]] = {}
    for table in before.keys() | after.keys():
        old, new = _by_entry(before.get(table, [])), _by_entry(after.get(table, []))
        for entry in both:
            olds, news = old.get(entry, []), new.get(entry, [])
            names = {k for r in olds + news for k in r}
            for index in range(max(len(olds), len(news))):
                a = olds[index] if index < len(olds) else {}
                b = news[index] if index < len(news) else {}
                for name in names:
                    if not _same(a.get(name), b.get(name)):
                        changed.setdefault(f"{table}.{name}", set()).add(entry)
    return changed


def _group(row: dict) -> tuple[str, str, str]:
    return (row["round"], row["benchmark"], row["division"])


def cost_ranks(rows: Sequence[dict]) -> dict[str, int | None]:
    """Each result's rank by on-demand cost within its round x benchmark x division (None without a cost)."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(_group(row), []).append(row)
    ranks: dict[str, int | None] = {}
    for group in groups.values():
        for row, rank in zip(group, competition_ranks([r["cost_usd"] for r in group]), strict=True):
            ranks[row["entry_id"]] = rank
    return ranks


def _size(move: Move) -> float:
    """How far a cost moved, either way: |log(after / before)|, infinite when it appears or goes."""
    return abs(math.log(move.factor)) if math.isfinite(move.factor) and move.factor > 0 else math.inf


def compare(
    before: TableRows,
    after: TableRows,
    largest: int = LARGEST,
    extra_before: dict[str, list[dict]] | None = None,
    extra_after: dict[str, list[dict]] | None = None,
) -> CatalogEffect:
    """What moved between the rows built with the base's catalog and with the pull request's;
    `extra_*` are more tables of rows keyed by entry_id (epoch_cost_comparison) to compare."""
    extra_before, extra_after = extra_before or {}, extra_after or {}
    old = {r["entry_id"]: r for r in before.results}
    new = {r["entry_id"]: r for r in after.results}
    old_costs = {(c["entry_id"], c["tier"]): c["cost_usd"] for c in before.costs}
    new_costs = {(c["entry_id"], c["tier"]): c["cost_usd"] for c in after.costs}
    old_ranks, new_ranks = cost_ranks(before.results), cost_ranks(after.results)
    both = sorted(old.keys() & new.keys())
    effect = CatalogEffect(results=len(old.keys() | new.keys()))
    effect.left = sorted(old.keys() - new.keys())
    effect.joined = sorted(new.keys() - old.keys())
    effect.cost = {
        tier: sum(not _close(old_costs.get((e, tier)), new_costs.get((e, tier))) for e in both) for tier in TIERS
    }
    effect.cost_rank = sum(old_ranks[e] != new_ranks[e] for e in both)
    effect.cost_or_rank = sum(
        old_ranks[e] != new_ranks[e] or not _close(old[e]["cost_usd"], new[e]["cost_usd"]) for e in both
    )
    changed = column_changes(_tables(before) | extra_before, _tables(after) | extra_after, set(both))
    effect.columns = {name: len(entries) for name, entries in sorted(changed.items())}
    # The named counts are columns of that comparison, read off it rather than compared again.
    effect.chip_hours = effect.columns.get("results.chip_hours", 0)
    effect.verified = effect.columns.get("results.verified", 0)
    effect.rank = effect.columns.get("results.rank", 0)
    effect.any_column = len(set().union(*changed.values())) if changed else 0
    moves = [
        Move(
            e,
            " / ".join(_group(new[e])),
            old[e]["cost_usd"],
            new[e]["cost_usd"],
            old_ranks[e],
            new_ranks[e],
        )
        for e in both
        if not _close(old[e]["cost_usd"], new[e]["cost_usd"])
    ]
    # Equal factors (a price that moves every result of a part alike) list the biggest dollar moves first.
    moves.sort(key=lambda m: (-round(_size(m), 9), -abs((m.after or 0) - (m.before or 0)), m.entry_id))
    effect.largest = moves[:largest]
    return effect


def _amount(price: Price, catalog: Catalog) -> float | None:
    accelerator = catalog.accelerators.get(price.accelerator)
    if accelerator is None:
        return None
    return price.usd if price.tier == "purchase" else usd_per_chip_hour(price, accelerator)


def far_prices(added: Sequence[Price], catalog: Catalog, factor: float = FAR_FACTOR) -> list[FarPrice]:
    """The added prices below 1/factor or above factor times the median of the same part's other
    prices of the same tier (hourly prices compared per chip-hour)."""
    new = set(added)  # thousands of added prices: each compared with its part's others, not with all
    kept: dict[tuple[str, str], list[float]] = {}
    for p in catalog.prices:
        a = _amount(p, catalog) if p not in new else None
        if a is not None and math.isfinite(a):
            kept.setdefault((p.accelerator, p.tier), []).append(a)
    found = []
    for price in added:
        amount = _amount(price, catalog)
        others = kept.get((price.accelerator, price.tier), [])
        if amount is None or not others:
            continue
        median = statistics.median(others)
        if amount < median / factor or amount > median * factor:
            found.append(FarPrice(price, amount, median, len(others)))
    return found


# ---- building both sides -----------------------------------------------------------------------


def base_catalog(repo: Path, revision: str, catalog: str, into: Path, names: Collection[str] | None = None) -> Path:
    """The catalog folder as it is at `revision`, written under `into` (git archive); with
    `names`, only its catalog files of those names (catalog_name: 'compute-epoch')."""
    done = subprocess.run(
        ["git", "archive", "--format=tar", revision, "--", catalog], cwd=repo, capture_output=True, check=False
    )
    target = into / "base"
    target.mkdir(parents=True, exist_ok=True)
    if done.returncode == 0:
        with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
            members = [m for m in archive.getmembers() if names is None or _named(m.name, catalog, names)]
            archive.extractall(target, members=members, filter=_files_and_folders)
    return target / catalog


def base_catalog_files(repo: Path, revision: str, catalog: str, names: Collection[str]) -> Catalog:
    """The catalog files `names` as they are at `revision`, loaded alone (the other files are
    missing from it): a few of the base's records, without reading the whole base catalog."""
    with tempfile.TemporaryDirectory(prefix="leaderboard-base-catalog-") as folder:
        directory = base_catalog(repo, revision, catalog, Path(folder), names)
        directory.mkdir(parents=True, exist_ok=True)  # the base may have none of them
        return load_catalog(directory)


def _named(name: str, catalog: str, names: Collection[str]) -> bool:
    path = PurePosixPath(name)
    return path.parent == PurePosixPath(catalog) and catalog_name(Path(name)) in names


def _files_and_folders(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    """Regular files and folders only, each inside the destination (tarfile's data filter): a
    link in the base's catalog is left out rather than followed."""
    return tarfile.data_filter(member, path) if member.isfile() or member.isdir() else None


def rows_with(catalog: Catalog, submissions: Path, repo: Path, today: dt.date) -> TableRows:
    """Every valid entry of the submissions tree checked against `catalog`, normalized into rows."""
    return table_rows(entries_in(submissions, catalog, today), catalog, base=repo)


def catalog_effect(
    repo: Path,
    revision: str,
    catalog: str = "catalog",
    submissions: str = "submissions",
    today: dt.date | None = None,
) -> CatalogEffect:
    """The effect of the working tree's catalog against the one at `revision`, over every
    submission of the working tree (the same submissions on both sides)."""
    start = time.monotonic()
    today = today or dt.datetime.now(dt.UTC).date()
    with tempfile.TemporaryDirectory(prefix="leaderboard-base-catalog-") as folder:
        before_catalog = load_catalog(base_catalog(repo, revision, catalog, Path(folder)))
        before = rows_with(before_catalog, repo / submissions, repo, today)
    after_catalog = load_catalog(repo / catalog)
    after = rows_with(after_catalog, repo / submissions, repo, today)
    effect = compare(
        before,
        after,
        extra_before={"epoch_cost_comparison": comparison_rows(before.results, before.costs, before_catalog)},
        extra_after={"epoch_cost_comparison": comparison_rows(after.results, after.costs, after_catalog)},
    )
    on_part: dict[str, int] = {}
    in_round: dict[str, int] = {}
    for row in after.results + [r for r in before.results if r["entry_id"] in set(effect.left)]:
        on_part[row["accelerator"]] = on_part.get(row["accelerator"], 0) + 1
        in_round[row["round"]] = in_round.get(row["round"], 0) + 1
    effect.accelerators = accelerator_changes(before_catalog, after_catalog, on_part)
    effect.rounds = round_changes(before_catalog, after_catalog, in_round)
    effect.compute = compute_changes(before_catalog, after_catalog, on_part)
    effect.overrides = override_changes(before_catalog, after_catalog)
    old_prices, new_prices = set(before_catalog.prices), set(after_catalog.prices)
    effect.prices_added = [p for p in after_catalog.prices if p not in old_prices]
    effect.prices_removed = [p for p in before_catalog.prices if p not in new_prices]
    effect.far_prices = far_prices(effect.prices_added, after_catalog)
    touched = {p.accelerator for p in effect.prices_added + effect.prices_removed}
    effect.price_anomalies = [
        a for a in anomalies(after_catalog.prices, after_catalog.accelerators) if a.accelerator in touched
    ]
    effect.seconds = time.monotonic() - start
    return effect


# ---- output (check-pr's three formats) ----------------------------------------------------------


def _money(value: float | None) -> str:
    return "no cost" if value is None else f"${value:,.2f}"


def _rank(value: int | None) -> str:
    return "-" if value is None else str(value)


def _factor(move: Move) -> str:
    return "" if not math.isfinite(move.factor) else f" (x{move.factor:.3g})"


def _price(price: Price) -> str:
    return f"{price.accelerator} {price.tier} ${price.usd:g} per {price.unit}, {price.date}, {price.provider}"


def price_lines(added: list[Price], removed: list[Price]) -> list[str]:
    """'price changed: ...' for a price edited in place (one removed and one added with the same
    part, provider, tier, unit and date), 'price added: ...' and 'price removed: ...' for the rest."""
    key = lambda p: (p.accelerator, p.provider, p.tier, p.unit, p.date)  # noqa: E731
    old: dict[tuple, list[Price]] = {}
    new: dict[tuple, list[Price]] = {}
    for price in removed:
        old.setdefault(key(price), []).append(price)
    for price in added:
        new.setdefault(key(price), []).append(price)
    edited = {k for k in old.keys() & new.keys() if len(old[k]) == len(new[k]) == 1}
    lines = [_price_change(old[k][0], new[k][0]) for k in sorted(edited)]
    lines += [f"price added: {_price(p)}" for p in added if key(p) not in edited]
    lines += [f"price removed: {_price(p)}" for p in removed if key(p) not in edited]
    return lines


def _price_change(before: Price, after: Price) -> str:
    fields = [f"${before.usd:g} -> ${after.usd:g}"] if before.usd != after.usd else []
    fields += [
        f"{name} {shown(getattr(before, name), 40)} -> {shown(getattr(after, name), 40)}"
        for name in ("source", "includes_host", "estimate", "note")
        if getattr(before, name) != getattr(after, name)
    ]
    return (
        f"price changed: {after.accelerator} {after.tier} per {after.unit}, {after.date}, {after.provider}: "
        + ", ".join(fields)
    )


def _anomaly(anomaly: PriceAnomaly) -> str:
    return f"{anomaly.accelerator} {anomaly.tier} ({anomaly.kind}): {anomaly.message}"


def _far(far: FarPrice) -> str:
    unit = "chip" if far.price.tier == "purchase" else "chip-hour"
    ratio = far.amount / far.median
    return (
        f"{_price(far.price)}: ${far.amount:,.4g} per {unit} is {ratio:.3g}x the median ${far.median:,.4g} "
        f"of its {far.others} other {far.price.tier} prices (flagged beyond {FAR_FACTOR:g}x either way)"
    )


def _columns_line(effect: CatalogEffect) -> str:
    if not effect.any_column:
        return "no column of the database changes for any result"
    by_count = sorted(effect.columns.items(), key=lambda item: (-item[1], item[0]))
    listed = ", ".join(f"{name} {count:,}" for name, count in by_count)
    return f"any column of the database changes for {plural(effect.any_column, 'result')}: {listed}"


def summary_lines(effect: CatalogEffect, base: str) -> list[str]:
    """The counts, one fact a line, as text."""
    other_tiers = ", ".join(f"{tier} {effect.cost[tier]:,}" for tier in TIERS if tier != DEFAULT_TIER)
    return [
        f"results compared: {effect.results:,} (every submission, with {base}'s catalog and with this "
        f"pull request's, in {effect.seconds:.1f} s)",
        f"cost on demand changes for {plural(effect.cost.get(DEFAULT_TIER, 0), 'result')} (other tiers: {other_tiers})",
        f"cost rank changes for {plural(effect.cost_rank, 'result')}; cost or cost rank for "
        f"{plural(effect.cost_or_rank, 'result')}",
        f"chip-hours change for {plural(effect.chip_hours, 'result')}",
        f"verified status changes for {plural(effect.verified, 'result')}",
        f"rank on its board changes for {plural(effect.rank, 'result')}",
        _columns_line(effect),
        f"valid with {base}'s catalog only (leave the boards): {len(effect.left):,}; "
        f"with this pull request's only (join them): {len(effect.joined):,}",
    ]


def record_lines(effect: CatalogEffect, compute_listed: int | None = None) -> list[str]:
    """Every round, accelerator, compute figure and plausibility override the change adds, removes
    or changes, one a line; with `compute_listed`, at most that many compute figures and how many
    more (a re-import of compute-epoch.yaml changes hundreds, more than a comment holds)."""
    lines = [f"round {line}" for line in effect.rounds]
    lines += [f"accelerator {line}" for line in effect.accelerators]
    listed = effect.compute if compute_listed is None else effect.compute[:compute_listed]
    lines += [f"compute figure ({plausibility.COMPUTE}) {line}" for line in listed]
    if len(listed) < len(effect.compute):
        more = plural(len(effect.compute) - len(listed), "more compute figure")
        lines.append(f"{more} changed ({plausibility.COMPUTE}): check-pr's text output lists every one")
    lines += [f"plausibility override {line}" for line in effect.overrides]
    return lines


def text_lines(effect: CatalogEffect, base: str) -> list[str]:
    lines = ["catalog change: its effect on the results"]
    lines += [f"  {line}" for line in summary_lines(effect, base)]
    if effect.largest:
        lines.append(f"  largest cost moves (on demand, top {len(effect.largest)}):")
        lines += [
            f"    {m.entry_id}: {_money(m.before)} -> {_money(m.after)}{_factor(m)}, "
            f"cost rank {_rank(m.rank_before)} -> {_rank(m.rank_after)} in {m.group}"
            for m in effect.largest
        ]
    lines += [f"  {line}" for line in record_lines(effect)]
    lines += [f"  {line}" for line in price_lines(effect.prices_added, effect.prices_removed)]
    lines += [f"  price far from its part's other prices: {_far(f)}" for f in effect.far_prices]
    lines += [f"  price anomaly: {_anomaly(a)}" for a in effect.price_anomalies]
    return lines


def github_lines(
    effect: CatalogEffect, base: str, files: list[str], prop: Callable[[str], str], data: Callable[[str], str]
) -> list[str]:
    """A notice with the counts on each changed catalog file, one with the records changed, a
    warning per far price."""
    summary = "; ".join(summary_lines(effect, base)[1:])
    lines = [
        f"::notice file={prop(name)},title={prop('Effect of the catalog change')}::{data(summary)}" for name in files
    ]
    records = record_lines(effect, COMPUTE_LISTED)
    if records:
        lines.append(f"::notice title={prop('Catalog records changed')}::{data('; '.join(records))}")
    lines += [f"::warning title={prop('Price far from the others')}::{data(_far(f))}" for f in effect.far_prices]
    lines += [f"::warning title={prop('Price anomaly')}::{data(_anomaly(a))}" for a in effect.price_anomalies]
    return lines


def markdown_lines(effect: CatalogEffect, base: str, cell: Callable[[str], str]) -> list[str]:
    out = ["", "### Effect of the catalog change", ""]
    out += [f"- {cell(line)}" for line in summary_lines(effect, base)]
    if effect.largest:
        out += [
            "",
            f"Largest cost moves (on demand, top {len(effect.largest)}):",
            "",
            "| entry | round / benchmark / division | cost before → after | cost rank before → after |",
            "|---|---|---|---|",
        ]
        out += [
            f"| {markdown.code(m.entry_id)} | {cell(m.group)} | {cell(_money(m.before))} → {cell(_money(m.after))}"
            f"{cell(_factor(m))} | {_rank(m.rank_before)} → {_rank(m.rank_after)} |"
            for m in effect.largest
        ]
    # The warnings first; a price file of thousands of rows is counted past DETAILS_LISTED lines.
    details = [f"⚠️ price far from its part's other prices: {_far(f)}" for f in effect.far_prices]
    details += [f"⚠️ price anomaly: {_anomaly(a)}" for a in effect.price_anomalies]
    details += record_lines(effect, COMPUTE_LISTED)
    details += price_lines(effect.prices_added, effect.prices_removed)
    if len(details) > DETAILS_LISTED:
        left = len(details) - DETAILS_LISTED
        details = details[:DETAILS_LISTED] + [f"{left:,} more lines: check-pr's text output lists every one"]
    if details:
        out += [""] + [f"- {cell(line)}" for line in details]
    return out
