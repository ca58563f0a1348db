"""Open results database and leaderboard for ML training benchmarks.

The Python API for notebooks: connect(), results(), validate().
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

# Load the submodule first: a submodule imported later would replace the function of the
# same name on the package.
import leaderboard.validate as _validate_module

DEFAULT_DB = "leaderboard.duckdb"
# The environment variable that names the database when no path does (the CLI's --db too).
DB_ENV = "LEADERBOARD_DB"


def database(db: str | Path | None = None) -> str | Path:
    """`db`, else $LEADERBOARD_DB, else leaderboard.duckdb in the current folder."""
    import os

    return db if db is not None else os.environ.get(DB_ENV) or DEFAULT_DB


def connect(db: str | Path | None = None):
    """A read-only DuckDB connection to the built database (see database())."""
    from leaderboard.store import connect as _connect

    return _connect(database(db))


def results(db: str | Path | None = None, **filters):
    """The `results` table as a pandas DataFrame; keyword filters are column = value
    (a list or tuple means any of; None matches NULL), for example
    results(benchmark="resnet", division="closed") or results(cost_usd=None)."""
    from leaderboard.store import results as table

    columns = {c.name for c in table.columns}
    unknown = set(filters) - columns
    if unknown:
        raise ValueError(f"unknown column(s) {', '.join(sorted(unknown))}; columns: {', '.join(sorted(columns))}")
    where, params = [], []
    for name, value in filters.items():
        values = list(value) if isinstance(value, (list, tuple, set)) else [value]
        known = [v for v in values if v is not None]
        either = [f'"{name}" IN ({", ".join("?" * len(known))})'] if known else []
        either += [f'"{name}" IS NULL'] if len(known) < len(values) else []  # IN (NULL) matches nothing
        where.append("(" + " OR ".join(either or ["false"]) + ")")
        params += known
    sql = "SELECT * FROM results" + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY round, benchmark, division, rank, entry_id"
    with connect(db) as connection:
        return connection.execute(sql, params).df()


def validate(paths: Iterable[str | Path] = ("submissions",), catalog: str | Path = "catalog"):
    """Validate files and folders; the result has .ok, .problems (file, line, col, json_path,
    message, hint) and .entries."""
    return _validate_module.validate_paths([Path(p) for p in paths], Path(catalog))
