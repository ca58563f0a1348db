"""The site's data files: results as CSV, Parquet, JSON and DuckDB, and per-board scripts that
the compare page loads on demand (a <script> works from file://, where fetch() does not).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

# Imported here, not where they are used: the downloads are written on a thread of their own
# (site.py), and a module imported there is seen half-initialized by the pages' thread (Altair
# checks whether numpy and pandas are imported). pyarrow imports numpy; pandas is never needed.
import pyarrow as pa
import pyarrow.parquet as pq

from leaderboard import costs_at, loading, store
from leaderboard.cache import folder_beside
from leaderboard.normalize import TIERS
from leaderboard.render.model import RESULT_ORDER

if TYPE_CHECKING:
    from leaderboard.render.model import Board
    from leaderboard.render.writer import SiteWriter

# A spreadsheet runs a cell that starts with one of these as a formula (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
COST_COLUMNS = [c.name for c in store.cost_table.columns]
RUN_COLUMNS = [c.name for c in store.run_table.columns]
# Every table of the database (the README's reference), by name, with its key columns: each
# ships as data/<table>.csv, data/<table>.parquet and data/<table>.arrow.
TABLES = {t.name: [c.name for c in t.primary_key.columns] for t in store.metadata.sorted_tables}
DATABASE = "data/leaderboard.duckdb"
ORDER = "results order"  # what the downloads of costs and runs read of the results
# Exporting sorts every result; unbounded, DuckDB takes up to most of the machine's memory
# for it. Beyond the limit it spills to a folder in the build's cache.
EXPORT_MEMORY = "512MB"


def write_all(site: SiteWriter, db: str | Path | store.Staged, previous: Path | None = None) -> None:
    """data/results.{csv,parquet,json}, data/costs.csv and data/leaderboard.duckdb; `previous`
    is the site being replaced, whose DuckDB file is kept when its content is unchanged.

    The files are exported from the site's DuckDB file by DuckDB's own writers: no Python
    object per value, so the step stays short at 100,000 results. A build's database
    (store.Staged) is copied once its process has written its file; its tables' digests are
    those of the rows it was filled with."""
    known: dict[str, str | None] = {}
    staged = isinstance(db, store.Staged)
    if staged:
        known = db.digests
        db = db.write_aside()
    target = Path(site.fresh(DATABASE))
    if store.is_url(db):
        _duckdb_copy(target, str(db))
    elif staged:
        # Written in store.STORAGE_VERSION with nothing left in a write-ahead log: its bytes, without
        # opening it to check (a tenth of a second before the first download).
        shutil.copyfile(db, target)
    else:
        _storage_copy(Path(db), target)
    spill = folder_beside(previous if previous is not None else target) / "duckdb-spill"
    config = {"memory_limit": EXPORT_MEMORY, "temp_directory": str(spill)}
    with duckdb.connect(config=config) as connection:
        connection.execute(f"ATTACH {_literal(target)} AS site_copy (READ_ONLY)")
        try:
            tables = _table_digests(connection, "site_copy", known)
            _export(connection, site, [name for name, _ in site.data.columns], tables)
            content = _combined(tables)
        finally:
            connection.execute("DETACH site_copy")
    _keep_unchanged_database(site, target, previous / DATABASE if previous is not None else None, content)


def _literal(value: object) -> str:
    """A SQL string literal (for the file names of ATTACH and COPY, which take no parameters)."""
    return "'" + str(value).replace("'", "''") + "'"


def _parquet_options(table: str) -> str:
    """COPY's options for a table's Parquet file: each column's description from the database's
    schema (schema_tables) as the file's key-value metadata, 'description:<column>' ->
    text, which pyarrow reads as pq.read_metadata(path).metadata (and the .arrow file keeps)."""
    columns = store.metadata.tables[table].columns if table in store.metadata.tables else []
    pairs = ", ".join(f"{_literal('description:' + c.name)}: {_literal(c.comment)}" for c in columns if c.comment)
    return "FORMAT PARQUET, COMPRESSION ZSTD" + (f", KV_METADATA {{{pairs}}}" if pairs else "")


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _neutralized(expression: str, kind: str, name: str) -> str:
    """A select item `expression AS name`; text a spreadsheet would run as a formula gets a ' in front."""
    if kind != "VARCHAR":
        return f"{expression} AS {_identifier(name)}"
    starts = ", ".join(_literal(c) for c in FORMULA_STARTS)
    quoted = _literal("'")
    return (
        f"CASE WHEN left({expression}, 1) IN ({starts}) THEN {quoted} || {expression} ELSE {expression} END "
        f"AS {_identifier(name)}"
    )


def _kinds(connection: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    return dict(connection.execute(f"SELECT column_name, column_type FROM (DESCRIBE site_copy.{table})").fetchall())


def _export(
    connection: duckdb.DuckDBPyConnection,
    site: SiteWriter,
    columns: list[str],
    tables: dict[str, list],
) -> None:
    """Every download, each from the tables it reads (`tables`: their digests): the previous
    site's file when those tables hold the same rows as when it was exported."""
    kinds = _kinds(connection, "results")
    order = ", ".join(RESULT_ORDER)
    plain = f"SELECT {', '.join(map(_identifier, columns))} FROM site_copy.results ORDER BY {order}"
    as_text = ", ".join(_neutralized(_identifier(c), kinds[c], c) for c in columns)
    runs = _runs_copies(connection)
    copies = {
        "data/results.csv": (f"SELECT {as_text} FROM site_copy.results ORDER BY {order}", "HEADER, DELIMITER ','"),
        "data/results.json": (plain, "FORMAT JSON, ARRAY true"),
        "data/results.parquet": (plain, _parquet_options("results")),
        "data/costs.csv": (_costs_query(connection), "HEADER, DELIMITER ','"),
        **runs,
    }
    # What each file reads: costs and runs come in the results' order, not with their other columns
    # (a result's citation edited leaves them as they were).
    tables = {**tables, ORDER: _order_digest(connection)}
    reads = {relative: ["results"] if relative.startswith("data/results.") else [ORDER] for relative in copies}
    reads["data/costs.csv"].append("costs")
    for relative in runs:
        reads[relative].append("runs")
    present = {
        name
        for (name,) in connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'site_copy'"
        ).fetchall()
    }
    site.tables = [name for name in TABLES if name in present]  # a database from elsewhere may lack some
    for name in site.tables:  # every other table, as CSV and Parquet, in key order
        key = TABLES[name]
        kinds = _kinds(connection, name)
        order = ", ".join(map(_identifier, key)) or "ALL"
        plain = f"SELECT * FROM site_copy.{_identifier(name)} ORDER BY {order}"
        as_text = ", ".join(_neutralized(_identifier(c), k, c) for c, k in kinds.items())
        copies.setdefault(f"data/{name}.parquet", (plain, _parquet_options(name)))
        copies.setdefault(
            f"data/{name}.csv",
            (f"SELECT {as_text} FROM site_copy.{_identifier(name)} ORDER BY {order}", "HEADER, DELIMITER ','"),
        )
        reads.setdefault(f"data/{name}.parquet", [name])
        reads.setdefault(f"data/{name}.csv", [name])
    keys = {relative: _export_key(relative, copy, reads[relative], tables) for relative, copy in copies.items()}
    kept = set()
    for relative, (query, options) in copies.items():
        if _kept(site, relative, keys[relative]):
            kept.add(relative)
        else:
            connection.execute(f"COPY ({query}) TO {_literal(site.fresh(relative))} ({options})")
            _record(site, relative, keys[relative])
    for name in site.tables:
        parquet, arrow = f"data/{name}.parquet", f"data/{name}.arrow"
        key = _export_key(arrow, ["arrow", keys[parquet], pa.__version__], [], tables)
        if not _kept(site, arrow, key):
            # A kept Parquet file is linked on the writer's thread: read the previous site's, the same bytes.
            source = os.path.join(site.previous, parquet) if parquet in kept else site.file(parquet)
            _write_arrow(source, site.fresh(arrow))
            _record(site, arrow, key)


def _order_digest(connection: duckdb.DuckDBPyConnection) -> list:
    """A hash of what the results' order rests on (RESULT_ORDER's columns), as _table_digests hashes a table."""
    columns = ", ".join(map(_identifier, RESULT_ORDER))
    (rows,) = connection.execute(
        "SELECT sha256(coalesce(string_agg(h, '' ORDER BY h), '')) "
        f"FROM (SELECT sha256(to_json(t)::VARCHAR) AS h FROM (SELECT {columns} FROM site_copy.results) t)"
    ).fetchone()
    return [ORDER, list(RESULT_ORDER), rows]


def _export_key(relative: str, how: object, reads: list[str], tables: dict[str, list]) -> str:
    """What a download is made from: its query and options, the digests of the tables it reads,
    and the versions of the writers (a new one may write other bytes)."""
    text = json.dumps([relative, how, [tables.get(t) for t in reads], duckdb.__version__], sort_keys=True)
    return "export " + hashlib.sha256(text.encode()).hexdigest()


def _kept(site: SiteWriter, relative: str, key: str) -> bool:
    """Whether the previous site's file of a download was made from the same rows, and is kept."""
    if site.reuse is None or site.previous is None or not site.reuse.unchanged(relative, key):
        return False
    site.keep(relative)
    return True


def _record(site: SiteWriter, relative: str, key: str) -> None:
    if site.reuse is not None:
        target = site.path(relative)
        site.reuse.record(relative, key, target.read_bytes(), target)


def _write_arrow(parquet: str, target: str) -> None:
    """The table's Parquet file again as an Arrow IPC file (the random-access format, which
    pyarrow.feather.read_table and pyarrow.ipc.open_file read), for Arrow's tools. Read back
    from the Parquet file (not from DuckDB, whose buffers under NULL values vary from run to
    run), so the same rows always give the same bytes. ParquetFile, not read_table(), which
    imports pandas (see the imports above)."""
    table = pq.ParquetFile(parquet).read().combine_chunks()
    with pa.OSFile(target, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def _runs_copies(connection: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, str]]:
    """data/runs.{csv,parquet,json}: every run, in the site's order of results, then run order."""
    kinds = _kinds(connection, "runs")
    order = ", ".join([*(f"r.{c}" for c in RESULT_ORDER), "u.run"])
    source = f"FROM site_copy.runs u JOIN site_copy.results r USING (entry_id) ORDER BY {order}"
    plain = ", ".join(f"u.{_identifier(c)}" for c in RUN_COLUMNS)
    as_text = ", ".join(_neutralized(f"u.{_identifier(c)}", kinds[c], c) for c in RUN_COLUMNS)
    return {
        "data/runs.csv": (f"SELECT {as_text} {source}", "HEADER, DELIMITER ','"),
        "data/runs.json": (f"SELECT {plain} {source}", "FORMAT JSON, ARRAY true"),
        "data/runs.parquet": (f"SELECT {plain} {source}", _parquet_options("runs")),
    }


def _costs_query(connection: duckdb.DuckDBPyConnection) -> str:
    """Every result x every tier, in the site's order; a tier without a cost row says so."""
    kinds = _kinds(connection, "costs")
    tiers = ", ".join(f"({_literal(tier)}, {i})" for i, tier in enumerate(TIERS))
    expressions = {
        "entry_id": "r.entry_id",
        "tier": "t.tier",
        "cost_missing_reason": "CASE WHEN c.entry_id IS NULL THEN 'no cost computed' ELSE c.cost_missing_reason END",
    }
    items = [_neutralized(expressions.get(c, f"c.{_identifier(c)}"), kinds[c], c) for c in COST_COLUMNS]
    order = ", ".join(f"r.{c}" for c in RESULT_ORDER)
    return (
        f"SELECT {', '.join(items)} FROM site_copy.results r CROSS JOIN (VALUES {tiers}) t(tier, position) "
        f"LEFT JOIN site_copy.costs c ON c.entry_id = r.entry_id AND c.tier = t.tier ORDER BY {order}, t.position"
    )


def _digest(connection: duckdb.DuckDBPyConnection, database: str) -> str:
    """A hash of every table of an attached database (see _table_digests)."""
    return _combined(_table_digests(connection, database))


def _table_digests(
    connection: duckdb.DuckDBPyConnection, database: str, known: dict[str, str | None] | None = None
) -> dict[str, list]:
    """Each table of an attached database: its columns and types, its row count and a hash of its
    rows (the hashes of the rows as JSON, sorted), computed by DuckDB; or, for a table in `known`,
    the digest its rows had when the build loaded them (loading.rows_digest: 0.4 s of hashing a
    rebuild's thread saves)."""
    found = {}
    tables = connection.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = ? ORDER BY table_name", [database]
    ).fetchall()
    for (table,) in tables:
        if (known or {}).get(table):
            found[table] = [table, known[table]]
            continue
        name = f"{_identifier(database)}.{_identifier(table)}"
        columns = connection.execute(f"SELECT column_name, column_type FROM (DESCRIBE {name})").fetchall()
        # Each row's hash, then the hash of them all in order: never one string of every row.
        count, rows = connection.execute(
            "SELECT count(*), sha256(coalesce(string_agg(h, '' ORDER BY h), '')) "
            f"FROM (SELECT sha256(to_json(t)::VARCHAR) AS h FROM {name} t)"
        ).fetchone()
        found[table] = [table, columns, count, rows]
    return found


def _combined(tables: dict[str, list]) -> str:
    digest = hashlib.sha256()
    for table in sorted(tables):
        digest.update(json.dumps(tables[table]).encode())
    return digest.hexdigest()


def database_digest(path: Path) -> str:
    """A hash of every table of a DuckDB file (see _digest)."""
    with duckdb.connect() as connection:
        connection.execute(f"ATTACH {_literal(path)} AS digested (READ_ONLY)")
        try:
            return _digest(connection, "digested")
        finally:
            connection.execute("DETACH digested")


def _keep_unchanged_database(site: SiteWriter, target: Path, previous: Path | None, content: str) -> None:
    """DuckDB writes random identifiers into every new file, so the same data never gives the
    same bytes: when the previous site's file holds exactly the same tables and rows, ship
    its bytes again, so a rebuild from unchanged input leaves the site byte-identical. The
    previous file's content hash comes from the page manifest when recorded there."""
    if site.reuse is None or previous is None:
        return
    key = f"database {content}"
    try:
        if site.reuse.unchanged(DATABASE, key):
            target.unlink()
            site.keep(DATABASE)
            return
        # (`content` may hold digests of rows as loaded: both files are hashed by DuckDB here.)
        if (
            DATABASE not in site.reuse.old
            and previous.is_file()
            and database_digest(previous) == database_digest(target)
        ):
            shutil.copyfile(previous, target)  # no manifest (first rebuild, cache deleted): compare the files
        site.reuse.record(DATABASE, key, target.read_bytes(), target)
    except (OSError, duckdb.Error):
        pass  # an unreadable previous file only means a new one is shipped


def _attach_target(connection: duckdb.DuckDBPyConnection, target: Path) -> None:
    target.unlink(missing_ok=True)
    connection.execute(f"ATTACH {_literal(target)} AS site_target (STORAGE_VERSION {_literal(store.STORAGE_VERSION)})")


def _storage_copy(db: Path, target: Path) -> None:
    """The database file again, every table and key, in store.STORAGE_VERSION's format: its bytes
    when it is already in that format with nothing left in a write-ahead log (as every file a
    build writes is), else copied table by table by DuckDB."""
    with duckdb.connect() as connection:
        connection.execute(f"ATTACH {_literal(db)} AS site_source (READ_ONLY)")
        (tags,) = connection.execute(
            "SELECT tags FROM duckdb_databases() WHERE database_name = 'site_source'"
        ).fetchone()
        if tags.get("storage_version") == store.STORAGE_VERSION + "+" and not Path(f"{db}.wal").exists():
            connection.execute("DETACH site_source")
            target.unlink(missing_ok=True)
            shutil.copyfile(db, target)
            return
        _attach_target(connection, target)
        connection.execute("COPY FROM DATABASE site_source TO site_target")
        connection.execute("DETACH site_target")


def before_thread(db: str | Path) -> None:
    """Import, in the calling thread, what write_all() imports for `db`, before write_all() runs on
    a thread of its own: a server database's copy goes through Arrow tables built from Python
    values, for which pyarrow imports pandas."""
    if store.is_url(db):
        import pandas  # noqa: F401


def _duckdb_copy(target: Path, db: str) -> None:
    """A server database has no file to ship: copy every table into a DuckDB file."""
    with store.reading(db) as query, duckdb.connect() as connection:
        _attach_target(connection, target)
        connection.execute("USE site_target")
        for name in TABLES:
            table = store.metadata.tables[name]
            _names, rows = query(f"SELECT * FROM {_identifier(name)}")
            columns = [c.name for c in table.columns]
            incoming = pa.Table.from_pydict(  # noqa: F841 (read by DuckDB by name)
                {c: [row[i] for row in rows] for i, c in enumerate(columns)}, schema=loading.arrow_schema(table)
            )
            connection.execute(f"CREATE TABLE {_identifier(name)} AS SELECT * FROM incoming")
        connection.execute(costs_at.duckdb_sql())  # the download answers costs_at(...) as the source database does
        connection.execute("USE memory")
        connection.execute("DETACH site_target")


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
            "models": r["models"],
            "models_per_minute": r["models_per_minute"],
            "chip_hours": r["chip_hours"],
            "costs": r["cost_by_tier"],
            # Each cost's marks (a later price and its gap, an estimate) and the costs at the
            # catalog's latest prices, for the boards' price toggle (render/prices.py).
            "marks": {tier: "; ".join(cost["marks"]) for tier, cost in r["costs"].items()},
            "latest_costs": r["latest_costs"],
            "latest_marks": {tier: "; ".join(marks) for tier, marks in r["latest_marks"].items()},
            # What each cost rests on ("$2.48/chip-hour, AWS"), shown under it (render/prices.py).
            "bases": {tier: cost["basis"] for tier, cost in r["costs"].items()},
            "latest_bases": r["latest_bases"],
            # Why a tier has no cost, where it has none (shown behind an "n/a" disclosure).
            "cost_notes": {t: c["note"] for t, c in r["costs"].items() if c["cost_usd"] is None and c.get("note")},
            "quality": r["quality"],
            "quality_target": r["quality_target"],
            "rank": r["board_rank"],
            "ranked": bool(r.get("ranked", True)),
            "date": r["date"],
            "model": r["model_name"],
            "model_parameters": r["model_parameters"],
            "model_text": r["model_text"],
            "verified": r["verified"],
            "source_url": r["source_url"],
            # What a leaderboard page needs to draw the row (site.js), formatted as the templates do.
            "accelerator_id": r["accelerator"],
            "accelerator_path": r["accelerator_path"],
            "submitter_path": r["submitter_path"],
            "source_citation": r["source_citation"],
            "verified_note": r["verified_note"],
            "republished_note": r.get("republished_note"),
            "republished_path": r.get("republished_path"),
            "estimated": bool(r["estimated"]),
            "quality_text": None if r["quality"] is None else f"{r['quality']:.4g}",
            "target_text": None if r["quality_target"] is None else f"{r['quality_target']:.4g}",
            "search": " ".join(
                [r["submitter"], r["system"], r["accelerator_name"], r["model_name"] or "", r["framework"] or ""]
            ).lower(),
        }
        for r in board.rows
    ]
    payload = {
        "key": board.key,
        "title": board.title,
        "rank_metric": board.rank_metric,
        "reference_model": board.benchmark.get("reference_model"),
        "rows": rows,
    }
    text = json.dumps(payload, ensure_ascii=True, sort_keys=True, separators=(",", ":")).replace("<", "\\u003c")
    return f"(window.leaderboardBoards = window.leaderboardBoards || {{}})[{json.dumps(board.key)}] = {text};\n"
