"""The database as analysts meet it: build with the CLI, then SQL. Atomic rebuilds, read-only queries."""

import json
import os
import shutil

import duckdb
import pytest
from conftest import ROOT, run_cli
from test_validate import MLPERF, PUBLISHED, place

import leaderboard
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
        "price_provider, price_date, cost_note, verified, method FROM results "
        "WHERE round = 'mlperf-training-v1.1' ORDER BY division, rank",
    )
    by_id = {r[0].split("/")[-1]: r for r in rows}
    fast, slow, dgx = by_id["acme-4320"], by_id["acme-64"], by_id["acme-8"]
    assert (fast[1], fast[2], fast[5]) == ("closed", 4320, 1) and fast[4] == pytest.approx(24.984)
    assert (slow[2], slow[5]) == (64, 2) and slow[4] == pytest.approx(4.8)
    assert (dgx[1], dgx[5]) == ("open", 1)  # ranked within its own division
    # on-demand A100 80GB: no price dated before 2021-12-01, the earliest later one (Azure, 2022-04-15), flagged
    assert slow[7] == pytest.approx(4.10) and slow[8] == "Microsoft Azure" and slow[9] == "2022-04-15"
    assert slow[6] == pytest.approx(4.8 * 4.10)
    assert "earliest later price" in slow[10]
    assert slow[11] is False  # example.com is not MLCommons' results repository
    assert slow[12] == "self-reported"


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


def test_no_price_gives_null_cost_with_reason(empty_project):
    for imported in (empty_project / "catalog").glob("prices-*.yaml"):
        imported.unlink()
    place(empty_project, MLPERF.replace("a100-sxm4-80gb", "ipu-gc200"))
    assert run_cli("build", "-q", cwd=empty_project).code == 0
    [(cost, note)] = sql(empty_project, "SELECT cost_usd, cost_note FROM results")
    assert cost is None and note == "Graphcore IPUs have no public hourly or list price"


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
        ("WITH x AS (SELECT 1) INSERT INTO results (entry_id) SELECT 'x'", "query failed: "),
    ],
)
def test_query_is_read_only_with_one_line_errors(built, query, message):
    result = run_cli("query", query, cwd=built)
    assert result.code == 1
    assert result.err.startswith(f"error: {message}") and result.err.count("\n") == 1
    assert sql(built, "SELECT count(*) FROM results") == [(4,)]


def test_query_without_database(empty_project):
    result = run_cli("query", "SELECT 1", cwd=empty_project)
    assert result.code == 1 and "run 'leaderboard build' first" in result.err


def test_python_api(built, monkeypatch):
    monkeypatch.chdir(built)
    df = leaderboard.results(round="mlperf-training-v1.1", division=["closed"])
    assert list(df["chips"]) == [4320, 64]
    assert set(leaderboard.results()["round"]) == {"mlperf-training-v1.1", "published"}
    with pytest.raises(ValueError, match="unknown column"):
        leaderboard.results(colour="red")
    con = leaderboard.connect()
    assert con.execute("SELECT count(*) FROM costs").fetchone() == (20,)
    with pytest.raises(duckdb.Error):
        con.execute("DELETE FROM results")
    assert leaderboard.validate(["submissions"]).ok


def test_readme_examples_run_against_the_shipped_data(tmp_path):
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    shutil.copytree(ROOT / "submissions", tmp_path / "submissions")
    assert run_cli("build", "-q", "--out", tmp_path / "site", cwd=tmp_path).code == 0
    con = leaderboard.connect(tmp_path / "leaderboard.duckdb")
    google = con.sql(
        "SELECT chips, minutes, chip_hours, cost_usd FROM results "
        "WHERE submitter = 'Google' AND round = 'mlperf-training-v1.1' AND benchmark = 'bert' "
        "AND division = 'open' AND chips = 2048"
    ).fetchall()
    assert len(google) == 1
    chips, minutes, chip_hours, cost = google[0]
    assert minutes == pytest.approx(1196.638, abs=0.001)
    assert chip_hours == pytest.approx(40845, abs=1) and cost == pytest.approx(131522, abs=2)


def test_runs_table_gives_every_run_with_its_part_in_the_score(empty_project):
    """Five ResNet runs, one failed: the failed one is dropped as slowest, the fastest dropped,
    the other three counted; logs link into the results repository folder of source.url."""
    runs = "  runs_minutes: [4.4, 4.5, null, 4.6, 4.3]\n  runs_quality: [0.7601, 0.7602, 0.71, 0.7603, 0.7604]\n"
    text = MLPERF.replace("  minutes: 4.5\n", "  minutes: 4.5\n" + runs).replace(
        "source:\n  url: https://example.com/acme/resnet",
        "provenance:\n  method: computed-from-logs\n"
        "  run_logs: [result_0.txt, result_1.txt, result_2.txt, result_3.txt, result_4.txt]\n"
        "  failed_runs: ['result_2.txt: run_stop status is aborted, not success']\n"
        "source:\n  url: https://github.com/acme/results/tree/main/Acme/results/acme-64/resnet",
    )
    place(empty_project, text, name="acme-64.yaml")
    result = run_cli("build", "--quiet", cwd=empty_project)
    assert result.code == 0, result.out + result.err
    rows = sql(
        empty_project,
        "SELECT run, minutes, status, failure_reason, dropped, counted, quality, log_path, log_url FROM runs ORDER BY run",
    )
    folder = "Acme/results/acme-64/resnet"
    blob = f"https://github.com/acme/results/blob/main/{folder}"
    assert rows == [
        (1, 4.4, "success", None, None, True, 0.7601, f"{folder}/result_0.txt", f"{blob}/result_0.txt"),
        (2, 4.5, "success", None, None, True, 0.7602, f"{folder}/result_1.txt", f"{blob}/result_1.txt"),
        (
            3,
            None,
            "failed",
            "run_stop status is aborted, not success",
            "slowest",
            False,
            0.71,
            f"{folder}/result_2.txt",
            f"{blob}/result_2.txt",
        ),
        (4, 4.6, "success", None, None, True, 0.7603, f"{folder}/result_3.txt", f"{blob}/result_3.txt"),
        (5, 4.3, "success", None, "fastest", False, 0.7604, f"{folder}/result_4.txt", f"{blob}/result_4.txt"),
    ]
    # The counted runs give the score.
    [(mean, minutes)] = sql(
        empty_project,
        "SELECT avg(u.minutes), r.minutes FROM runs u JOIN results r USING (entry_id) WHERE counted GROUP BY r.minutes",
    )
    assert mean == pytest.approx(minutes)
    # A result without runs_minutes has no runs.
    assert sql(empty_project, "SELECT count(DISTINCT entry_id) FROM runs") == [(1,)]
