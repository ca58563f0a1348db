"""`leaderboard query` as an analyst meets it, on the shipped data: one statement by DuckDB's own
parser, rows streamed in batches, one way to print each value in every format, --db and
LEADERBOARD_DB from any folder, and `build --db-only`; `leaderboard serve` on a port in use."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import os
import shutil
import socket
import string
import subprocess
import sys
import urllib.request
from decimal import Decimal

import duckdb
import pytest
from conftest import ROOT, run_cli

from leaderboard import tables
from leaderboard.statements import EmptyQuery, RefusedQuery, UndecodableQuery, single_statement


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The shipped catalog and submissions; the database only (build --db-only), in a folder of
    its own under the project."""
    project = tmp_path_factory.mktemp("shipped")
    shutil.copytree(ROOT / "catalog", project / "catalog")
    shutil.copytree(ROOT / "submissions", project / "submissions")
    result = run_cli("build", "-q", "--db-only", "--db", "data/lb.duckdb", cwd=project)
    assert result.code == 0, result.out + result.err
    assert "site:" not in result.out and not (project / "site").exists()
    return project


def query(project, *args, env=None):
    return run_cli(
        "query", *args, cwd=project, env={"LEADERBOARD_DB": str(project / "data" / "lb.duckdb"), **(env or {})}
    )


# ---- one statement, by DuckDB's parser --------------------------------------------------------------


@pytest.mark.parametrize(
    "sql, kept",
    [
        ("SELECT ';'", "SELECT ';'"),  # a ';' inside a string is no separator
        ("SELECT '--' AS a", "SELECT '--' AS a"),  # nor a '--' inside one a comment
        ("SELECT 1;", "SELECT 1;"),
        ("-- why\nSELECT 1 /* ; */", "SELECT 1 /* ; */"),  # from its first word
        ("WITH x AS (SELECT 1) SELECT * FROM x", "WITH x AS (SELECT 1) SELECT * FROM x"),
        ("FROM results", "FROM results"),
        ("DESCRIBE results", "DESCRIBE results"),
        ("SUMMARIZE runs", "SUMMARIZE runs"),
        ("EXPLAIN SELECT 1", "EXPLAIN SELECT 1"),
        (
            "SELECT 1 AS delete, 'UPDATE' AS \"insert\"",
            "SELECT 1 AS delete, 'UPDATE' AS \"insert\"",
        ),  # names, not writes
        ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) FROM n", None),
    ],
)
def test_one_read_only_statement_passes(sql, kept):
    assert single_statement(sql) == (kept or sql)


@pytest.mark.parametrize(
    "sql, refusal, message",
    [
        ("", EmptyQuery, "no SQL to run"),
        ("-- only a comment ; still nothing", EmptyQuery, "no SQL to run"),
        ("SELECT '--' AS a; SELECT 42", RefusedQuery, "this SQL holds 2 statements"),
        ("SELECT 1; DROP TABLE results", RefusedQuery, "this SQL holds 2 statements"),
        ("DELETE FROM results", RefusedQuery, "is allowed, not DELETE"),
        ("WITH x AS (SELECT 1) INSERT INTO results (entry_id) SELECT 'x'", RefusedQuery, "not INSERT"),
        ("ATTACH 'x.duckdb'", RefusedQuery, "not ATTACH"),
        ("COPY results TO 'x.csv'", RefusedQuery, "not COPY"),
        ("SET threads = 1", RefusedQuery, "not SET"),
        ("PRAGMA version", RefusedQuery, "not PRAGMA"),
        ("INSTALL httpfs", RefusedQuery, "is allowed, not INSTALL"),
        ("LOAD httpfs", RefusedQuery, "is allowed, not LOAD"),
        ("EXPLAIN DELETE FROM results", RefusedQuery, "EXPLAIN of DELETE plans a change the database refuses"),
        ("explain analyze update results set rank = 1", RefusedQuery, "EXPLAIN of UPDATE"),
        ("EXPLAIN (FORMAT json) INSERT INTO results (entry_id) VALUES ('x')", RefusedQuery, "EXPLAIN of INSERT"),
        # A write in a WITH clause: the statement is a SELECT, the CTE's body is not.
        ("WITH d AS (DELETE FROM results RETURNING *) SELECT * FROM d", RefusedQuery, "is allowed, not DELETE"),
        ("WITH d AS (UPDATE results SET rank = 1 RETURNING *) FROM d", RefusedQuery, "not UPDATE"),
        (
            "SELECT * FROM (WITH d AS (INSERT INTO results (entry_id) VALUES ('x') RETURNING *) FROM d)",
            RefusedQuery,
            "not INSERT",
        ),
        ("WITH d AS (COPY results TO 'x.csv') SELECT 1", RefusedQuery, "not COPY"),
        ("EXPLAIN WITH d AS (DELETE FROM results RETURNING *) SELECT * FROM d", RefusedQuery, "EXPLAIN of DELETE"),
        # Bytes that are not UTF-8 reach Python as lone surrogates (surrogateescape).
        ("SELECT '\udcff'", UndecodableQuery, r"^the SQL is not valid UTF-8 \(byte 0xff at position 8\)$"),
        ("-- caf\udce9\nSELECT 1", UndecodableQuery, r"\(byte 0xe9 at position 6\)"),
        ("SELECT '\ud800'", UndecodableQuery, r"\(a lone surrogate U\+D800 at character 8\)"),
    ],
)
def test_anything_else_is_refused_with_the_reason(sql, refusal, message):
    with pytest.raises(refusal, match=message):
        single_statement(sql)


@pytest.mark.parametrize("sql", ["EXPLAIN SELECT 1", "EXPLAIN ANALYZE SELECT 1", "EXPLAIN (FORMAT json) FROM results"])
def test_explaining_a_query_is_allowed(sql):
    assert single_statement(sql) == sql


def test_sql_duckdb_cannot_read_gets_its_parser_message():
    with pytest.raises(duckdb.ParserException, match='syntax error at or near "SELEC"'):
        single_statement("SELEC 1")


def test_the_cli_runs_one_statement_whatever_its_strings_hold(shipped):
    result = query(shipped, "SELECT ';' AS semicolon, '--' AS dashes", "--format", "csv")
    assert (result.code, result.out, result.err) == (0, "semicolon,dashes\n;,--\n", "")


@pytest.mark.parametrize(
    "sql, message",
    [
        ("SELECT '--' AS a; SELECT 42", "error: only a single read-only query is allowed: this SQL holds 2 statements"),
        ("DELETE FROM results", "error: only a single read-only query (SELECT, WITH, FROM"),
        (
            "WITH d AS (DELETE FROM results RETURNING *) SELECT * FROM d",
            "error: only a single read-only query (SELECT, WITH, FROM",
        ),
        ("SELEC 1", 'error: query failed: Parser Error: syntax error at or near "SELEC"'),
    ],
)
def test_the_cli_refuses_several_statements_or_a_write_in_one_line(shipped, sql, message):
    result = query(shipped, sql)
    assert (result.code, result.out) == (1, "")
    assert result.err.startswith(message) and "Traceback" not in result.err
    count = query(shipped, "SELECT count(*) AS n FROM results", "--format", "csv")
    assert int(count.out.split()[1]) > 2000  # nothing was deleted


@pytest.mark.parametrize(
    "args, stdin, position",
    [
        (["SELECT '\udcff'"], b"", "byte 0xff at position 8"),  # the shell's $'SELECT \'\xff\''
        (["-"], b"SELECT \xff", "byte 0xff at position 7"),
        (["-"], "-- café\nSELECT 'café'".encode("latin-1"), "byte 0xe9 at position 6"),
    ],
)
def test_sql_that_is_not_utf8_is_named_in_one_line(shipped, args, stdin, position):
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", "query", *args],
        cwd=shipped,
        input=stdin,
        capture_output=True,
        env={**os.environ, "LEADERBOARD_DB": str(shipped / "data" / "lb.duckdb")},
    )
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == f"error: the SQL is not valid UTF-8 ({position})\n"


# ---- one text per value, in every format ------------------------------------------------------------


@pytest.mark.parametrize(
    "value, text, csv_text, json_value",
    [
        (None, None, "", None),
        ("", "", '""', ""),
        ("NULL", "NULL", "NULL", "NULL"),  # the text NULL: only CSV and JSON tell it from a NULL
        (True, "true", "true", True),
        (False, "false", "false", False),
        (0.1 + 0.2, "0.3", "0.3", 0.3),
        (64.0, "64.0", "64.0", 64.0),
        (1e-07, "1e-07", "1e-07", 1e-07),
        (2 / 3, "0.666666666666667", "0.666666666666667", 0.666666666666667),
        (12345678901234567890.0, "1.23456789012346e+19", "1.23456789012346e+19", 1.23456789012346e19),
        (7, "7", "7", 7),
        (Decimal("12"), "12", "12", 12),
        (Decimal("1.10"), "1.1", "1.1", 1.1),
        (float("nan"), "NaN", "NaN", "nan"),
        (float("-inf"), "-Infinity", "-Infinity", "-inf"),
        ("a,b", "a,b", '"a,b"', "a,b"),
        ('say "hi"', 'say "hi"', '"say ""hi"""', 'say "hi"'),
        ([1, None], "[1, null]", '"[1, null]"', [1, None]),
        ({"a": True}, '{"a": true}', '"{""a"": true}"', {"a": True}),
        # An INTERVAL as an ISO 8601 duration, a BLOB as DuckDB writes one: never Python's notation.
        (dt.timedelta(days=3), "P3D", "P3D", "P3D"),
        (dt.timedelta(hours=1, minutes=30), "PT1H30M", "PT1H30M", "PT1H30M"),
        (dt.timedelta(seconds=-0.5), "-PT0.5S", "-PT0.5S", "-PT0.5S"),
        (dt.timedelta(0), "P0D", "P0D", "P0D"),
        (b"\x00ab\\", "\\x00ab\\x5C", "\\x00ab\\x5C", "\\x00ab\\x5C"),
    ],
)
def test_every_value_has_one_text(value, text, csv_text, json_value):
    assert tables.value_text(value) == text
    assert tables.csv_field(value) == csv_text
    got = tables.plain(value)
    if isinstance(json_value, str) and json_value in ("nan", "-inf"):
        assert math.isnan(got) if json_value == "nan" else got == -math.inf
    else:
        assert got == json_value and type(got) is type(json_value)


@pytest.mark.parametrize(
    "widths, max_width, fitted",
    [
        ([5, 5], 20, [5, 5]),  # fits: untouched
        ([30, 4], 20, [9, 4]),  # the widest gives way first (borders take 7)
        ([30, 30, 4], 30, [8, 8, 4]),  # tied widest columns share the cut
        ([3, 3], 5, [1, 1]),  # never narrower than one character
    ],
)
def test_table_columns_are_fitted_widest_first(widths, max_width, fitted):
    assert tables.fitted(widths, max_width) == fitted


def test_booleans_floats_null_and_empty_text_print_alike_in_every_format(shipped):
    sql = "SELECT true AS yes, 0.1::DOUBLE + 0.2 AS sum, NULL AS nothing, '' AS empty, DATE '2024-05-01' AS day"
    outputs = {fmt: query(shipped, sql, "--format", fmt) for fmt in tables.FORMATS}
    assert all(r.code == 0 for r in outputs.values()), [r.err for r in outputs.values()]
    assert json.loads(outputs["json"].out) == [
        {"yes": True, "sum": 0.3, "nothing": None, "empty": "", "day": "2024-05-01"}
    ]
    assert outputs["csv"].out == 'yes,sum,nothing,empty,day\ntrue,0.3,,"",2024-05-01\n'
    assert outputs["markdown"].out.splitlines()[2] == "| true | 0.3 | NULL |  | 2024-05-01 |"
    row = outputs["table"].out.splitlines()[3]
    assert [cell.strip() for cell in row.split("│")[1:-1]] == ["true", "0.3", "NULL", "", "2024-05-01"]


@pytest.mark.parametrize(
    "names, unique",
    [
        (["a", "b"], ["a", "b"]),
        (["cost_usd", "cost_usd"], ["cost_usd", "cost_usd_1"]),
        (["a", "a", "a"], ["a", "a_1", "a_2"]),
        (["a", "a_1", "a"], ["a", "a_1", "a_2"]),  # a name taken by another column is skipped
    ],
)
def test_a_repeated_column_name_gets_a_key_of_its_own(names, unique):
    assert tables.unique_names(names) == unique


def test_json_is_strict_and_keeps_every_column(shipped):
    sql = "SELECT 1 AS x, 2 AS x, 'NaN'::DOUBLE AS n, -1 / 0 AS i, [1.5, 'Infinity'::DOUBLE] AS l"
    done = query(shipped, sql, "--format", "json")
    assert done.code == 0, done.err
    strict = json.loads(done.out, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    assert strict == [{"x": 1, "x_1": 2, "n": "NaN", "i": "-Infinity", "l": [1.5, "Infinity"]}]


# ---- streaming ----------------------------------------------------------------------------------------


class Recorder(io.StringIO):
    """An output that notes how many batches had been drawn at its first write."""

    def __init__(self, drawn: list[int]):
        super().__init__()
        self.drawn, self.at_first_write = drawn, None

    def write(self, text: str) -> int:
        if self.at_first_write is None:
            self.at_first_write = len(self.drawn)
        return super().write(text)


@pytest.mark.parametrize("fmt", tables.FORMATS)
def test_rows_are_printed_before_the_last_batch_is_read(fmt):
    drawn: list[int] = []

    def batches():
        for start in range(0, 5000, 1000):
            drawn.append(start)
            yield [(i, f"run {i}", i / 7) for i in range(start, start + 1000)]

    out = Recorder(drawn)
    assert tables.write(["n", "label", "seventh"], batches(), fmt, out, max_width=None) == 5000
    assert out.at_first_write is not None and out.at_first_write <= 1 and len(drawn) == 5
    if fmt == "csv":
        assert len(list(csv.reader(io.StringIO(out.getvalue())))) == 5001


def test_every_run_streams_in_each_format(shipped):
    with duckdb.connect(str(shipped / "data" / "lb.duckdb"), read_only=True) as connection:
        (count,) = connection.execute("SELECT count(*) FROM runs").fetchone()
    as_csv = query(shipped, "SELECT * FROM runs", "--format", "csv")
    assert as_csv.code == 0 and len(list(csv.reader(io.StringIO(as_csv.out)))) == count + 1
    as_table = query(shipped, "SELECT entry_id, run, minutes FROM runs")
    assert as_table.code == 0 and as_table.err == f"{count} rows\n"
    # Top, names, rule, a line or more a run (a name longer than the first batch's wraps), bottom.
    assert len(as_table.out.splitlines()) >= count + 4
    whole = query(shipped, "SELECT entry_id, run, minutes FROM runs", "--max-width", "0")
    assert len(whole.out.splitlines()) == count + 4  # every value on one line
    as_json = query(shipped, "SELECT entry_id, run FROM runs ORDER BY entry_id, run", "--format", "json")
    assert len(json.loads(as_json.out)) == count


def test_a_table_too_wide_for_its_columns_says_so_once_on_stderr(shipped):
    """Piped, a table of every column of results (69) in 200 characters splits each name letter
    by letter; one hint says what to use instead, and the table is still printed."""
    from leaderboard.schema_tables import results

    wide = query(shipped, "SELECT * FROM results LIMIT 1")
    assert wide.code == 0 and wide.out.startswith("┏")
    hint, count = wide.err.splitlines()
    columns = len(results.columns)
    assert hint.startswith(f"hint: the table is too wide for its {columns} columns") and "--format csv" in hint
    assert "--max-width 0" in hint and count == "1 row"
    whole = query(shipped, "SELECT * FROM results LIMIT 1", "--max-width", "0")
    as_csv = query(shipped, "SELECT * FROM results LIMIT 1", "--format", "csv")
    many_narrow = query(  # 26 one-character columns: 4 characters each, with their borders
        shipped, "SELECT " + ", ".join(f"1 AS {c}" for c in string.ascii_lowercase), "--max-width", "120"
    )
    assert whole.err == many_narrow.err == "1 row\n" and as_csv.err == ""


@pytest.mark.parametrize("fmt", ["csv", "table"])
def test_a_reader_that_stops_early_ends_the_query_quietly(shipped, fmt):
    """`query ... | head -1`: the closed pipe ends the command as SIGPIPE ends other Unix tools
    (status 141), with nothing on stderr: no error line, no traceback, no row count."""
    reader = subprocess.Popen(
        [sys.executable, "-m", "leaderboard", "query", "SELECT * FROM range(1000000)", "--format", fmt],
        cwd=shipped,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "LEADERBOARD_DB": str(shipped / "data" / "lb.duckdb"), "COLUMNS": "200"},
    )
    assert reader.stdout.readline()
    reader.stdout.close()
    err = reader.stderr.read()
    reader.stderr.close()
    assert (reader.wait(timeout=300), err) == (141, b"")


# ---- where the database is ------------------------------------------------------------------------------


def test_the_database_is_found_by_flag_or_environment_from_any_folder(shipped, tmp_path):
    sql = "SELECT count(*) AS results FROM results"
    elsewhere = tmp_path / "notebooks"
    elsewhere.mkdir()
    database = shipped / "data" / "lb.duckdb"
    by_env = run_cli("query", sql, "--format", "csv", cwd=elsewhere, env={"LEADERBOARD_DB": str(database)})
    by_flag = run_cli("query", sql, "--format", "csv", "--db", database, cwd=elsewhere, env={"LEADERBOARD_DB": ""})
    relative = run_cli("query", sql, "--format", "csv", "--db", "data/lb.duckdb", cwd=shipped)
    assert by_env.code == by_flag.code == relative.code == 0, by_env.err + by_flag.err + relative.err
    assert by_env.out == by_flag.out == relative.out and int(by_env.out.split()[1]) > 2000
    # The flag wins over the variable; without either, the default file in this folder.
    wrong = run_cli("query", sql, "--db", database, cwd=elsewhere, env={"LEADERBOARD_DB": "/nowhere.duckdb"})
    assert wrong.code == 0
    missing = run_cli("query", sql, cwd=elsewhere, env={"LEADERBOARD_DB": ""})
    assert missing.code == 1 and "no database at leaderboard.duckdb" in missing.err


@pytest.mark.parametrize(
    "name, content, why",
    [
        ("results.csv", b"entry_id,round\nabc,v4.0\n", "no DuckDB header"),
        ("results.json", b'[{"entry_id": "abc"}]', "no DuckDB header"),
        ("results.parquet", None, "no DuckDB header"),
        ("leaderboard.duckdb", b"", "empty"),
        ("leaderboard.duckdb", b"not a database, but longer than its header", "no DuckDB header"),
    ],
)
def test_a_file_that_is_no_duckdb_database_is_named_in_one_line(tmp_path, name, content, why):
    path = tmp_path / name
    if content is None:
        duckdb.execute(f"COPY (SELECT 1 AS x) TO '{path}' (FORMAT parquet)")
    else:
        path.write_bytes(content)
    result = run_cli("query", "SELECT 1", "--db", name, cwd=tmp_path)
    assert (result.code, result.out) == (1, "")
    assert result.err == (
        f"error: {name} is not a DuckDB database file ({why}): give the leaderboard.duckdb that "
        "'leaderboard build' writes\n"
    )


@pytest.mark.parametrize(
    "command, db, code, message",
    [
        (
            "query",
            "data",
            1,
            "error: data is a folder, not a database file: give the file's path, such as data/leaderboard.duckdb",
        ),
        (
            "build",
            "data",
            1,
            "error: data is a folder, not a database file: give the file's path, such as data/leaderboard.duckdb",
        ),
        ("query", "", 2, "the path is empty: give a DuckDB file (leaderboard.duckdb) or a postgresql+psycopg:// URL"),
        ("build", "", 2, "the path is empty: give a DuckDB file (leaderboard.duckdb) or a postgresql+psycopg:// URL"),
        # A byte that is not UTF-8 in the name is written as Python writes it, not as \udcff.
        ("query", "\udcff.duckdb", 1, "error: no database at \\xff.duckdb: run 'leaderboard build' first"),
        (
            "query",
            "\udcff.csv",
            1,
            "error: \\xff.csv is not a DuckDB database file (no DuckDB header): give the "
            "leaderboard.duckdb that 'leaderboard build' writes",
        ),
        (
            "query",
            "data/\udce9",
            1,
            "error: data/\\xe9 is a folder, not a database file: give the file's path, "
            "such as data/\\xe9/leaderboard.duckdb",
        ),
    ],
)
def test_a_db_path_that_names_no_database_file_says_why(tmp_path, command, db, code, message):
    (tmp_path / "data" / "\udce9").mkdir(parents=True)
    (tmp_path / "\udcff.csv").write_text("entry_id,round\n")
    args = ["SELECT 1"] if command == "query" else ["-q", "--db-only"]
    result = run_cli(command, *args, "--db", db, cwd=tmp_path)
    assert (result.code, result.out) == (code, "")
    assert result.err.splitlines()[-1].endswith(message) and "\\udc" not in result.err, result.err
    assert code == 2 or result.err == message + "\n"


def test_a_server_url_is_not_read_as_a_file(tmp_path):
    result = run_cli("query", "SELECT 1", "--db", "postgresql+psycopg://nobody@127.0.0.1:9/none", cwd=tmp_path)
    assert result.code == 1 and result.err.startswith("error: query failed: connection failed"), result.err


def test_build_writes_where_the_environment_says(shipped, tmp_path):
    target = tmp_path / "elsewhere.duckdb"
    result = run_cli("build", "-q", "--db-only", cwd=shipped, env={"LEADERBOARD_DB": str(target)})
    assert result.code == 0, result.err
    assert f"database: {target}" in result.out and target.is_file()


def test_python_reads_the_database_the_environment_names(shipped, tmp_path, monkeypatch):
    import leaderboard

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEADERBOARD_DB", str(shipped / "data" / "lb.duckdb"))
    with leaderboard.connect() as connection:
        (count,) = connection.execute("SELECT count(*) FROM results").fetchone()
    assert len(leaderboard.results()) == count > 2000
    monkeypatch.delenv("LEADERBOARD_DB")
    with pytest.raises(FileNotFoundError, match="no database at leaderboard.duckdb"):
        leaderboard.connect()


@pytest.mark.parametrize("url", ["sqlite:///{folder}/x.sqlite", "mysql://user@host/db", "postgres://user@host/db"])
def test_a_database_url_the_leaderboard_does_not_write_is_refused_before_connecting(tmp_path, url):
    url = url.format(folder=tmp_path)
    result = run_cli("query", "--db", url, "SELECT 1", cwd=tmp_path)
    assert result.code == 2 and "is not a database the leaderboard writes" in result.err, result.err
    assert not (tmp_path / "x.sqlite").exists()  # SQLAlchemy's sqlite driver used to create it


# ---- serve ------------------------------------------------------------------------------------------------


def test_serve_on_a_port_in_use_says_so_and_port_0_takes_a_free_one(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<title>the board</title>")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = run_cli("serve", "--port", port, "--dir", "site", cwd=tmp_path, timeout=60)
    assert (busy.code, busy.out) == (1, "")
    assert busy.err == (
        f"error: port {port} is in use (another server?): stop it, or pick another port with --port, "
        "or --port 0 for any free one\n"
    )
    # The way out the message gives works: --port 0 serves on a free port, named in the first line.
    server = subprocess.Popen(
        [sys.executable, "-m", "leaderboard", "serve", "--port", "0", "--dir", "site"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = server.stdout.readline().split(" at ", 1)[1].split()[0]
        assert not url.endswith(":0/")
        with urllib.request.urlopen(url, timeout=10) as response:
            assert b"the board" in response.read()
    finally:
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()
