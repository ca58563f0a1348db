"""The database: an atomic rebuild of the tables (schema_tables.py), read-only access.

DuckDB by default, through SQLAlchemy. A build writes a new file beside the old one and
renames it over, so a reader never sees a half-written database.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict
from itertools import chain
from pathlib import Path

import duckdb
import orjson
import sqlalchemy as sa

from leaderboard import costs_at
from leaderboard.catalog import Catalog
from leaderboard.rows import TableRows, comparison_rows
from leaderboard.schema_tables import (  # noqa: F401 - the tables are part of store's API
    accelerators,
    benchmark_rounds,
    benchmarks,
    cost_table,
    epoch_cost_comparison,
    metadata,
    prices,
    progress_table,
    results,
    rounds,
    run_table,
    skipped_results,
    table_docs,
)
from leaderboard.statements import EmptyQuery, RefusedQuery, single_statement  # noqa: F401


def is_url(db: str | Path | Staged) -> bool:
    return isinstance(db, str | Path) and "://" in str(db)


# The storage format of every DuckDB file written: the oldest that holds every type the tables
# use, so DuckDB 1.0 and later read it (the SQL page's DuckDB-WASM, an analyst's older CLI); a
# newer DuckDB's own format is one older ones refuse ("a newer version of DuckDB").
STORAGE_VERSION = "v1.0.0"


def engine_for(db: str | Path, **options: object) -> sa.Engine:
    """An engine for a server URL or a DuckDB file; a DuckDB file it creates is written in
    STORAGE_VERSION's format (an existing file keeps its own). `options` go to create_engine."""
    if is_url(db):
        return sa.create_engine(str(db), **options)
    return sa.create_engine(
        f"duckdb:///{Path(db)}", connect_args={"config": {"storage_compatibility_version": STORAGE_VERSION}}, **options
    )


def catalog_rows(catalog: Catalog) -> dict[str, list[dict]]:
    from leaderboard.normalize import usd_per_chip_hour

    return {
        "rounds": [
            {**{c.name: getattr(r, c.name, None) for c in rounds.columns}, "left_off": _left_off(catalog, r.id)}
            for r in catalog.rounds.values()
        ],
        "benchmarks": [{c.name: getattr(b, c.name) for c in benchmarks.columns} for b in catalog.benchmarks.values()],
        "benchmark_rounds": [
            {
                "benchmark": b.id,
                "round": r,
                "quality_target": rules.quality_target,
                "open_quality_target": rules.open_quality_target,
                "runs": rules.runs,
                "drop_fastest": rules.drop_fastest,
                "drop_slowest": rules.drop_slowest,
                "log_scale": rules.log_scale,
            }
            for b in catalog.benchmarks.values()
            for r, rules in b.rounds.items()
        ],
        "accelerators": [{**asdict(a), "aliases": " | ".join(a.aliases)} for a in catalog.accelerators.values()],
        "organizations": [{**asdict(o), "aliases": " | ".join(o.aliases)} for o in catalog.organizations],
        "prices": [
            {
                **asdict(p),
                "price_id": p.price_id,
                "origin": p.source_kind,
                "usd_per_chip_hour": usd_per_chip_hour(p, catalog.accelerators[p.accelerator]),
            }
            for p in catalog.prices
        ],
        "skipped_results": [asdict(item) for items in catalog.skipped.values() for item in items],
    }


def _left_off(catalog: Catalog, round_id: str) -> int | None:
    """How many result folders of the round are on no board; None without an importer's list."""
    return len(catalog.skipped[round_id]) if round_id in catalog.skipped else None


def write_database(db: str | Path, catalog: Catalog, rows: TableRows) -> None:
    """Create every table afresh and fill it, atomically: a DuckDB file is built beside the
    target and renamed over it; a server database is replaced inside one transaction."""
    if is_url(db):
        engine = engine_for(db)
        try:
            with engine.begin() as connection:
                metadata.drop_all(connection)
                metadata.create_all(connection)
                _fill(connection, _tables(catalog, rows))
                costs_at.create(connection)
        finally:
            engine.dispose()
        return
    publish(write_aside(db, catalog, rows), db)


def write_aside(db: str | Path, catalog: Catalog, rows: TableRows) -> Path:
    """The DuckDB file for `db` (a file, not a URL), complete and readable but beside it, not in
    its place: publish() renames it over `db`. A build publishes it once the site from it is
    written too, so a failure on the way (a full disk) leaves the previous database and site as
    they were, together. Nothing is left behind when this fails."""
    temporary = _aside_name(Path(db))
    # Every transaction on it ends by commit or rollback; once a failed write (a full disk) has
    # invalidated the file, a rollback on its way back to the pool could only fail and log a
    # traceback beside the error raised.
    engine = engine_for(temporary, pool_reset_on_return=None)
    try:
        with engine.begin() as connection:
            metadata.create_all(connection)
            _fill(connection, _tables(catalog, rows))
            costs_at.create(connection)
        with engine.connect() as connection:
            connection.exec_driver_sql("CHECKPOINT")
    except BaseException:
        engine.dispose()
        temporary.unlink(missing_ok=True)
        raise
    engine.dispose()
    return temporary


class Staged:
    """A build's DuckDB database, filled in memory, not yet a file: the site is drawn from it
    (reading() takes it) while its file is written beside its place on a thread of its own; the
    build publish()es the file once the site is written too. Filling a file directly costs a third
    more, all of it before the first page (2,600 results: 0.6 s against 0.4 s in memory, and 0.23 s
    to write the file, beside the site's reading of the data and its pages)."""

    def __init__(self, db: str | Path, catalog: Catalog, rows: TableRows):
        self.target = Path(db)
        self.aside: Path | None = None
        self._lock = threading.Lock()
        # One connection, kept: an in-memory database lives as long as its connection.
        self.engine = sa.create_engine("duckdb:///:memory:", poolclass=sa.pool.StaticPool)
        try:
            with self.engine.begin() as connection:
                metadata.create_all(connection)
                # What each table holds, hashed from the rows as they were loaded (None where
                # unknown): the downloads' thread need not hash the database's tables again.
                self.digests = _fill(connection, _tables(catalog, rows))
                costs_at.create(connection)
                self.duck = _duckdb_connection(connection)
        except BaseException:
            self.engine.dispose()
            raise
        # The file is written at once, while the build's thread reads the data back for the site
        # (model.load): a core it leaves idle until the pages.
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="database-file")
        self._written = self._writer.submit(self._write)

    @contextmanager
    def reading(self) -> Iterator[Callable[[str], tuple[list[str], list[tuple]]]]:
        """As store.reading(): queries on a cursor of its own (another thread may write the file)."""
        with self.duck.cursor() as cursor:
            yield _queries(cursor)

    def write_aside(self) -> Path:
        """The database as a file beside its place, as store.write_aside() writes it (every table,
        key, comment and the costs_at macro, in STORAGE_VERSION's format): its path, once the
        writing started by __init__ is done (its failure raised here); the database in memory is
        let go then (read the file from then on). Nothing is left behind when the writing fails."""
        with self._lock:
            if self.aside is None:
                self.aside = self._written.result()
                # Read once (model.load) and now on disk: its memory goes back before the pages are done.
                self.engine.dispose()
            return self.aside

    def _write(self) -> Path:
        temporary = _aside_name(self.target)
        try:
            with self.duck.cursor() as cursor:
                cursor.execute(
                    f"ATTACH {_literal(str(temporary))} AS staged_file (STORAGE_VERSION {_literal(STORAGE_VERSION)})"
                )
                try:
                    cursor.execute("COPY FROM DATABASE memory TO staged_file")
                finally:
                    cursor.execute("DETACH staged_file")
        except BaseException:
            temporary.unlink(missing_ok=True)
            Path(f"{temporary}.wal").unlink(missing_ok=True)
            raise
        return temporary

    def close(self) -> None:
        """Let go of the memory (and of the file written aside, unless published)."""
        self._writer.shutdown(wait=True)
        self.engine.dispose()
        if self._written.exception() is None and self._written.result().exists():
            self._written.result().unlink()


def _aside_name(target: Path) -> Path:
    """The temporary file a database is written to beside `target` (a killed build's is removed
    by the next one: build._remove_leftovers), none left over from before."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    for leftover in (temporary, temporary.with_name(temporary.name + ".wal")):
        leftover.unlink(missing_ok=True)
    return temporary


def publish(temporary: Path, db: str | Path) -> None:
    """Put the file write_aside() made in the place of `db`, in one rename."""
    os.replace(temporary, db)
    Path(f"{db}.wal").unlink(missing_ok=True)


def _tables(catalog: Catalog, rows: TableRows) -> dict[str, list[dict]]:
    return {
        **catalog_rows(catalog),
        "results": rows.results,
        "costs": rows.costs,
        "runs": rows.runs,
        "progress": rows.progress,
        "epoch_cost_comparison": comparison_rows(rows.results, rows.costs, catalog),
    }


def _fill(connection: sa.Connection, tables: dict[str, list[dict]]) -> dict[str, str | None]:
    """Insert every row. Values travel as data (bound parameters, or a JSON file or an Arrow
    table that DuckDB loads in bulk); submission text never becomes SQL.

    Returns each table's digest (see rows_digest) where its rows went in as JSON, None where
    they did not (a server database; a value JSON has no form for)."""
    duck = _duckdb_connection(connection)
    digests: dict[str, str | None] = {name: rows_digest(metadata.tables[name], []) for name in metadata.tables}
    for name, table_rows in tables.items():
        if not table_rows:
            continue
        table = metadata.tables[name]
        digests[name] = None
        if duck is None:
            connection.execute(table.insert(), _with_dates(table, table_rows))
            continue
        digests[name] = _load_json(duck, table, table_rows)
        if digests[name] is None:
            duck.register("incoming_rows", arrow_table(table, table_rows))
            try:
                duck.execute(f'INSERT INTO "{name}" SELECT * FROM incoming_rows')
            finally:
                duck.unregister("incoming_rows")
    return digests if duck is not None else dict.fromkeys(digests)


def rows_digest(table: sa.Table, row_digests: list[bytes]) -> str:
    """A table's content as the rows loaded into it say it: its name, its columns and their types,
    and the hashes of its rows as JSON, sorted (the same rows in any order hash the same). The
    same digest means the same table for the same code, which is all a build's cache compares."""
    digest = hashlib.sha256(orjson.dumps([table.name, [[c.name, DUCKDB_TYPES[type(c.type)]] for c in table.columns]]))
    for row in sorted(row_digests):
        digest.update(row)
    return "rows " + digest.hexdigest()


DUCKDB_TYPES = {
    sa.Text: "VARCHAR",
    sa.Double: "DOUBLE",
    sa.BigInteger: "BIGINT",
    sa.Boolean: "BOOLEAN",
    sa.Date: "DATE",
}


JSON_ROWS = 5_000  # rows turned into JSON at a time: the text of 100,000 results is never whole in memory


def _load_json(duck, table: sa.Table, rows: list[dict]) -> str | None:
    """The rows into a DuckDB table through a JSON file (one array of them) that DuckDB reads with the
    table's types: a fraction of the time an Arrow table takes to build from Python values (and
    no import of pandas, which pyarrow makes). Returns the table's rows_digest(), or None, loading
    nothing, when a value has no exact JSON form (NaN or infinity, which JSON writes as null): the
    caller loads it through Arrow then."""
    import tempfile

    columns = {str(c.name): DUCKDB_TYPES[type(c.type)] for c in table.columns}  # str: plain names for DuckDB
    row_digests: list[bytes] = []
    with tempfile.NamedTemporaryFile(prefix="leaderboard-rows-", suffix=".json") as file:
        try:
            # One JSON array of every row, written a chunk at a time (each chunk's rows, after a comma).
            file.write(b"[")
            for start in range(0, len(rows), JSON_ROWS):
                file.write(b"," if start else b"")
                chunk = _json_rows(rows[start : start + JSON_ROWS], columns)
                if not _all_finite(chunk):
                    return None
                # Keys are columns' names, some of them SQLAlchemy's (a subclass of str).
                texts = [orjson.dumps(row, option=orjson.OPT_NON_STR_KEYS) for row in chunk]
                row_digests += [hashlib.sha256(text).digest() for text in texts]
                file.write(b",".join(texts))
            file.write(b"]")
            file.flush()
        except OSError as error:  # a full disk: name the file (a write's error names none)
            error.filename = error.filename or file.name
            raise
        names = ", ".join(f'"{c}"' for c in columns)
        # A key the table does not have is left out; a column a row does not have is NULL.
        duck.execute(
            f"INSERT INTO \"{table.name}\" ({names}) SELECT {names} FROM read_json(?, format = 'array', columns = ?)",
            [file.name, columns],
        )
    return rows_digest(table, row_digests)


def _json_rows(rows: list[dict], columns: dict) -> list[dict]:
    """The rows as JSON is to hold them: each as it is when it has only columns of the table
    (most do; copying each took a third of the time of filling the database), else those alone."""
    names = columns.keys()
    return [row if row.keys() <= names else {name: row.get(name) for name in names} for row in rows]


def _all_finite(rows: list[dict]) -> bool:
    """Whether every float value of the rows is finite (JSON has no NaN or infinity). A sum of
    floats is finite only when each of them is; a sum too large for a float has them checked one
    by one."""
    floats = [value for value in chain.from_iterable(map(dict.values, rows)) if value.__class__ is float]
    try:
        if math.isfinite(math.fsum(floats)):
            return True
    except (OverflowError, ValueError):  # a sum past the largest float; infinity minus infinity
        pass
    return all(map(math.isfinite, floats))


def arrow_schema(table: sa.Table):
    import pyarrow as pa

    kinds = {
        sa.Text: pa.string(),
        sa.Double: pa.float64(),
        sa.BigInteger: pa.int64(),
        sa.Boolean: pa.bool_(),
        sa.Date: pa.date32(),
    }
    return pa.schema([(c.name, kinds[type(c.type)]) for c in table.columns])


def arrow_table(table: sa.Table, rows: list[dict]):
    """The rows as an Arrow table of the table's types, built column by column (a dict per row
    takes several times as long at 100,000 rows). Rows carry dates as the files spell them,
    'YYYY-MM-DD' text; Arrow parses them into dates."""
    import pyarrow as pa

    schema = arrow_schema(table)
    columns = []
    for column in schema:
        values = [row.get(column.name) for row in rows]
        if column.type == pa.date32():
            columns.append(pa.array(values, pa.string()).cast(pa.date32()))
        else:
            columns.append(pa.array(values, column.type))
    return pa.Table.from_arrays(columns, schema=schema)


def _with_dates(table: sa.Table, rows: list[dict]) -> list[dict]:
    """The rows with their 'YYYY-MM-DD' dates as datetime.date, for a server database's driver."""
    dates = [c.name for c in table.columns if isinstance(c.type, sa.Date)]
    if not dates:
        return rows
    return [{**row, **{c: _date(row.get(c)) for c in dates}} for row in rows]


def _date(value: str | None) -> dt.date | None:
    return None if value is None else dt.date.fromisoformat(value)


def _duckdb_connection(connection: sa.Connection):
    """The DuckDB connection under a SQLAlchemy one, or None for other databases."""
    if connection.dialect.name != "duckdb":
        return None
    raw = connection.connection.driver_connection
    return getattr(raw, "_ConnectionWrapper__c", None) or getattr(raw, "c", None) or raw


# The name the database file is attached under in connect()'s connection.
ATTACHED_AS = "leaderboard"


def connect(db: str | Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to a DuckDB file: no writes, no attached databases, no file access.

    DuckDB keeps one instance per file in a process and refuses a second connection to it with
    another configuration, so the file is not opened with a configuration of its own: an
    in-memory instance of our own attaches it read-only, then turns off external access (files,
    other databases, extensions) and locks its configuration. A plain duckdb.connect(path,
    read_only=True) in the same process opens the file as usual, before or after.
    """
    path = Path(db)
    if not path.is_file():
        raise FileNotFoundError(f"no database at {path}: run 'leaderboard build' first")
    connection = duckdb.connect(":memory:")
    try:
        connection.execute(f"ATTACH {_literal(str(path))} AS {ATTACHED_AS} (READ_ONLY)")
        connection.execute(f"USE {ATTACHED_AS}")
        connection.execute("SET enable_external_access = false")
        connection.execute("SET lock_configuration = true")
    except BaseException:
        connection.close()
        raise
    return connection


def _literal(text: str) -> str:
    """A SQL string literal (ATTACH takes no parameters)."""
    return "'" + text.replace("'", "''") + "'"


class QueryFailed(Exception):
    """The database refused or failed a query: its own whole message (see error_text)."""


# Rows fetched from the database at a time, and handed on as one batch.
BATCH_ROWS = 1_000


def run_query(db: str | Path, sql: str) -> tuple[list[str], list[tuple]]:
    """Run one read-only statement; column names and every row (see streaming)."""
    with streaming(db, sql) as (names, batches):
        return names, [row for batch in batches for row in batch]


@contextmanager
def streaming(
    db: str | Path, sql: str, batch_rows: int = BATCH_ROWS
) -> Iterator[tuple[list[str], Iterator[list[tuple]]]]:
    """One read-only statement's column names and its rows, in batches fetched from the
    database as they are read: a large result never sits in memory whole.

    DuckDB's own parser (statements.single_statement) says whether `sql` is one read-only
    statement, on either backend: EmptyQuery or RefusedQuery when it is not. On PostgreSQL,
    SQL that DuckDB's parser cannot read goes to the server as given: it runs in a read-only
    transaction, sent through the extended protocol, which runs one statement at most. Any
    failure of the database is a QueryFailed with the database's own message."""
    server = is_url(db)
    try:
        statement = single_statement(sql)
    except duckdb.ParserException as error:
        if not server:
            raise QueryFailed(error_text(error)) from None
        statement = sql
    try:
        with _statement_rows(db, statement if not server else sql, batch_rows) as (names, batches):
            yield names, _failing_as_query_failed(batches)
    except _query_errors() as error:
        raise QueryFailed(error_text(error)) from None


def _failing_as_query_failed(batches: Iterator[list[tuple]]) -> Iterator[list[tuple]]:
    try:
        yield from batches
    except _query_errors() as error:
        raise QueryFailed(error_text(error)) from None


def _query_errors() -> tuple[type[Exception], ...]:
    """The errors a query may raise: PostgreSQL's driver's come through the raw cursor. The
    driver (optional) is imported only when a server database is opened, and none of its errors
    can come before that: not importing it saves every command a tenth of a second."""
    driver = sys.modules.get("psycopg")
    return (duckdb.Error, sa.exc.SQLAlchemyError, *((driver.Error,) if driver is not None else ()))


@contextmanager
def _statement_rows(db: str | Path, sql: str, batch_rows: int):
    if not is_url(db):
        with connect(db) as connection:
            cursor = connection.execute(sql)
            if cursor is None:  # DuckDB runs nothing for SQL that is only comments
                raise EmptyQuery("no SQL to run: the statement is empty")
            names = [d[0] for d in cursor.description] if cursor.description else []
            yield names, iter(lambda: cursor.fetchmany(batch_rows), [])
        return
    engine = engine_for(db)
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SET TRANSACTION READ ONLY")
            # binary=True sends the query through the extended protocol, which runs one statement
            # at most (psycopg would send it as a simple query otherwise). The driver receives
            # the whole result; Python takes it a batch at a time. No parameters, so '%' is SQL
            # (LIKE 'a%'), not a placeholder.
            cursor = connection.connection.driver_connection.cursor()
            try:
                cursor.execute(sql, binary=True)
                names = [d.name for d in cursor.description] if cursor.description else []
                yield names, iter(lambda: [tuple(row) for row in cursor.fetchmany(batch_rows)], [])
            finally:
                cursor.close()
    finally:
        engine.dispose()


def error_text(error: Exception) -> str:
    """A database's whole message (DuckDB's "Did you mean ...?" and the caret under the bad word
    included), later lines indented under the first; the driver's, not SQLAlchemy's wrapper."""
    text = str(getattr(error, "orig", None) or error).strip()
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return "\n  ".join(lines) if lines else type(error).__name__


@contextmanager
def reading(db: str | Path | Staged) -> Iterator[Callable[[str], tuple[list[str], list[tuple]]]]:
    """One read-only connection for several queries: a function from SQL to (column names, rows)."""
    if isinstance(db, Staged):
        with db.reading() as query:
            yield query
        return
    if is_url(db):
        engine = engine_for(db)
        try:
            with engine.connect() as connection:
                connection.exec_driver_sql("SET TRANSACTION READ ONLY")

                def query(sql: str) -> tuple[list[str], list[tuple]]:
                    # No parameters: the driver then takes '%' as SQL (LIKE 'a%'), not as a placeholder.
                    result = connection.execution_options(no_parameters=True).exec_driver_sql(sql)
                    return list(result.keys()), [tuple(r) for r in result.fetchall()]

                yield query
        finally:
            engine.dispose()
        return
    with connect(db) as connection:
        yield _queries(connection)


def _queries(connection: duckdb.DuckDBPyConnection) -> Callable[[str], tuple[list[str], list[tuple]]]:
    """A function from SQL to (column names, rows) on a DuckDB connection (or cursor)."""

    def query(sql: str) -> tuple[list[str], list[tuple]]:
        cursor = connection.execute(sql)
        if cursor is None:  # DuckDB runs nothing for SQL that is only comments
            raise EmptyQuery("no SQL to run: the statement is empty")
        return [d[0] for d in cursor.description] if cursor.description else [], cursor.fetchall()

    return query
