"""What the site shows, read from the database: rounds, boards (round x benchmark x division),
entries with their costs, records, and the pure ranking rules the pages and charts share.

No HTML here; site.py turns these records into pages and charts.py into charts.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from leaderboard import store
from leaderboard.families import family
from leaderboard.normalize import HIGHER_IS_BETTER, TIERS, cost_note, metric_ranks, rank_metric, slug
from leaderboard.render import left_off, likeness
from leaderboard.render import prices as site_prices
from leaderboard.render.readback import read_back

DIVISIONS = ("closed", "open")
AVAILABILITIES = ("available", "preview", "research")
NOT_VERIFIED = "Result not verified by MLCommons Association"


def unverified_note(kind: str) -> str:
    """How a result that is not verified is labelled wherever it appears (its family says what it
    is); beside verified results it takes no rank, record or "best" (results.ranked)."""
    return f"{family(kind).self_reported}: {NOT_VERIFIED}"


# The order the site lists results in, pages and downloads alike.
RESULT_ORDER = ("round", "benchmark", "division", "rank", "entry_id")
RANK_METRIC_LABEL = {
    "minutes": "minutes",
    "chip_hours": "chip-hours",
    "cost": "cost",
    "models_per_minute": "models per minute",
}


class ResultRow(dict):
    """A row of `results` as the site shows it (its columns, costs, runs, paths, rank). Read-only
    once the site's data is loaded (`frozen`): a page's reuse key then hashes each row once, not
    once a page it is on (reuse.PageReuse), and nothing drawn later can change what was hashed."""

    __slots__ = ("frozen",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.frozen = False

    def __reduce__(self) -> tuple:
        """A copy (copy, pickle) is a row of the same values, not yet read-only."""
        return (self.__class__, (dict(self),))

    def _check(self) -> None:
        if self.frozen:
            raise TypeError("a result row is read-only once the site's data is loaded: change a copy ({**row})")

    def __setitem__(self, key: str, value: object) -> None:
        self._check()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._check()
        super().__delitem__(key)

    def __ior__(self, other):  # noqa: ANN001 - as dict's
        self._check()
        return super().__ior__(other)

    def update(self, *args: object, **kwargs: object) -> None:
        self._check()
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: object = None) -> object:
        self._check()
        return super().setdefault(key, default)

    def pop(self, *args: object) -> object:
        self._check()
        return super().pop(*args)

    def popitem(self) -> tuple:
        self._check()
        return super().popitem()

    def clear(self) -> None:
        self._check()
        super().clear()


@dataclass
class Board:
    """One leaderboard: the results of one benchmark in one round, split by division."""

    round: dict
    benchmark: dict
    rules: dict | None  # benchmark_rounds row, None for published benchmarks
    divisions: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return f"boards/{self.round['id']}/{self.benchmark['id']}.html"

    @property
    def key(self) -> str:
        return f"{self.round['id']}/{self.benchmark['id']}"

    @property
    def rank_metric(self) -> str:
        return rank_metric(self.round["kind"], self.benchmark.get("scaling"))

    @property
    def rows(self) -> list[dict]:
        return [row for rows in self.divisions.values() for row in rows]

    @cached_property  # every entry page of the board shows its division's count: counted once
    def ranked(self) -> dict[str, int]:
        """Per division, how many of its results take a rank."""
        return {d: sum(1 for r in rows if r["board_rank"] is not None) for d, rows in self.divisions.items()}

    @property
    def title(self) -> str:
        return f"{self.benchmark['name']}, {self.round['name']}"

    @property
    def comparable(self) -> bool:
        """Whether compare.html offers the board: a board of one result has nothing to compare, and
        a weak-scaling board's results trained different numbers of models, so their minutes,
        chip-hours and costs side by side would compare unlike things."""
        return len(self.rows) >= 2 and self.rank_metric != "models_per_minute"

    @property
    def has_energy(self) -> bool:
        """Whether any result measured its energy to train (an energy column only then)."""
        return any(row.get("energy_kwh") is not None for row in self.rows)

    @property
    def heading(self) -> dict:
        """What a page about one of the board's results shows of the board: not its rows, so
        that page is drawn again only when its own values change, not any row of its board."""
        return {
            "round": self.round,
            "benchmark": self.benchmark,
            "path": self.path,
            "key": self.key,
            "rank_metric": self.rank_metric,
            "title": self.title,
        }

    @property
    def summary(self) -> dict:
        """What a page that lists boards (the home page, a round's page) shows of one: its heading,
        how many results each division has, the span of their dates and each division's record
        holder; not its other rows, so such a page is drawn again only when one of these changes."""
        dates = [row["date"] for row in self.rows]
        return {
            **self.heading,
            "results": len(dates),
            "sizes": {division: len(rows) for division, rows in self.divisions.items()},
            "dates": [min(dates), max(dates)] if dates else [],
            "records": records(self),
        }


@dataclass
class SiteData:
    rounds: list[dict]
    benchmarks: dict[str, dict]
    accelerators: dict[str, dict]
    prices: list[dict]
    results: list[dict]  # every column of `results`, plus: costs, board_rank, paths
    columns: list[tuple[str, str]]  # (name, meaning) of every results column, in table order
    boards: list[Board]
    epoch_comparison: list[dict] | None  # the epoch_cost_comparison table, when present
    # The catalog's newest price date: the boards' "latest prices" (render/prices.py), and each
    # part's price anomalies (pricing.anomalies) by accelerator id.
    prices_as_of: str | None = None
    price_anomalies: dict = field(default_factory=dict)
    skipped: dict[str, list[dict]] = field(default_factory=dict)  # round -> its skipped_results rows (left_off.py)
    organizations: dict[str, dict] = field(default_factory=dict)  # name -> its organizations row (several names)

    @cached_property  # every page shows it: computed once, not once a page (quadratic at scale)
    def newest_date(self) -> str:
        """The newest submission date: the only date a build writes (keeps builds deterministic)."""
        return max((r["date"] for r in self.results), default="1970-01-01")

    @cached_property  # asked on each of hundreds of accelerator and submitter pages
    def board_order(self) -> dict[str, int]:
        """Each board's place in `boards`, by its key ("<round>/<benchmark>")."""
        return {b.key: i for i, b in enumerate(self.boards)}


def _rows(query, sql: str, texts: dict[str, str] | None = None, kind: type = dict) -> list[dict]:
    """Rows as dicts; equal texts share one object (`texts`), as the same names, ids and
    sources repeat in thousands of rows: a tenth of the site's memory at 100,000 results.
    Dates (DATE in the database) become 'YYYY-MM-DD' text, as the pages compare and show them.
    Each row is a `kind` (dict, or ResultRow)."""
    names, rows = query(sql)
    texts = {} if texts is None else texts
    share = texts.setdefault

    def iso(day: dt.date) -> str:
        text = day.isoformat()
        return share(text, text)

    date = dt.date
    return [
        kind(
            zip(
                names,
                [share(v, v) if v.__class__ is str else iso(v) if v.__class__ is date else v for v in row],
                strict=True,
            )
        )
        for row in rows
    ]


def entry_path(entry_id: str) -> str:
    return f"entries/{entry_id}.html"


def submitter_path(submitter: str) -> str:
    return f"submitters/{slug(submitter) or 'unnamed'}.html"


def accelerator_path(accelerator: str) -> str:
    return f"accelerators/{accelerator}.html"


def load(db: str | Path | store.Staged) -> SiteData:
    """Everything the site shows, in a stable order (the build must be deterministic). A build's
    database (store.Staged) is read from the rows it is filled with (readback.py), not by SQL, up
    to store.ROWS_KEPT_UP_TO results."""
    tables = db.take_tables() if isinstance(db, store.Staged) else None
    if tables is not None:
        return _from_tables(tables)
    with store.reading(db) as query:
        return _load(query)


def _load(query) -> SiteData:
    texts: dict[str, str] = {}
    # This database's tables (a build's database in memory has its file attached beside it while it is written).
    listed = query("SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database()")
    tables = {t for (t,) in listed[1]}
    names, _ = query("SELECT * FROM results LIMIT 0")
    return _assemble(
        rounds=_rows(query, "SELECT * FROM rounds ORDER BY kind = 'published', date DESC, id"),
        benchmarks=_rows(query, "SELECT * FROM benchmarks ORDER BY id"),
        accelerators=_rows(query, "SELECT * FROM accelerators ORDER BY id"),
        prices=_rows(query, f"SELECT * FROM prices ORDER BY {', '.join(PRICE_ORDER)}"),
        rules=_rows(query, "SELECT * FROM benchmark_rounds"),
        results=_rows(query, f"SELECT * FROM results ORDER BY {', '.join(RESULT_ORDER)}", texts, ResultRow),
        costs=_rows(query, "SELECT * FROM costs ORDER BY entry_id, tier", texts),
        runs=_rows(query, "SELECT * FROM runs ORDER BY entry_id, run", texts),
        progress=_rows(query, "SELECT * FROM progress ORDER BY entry_id, row", texts) if "progress" in tables else [],
        epoch=_rows(query, "SELECT * FROM epoch_cost_comparison ORDER BY entry_id, tier")
        if "epoch_cost_comparison" in tables
        else None,
        skipped=_rows(query, "SELECT * FROM skipped_results") if "skipped_results" in tables else [],
        organizations=_rows(query, "SELECT * FROM organizations") if "organizations" in tables else [],
        columns=names,
    )


# The prices' order, every column: the same order whichever way the rows were loaded.
PRICE_ORDER = ("accelerator", "tier", "provider", "date", "usd", "unit", "source", "note", "includes_host", "price_id")


def _from_tables(tables: dict[str, list[dict]]) -> SiteData:
    """As _load, from the rows a build fills its database with (store.tables), which it gives up."""
    shared: dict[str, str] = {}

    def read(name: str, order=(), texts=None, kind=dict) -> list[dict]:
        return read_back(store.metadata.tables[name], tables.get(name, []), order, texts, kind, owned=True)

    rounds = read("rounds", [("date", True), "id"])
    rounds.sort(key=lambda r: r["kind"] == "published")  # stable: by date, then id, within each kind
    return _assemble(
        rounds=rounds,
        benchmarks=read("benchmarks", ["id"]),
        accelerators=read("accelerators", ["id"]),
        prices=read("prices", PRICE_ORDER),
        rules=read("benchmark_rounds"),
        results=read("results", RESULT_ORDER, shared, ResultRow),
        costs=read("costs", ["entry_id", "tier"], shared),
        runs=read("runs", ["entry_id", "run"], shared),
        progress=read("progress", ["entry_id", "row"], shared),
        epoch=read("epoch_cost_comparison", ["entry_id", "tier"]),
        skipped=read("skipped_results"),
        organizations=read("organizations"),
        columns=[str(c.name) for c in store.results.columns],
    )


def _assemble(
    rounds,
    benchmarks,
    accelerators,
    prices,
    rules,
    results,
    costs,
    runs,
    progress,
    epoch,
    skipped,
    organizations,
    columns,
) -> SiteData:
    """The site's data from its tables' rows, each in its order."""
    benchmarks = {b["id"]: b for b in benchmarks}
    accelerators = {a["id"]: a for a in accelerators}
    rules = {(r["round"], r["benchmark"]): r for r in rules}
    costs_of: dict[str, dict[str, dict]] = {}
    for cost in costs:
        costs_of.setdefault(cost["entry_id"], {})[cost["tier"]] = cost
    runs_of: dict[str, list[dict]] = {}
    for run in runs:
        runs_of.setdefault(run["entry_id"], []).append(run)
    progress_of: dict[str, list[dict]] = {}
    for item in progress:
        progress_of.setdefault(item["entry_id"], []).append(item)
    docs = {c.name: c.comment or "" for c in store.results.columns}
    columns = [(name, docs.get(name, "")) for name in columns]

    for row in results:
        entry_id = row["entry_id"]
        costs = {tier: costs_of.get(entry_id, {}).get(tier) or _no_cost(tier) for tier in TIERS}
        for tier, cost in costs.items():
            cost["note"] = cost_note(tier, row["date"], cost)  # the remarks the pages show, in words
        # One update a row, not one call of ResultRow's __setitem__ a value (40,000 of them).
        row.update(
            costs=costs,
            cost_by_tier={tier: costs[tier]["cost_usd"] for tier in TIERS},
            path=entry_path(entry_id),
            # Processors counted as the chips (results.cpu_only): every page says CPUs, not chips.
            cpu_only=bool(row.get("cpu_only")),
            # One page per organization, whichever of its names a result was published under.
            submitter_path=submitter_path(row.get("organization") or row["submitter"]),
            accelerator_path=accelerator_path(row["accelerator"]),
            verified_note=None if row.get("verified") else unverified_note(row["round_kind"]),
            model_text=likeness.model_text(row.get("model_name"), row.get("model_parameters")),
            run_rows=runs_of.get(entry_id, []),
            progress_rows=progress_of.get(entry_id, []),
        )

    republished_notes(results, rounds)
    as_of = site_prices.annotate(results, accelerators, prices)
    boards = _boards(results, rounds, benchmarks, rules)
    names = {b["id"]: b["name"] for b in benchmarks.values()}
    data = SiteData(
        rounds,
        benchmarks,
        accelerators,
        prices,
        results,
        columns,
        boards,
        epoch,
        skipped=left_off.by_round(skipped, names),
    )
    data.organizations = {o["name"]: o for o in organizations}
    data.prices_as_of, data.price_anomalies = as_of, site_prices.part_anomalies(accelerators, prices)
    for row in results:
        row.frozen = True
    return data


def republished_notes(results: list[dict], rounds: list[dict]) -> None:
    """Give each result `republished_note` ("Republished from <round>", or "Published twice in
    <round>" for a twin of its own round) and `republished_path` (its first publication's entry
    page), both None for a first publication."""
    round_names = {r["id"]: r["name"] for r in rounds}
    by_id = {r["entry_id"]: r for r in results}
    for row in results:
        first = by_id.get(row.get("republished_from") or "")
        twice = first is not None and first["round"] == row["round"]
        where = "Published twice in" if twice else "Republished from"
        row.update(
            republished_note=f"{where} {round_names[first['round']]}" if first else None,
            republished_path=entry_path(first["entry_id"]) if first else None,
        )


def _no_cost(tier: str) -> dict:
    return {
        "tier": tier,
        "provider": None,
        "usd_per_chip_hour": None,
        "cost_usd": None,
        "price_date": None,
        "price_source": None,
        "price_id": None,
        "price_origin": None,
        "price_after_result": None,
        "price_after_result_days": None,
        "price_estimate": None,
        "cost_missing_reason": "no cost computed",
    }


def _boards(results: list[dict], rounds: list[dict], benchmarks: dict[str, dict], rules: dict) -> list[Board]:
    boards: dict[tuple[str, str], Board] = {}
    round_by_id = {r["id"]: r for r in rounds}
    for row in results:
        key = (row["round"], row["benchmark"])
        if key not in boards:
            boards[key] = Board(round_by_id[row["round"]], benchmarks[row["benchmark"]], rules.get(key))
        boards[key].divisions.setdefault(row["division"], []).append(row)
    round_order = {r["id"]: i for i, r in enumerate(rounds)}
    ordered = sorted(
        boards.values(), key=lambda b: (round_order[b.round["id"]], b.benchmark["name"], b.benchmark["id"])
    )
    for board in ordered:
        board.divisions = {d: board.divisions[d] for d in sorted(board.divisions, key=_division_order)}
        for division, rows in board.divisions.items():
            board.divisions[division] = rank_rows(rows, board.rank_metric)
    return ordered


def _division_order(division: str) -> tuple[int, str]:
    return (DIVISIONS.index(division) if division in DIVISIONS else len(DIVISIONS), division)


def rank_rows(rows: list[dict], metric: str) -> list[dict]:
    """Rows ranked by `metric` (fewest first, ties share a rank, no value last), each given
    `board_rank`; a row the database does not rank (results.ranked false) gets none. For MLPerf
    boards this is the database's rank by minutes."""
    values = [
        (row["cost_usd"] if metric == "cost" else row[metric]) if row.get("ranked", True) else None for row in rows
    ]
    for row, rank in zip(rows, metric_ranks(values, metric), strict=True):
        row["board_rank"] = rank
    return sorted(rows, key=lambda r: (r["board_rank"] is None, r["board_rank"] or 0, r["entry_id"]))


def pareto_frontier(points: list[tuple[float, float]]) -> list[bool]:
    """For (minutes, cost) points: True where no other point is at least as fast and cheaper,
    or faster and as cheap (the fastest result for its cost)."""
    flags = [False] * len(points)
    best_cost = float("inf")
    for index in sorted(range(len(points)), key=lambda i: points[i]):
        if points[index][1] < best_cost:
            flags[index] = True
            best_cost = points[index][1]
    return flags


def records(board: Board) -> dict[str, dict]:
    """Per division, the best result by the board's metric (the record holder)."""
    return {division: rows[0] for division, rows in board.divisions.items() if rows and rows[0]["board_rank"] == 1}


def record_history(results: list[dict]) -> list[dict]:
    """Every result that set a new record for its round x benchmark x division when it was
    published, in date order: the feed's record entries. Only ranked results hold records."""
    groups: dict[tuple, list[dict]] = {}
    for row in results:
        if not row.get("ranked", True):
            continue
        groups.setdefault((row["round"], row["benchmark"], row["division"]), []).append(row)
    held = []
    for rows in groups.values():
        # A weak-scaling board (its results count models) ranks by models per minute, the most first.
        scaling = "weak" if rows[0].get("models_per_minute") is not None else None
        metric = rank_metric(rows[0]["round_kind"], scaling)
        sign = -1 if metric in HIGHER_IS_BETTER else 1
        best = None
        for row in sorted(rows, key=lambda r: (r["date"], r[metric] is None, sign * (r[metric] or 0), r["entry_id"])):
            if row[metric] is not None and (best is None or sign * row[metric] < sign * best):
                best = row[metric]
                held.append({**row, "record_metric": metric})
    return sorted(held, key=lambda r: (r["date"], r["entry_id"]))


FAMOUS_MODELS = (
    "BERT",
    "GPT-2",
    "GPT-3",
    "XLNet",
    "BigGAN",
    "StyleGAN",
    "AlphaGo",
    "T5",
    "PaLM",
    "Llama",
    "Chinchilla",
    "Gopher",
    "Megatron",
)


def famous(model_name: str | None) -> str | None:
    """The well-known model family a model belongs to (labelled on the over-time charts), or None."""
    if not model_name:
        return None
    for name in FAMOUS_MODELS:
        if re.search(rf"(?<![A-Za-z]){re.escape(name)}(?![a-z])", model_name, re.IGNORECASE):
            return name
    return None
