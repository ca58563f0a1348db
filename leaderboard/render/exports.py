"""The site's downloads of the database's tables, as DuckDB's own writers write them: what each
file holds (its query), the key of what it is made from, and the writing itself.

Run on a DuckDB connection whose current database holds the tables: the build's database in
memory, in the process that fills it (store.Staged, downloads.Preparing), or a database file
attached in the build's own (downloads.write_all). The queries name no database, so a download's
key is the same on either.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from leaderboard import store
from leaderboard.normalize import TIERS
from leaderboard.render.model import RESULT_ORDER

if TYPE_CHECKING:
    import duckdb

# A spreadsheet runs a cell that starts with one of these as a formula (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
COST_COLUMNS = [c.name for c in store.cost_table.columns]
RUN_COLUMNS = [c.name for c in store.run_table.columns]
# Every table of the database (the README's reference), by name, with its key columns: each
# ships as data/<table>.csv, data/<table>.parquet and data/<table>.arrow.
TABLES = {t.name: [c.name for c in t.primary_key.columns] for t in store.metadata.sorted_tables}
ORDER = "results order"  # what the downloads of costs and runs read of the results
# The version of the Arrow files' writer, in their keys (a new one may write other bytes).
# pyarrow's own, read from its package's metadata: importing it (and numpy) takes a build's
# process a seventh of a second, and only the file's writer needs it.
ARROW_WRITER = "pyarrow"


@dataclass
class Plan:
    """Every download of a database: how each table's files are written, and each file's key."""

    copies: dict[str, tuple[str, str]]  # file -> (query, COPY's options)
    arrows: dict[str, str]  # an Arrow file -> the Parquet file it is read from
    keys: dict[str, str]  # every file's key (copies and arrows)
    tables: list[str]  # the tables that ship, in TABLES' order (a database from elsewhere may lack some)
    content: str  # a hash of every table (the database file's own key)


def plan(connection: duckdb.DuckDBPyConnection, columns: list[str], known: dict[str, str | None]) -> Plan:
    """The downloads of the connection's current database; `columns`: the results columns that
    ship, in order; `known`: digests of tables as they were loaded (see table_digests)."""
    digests = table_digests(connection, known)
    kinds = _kinds(connection, "results")
    order = ", ".join(RESULT_ORDER)
    plain = f"SELECT {', '.join(map(identifier, columns))} FROM results ORDER BY {order}"
    as_text = ", ".join(neutralized(identifier(c), kinds[c], c) for c in columns)
    runs = _runs_copies(connection)
    copies = {
        "data/results.csv": (f"SELECT {as_text} FROM results ORDER BY {order}", "HEADER, DELIMITER ','"),
        "data/results.json": (plain, "FORMAT JSON, ARRAY true"),
        "data/results.parquet": (plain, _parquet_options("results")),
        "data/costs.csv": (_costs_query(connection), "HEADER, DELIMITER ','"),
        **runs,
    }
    # What each file reads: costs and runs come in the results' order, not with their other columns
    # (a result's citation edited leaves them as they were).
    reads_from = {**digests, ORDER: _order_digest(connection)}
    reads = {relative: ["results"] if relative.startswith("data/results.") else [ORDER] for relative in copies}
    reads["data/costs.csv"].append("costs")
    for relative in runs:
        reads[relative].append("runs")
    tables = [name for name in TABLES if name in digests]
    for name in tables:  # every other table, as CSV and Parquet, in key order
        key = TABLES[name]
        kinds = _kinds(connection, name)
        order = ", ".join(map(identifier, key)) or "ALL"
        plain = f"SELECT * FROM {identifier(name)} ORDER BY {order}"
        as_text = ", ".join(neutralized(identifier(c), k, c) for c, k in kinds.items())
        copies.setdefault(f"data/{name}.parquet", (plain, _parquet_options(name)))
        copies.setdefault(
            f"data/{name}.csv",
            (f"SELECT {as_text} FROM {identifier(name)} ORDER BY {order}", "HEADER, DELIMITER ','"),
        )
        reads.setdefault(f"data/{name}.parquet", [name])
        reads.setdefault(f"data/{name}.csv", [name])
    keys = {relative: _key(relative, copy, reads[relative], reads_from) for relative, copy in copies.items()}
    arrows = {f"data/{name}.arrow": f"data/{name}.parquet" for name in tables}
    writer = _arrow_writer_version()
    for arrow, parquet in arrows.items():
        keys[arrow] = _key(arrow, ["arrow", keys[parquet], writer], [], reads_from)
    return Plan(copies, arrows, keys, tables, combined(digests))


def write(connection: duckdb.DuckDBPyConnection, plan_: Plan, relative: str, target: str) -> None:
    """One download (not an Arrow file: write_arrows) from the connection's current database."""
    query, options = plan_.copies[relative]
    connection.execute(f"COPY ({query}) TO {literal(target)} ({options})")


def write_arrows(pairs: list[tuple[str, str]], own_process: bool = False) -> None:
    """Each (Parquet file, Arrow file): the table's Parquet file again as an Arrow IPC file (the
    random-access format, which pyarrow.feather.read_table and pyarrow.ipc.open_file read), for
    Arrow's tools. Read back from the Parquet file (not from DuckDB, whose buffers under NULL
    values vary from run to run), so the same rows always give the same bytes. ParquetFile, not
    read_table(), which imports pandas. Imports pyarrow: call it in a process of its own where
    another thread may import Altair (which checks whether numpy is imported, and would see it
    half-initialized), or where the import would wait for nothing else. `own_process`: this
    process was forked for the work and imports nothing more after it: pyarrow is imported
    without numpy, which writing Arrow files does not use (0.05 s less of a rebuild's
    database process)."""
    if not pairs:
        return
    # numpy, which pyarrow imports, starts OpenBLAS's threads, which spin waiting for work that
    # never comes: a tenth of a second of a rebuild's processor time, in this process of its own
    # (which does no linear algebra).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with _numpy_left_out(own_process):
        import pyarrow as pa
        import pyarrow.parquet as pq

    for parquet, target in pairs:
        table = pq.ParquetFile(parquet).read().combine_chunks()
        with pa.OSFile(target, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)


@contextmanager
def _numpy_left_out(leave_out: bool) -> Iterator[None]:
    """While pyarrow is imported for the first time (`leave_out`, and numpy not imported yet),
    `import numpy` fails, and pyarrow, for which numpy is optional, goes on without it."""
    left_out = leave_out and "numpy" not in sys.modules and "pyarrow" not in sys.modules
    if left_out:
        sys.modules["numpy"] = None  # type: ignore[assignment] - Python's own "import fails" mark
    try:
        yield
    finally:
        if left_out and "numpy" in sys.modules and sys.modules["numpy"] is None:
            del sys.modules["numpy"]


def _arrow_writer_version() -> str:
    from importlib.metadata import version

    return version(ARROW_WRITER)


def table_digests(connection: duckdb.DuckDBPyConnection, known: dict[str, str | None] | None = None) -> dict[str, list]:
    """Each table of the connection's current database: its columns and types, its row count and a
    hash of its rows (the hashes of the rows as JSON, sorted), computed by DuckDB; or, for a table
    in `known`, the digest its rows had when the build loaded them (loading.rows_digest: 0.4 s of
    hashing that a rebuild saves)."""
    found = {}
    tables = connection.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database() "
        "AND table_schema = current_schema() ORDER BY table_name"
    ).fetchall()
    for (table,) in tables:
        if (known or {}).get(table):
            found[table] = [table, known[table]]
            continue
        name = identifier(table)
        columns = connection.execute(f"SELECT column_name, column_type FROM (DESCRIBE {name})").fetchall()
        # Each row's hash, then the hash of them all in order: never one string of every row.
        count, rows = connection.execute(
            "SELECT count(*), sha256(coalesce(string_agg(h, '' ORDER BY h), '')) "
            f"FROM (SELECT sha256(to_json(t)::VARCHAR) AS h FROM {name} t)"
        ).fetchone()
        found[table] = [table, columns, count, rows]
    return found


def combined(tables: dict[str, list]) -> str:
    digest = hashlib.sha256()
    for table in sorted(tables):
        digest.update(json.dumps(tables[table]).encode())
    return digest.hexdigest()


def _key(relative: str, how: object, reads: list[str], tables: dict[str, list]) -> str:
    """What a download is made from: its query and options, the digests of the tables it reads,
    and the versions of the writers (a new one may write other bytes)."""
    import duckdb

    text = json.dumps([relative, how, [tables.get(t) for t in reads], duckdb.__version__], sort_keys=True)
    return "export " + hashlib.sha256(text.encode()).hexdigest()


def _order_digest(connection: duckdb.DuckDBPyConnection) -> list:
    """A hash of what the results' order rests on (RESULT_ORDER's columns), as table_digests hashes a table."""
    columns = ", ".join(map(identifier, RESULT_ORDER))
    (rows,) = connection.execute(
        "SELECT sha256(coalesce(string_agg(h, '' ORDER BY h), '')) "
        f"FROM (SELECT sha256(to_json(t)::VARCHAR) AS h FROM (SELECT {columns} FROM results) t)"
    ).fetchone()
    return [ORDER, list(RESULT_ORDER), rows]


def literal(value: object) -> str:
    """A SQL string literal (for the file names of ATTACH and COPY, which take no parameters)."""
    return "'" + str(value).replace("'", "''") + "'"


def identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _parquet_options(table: str) -> str:
    """COPY's options for a table's Parquet file: each column's description from the database's
    schema (schema_tables) as the file's key-value metadata, 'description:<column>' ->
    text, which pyarrow reads as pq.read_metadata(path).metadata (and the .arrow file keeps)."""
    columns = store.metadata.tables[table].columns if table in store.metadata.tables else []
    pairs = ", ".join(f"{literal('description:' + c.name)}: {literal(c.comment)}" for c in columns if c.comment)
    return "FORMAT PARQUET, COMPRESSION ZSTD" + (f", KV_METADATA {{{pairs}}}" if pairs else "")


def neutralized(expression: str, kind: str, name: str) -> str:
    """A select item `expression AS name`; text a spreadsheet would run as a formula gets a ' in
    front. One anchored regular expression: a fourth of the time of comparing the first character
    (a CASE over left(), which took most of the time of writing results.csv)."""
    if kind != "VARCHAR":
        return f"{expression} AS {identifier(name)}"
    starts = "".join(FORMULA_STARTS).replace("-", "") + "-"  # "-" last: itself, not a range, in the class
    return f"regexp_replace({expression}, {literal('^([' + starts + '])')}, {literal(chr(39) + chr(92) + '1')}) AS {identifier(name)}"


def _kinds(connection: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    return dict(connection.execute(f"SELECT column_name, column_type FROM (DESCRIBE {identifier(table)})").fetchall())


def _runs_copies(connection: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, str]]:
    """data/runs.{csv,parquet,json}: every run, in the site's order of results, then run order."""
    kinds = _kinds(connection, "runs")
    order = ", ".join([*(f"r.{c}" for c in RESULT_ORDER), "u.run"])
    source = f"FROM runs u JOIN results r USING (entry_id) ORDER BY {order}"
    plain = ", ".join(f"u.{identifier(c)}" for c in RUN_COLUMNS)
    as_text = ", ".join(neutralized(f"u.{identifier(c)}", kinds[c], c) for c in RUN_COLUMNS)
    return {
        "data/runs.csv": (f"SELECT {as_text} {source}", "HEADER, DELIMITER ','"),
        "data/runs.json": (f"SELECT {plain} {source}", "FORMAT JSON, ARRAY true"),
        "data/runs.parquet": (f"SELECT {plain} {source}", _parquet_options("runs")),
    }


def _costs_query(connection: duckdb.DuckDBPyConnection) -> str:
    """Every result x every tier, in the site's order; a tier without a cost row says so."""
    kinds = _kinds(connection, "costs")
    tiers = ", ".join(f"({literal(tier)}, {i})" for i, tier in enumerate(TIERS))
    expressions = {
        "entry_id": "r.entry_id",
        "tier": "t.tier",
        "cost_missing_reason": "CASE WHEN c.entry_id IS NULL THEN 'no cost computed' ELSE c.cost_missing_reason END",
    }
    items = [neutralized(expressions.get(c, f"c.{identifier(c)}"), kinds[c], c) for c in COST_COLUMNS]
    order = ", ".join(f"r.{c}" for c in RESULT_ORDER)
    return (
        f"SELECT {', '.join(items)} FROM results r CROSS JOIN (VALUES {tiers}) t(tier, position) "
        f"LEFT JOIN costs c ON c.entry_id = r.entry_id AND c.tier = t.tier ORDER BY {order}, t.position"
    )
