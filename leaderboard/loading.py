"""How rows go into the database's tables: in bulk, as a JSON file DuckDB reads with the tables'
types (or an Arrow table, for a value JSON has no form for), or as bound parameters for a server;
and each table's digest, from the rows as they were loaded."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from itertools import chain
from typing import TYPE_CHECKING

import orjson

from leaderboard.plain_tables import kind_name
from leaderboard.schema_tables import Table, metadata, sqlalchemy_metadata

if TYPE_CHECKING:
    import duckdb
    import sqlalchemy as sa


def fill(connection: sa.Connection, tables: dict[str, list[dict]]) -> dict[str, str | None]:
    """Insert every row. Values travel as data (bound parameters, or a JSON file or an Arrow
    table that DuckDB loads in bulk); submission text never becomes SQL.

    Returns each table's digest (see rows_digest) where its rows went in as JSON, None where
    they did not (a server database; a value JSON has no form for)."""
    duck = duckdb_connection(connection)
    if duck is not None:
        return fill_duckdb(duck, tables)
    for name, table_rows in tables.items():
        if table_rows:
            table = sqlalchemy_metadata().tables[name]
            connection.execute(table.insert(), _with_dates(table, table_rows))
    return dict.fromkeys(metadata.tables)


def fill_duckdb(duck: duckdb.DuckDBPyConnection, tables: dict[str, list[dict]]) -> dict[str, str | None]:
    """fill() on a DuckDB connection: each table's rows in bulk, as JSON, else (a value JSON has no
    form for) as an Arrow table."""
    digests: dict[str, str | None] = {name: rows_digest(metadata.tables[name]) for name in metadata.tables}
    for name, table_rows in tables.items():
        if not table_rows:
            continue
        table = metadata.tables[name]
        digests[name] = load_json(duck, table, table_rows)
        if digests[name] is None:
            duck.register("incoming_rows", arrow_table(table, table_rows))
            try:
                duck.execute(f'INSERT INTO "{name}" SELECT * FROM incoming_rows')
            finally:
                duck.unregister("incoming_rows")
    return digests


def rows_digest(table: Table, rows_hash: hashlib._Hash | None = None) -> str:
    """A table's content as the rows loaded into it say it: its name, its columns and their types,
    and its rows as one JSON array's text, in order (`rows_hash`, from digest_start(): none, no
    rows). The same digest means the same table for the same code, which is all a build's cache
    compares (the same rows in another order hash apart: a download made again, never a wrong
    one kept)."""
    return "rows " + (rows_hash or digest_start(table)).hexdigest()


def digest_start(table: Table) -> hashlib._Hash:
    """rows_digest()'s hash before the rows' text: the table's name, columns and types."""
    return hashlib.sha256(orjson.dumps([table.name, [[c.name, DUCKDB_TYPES[kind_name(c)]] for c in table.columns]]))


# By the kind's name (plain_tables.kind_name).
DUCKDB_TYPES = {"Text": "VARCHAR", "Double": "DOUBLE", "BigInteger": "BIGINT", "Boolean": "BOOLEAN", "Date": "DATE"}


JSON_ROWS = 5_000  # rows turned into JSON at a time: the text of 100,000 results is never whole in memory


def load_json(duck, table: Table, rows: list[dict]) -> str | None:
    """The rows into a DuckDB table through a JSON file (one array of them) that DuckDB reads with the
    table's types: a fraction of the time an Arrow table takes to build from Python values (and
    no import of pandas, which pyarrow makes). Returns the table's rows_digest(), or None, loading
    nothing, when a value has no exact JSON form (NaN or infinity, which JSON writes as null): the
    caller loads it through Arrow then."""
    import tempfile

    columns = {str(c.name): DUCKDB_TYPES[kind_name(c)] for c in table.columns}  # str: plain names for DuckDB
    digest = digest_start(table)  # then the text between the array's brackets
    with tempfile.NamedTemporaryFile(prefix="leaderboard-rows-", suffix=".json") as file:
        try:
            # One JSON array of every row, written a chunk at a time (each chunk's rows, after a
            # comma): one call of orjson's per chunk, not per row (a third of the time).
            file.write(b"[")
            for start in range(0, len(rows), JSON_ROWS):
                chunk = _json_rows(rows[start : start + JSON_ROWS], columns)
                if not _all_finite(chunk):
                    return None
                # Keys are columns' names, some of them SQLAlchemy's (a subclass of str).
                text = memoryview(orjson.dumps(chunk, option=orjson.OPT_NON_STR_KEYS))[1:-1]
                for part in (b",", text) if start else (text,):
                    file.write(part)
                    digest.update(part)
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
    return rows_digest(table, digest)


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


def arrow_schema(table: Table):
    import pyarrow as pa

    kinds = {
        "Text": pa.string(),
        "Double": pa.float64(),
        "BigInteger": pa.int64(),
        "Boolean": pa.bool_(),
        "Date": pa.date32(),
    }
    return pa.schema([(c.name, kinds[kind_name(c)]) for c in table.columns])


def arrow_table(table: Table, rows: list[dict]):
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


def _with_dates(table: Table | sa.Table, rows: list[dict]) -> list[dict]:
    """The rows with their 'YYYY-MM-DD' dates as datetime.date, for a server database's driver."""
    dates = [c.name for c in table.columns if kind_name(c) == "Date"]
    if not dates:
        return rows
    return [{**row, **{c: _date(row.get(c)) for c in dates}} for row in rows]


def _date(value: str | None) -> dt.date | None:
    return None if value is None else dt.date.fromisoformat(value)


def duckdb_connection(connection: sa.Connection):
    """The DuckDB connection under a SQLAlchemy one, or None for other databases."""
    if connection.dialect.name != "duckdb":
        return None
    raw = connection.connection.driver_connection
    return getattr(raw, "_ConnectionWrapper__c", None) or getattr(raw, "c", None) or raw
