"""The same load and query tests on both backends: the embedded DuckDB file and a real
PostgreSQL server started by the test setup."""

import datetime as dt
import json

import pytest
import sqlalchemy as sa
from conftest import run_cli
from test_store import place_acme_results
from test_validate import MLPERF, place

from leaderboard import store


@pytest.fixture(params=["duckdb", "postgresql"])
def database(request, tmp_path):
    if request.param == "duckdb":
        return str(tmp_path / "results.duckdb")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def loaded(empty_project, database):
    place_acme_results(empty_project)
    result = run_cli("build", "-q", "--db", database, "--out", empty_project / "site", cwd=empty_project)
    assert result.code == 0, result.out + result.err
    return empty_project, database


def test_every_table_loads(loaded):
    _, database = loaded
    for table in store.metadata.sorted_tables:
        names, _ = store.run_query(database, f"SELECT * FROM {table.name} LIMIT 0")
        assert names == [c.name for c in table.columns]
    _, [(count,)] = store.run_query(database, "SELECT count(*) FROM results")
    assert count == 3


def test_query_gives_the_same_numbers(loaded):
    project, database = loaded
    result = run_cli(
        "query",
        "SELECT entry_id, chips, chip_hours, rank, cost_usd FROM results ORDER BY entry_id",
        "--db",
        database,
        "--format",
        "json",
        cwd=project,
    )
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert [r["entry_id"] for r in rows] == [
        "mlperf-training-v1.1/acme-labs/acme-4320",
        "mlperf-training-v1.1/acme-labs/acme-64",
        "published/acme-labs/entry",
    ]
    assert [r["rank"] for r in rows] == [1, 2, 1]
    assert rows[1]["chip_hours"] == pytest.approx(4.8) and rows[1]["cost_usd"] == pytest.approx(19.68)
    assert rows[2]["chips"] == 64 and rows[2]["cost_usd"] == pytest.approx(12288)


DATE_COLUMNS = [
    ("results", "date"),
    ("results", "price_date"),
    ("costs", "price_date"),
    ("prices", "date"),
    ("rounds", "date"),
    ("accelerators", "release_date"),
]


@pytest.mark.parametrize("table, column", DATE_COLUMNS)
def test_dates_are_dates(loaded, table, column):
    _, database = loaded
    _, kinds = store.run_query(
        database,
        f"SELECT data_type FROM information_schema.columns WHERE table_name = '{table}' AND column_name = '{column}'",
    )
    assert [k.upper() for (k,) in kinds] == ["DATE"]
    _, values = store.run_query(database, f"SELECT {column} FROM {table} WHERE {column} IS NOT NULL LIMIT 1")
    assert type(values[0][0]) is dt.date


def test_query_prints_dates_as_iso_text_and_keeps_the_whole_error(loaded):
    project, database = loaded
    result = run_cli(
        "query",
        "-- the fast one ('%' is SQL, not a driver's placeholder)\n"
        "SELECT date, price_date, price_after_result FROM results WHERE entry_id LIKE '%acme-4320'",
        "--db",
        database,
        "--format",
        "json",
        cwd=project,
    )
    assert result.code == 0, result.err
    assert json.loads(result.out) == [{"date": "2021-12-01", "price_date": "2022-04-15", "price_after_result": True}]
    failed = run_cli("query", "SELECT nope FROM results", "--db", database, cwd=project)
    first, *more = failed.err.splitlines()
    assert failed.code == 1 and first.startswith("error: query failed: ") and "nope" in first
    assert more and all(line.startswith("  ") for line in more)
    assert any("LINE 1: SELECT nope FROM results" in line for line in more)
    assert "sqlalche.me" not in failed.err and "[SQL:" not in failed.err  # the database's message, not the wrapper's


def test_a_failed_load_leaves_the_previous_data(loaded, monkeypatch):
    _, database = loaded
    original = store.fill

    def failing(connection, tables):
        original(connection, dict(list(tables.items())[:3]))
        raise RuntimeError("killed in the middle of the load")

    monkeypatch.setattr(store, "fill", failing)
    with pytest.raises(RuntimeError):
        store.write_database(database, *_nothing())
    _, [(count,)] = store.run_query(database, "SELECT count(*) FROM results")
    assert count == 3


def _nothing():
    from leaderboard.catalog import Catalog
    from leaderboard.rows import TableRows

    return Catalog(), TableRows()


@pytest.mark.parametrize(
    "statement", ["DROP TABLE results", "DELETE FROM results", "WITH x AS (SELECT 1) DELETE FROM results"]
)
def test_queries_cannot_write(loaded, statement):
    project, database = loaded
    result = run_cli("query", statement, "--db", database, cwd=project)
    assert result.code == 1 and result.err.startswith("error: ")
    _, [(count,)] = store.run_query(database, "SELECT count(*) FROM results")
    assert count == 3


def test_readers_never_see_a_half_load(postgres_url, empty_project):
    """While a load runs in its transaction, another connection sees the previous tables whole."""
    place(empty_project, MLPERF)
    assert run_cli("build", "-q", "--db", postgres_url, "--out", empty_project / "site", cwd=empty_project).code == 0
    engine = sa.create_engine(postgres_url)
    with engine.begin() as writer:
        writer.exec_driver_sql("DELETE FROM results")
        _, [(count,)] = store.run_query(postgres_url, "SELECT count(*) FROM results")
        assert count == 1
    engine.dispose()


@pytest.mark.parametrize(
    "sql, code, out_or_err",
    [
        ("SELECT ';' AS semicolon, '--' AS dashes", 0, "semicolon,dashes\n;,--\n"),
        ("SELECT '--' AS a; SELECT 42", 1, "error: only a single read-only query is allowed: this SQL holds 2"),
        ("DELETE FROM results", 1, "error: only a single read-only query (SELECT, WITH"),
        ("SELECT count(*) AS n FROM results; SELECT 2", 1, "error: only a single read-only query is allowed"),
    ],
)
def test_one_statement_by_duckdbs_parser_on_both_backends(loaded, sql, code, out_or_err):
    project, database = loaded
    result = run_cli("query", sql, "--db", database, "--format", "csv", cwd=project)
    assert result.code == code
    assert (result.out if code == 0 else result.err).startswith(out_or_err)


def test_postgresql_runs_its_own_dialect_one_statement_at_a_time(postgres_url, empty_project):
    """SQL DuckDB's parser cannot read (FROM ONLY) goes to the server as given: it runs alone,
    and with a second statement the server refuses it; nothing is written either way."""
    place_acme_results(empty_project)
    built = run_cli("build", "-q", "--db-only", cwd=empty_project, env={"LEADERBOARD_DB": postgres_url})
    assert built.code == 0 and "site:" not in built.out and not (empty_project / "site").exists()
    env = {"LEADERBOARD_DB": postgres_url}
    alone = run_cli("query", "SELECT count(*) AS n FROM ONLY results", "--format", "csv", cwd=empty_project, env=env)
    assert (alone.code, alone.out) == (0, "n\n3\n"), alone.err
    two = run_cli("query", "DELETE FROM results; SELECT * FROM ONLY results", cwd=empty_project, env=env)
    assert two.code == 1 and two.err.startswith("error: query failed: ")
    locked = run_cli("query", "SELECT * FROM ONLY results FOR UPDATE", cwd=empty_project, env=env)
    assert locked.code == 1 and "read-only transaction" in locked.err
    _, [(count,)] = store.run_query(postgres_url, "SELECT count(*) FROM results")
    assert count == 3
