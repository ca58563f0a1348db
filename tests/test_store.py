"""The database as analysts meet it: build with the CLI, then SQL. Atomic rebuilds, read-only queries."""

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys

import duckdb
import pytest
import yaml
from conftest import ROOT, modules_a_build_imports, run_cli
from test_validate import MLPERF, PUBLISHED, place

import leaderboard
from leaderboard import manifest
from leaderboard.store import metadata


def place_acme_results(project, open_division: bool = False) -> None:
    """Two closed ResNet results (64 and 4,320 A100s), optionally an open one, and a published
    run, costed with the hand-entered prices only (the numbers below are worked out from them)."""
    for imported in (project / "catalog").glob("prices-*.yaml"):
        imported.unlink()
    place(project, MLPERF, name="acme-64.yaml")
    place(project, entry_variant("acme-4320", 4320, 0.347), name="acme-4320.yaml")
    if open_division:
        place(
            project,
            entry_variant("acme-8", 8, 29.147).replace("division: closed", "division: open"),
            name="acme-8.yaml",
        )
    place(project, PUBLISHED, round_="published")


def entry_variant(system: str, count: int, minutes: float) -> str:
    return (
        MLPERF.replace("acme-64", system)
        .replace("count: 64", f"count: {count}")
        .replace("minutes: 4.5", f"minutes: {minutes}")
    )


@pytest.fixture
def built(empty_project):
    place_acme_results(empty_project, open_division=True)
    result = run_cli("build", "--quiet", cwd=empty_project)
    assert result.code == 0, result.out + result.err
    return empty_project


def sql(project, query, *params):
    with duckdb.connect(str(project / "leaderboard.duckdb"), read_only=True) as con:
        return con.execute(query, list(params)).fetchall()


def test_build_prints_where_things_are(built):
    result = run_cli("build", cwd=built)
    assert result.code == 0
    assert "4 results" in result.out
    assert f"database: {built / 'leaderboard.duckdb'}" in result.out
    assert f"site:     {built / 'site' / 'index.html'}" in result.out


def test_every_table_and_column_exists(built):
    for table in metadata.sorted_tables:
        columns = [
            row[0]
            for row in sql(
                built,
                f"SELECT column_name FROM information_schema.columns "
                f"WHERE table_name = '{table.name}' ORDER BY ordinal_position",
            )
        ]
        assert columns == [c.name for c in table.columns], table.name


def test_results_are_normalized_and_ranked(built):
    rows = sql(
        built,
        "SELECT entry_id, division, chips, minutes, chip_hours, rank, cost_usd, price_usd_per_chip_hour, "
        "price_provider, price_date, price_after_result, cost_missing_reason, verified, method FROM results "
        "WHERE round = 'mlperf-training-v1.1' ORDER BY division, rank",
    )
    by_id = {r[0].split("/")[-1]: r for r in rows}
    fast, slow, dgx = by_id["acme-4320"], by_id["acme-64"], by_id["acme-8"]
    assert (fast[1], fast[2], fast[5]) == ("closed", 4320, 1) and fast[4] == pytest.approx(24.984)
    assert (slow[2], slow[5]) == (64, 2) and slow[4] == pytest.approx(4.8)
    assert (dgx[1], dgx[5]) == ("open", 1)  # ranked within its own division
    # on-demand A100 80GB: no price dated before 2021-12-01, the earliest later one (Azure, 2022-04-15), flagged
    assert slow[7] == pytest.approx(4.10) and slow[8] == "Microsoft Azure" and slow[9] == dt.date(2022, 4, 15)
    assert slow[6] == pytest.approx(4.8 * 4.10)
    assert slow[10] is True and slow[11] is None  # a cost, by a price dated after the result
    assert slow[12] is False  # example.com is not MLCommons' results repository
    assert slow[13] == "self-reported"


def test_units_and_costs_of_a_published_run(built):
    [(chips, chip_hours, cost, round_kind)] = sql(
        built, "SELECT chips, chip_hours, cost_usd, round_kind FROM results WHERE round = 'published'"
    )
    assert (chips, chip_hours, round_kind) == (64, 6144, "published")
    assert cost == pytest.approx(12288)  # 16 devices x $8.00 per device-hour x 96 h
    tiers = dict(sql(built, "SELECT tier, cost_usd FROM costs WHERE entry_id = 'published/acme-labs/entry'"))
    assert tiers["spot"] == pytest.approx(6144 * 0.60)
    assert tiers["1-year"] == pytest.approx(6144 * 1.26)
    assert set(tiers) == {"on-demand", "spot", "1-year", "3-year", "purchase"}


def test_each_result_says_which_way_its_quality_is_better(empty_project):
    """results.quality_direction: the benchmark's metric's (ResNet-50's accuracy: higher), else what
    a published run states; NULL where neither says."""
    place(empty_project, MLPERF)
    stated = "  minutes: 5760\n  quality: 2.9\n  quality_target: 3.0\n  quality_direction: lower\n"
    place(empty_project, PUBLISHED.replace("  minutes: 5760\n", stated), round_="published", name="stated.yaml")
    silent = PUBLISHED.replace("name: Acme-LM", "name: Acme-LM-2").replace('"Training Acme-LM"', '"Training Acme-LM-2"')
    place(empty_project, silent, round_="published", name="silent.yaml")
    built = run_cli("build", "-q", "--db-only", cwd=empty_project)
    assert built.code == 0, built.out + built.err
    found = dict(sql(empty_project, "SELECT entry_id, quality_direction FROM results"))
    assert found == {
        "mlperf-training-v1.1/acme-labs/entry": "higher",
        "published/acme-labs/stated": "lower",
        "published/acme-labs/silent": None,
    }


def test_no_price_gives_null_cost_with_reason(empty_project):
    for imported in (empty_project / "catalog").glob("prices-*.yaml"):
        imported.unlink()
    place(empty_project, MLPERF.replace("a100-sxm4-80gb", "ipu-gc200"))
    assert run_cli("build", "-q", cwd=empty_project).code == 0
    [(cost, reason, later, estimate)] = sql(
        empty_project, "SELECT cost_usd, cost_missing_reason, price_after_result, price_estimate FROM results"
    )
    assert cost is None and reason == "Graphcore IPUs have no public hourly or list price"
    assert later is None and estimate is None  # no price, so nothing to say about one


def test_catalog_tables(built):
    unet3d = "SELECT DISTINCT quality_target, runs, drop_fastest FROM benchmark_rounds WHERE benchmark = 'unet3d'"
    assert sql(built, unet3d) == [(0.908, 40, 4)]
    replaced = "SELECT id, replaces FROM benchmarks WHERE replaces IS NOT NULL ORDER BY id"
    assert ("retinanet", "ssd") in sql(built, replaced)
    assert sql(built, "SELECT log_format, layout FROM rounds WHERE id = 'mlperf-training-v0.5'") == [
        ("mlpv0.5", "v0.5-entries")
    ]
    [(usd, per_chip_hour)] = sql(
        built, "SELECT usd, usd_per_chip_hour FROM prices WHERE accelerator = 'tpu-v3' AND tier = 'on-demand'"
    )
    assert (usd, per_chip_hour) == (8.0, 2.0)


def test_invalid_file_leaves_previous_database_and_site(built):
    before_db = (built / "leaderboard.duckdb").read_bytes()
    before_site = (built / "site" / "index.html").read_bytes()
    place(built, MLPERF.replace("count: 64", "count: -1"), name="broken.yaml")
    result = run_cli("build", cwd=built)
    assert result.code == 1
    assert "broken.yaml:11:10: $.system.count: must be greater than 0" in result.out
    assert "nothing was built" in result.err
    assert (built / "leaderboard.duckdb").read_bytes() == before_db
    assert (built / "site" / "index.html").read_bytes() == before_site
    assert not [p for p in os.listdir(built) if p.endswith(".tmp")]


def test_query_formats(built):
    query = "SELECT entry_id, chips FROM results WHERE round = 'published'"
    assert (
        run_cli("query", query, "--format", "csv", cwd=built).out == "entry_id,chips\npublished/acme-labs/entry,64.0\n"
    )
    assert json.loads(run_cli("query", query, "--format", "json", cwd=built).out) == [
        {"entry_id": "published/acme-labs/entry", "chips": 64.0}
    ]
    table = run_cli("query", query, cwd=built)
    assert table.code == 0 and "published/acme-labs/entry" in table.out


@pytest.mark.parametrize(
    "query, message",
    [
        ("SELECT nope FROM results", "query failed: "),
        ("DROP TABLE results", "only a single read-only query"),
        ("INSERT INTO results (entry_id) VALUES ('x')", "only a single read-only query"),
        ("SELECT 1; DROP TABLE results", "only a single read-only query"),
        ("ATTACH '/tmp/other.duckdb' AS other", "only a single read-only query"),
        ("COPY results TO '/tmp/out.csv'", "only a single read-only query"),
        ("SELECT * FROM read_csv('/etc/passwd')", "query failed: "),
        ("WITH x AS (SELECT 1) INSERT INTO results (entry_id) SELECT 'x'", "only a single read-only query"),
    ],
)
def test_query_is_read_only_with_errors_and_no_traceback(built, query, message):
    result = run_cli("query", query, cwd=built)
    assert result.code == 1 and result.out == ""
    first, *more = result.err.splitlines()
    assert first.startswith(f"error: {message}") and all(line.startswith("  ") for line in more)
    assert "Traceback" not in result.err
    assert sql(built, "SELECT count(*) FROM results") == [(4,)]


@pytest.mark.parametrize(
    "query, lines",
    [
        (
            "SELECT * FROM result",
            [
                "error: query failed: Catalog Error: Table with name result does not exist!",
                '  Did you mean "results"?',
                "  LINE 1: SELECT * FROM result",
                "                        ^^^^^^",
            ],
        ),
        (
            "SELECT nope FROM results",
            [
                'error: query failed: Binder Error: Referenced column "nope" not found in FROM clause!',
                '  Candidate bindings: "nodes", ',
                "  LINE 1: SELECT nope FROM results",
                "                 ^^^^",
            ],
        ),
    ],
)
def test_query_errors_keep_duckdbs_whole_message(built, query, lines):
    result = run_cli("query", query, cwd=built)
    assert result.code == 1
    got = result.err.splitlines()
    assert len(got) == len(lines)
    for line, expected in zip(got, lines, strict=True):
        assert line.startswith(expected)


@pytest.mark.parametrize("query", ["", "   ", "\n", "-- nothing but a comment", "/* nor here */", "-- a\n-- b\n"])
def test_query_without_a_statement_is_a_one_line_error(built, query):
    result = run_cli("query", query, cwd=built)
    assert (result.code, result.out) == (1, "")
    assert result.err == "error: no SQL to run: give one statement, such as SELECT * FROM results LIMIT 5\n"


@pytest.mark.parametrize(
    "args",
    [
        ["-- the published run\nSELECT entry_id FROM results WHERE round = 'published'", "--format", "csv"],
        ["--format", "csv", "-- the published run\nSELECT entry_id FROM results WHERE round = 'published'"],
        [
            "--format=csv",
            "--comment without a space after the dashes?\nSELECT entry_id FROM results WHERE round = 'published'",
        ],
        ["--format", "csv", "--", "--\nSELECT entry_id FROM results WHERE round = 'published'"],
        [
            "/* block */ SELECT entry_id FROM results WHERE round = 'published' -- ; not a second statement",
            "--format",
            "csv",
        ],
    ],
)
def test_query_may_start_with_a_comment(built, args):
    result = run_cli("query", *args, cwd=built)
    assert (result.code, result.err) == (0, "")
    assert result.out == "entry_id\npublished/acme-labs/entry\n"


def test_query_reads_sql_from_stdin(built):
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", "query", "-", "--format", "csv"],
        cwd=built,
        input="-- from a file\nSELECT count(*) AS results FROM results;\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (0, "results\n4\n"), done.stderr


def test_query_misspelled_option_is_still_a_usage_error(built):
    result = run_cli("query", "SELECT 1", "--fromat", "csv", cwd=built)
    assert result.code == 2 and "No such option '--fromat'. Did you mean '--format'?" in result.err


LONG_VALUE = "https://example.com/" + "a-very-long-path/" * 12


@pytest.mark.parametrize(
    "args, whole_on_one_line",
    [
        (["--max-width", "0"], True),  # no limit: every value on one line
        ([], False),  # the default width: the value wraps in its cell
        (["--max-width", "60"], False),
    ],
)
def test_query_table_never_cuts_a_value(built, args, whole_on_one_line):
    query = f"SELECT entry_id, '{LONG_VALUE}' AS url FROM results WHERE round = 'published'"
    result = run_cli("query", query, *args, cwd=built)
    assert result.code == 0, result.err
    assert "…" not in result.out and "..." not in result.out
    assert (LONG_VALUE in result.out) is whole_on_one_line
    cells = "".join(line.split("│")[2].strip() for line in result.out.splitlines() if line.count("│") == 3)
    assert cells == LONG_VALUE  # every character shown, in order
    if args:
        width = int(args[1]) or len(LONG_VALUE) + len("published/acme-labs/entry") + 7
        assert max(len(line) for line in result.out.splitlines()) == width


def test_query_markdown_format(built):
    query = "SELECT entry_id, chips, 'a|b' AS text, NULL AS nothing FROM results WHERE round = 'published'"
    result = run_cli("query", query, "--format", "markdown", cwd=built)
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "| entry_id | chips | text | nothing |",
        "|---|---:|---|---|",  # numbers right-aligned
        "| published/acme-labs/entry | 64.0 | a\\|b | NULL |",  # a | in a value escaped; NULL said
    ]


def test_query_without_database(empty_project):
    result = run_cli("query", "SELECT 1", cwd=empty_project)
    assert result.code == 1 and "run 'leaderboard build' first" in result.err


def test_python_api(built, monkeypatch):
    monkeypatch.chdir(built)
    df = leaderboard.results(round="mlperf-training-v1.1", division=["closed"])
    assert list(df["chips"]) == [4320, 64]
    assert set(leaderboard.results()["round"]) == {"mlperf-training-v1.1", "published"}
    # None is NULL: IN (NULL) would match nothing.
    everything = leaderboard.results()
    missing = int(everything["quality"].isna().sum())
    assert 0 < missing < len(everything)
    assert len(leaderboard.results(quality=None)) == missing
    assert len(leaderboard.results(quality=[None, *everything["quality"].dropna()])) == len(everything)
    assert len(leaderboard.results(quality=[])) == 0
    with pytest.raises(ValueError, match="unknown column"):
        leaderboard.results(colour="red")
    con = leaderboard.connect()
    assert con.execute("SELECT count(*) FROM costs").fetchone() == (20,)
    with pytest.raises(duckdb.Error):
        con.execute("DELETE FROM results")
    assert leaderboard.validate(["submissions"]).ok


def test_connect_and_a_plain_duckdb_connection_share_a_process(built):
    """leaderboard.connect() and duckdb.connect(path, read_only=True) on the same file, in either
    order: ours stays read-only without file access; the plain one keeps DuckDB's defaults."""
    path = built / "leaderboard.duckdb"
    (built / "small.csv").write_text("a\n1\n")
    for first in ("ours", "plain"):
        opened = {}
        for which in (first, "plain" if first == "ours" else "ours"):
            opened[which] = leaderboard.connect(path) if which == "ours" else duckdb.connect(str(path), read_only=True)
        ours, plain = opened["ours"], opened["plain"]
        count = "SELECT count(*) FROM results"
        assert ours.execute(count).fetchall() == plain.execute(count).fetchall() == [(4,)]
        for statement in (
            "DELETE FROM results",
            f"SELECT * FROM read_csv('{built / 'small.csv'}')",
            f"ATTACH '{built / 'other.duckdb'}' AS other",
            "SET enable_external_access = true",
        ):
            with pytest.raises(duckdb.Error):
                ours.execute(statement)
        assert plain.execute(f"SELECT a FROM read_csv('{built / 'small.csv'}')").fetchall() == [(1,)]
        ours.close()
        plain.close()
    assert not (built / "other.duckdb").exists()


# Column types as an analyst meets them: dates are DATE, counts integers unless they can be fractional.
COLUMN_TYPES = [
    ("results", "date", "DATE"),
    ("results", "price_date", "DATE"),
    ("costs", "price_date", "DATE"),
    ("prices", "date", "DATE"),
    ("rounds", "date", "DATE"),
    ("accelerators", "release_date", "DATE"),
    ("results", "count", "DOUBLE"),  # a count of cores or devices may be fractional
    ("results", "chips", "DOUBLE"),  # an odd number of cores is half a chip
    ("results", "nodes", "BIGINT"),
    ("results", "host_processor_count", "BIGINT"),
    ("results", "runs", "BIGINT"),
    ("results", "rank", "BIGINT"),
    ("results", "reference_cost_year", "BIGINT"),
    ("benchmark_rounds", "runs", "BIGINT"),
    ("runs", "run", "BIGINT"),
    ("results", "price_after_result", "BOOLEAN"),
    ("results", "price_estimate", "BOOLEAN"),
    ("costs", "price_after_result", "BOOLEAN"),
    ("costs", "price_estimate", "BOOLEAN"),
    ("prices", "estimate", "BOOLEAN"),
    ("results", "cost_missing_reason", "VARCHAR"),
    ("costs", "cost_missing_reason", "VARCHAR"),
]


@pytest.mark.parametrize("table, column, kind", COLUMN_TYPES)
def test_column_types(built, table, column, kind):
    assert sql(built, f"SELECT column_type FROM (DESCRIBE {table}) WHERE column_name = ?", column) == [(kind,)]


def test_every_date_column_is_a_date(built):
    found = sql(
        built,
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE column_name = 'date' OR column_name LIKE '%\\_date' ESCAPE '\\' ORDER BY ALL",
    )
    assert len(found) == 6 and {kind for _, _, kind in found} == {"DATE"}, found


def test_dates_compare_and_subtract_as_dates(built):
    [(days, later)] = sql(
        built,
        "SELECT price_date - date, price_date > date FROM results "
        "WHERE entry_id = 'mlperf-training-v1.1/acme-labs/acme-64'",
    )
    assert (days, later) == (135, True)  # 2021-12-01 to Azure's price of 2022-04-15
    assert sql(built, "SELECT count(*) FROM results WHERE date >= DATE '2021-01-01'") == [(3,)]


# One meaning per column: each query lists the rows that break a rule; none may.
COST_RULES = {
    "a cost has no missing reason, a missing cost has one": (
        "SELECT entry_id, tier FROM costs WHERE (cost_usd IS NULL) <> (cost_missing_reason IS NOT NULL)"
    ),
    "price_after_result says whether the price is dated after the result": (
        "SELECT entry_id, tier FROM costs JOIN results r USING (entry_id) "
        "WHERE costs.price_after_result IS DISTINCT FROM (costs.price_date > r.date)"
    ),
    "the price flags are NULL exactly when there is no price": (
        "SELECT entry_id, tier FROM costs WHERE (price_after_result IS NULL) <> (cost_usd IS NULL) "
        "OR (price_estimate IS NULL) <> (cost_usd IS NULL)"
    ),
    "price_estimate is the flag of the price used": (
        "SELECT c.entry_id, c.tier FROM costs c JOIN results r USING (entry_id) "
        "WHERE c.cost_usd IS NOT NULL AND NOT EXISTS (SELECT 1 FROM prices p WHERE p.accelerator = r.accelerator "
        "AND p.tier = c.tier AND p.provider = c.provider AND p.date = c.price_date AND p.estimate = c.price_estimate)"
    ),
    "the results row repeats the on-demand cost's fields": (
        "SELECT entry_id FROM results r JOIN costs c USING (entry_id) WHERE c.tier = 'on-demand' AND ("
        "r.price_after_result IS DISTINCT FROM c.price_after_result "
        "OR r.price_estimate IS DISTINCT FROM c.price_estimate "
        "OR r.cost_missing_reason IS DISTINCT FROM c.cost_missing_reason "
        "OR r.price_date IS DISTINCT FROM c.price_date OR r.cost_usd IS DISTINCT FROM c.cost_usd)"
    ),
}


@pytest.mark.parametrize("rule", COST_RULES)
def test_cost_columns_say_one_thing_each(built, rule):
    assert sql(built, COST_RULES[rule]) == []


def test_a_later_dated_price_is_flagged_not_explained_in_a_note(built):
    rows = dict(
        sql(
            built,
            "SELECT tier, (cost_usd IS NOT NULL, price_after_result, price_estimate, cost_missing_reason) FROM costs "
            "WHERE entry_id = 'mlperf-training-v1.1/acme-labs/acme-64'",
        )
    )
    assert rows["on-demand"] == (True, True, False, None)  # Azure's price of 2022-04-15, after 2021-12-01
    assert rows["spot"] == (False, None, None, "no spot price for A100 SXM4 80GB in the catalog")


PUBLISHED_RUNS = {
    # name: (chips, minutes): the big run is faster, the small one uses fewer chip-hours
    "big": (1024, 600),  # 10,240 chip-hours
    "small": (8, 6000),  # 800 chip-hours
}


def test_published_runs_rank_by_chip_hours_in_the_database_as_on_the_site(empty_project):
    from leaderboard.render import model

    for name, (count, minutes) in PUBLISHED_RUNS.items():
        text = (
            PUBLISHED.replace("count: 16\n  unit: device", f"count: {count}\n  unit: chip")
            .replace("minutes: 5760", f"minutes: {minutes}")
            .replace("Acme-LM", f"Acme-LM {name}")
        )
        place(empty_project, text, round_="published", name=f"{name}.yaml")
    place(empty_project, MLPERF, name="acme-64.yaml")
    place(empty_project, entry_variant("acme-4320", 4320, 0.347), name="acme-4320.yaml")
    assert run_cli("build", "-q", cwd=empty_project).code == 0
    ranks = dict(sql(empty_project, "SELECT split_part(entry_id, '/', 3), rank FROM results"))
    assert ranks == {"small": 1, "big": 2, "acme-4320": 1, "acme-64": 2}
    data = model.load(empty_project / "leaderboard.duckdb")
    for board in data.boards:
        for rows in board.divisions.values():
            assert [r["rank"] for r in rows] == [r["board_rank"] for r in rows], board.key


def test_an_unreal_catalog_date_stops_the_build_with_its_place(empty_project):
    prices = empty_project / "catalog" / "prices.yaml"
    text = prices.read_text()
    first = re.search(r'date: "(\d{4}-\d{2}-\d{2})"', text).group(1)
    prices.write_text(text.replace(f'date: "{first}"', 'date: "2021-02-30"', 1))
    place(empty_project, MLPERF)
    result = run_cli("build", "-q", cwd=empty_project)
    assert result.code == 1 and "internal error" not in result.err
    assert re.search(
        r"catalog/prices\.yaml:\d+:\d+: \$\.prices\[\d+\]\.date: '2021-02-30' is not a real date", result.out
    )


# ---- the shipped data -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The shipped catalog and submissions, built once for the tests over the real data."""
    project = tmp_path_factory.mktemp("shipped")
    shutil.copytree(ROOT / "catalog", project / "catalog")
    shutil.copytree(ROOT / "submissions", project / "submissions")
    result = run_cli("build", "-q", cwd=project)
    assert result.code == 0, result.out + result.err
    return project


def readme_queries() -> list[str]:
    """Every SQL example of the README: con.sql(...) in Python, leaderboard query "..." in the
    shell, and the statements of ```sql blocks (each ending with ';')."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    queries = re.findall(r'con\.sql\(\s*"""(.*?)"""', text, re.DOTALL)
    queries += re.findall(r'leaderboard query "([^"]+)"', text)
    for block in re.findall(r"```sql\n(.*?)```", text, re.DOTALL):
        queries += [q for q in block.split(";") if re.sub(r"--[^\n]*", "", q).strip()]
    return [" ".join(q.split()) if "--" not in q else q.strip() for q in queries]


def test_the_readme_has_sql_examples():
    assert len(readme_queries()) >= 5


@pytest.mark.parametrize("query", readme_queries(), ids=lambda q: " ".join(q.split())[:60])
def test_readme_examples_return_rows_from_the_shipped_data(shipped, query):
    with leaderboard.connect(shipped / "leaderboard.duckdb") as con:
        rows = con.sql(query).fetchall()
    assert rows, "the example returns no row: does it spell names as the data does?"


def test_readme_numbers_of_the_shipped_data(shipped):
    con = leaderboard.connect(shipped / "leaderboard.duckdb")
    google = con.sql(
        "SELECT chips, minutes, chip_hours, cost_usd FROM results "
        "WHERE submitter = 'Google' AND round = 'mlperf-training-v1.1' AND benchmark = 'bert' "
        "AND division = 'open' AND chips = 2048"
    ).fetchall()
    assert len(google) == 1
    chips, minutes, chip_hours, cost = google[0]
    assert minutes == pytest.approx(1196.638, abs=0.001)
    assert chip_hours == pytest.approx(40845, abs=1) and cost == pytest.approx(131522, abs=2)


def test_every_part_without_an_on_demand_price_says_why(shipped):
    """A result without an on-demand cost gets its part's no_price_reason, never the generic
    fallback; and a part with an on-demand price gives no such reason."""
    unexplained = sql(
        shipped,
        "SELECT DISTINCT r.accelerator FROM results r JOIN accelerators a ON a.id = r.accelerator "
        "WHERE r.cost_usd IS NULL AND a.no_price_reason IS NULL ORDER BY 1",
    )
    assert unexplained == []
    contradicted = sql(
        shipped,
        "SELECT DISTINCT a.id FROM accelerators a JOIN prices p ON p.accelerator = a.id "
        "WHERE p.tier = 'on-demand' AND a.no_price_reason IS NOT NULL ORDER BY 1",
    )
    assert contradicted == []
    assert sql(shipped, "SELECT count(*) FROM results WHERE cost_missing_reason LIKE 'no on-demand price for %'") == [
        (0,)
    ]


def site_data_text(data) -> list[str]:
    """Everything the site's data holds, as text that tells 1 from 1.0 and True from 1, and
    each row's columns in their order."""
    boards = [(b.key, {d: rows for d, rows in b.divisions.items()}) for b in data.boards]
    fields = ["rounds", "benchmarks", "accelerators", "prices", "results", "columns", "epoch_comparison", "skipped"]
    fields += ["organizations", "prices_as_of", "price_anomalies"]
    return [repr(getattr(data, name)) for name in fields] + [repr(boards)]


def test_a_builds_site_data_read_from_its_rows_is_the_databases(shipped, built, monkeypatch):
    """A build draws its site from the rows its database is filled with (model.load of a
    store.Staged): on the shipped data and on a small project's, the same data, value for value,
    type for type and in the same order, as model.load reads from the database file."""
    from leaderboard import store
    from leaderboard.render import model
    from leaderboard.rows import table_rows
    from leaderboard.validate import validate_paths

    for project in (shipped, built):
        validation = validate_paths([project / "submissions"], project / "catalog")
        rows = table_rows(validation.entries, validation.catalog, base=project)
        staged = store.Staged(project / "staged.duckdb", store.tables(validation.catalog, rows))
        try:
            from_rows = model.load(staged)
        finally:
            staged.close()
        from_database = model.load(project / "leaderboard.duckdb")
        assert len(from_rows.results) == len(rows.results) > 0
        assert site_data_text(from_rows) == site_data_text(from_database), project
    # Past ROWS_KEPT_UP_TO results, a build's site reads its database in memory once filled.
    monkeypatch.setattr(store, "ROWS_KEPT_UP_TO", len(rows.results) - 1)
    staged = store.Staged(built / "staged.duckdb", store.tables(validation.catalog, rows))
    try:
        assert staged.take_tables() is None
        assert site_data_text(model.load(staged)) == site_data_text(from_database)
    finally:
        staged.close()


def test_the_database_rank_is_every_boards_order(shipped):
    from leaderboard.render import model

    data = model.load(shipped / "leaderboard.duckdb")
    published = 0
    for board in data.boards:
        for rows in board.divisions.values():
            assert [r["rank"] for r in rows] == [r["board_rank"] for r in rows], board.key
            published += board.round["kind"] == "published"
    assert published > 0


def test_runs_table_gives_every_run_with_its_part_in_the_score(empty_project):
    """Five ResNet runs, one failed: the failed one takes the slowest's place (dropped: failed), the fastest dropped,
    the other three counted; logs link into the results repository folder of source.url."""
    runs = "  runs_minutes: [4.4, 4.5, null, 4.6, 4.3]\n  runs_quality: [0.7601, 0.7602, 0.71, 0.7603, 0.7604]\n"
    text = MLPERF.replace("  minutes: 4.5\n", "  minutes: 4.5\n" + runs).replace(
        "source:\n  url: https://example.com/acme/resnet",
        "provenance:\n  method: computed-from-logs\n"
        "  run_logs: [result_0.txt, result_1.txt, result_2.txt, result_3.txt, result_4.txt]\n"
        "  failed_runs: ['result_2.txt: run_stop status is aborted, not success']\n"
        "source:\n  url: https://github.com/acme/results/tree/main/Acme/results/acme-64/resnet",
    )
    path = place(empty_project, text, name="acme-64.yaml")
    # Listed in the round's manifest as its importer lists what it writes: only then is its provenance read.
    entry_id = "mlperf-training-v1.1/acme-labs/acme-64"
    content = path.read_bytes()
    manifest.write(
        empty_project / "catalog", "mlperf-training-v1.1", [manifest.row(entry_id, yaml.safe_load(content), content)]
    )
    result = run_cli("build", "--quiet", cwd=empty_project)
    assert result.code == 0, result.out + result.err
    rows = sql(
        empty_project,
        "SELECT run, minutes, status, failure_reason, failure_detail, dropped, counted, quality, log_path, log_url "
        "FROM runs ORDER BY run",
    )
    folder = "Acme/results/acme-64/resnet"
    blob = f"https://github.com/acme/results/blob/main/{folder}"
    assert rows == [
        (1, 4.4, "success", None, None, None, True, 0.7601, f"{folder}/result_0.txt", f"{blob}/result_0.txt"),
        (2, 4.5, "success", None, None, None, True, 0.7602, f"{folder}/result_1.txt", f"{blob}/result_1.txt"),
        (
            3,
            None,
            "failed",
            "aborted",
            "run_stop status is aborted, not success",
            "failed",
            False,
            0.71,
            f"{folder}/result_2.txt",
            f"{blob}/result_2.txt",
        ),
        (4, 4.6, "success", None, None, None, True, 0.7603, f"{folder}/result_3.txt", f"{blob}/result_3.txt"),
        (5, 4.3, "success", None, None, "fastest", False, 0.7604, f"{folder}/result_4.txt", f"{blob}/result_4.txt"),
    ]
    # The counted runs give the score.
    [(mean, minutes)] = sql(
        empty_project,
        "SELECT avg(u.minutes), r.minutes FROM runs u JOIN results r USING (entry_id) WHERE counted GROUP BY r.minutes",
    )
    assert mean == pytest.approx(minutes)
    # A result without runs_minutes has no runs.
    assert sql(empty_project, "SELECT count(DISTINCT entry_id) FROM runs") == [(1,)]


# Values the JSON way into DuckDB must arrive exactly as the Arrow way brings them.
TRICKY_ROWS = [
    {"entry_id": "a", "round": "r", "minutes": 0.1 + 0.2, "chips": 8.0, "ranked": True, "date": "2024-02-29"},
    {"entry_id": "b", "round": 'ünïcode \u2028 "quoted" \' \\', "minutes": 1e-300, "chips": 1.7976931348623157e308},
    {"entry_id": "c", "round": None, "minutes": 123456789.123456789, "ranked": False, "date": None},
]


@pytest.mark.parametrize(
    "rows, loaded_as_json",
    [
        (TRICKY_ROWS, True),
        # NaN has no JSON form (JSON writes null): such a table goes the Arrow way, NaN kept.
        ([*TRICKY_ROWS, {"entry_id": "d", "minutes": float("nan")}], False),
        # Nor has infinity; nor the two infinities, whose sum is no number.
        ([*TRICKY_ROWS, {"entry_id": "d", "minutes": float("inf")}], False),
        ([*TRICKY_ROWS, {"entry_id": "d", "minutes": float("inf"), "chips": float("-inf")}], False),
        # Finite values whose sum is past the largest float go the JSON way; a key that is not
        # a column is left out.
        ([*TRICKY_ROWS, {"entry_id": "d", "chips": 1.7976931348623157e308, "note": "no such column"}], True),
    ],
)
@pytest.mark.parametrize("chunk", [2, 5_000])  # JSON written 2 rows at a time too: NaN in a later chunk
def test_rows_reach_duckdb_exactly_by_either_way(rows, loaded_as_json, chunk, monkeypatch):
    import sqlalchemy as sa

    from leaderboard import loading

    monkeypatch.setattr(loading, "JSON_ROWS", chunk)

    table = sa.Table(
        "trial",
        sa.MetaData(),
        sa.Column("entry_id", sa.Text, primary_key=True),
        sa.Column("round", sa.Text),
        sa.Column("minutes", sa.Double),
        sa.Column("chips", sa.Double),
        sa.Column("ranked", sa.Boolean),
        sa.Column("date", sa.Date),
    )
    create = (
        "CREATE TABLE trial (entry_id VARCHAR, round VARCHAR, minutes DOUBLE, chips DOUBLE, ranked BOOLEAN, date DATE)"
    )
    by_json, by_arrow = duckdb.connect(), duckdb.connect()
    for connection in (by_json, by_arrow):
        connection.execute(create)
    assert (loading.load_json(by_json, table, rows) is not None) is loaded_as_json
    if not loaded_as_json:
        by_json.register("incoming_rows", loading.arrow_table(table, rows))
        by_json.execute("INSERT INTO trial SELECT * FROM incoming_rows")
    by_arrow.register("incoming_rows", loading.arrow_table(table, rows))
    by_arrow.execute("INSERT INTO trial SELECT * FROM incoming_rows")
    query = "SELECT entry_id, round, minutes::VARCHAR, chips::VARCHAR, ranked, date FROM trial ORDER BY entry_id"
    assert by_json.execute(query).fetchall() == by_arrow.execute(query).fetchall()
    assert by_json.execute(query).fetchall()[0][2] == "0.30000000000000004"
    if not loaded_as_json:  # the value JSON has no form for arrived as itself, not as NULL
        assert by_json.execute("SELECT minutes IS NOT NULL FROM trial WHERE entry_id = 'd'").fetchone() == (True,)


def _described(path) -> dict:
    """What a DuckDB file holds besides its rows: comments, keys, the costs_at macro, its format."""
    with duckdb.connect() as con:
        con.execute(f"ATTACH '{path}' AS d (READ_ONLY)")
        described = {
            "columns": con.execute(
                "SELECT table_name, column_name, data_type, comment FROM duckdb_columns() "
                "WHERE database_name = 'd' ORDER BY ALL"
            ).fetchall(),
            "tables": con.execute(
                "SELECT table_name, comment FROM duckdb_tables() WHERE database_name = 'd' ORDER BY ALL"
            ).fetchall(),
            "constraints": con.execute(
                "SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints() "
                "WHERE database_name = 'd' ORDER BY ALL"
            ).fetchall(),
            "macros": con.execute(
                "SELECT function_name, function_type, parameters FROM duckdb_functions() "
                "WHERE database_name = 'd' AND NOT internal ORDER BY ALL"
            ).fetchall(),
            "format": con.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 'd'").fetchone(),
        }
        con.execute("DETACH d")
    return described


def _loaded_digest(rows: list[dict], types: dict[str, str] | None = None) -> str | None:
    """The digest loading.load_json gives rows loaded into a fresh table `trial` (columns and types: `types`)."""
    from leaderboard import loading, schema_tables

    types = types or {"entry_id": "VARCHAR", "round": "VARCHAR", "minutes": "DOUBLE"}
    kinds = {kind: getattr(schema_tables, name) for name, kind in loading.DUCKDB_TYPES.items()}
    columns = (schema_tables.Column(name, kinds[kind](), "") for name, kind in types.items())
    table = schema_tables.Table("trial", schema_tables.Schema(), *columns, comment="")
    connection = duckdb.connect()
    connection.execute(f"CREATE TABLE trial ({', '.join(f'{n} {k}' for n, k in types.items())})")
    return loading.load_json(connection, table, rows)


DIGEST_ROWS = [{"entry_id": "a", "round": "r", "minutes": 0.5}, {"entry_id": "b", "round": None, "minutes": 2.0}]


@pytest.mark.parametrize(
    "other, same",
    [
        # The same rows in another order hash apart: a download made again, never a wrong one kept.
        (list(reversed(DIGEST_ROWS)), False),
        ([DIGEST_ROWS[0], {**DIGEST_ROWS[1], "minutes": 2.5}], False),  # one value
        ([DIGEST_ROWS[0], {**DIGEST_ROWS[1], "round": ""}], False),  # NULL is not ''
        (DIGEST_ROWS[:1], False),  # a row fewer
        ([*DIGEST_ROWS, DIGEST_ROWS[0]], False),  # a row twice
        ([{"entry_id": "a", "round": "r", "minutes": 0.5}, {"entry_id": "b", "round": None, "minutes": 2.0}], True),
    ],
)
def test_a_table_loaded_from_rows_is_named_by_their_content(other, same):
    """The build hashes each table's rows as it loads them (the downloads' thread need not hash the
    database again): the same rows in the same order hash the same, any change of a value, a row or
    their order does not."""
    assert (_loaded_digest(DIGEST_ROWS) == _loaded_digest(other)) is same


@pytest.mark.parametrize("chunk", [1, 2, 5_000])
def test_a_table_digest_does_not_depend_on_how_many_rows_are_written_at_a_time(chunk, monkeypatch):
    from leaderboard import loading

    rows = [*DIGEST_ROWS, {"entry_id": "c", "round": "s", "minutes": 3.0}]
    whole = _loaded_digest(rows)
    monkeypatch.setattr(loading, "JSON_ROWS", chunk)
    assert _loaded_digest(rows) == whole


def test_a_table_digest_names_its_columns_and_types():
    changed_type = {"entry_id": "VARCHAR", "round": "VARCHAR", "minutes": "BIGINT"}
    rows = [{"entry_id": "a", "round": "r", "minutes": 1}]
    assert _loaded_digest(rows) != _loaded_digest(rows, changed_type)
    assert _loaded_digest([{"entry_id": "a", "minutes": float("nan")}]) is None  # loaded the Arrow way: no digest


def test_a_staged_database_whose_file_cannot_be_written_says_so_and_leaves_nothing(built, tmp_path, monkeypatch):
    """The file of a build's database is written by a process of its own from the start: its
    failure is raised where the build asks for the file or its data, and nothing is left behind."""
    from leaderboard import store
    from leaderboard.rows import table_rows
    from leaderboard.validate import validate_paths

    validation = validate_paths([built / "submissions"], built / "catalog")
    rows = table_rows(validation.entries, validation.catalog, base=built)
    monkeypatch.setattr(store, "STORAGE_VERSION", "v0.0.1")  # no DuckDB writes this format
    folder = tmp_path / "databases"
    staged = store.Staged(folder / "staged.duckdb", store.tables(validation.catalog, rows))
    try:
        with pytest.raises(duckdb.Error, match="v0.0.1"), staged.reading():
            pass
        with pytest.raises(duckdb.Error, match="v0.0.1"):
            staged.write_aside()
    finally:
        staged.close()
    assert list(folder.iterdir()) == []


def test_a_staged_databases_process_yields_the_processor_to_the_build(built, tmp_path):
    """The database's process runs at a lower priority than the build's own, whose pages are the
    longer path, as the drawing workers do; the build's own priority is left as it was."""
    import os

    from leaderboard import store
    from leaderboard.rows import table_rows
    from leaderboard.validate import validate_paths

    validation = validate_paths([built / "submissions"], built / "catalog")
    rows = table_rows(validation.entries, validation.catalog, base=built)
    own = os.nice(0)
    staged = store.Staged(
        tmp_path / "staged.duckdb", store.tables(validation.catalog, rows), then=lambda *_: os.nice(0)
    )
    try:
        assert staged.then_result == min(own + store.DATABASE_NICENESS, 19) > own
    finally:
        staged.close()
    assert os.nice(0) == own


def test_a_staged_database_that_cannot_be_filled_says_so_where_its_file_is_asked_for(tmp_path):
    """A build's database is filled by a process of its own while the site is drawn from its rows:
    a row DuckDB refuses is raised where the build asks for the file, and nothing is left behind."""
    from leaderboard import store

    folder = tmp_path / "databases"
    folder.mkdir()
    bad = {"rounds": [{"id": "r", "name": "R", "kind": "mlperf", "date": "2024-13-45"}]}
    staged = store.Staged(folder / "staged.duckdb", bad)
    try:
        assert staged.take_tables() is bad  # the site's rows, not waiting for the database
        assert staged.take_tables() is None  # once
        with pytest.raises(duckdb.Error, match="2024-13-45"):
            staged.write_aside()
    finally:
        staged.close()
    assert list(folder.iterdir()) == []


def test_a_database_filled_in_memory_is_written_as_a_file_built_directly(built, tmp_path_factory):
    """A build fills its database in memory and writes the file beside the pages (store.Staged):
    the file holds what a database written directly holds, rows, comments, keys, macro and format,
    and a failed or abandoned one leaves nothing behind."""
    from leaderboard import store
    from leaderboard.render.downloads import database_digest
    from leaderboard.rows import table_rows
    from leaderboard.validate import validate_paths

    folder = tmp_path_factory.mktemp("databases")
    validation = validate_paths([built / "submissions"], built / "catalog")
    rows = table_rows(validation.entries, validation.catalog, base=built)
    direct = store.write_aside(folder / "direct.duckdb", validation.catalog, rows)
    staged = store.Staged(folder / "staged.duckdb", store.tables(validation.catalog, rows))
    try:
        with staged.reading() as query:
            assert query("SELECT count(*) FROM results")[1] == [(len(rows.results),)]
        written = staged.write_aside()
        assert staged.write_aside() == written  # once
        assert written.parent == folder and written.name.startswith(".staged.duckdb.")
        assert not (folder / f"{written}.wal").exists()
        assert database_digest(written) == database_digest(direct)
        assert _described(written) == _described(direct)
    finally:
        staged.close()
    assert not written.exists()  # not published: removed with the database in memory
    abandoned = store.Staged(folder / "abandoned.duckdb", store.tables(validation.catalog, rows))
    abandoned.close()
    assert sorted(p.name for p in folder.iterdir()) == [direct.name]


def _then_returns(connection, digests):
    return {"results": connection.execute("SELECT count(*) FROM results").fetchone()[0], "digests": sorted(digests)}


def _then_fails(connection, digests):
    raise OSError(28, "No space left on device", "/full/disk/data/results.csv")


@pytest.mark.parametrize("then", [_then_returns, _then_fails])
def test_what_a_staged_database_runs_after_its_file_comes_back_or_fails_the_file(built, tmp_path, then):
    """`then` runs in the database's process on the database in memory once its file is written:
    its result comes back; its failure (a full disk) is the file's, and leaves nothing behind."""
    from leaderboard import store
    from leaderboard.rows import table_rows
    from leaderboard.validate import validate_paths

    validation = validate_paths([built / "submissions"], built / "catalog")
    rows = table_rows(validation.entries, validation.catalog, base=built)
    folder = tmp_path / "databases"
    staged = store.Staged(folder / "staged.duckdb", store.tables(validation.catalog, rows), then=then)
    try:
        if then is _then_fails:
            with pytest.raises(OSError, match="No space left") as raised:
                staged.write_aside()
            assert raised.value.errno == 28 and raised.value.filename == "/full/disk/data/results.csv"
        else:
            assert staged.then_result == {"results": len(rows.results), "digests": sorted(staged.digests)}
            assert staged.write_aside().is_file()
    finally:
        staged.close()
    assert list(folder.iterdir()) == []


def test_the_tables_ddl_is_kept_for_the_code_and_versions_that_compiled_it(tmp_path, monkeypatch):
    """A build's database process takes the tables' DDL from the cache: compiled once, then again
    only when SQLAlchemy, its DuckDB dialect or DuckDB is another version (or the code changed:
    cache.read_json)."""
    from leaderboard import store

    compiled = []
    monkeypatch.setattr(store, "PRECOMPILED", tmp_path / "installed")  # the install has none
    monkeypatch.setattr(store, "duckdb_ddl", lambda: compiled.append(1) or "CREATE TABLE t (a INTEGER);")
    path = tmp_path / store.DDL_CACHE
    assert store.kept_ddl(path) == "CREATE TABLE t (a INTEGER);" and len(compiled) == 1
    assert store.kept_ddl(path) == "CREATE TABLE t (a INTEGER);" and len(compiled) == 1
    stored = json.loads(path.read_text())
    stored["versions"][0] = "0.0.1"  # another SQLAlchemy's
    stored["ddl"] = "CREATE TABLE stale (a INTEGER);"
    path.write_text(json.dumps(stored))
    assert store.kept_ddl(path) == "CREATE TABLE t (a INTEGER);" and len(compiled) == 2
    assert store.kept_ddl(None) == "CREATE TABLE t (a INTEGER);" and len(compiled) == 3  # no cache: compiled
    monkeypatch.undo()
    assert store.kept_ddl(tmp_path / "real.json") == store.duckdb_ddl()


def test_where_the_cache_has_no_ddl_the_installs_is_read_when_made_for_this_code_and_versions(tmp_path, monkeypatch):
    """`make bytecode` compiles the DDL into the install (precompiled.py): a cold build's database
    process reads it there, not compiling it, unless it was made for other versions."""
    from leaderboard import precompiled, store

    installed = tmp_path / "installed"
    monkeypatch.setattr(store, "PRECOMPILED", installed)
    monkeypatch.setattr(precompiled, "PRECOMPILED", installed)
    monkeypatch.setattr(store, "duckdb_ddl", lambda: "CREATE TABLE installed (a INTEGER);")
    store.kept_ddl(installed / store.DDL_CACHE)  # as precompiled.compile_all() makes it
    compiled = []
    monkeypatch.setattr(store, "duckdb_ddl", lambda: compiled.append(1) or "CREATE TABLE t (a INTEGER);")
    cache = tmp_path / "cache" / store.DDL_CACHE
    assert store.kept_ddl(cache) == "CREATE TABLE installed (a INTEGER);" and not compiled
    assert not cache.exists()  # nothing to keep: the install has it
    stored = json.loads((installed / store.DDL_CACHE).read_text())
    stored["versions"][2] = "0.0.1"  # another DuckDB's
    (installed / store.DDL_CACHE).write_text(json.dumps(stored))
    assert store.kept_ddl(cache) == "CREATE TABLE t (a INTEGER);" and compiled == [1]
    assert store.kept_ddl(cache) == "CREATE TABLE t (a INTEGER);" and compiled == [1]  # kept in the cache now


def test_a_build_never_imports_sqlalchemy_its_tables_are_plain_descriptions(empty_project):
    """The tables are plain descriptions (schema_tables); SQLAlchemy, a tenth of a second or more
    to import, is imported for a server database, or to compile the DuckDB file's DDL when the
    cache has none (in the database's process): the build's own process never needs it, nor
    DuckDB (0.08 s), which only the database's process uses. The tables SQLAlchemy is given are
    the same: names, order, types, keys, comments."""
    import sqlalchemy as sa

    from leaderboard import schema_tables, store

    place_acme_results(empty_project)
    imported = modules_a_build_imports(empty_project)
    assert "leaderboard" in imported
    assert "sqlalchemy" not in imported and "duckdb" not in imported
    names, rows = store.run_query(empty_project / "leaderboard.duckdb", "SELECT count(*) FROM results")
    assert rows == [(3,)]
    made = schema_tables.sqlalchemy_metadata()
    assert list(made.tables) == list(schema_tables.metadata.tables)
    assert [t.name for t in made.sorted_tables] == [t.name for t in schema_tables.metadata.sorted_tables]
    kinds = {"TEXT": sa.Text, "DOUBLE": sa.Double, "BIGINT": sa.BigInteger, "BOOLEAN": sa.Boolean, "DATE": sa.Date}
    for name, table in schema_tables.metadata.tables.items():
        assert made.tables[name].comment == table.comment
        assert [(c.name, type(c.type), c.comment, c.primary_key) for c in made.tables[name].columns] == [
            (c.name, kinds[str(c.type)], c.comment, c.primary_key) for c in table.columns
        ]
