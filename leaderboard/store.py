"""The database: an atomic rebuild of the tables (schema_tables.py), read-only access.

DuckDB by default, through SQLAlchemy. A build writes a new file beside the old one and
renames it over, so a reader never sees a half-written database.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard import costs_at
from leaderboard.cache import PRECOMPILED, path_digest, read_json, write_json
from leaderboard.catalog import Catalog
from leaderboard.forked import Forked
from leaderboard.loading import fill, fill_duckdb
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
    sqlalchemy_metadata,
    table_docs,
)
from leaderboard.statements import EmptyQuery, RefusedQuery, single_statement  # noqa: F401

if TYPE_CHECKING:
    import duckdb
    import sqlalchemy as sa


def is_url(db: str | Path | Staged) -> bool:
    return isinstance(db, str | Path) and "://" in str(db)


# The storage format of every DuckDB file written: the oldest that holds every type the tables
# use, so DuckDB 1.0 and later read it (the SQL page's DuckDB-WASM, an analyst's older CLI); a
# newer DuckDB's own format is one older ones refuse ("a newer version of DuckDB").
STORAGE_VERSION = "v1.0.0"


def engine_for(db: str | Path, **options: object) -> sa.Engine:
    """An engine for a server URL or a DuckDB file; a DuckDB file it creates is written in
    STORAGE_VERSION's format (an existing file keeps its own). `options` go to create_engine."""
    import sqlalchemy as sa

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
        "accelerators": [{**_fields(a), "aliases": " | ".join(a.aliases)} for a in catalog.accelerators.values()],
        "organizations": [{**_fields(o), "aliases": " | ".join(o.aliases)} for o in catalog.organizations],
        "prices": [
            {
                **_fields(p),
                "price_id": p.price_id,
                "origin": p.source_kind,
                "usd_per_chip_hour": usd_per_chip_hour(p, catalog.accelerators[p.accelerator]),
            }
            for p in catalog.prices
        ],
        "skipped_results": [_fields(item) for items in catalog.skipped.values() for item in items],
    }


def _fields(item: object) -> dict:
    """A catalog record's fields by name (dataclasses.asdict without its deep copy: their values are
    text, numbers and tuples of text: the shipped catalog's took 15 ms, a tenth of that here)."""
    return {name: getattr(item, name) for name in _field_names(type(item))}


@cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


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
                sqlalchemy_metadata().drop_all(connection)
                sqlalchemy_metadata().create_all(connection)
                fill(connection, tables(catalog, rows))
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
            sqlalchemy_metadata().create_all(connection)
            fill(connection, tables(catalog, rows))
            costs_at.create(connection)
        with engine.connect() as connection:
            connection.exec_driver_sql("CHECKPOINT")
    except BaseException:
        engine.dispose()
        temporary.unlink(missing_ok=True)
        raise
    engine.dispose()
    return temporary


# How many results a build's site is drawn from the rows of, not from its database (store.Staged).
ROWS_KEPT_UP_TO = 20_000


class Staged:
    """A build's DuckDB database, written to a file beside its place by a process forked for it
    (forked.py), while the build draws its site from the rows it is filled with (take_tables();
    model.load reads them as the database gives them back); the build publish()es the file once
    the site is written too. The child has the rows without a copy, and its work waits for no
    lock of the pages' (on a thread of this process, the Python half of filling, the rows to JSON
    and hashed, took turns with the pages: 1.2 s instead of 0.4 s, at the end of a rebuild's
    critical path). The child runs at a lower priority than the build
    (DATABASE_NICENESS)."""

    def __init__(
        self,
        db: str | Path,
        tables: dict[str, list[dict]],
        then: Callable[[duckdb.DuckDBPyConnection, dict[str, str | None]], object] | None = None,
        cache_folder: Path | None = None,
    ):
        """`then(connection, digests)` runs in the child once the file is written, on the file's
        database (the connection's current one) and its tables' digests: its result is then_result.
        `cache_folder`: where the tables' DDL is kept from build to build (duckdb_ddl)."""
        # Past ROWS_KEPT_UP_TO results the site reads the database once written: the rows and the
        # site's data are not in memory together (100,000 results: 2.7 GB at the peak, not 3.2).
        kept = len(tables.get("results", [])) <= ROWS_KEPT_UP_TO
        self._tables: dict[str, list[dict]] | None = tables if kept else None
        self._temporary = _aside_name(Path(db))
        self._made = Forked(_make_file, tables, self._temporary, then, cache_folder)
        if not kept:
            # The build lets go of its rows next, which writes to every page they are on: done
            # while the child still has them, each page would be in memory twice.
            with suppress(Exception):  # raised again where the file is asked for
                self._made.result()

    def take_tables(self) -> dict[str, list[dict]] | None:
        """The rows the database is filled with, by table (store.tables), once (this object lets go
        of them); None past ROWS_KEPT_UP_TO results, or once taken: read the database then
        (reading())."""
        tables, self._tables = self._tables, None
        return tables

    @property
    def digests(self) -> dict[str, str | None]:
        """What each table holds, hashed from the rows as they were loaded (None where unknown): the
        downloads' thread need not hash the database's tables again. Waits for the file."""
        return self._made.result()[0]  # type: ignore[index]

    @property
    def then_result(self) -> object:
        """What `then` returned in the child (None without one). Waits for the file."""
        return self._made.result()[1]  # type: ignore[index]

    @property
    def file_digest(self) -> str:
        """The hash of the file's bytes (cache.digest), worked out in the child. Waits for the file."""
        return self._made.result()[2]  # type: ignore[index]

    @contextmanager
    def reading(self) -> Iterator[Callable[[str], tuple[list[str], list[tuple]]]]:
        """As store.reading(), on the file once it is written (its failure raised here)."""
        with connect(self.write_aside()) as connection:
            yield _queries(connection)

    def write_aside(self) -> Path:
        """The database as a file beside its place, as store.write_aside() writes it (every table,
        key, comment and the costs_at macro, in STORAGE_VERSION's format): its path, once the
        child is done (its failure raised here). Nothing is left behind when the writing fails."""
        self._made.result()
        return self._temporary

    def close(self) -> None:
        """End the child if still at work, and remove the file written aside unless published."""
        self._tables = None
        self._made.stop()
        for leftover in (self._temporary, Path(f"{self._temporary}.wal")):
            leftover.unlink(missing_ok=True)


DATABASE_NICENESS = 10  # added to the database's process's (see _make_file), as the drawing workers'


def _make_file(
    tables: dict[str, list[dict]], temporary: Path, then: Callable | None, cache_folder: Path | None
) -> tuple[dict, object, str]:
    """In Staged's child: the tables created and filled in `temporary` in one transaction, on one
    thread; each table's digest, what `then` returns, and the hash of the file's bytes."""
    import duckdb

    # The build's own process is the longer path (the pages): this one yields the processor to it,
    # as the drawing workers do. On two cores shared with them, a one-file rebuild that changes a
    # chart took 1.12x as long with this process at the same priority (benchmarks/RESULTS.md).
    os.nice(DATABASE_NICENESS)
    # One thread: the build's own process has the other core. DuckDB's second thread took a
    # fifth more of the processor's time for the same work.
    duck = duckdb.connect(config={"threads": 1})
    try:
        duck.execute(f"ATTACH {_literal(str(temporary))} AS staged_file (STORAGE_VERSION {_literal(STORAGE_VERSION)})")
        duck.execute("USE staged_file")
        # In one transaction written once, in place: a file filled in memory and then copied took
        # a tenth of a second longer. In one call: the 200 statements create_all() runs one by one.
        duck.execute("BEGIN")
        duck.execute(kept_ddl(cache_folder / DDL_CACHE if cache_folder is not None else None))
        digests = fill_duckdb(duck, tables)
        duck.execute(costs_at.duckdb_sql())
        duck.execute("COMMIT")
        duck.execute("CHECKPOINT")
        after = then(duck, digests) if then is not None else None
        duck.execute("USE memory")
        duck.execute("DETACH staged_file")
    except BaseException:
        duck.close()
        temporary.unlink(missing_ok=True)
        Path(f"{temporary}.wal").unlink(missing_ok=True)
        raise
    duck.close()
    return digests, after, path_digest(temporary)


DDL_CACHE = "duckdb-ddl.json"


def kept_ddl(path: Path | None) -> str:
    """duckdb_ddl(), kept in the cache file `path` (none: not kept) for the code (cache.read_json)
    and the versions of SQLAlchemy, its DuckDB dialect and DuckDB that compiled it; where `path`
    has none, the install's (precompiled.py). Compiling it, SQLAlchemy imported, takes half a
    second."""
    for kept in (path, PRECOMPILED / DDL_CACHE):
        ddl = stored_ddl(kept)
        if ddl is not None:
            return ddl
    ddl = duckdb_ddl()
    write_json(path, {"versions": _ddl_versions(), "ddl": ddl})
    return ddl


def stored_ddl(path: Path | None) -> str | None:
    """The DDL kept in `path` (kept_ddl), when kept for this code and these versions; else None."""
    stored = read_json(path)
    if stored.get("versions") == _ddl_versions() and isinstance(stored.get("ddl"), str):
        return stored["ddl"]
    return None


def _ddl_versions() -> list[str]:
    """The versions of SQLAlchemy, its DuckDB dialect and DuckDB: what the DDL is compiled by."""
    from importlib.metadata import version

    import duckdb

    return [version("sqlalchemy"), version("duckdb-engine"), duckdb.__version__]


@cache
def duckdb_ddl() -> str:
    """The SQL sqlalchemy_metadata().create_all() runs on a DuckDB database (tables, keys, comments),
    as one script."""
    import sqlalchemy as sa

    statements: list[str] = []

    def collect(statement, *_args: object, **_options: object) -> None:
        statements.append(str(statement.compile(dialect=engine.dialect)).strip())

    engine = sa.create_mock_engine("duckdb://", collect)
    sqlalchemy_metadata().create_all(engine, checkfirst=False)
    return ";\n".join(statements) + ";"


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


def tables(catalog: Catalog, rows: TableRows) -> dict[str, list[dict]]:
    """Every table's rows, by table: the catalog's and the build's."""
    return {
        **catalog_rows(catalog),
        "results": rows.results,
        "costs": rows.costs,
        "runs": rows.runs,
        "progress": rows.progress,
        "epoch_cost_comparison": comparison_rows(rows.results, rows.costs, catalog),
    }


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
    import duckdb

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
    import duckdb

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
    driver (optional) and SQLAlchemy are imported only when a server database is opened, and none
    of their errors can come before that: not importing them saves every command a tenth of a
    second or more."""
    import duckdb

    driver, alchemy = sys.modules.get("psycopg"), sys.modules.get("sqlalchemy.exc")
    return (
        duckdb.Error,
        *((alchemy.SQLAlchemyError,) if alchemy is not None else ()),
        *((driver.Error,) if driver is not None else ()),
    )


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
