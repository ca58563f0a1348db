"""The site's data files: results as CSV, Parquet, JSON and DuckDB, and per-board scripts that
the compare page loads on demand (a <script> works from file://, where fetch() does not).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from leaderboard import store
from leaderboard.normalize import TIERS

if TYPE_CHECKING:
    from leaderboard.render.model import Board
    from leaderboard.render.site import SiteWriter

# A spreadsheet runs a cell that starts with one of these as a formula (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
COST_COLUMNS = [c.name for c in store.cost_table.columns]


def neutralize(value: object) -> object:
    """A text cell a spreadsheet would run as a formula, prefixed with ' so it stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(columns: list[str], rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row[c] is None else neutralize(row[c]) for c in columns])
    return out.getvalue()


def json_text(columns: list[str], rows: list[dict]) -> str:
    """A JSON array of objects, one result per line (diffs stay readable)."""
    lines = [json.dumps({c: row[c] for c in columns}, ensure_ascii=False) for row in rows]
    return "[\n" + ",\n".join(lines) + "\n]\n"


def parquet_bytes(columns: list[str], rows: list[dict]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pydict({c: [row[c] for row in rows] for c in columns})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


DATABASE = "data/leaderboard.duckdb"


def write_all(site: SiteWriter, db: str | Path, previous: Path | None = None) -> None:
    """data/results.{csv,parquet,json}, data/costs.csv and data/leaderboard.duckdb; `previous`
    is the site being replaced, whose DuckDB file is kept when its content is unchanged."""
    data = site.data
    columns = [name for name, _ in data.columns]
    site.write("data/results.csv", csv_text(columns, data.results))
    site.write("data/results.json", json_text(columns, data.results))
    site.write("data/results.parquet", parquet_bytes(columns, data.results))
    cost_rows = [{"entry_id": r["entry_id"], **r["costs"][tier], "tier": tier} for r in data.results for tier in TIERS]
    site.write("data/costs.csv", csv_text(COST_COLUMNS, cost_rows))
    target = site.path(DATABASE)
    if store.is_url(db):
        _duckdb_copy(target, columns, data.results, cost_rows)
    else:
        shutil.copyfile(db, target)
    _keep_unchanged_database(site, target, previous / DATABASE if previous is not None else None)


def _keep_unchanged_database(site: SiteWriter, target: Path, previous: Path | None) -> None:
    """DuckDB writes random identifiers into every new file, so the same data never gives the
    same bytes: when the previous site's file holds exactly the same tables and rows, ship
    its bytes again, so a rebuild from unchanged input leaves the site byte-identical. The
    previous file's content hash comes from the page manifest when recorded there."""
    if site.reuse is None or previous is None:
        return
    try:
        content = database_digest(target)
        key = f"database {content}"
        if site.reuse.unchanged(DATABASE, key):
            target.unlink()
            site.keep(DATABASE)
            return
        if DATABASE not in site.reuse.old and previous.is_file() and database_digest(previous) == content:
            shutil.copyfile(previous, target)  # no manifest (first rebuild, cache deleted): compare the files
        site.reuse.record(DATABASE, key, target.read_bytes(), target)
    except (OSError, duckdb.Error):
        pass  # an unreadable previous file only means a new one is shipped


def database_digest(path: Path) -> str:
    """A hash of every table of a DuckDB file: names, columns, types and rows (in sorted order)."""
    digest = hashlib.sha256()
    with duckdb.connect(str(path), read_only=True) as connection:
        tables = connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name"
        ).fetchall()
        for (table,) in tables:
            cursor = connection.execute(f'SELECT * FROM "{table}"')
            columns = [(d[0], str(d[1])) for d in cursor.description]
            rows = sorted(repr(row) for row in cursor.fetchall())
            digest.update(json.dumps([table, columns, rows]).encode())
    return digest.hexdigest()


def _duckdb_copy(target: Path, columns: list[str], results: list[dict], cost_rows: list[dict]) -> None:
    """A server database has no file to ship: write its results and costs into a DuckDB file."""
    import pyarrow as pa

    results_table = pa.Table.from_pydict({c: [r[c] for r in results] for c in columns})  # noqa: F841
    costs_table = pa.Table.from_pydict({c: [r[c] for r in cost_rows] for c in COST_COLUMNS})  # noqa: F841
    with duckdb.connect(str(target)) as connection:
        connection.execute("CREATE TABLE results AS SELECT * FROM results_table")
        connection.execute("CREATE TABLE costs AS SELECT * FROM costs_table")


def board_script(board: Board) -> str:
    """The board's results for the compare page, as a script that registers them."""
    rows = [
        {
            "entry_id": r["entry_id"],
            "path": r["path"],
            "round": board.round["name"],
            "benchmark": board.benchmark["name"],
            "division": r["division"],
            "availability": r["availability"],
            "submitter": r["submitter"],
            "system": r["system"],
            "accelerator": r["accelerator_name"],
            "chips": r["chips"],
            "minutes": r["minutes"],
            "chip_hours": r["chip_hours"],
            "costs": r["cost_by_tier"],
            "quality": r["quality"],
            "quality_target": r["quality_target"],
            "rank": r["board_rank"],
            "date": r["date"],
            "model": r["model_name"],
            "verified": r["verified"],
            "source_url": r["source_url"],
            # What a leaderboard page needs to draw the row (site.js), formatted as the templates do.
            "accelerator_id": r["accelerator"],
            "accelerator_path": r["accelerator_path"],
            "submitter_path": r["submitter_path"],
            "source_citation": r["source_citation"],
            "verified_note": r["verified_note"],
            "estimated": bool(r["estimated"]),
            "quality_text": None if r["quality"] is None else f"{r['quality']:.4g}",
            "target_text": None if r["quality_target"] is None else f"{r['quality_target']:.4g}",
            "search": " ".join(
                [r["submitter"], r["system"], r["accelerator_name"], r["model_name"] or "", r["framework"] or ""]
            ).lower(),
        }
        for r in board.rows
    ]
    payload = {"key": board.key, "title": board.title, "rank_metric": board.rank_metric, "rows": rows}
    text = json.dumps(payload, ensure_ascii=True, sort_keys=True, separators=(",", ":")).replace("<", "\\u003c")
    return f"(window.leaderboardBoards = window.leaderboardBoards || {{}})[{json.dumps(board.key)}] = {text};\n"
