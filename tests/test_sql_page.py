"""The SQL page: DuckDB-WASM in a real browser (Debian's Chromium) against `leaderboard serve`,
giving the same rows as DuckDB on leaderboard.duckdb; every table downloadable; bounded queries.
Browser tests skip, loudly, without Chromium or without `make wasm`'s files."""

from __future__ import annotations

import datetime as dt
import threading
import warnings
from urllib.parse import quote

import duckdb
import pytest
from test_site import built_site

from leaderboard import store
from leaderboard.render.downloads import TABLES
from leaderboard.render.serve import make_server
from leaderboard.render.sqlpage import EXAMPLES, WASM_FILES, wasm_folder

MISSING_WASM = (
    f"SQL PAGE BROWSER TESTS SKIPPED: DuckDB-WASM is not built in {wasm_folder()} (`make wasm`); CI must run them."
)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return built_site(tmp_path_factory)


@pytest.fixture(scope="module")
def server(project):
    httpd = make_server(project / "site", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture
def page(browser):
    """A page in test_browser.py's Chromium (one Playwright per session), when the WASM is built."""
    if not all((wasm_folder() / name).is_file() for name in WASM_FILES):
        warnings.warn(MISSING_WASM, stacklevel=1)
        pytest.skip(MISSING_WASM)
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    page.problems = []
    page.on("pageerror", lambda error: page.problems.append(str(error)))
    page.on("console", lambda message: page.problems.append(message.text) if message.type == "error" else None)
    yield page
    context.close()


def shown(value) -> str:
    """A value as the page shows it (JavaScript's own number formatting; NULL for no value)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def native(project, sql: str) -> tuple[list[str], list[list[str]]]:
    with duckdb.connect(str(project / "leaderboard.duckdb"), read_only=True) as connection:
        cursor = connection.execute(sql)
        return [d[0] for d in cursor.description], [[shown(v) for v in row] for row in cursor.fetchall()]


def run_query(page, sql: str | None = None, wait: str = "#sql-result:not([hidden])"):
    if sql is not None:
        page.fill("#sql-query", sql)
    page.click("#sql-run")
    page.wait_for_selector(wait, timeout=60_000)
    page.wait_for_selector("#sql-run:not([disabled])", timeout=60_000)


def table_rows(page) -> tuple[list[str], list[list[str]]]:
    head = page.eval_on_selector_all("#sql-result thead th", "cells => cells.map(c => c.textContent)")
    body = page.eval_on_selector_all(
        "#sql-result tbody tr", "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))"
    )
    return head, body


@pytest.mark.parametrize("title, sql", EXAMPLES, ids=[t for t, _ in EXAMPLES])
def test_every_example_answers_natively(project, title, sql):
    columns, rows = native(project, sql)
    assert columns and rows, title


def test_every_table_ships_as_csv_parquet_and_arrow_with_the_databases_columns(project):
    import pyarrow as pa
    import pyarrow.feather
    import pyarrow.parquet as pq

    data = project / "site" / "data"
    assert set(TABLES) == {t.name for t in store.metadata.sorted_tables}
    with duckdb.connect(str(project / "leaderboard.duckdb"), read_only=True) as connection:
        for name in TABLES:
            columns = [d[0] for d in connection.execute(f'SELECT * FROM "{name}" LIMIT 0').description]
            count = connection.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
            parquet = pq.read_table(data / f"{name}.parquet")
            assert (parquet.column_names, parquet.num_rows) == (columns, count), name
            # An Arrow IPC file (random access), as the README says: both of pyarrow's readers take it.
            with pa.OSFile(str(data / f"{name}.arrow"), "rb") as source:
                arrow = pa.ipc.open_file(source).read_all()
            assert (arrow.column_names, arrow.num_rows) == (columns, count), name
            feather = pyarrow.feather.read_table(data / f"{name}.arrow")
            assert feather.equals(parquet), name
            # Each column's description travels with the file (the README's, from the schema).
            described = {
                f"description:{c.name}".encode(): c.comment.encode()
                for c in store.metadata.tables[name].columns
                if c.comment
            }
            assert described and pq.read_metadata(data / f"{name}.parquet").metadata.items() >= described.items()
            assert feather.schema.metadata.items() >= described.items(), name
            csv = connection.execute(f"SELECT * FROM read_csv('{data / f'{name}.csv'}', header=true)").fetchall()
            assert len(csv) == count, name


# pandas dtype of each column type of the database (schema_tables), read as the README says.
PANDAS_DTYPES = {
    "Text": "string[pyarrow]",
    "BigInteger": "int64[pyarrow]",
    "Double": "double[pyarrow]",
    "Boolean": "bool[pyarrow]",
    "Date": "date32[day][pyarrow]",
}


def test_the_readmes_pandas_recipes_give_every_table_its_databases_types(project):
    """Parquet, CSV and Arrow read into pandas as the README shows give the same dtypes, the
    database's types, NULLs kept (an integer column with NULLs stays integer)."""
    import pandas as pd
    import pyarrow.feather

    data = project / "site" / "data"
    for name in TABLES:
        table = store.metadata.tables[name]
        expected = {c.name: PANDAS_DTYPES[type(c.type).__name__] for c in table.columns}
        frames = {
            "parquet": pd.read_parquet(data / f"{name}.parquet", dtype_backend="pyarrow"),
            "csv": pd.read_csv(data / f"{name}.csv", engine="pyarrow", dtype_backend="pyarrow"),
            "arrow": pyarrow.feather.read_table(data / f"{name}.arrow").to_pandas(types_mapper=pd.ArrowDtype),
        }
        for kind, frame in frames.items():
            got = {column: str(dtype) for column, dtype in frame.dtypes.items()}
            # A CSV column with no value at all has no type to infer: pyarrow reads it as null.
            empty = {c for c in got if kind == "csv" and frame[c].isna().all()}
            assert {c: t for c, t in got.items() if c not in empty} == {
                c: t for c, t in expected.items() if c not in empty
            }, (name, kind)


def test_the_sites_database_is_every_table_in_a_format_older_duckdbs_read(project):
    """data/leaderboard.duckdb, what the SQL page attaches, holds the built database's tables and
    rows, in the storage format of DuckDB 1.0 (DuckDB-WASM reads no newer one)."""
    from leaderboard.store import STORAGE_VERSION

    shipped = project / "site" / "data" / "leaderboard.duckdb"
    with duckdb.connect() as connection:
        connection.execute(f"ATTACH '{project / 'leaderboard.duckdb'}' AS built (READ_ONLY)")
        connection.execute(f"ATTACH '{shipped}' AS shipped (READ_ONLY)")
        # Both: the database `leaderboard build` writes is the one an analyst's DuckDB 1.x opens too.
        for name in ("shipped", "built"):
            (tags,) = connection.execute(
                f"SELECT tags FROM duckdb_databases() WHERE database_name = '{name}'"
            ).fetchone()
            assert tags["storage_version"] == STORAGE_VERSION + "+", name
        for name in TABLES:
            for a, b in (("built", "shipped"), ("shipped", "built")):
                (extra,) = connection.execute(
                    f'SELECT count(*) FROM (FROM {a}."{name}" EXCEPT ALL FROM {b}."{name}")'
                ).fetchone()
                assert extra == 0, (name, a)


@pytest.mark.parametrize("storage", [None, store.STORAGE_VERSION], ids=["duckdb's own format", "the site's format"])
def test_the_sites_database_is_copied_into_the_sites_format(tmp_path, storage):
    """A database in DuckDB's own (newer) format is copied table by table into the site's format;
    one already in it (every file a build writes) ships as its bytes, without the copy's cost."""
    from leaderboard.render.downloads import _storage_copy

    source, shipped = tmp_path / "source.duckdb", tmp_path / "shipped.duckdb"
    config = {"storage_compatibility_version": storage} if storage else {}
    with duckdb.connect(str(source), config=config) as connection:
        connection.execute("CREATE TABLE results (entry_id VARCHAR PRIMARY KEY, minutes DOUBLE)")
        connection.execute("INSERT INTO results VALUES ('a', 1.5), ('b', 2.25)")
    _storage_copy(source, shipped)
    with duckdb.connect() as connection:
        connection.execute(f"ATTACH '{shipped}' AS shipped (READ_ONLY)")
        (tags,) = connection.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 'shipped'").fetchone()
        assert tags["storage_version"] == store.STORAGE_VERSION + "+"
        assert connection.execute("FROM shipped.results ORDER BY entry_id").fetchall() == [("a", 1.5), ("b", 2.25)]
    assert (shipped.read_bytes() == source.read_bytes()) == (storage is not None)


def test_the_default_query_gives_the_native_rows_in_the_browser(page, server, project):
    """The query the editor holds when the page opens is one the page offers too."""
    page.goto(server + "sql.html")
    sql = page.input_value("#sql-query")
    run_query(page)
    columns, rows = native(project, sql)
    assert table_rows(page) == (columns, rows[:1000])
    assert page.problems == []


@pytest.mark.parametrize(
    "sql, says",
    [
        ("DELETE FROM results", "The data is read-only"),
        ("DROP TABLE results", "The data is read-only"),
        ("CREATE TABLE mine AS SELECT 1", "The data is read-only"),
        ("SELECT 1 AS one; DELETE FROM results", "One statement at a time"),
        ("SELECT ';' AS one; SELECT 2", "One statement at a time"),
        ("-- only a comment", "Type a query first"),
        ("COPY results TO 'out.csv'", "The page reads only the site's data"),
    ],
)
def test_the_data_cannot_change_and_several_statements_are_refused(page, server, project, sql, says):
    page.goto(server + "sql.html")
    run_query(page, sql, wait="#sql-error:not([hidden])")
    assert page.inner_text("#sql-error").startswith(says)
    run_query(page, "SELECT count(*) AS n, ';' AS semicolon FROM results")
    (count,) = native(project, "SELECT count(*) FROM results")[1][0]
    assert table_rows(page) == (["n", "semicolon"], [[count, ";"]])


@pytest.mark.parametrize("title, sql", EXAMPLES, ids=[t for t, _ in EXAMPLES])
def test_each_example_gives_the_native_rows_in_the_browser(page, server, project, title, sql):
    page.goto(server + "sql.html")
    page.click(f"a.sql-example >> text={title}")
    page.wait_for_selector("#sql-result:not([hidden])", timeout=60_000)
    assert page.input_value("#sql-query") == sql
    columns, rows = native(project, sql)
    assert table_rows(page) == (columns, rows[:1000])
    assert page.inner_text("#sql-status").startswith(f"{len(rows):,} row")
    assert page.problems == []


def test_a_bad_query_shows_duckdbs_message_not_an_exception(page, server):
    page.goto(server + "sql.html")
    run_query(page, "SELEC 1", wait="#sql-error:not([hidden])")
    assert page.inner_text("#sql-error").startswith("Parser Error: syntax error at or near")
    run_query(page, "SELECT * FROM rsults", wait="#sql-error:not([hidden])")
    text = page.inner_text("#sql-error")
    assert "rsults does not exist" in text and 'Did you mean "results"' in text
    run_query(page, "   ", wait="#sql-error:not([hidden])")
    assert "Type a query first" in page.inner_text("#sql-error")
    assert [p for p in page.problems if "Parser" not in p and "Catalog" not in p] == []


def test_the_permalink_restores_and_runs_the_query(page, server, project):
    sql = "SELECT id, name, date FROM rounds ORDER BY date, id"
    page.goto(server + "sql.html#q=" + quote(sql))
    page.wait_for_selector("#sql-result:not([hidden])", timeout=60_000)
    assert page.input_value("#sql-query") == sql
    assert table_rows(page) == native(project, sql)
    page.fill("#sql-query", "SELECT 41 + 1 AS answer")
    page.press("#sql-query", "Control+Enter")
    page.wait_for_function("() => document.querySelector('#sql-result tbody td')?.textContent === '42'")
    assert "q=SELECT%2041%20%2B%201%20AS%20answer" in page.url
    assert page.problems == []


def test_large_results_stop_and_the_csv_holds_the_whole_result(page, server):
    page.goto(server + "sql.html")
    run_query(page, "SELECT range AS n FROM range(150000)")
    assert "Stopped at 100,000 rows" in page.inner_text("#sql-status")
    assert page.locator("#sql-result tbody tr").count() == 1000
    run_query(page, "SELECT range AS n, 'x' || range AS label FROM range(2500)")
    assert page.locator("#sql-result tbody tr").count() == 1000
    assert "2,500 rows" in page.inner_text("#sql-status")
    with page.expect_download() as download:
        page.click("#sql-csv")
    lines = open(download.value.path(), encoding="utf-8").read().splitlines()
    assert lines[0] == "n,label" and len(lines) == 2501 and lines[-1] == "2499,x2499"
    # Sorting a column orders the whole result, not only the rows shown.
    page.click("#sql-result thead th >> nth=0 >> button")
    page.click("#sql-result thead th >> nth=0 >> button")
    assert page.locator("#sql-result tbody tr").first.locator("td").first.inner_text() == "2499"


def test_a_long_query_can_be_cancelled(page, server):
    page.goto(server + "sql.html")
    run_query(page, "SELECT 1 AS warm")
    page.fill("#sql-query", "SELECT count(*) FROM range(100000000000) a")
    page.click("#sql-run")
    page.wait_for_selector("#sql-cancel:not([disabled])")
    page.wait_for_timeout(1000)
    page.click("#sql-cancel")
    assert "Cancelled" in page.inner_text("#sql-status")
    run_query(page, "SELECT 7 AS again")
    assert table_rows(page) == (["again"], [["7"]])


def test_from_a_file_the_page_says_to_serve_it(page, project):
    page.goto((project / "site" / "sql.html").as_uri())
    notice = page.locator("#sql-file")
    assert notice.is_visible() and "leaderboard serve" in notice.inner_text()
    assert page.locator("#sql").is_hidden()
    assert page.problems == []
